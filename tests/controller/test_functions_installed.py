"""The controller's route for a Function whose package a ``crossfn function install`` installed
(``_functions.route``); the real package under a real API server: test_peer_pythonic.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from crossfn.controller.packages import _functions
from crossfn.functions import installs

PYTHONIC = "xpkg.crossplane.io/crossplane-contrib/function-pythonic:v0.3.0"


def _fn(package: str, endpoint: str = "") -> dict[str, Any]:
    meta: dict[str, Any] = {"name": "function-pythonic"}
    if endpoint:
        meta["annotations"] = {_functions.ENDPOINT_ANNOTATION: endpoint}
    return {"metadata": meta, "spec": {"package": package}}


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    where = tmp_path / "function-pythonic" / "v0.3.0"
    (where / "bin").mkdir(parents=True)
    (where / "bin" / "function-pythonic").write_text("#!/bin/sh\n")
    record = {
        "record": 1,
        "distribution": "crossplane-function-pythonic",
        "version": "0.3.0",
        "python": "3.12.1",
    }
    (where / installs.RECORD).write_text(json.dumps(record))
    monkeypatch.setenv(installs.DIR_ENV, str(tmp_path))
    return where


@pytest.mark.parametrize(
    ("fn", "want", "reason"),
    [
        pytest.param(_fn(PYTHONIC), ("installed", "{where}"), "the installed release", id="Installed"),
        pytest.param(
            _fn(PYTHONIC, "127.0.0.1:9443"), ("endpoint", "127.0.0.1:9443"), "the annotation wins", id="Endpoint"
        ),
        pytest.param(
            _fn("xpkg.crossplane.io/crossplane-contrib/function-pythonic:v0.4.0"), ("package", ""),
            "another release is not installed: its FunctionRevision, as Crossplane", id="OtherRelease",
        ),
    ],
)  # fmt: skip
def test_route(installed: Path, fn: dict[str, Any], want: tuple[str, str], reason: str) -> None:
    r = _functions.route(fn)
    assert (r.kind, r.target) == (want[0], want[1].format(where=installed)), reason
