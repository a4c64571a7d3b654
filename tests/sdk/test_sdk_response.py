"""Tests for crossfn.sdk.response: building what a function sends back."""

from __future__ import annotations

import datetime

import pytest
from google.protobuf import json_format

from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource, response


def _d(msg: fnv1.RunFunctionResponse) -> dict[str, object]:
    return json_format.MessageToDict(msg)


def test_to_passes_desired_and_context_through() -> None:
    req = fnv1.RunFunctionRequest(meta=fnv1.RequestMeta(tag="abc"), context=resource.dict_to_struct({"k": 1}))
    req.desired.resources["a"].resource.CopyFrom(resource.dict_to_struct({"kind": "A"}))
    rsp = response.to(req, ttl=datetime.timedelta(seconds=30))
    assert _d(rsp) == {
        "meta": {"tag": "abc", "ttl": "30s"},
        "desired": {"resources": {"a": {"resource": {"kind": "A"}}}},
        "context": {"k": 1.0},
    }


def test_to_sets_desired_and_context_even_when_absent() -> None:
    """As the official SDK: a response always has desired state and context, empty when the request had none."""
    rsp = response.to(fnv1.RunFunctionRequest())
    assert rsp.HasField("desired") and rsp.HasField("context")
    assert _d(rsp) == {"meta": {"ttl": "60s"}, "desired": {}, "context": {}}


def test_to_can_keep_an_absent_context_absent() -> None:
    """As the Go SDK, and as a compose function's response starts."""
    rsp = response.to(fnv1.RunFunctionRequest(), empty_context=False)
    assert not rsp.HasField("context")
    present = response.to(
        fnv1.RunFunctionRequest(context=resource.dict_to_struct({"k": "v"})), empty_context=False
    )
    assert _d(present)["context"] == {"k": "v"}


@pytest.mark.parametrize(
    ("reason", "add", "want"),
    [
        pytest.param(
            "Normal, plain.",
            lambda r: response.normal(r, "hi"),
            {"severity": "SEVERITY_NORMAL", "message": "hi"},
            id="Normal",
        ),
        pytest.param(
            "Warning with a reason.",
            lambda r: response.warning(r, "hm", reason="Odd"),
            {"severity": "SEVERITY_WARNING", "message": "hm", "reason": "Odd"},
            id="WarningReason",
        ),
        pytest.param(
            "Fatal targeting the claim too.",
            lambda r: response.fatal(r, "no", target=fnv1.TARGET_COMPOSITE_AND_CLAIM),
            {"severity": "SEVERITY_FATAL", "message": "no", "target": "TARGET_COMPOSITE_AND_CLAIM"},
            id="FatalTarget",
        ),
    ],
)
def test_results(reason: str, add: object, want: dict[str, str]) -> None:
    rsp = fnv1.RunFunctionResponse()
    add(rsp)  # type: ignore[operator] # a lambda from the table
    assert _d(rsp)["results"] == [want], reason


def test_set_conditions_with_target() -> None:
    rsp = fnv1.RunFunctionResponse()
    response.set_conditions(
        rsp,
        resource.Condition("DatabaseReady", "True", "Available", "up"),
        resource.Condition("Odd", "Maybe"),
        target=fnv1.TARGET_COMPOSITE_AND_CLAIM,
    )
    assert _d(rsp)["conditions"] == [
        {
            "type": "DatabaseReady",
            "status": "STATUS_CONDITION_TRUE",
            "reason": "Available",
            "message": "up",
            "target": "TARGET_COMPOSITE_AND_CLAIM",
        },
        {
            "type": "Odd",
            "status": "STATUS_CONDITION_UNKNOWN",
            "target": "TARGET_COMPOSITE_AND_CLAIM",
        },
    ]


def test_requirements() -> None:
    rsp = fnv1.RunFunctionResponse()
    response.require_resources(rsp, "byname", "v1", "ConfigMap", match_name="cm", namespace="ns")
    response.require_resources(rsp, "bylabel", "v1", "Secret", match_labels={"a": "b"})
    response.require_resources(rsp, "all", "v1", "Node")
    response.require_schema(rsp, "xr", "example.org/v1", "XR")
    assert _d(rsp)["requirements"] == {
        "resources": {
            "byname": {"apiVersion": "v1", "kind": "ConfigMap", "matchName": "cm", "namespace": "ns"},
            "bylabel": {"apiVersion": "v1", "kind": "Secret", "matchLabels": {"labels": {"a": "b"}}},
            "all": {"apiVersion": "v1", "kind": "Node"},
        },
        "schemas": {"xr": {"apiVersion": "example.org/v1", "kind": "XR"}},
    }
    with pytest.raises(ValueError, match="mutually exclusive"):
        response.require_resources(rsp, "x", "v1", "A", match_name="a", match_labels={})


def test_set_output() -> None:
    rsp = fnv1.RunFunctionResponse()
    response.set_output(rsp, {"n": 1})
    assert resource.struct_to_dict(rsp.output) == {"n": 1}
    response.set_output(rsp, resource.dict_to_struct({"m": 2}))
    assert resource.struct_to_dict(rsp.output) == {"m": 2}
    with pytest.raises(TypeError, match="cannot set output from list"):
        response.set_output(rsp, [])  # type: ignore[arg-type] # the wrong type is the point


def test_set_context_key() -> None:
    rsp = fnv1.RunFunctionResponse()
    response.set_context_key(rsp, "k", {"a": [1]})
    assert resource.struct_to_dict(rsp.context) == {"k": {"a": [1]}}


def test_desired_state_setters() -> None:
    rsp = fnv1.RunFunctionResponse()
    rsp.desired.resources["old"].resource.CopyFrom(resource.dict_to_struct({"kind": "Old"}))
    response.set_desired_composite_resource(rsp, {"status": {"a": 1}}, ready=False)
    response.set_desired_composite_status(rsp, {"b": 2})
    response.set_desired_composite_connection_details(rsp, {"user": "u", "key": b"\x00"})
    response.set_desired_composed_resources(rsp, {"a": {"kind": "A"}, "b": {"kind": "B"}}, ready=True)
    response.set_desired_composed_resource(rsp, "c", {"kind": "C"})
    response.set_ready(rsp, "c", False)
    assert _d(rsp)["desired"] == {
        "composite": {
            "resource": {"status": {"b": 2.0}},
            "ready": "READY_FALSE",
            "connectionDetails": {"user": "dQ==", "key": "AA=="},
        },
        "resources": {
            "old": {"resource": {"kind": "Old"}},
            "a": {"resource": {"kind": "A"}, "ready": "READY_TRUE"},
            "b": {"resource": {"kind": "B"}, "ready": "READY_TRUE"},
            "c": {"resource": {"kind": "C"}, "ready": "READY_FALSE"},
        },
    }


def test_set_ready_unknown_resource() -> None:
    rsp = fnv1.RunFunctionResponse()
    with pytest.raises(KeyError, match="nope"):
        response.set_ready(rsp, "nope", True)
    assert "nope" not in rsp.desired.resources
