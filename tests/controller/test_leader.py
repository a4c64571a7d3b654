"""Leader election on a Lease: one attempt's rules (fake API, injected clock) and failover (real API server)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from crossfn import errors
from crossfn.controller.kube import _api
from crossfn.controller.manager import _leader

from .fake_api import FakeApi

NS = "crossplane-system"
T0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)


class Clock:
    """Monotonic seconds the test moves by hand."""

    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def _elector(api: Any, clock: Clock, identity: str = "me", **kw: Any) -> _leader.LeaderElector:
    return _leader.LeaderElector(
        api, namespace=NS, identity=identity, clock=clock, now=lambda: T0, jitter=lambda: 0.0, **kw
    )


def _lease(holder: str, *, duration: int = 60, transitions: int = 3) -> dict[str, Any]:
    return {
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": {"name": _leader.LEASE_NAME, "namespace": NS},
        "spec": {
            "holderIdentity": holder,
            "leaseDurationSeconds": duration,
            "acquireTime": "2025-12-31T00:00:00.000000Z",
            "renewTime": "2025-12-31T00:00:00.000000Z",
            "leaseTransitions": transitions,
        },
    }


def _stored(api: FakeApi) -> dict[str, Any]:
    leases = api.of_kind("Lease")
    assert len(leases) == 1
    return dict(leases[0]["spec"])


@dataclasses.dataclass
class Attempt:
    name: str
    reason: str
    existing: dict[str, Any] | None
    # Seconds between a first look at the record and the attempt checked; None: only one attempt.
    waited: float | None
    renewed_meanwhile: bool
    want_acquired: bool
    want_holder: str
    want_transitions: int


ATTEMPTS = [
    Attempt("no lease", "the first candidate creates the Lease", None, None, False, True, "me", 0),
    Attempt("held, fresh", "a live leader keeps it", _lease("other"), 59.0, False, False, "other", 3),
    Attempt(
        "held, expired", "unchanged for the lease duration on our clock: taken over",
        _lease("other"), 60.0, False, True, "me", 4,
    ),
    Attempt(
        "held, renewed", "a record that changed restarts the wait", _lease("other"), 60.0, True, False,
        "other", 3,
    ),
    Attempt(
        "held, short record duration", "the record's own leaseDurationSeconds counts",
        _lease("other", duration=5), 5.0, False, True, "me", 4,
    ),
    Attempt("released", "an empty holder is free at once", _lease(""), None, False, True, "me", 4),
    Attempt("ours", "a renewal keeps transitions", _lease("me"), None, False, True, "me", 3),
]  # fmt: skip


@pytest.mark.parametrize("case", ATTEMPTS, ids=lambda c: c.name)
async def test_try_acquire_or_renew(case: Attempt) -> None:
    api, clock = FakeApi(), Clock()
    if case.existing is not None:
        api.put(case.existing)
    elector = _elector(api, clock)
    got = await elector.try_acquire_or_renew()
    if case.waited is not None:
        if case.renewed_meanwhile:
            clock.t += case.waited / 2
            await api.patch(
                "coordination.k8s.io/v1", "Lease", _leader.LEASE_NAME, NS,
                {"spec": {"renewTime": "2025-12-31T00:00:30.000000Z"}},
            )  # fmt: skip
            assert not await elector.try_acquire_or_renew()
            clock.t += case.waited / 2
        else:
            clock.t += case.waited
        got = await elector.try_acquire_or_renew()
    assert got is case.want_acquired, case.reason
    assert elector.leading is case.want_acquired
    spec = _stored(api)
    assert spec["holderIdentity"] == case.want_holder
    assert spec["leaseTransitions"] == case.want_transitions
    if case.want_acquired:
        assert spec["renewTime"] == "2026-01-01T00:00:00.000000Z"
        assert spec["leaseDurationSeconds"] == 60
        kept = case.existing is not None and case.existing["spec"]["holderIdentity"] == "me"
        assert (spec["acquireTime"] == "2025-12-31T00:00:00.000000Z") is kept


@pytest.mark.parametrize(
    ("verb", "error"),
    [
        ("update", _api.Conflict("the object has been modified", status=409)),
        ("get", _api.ApiError("cannot reach the API server: connection refused")),
    ],
    ids=["another candidate wrote first", "API server unreachable"],
)
async def test_a_failed_attempt_is_false_not_an_exception(verb: str, error: _api.ApiError) -> None:
    api, clock = FakeApi(), Clock()
    api.put(_lease(""))
    api.fail(verb, "Lease", error)
    assert not await _elector(api, clock).try_acquire_or_renew()
    assert _stored(api)["holderIdentity"] == ""


async def test_create_race_lost_is_false() -> None:
    api, clock = FakeApi(), Clock()
    api.fail("create", "Lease", _api.Conflict("already exists", status=409))
    elector = _elector(api, clock)
    assert not await elector.try_acquire_or_renew()
    assert not elector.leading


@pytest.mark.parametrize(
    ("holder", "want_released"),
    [("me", True), ("other", False)],
    ids=["ours: given up", "taken by another meanwhile: left alone"],
)
async def test_release(holder: str, want_released: bool) -> None:
    api, clock = FakeApi(), Clock()
    elector = _elector(api, clock)
    assert await elector.try_acquire_or_renew()
    await api.patch(
        "coordination.k8s.io/v1", "Lease", _leader.LEASE_NAME, NS, {"spec": {"holderIdentity": holder}}
    )
    assert await elector.release() is want_released
    spec = _stored(api)
    assert not elector.leading
    if want_released:
        assert spec.get("holderIdentity") is None
        assert spec["leaseDurationSeconds"] == 1
    else:
        assert spec["holderIdentity"] == "other"


@pytest.mark.parametrize(
    ("durations", "want"),
    [
        ((60.0, 60.0, 2.0), "want lease duration > renew deadline > 1.2 x retry period > 0"),
        ((60.0, 2.0, 2.0), "got 60s, 2s, 2s"),
        ((0.9, 0.5, 0.1), "the lease duration is under one second"),
    ],
    ids=["deadline not under duration", "retry not under deadline", "sub-second lease"],
)
def test_bad_timing_is_an_input_error(durations: tuple[float, float, float], want: str) -> None:
    duration, deadline, retry = durations
    with pytest.raises(errors.InputError, match="cannot elect a leader") as info:
        _leader.LeaderElector(
            FakeApi(), namespace=NS, identity="me", lease_duration=duration, renew_deadline=deadline,
            retry_period=retry,
        )  # fmt: skip
    assert want in str(info.value)


def test_empty_identity_is_an_input_error() -> None:
    with pytest.raises(errors.InputError, match="identity is empty"):
        _leader.LeaderElector(FakeApi(), namespace=NS, identity="")


@pytest.mark.parametrize(
    ("content", "env", "want"),
    [("team-a\n", "", "team-a"), (None, "from-env", "from-env"), (None, "", "fallback")],
    ids=["service account namespace file", "POD_NAMESPACE", "fallback"],
)
def test_lease_namespace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: str | None, env: str, want: str
) -> None:
    path = tmp_path / "namespace"
    if content is not None:
        path.write_text(content)
    monkeypatch.setenv("POD_NAMESPACE", env)
    assert _leader.lease_namespace("fallback", path=path) == want


def test_default_identity_is_unique_per_call() -> None:
    assert _leader.default_identity() != _leader.default_identity()


async def test_leader_that_cannot_renew_stops_its_work() -> None:
    """Renewals failing for the renew deadline: the work is cancelled and run() returns (no release)."""
    api, clock = FakeApi(), Clock()
    sleeps: list[float] = []

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        clock.t += seconds
        await asyncio.sleep(0)

    elector = _leader.LeaderElector(
        api, namespace=NS, identity="me", lease_duration=10, renew_deadline=5, retry_period=1,
        clock=clock, sleep=sleep, now=lambda: T0, jitter=lambda: 0.0,
    )  # fmt: skip
    cancelled = asyncio.Event()
    stopped: list[bool] = []

    async def work() -> None:
        try:
            await asyncio.Event().wait()
        finally:
            cancelled.set()

    api.put(_lease(""))

    async def fail_after_acquire() -> None:
        while not elector.leading:
            await asyncio.sleep(0)
        api.fail("get", "Lease", _api.ApiError("cannot reach the API server"))

    helper = asyncio.create_task(fail_after_acquire())
    await asyncio.wait_for(elector.run(work, lambda: stopped.append(True)), timeout=5)
    await helper
    assert cancelled.is_set() and stopped == [True] and not elector.leading
    assert sum(sleeps) >= 5, "gave up before the renew deadline"
    assert _stored(api)["holderIdentity"] == "me", "a leader that cannot reach the server does not release"


@pytest.mark.parametrize(
    ("leading", "after", "want_allowed"),
    [
        pytest.param(True, 0.0, True, id="just-renewed"),
        pytest.param(True, 4.99, True, id="just-before-the-renew-deadline"),
        pytest.param(True, 5.0, False, id="at-the-renew-deadline"),
        pytest.param(True, 120.0, False, id="frozen-far-past-it"),
        pytest.param(False, 0.0, False, id="not-leading"),
    ],
)
async def test_write_fence(leading: bool, after: float, want_allowed: bool) -> None:
    """A write is allowed until the renew deadline after the start of the last successful renewal;
    a refused one is ``Fenced`` and ends leadership at once (a frozen leader resumed: SIGCONT)."""
    api, clock = FakeApi(), Clock()
    elector = _elector(api, clock, lease_duration=10, renew_deadline=5, retry_period=1)
    if leading:
        assert await elector.try_acquire_or_renew()
    clock.t += after
    if want_allowed:
        elector.check()
        return
    with pytest.raises(_api.Fenced, match="cannot be sure it still holds the Lease"):
        elector.check()


async def test_a_lease_write_slower_than_the_renew_deadline_does_not_count() -> None:
    """The fence counts from when the Lease write was sent; one answered past the renew deadline (an API
    server just back) leaves the candidate not leading, to try again, rather than leading with no time."""
    clock = Clock()

    class Slow(FakeApi):
        async def update(self, obj: Any, *, status: bool = False) -> dict[str, Any]:
            clock.t += 6  # the answer comes after the 5 s renew deadline
            return await super().update(obj, status=status)

    api = Slow()
    api.put(_lease(""))
    elector = _elector(api, clock, lease_duration=10, renew_deadline=5, retry_period=1)
    assert await elector.try_acquire_or_renew() is False and not elector.leading
    with pytest.raises(_api.Fenced):
        elector.check()


async def test_a_refused_write_ends_leadership_at_once() -> None:
    """The first fenced write cancels the work, without waiting for the renew loop's next wake-up
    (its sleep here never ends)."""
    api, clock = FakeApi(), Clock()

    async def forever(seconds: float) -> None:
        await asyncio.Event().wait()

    elector = _leader.LeaderElector(
        api, namespace=NS, identity="me", lease_duration=10, renew_deadline=5, retry_period=1,
        clock=clock, now=lambda: T0, jitter=lambda: 0.0, sleep=forever,
    )  # fmt: skip
    cancelled = asyncio.Event()

    async def work() -> None:
        clock.t += 6  # frozen past the renew deadline, then a write
        with pytest.raises(_api.Fenced):
            elector.check()
        try:
            await asyncio.Event().wait()
        finally:
            cancelled.set()

    await asyncio.wait_for(elector.run(work), timeout=5)
    assert cancelled.is_set() and not elector.leading


async def test_a_write_sent_past_the_fence_stops_the_process() -> None:
    """Bytes that could only leave after the fence (a full socket buffer): the process stops."""
    api, clock = FakeApi(), Clock()
    exits: list[bool] = []
    elector = _elector(
        api,
        clock,
        lease_duration=10,
        renew_deadline=5,
        retry_period=1,
        exit_process=lambda: exits.append(True),
    )
    assert await elector.try_acquire_or_renew()
    elector.sent()
    assert exits == []
    clock.t += 5
    elector.sent()
    assert exits == [True]


# -- against the API server --------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Try:
    """One acquire attempt of a candidate: when it began and ended (monotonic), when the record it had
    seen last expires on its clock, and whether it took the Lease. The attempt judges expiry between
    ``began`` and ``ended`` (after reading the record)."""

    began: float
    ended: float
    expires: float
    won: bool


class RecordingElector(_leader.LeaderElector):
    """An elector that notes each of its attempts."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tries: list[Try] = []

    async def try_acquire_or_renew(self) -> bool:
        seen = self._observed or {}
        began = time.monotonic()
        expires = self._observed_at + float(seen.get("leaseDurationSeconds") or LEASE)
        won = await super().try_acquire_or_renew()
        self.tries.append(Try(began, time.monotonic(), expires, won))
        return won


