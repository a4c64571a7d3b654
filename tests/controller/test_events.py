"""EventRecorder: core/v1 Events with Crossplane's reasons, repeats counted, failures swallowed."""

from __future__ import annotations

import dataclasses
import datetime
from typing import Any

import pytest

from crossfn import engine
from crossfn.controller import _api, _events

from .fake_api import FakeApi

T0 = datetime.datetime(2026, 1, 1, 12, 0, 0, tzinfo=datetime.UTC)
XR: dict[str, Any] = {
    "apiVersion": "example.org/v1",
    "kind": "XBucket",
    "metadata": {"name": "b", "namespace": "team", "uid": "u1", "resourceVersion": "7"},
}
CLUSTER_XR: dict[str, Any] = {
    "apiVersion": "example.org/v1",
    "kind": "XNet",
    "metadata": {"name": "n", "uid": "u2"},
}


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime.datetime:
        return self.now


def recorder(api: FakeApi, clock: Clock, **kw: Any) -> _events.EventRecorder:
    return _events.EventRecorder(api, "crossfn/test", host="h", clock=clock, **kw)


async def test_creates_a_core_v1_event() -> None:
    api, clock = FakeApi(), Clock()
    await recorder(api, clock).event(XR, "Warning", "ComposeResources", "cannot compose resources: boom")
    [event] = api.of_kind("Event")
    assert event["metadata"]["namespace"] == "team", "an event lives in its object's namespace"
    assert event["involvedObject"] == {
        "apiVersion": "example.org/v1", "kind": "XBucket", "name": "b", "namespace": "team", "uid": "u1", "resourceVersion": "7",
    }  # fmt: skip
    want = {
        "type": "Warning",
        "reason": "ComposeResources",
        "message": "cannot compose resources: boom",
        "source": {"component": "crossfn/test", "host": "h"},
        "firstTimestamp": "2026-01-01T12:00:00Z",
        "lastTimestamp": "2026-01-01T12:00:00Z",
        "count": 1,
    }
    assert {k: event[k] for k in want} == want


@dataclasses.dataclass(frozen=True)
class RepeatCase:
    id: str
    reason: str
    second: tuple[dict[str, Any], str, str, str]
    want_events: int
    want_counts: list[int]


REPEATS = [
    RepeatCase(
        "SameEventBumpsCount",
        "an identical event is one Event with count 2",
        (XR, "Warning", "R", "m"),
        1,
        [2],
    ),
    RepeatCase(
        "OtherMessageIsNewEvent",
        "a different message is a different event",
        (XR, "Warning", "R", "m2"),
        2,
        [1, 1],
    ),
    RepeatCase(
        "OtherTypeIsNewEvent", "a different type is a different event", (XR, "Normal", "R", "m"), 2, [1, 1]
    ),
    RepeatCase(
        "OtherObjectIsNewEvent",
        "events are correlated per object",
        (CLUSTER_XR, "Warning", "R", "m"),
        2,
        [1, 1],
    ),
]


@pytest.mark.parametrize("case", REPEATS, ids=lambda c: c.id)
async def test_repeats(case: RepeatCase) -> None:
    api, clock = FakeApi(), Clock()
    rec = recorder(api, clock)
    await rec.event(XR, "Warning", "R", "m")
    clock.now = T0 + datetime.timedelta(seconds=30)
    await rec.event(*case.second)
    events = api.of_kind("Event")
    assert len(events) == case.want_events, case.reason
    assert sorted(e["count"] for e in events) == case.want_counts, case.reason
    if case.want_events == 1:
        assert events[0]["lastTimestamp"] == "2026-01-01T12:00:30Z", "a bump moves lastTimestamp"
        assert events[0]["firstTimestamp"] == "2026-01-01T12:00:00Z", "a bump keeps firstTimestamp"


@dataclasses.dataclass(frozen=True)
class ControllerCase:
    id: str
    reason: str
    second: str
    want: list[tuple[str, int]]


CONTROLLERS = [
    ControllerCase(
        "SameControllerBumpsCount",
        "a repeat from the same controller is one Event with count 2",
        "composite/xbuckets.example.org",
        [("composite/xbuckets.example.org", 2)],
    ),
    ControllerCase(
        "OtherControllerIsNewEvent",
        "the source is part of an event's identity, as in client-go",
        "claim/xbuckets.example.org",
        [("claim/xbuckets.example.org", 1), ("composite/xbuckets.example.org", 1)],
    ),
]


@pytest.mark.parametrize("case", CONTROLLERS, ids=lambda c: c.id)
async def test_for_controller_names_the_source(case: ControllerCase) -> None:
    api, clock = FakeApi(), Clock()
    base = recorder(api, clock)
    await base.for_controller("composite/xbuckets.example.org").event(XR, "Warning", "R", "m")
    await base.for_controller(case.second).event(XR, "Warning", "R", "m")
    got = sorted((e["source"]["component"], e["count"]) for e in api.of_kind("Event"))
    assert got == case.want, case.reason
    for e in api.of_kind("Event"):
        assert e["reportingComponent"] == e["source"]["component"], "both name the controller"
        assert e["source"]["host"] == "h", "a controller's recorder keeps the host"
    assert base.component == "crossfn/test", "naming a controller leaves the base recorder as it was"


