"""The watch circuit breaker (upstream controllers-1.6; Crossplane's ``internal/circuit``): tables of events,
what passes, what opens and closes the circuit, and the ``Responsive`` condition an open one gives."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from crossfn import engine
from crossfn.controller.composite import _circuit, _composite
from crossfn.controller.runtime import _metrics

from . import composite_fixtures as fx
from .fake_informers import FakeCache, FakeInformers

CONTROLLER = "composite/xbuckets.example.org"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Counts(_metrics.NoMetrics):
    def __init__(self) -> None:
        self.opens = self.closes = 0
        self.events: dict[str, int] = {}

    def circuit_opened(self, controller: str) -> None:
        assert controller == CONTROLLER
        self.opens += 1

    def circuit_closed(self, controller: str) -> None:
        self.closes += 1

    def circuit_event(self, controller: str, result: str) -> None:
        self.events[result] = self.events.get(result, 0) + 1


def obj(
    name: str, kind: str = "ConfigMap", namespace: str = "team", deleting: bool = False
) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": namespace}
    if deleting:
        meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return {"apiVersion": "v1", "kind": kind, "metadata": meta}


@dataclasses.dataclass(frozen=True)
class Step:
    """``count`` events about ``source`` after ``wait`` seconds; what passed of them."""

    count: int
    passed: int
    wait: float = 0.0
    source: dict[str, Any] = dataclasses.field(default_factory=lambda: obj("cm"))


@dataclasses.dataclass(frozen=True)
class Case:
    id: str
    reason: str
    steps: list[Step]
    want_open: bool
    want_opens: int = 0
    want_closes: int = 0
    want_events: dict[str, int] = dataclasses.field(default_factory=dict)


SETTINGS = _circuit.CircuitSettings(burst=3, refill_rate=0.5, cooldown=300, half_open_interval=30)
CASES = [
    Case("WithinBurst", "events within the burst all pass", [Step(3, 3)], False, want_events={"Allowed": 3}),
    Case(
        "Opens", "the event that empties the bucket still passes and opens the circuit; the next is dropped",
        [Step(4, 4), Step(1, 0)], True, want_opens=1, want_events={"Allowed": 4, "Dropped": 1},
    ),
    Case(
        "Refills", "tokens come back at the refill rate",
        [Step(3, 3), Step(1, 1, wait=2.0)], False, want_events={"Allowed": 4},
    ),
    Case(
        "HalfOpen", "an open circuit lets one event through every half-open interval",
        [Step(4, 4), Step(2, 1, wait=31.0), Step(1, 0, wait=1.0)], True, want_opens=1,
        want_events={"Allowed": 4, "HalfOpenAllowed": 1, "Dropped": 2},
    ),
    Case(
        "Closes", "after the cooldown the next event closes the circuit, and passes",
        [Step(4, 4), Step(1, 1, wait=301.0)], False, want_opens=1, want_closes=1,
        want_events={"Allowed": 4, "HalfOpenAllowed": 1},
    ),
    Case(
        "DeletingPasses", "an event about an object being deleted always passes and takes no token",
        [Step(10, 10, source=obj("cm", deleting=True)), Step(3, 3)], False, want_events={"Allowed": 3},
    ),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_breaker(case: Case) -> None:
    clock, counts = Clock(), Counts()
    breaker = _circuit.Breaker(CONTROLLER, SETTINGS, metrics=counts, clock=clock)
    for step in case.steps:
        clock.now += step.wait
        passed = sum(len(breaker.filter(step.source, ["team/b"])) for _ in range(step.count))
        assert passed == step.passed, f"{case.reason}: {step}"
    assert breaker.state("team/b").open is case.want_open, case.reason
    assert (counts.opens, counts.closes, counts.events) == (
        case.want_opens,
        case.want_closes,
        case.want_events,
    ), case.reason


def test_triggered_by_names_the_busiest_source() -> None:
    clock = Clock()
    breaker = _circuit.Breaker(CONTROLLER, SETTINGS, clock=clock)
    for source in (obj("quiet"), obj("busy"), obj("busy", namespace=""), obj("busy")):
        breaker.filter(source, ["team/b"])
    assert breaker.state("team/b") == _circuit.State(True, 1030.0, "ConfigMap/busy (team)")


def test_targets_are_separate_and_reset() -> None:
    breaker = _circuit.Breaker(CONTROLLER, SETTINGS, clock=Clock())
    for _ in range(4):
        breaker.filter(obj("cm"), ["team/a"])
    assert breaker.state("team/a").open and not breaker.state("team/b").open, "one bucket per XR"
    breaker.reset("team/a")
    assert not breaker.state("team/a").open, "a reset XR starts with a full bucket"


def reconciler(
    breaker: _circuit.Breaker,
) -> tuple[Any, FakeInformers, list[str], _composite.CompositeReconciler]:
    api, _, _ = fx.setup()
    informers = FakeInformers()
    informers.caches[("apiextensions.crossplane.io/v1", "CompositionRevision")] = FakeCache(
        api.of_kind("CompositionRevision")
    )
    informers.caches[("apiextensions.crossplane.io/v1", "Composition")] = FakeCache(
        api.of_kind("Composition")
    )
    queued: list[str] = []
    r = _composite.CompositeReconciler(
        api, informers, fx.Events(), engine.build_runner(engine.InProcessRunner({"fn": fx.two_configmaps})),
        engine.Sources(), xrd=fx.xrd(), clock=lambda: fx.T0, enqueue=queued.append, breaker=breaker,
    )  # fmt: skip
    return api, informers, queued, r


async def test_an_xr_whose_watches_flap_is_not_responsive() -> None:
    """XR updates take two tokens each; once its circuit is open, they are dropped, and the next reconcile
    reports ``Responsive=False`` naming the source; its deletion passes and resets the bucket."""
    clock = Clock()
    breaker = _circuit.Breaker(CONTROLLER, SETTINGS, clock=clock)
    api, informers, queued, r = reconciler(breaker)
    xr = api.put(fx.xr())
    cache = informers.informer(fx.XR_API, "XBucket")
    r.start()
    try:
        cache.fire("MODIFIED", xr, xr)  # two tokens
        cache.fire("MODIFIED", xr, xr)  # the bucket empties: open, but this one passes
        cache.fire("MODIFIED", xr, xr)  # dropped
        assert queued == ["team/b", "team/b"]
        await r.reconcile("team/b")
        [stored] = api.of_kind("XBucket")
        responsive = next(c for c in stored["status"]["conditions"] if c["type"] == "Responsive")
        responsive = (responsive["status"], responsive["reason"], responsive.get("message", ""))
        assert responsive == (
            "False",
            "WatchCircuitOpen",
            "Too many watch events from XBucket/b (team). Allowing events periodically.",
        )
        deleting = {**xr, "metadata": {**xr["metadata"], "deletionTimestamp": "2026-01-01T00:00:00Z"}}
        cache.fire("MODIFIED", deleting, None)
        assert queued[-1] == "team/b" and not breaker.state("team/b").open, "deletion passes and resets"
    finally:
        r.stop()