LEASE = 2.0


class Candidate:
    """One elector with its own client, running ``run`` until stopped; records when it led."""

    def __init__(self, kubeconfig: str, lease: str, identity: str, *, release: bool = True) -> None:
        from crossfn.controller.kube import _kube

        self.api = _kube.KubeApi.from_kubeconfig(kubeconfig)
        self.elector = RecordingElector(
            self.api, namespace="default", identity=identity, name=lease, lease_duration=LEASE,
            renew_deadline=1.5, retry_period=0.2, release_on_cancel=release,
        )  # fmt: skip
        self.task: asyncio.Task[None] | None = None
        self.led = asyncio.Event()

    async def _work(self) -> None:
        self.led.set()
        await asyncio.Event().wait()

    def start(self) -> None:
        self.task = asyncio.create_task(self.elector.run(self._work))

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
        await self.api.close()


async def _watch_overlap(candidates: list[Candidate], stop: asyncio.Event) -> int:
    """Sample who leads every 10 ms until ``stop``; return how often more than one did."""
    overlaps = 0
    while not stop.is_set():
        overlaps += sum(c.elector.leading for c in candidates) > 1
        await asyncio.sleep(0.01)
    return overlaps


@dataclasses.dataclass(frozen=True)
class Failover:
    stopped: float
    """When the leader had stopped (monotonic; after its release, if it released)."""
    last_record: dict[str, Any]
    """The last Lease record the old leader wrote."""
    lease: dict[str, Any]
    """The Lease record once the other candidate led."""
    tries: list[Try]
    """The other candidate's attempts."""


