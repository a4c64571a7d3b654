"""function-pythonic under crossfn's engine directly: its install serving gRPC, a pipeline around it.

The server is :class:`crossfn.functions.installs.Server` (what the controller
starts for an installed package), reached through :class:`crossfn.engine.GrpcRunner`.
The Composition is the Crossplane docs' connection-details guide: with the User
and both AccessKeys observed, their connection details, the XR's connection
details (a Secret pythonic composes) and readiness come out as pythonic composes them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from crossfn import engine
from crossfn.functions import installs
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import response

from .conftest import corpus_root

pytestmark = pytest.mark.peer

GUIDE = (
    corpus_root() / "crossplane-docs" / "content" / "master" / "manifests" / "guides"
    / "connection-details-composition"
)  # fmt: skip


def _observed(kind: str, name: str, status: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "iam.aws.m.upbound.io/v1beta1",
        "kind": kind,
        "metadata": {
            "name": f"my-keys-{name}",
            "namespace": "default",
            "annotations": {"crossplane.io/composition-resource-name": name},
            "labels": {"crossplane.io/composite": "my-keys"},
        },
        "status": {"conditions": [{"type": "Ready", "status": "True", "reason": "Available"}], **status},
    }


def after(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    """A crossfn step after pythonic's: it sees what pythonic desired."""
    response.normal(rsp, "after pythonic: " + ",".join(sorted(req.desired.resources)))


async def test_connection_details_guide_under_the_engine(pythonic: dict[str, str]) -> None:
    found = installs.find(pythonic["package"], Path(pythonic["functions_dir"]))
    assert found is not None, "the peer environment's install is found as render finds it"
    composition = yaml.safe_load((GUIDE / "composition-pythonic.yaml").read_text())
    xr = {**yaml.safe_load((GUIDE / "my-keys.yaml").read_text()), "apiVersion": "example.org/v1alpha1"}
    xr["metadata"] = {
        **xr["metadata"], "uid": "5c0b4a6e-0000-4000-8000-000000000001",
        "labels": {"crossplane.io/composite": "my-keys"},
    }  # fmt: skip
    observed = [
        engine.ObservedResource(_observed("User", "user", {"atProvider": {"id": "AIDAUSER"}})),
        *(
            engine.ObservedResource(
                _observed("AccessKey", f"access-key-{ix}", {}),
                {"username": f"AKIA{ix}".encode(), "password": f"secret-{ix}".encode()},
            )
            for ix in range(2)
        ),
    ]
    server = installs.Server(found)
    grpc_runner = engine.GrpcRunner(lambda _: address, timeout=30)
    try:
        address = await server.target()
        runner = engine.build_runner(
            engine.RoutingRunner(
                {"function-pythonic": grpc_runner, "after": engine.InProcessRunner({"after": after})}
            )
        )
        step = composition["spec"]["pipeline"][0]
        steps = [
            engine.PipelineStep(step["step"], "function-pythonic", step["input"]),
            engine.PipelineStep("after", "after"),
        ]
        result = await engine.compose(xr, steps, runner, observed=observed)
    finally:
        await grpc_runner.aclose()
        await server.stop()
    result.raise_for_fatal()
    by_name = {c.name: c.resource for c in result.composed}
    assert sorted(by_name) == ["access-key-0", "access-key-1", "connection-secret", "user"]
    keys = {name: r["spec"] for name, r in by_name.items() if r["kind"] == "AccessKey"}
    assert keys["access-key-1"] == {
        "forProvider": {"user": "AIDAUSER"},
        "writeConnectionSecretToRef": {"name": "my-keys-accesskey-1"},
    }
    secret = by_name["connection-secret"]
    assert (secret["kind"], secret["metadata"]["name"]) == ("Secret", "my-keys-connection-details"), (
        "a v2 XR's connection details are a Secret pythonic composes, named by writeConnectionSecretToRef"
    )
    assert secret["data"] == {
        "password-0": "c2VjcmV0LTA=", "password-1": "c2VjcmV0LTE=", "user-0": "QUtJQTA=", "user-1": "QUtJQTE=",
    }  # fmt: skip
    assert result.ready_condition is not None
    assert (result.ready_condition.status, result.ready_condition.message) == (
        "False", "Unready resources: connection-secret",
    ), "pythonic's auto-ready saw the observed User and keys Ready; the Secret is not observed yet"  # fmt: skip
    assert [e.message for e in result.events if "after pythonic" in e.message] == [
        "after pythonic: access-key-0,access-key-1,connection-secret,user"
    ]
