"""function-patch-and-transform's own fn_test.go cases at older tags, where they expect what v0.10.8 does not.

Facts carried over from the tags' tests (requests and expected responses); each
case names the tag and the upstream case it re-expresses.
"""

from __future__ import annotations

from typing import Any

import pytest
from google.protobuf import json_format
from ptcases import _prune, inp, want

from crossfn.functions.patch_and_transform import PatchAndTransform, Release
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import response

TTL = {"ttl": "60s"}


def _run(version: tuple[int, int, int], req: dict[str, Any]) -> dict[str, Any]:
    msg = json_format.ParseDict(req, fnv1.RunFunctionRequest())
    rsp = response.to(msg)
    PatchAndTransform(Release(version))(msg, rsp)
    pruned: dict[str, Any] = _prune(json_format.MessageToDict(rsp))
    return pruned


XR = {"apiVersion": "example.org/v1", "kind": "XR", "spec": {"widgets": "10"}}
FAILED_PATCH_NOT_SAVED = {
    "input": inp(
        resources=[
            {
                "name": "cool-resource",
                "patches": [
                    {
                        "type": "FromCompositeFieldPath",
                        "fromFieldPath": "spec.widgets",
                        "toFieldPath": "spec.watchers",
                    },
                    {
                        "type": "FromCompositeFieldPath",
                        "fromFieldPath": "spec.doesNotExist",
                        "toFieldPath": "spec.explode",
                        "policy": {"fromFieldPath": "Required"},
                    },
                ],
            }
        ]
    ),
    "observed": {"composite": {"resource": XR}},
    "desired": {
        "composite": {"resource": XR},
        "resources": {
            "cool-resource": {
                "resource": {"apiVersion": "example.org/v1", "kind": "CD", "spec": {"watchers": 42}}
            }
        },
    },
}


@pytest.mark.parametrize(
    ("version", "message"),
    [
        pytest.param((0, 1, 4), "resources is required", id="v0.1.4"),
        pytest.param((0, 2, 1), "resources is required", id="v0.2.1"),
        pytest.param((0, 5, 0), "resources is required", id="v0.5.0"),
        pytest.param((0, 7, 0), "resources or environment patches are required", id="v0.7.0"),
    ],
)
def test_no_input(version: tuple[int, int, int], message: str) -> None:
    """fn_test.go NoInput at each tag: a Fatal, nothing else (no target before v0.8.0's SDK)."""
    assert _run(version, {}) == want(
        {
            "meta": TTL,
            "results": [
                {
                    "severity": "SEVERITY_FATAL",
                    "message": f"invalid Function input: resources: Required value: {message}",
                }
            ],
        }
    )


def test_failed_patch_not_saved_v0_2_1() -> None:
    """v0.2.1 fn_test.go FailedPatchNotSaved: a Required source that is missing is a Warning for the FromComposite
    group, the earlier desired resource is left as it was (the patch that worked discarded), and the empty
    environment is written back."""
    assert _run((0, 2, 1), FAILED_PATCH_NOT_SAVED) == want(
        {
            "meta": TTL,
            "desired": FAILED_PATCH_NOT_SAVED["desired"],
            "results": [
                {
                    "severity": "SEVERITY_WARNING",
                    "message": 'cannot render FromComposite patches for composed resource "cool-resource": cannot apply '
                    'the "FromCompositeFieldPath" patch at index 1: spec.doesNotExist: no such field',
                }
            ],
            "context": {"apiextensions.crossplane.io/environment": {}},
        }
    )
