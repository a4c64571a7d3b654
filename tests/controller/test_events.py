"""EventRecorder: core/v1 Events with Crossplane's reasons, repeats counted, failures swallowed."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import logging
from typing import Any

import pytest

from crossfn import engine
from crossfn.controller.kube import _api
from crossfn.controller.runtime import _events, _xr

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


async def send(rec: _events.EventRecorder, obj: dict[str, Any], type: str, reason: str, message: str) -> None:
    """Record an event and wait until it is written (the recorder writes in the background)."""
    await rec.event(obj, type, reason, message)
    await rec.flush()


async def test_creates_a_core_v1_event() -> None:
    api, clock = FakeApi(), Clock()
    await send(recorder(api, clock), XR, "Warning", "ComposeResources", "cannot compose resources: boom")
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
    await send(rec, XR, "Warning", "R", "m")
    clock.now = T0 + datetime.timedelta(seconds=30)
    await send(rec, *case.second)
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
    await send(base.for_controller("composite/xbuckets.example.org"), XR, "Warning", "R", "m")
    await send(base.for_controller(case.second), XR, "Warning", "R", "m")
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
    assert _events.for_controller(plain, "composite/x") is plain, (
        "a recorder without for_controller is used as is"
    )


async def test_with_annotations_puts_them_on_the_event() -> None:
    """crossplane-runtime's ``WithAnnotations``: every event of the annotated recorder carries them; the recorder
    it came from does not; a repeat is the same event whatever its annotations (client-go's correlation)."""
    api, clock = FakeApi(), Clock()
    base = recorder(api, clock).for_controller(
        "defined/compositeresourcedefinition.apiextensions.crossplane.io"
    )
    xr_events = base.with_annotations({"controller": "composite/xbuckets.example.org"})
    await send(xr_events.with_annotations({"extra": "1"}), XR, "Normal", "R", "annotated")
    await send(base, XR, "Normal", "R", "plain")
    events = {e["message"]: e for e in api.of_kind("Event")}
    assert events["annotated"]["metadata"]["annotations"] == {
        "controller": "composite/xbuckets.example.org",
        "extra": "1",
    }, "annotations add up, and go on the Event's metadata"
    assert "annotations" not in events["plain"]["metadata"], "the recorder annotated from is unchanged"
    assert events["annotated"]["source"]["component"] == base.component
    await send(xr_events, XR, "Normal", "R", "annotated")
    assert [e["count"] for e in api.of_kind("Event") if e["message"] == "annotated"] == [2]


def test_with_annotations_keeps_a_plain_recorder() -> None:
    plain = _events.NoEvents()
    assert _events.with_annotations(plain, {"a": "b"}) is plain


def test_default_component_is_crossfn() -> None:
    assert _events.EventRecorder(FakeApi(), host="h").component == "crossfn", (
        "the constructor's default is kept"
    )


async def test_cluster_scoped_object_events_go_to_default() -> None:
    api, clock = FakeApi(), Clock()
    await send(
        recorder(api, clock),
        CLUSTER_XR,
        "Normal",
        "SelectComposition",
        "Successfully selected composition: c",
    )
    [event] = api.of_kind("Event")
    assert event["metadata"]["namespace"] == "default", (
        "client-go records cluster-scoped objects' events in default"
    )
    assert "namespace" not in event["involvedObject"], "a cluster-scoped object's reference has no namespace"


async def test_expired_event_is_created_again() -> None:
    api, clock = FakeApi(), Clock()
    rec = recorder(api, clock)
    await send(rec, XR, "Warning", "R", "m")
    api.objects.clear()  # the API server dropped the Event (its TTL)
    await send(rec, XR, "Warning", "R", "m")
    assert [e["count"] for e in api.of_kind("Event")] == [1], (
        "a remembered event that is gone is created anew"
    )


async def test_memory_is_bounded() -> None:
    api, clock = FakeApi(), Clock()
    rec = recorder(api, clock, max_remembered=2)
    for message in ("a", "b", "c"):
        await send(rec, XR, "Normal", "R", message)
    await send(rec, XR, "Normal", "R", "a")
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
    await send(rec, XR, "Warning", "R", "m")
    api.fail(case.verb, "Event", case.error)
    await send(rec, XR, "Warning", "R", "m")  # must not raise
    await send(rec, XR, "Warning", "R", "other")


async def test_failed_create_is_not_remembered() -> None:
    api, clock = FakeApi(), Clock()
    rec = recorder(api, clock)
    api.fail("create", "Event", _api.ApiError("down"))
    await send(rec, XR, "Warning", "R", "m")
    api.heal()
    await send(rec, XR, "Warning", "R", "m")
    assert [e["count"] for e in api.of_kind("Event")] == [1], (
        "an event never written is created, not patched, next time"
    )


async def test_no_events_records_nothing() -> None:
    await _events.NoEvents().event(XR, "Warning", "R", "m")


CLAIMED_XR = {
    "apiVersion": "example.org/v1", "kind": "XBucket", "metadata": {"name": "x", "uid": "u"},
    "spec": {"claimRef": {"apiVersion": "example.org/v1", "kind": "Bucket", "namespace": "team", "name": "c"}},
}  # fmt: skip
TO_BOTH = engine.Event(
    "Warning", "Slow", "disk is slow", engine.Target.COMPOSITE_AND_CLAIM, 'Pipeline step "s"'
)
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
async def test_pipeline_events_reach_the_claim(
    legacy: bool, want: list[tuple[str, ...]], reason: str
) -> None:
    seen: list[tuple[str, ...]] = []

    class Keep:
        async def event(self, obj: Any, type: str, reason: str, message: str) -> None:
            seen.append((obj["kind"], type, reason, message))

    schema = engine.CompositeSchema.LEGACY if legacy else engine.CompositeSchema.MODERN
    await _events.record_pipeline_events(Keep(), _xr.XR(CLAIMED_XR, schema), (TO_BOTH, TO_XR))
    assert seen == want, reason


class SlowApi(FakeApi):
    """Holds every Event write until ``release`` is set, so a test sees what is still queued."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()

    async def create(self, obj: Any, *, field_manager: str | None = None) -> dict[str, Any]:
        await self.release.wait()
        return await super().create(obj)

    async def patch(
        self, api_version: str, kind: str, name: str, namespace: str, patch: Any, **kw: Any
    ) -> dict[str, Any]:
        await self.release.wait()
        return await super().patch(api_version, kind, name, namespace, patch, **kw)


async def test_event_does_not_wait_for_the_write() -> None:
    api = SlowApi()
    rec = recorder(api, Clock())
    await asyncio.wait_for(rec.event(XR, "Warning", "R", "m"), timeout=5)
    assert api.of_kind("Event") == [], "event() returns while the server has not taken the Event yet"
    api.release.set()
    await rec.flush()
    assert [e["count"] for e in api.of_kind("Event")] == [1], (
        "flush() waits until the queued Event is written"
    )


async def test_repeats_queued_together_are_one_event() -> None:
    api = SlowApi()
    rec = recorder(api, Clock())
    for _ in range(3):
        await rec.event(XR, "Warning", "R", "m")
    api.release.set()
    await rec.close()
    assert [e["count"] for e in api.of_kind("Event")] == [3], (
        "an object's events are written in order: the create, then the bumps, each with its own count"
    )


@dataclasses.dataclass(frozen=True)
class DropCase:
    id: str
    reason: str
    messages: list[str]
    want_dropped: int
    want: list[tuple[str, int]]


DROPS = [
    DropCase("Fits", "a queue with room drops nothing", ["a", "b"], 0, [("a", 1), ("b", 1)]),
    DropCase(
        "Full",
        "events beyond the queue's size are dropped and counted",
        ["a", "b", "c", "d"],
        2,
        [("a", 1), ("b", 1)],
    ),
    DropCase(
        "RepeatOfDropped",
        "a dropped event's repeat finds the queue still full",
        ["a", "b", "c", "c"],
        2,
        [("a", 1), ("b", 1)],
    ),
]


@pytest.mark.parametrize("case", DROPS, ids=lambda c: c.id)
async def test_full_queue_drops_and_counts(case: DropCase) -> None:
    api = SlowApi()
    rec = recorder(api, Clock(), max_queued=2, senders=1)
    for message in case.messages:
        await rec.event(XR, "Normal", "R", message)
    api.release.set()
    await rec.flush()
    assert rec.dropped == case.want_dropped, case.reason
    assert rec.for_controller("other").dropped == case.want_dropped, "siblings share the queue and its count"
    assert sorted((e["message"], e["count"]) for e in api.of_kind("Event")) == case.want, case.reason
    await send(rec, XR, "Normal", "R", "c")
    assert ("c", 1) in [(e["message"], e["count"]) for e in api.of_kind("Event")], (
        "once the queue has room a dropped event is created afresh"
    )
    assert [c for c in api.calls if c[0] == "patch"] == [], (
        "a dropped new event is not remembered, so its later repeat is created, not patched"
    )


async def test_a_dropped_event_is_not_correlated() -> None:
    """client-go's broadcaster drops an event at its full queue before the correlator sees it: a dropped
    repeat bumps no count and spends none of the object's spam budget."""
    api = SlowApi()
    rec = recorder(api, Clock(), max_queued=1, senders=1)
    await rec.event(XR, "Normal", "R", "m")  # queued: the create
    for _ in range(_events.SPAM_BURST + 5):
        await rec.event(XR, "Normal", "R", "m")  # the queue is full: each dropped
    api.release.set()
    await rec.flush()
    assert (rec.dropped, rec.filtered) == (_events.SPAM_BURST + 5, 0)
    await send(rec, XR, "Normal", "R", "m")
    assert [e["count"] for e in api.of_kind("Event")] == [2], (
        "the repeat after the drops is the Event's second occurrence, and its source may still write it"
    )


async def test_close_writes_what_siblings_queued() -> None:
    api = SlowApi()
    base = recorder(api, Clock())
    await base.for_controller("composite/x").event(XR, "Normal", "R", "m")
    await base.for_controller("claim/x").event(CLUSTER_XR, "Normal", "R", "m")
    api.release.set()
    await base.close()
    assert sorted(e["source"]["component"] for e in api.of_kind("Event")) == ["claim/x", "composite/x"], (
        "close() on the manager's recorder writes every controller's queued events"
    )


async def test_flush_with_nothing_queued_returns() -> None:
    rec = recorder(FakeApi(), Clock())
    await asyncio.wait_for(rec.flush(), timeout=5)
    await asyncio.wait_for(_events.NoEvents().close(), timeout=5)


async def test_close_gives_up_after_its_timeout() -> None:
    api = SlowApi()  # never released: the API server takes nothing
    rec = recorder(api, Clock())
    await rec.event(XR, "Warning", "R", "m")
    await rec.event(CLUSTER_XR, "Warning", "R", "m")
    await asyncio.wait_for(rec.close(timeout=0), timeout=5)
    assert api.of_kind("Event") == [], "nothing was written"
    assert rec.dropped == 2, "events still queued at shutdown are dropped and counted"
    api.release.set()
    await send(rec, XR, "Warning", "R", "later")
    assert [e["message"] for e in api.of_kind("Event")] == ["later"], "a recorder still works after a close"


async def test_drops_log_a_few_lines_not_one_each(caplog: pytest.LogCaptureFixture) -> None:
    api = SlowApi()
    rec = recorder(api, Clock(), max_queued=1, senders=1)
    with caplog.at_level(logging.WARNING, logger="crossfn.controller.events"):
        for i in range(10):
            await rec.event(XR, "Normal", "R", f"m{i}")
    assert rec.dropped == 9, "one event fits the queue, nine do not"
    counts = [r.getMessage().rsplit("(", 1)[1] for r in caplog.records]
    assert counts == ["1 dropped so far)", "2 dropped so far)", "4 dropped so far)", "8 dropped so far)"], (
        "a burst of drops logs at the 1st, 2nd, 4th, 8th…, so the log itself does not add to the load"
    )
    api.release.set()
    await rec.close()


# client-go's correlator: aggregation of similar events and the per-object spam filter -------------


@dataclasses.dataclass(frozen=True)
class Storm:
    name: str
    reason: str
    messages: list[str]
    advance: float
    """Seconds between two events."""
    want_events: int
    """Event objects about the XR in the end."""
    want_writes: int
    """API writes (creates and count bumps)."""
    want_last_message: str
    want_filtered: int


STORMS = [
    Storm(
        "one message repeated", "a repeat is a count bump; 25 writes, then one per 5 minutes",
        ["boom"] * 60, 0.1, 1, 25, "boom", 35,
    ),
    Storm(
        "timestamped messages", "from the 10th distinct message one combined event counts the rest",
        [f"at {i}" for i in range(60)], 0.1, 10, 25, "(combined from similar events): at 24", 35,
    ),
    Storm(
        "nine distinct messages", "below the aggregation threshold every message is its own event",
        [f"at {i}" for i in range(9)], 0.1, 9, 9, "at 8", 0,
    ),
    Storm(
        "a slow trickle", "one event every 5 minutes refills the bucket as fast as it is used",
        ["tick"] * 40, 300.0, 1, 40, "tick", 0,
    ),
]  # fmt: skip


@pytest.mark.parametrize("case", STORMS, ids=[c.name for c in STORMS])
async def test_events_about_one_object_are_rate_limited(case: Storm) -> None:
    """client-go's EventCorrelator defaults (tools/record: aggregate 10 similar within 600 s; burst 25,
    then 1 per 300 s per source and object): a function that returns timestamped warnings made
    3,102 Events in 60 s before."""
    api, clock = FakeApi(), Clock()
    rec = recorder(api, clock)
    for message in case.messages:
        await send(rec, XR, "Warning", "ComposeResources", message)
        clock.now += datetime.timedelta(seconds=case.advance)
    events = api.of_kind("Event")
    assert len(events) == case.want_events, case.reason
    assert len([c for c in api.writes() if c[1] == "Event"]) == case.want_writes, case.reason
    last = max(events, key=lambda e: (e["lastTimestamp"], e["metadata"]["name"]))
    assert last["message"] == case.want_last_message, case.reason
    assert rec.filtered == case.want_filtered, case.reason


async def test_the_spam_filter_is_per_object_and_source() -> None:
    """Another object, or another controller's events, have budgets of their own."""
    api, clock = FakeApi(), Clock()
    rec = recorder(api, clock)
    other = {**XR, "metadata": {**XR["metadata"], "name": "c", "uid": "u3"}}
    for _ in range(30):
        await send(rec, XR, "Warning", "R", "same")
    await send(rec, other, "Warning", "R", "same")
    await send(rec.for_controller("composite/other"), XR, "Warning", "R", "same")
    assert rec.filtered == 5
    assert sorted((e["involvedObject"]["name"], e["source"]["component"]) for e in api.of_kind("Event")) == [
        ("b", "composite/other"), ("b", "crossfn/test"), ("c", "crossfn/test"),
    ]  # fmt: skip