@pytest.mark.parametrize(
    ("recorder_", "want", "reason"),
    [(_events.EventRecorder(FakeApi(), host="h"), "composite/x", "an EventRecorder takes the controller's name"),
     (_events.NoEvents(), None, "NoEvents stays NoEvents")],
    ids=["EventRecorder", "NoEvents"],
)  # fmt: skip
def test_for_controller_helper(recorder_: Any, want: str | None, reason: str) -> None:
    named = _events.for_controller(recorder_, "composite/x")
    assert getattr(named, "component", None) == want, reason


def test_for_controller_keeps_a_plain_recorder() -> None:
    class Plain:
        async def event(self, obj: Any, type: str, reason: str, message: str) -> None:
            return None

    plain = Plain()
    assert _events.for_controller(plain, "composite/x") is plain, "a recorder without for_controller is used as is"


def test_default_component_is_crossfn() -> None:
    assert _events.EventRecorder(FakeApi(), host="h").component == "crossfn", "the constructor's default is kept"


async def test_cluster_scoped_object_events_go_to_default() -> None:
    api, clock = FakeApi(), Clock()
    await recorder(api, clock).event(
        CLUSTER_XR, "Normal", "SelectComposition", "Successfully selected composition: c"
    )
    [event] = api.of_kind("Event")
    assert event["metadata"]["namespace"] == "default", (
        "client-go records cluster-scoped objects' events in default"
    )
    assert "namespace" not in event["involvedObject"], "a cluster-scoped object's reference has no namespace"


async def test_expired_event_is_created_again() -> None:
    api, clock = FakeApi(), Clock()
    rec = recorder(api, clock)
    await rec.event(XR, "Warning", "R", "m")
    api.objects.clear()  # the API server dropped the Event (its TTL)
    await rec.event(XR, "Warning", "R", "m")
    assert [e["count"] for e in api.of_kind("Event")] == [1], (
        "a remembered event that is gone is created anew"
    )


async def test_memory_is_bounded() -> None:
    api, clock = FakeApi(), Clock()
    rec = recorder(api, clock, max_remembered=2)
    for message in ("a", "b", "c"):
        await rec.event(XR, "Normal", "R", message)
    await rec.event(XR, "Normal", "R", "a")
    counts = sorted(e["count"] for e in api.of_kind("Event"))
    assert counts == [1, 1, 1, 1], "the oldest remembered event was forgotten, so its repeat is a new Event"


@dataclasses.dataclass(frozen=True)
class FailCase:
    id: str
    reason: str
    verb: str
    error: _api.ApiError


FAILS = [
    FailCase(
        "CreateForbidden",
        "RBAC refusing events must not fail a reconcile",
        "create",
        _api.Forbidden("forbidden", status=403),
    ),
    FailCase(
        "CreateUnreachable",
        "an unreachable server must not fail a reconcile",
        "create",
        _api.ApiError("connection refused"),
    ),
    FailCase("PatchFails", "a failed count bump is dropped", "patch", _api.ApiError("timeout")),
]


@pytest.mark.parametrize("case", FAILS, ids=lambda c: c.id)
async def test_never_raises(case: FailCase) -> None:
    api, clock = FakeApi(), Clock()
    rec = recorder(api, clock)
    await rec.event(XR, "Warning", "R", "m")
    api.fail(case.verb, "Event", case.error)
    await rec.event(XR, "Warning", "R", "m")  # must not raise
    await rec.event(XR, "Warning", "R", "other")


async def test_failed_create_is_not_remembered() -> None:
    api, clock = FakeApi(), Clock()
    rec = recorder(api, clock)
    api.fail("create", "Event", _api.ApiError("down"))
    await rec.event(XR, "Warning", "R", "m")
    api.heal()
    await rec.event(XR, "Warning", "R", "m")
    assert [e["count"] for e in api.of_kind("Event")] == [1], (
        "an event never written is created, not patched, next time"
    )


async def test_no_events_records_nothing() -> None:
    await _events.NoEvents().event(XR, "Warning", "R", "m")


CLAIMED_XR = {
    "apiVersion": "example.org/v1", "kind": "XBucket", "metadata": {"name": "x", "uid": "u"},
    "spec": {"claimRef": {"apiVersion": "example.org/v1", "kind": "Bucket", "namespace": "team", "name": "c"}},
}  # fmt: skip
TO_BOTH = engine.Event("Warning", "Slow", "disk is slow", engine.Target.COMPOSITE_AND_CLAIM, 'Pipeline step "s"')
TO_XR = engine.Event("Normal", "Done", "composed", engine.Target.COMPOSITE, 'Pipeline step "s"')


@pytest.mark.parametrize(
    ("legacy", "want", "reason"),
    [(True, [("Bucket", "Warning", "Slow", "disk is slow"), ("XBucket", "Warning", "Slow", 'Pipeline step "s": disk is slow'),
             ("XBucket", "Normal", "Done", 'Pipeline step "s": composed')],
      "a CompositeAndClaim event reaches the claim too, with the bare message"),
     (False, [("XBucket", "Warning", "Slow", 'Pipeline step "s": disk is slow'),
              ("XBucket", "Normal", "Done", 'Pipeline step "s": composed')],
      "a modern XR has no claim")],
    ids=["Legacy", "Modern"],
)  # fmt: skip
async def test_pipeline_events_reach_the_claim(legacy: bool, want: list[tuple[str, ...]], reason: str) -> None:
    seen: list[tuple[str, ...]] = []

    class Keep:
        async def event(self, obj: Any, type: str, reason: str, message: str) -> None:
            seen.append((obj["kind"], type, reason, message))

    await _events.record_pipeline_events(Keep(), CLAIMED_XR, (TO_BOTH, TO_XR), legacy=legacy)
    assert seen == want, reason
