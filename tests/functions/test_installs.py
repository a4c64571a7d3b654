"""Function packages installed from PyPI (``crossfn.functions.installs``): what a package asks for,
finding an install, and what ``install`` refuses, without the network."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from crossfn import errors
from crossfn.functions import installs

PYTHONIC = "xpkg.crossplane.io/crossplane-contrib/function-pythonic:v0.3.0"


@pytest.mark.parametrize(
    ("package", "want", "reason"),
    [
        pytest.param(PYTHONIC, ("v0.3.0", "0.3.0", ">=3.12,<3.15", ""), "the docs' pin", id="Docs"),
        pytest.param(
            "xpkg.upbound.io/crossplane-contrib/function-pythonic:v0.3.0", ("v0.3.0", "0.3.0", ">=3.12,<3.15", ""),
            "any registry: pythonic's own examples name xpkg.upbound.io", id="UpboundRegistry",
        ),
        pytest.param(
            "crossplane-contrib/function-pythonic:v0.1.4", ("v0.1.4", "0.1.4", ">=3.11,<3.14", ""),
            "up to v0.1.4 the release supports Python 3.11 to 3.13", id="BeforePython312",
        ),
        pytest.param(
            "crossplane-contrib/function-pythonic:v0.1.5", ("v0.1.5", "0.1.5", ">=3.12,<3.15", ""),
            "from v0.1.5 Python 3.12 to 3.14", id="FromPython312",
        ),
        pytest.param(
            "ghcr.io/crossplane-contrib/function-pythonic:v0.6.3+build.1", ("v0.6.3", "0.6.3", ">=3.12,<3.15", ""),
            "build metadata is not part of the PyPI version", id="BuildMetadata",
        ),
        pytest.param(
            "xpkg.crossplane.io/crossplane-contrib/function-pythonic:latest",
            ("latest", "", ">=3.12,<3.15",
             "the tag 'latest' names no release of crossplane-function-pythonic on PyPI: pin a release tag (vX.Y.Z)"),
            "latest is whatever was pushed last: no version to install", id="Latest",
        ),
        pytest.param(
            "xpkg.crossplane.io/crossplane-contrib/function-pythonic:v0.0.0-20251229000000-0123456789ab",
            ("v0.0.0-20251229000000-0123456789ab", "", ">=3.12,<3.15",
             "the tag 'v0.0.0-20251229000000-0123456789ab' names no release of crossplane-function-pythonic on "
             "PyPI: pin a release tag (vX.Y.Z)"),
            "a build of a commit is published as a package only, never to PyPI", id="PseudoVersion",
        ),
        pytest.param(
            "xpkg.crossplane.io/crossplane-contrib/function-pythonic@sha256:abc",
            ("", "", ">=3.12,<3.15",
             "the digest sha256:abc names no release of crossplane-function-pythonic on PyPI: pin a release tag "
             "(vX.Y.Z)"),
            "a digest", id="Digest",
        ),
    ],
)  # fmt: skip
def test_wanted(package: str, want: tuple[str, str, str, str], reason: str) -> None:
    got = installs.wanted(package)
    assert got is not None, reason
    assert (got.tag, got.version, got.python_text(), got.problem) == want, reason


@pytest.mark.parametrize(
    "package",
    [
        pytest.param("xpkg.crossplane.io/someone/function-pythonic:v0.3.0", id="Fork"),
        pytest.param("xpkg.crossplane.io/crossplane-contrib/function-python:v0.3.0", id="OtherFunction"),
        pytest.param("function-pythonic", id="BareName"),
    ],
)
def test_wanted_is_none_for_other_packages(package: str) -> None:
    assert installs.wanted(package) is None


def _fake_install(root: Path, *, version: str = "0.3.0", script: bool = True) -> Path:
    """An install as ``install`` leaves one, without pip: the record and the console script."""
    where = root / "function-pythonic" / "v0.3.0"
    (where / "bin").mkdir(parents=True)
    if script:
        (where / "bin" / "function-pythonic").write_text("#!/bin/sh\n")
    record = {
        "record": 1, "package": PYTHONIC, "distribution": "crossplane-function-pythonic", "version": version,
        "python": "3.12.1", "freeze": ["crossplane-function-pythonic==0.3.0"],
    }  # fmt: skip
    (where / installs.RECORD).write_text(json.dumps(record))
    return where


def test_find_reads_the_record(tmp_path: Path) -> None:
    where = _fake_install(tmp_path)
    found = installs.find("xpkg.upbound.io/crossplane-contrib/function-pythonic:v0.3.0", tmp_path)
    assert found is not None
    assert found.argv == (str(where / "bin" / "function-pythonic"), "grpc")
    assert found.freeze == ("crossplane-function-pythonic==0.3.0",)
    assert found.line() == (
        "running function-pythonic v0.3.0 as the PyPI package crossplane-function-pythonic 0.3.0 installed in "
        f"{where} (crossfn function install; Python 3.12.1), in a process of its own"
    )


@pytest.mark.parametrize(
    ("setup", "package", "reason"),
    [
        pytest.param(lambda root: None, PYTHONIC, "nothing installed", id="NotInstalled"),
        pytest.param(
            _fake_install, "xpkg.crossplane.io/crossplane-contrib/function-pythonic:v0.3.1",
            "another release is another install", id="OtherRelease",
        ),
        pytest.param(
            lambda root: _fake_install(root, version="0.3.1"), PYTHONIC,
            "a record of another version is not this release's", id="RecordOfAnotherVersion",
        ),
        pytest.param(
            lambda root: _fake_install(root, script=False), PYTHONIC,
            "a record without the console script is not a usable install", id="NoScript",
        ),
        pytest.param(
            lambda root: (root / "function-pythonic" / "v0.3.0" / "bin").mkdir(parents=True), PYTHONIC,
            "a directory without a record is an install that did not finish", id="Unfinished",
        ),
    ],
)  # fmt: skip
def test_find_none(tmp_path: Path, setup: object, package: str, reason: str) -> None:
    assert callable(setup)
    setup(tmp_path)
    assert installs.find(package, tmp_path) is None, reason


def test_find_rereads_a_changed_record(tmp_path: Path) -> None:
    where = _fake_install(tmp_path)
    assert installs.find(PYTHONIC, tmp_path) is not None
    record = where / installs.RECORD
    record.write_text("{not json")
    os.utime(record, ns=(1, 1))
    assert installs.find(PYTHONIC, tmp_path) is None, "the controller asks on every call: a change is seen"


def test_functions_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(installs.DIR_ENV, str(tmp_path / "fns"))
    assert installs.functions_dir() == tmp_path / "fns"
    monkeypatch.delenv(installs.DIR_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert installs.functions_dir() == tmp_path / "cache" / "crossfn" / "functions"


def _interpreter(tmp_path: Path, version: str) -> str:
    """A stand-in interpreter that reports ``version``."""
    path = tmp_path / f"python-{version}"
    path.write_text(f"#!/bin/sh\necho {version}\n")
    path.chmod(0o755)
    return str(path)


def test_install_of_an_installed_release_does_nothing(tmp_path: Path) -> None:
    where = _fake_install(tmp_path)
    said: list[str] = []
    got = installs.install(PYTHONIC, root=tmp_path, python="/nonexistent/python", log=said.append)
    assert got.path == where
    assert said == [f"function-pythonic v0.3.0 is installed in {where} (Python 3.12.1)"]


@pytest.mark.parametrize(
    ("package", "python", "want", "reason"),
    [
        pytest.param(
            "xpkg.crossplane.io/crossplane-contrib/function-auto-ready:v0.6.0", None,
            'cannot install "xpkg.crossplane.io/crossplane-contrib/function-auto-ready:v0.6.0": crossfn installs '
            "only function packages published on PyPI too (crossplane-contrib/function-pythonic)",
            "a package that is no PyPI release", id="NotOnPyPI",
        ),
        pytest.param(
            "xpkg.crossplane.io/crossplane-contrib/function-pythonic:latest", None,
            'cannot install "xpkg.crossplane.io/crossplane-contrib/function-pythonic:latest": the tag \'latest\' '
            "names no release of crossplane-function-pythonic on PyPI: pin a release tag (vX.Y.Z)",
            "no version to install", id="Latest",
        ),
        pytest.param(
            PYTHONIC, "3.11.9",
            "crossplane-function-pythonic==0.3.0 needs Python >=3.12,<3.15; {python} is Python 3.11.9",
            "an interpreter the release does not support", id="PythonTooOld",
        ),
        pytest.param(
            PYTHONIC, "3.15.0",
            "crossplane-function-pythonic==0.3.0 needs Python >=3.12,<3.15; {python} is Python 3.15.0",
            "nor a newer one than it supports", id="PythonTooNew",
        ),
        pytest.param(
            PYTHONIC, "/nonexistent/python",
            'cannot run the Python interpreter "/nonexistent/python"', "no interpreter there", id="NoInterpreter",
        ),
    ],
)  # fmt: skip
def test_install_refuses(tmp_path: Path, package: str, python: str | None, want: str, reason: str) -> None:
    if python is not None and not python.startswith("/"):
        python = _interpreter(tmp_path, python)
    with pytest.raises(errors.InputError) as exc:
        installs.install(package, root=tmp_path / "fns", python=python)
    assert str(exc.value) == want.format(python=python), reason
    assert not (tmp_path / "fns").exists(), "nothing is made before the interpreter is settled"


def test_install_without_a_supported_python_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if sys.version_info[:2] >= (3, 12):
        pytest.skip("this interpreter supports the release: nothing to look for")  # CI runs 3.11
    # A python3.12 that does not run, as a pyenv shim of a version pyenv has not selected: not a candidate.
    shim = tmp_path / "python3.12"
    shim.write_text("#!/bin/sh\necho 'pyenv: python3.12: command not found' >&2\nexit 127\n")
    shim.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(errors.InputError) as exc:
        installs.install(PYTHONIC, root=tmp_path / "fns")
    assert str(exc.value) == (
        "crossplane-function-pythonic==0.3.0 needs Python >=3.12,<3.15; this is Python "
        f"{'.'.join(map(str, sys.version_info[:3]))} and no python3.14, python3.13 or python3.12 on "
        "PATH runs: pass --python PATH of a Python >=3.12,<3.15 interpreter"
    )


def test_install_finds_a_supported_python_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """python3.13 on PATH is chosen; the first step that needs it (the venv) then fails with one line."""
    if sys.version_info[:2] >= (3, 12):
        pytest.skip("this interpreter supports the release: it is chosen first")  # CI runs 3.11
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "python3.13"
    fake.write_text(
        '#!/bin/sh\nif [ "$1" = -c ]; then echo 3.13.2; exit 0; fi\necho "no venv here" >&2\nexit 1\n'
    )
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    said: list[str] = []
    with pytest.raises(errors.InputError) as exc:
        installs.install(PYTHONIC, root=tmp_path / "fns", log=said.append)
    target = tmp_path / "fns" / "function-pythonic" / "v0.3.0"
    assert said == [
        f"installing crossplane-function-pythonic==0.3.0 for function-pythonic v0.3.0 with Python 3.13.2 ({fake}) "
        f"into {target}"
    ]
    assert str(exc.value) == f"cannot create a virtual environment in {target}: no venv here"
    assert installs.find(PYTHONIC, tmp_path / "fns") is None, "no record: the install did not finish"


def _fake_python(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A python3.13 on PATH that says its version and can make no venv."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "python3.13"
    fake.write_text(
        '#!/bin/sh\nif [ "$1" = -c ]; then echo 3.13.2; exit 0; fi\necho "no venv here" >&2\nexit 1\n'
    )
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    return fake


@pytest.mark.parametrize(
    ("reason", "constraint", "root", "want"),
    [
        pytest.param("A constraints file that is not there is named before anything is made (pip said it after "
                     "the venv was made).", "missing.txt", "fns",
                     "cannot read the constraints file {d}/missing.txt: No such file or directory", id="NoConstraints"),
        pytest.param("A directory is no constraints file.", "bin", "fns",
                     "cannot read the constraints file {d}/bin: Is a directory", id="ConstraintsDirectory"),
        pytest.param("--dir under a file is one line (mkdir raised NotADirectoryError).", None, "afile/fns",
                     "cannot make the directory {d}/afile/fns/function-pythonic: Not a directory", id="DirUnderFile"),
    ],
)  # fmt: skip
def test_install_bad_paths_are_one_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    *,
    reason: str,
    constraint: str | None,
    root: str,
    want: str,
) -> None:
    if sys.version_info[:2] < (3, 12):
        _fake_python(tmp_path, monkeypatch)
    (tmp_path / "afile").write_text("")
    with pytest.raises(errors.InputError) as exc:
        installs.install(
            PYTHONIC, root=tmp_path / root, constraint=tmp_path / constraint if constraint else None
        )
    assert str(exc.value) == want.format(d=tmp_path), reason
    assert not (tmp_path / "fns").exists(), reason


def test_cli_install_error_is_one_line(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "crossfn", "function", "install", "xpkg.crossplane.io/acme/function-x:v1.0.0",
         "--dir", str(tmp_path)],
        capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip
    assert (out.returncode, out.stdout) == (1, "")
    assert out.stderr == (
        'crossfn: error: cannot install "xpkg.crossplane.io/acme/function-x:v1.0.0": crossfn installs only '
        "function packages published on PyPI too (crossplane-contrib/function-pythonic)\n"
    )
