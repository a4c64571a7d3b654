"""In-process test functions for the render tests: each returns what an upstream TestRender case mocks.

Render loads them through the InProcess runtime
(``render.crossfn.io/runtime-inprocess-object: crossfn_render_testfns:<name>``).
"""

from __future__ import annotations

from typing import Any

from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource


def _resource(obj: dict[str, Any], ready: fnv1.Ready.ValueType = fnv1.READY_UNSPECIFIED) -> fnv1.Resource:
    return fnv1.Resource(resource=resource.dict_to_struct(obj), ready=ready)


def _success(
    req: fnv1.RunFunctionRequest,
    ready: fnv1.Ready.ValueType,
    composite_ready: fnv1.Ready.ValueType = fnv1.READY_UNSPECIFIED,
) -> fnv1.RunFunctionResponse:
    rsp = fnv1.RunFunctionResponse(
        desired=fnv1.State(
            composite=_resource(
                {
                    "apiVersion": "nop.example.org/v1alpha1",
                    "kind": "XNopResource",
                    "status": {
                        "widgets": 9001,
                        "conditions": [
                            {"lastTransitionTime": "2024-01-01T00:00:00Z", "type": "Ready", "status": "False",
                             "reason": "Creating", "message": "Unready resources: a-cool-resource, b-cool-resource"},
                        ],
                    },
                },
                composite_ready,
            ),
            resources={
                "b-cool-resource": _resource(
                    {"apiVersion": "atest.crossplane.io/v1", "kind": "AComposed", "spec": {"widgets": 9003}}, ready
                ),
                "a-cool-resource": _resource(
                    {"apiVersion": "btest.crossplane.io/v1", "kind": "BComposed", "spec": {"widgets": 9002}}, ready
                ),
            },
        ),
        conditions=[
            fnv1.Condition(type="ProvisioningSuccess", status=fnv1.STATUS_CONDITION_TRUE, reason="Provisioned",
                           message="Provisioned successfully"),
        ],
        results=[fnv1.Result(severity=fnv1.SEVERITY_NORMAL, message="Provisioned successfully")],
        requirements=fnv1.Requirements(),
    )  # fmt: skip
    if req.HasField("context"):
        rsp.context.CopyFrom(req.context)
    return rsp


