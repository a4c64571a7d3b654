"""EventRecorder: core/v1 Events with Crossplane's reasons, repeats counted, failures swallowed."""

from __future__ import annotations

import dataclasses
import datetime
from typing import Any

import pytest

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
