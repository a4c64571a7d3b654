"""The XR's conditions and events after a compose (upstream core-2.17 reconciler handling)."""

import datetime
from typing import Any

from crossfn import engine, errors
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource, response

T0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
T1 = datetime.datetime(2026, 1, 2, tzinfo=datetime.UTC)
XR: dict[str, Any] = {
    "apiVersion": "example.org/v1",
    "kind": "XR",
    "metadata": {"name": "xr", "uid": "uid", "generation": 3, "labels": {"crossplane.io/composite": "xr"}},
}


async def compose(fn: Any, xr: dict[str, Any] = XR) -> engine.CompositionResult:
    runner = engine.build_runner(engine.InProcessRunner({"fn": fn}))
    return await engine.compose(
        xr, [engine.PipelineStep("s", "fn")], runner, tracer=engine.NoTracer(), clock=lambda: T0
    )


def two_resources(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    for name, ready in (("a", fnv1.READY_TRUE), ("b", fnv1.READY_UNSPECIFIED)):
        rsp.desired.resources[name].resource.CopyFrom(
            resource.dict_to_struct({"apiVersion": "v1", "kind": "ConfigMap"})
        )
        rsp.desired.resources[name].ready = ready
    rsp.conditions.add(
        type="DatabaseReady",
        status=fnv1.STATUS_CONDITION_TRUE,
        reason="Available",
        target=fnv1.TARGET_COMPOSITE_AND_CLAIM,
    )
    rsp.conditions.add(type="Ready", status=fnv1.STATUS_CONDITION_TRUE, reason="Lies")


async def test_success_orders_function_conditions_then_synced_then_ready() -> None:
    result = await compose(two_resources)
    got = engine.reconcile_status(XR, result, now=T1, legacy=True)
    assert [(c["type"], c["status"], c["reason"]) for c in got.conditions] == [
        ("DatabaseReady", "True", "Available"),
        ("Synced", "True", "ReconcileSuccess"),
        ("Ready", "False", "Creating"),
    ], "function conditions (system types dropped), then Synced, then Ready"
    assert got.conditions[2]["message"] == "Unready resources: b", "the Ready message names unready resources"
    assert got.conditions[1]["observedGeneration"] == 3 and "observedGeneration" not in got.conditions[0], (
        "only reconciler-owned conditions carry the generation"
    )
    assert got.claim_condition_types == ("DatabaseReady",), (
        "CompositeAndClaim conditions are copied to the claim (legacy)"
    )
    assert [e.message for e in got.events] == ['Composed resource "b" is not yet ready'], (
        "unready resources get a Normal event"
    )


async def test_unchanged_conditions_keep_their_time() -> None:
    result = await compose(two_resources)
    first = engine.reconcile_status(XR, result, now=T0)
    again = engine.reconcile_status({**XR, "status": {"conditions": list(first.conditions)}}, result, now=T1)
    assert [c["lastTransitionTime"] for c in again.conditions] == ["2026-01-01T00:00:00Z"] * 3, (
        "equal conditions are not replaced"
    )


async def test_unsynced_resources() -> None:
    result = await compose(two_resources)
    got = engine.reconcile_status(XR, result, now=T1, unsynced=["a"])
    synced = next(c for c in got.conditions if c["type"] == "Synced")
    assert (synced["status"], synced["reason"], synced["message"]) == (
        "False",
        "ReconcileError",
        "Unsynced resources: a",
    )
    assert 'Composed resource "a" is not yet valid' in [e.message for e in got.events], (
        "Invalid applies get an event"
    )


async def test_fatal_result_marks_unproduced_conditions_unknown() -> None:
    def fatal(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        rsp.conditions.add(type="Produced", status=fnv1.STATUS_CONDITION_TRUE, reason="Yes")
        response.fatal(rsp, "oh no")

    xr = {
        **XR,
        "status": {
            "conditions": [
                {"type": "Stale", "status": "True", "reason": "Old"},
                {"type": "Ready", "status": "True", "reason": "Available"},
            ]
        },
    }
    result = await compose(fatal, xr)
    got = engine.reconcile_status(xr, result, now=T1)
    by_type = {c["type"]: c for c in got.conditions}
    assert (by_type["Stale"]["status"], by_type["Stale"]["reason"], by_type["Stale"]["message"]) == (
        "Unknown", "FatalError", "A fatal error occurred before the status of this condition could be determined.",
    ), "a condition this run did not produce is no longer known"  # fmt: skip
    assert by_type["Produced"]["status"] == "True", "the fatal step's own conditions are kept"
    assert by_type["Ready"]["reason"] == "Available", "system conditions are left alone"
    assert (
        by_type["Synced"]["message"]
        == 'cannot compose resources: pipeline step "s" returned a fatal result: oh no'
    )
    assert got.events[-1] == engine.Event(
        "Warning",
        "ComposeResources",
        'cannot compose resources: pipeline step "s" returned a fatal result: oh no',
    ), "the error becomes a Warning event"


def test_compose_error_without_result() -> None:
    got = engine.reconcile_status(XR, None, now=T1, error=errors.FunctionRunError("boom"))
    assert [(c["type"], c["message"]) for c in got.conditions] == [
        ("Synced", "cannot compose resources: boom")
    ]
