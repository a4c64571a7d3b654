"""``-c``/``--include-context``: the final context, and what Crossplane prints when there is none.

Classic ``crossplane render`` always writes a ``---`` and then encodes its
Context object; when the last step returned no context that object is nil,
which the Kubernetes YAML serializer writes as ``null``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crossfn import cli

_FN = """
def keep(req, rsp):
    rsp.context.update({"k": "v"})


def drop(req, rsp):
    rsp.ClearField("context")
"""
_XR = "apiVersion: example.org/v1\nkind: XR\nmetadata:\n  name: x\n"
_COMP = """apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: c
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: XR}
  mode: Pipeline
  pipeline:
  - step: s
    functionRef: {name: fn}
"""
_FUNCTIONS = """apiVersion: pkg.crossplane.io/v1
kind: Function
metadata:
  name: fn
  annotations:
    render.crossplane.io/runtime: InProcess
    render.crossfn.io/runtime-inprocess-object: ctxfn:%s
spec:
  package: example.org/fn:v1
"""
_XR_OUT = "---\napiVersion: example.org/v1\nkind: XR\nmetadata:\n  name: x\nstatus:\n  conditions:\n"


@pytest.mark.parametrize(
    ("function", "flags", "tail", "reason"),
    [
        pytest.param("keep", ["-c"], "---\napiVersion: render.crossplane.io/v1beta1\nfields:\n  k: v\nkind: Context\n",
                     "the final context as a Context document", id="Context"),
        pytest.param("drop", ["-c"], "---\nnull\n", "no final context: Crossplane's nil Context prints as null", id="NoContext"),
        pytest.param("drop", [], "", "without -c there is no context document at all", id="NotAsked"),
    ],
)  # fmt: skip
def test_include_context(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    *,
    function: str,
    flags: list[str],
    tail: str,
    reason: str,
) -> None:
    (tmp_path / "ctxfn.py").write_text(_FN)
    (tmp_path / "xr.yaml").write_text(_XR)
    (tmp_path / "comp.yaml").write_text(_COMP)
    (tmp_path / "functions.yaml").write_text(_FUNCTIONS % function)
    argv = [
        "render",
        "--classic",
        *(str(tmp_path / f) for f in ("xr.yaml", "comp.yaml", "functions.yaml")),
        *flags,
    ]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith(_XR_OUT), out
    assert out.endswith("type: Ready\n" + tail), reason
    assert cli.main([*argv, "--output", "json"]) == 0
    docs = json.loads(capsys.readouterr().out)
    if function == "drop" and flags:
        assert docs[-1] is None, "--output json: null, as in YAML"
