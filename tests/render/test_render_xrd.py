"""``--xrd``: the XRD's schema defaults for the XR's version are applied before rendering (TestDefaultValues), and ``--timeout``."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from crossfn import errors, render

_HERE = Path(__file__).parent

_XRD = {
    "apiVersion": "apiextensions.crossplane.io/v1",
    "kind": "CompositeResourceDefinition",
    "metadata": {"name": "xnopresources.nop.example.org"},
    "spec": {
        "group": "nop.example.org",
        "names": {"kind": "XNopResource", "plural": "xnopresources"},
        "versions": [
            {
                "name": version,
                "served": True,
                "referenceable": version == "v1",
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "properties": {
                            "spec": {
                                "type": "object",
                                "properties": {
                                    "coolField": {"type": "string", "default": f"default-{version}"},
                                    "replicas": {"type": "integer", "default": 3},
                                    "tags": {"type": "array", "items": {"type": "string", "default": "t"}},
                                    "labels": {
                                        "type": "object",
                                        "additionalProperties": {"type": "string", "default": "l"},
                                    },
                                    "nothing": {"type": "string", "default": None},
                                },
                            }
                        },
                    }
                },
            }
            for version in ("v1", "v1alpha1")
        ],
    },
}


def _request(
    tmp: Path, spec: dict[str, Any], api_version: str = "nop.example.org/v1", fn: str = "echo_xr"
) -> render.Request:
    shutil.copy(_HERE / "testdata" / "crossfn_render_testfns.py", tmp / "crossfn_render_testfns.py")
    xr = {"apiVersion": api_version, "kind": "XNopResource", "metadata": {"name": "x"}, "spec": spec}
    comp = {
        "apiVersion": "apiextensions.crossplane.io/v1", "kind": "Composition", "metadata": {"name": "c"},
        "spec": {"compositeTypeRef": {"apiVersion": api_version, "kind": "XNopResource"}, "mode": "Pipeline",
                 "pipeline": [{"step": "s", "functionRef": {"name": "f"}}]},
    }  # fmt: skip
    fns = {
        "apiVersion": "pkg.crossplane.io/v1", "kind": "Function",
        "metadata": {"name": "f", "annotations": {"render.crossplane.io/runtime": "InProcess",
                     "render.crossfn.io/runtime-inprocess-object": f"crossfn_render_testfns:{fn}"}},
        "spec": {"package": "example/f:v1"},
    }  # fmt: skip
    for name, doc in (("xr.yaml", xr), ("comp.yaml", comp), ("fns.yaml", fns), ("xrd.yaml", _XRD)):
        (tmp / name).write_text(yaml.safe_dump(doc))
    return render.Request(
        composite_resource=tmp / "xr.yaml",
        composition=tmp / "comp.yaml",
        functions=tmp / "fns.yaml",
        xrd=tmp / "xrd.yaml",
    )


@pytest.mark.parametrize(
    ("spec", "api_version", "want", "reason"),
    [
        pytest.param({}, "nop.example.org/v1", {"coolField": "default-v1", "replicas": 3}, "absent fields get defaults", id="SetDefaultValues"),
        pytest.param(
            {"coolField": "mine"}, "nop.example.org/v1", {"coolField": "mine", "replicas": 3},
            "existing values are kept", id="DontOverwriteExistingValues",
        ),
        pytest.param(
            {}, "nop.example.org/v1alpha1", {"coolField": "default-v1alpha1", "replicas": 3},
            "only the XR's version's defaults apply", id="MultipleVersions",
        ),
        pytest.param(
            {"tags": [None, "x"]}, "nop.example.org/v1", {"coolField": "default-v1", "replicas": 3, "tags": ["t", "x"]},
            "a null array item gets the items' default, as the API server defaults it", id="NullItem",
        ),
        pytest.param(
            {"labels": {"a": None, "b": "v"}}, "nop.example.org/v1",
            {"coolField": "default-v1", "replicas": 3, "labels": {"a": "l", "b": "v"}},
            "a null additionalProperties value gets its default", id="NullAdditionalProperty",
        ),
        pytest.param(
            {"nothing": None}, "nop.example.org/v1", {"coolField": "default-v1", "replicas": 3, "nothing": None},
            "default: null is no default; the null stays (render defaults, it does not prune)", id="DefaultNull",
        ),
    ],
)  # fmt: skip
def test_xrd_defaults(
    tmp_path: Path, spec: dict[str, Any], api_version: str, want: dict[str, Any], reason: str
) -> None:
    docs = render.render(_request(tmp_path, spec, api_version), output=render.CLASSIC)
    assert docs[0]["status"]["seen"] == want, reason


def test_xrd_incorrect_api_version(tmp_path: Path) -> None:
    with pytest.raises(errors.InputError) as info:
        render.load(_request(tmp_path, {}, "nop.example.org/v2"))
    assert str(info.value).endswith(
        ": the specified API version 'nop.example.org/v2' does not exist in the XRD"
    )
    assert str(info.value).startswith("cannot default values for XR ")


def test_timeout(tmp_path: Path) -> None:
    req = _request(tmp_path, {}, fn="hang")
    req = render.Request(**{**req.__dict__, "timeout": 0.2, "xrd": None})
    with pytest.raises(errors.CrossfnError) as info:
        render.render(req, output=render.CLASSIC)
    assert str(info.value) == "cannot render composite resource: context deadline exceeded"
