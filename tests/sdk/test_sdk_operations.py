"""What an operation function needs from the SDK, against the official SDK's helpers for the same.

An operation function reads required resources and the watched resource, returns resources to
apply and sets an ``output``. Each table runs crossfn's helper and the official SDK's
(``crossplane.function``, in this process: the two share protobuf classes) on the same request
or response and compares the results.
"""

from __future__ import annotations

from typing import Any, cast

import pytest
from crossplane.function import request as official_request
from crossplane.function import resource as official_resource
from crossplane.function import response as official_response
from crossplane.function.proto.v1 import run_function_pb2 as sdkv1
from google.protobuf import struct_pb2

from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import request, resource, response, testing

pytestmark = pytest.mark.peer

CM = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "cm", "namespace": "default"},
    "data": {"n": 3},
}
SECRET = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}


def _req(req: fnv1.RunFunctionRequest) -> sdkv1.RunFunctionRequest:
    """``req`` for the official helpers' annotations: the classes are one at runtime (checked below)."""
    return cast(sdkv1.RunFunctionRequest, req)


def _rsp(rsp: fnv1.RunFunctionResponse) -> sdkv1.RunFunctionResponse:
    return cast(sdkv1.RunFunctionResponse, rsp)


def test_messages_are_shared_with_the_official_sdk() -> None:
    shared: object = sdkv1.RunFunctionRequest
    assert fnv1.RunFunctionRequest is shared, "one class for both SDKs (crossfn.proto._registry)"


def _resolved_empty(name: str) -> fnv1.RunFunctionRequest:
    req = testing.build_operation_request()
    req.required_resources[name].SetInParent()
    return req


READS = [
    pytest.param(testing.build_operation_request(), "cms", id="NotResolved"),
    pytest.param(_resolved_empty("cms"), "cms", id="ResolvedNothingFound"),
    pytest.param(testing.build_operation_request(required_resources={"cms": [CM]}), "cms", id="One"),
    pytest.param(
        testing.build_operation_request(required_resources={"cms": [CM, SECRET]}), "cms", id="TwoInOrder"
    ),
    pytest.param(
        testing.build_operation_request(required_resources={"other": [CM]}), "cms", id="AnotherName"
    ),
    pytest.param(
        testing.build_operation_request(watched_resource=CM), request.WATCHED_RESOURCE, id="Watched"
    ),
    pytest.param(
        _resolved_empty(request.WATCHED_RESOURCE), request.WATCHED_RESOURCE, id="WatchedResolvedEmpty"
    ),
]


@pytest.mark.parametrize(("req", "name"), READS)
def test_required_resources_read_as_the_official_sdk_reads_them(
    req: fnv1.RunFunctionRequest, name: str
) -> None:
    """get_required_resources and get_required_resource agree with the official SDK (3 == 3.0 included)."""
    assert request.get_required_resources(req, name) == official_request.get_required_resources(
        _req(req), name
    )
    assert request.get_required_resource(req, name) == official_request.get_required_resource(_req(req), name)


@pytest.mark.parametrize(("req", "name"), READS)
def test_watched_resource_reads_as_the_official_sdk_reads_it(req: fnv1.RunFunctionRequest, name: str) -> None:
    """get_watched_resource reads the ops.crossplane.io/watched-resource requirement, as the official SDK does."""
    assert request.get_watched_resource(req) == official_request.get_watched_resource(_req(req))


def test_watched_resource_name_is_the_official_one() -> None:
    req = testing.build_operation_request(watched_resource=CM)
    assert list(req.required_resources) == ["ops.crossplane.io/watched-resource"], (
        "the requirement name Crossplane uses"
    )
    assert request.get_watched_resource(req) == CM, "whole numbers come back as int"


def test_operation_request_has_no_observed_state() -> None:
    """Crossplane sends an operation function no observed state; desired and context are present, empty."""
    req = testing.build_operation_request(input={"apiVersion": "x/v1", "kind": "In"})
    assert not req.HasField("observed"), "no composite, no observed state"
    assert req.HasField("desired") and req.HasField("context"), (
        "the first step gets empty desired state and context"
    )
    assert resource.struct_to_dict(req.input) == {"apiVersion": "x/v1", "kind": "In"}


