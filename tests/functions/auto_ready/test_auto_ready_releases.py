"""Each difference between function-auto-ready releases, one case each (docs/functions.md's table).

Read from the upstream tags: up to v0.5.2 fn.go reads only the Ready condition;
v0.6.0 adds the healthchecks package (the same checks through v0.6.7); v0.7.0
adds the input (ttl, CEL rules).
"""

from __future__ import annotations

from typing import Any

import pytest
from google.protobuf import json_format

from crossfn import functions
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import response

AR = "xpkg.crossplane.io/crossplane-contrib/function-auto-ready"

DEPLOYMENT: dict[str, Any] = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "d", "generation": 1},
    "spec": {"replicas": 1},
    "status": {
        "observedGeneration": 1,
        "replicas": 1,
        "updatedReplicas": 1,
        "availableReplicas": 1,
        "readyReplicas": 1,
        "conditions": [{"type": "Available", "status": "True"}],
    },
}
CONFIGMAP: dict[str, Any] = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}
BUCKET: dict[str, Any] = {
    "apiVersion": "s3.aws.upbound.io/v1beta1",
    "kind": "Bucket",
    "metadata": {"name": "b"},
    "status": {"conditions": [{"type": "Ready", "status": "True"}]},
}


def _run(
    tag: str, observed: dict[str, Any], input_: dict[str, Any] | None = None
) -> fnv1.RunFunctionResponse:
    decision = functions.resolve(f"{AR}:{tag}")
    assert decision is not None and decision.builtin is not None, tag
    body: dict[str, Any] = {
        "observed": {
            "composite": {"resource": {"apiVersion": "x/v1", "kind": "XR"}},
            "resources": {"r": {"resource": observed}},
        },
        "desired": {"resources": {"r": {"resource": {}}}},
    }
    if input_ is not None:
        body["input"] = input_
    req = json_format.ParseDict(body, fnv1.RunFunctionRequest())
    rsp = response.to(req)
    fn: Any = functions.load(decision.builtin)
    fn(req, rsp)
    return rsp


def ready(rsp: fnv1.RunFunctionResponse) -> str:
    return fnv1.Ready.Name(rsp.desired.resources["r"].ready)


CEL_FALSE = {
    "apiVersion": "autoready.fn.crossplane.io/v1beta1",
    "kind": "Input",
    "celHealthCheckCustomization": {"s3.aws.upbound.io_v1beta1_Bucket": "false"},
}

# (id, reason, (before, after) tags, observed, input, what to look at, want before, want after)
CASES: list[tuple[str, str, tuple[str, str], dict[str, Any], dict[str, Any] | None, Any, Any, Any]] = [
    (
        "KindHealthChecks",
        "v0.6.0 added per-kind checks: a ConfigMap, which has no Ready condition, is ready once it exists",
        ("v0.5.2", "v0.6.0"),
        CONFIGMAP,
        None,
        ready,
        "READY_UNSPECIFIED",
        "READY_TRUE",
    ),
    (
        "ChecksUnchangedInV06",
        "v0.6.7 checks kinds as v0.6.0 did (v0.6.2 only reworded a time comparison)",
        ("v0.6.0", "v0.6.7"),
        DEPLOYMENT,
        None,
        ready,
        "READY_TRUE",
        "READY_TRUE",
    ),
    (
        "CelRules",
        "v0.7.0 reads CEL rules from its input; v0.6.x ignored its input",
        ("v0.6.7", "v0.7.0"),
        BUCKET,
        CEL_FALSE,
        ready,
        "READY_TRUE",
        "READY_FALSE",
    ),
    (
        "InputTtl",
        "v0.7.0 takes the response TTL from its input",
        ("v0.6.7", "v0.7.0"),
        BUCKET,
        {"apiVersion": "autoready.fn.crossplane.io/v1beta1", "kind": "Input", "ttl": "10s"},
        lambda rsp: rsp.meta.ttl.seconds,
        60,
        10,
    ),
    (
        "BadInput",
        "v0.7.0 fails on an input it cannot read; v0.6.x never read one",
        ("v0.6.7", "v0.7.0"),
        BUCKET,
        {"apiVersion": "autoready.fn.crossplane.io/v1beta1", "kind": "Input", "ttl": "soon"},
        lambda rsp: [fnv1.Severity.Name(r.severity) for r in rsp.results],
        [],
        ["SEVERITY_FATAL"],
    ),
]


@pytest.mark.parametrize(
    ("tags", "given", "look", "wants"),
    [pytest.param(c[2], c[3:5], c[5], c[6:], id=c[0]) for c in CASES],
)
def test_release_difference(
    tags: tuple[str, str],
    given: tuple[dict[str, Any], dict[str, Any] | None],
    look: Any,
    wants: tuple[Any, Any],
) -> None:
    for tag, want in zip(tags, wants, strict=True):
        assert look(_run(tag, *given)) == want, tag


def test_pseudo_version_before_first_release() -> None:
    """The corpus's pin, a build of 2023-11-01 (commit 60aea09), has v0.2.0's code: the Ready condition only."""
    rsp = _run("v0.0.0-20231101225931-60aea09d94c8", CONFIGMAP)
    assert ready(rsp) == "READY_UNSPECIFIED"
    assert ready(_run("v0.0.0-20231101225931-60aea09d94c8", BUCKET)) == "READY_TRUE"