async def _failover(envtest: Any, kube: Any, *, release: bool) -> Failover:
    """Two candidates; stop the leader; what the other did until it led. Asserts no overlap."""
    lease = f"test-{uuid.uuid4().hex[:8]}"
    a = Candidate(envtest.kubeconfig, lease, "a", release=release)
    b = Candidate(envtest.kubeconfig, lease, "b", release=release)
    stop = asyncio.Event()
    sampler = asyncio.create_task(_watch_overlap([a, b], stop))
    try:
        a.start()
        await asyncio.wait_for(a.led.wait(), timeout=10)
        b.start()
        # Several of b's attempts fail while a renews (however slowly the machine runs them).
        while sum(not t.won for t in b.elector.tries) < 3:
            await asyncio.sleep(0.05)
        assert a.elector.leading and not b.elector.leading and not b.led.is_set()
        await a.stop()
        stopped = time.monotonic()
        last_record = dict(a.elector._observed or {})
        await asyncio.wait_for(b.led.wait(), timeout=30)  # only ends a failing run
        got = await kube.get("coordination.k8s.io/v1", "Lease", lease, "default")
    finally:
        stop.set()
        overlaps = await sampler
        await a.stop()
        await b.stop()
    assert overlaps == 0, "both candidates led at once"
    return Failover(stopped, last_record, dict(got["spec"]), b.elector.tries)