def success(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> fnv1.RunFunctionResponse:
    return _success(req, fnv1.READY_UNSPECIFIED)


def success_ready(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> fnv1.RunFunctionResponse:
    return _success(req, fnv1.READY_TRUE)


def composite_ready_false_with_unready(
    req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse
) -> fnv1.RunFunctionResponse:
    return _success(req, fnv1.READY_UNSPECIFIED, fnv1.READY_FALSE)


def composite_ready_true_with_unready(
    req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse
) -> fnv1.RunFunctionResponse:
    return _success(req, fnv1.READY_UNSPECIFIED, fnv1.READY_TRUE)


def composite_ready_false(
    req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse
) -> fnv1.RunFunctionResponse:
    return _success(req, fnv1.READY_TRUE, fnv1.READY_FALSE)


def fatal(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> fnv1.RunFunctionResponse:
    return fnv1.RunFunctionResponse(results=[fnv1.Result(severity=fnv1.SEVERITY_FATAL, message="oh no")])


def with_resources(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> fnv1.RunFunctionResponse:
    """Asks for a Foo by name; once it has it, copies its spec.widgets into the XR status. Counts its calls."""
    calls = int(resource.struct_to_dict(req.context).get("calls", 0)) + 1
    rsp.context.fields["calls"].number_value = calls
    sel = rsp.requirements.extra_resources["extra-resource-by-name"]
    sel.api_version, sel.kind, sel.match_name = "test.crossplane.io/v1", "Foo", "extra-resource"
    found = req.extra_resources.get("extra-resource-by-name")
    if found is not None and found.items:
        widgets = resource.struct_to_dict(found.items[0].resource)["spec"]["widgets"]
        rsp.desired.composite.resource.CopyFrom(
            resource.dict_to_struct({"apiVersion": "nop.example.org/v1alpha1", "kind": "XNopResource",
                                     "status": {"widgets": widgets}})
        )  # fmt: skip
    return rsp


def echo_context(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> fnv1.RunFunctionResponse:
    """Passes the context through and reports, as a result, the type of every context value."""
    ctx = resource.struct_to_dict(req.context)
    for key in sorted(ctx):
        rsp.results.add(severity=fnv1.SEVERITY_NORMAL, message=f"{key}: {type(ctx[key]).__name__}")
    return rsp


def echo_requests(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> fnv1.RunFunctionResponse:
    """Writes what it was sent (required resources, schemas, credentials, observed connection details) to the XR status."""
    seen: dict[str, Any] = {
        "required": {k: [resource.struct_to_dict(i.resource)["metadata"]["name"] for i in v.items]
                     for k, v in req.required_resources.items()},
        "schemas": {k: sorted(resource.struct_to_dict(v.openapi_v3)) for k, v in req.required_schemas.items()},
        "credentials": {k: {d: v.credential_data.data[d].decode() for d in v.credential_data.data}
                        for k, v in req.credentials.items()},
        "connection": {k: {d: v.connection_details[d].decode() for d in v.connection_details}
                       for k, v in req.observed.resources.items()},
    }  # fmt: skip
    rsp.desired.composite.resource.CopyFrom(
        resource.dict_to_struct(
            {"apiVersion": "nop.example.org/v1alpha1", "kind": "XNopResource", "status": seen}
        )
    )
    return rsp


def namespaced(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> fnv1.RunFunctionResponse:
    rsp.desired.resources["a"].resource.CopyFrom(
        resource.dict_to_struct({"apiVersion": "example.org/v1", "kind": "Thing", "spec": {}})
    )
    return rsp


async def hang(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> fnv1.RunFunctionResponse:
    """Never answers: for the --timeout test."""
    import asyncio

    await asyncio.Event().wait()
    return rsp


def echo_xr(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> fnv1.RunFunctionResponse:
    """Copies the observed XR's spec into the desired XR's status, to show what the function was sent."""
    xr = resource.struct_to_dict(req.observed.composite.resource)
    rsp.desired.composite.resource.CopyFrom(
        resource.dict_to_struct(
            {"apiVersion": xr["apiVersion"], "kind": xr["kind"], "status": {"seen": xr.get("spec", {})}}
        )
    )
    return rsp


def echo_whole_xr(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> fnv1.RunFunctionResponse:
    """Copies the whole observed XR into the desired XR's status, to show what the function was sent."""
    xr = resource.struct_to_dict(req.observed.composite.resource)
    rsp.desired.composite.resource.CopyFrom(
        resource.dict_to_struct({"apiVersion": xr["apiVersion"], "kind": xr["kind"], "status": {"seen": xr}})
    )
    return rsp


def echo_observed_details(
    req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse
) -> fnv1.RunFunctionResponse:
    """Reports each observed resource's connection details (decoded) in the desired XR's status; composes nothing."""
    xr = resource.struct_to_dict(req.observed.composite.resource)
    seen = {
        name: {k: v.decode() for k, v in r.connection_details.items()}
        for name, r in req.observed.resources.items()
    }
    rsp.desired.composite.resource.CopyFrom(
        resource.dict_to_struct(
            {"apiVersion": xr["apiVersion"], "kind": xr["kind"], "status": {"details": seen}}
        )
    )
    for name, r in req.observed.resources.items():
        rsp.desired.resources[name].resource.CopyFrom(r.resource)
    return rsp


def elsewhere_for_claim(
    req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse
) -> fnv1.RunFunctionResponse:
    """Composes a Thing in namespace "elsewhere" and reports a warning for the XR and its claim."""
    rsp.desired.resources["a"].resource.CopyFrom(
        resource.dict_to_struct(
            {"apiVersion": "example.org/v1", "kind": "Thing", "metadata": {"namespace": "elsewhere"}}
        )
    )
    rsp.results.add(
        severity=fnv1.SEVERITY_WARNING, message="look", reason="Look", target=fnv1.TARGET_COMPOSITE_AND_CLAIM
    )
    return rsp
