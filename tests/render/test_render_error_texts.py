"""upstream core-3.3 and core-3.5's error texts and their
wrappers, word for word, where crossfn once differed.

Each case is checked against crossplane's ``cmd/crank/render`` (classic v2.2.4
and pre-removal share it): ``-a`` errors are wrapped ``cannot apply function
annotation overrides``, ``--xrd`` errors ``cannot derive composite CRD from XRD
%q`` and ``cannot default values for XR %q``, and a composed resource's metadata
``cannot render composed resource %q metadata``, whose cause for a resource
another object controls is ``cannot set composite resource %q as controller ref
of composed resource``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from crossfn import cli

_XR = "apiVersion: nop.example.org/v1alpha1\nkind: XNopResource\nmetadata:\n  name: test-render\n"
_COMP = """apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: xnop
spec:
  compositeTypeRef: {apiVersion: nop.example.org/v1alpha1, kind: XNopResource}
  mode: Pipeline
  pipeline:
  - step: test
    functionRef: {name: fn}
"""
_FNS = """apiVersion: pkg.crossplane.io/v1
kind: Function
metadata:
  name: fn
  annotations:
    render.crossplane.io/runtime: InProcess
    render.crossfn.io/runtime-inprocess-object: errfns:%s
spec:
  package: xpkg.crossplane.io/example/fn:v0.1.0
"""
_MODULE = """
from crossfn.sdk import resource


def ok(req, rsp):
    pass


def controlled(req, rsp):
    rsp.desired.resources["r"].resource.CopyFrom(resource.dict_to_struct({
        "apiVersion": "example.org/v1", "kind": "Thing",
        "metadata": {"name": "thing", "ownerReferences": [
            {"apiVersion": "other.org/v1", "kind": "Other", "name": "boss", "uid": "u-9", "controller": True}]},
    }))


def not_an_object(req, rsp):
    rsp.desired.resources["r"].resource.CopyFrom(resource.dict_to_struct({"metadata": "x"}))
"""
_XRD = """apiVersion: apiextensions.crossplane.io/v1
kind: CompositeResourceDefinition
metadata:
  name: xnopresources.nop.example.org
spec:
  group: nop.example.org
  names: {kind: XNopResource, plural: xnopresources}
  versions:
  - name: %s
    served: true
    referenceable: true
    schema:
      openAPIV3Schema: {type: object}
"""
_NO_GROUP = _XRD.replace("  group: nop.example.org\n", "") % "v1alpha1"


@pytest.mark.parametrize(
    ("function", "flags", "files", "want"),
    [
        pytest.param("ok", ["-a", "novalue"], {}, 'cannot apply function annotation overrides: '
                     'invalid function annotation format "novalue", expected key=value', id="AnnotationFormat"),
        pytest.param("ok", ["--xrd", "{d}/xrd.yaml"], {"xrd.yaml": _XRD % "v1"},
                     "cannot default values for XR \"test-render\": "
                     "the specified API version 'nop.example.org/v1alpha1' does not exist in the XRD", id="XRDVersion"),
        pytest.param("ok", ["--xrd", "{d}/xrd.yaml"], {"xrd.yaml": _NO_GROUP},
                     'cannot derive composite CRD from XRD "xnopresources.nop.example.org": ', id="XRDToCRD"),
        pytest.param("controlled", [], {},
                     'cannot render composite resource: cannot render composed resource "r" metadata: '
                     'cannot set composite resource "test-render" as controller ref of composed resource: '
                     "thing is already controlled by Other boss (UID u-9)", id="ControlledByAnother"),
        pytest.param("not_an_object", [], {},
                     'cannot render composite resource: cannot unmarshal desired composed resource "r": ',
                     id="UnmarshalComposed"),
    ],
)  # fmt: skip
def test_error_text(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    *,
    function: str,
    flags: list[str],
    files: dict[str, str],
    want: str,
) -> None:
    (tmp_path / "errfns.py").write_text(_MODULE)
    for name, text in {"xr.yaml": _XR, "comp.yaml": _COMP, "fns.yaml": _FNS % function, **files}.items():
        (tmp_path / name).write_text(text)
    argv = [str(tmp_path / f) for f in ("xr.yaml", "comp.yaml", "fns.yaml")]
    code = cli.main(["render", "--classic", *argv, *(f.format(d=tmp_path) for f in flags)])
    out, err = capsys.readouterr()
    assert (code, out) == (1, "")
    assert err.startswith("crossfn: error: " + want), err
    assert err.count("\n") == 1