OUTPUTS: list[Any] = [
    pytest.param({"count": 3, "names": ["a", "b"], "nested": {"ok": True, "none": None}}, id="Dict"),
    pytest.param({}, id="EmptyDict"),
    pytest.param(resource.dict_to_struct({"from": "struct"}), id="Struct"),
]


@pytest.mark.parametrize("output", OUTPUTS)
def test_set_output_writes_what_the_official_sdk_writes(output: Any) -> None:
    ours, theirs = fnv1.RunFunctionResponse(), fnv1.RunFunctionResponse()
    response.set_output(ours, output)
    official_response.set_output(_rsp(theirs), output)
    assert ours.SerializeToString(deterministic=True) == theirs.SerializeToString(deterministic=True)
    assert ours.HasField("output"), "an empty output is still an output (Crossplane records it)"


def test_set_output_replaces_an_earlier_output() -> None:
    rsp = fnv1.RunFunctionResponse()
    response.set_output(rsp, {"a": 1})
    response.set_output(rsp, {"b": 2})
    assert resource.struct_to_dict(rsp.output) == {"b": 2}, (
        "the later output wins, as official set_output's CopyFrom"
    )


@pytest.mark.parametrize("bad", [["a"], "text", 3], ids=["List", "String", "Number"])
def test_set_output_refuses_what_the_official_sdk_refuses(bad: Any) -> None:
    with pytest.raises(TypeError):
        official_response.set_output(_rsp(fnv1.RunFunctionResponse()), bad)
    with pytest.raises(TypeError):
        response.set_output(fnv1.RunFunctionResponse(), bad)


APPLIED = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "report", "namespace": "ops"},
    "data": {"checked": "3"},
}


def test_resources_to_apply_are_set_as_the_official_sdk_sets_them() -> None:
    """Returning a resource to apply: response.set_desired_composed_resource and resource.update agree with the
    official resource.update on a response started from the request."""
    req = testing.build_operation_request(desired_resources={"earlier": SECRET})
    official = official_response.to(_req(req))
    official_resource.update(official.desired.resources["report"], APPLIED)
    ours = response.to(req)
    response.set_desired_composed_resource(ours, "report", APPLIED)
    assert ours.SerializeToString(deterministic=True) == official.SerializeToString(deterministic=True)
    updated = response.to(req)
    resource.update(updated.desired.resources["report"], APPLIED)
    assert updated.SerializeToString(deterministic=True) == official.SerializeToString(deterministic=True)
    assert set(ours.desired.resources) == {"earlier", "report"}, "an earlier step's resources pass through"


def test_a_whole_operation_function_answers_as_its_official_twin() -> None:
    """The same operation function, written with each SDK's helpers, gives the same response."""

    def ours(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        watched = request.get_watched_resource(req)
        secrets = request.get_required_resources(req, "secrets")
        response.set_output(
            rsp, {"watched": (watched or {}).get("metadata", {}).get("name"), "secrets": len(secrets)}
        )
        response.set_desired_composed_resource(rsp, "report", APPLIED)
        response.normal(rsp, "checked")

    def theirs(req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
        rsp = official_response.to(_req(req))
        watched = official_request.get_watched_resource(_req(req))
        secrets = official_request.get_required_resources(_req(req), "secrets")
        official_response.set_output(
            rsp, {"watched": (watched or {}).get("metadata", {}).get("name"), "secrets": len(secrets)}
        )
        official_resource.update(rsp.desired.resources["report"], APPLIED)
        official_response.normal(rsp, "checked")
        return cast(fnv1.RunFunctionResponse, rsp)

    req = testing.build_operation_request(
        watched_resource=CM, required_resources={"secrets": [SECRET, SECRET]}
    )
    got = testing.run(ours, req)
    testing.assert_response(got, theirs(req))
    assert isinstance(got.output, struct_pb2.Struct) and resource.struct_to_dict(got.output) == {
        "watched": "cm",
        "secrets": 2,
    }
