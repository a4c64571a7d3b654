"""A Function whose package is a PyPI release ``crossfn function install`` installed: render runs the
install as a Process, says so, ``--no-exec`` refuses it, and without an install the Docker error
names the install command (``crossfn.functions.installs``; the real package: tests/peers/pythonic)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from crossfn import errors
from crossfn.functions import installs
from crossfn.render import _runtimes

PYTHONIC = "xpkg.crossplane.io/crossplane-contrib/function-pythonic:v0.3.0"


def _fn(annotations: dict[str, str] | None = None, package: str = PYTHONIC) -> dict[str, Any]:
    return {
        "metadata": {"name": "function-pythonic", "annotations": annotations or {}},
        "spec": {"package": package},
    }


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake install of function-pythonic v0.3.0 where render looks (``CROSSFN_FUNCTIONS_DIR``)."""
    where = tmp_path / "fns" / "function-pythonic" / "v0.3.0"
    (where / "bin").mkdir(parents=True)
    (where / "bin" / "function-pythonic").write_text("#!/bin/sh\n")
    record = {
        "record": 1,
        "distribution": "crossplane-function-pythonic",
        "version": "0.3.0",
        "python": "3.12.1",
    }
    (where / installs.RECORD).write_text(json.dumps(record))
    monkeypatch.setenv(installs.DIR_ENV, str(tmp_path / "fns"))
    return where


def test_an_install_runs_as_a_process(installed: Path) -> None:
    rt = _runtimes.plan([_fn()])["function-pythonic"]
    assert (rt.kind, rt.command) == ("Process", (str(installed / "bin" / "function-pythonic"), "grpc"))
    assert rt.installed == f"crossplane-function-pythonic 0.3.0 installed in {installed}"
    assert _runtimes.notes([_fn()]) == [
        "running function-pythonic v0.3.0 as the PyPI package crossplane-function-pythonic 0.3.0 installed in "
        f"{installed} (crossfn function install; Python 3.12.1), in a process of its own"
    ]


@pytest.mark.parametrize(
    ("annotations", "kind", "reason"),
    [
        pytest.param({"render.crossplane.io/runtime": "Docker"}, "Docker", "Docker asked for", id="Docker"),
        pytest.param({"render.crossplane.io/runtime": "Development"}, "Development", "a server of the user's",
                     id="Development"),
    ],
)  # fmt: skip
def test_an_annotation_wins_over_the_install(
    installed: Path, annotations: dict[str, str], kind: str, reason: str
) -> None:
    assert _runtimes.plan([_fn(annotations)])["function-pythonic"].kind == kind, reason
    assert _runtimes.notes([_fn(annotations)]) == [], "the user chose the runtime: nothing to say"


def test_no_exec_refuses_the_install(installed: Path) -> None:
    with pytest.raises(errors.InputError) as exc:
        _runtimes.refuse_exec(_runtimes.plan([_fn()]))
    assert str(exc.value) == (
        'Function "function-pythonic" would run code crossfn does not ship, which --no-exec refuses: runtime '
        f"Process of the PyPI package crossplane-function-pythonic 0.3.0 installed in {installed}"
    )


def test_without_an_install_the_docker_error_names_the_install_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(installs.DIR_ENV, str(tmp_path / "empty"))
    rt = _runtimes.plan([_fn()])["function-pythonic"]
    assert rt.kind == "Docker"
    assert rt.docker is not None
    assert _runtimes.without_docker(rt.docker).startswith(
        "to run it without Docker, install its PyPI package crossplane-function-pythonic==0.3.0 with "
        f"`crossfn function install {PYTHONIC}`, or set the render.crossplane.io/runtime annotation"
    )
    latest = _runtimes.plan([_fn(package="xpkg.crossplane.io/crossplane-contrib/function-pythonic:latest")])
    docker = latest["function-pythonic"].docker
    assert docker is not None
    assert _runtimes.without_docker(docker).startswith(
        "to run it without Docker, set the render.crossplane.io/runtime annotation"
    ), "latest names no PyPI release: nothing to install"


def test_cli_no_exec(installed: Path, tmp_path: Path) -> None:
    """The whole command: one error line, nothing on stdout, nothing started."""
    xr = tmp_path / "xr.yaml"
    xr.write_text("apiVersion: example.org/v1\nkind: XR\nmetadata:\n  name: x\n")
    comp = tmp_path / "composition.yaml"
    comp.write_text(
        "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: c\nspec:\n"
        "  compositeTypeRef:\n    apiVersion: example.org/v1\n    kind: XR\n  mode: Pipeline\n  pipeline:\n"
        "  - step: s\n    functionRef:\n      name: function-pythonic\n"
    )
    fns = tmp_path / "functions.yaml"
    fns.write_text(
        "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata:\n  name: function-pythonic\nspec:\n"
        f"  package: {PYTHONIC}\n"
    )
    out = subprocess.run(
        [sys.executable, "-m", "crossfn", "render", "--no-exec", str(xr), str(comp), str(fns)],
        capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip
    assert (out.returncode, out.stdout) == (1, "")
    assert out.stderr.splitlines()[-1] == (
        'crossfn: error: Function "function-pythonic" would run code crossfn does not ship, which --no-exec '
        f"refuses: runtime Process of the PyPI package crossplane-function-pythonic 0.3.0 installed in {installed}"
    )