def _micro(stamp: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(stamp)


@pytest.mark.cluster
async def test_clean_stop_hands_over_at_once(envtest: Any, kube: Any) -> None:
    """A released Lease is taken on the other candidate's very next attempt: no waiting out the duration."""
    f = await _failover(envtest, kube, release=True)
    assert [t.won for t in f.tries if t.won or t.began >= f.stopped] == [True], (
        "no attempt begun after the release failed, and one took the Lease"
    )
    assert f.tries[-1].won and f.lease["holderIdentity"] == "b"


@pytest.mark.cluster
async def test_dead_leader_is_replaced_within_the_lease_duration(envtest: Any, kube: Any) -> None:
    """An unreleased Lease is taken only once its record has stood still for leaseDurationSeconds, and
    then on the next attempt."""
    f = await _failover(envtest, kube, release=False)
    after = [t for t in f.tries if t.began >= f.stopped]
    assert [t.won for t in after][-1:] == [True] and sum(t.won for t in f.tries) == 1, "b took the Lease once"
    assert all(t.began < t.expires for t in after[:-1]), "every attempt before the record expired failed"
    assert after[-1].ended >= after[-1].expires, "the one that took it ended after the record expired"
    # The Lease's own times: the new holder acquired it at least a lease duration after the old one's renewal.
    assert f.lease["holderIdentity"] == "b" and f.last_record["holderIdentity"] == "a"
    waited = _micro(f.lease["acquireTime"]) - _micro(f.last_record["renewTime"])
    assert waited >= datetime.timedelta(seconds=LEASE), f"taken {waited} after the last renewal"
    assert f.lease["leaseTransitions"] == f.last_record["leaseTransitions"] + 1
