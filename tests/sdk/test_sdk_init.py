"""Tests for ``crossfn init``: the scaffold's own tests pass straight away, and it ships.

The project installs crossfn from the wheel ``init`` puts in ``wheels/``, so it
builds where crossfn is on no package index; the Dockerfile builds from the
same wheel (checked statically: there is no Docker here).
"""

from __future__ import annotations

import base64
import csv
import hashlib
import importlib.metadata
import io
import os
import pathlib
import re
import subprocess
import sys
import sysconfig
import tomllib
import zipfile

import pytest
import yaml

import crossfn
from crossfn import cli
from crossfn.sdk import resource

_WHEEL = f"crossfn-{importlib.metadata.version('crossfn')}-py3-none-any.whl"


def test_scaffold_tests_pass_right_after_init(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "function-greet"
    assert cli.main(["init", "function", "function-greet", "--directory", str(target)]) == 0
    out = capsys.readouterr().out
    assert "function_greet/fn.py" in out
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=target,
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        env={k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 passed" in result.stdout


def test_scaffold_files(tmp_path: pathlib.Path) -> None:
    target = tmp_path / "fn"
    assert cli.main(["init", "function", "function-x", "-C", str(target)]) == 0
    files = sorted(str(p.relative_to(target)) for p in target.rglob("*") if p.is_file())
    assert files == sorted(
        [
            ".dockerignore",
            ".gitignore",
            "Dockerfile",
            "README.md",
            "example/composition.yaml",
            "example/functions.yaml",
            "example/xr.yaml",
            "function_x/__init__.py",
            "function_x/fn.py",
            "package/crossplane.yaml",
            "pyproject.toml",
            "tests/test_fn.py",
            f"wheels/{_WHEEL}",
        ]
    )
    meta = yaml.safe_load((target / "package/crossplane.yaml").read_text())
    assert (meta["kind"], meta["metadata"]["name"]) == ("Function", "function-x")
    functions = yaml.safe_load((target / "example/functions.yaml").read_text())
    assert (
        functions["metadata"]["annotations"]["render.crossfn.io/runtime-inprocess-object"]
        == "function_x.fn:compose"
    )
    composition = yaml.safe_load((target / "example/composition.yaml").read_text())
    assert composition["spec"]["pipeline"][0]["functionRef"]["name"] == "function-x"
    group = composition["spec"]["pipeline"][0]["input"]["apiVersion"].split("/")[0]
    assert re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*", group), (
        f"the input's API group {group} is a DNS subdomain"
    )
    pyproject = (target / "pyproject.toml").read_text()
    assert '"pydantic>=2.7' in pyproject, "fn.py imports pydantic, so the project depends on it"
    dev = tomllib.loads(pyproject)["project"]["optional-dependencies"]["dev"]
    assert any(req.startswith("crossfn[render]") for req in dev), (
        "the README's `crossfn render example/...` runs after installing .[dev], so dev brings the render extra"
    )
    froms = [
        line.split()[1]
        for line in (target / "Dockerfile").read_text().splitlines()
        if line.startswith("FROM ")
    ]
    assert froms == ["debian:12-slim", "gcr.io/distroless/python3-debian12:nonroot"], (
        "build and runtime images must both be Debian 12 (Python 3.11)"
    )
    assert not list(tmp_path.glob(".crossfn-init-*")), "no staging directory is left behind"


def test_dockerfile_installs_crossfn_from_the_wheel(tmp_path: pathlib.Path) -> None:
    target = tmp_path / "fn"
    assert cli.main(["init", "function", "function-x", "-C", str(target)]) == 0
    lines = [line.strip() for line in (target / "Dockerfile").read_text().splitlines()]
    build = lines[: next(i for i, line in enumerate(lines) if line.startswith("FROM gcr.io"))]
    copied = [line.split()[1] for line in build if line.startswith("COPY ")]
    assert copied[0] == "wheels", "the wheels are in the build stage before anything installs"
    installs = [
        line for line in build if line.startswith("RUN /venv/fn/bin/pip install") and "--upgrade" not in line
    ]
    assert installs == ["RUN /venv/fn/bin/pip install --no-cache-dir --find-links wheels ."], installs
    ignored = (target / ".dockerignore").read_text().split()
    assert not any(pattern.startswith(("wheels", "*.whl", "**/*.whl")) for pattern in ignored), (
        "the wheels reach the build context"
    )
    entrypoint = next(line for line in lines if line.startswith("ENTRYPOINT"))
    assert "function_x.fn:compose" in entrypoint


@pytest.mark.parametrize(
    ("reason", "name", "existing_message"),
    [
        pytest.param(
            "Upper case is not a DNS label.", "Function", (False, "NAME must be a DNS label"), id="BadName"
        ),
        pytest.param(
            "An underscore is not allowed in a DNS label or an API group.",
            "function_x",
            (False, "NAME must be a DNS label"),
            id="Underscore",
        ),
        pytest.param(
            "A DNS label is at most 63 characters.",
            "f" * 64,
            (False, "NAME must be a DNS label"),
            id="TooLong",
        ),
        pytest.param(
            "A trailing '-' is not a DNS label.",
            "function-",
            (False, "NAME must be a DNS label"),
            id="TrailingDash",
        ),
        pytest.param(
            "The Python package would be a keyword: `import class` is a syntax error.",
            "class",
            (False, "its Python package class would be a Python keyword"),
            id="Keyword",
        ),
        pytest.param(
            "The Python package would hide the standard library's json.",
            "json",
            (False, "its Python package json would hide the module of that name"),
            id="StandardLibrary",
        ),
        pytest.param(
            "A trailing newline is not a DNS label (a regex's `$` matches before it).",
            "function-z\n",
            (False, "NAME must be a DNS label"),
            id="TrailingNewline",
        ),
        pytest.param(
            "A directory whose parent is a file cannot be created: one line, no traceback.",
            "function-y",
            (False, "/file is not a directory"),
            id="ParentIsAFile",
        ),
        pytest.param(
            "A non-empty directory is never overwritten.",
            "function-y",
            (True, "exists and is not an empty directory"),
            id="Exists",
        ),
    ],
)
def test_init_errors(
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
    reason: str,
    name: str,
    existing_message: tuple[bool, str],
) -> None:
    existing, message = existing_message
    target = tmp_path / "t"
    if "parent is a file" in reason:
        (tmp_path / "file").write_text("mine")
        target = tmp_path / "file" / "t"
    if existing:
        target.mkdir()
        (target / "keep").write_text("mine")
    assert cli.main(["init", "function", name, "-C", str(target)]) == 1, reason
    captured = capsys.readouterr()
    assert captured.out == "", "no partial output"
    assert message in captured.err, reason
    assert len(captured.err.splitlines()) == 1, f"one line: {captured.err}"
    if existing:
        assert [p.name for p in target.iterdir()] == ["keep"], reason


def test_scaffold_example_renders(tmp_path: pathlib.Path) -> None:
    target = tmp_path / "function-demo"
    assert cli.main(["init", "function", "function-demo", "-C", str(target)]) == 0
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "crossfn",
            "render",
            "example/xr.yaml",
            "example/composition.yaml",
            "example/functions.yaml",
        ],
        cwd=target,
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        # As after `pip install -e .`: the function's package is importable.
        env={**os.environ, "PYTHONPATH": str(target)},
    )
    assert result.returncode == 0, result.stderr
    kinds = {(d["kind"], d["metadata"]["name"]) for d in yaml.safe_load_all(result.stdout) if d}
    assert ("ConfigMap", resource.child_name("world", "greeting")) in kinds, result.stdout


