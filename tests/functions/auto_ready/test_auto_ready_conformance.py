"""function-auto-ready's TestRunFunction cases, compared as whole responses.

Upstream's desired resources are empty objects: the kind that picks the health
check comes from the observed resource, and nothing but ``ready`` may change.
"""

from __future__ import annotations

from typing import Any

import pytest
from google.protobuf import json_format

from crossfn.functions import auto_ready
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import function

XR = {"apiVersion": "test.crossplane.io/v1", "kind": "TestXR", "metadata": {"name": "my-test-xr"}}


def _case(name: str, observed: dict[str, Any]) -> tuple[fnv1.RunFunctionRequest, fnv1.RunFunctionResponse]:
    req = json_format.ParseDict(
        {
            "meta": {"tag": "hello"},
            "observed": {"composite": {"resource": XR}, "resources": {name: {"resource": observed}}},
            "desired": {"resources": {name: {"resource": {}}}},
        },
        fnv1.RunFunctionRequest(),
    )
    want = json_format.ParseDict(
        {
            "meta": {"tag": "hello", "ttl": "60s"},
            "desired": {"resources": {name: {"resource": {}, "ready": "READY_TRUE"}}},
        },
        fnv1.RunFunctionResponse(),
    )
    return req, want


CASES = [
    pytest.param(
        *_case(
            "ready-composed-resource",
            {
                "apiVersion": "test.crossplane.io/v1",
                "kind": "TestComposed",
                "metadata": {"name": "my-test-composed"},
                "spec": {},
                "status": {"conditions": [{"type": "Ready", "status": "True"}]},
            },
        ),
        "An existing composed resource with unspecified readiness and a Ready: True status condition "
        "should be detected as ready",
        id="AutoDetectReadiness",
    ),
    pytest.param(
        *_case(
            "my-deployment",
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": "my-deployment"},
                "spec": {"replicas": 3},
                "status": {
                    "updatedReplicas": 3,
                    "availableReplicas": 3,
                    "conditions": [{"type": "Available", "status": "True"}],
                },
            },
        ),
        "A Deployment with all replicas ready and Available condition should be detected as ready via health check",
        id="DeploymentHealthCheck",
    ),
    pytest.param(
        *_case(
            "my-service",
            {
                "apiVersion": "v1",
                "kind": "Service",
                "metadata": {"name": "my-service"},
                "spec": {"type": "ClusterIP"},
            },
        ),
        "A ClusterIP Service should be immediately ready via health check",
        id="ServiceHealthCheck",
    ),
    pytest.param(
        *_case(
            "managed-resource",
            {
                "apiVersion": "rds.aws.crossplane.io/v1alpha1",
                "kind": "DBInstance",
                "metadata": {"name": "my-db"},
                "spec": {},
                "status": {"conditions": [{"type": "Ready", "status": "True"}]},
            },
        ),
        "Resources without registered health checks should fall back to Ready condition check",
        id="FallbackToReadyCondition",
    ),
]


@pytest.mark.parametrize(("req", "want", "reason"), CASES)
async def test_run_function(
    req: fnv1.RunFunctionRequest, want: fnv1.RunFunctionResponse, reason: str
) -> None:
    got = await function.to_handler(auto_ready.compose)(req)
    assert got == want, f"{reason}\n{got}"