def _wheel_files(path: pathlib.Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def test_init_wheel_writes_a_pure_reproducible_wheel(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["init", "wheel", str(tmp_path / "a")]) == 0
    assert capsys.readouterr().out == f"Wrote {tmp_path / 'a' / _WHEEL}\n"
    assert cli.main(["init", "wheel", str(tmp_path / "b")]) == 0
    first, second = (tmp_path / "a" / _WHEEL).read_bytes(), (tmp_path / "b" / _WHEEL).read_bytes()
    assert first == second, "the same crossfn gives the same wheel bytes"

    files = _wheel_files(tmp_path / "a" / _WHEEL)
    info = _WHEEL.split("-py3", maxsplit=1)[0] + ".dist-info"
    assert "Tag: py3-none-any" in files[f"{info}/WHEEL"].decode()
    assert "crossfn = crossfn.cli:entrypoint" in files[f"{info}/entry_points.txt"].decode()
    assert "crossfn = crossfn.sdk.pytest_plugin" in files[f"{info}/entry_points.txt"].decode()
    assert not [n for n in files if n.endswith((".so", ".pyd", ".pyc", ".c"))], "no compiled or C files"
    package = pathlib.Path(crossfn.__file__).parent
    for rel in ["sdk/_templates/fn.py.tmpl", "py.typed", "cli/init.py", "proto/v1/run_function_pb2.py"]:
        assert files[f"crossfn/{rel}"] == (package / rel).read_bytes(), rel
    record = list(csv.reader(io.StringIO(files[f"{info}/RECORD"].decode())))
    assert sorted(row[0] for row in record) == sorted(files), "RECORD lists every file"
    for name, digest, size in record:
        if name != f"{info}/RECORD":
            expected = base64.urlsafe_b64encode(hashlib.sha256(files[name]).digest()).rstrip(b"=").decode()
            assert (digest, size) == (f"sha256={expected}", str(len(files[name]))), name


def test_init_wheel_into_a_file_is_one_line(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "file").write_text("")
    assert cli.main(["init", "wheel", str(tmp_path / "file")]) == 1
    err = capsys.readouterr().err
    assert (
        err == f"crossfn: error: cannot write a crossfn wheel to {tmp_path / 'file'}: it is not a directory\n"
    )


@pytest.mark.slow
def test_project_installs_in_a_fresh_venv_from_its_wheel(tmp_path: pathlib.Path) -> None:
    """As on a fresh machine: crossfn comes only from the project's wheels/ (``--no-index``).

    The fresh venv has no crossfn; its other dependencies (what a fresh machine
    gets from its package index) are this environment's, less crossfn, seen
    through a ``.pth`` file, so that the test needs no network.
    """
    target = tmp_path / "function-fresh"
    assert cli.main(["init", "function", "function-fresh", "-C", str(target)]) == 0
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTEST_ADDOPTS", "VIRTUAL_ENV")}

    def run(*args: str | pathlib.Path) -> str:
        result = subprocess.run(
            [str(a) for a in args],
            cwd=target,
            env=env,
            capture_output=True,
            text=True,
            check=False,
            timeout=300,
        )
        assert result.returncode == 0, f"{args}:\n{result.stdout}\n{result.stderr}"
        return result.stdout

    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", venv)
    python = venv / "bin" / "python"
    site_packages = pathlib.Path(
        run(python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))").strip()
    )
    others = tmp_path / "others"
    others.mkdir()
    for entry in pathlib.Path(sysconfig.get_path("purelib")).iterdir():
        if not entry.name.lower().startswith(("crossfn", "__editable__", "function_fresh", "function-fresh")):
            (others / entry.name).symlink_to(entry)
    (site_packages / "others.pth").write_text(f"{others}\n")
    assert run(python, "-c", "import importlib.util; print(importlib.util.find_spec('crossfn'))") == "None\n"

    pip: list[str | pathlib.Path] = [
        sys.executable,
        "-m",
        "pip",
        "--python",
        python,
        "install",
        "-q",
        "--no-index",
        "--no-build-isolation",
    ]
    run(*pip, "--find-links", "wheels", "-e", ".[dev]")

    where = run(python, "-c", "import crossfn; print(crossfn.__file__)").strip()
    assert where.startswith(str(site_packages)), (
        f"crossfn comes from the wheel installed in the venv, not {where}"
    )
    assert "2 passed" in run(python, "-m", "pytest", "-q", "-p", "no:cacheprovider")
    rendered = run(
        venv / "bin" / "crossfn",
        "render",
        "example/xr.yaml",
        "example/composition.yaml",
        "example/functions.yaml",
    )
    assert resource.child_name("world", "greeting") in rendered
