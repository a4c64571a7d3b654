"""The XR reconciler's own writes coming back through its watches (``composite._echoes``): one follow-up
reconcile per round of writes, whenever the echoes arrive, and none for a status write that changed
only the XR's system conditions."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Mapping
from typing import Any, Literal

import pytest

from crossfn import engine
from crossfn.controller.composite import _composite, _echoes, _selection
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import request, response

from . import composite_fixtures as fx
from .fake_api import FakeApi
from .fake_informers import FakeCache, FakeInformers

Timing = Literal["before", "after", "never"]

CM = ("v1", "ConfigMap")
XR = (fx.XR_API, "XBucket")


class EchoingApi(FakeApi):
    """A fake API server whose writes come back through the informers' handlers, as watch events do.

    ``timing``: an echo is handled before the write's answer reaches the caller (a watch
    faster than the response), a moment after it, or never. ``foreign``: on the first
    composed apply, someone else changes the XR too.
    """

    def __init__(self, informers: FakeInformers, timing: Timing, *, foreign: bool = False) -> None:
        super().__init__({XR: True})
        self.informers = informers
        self.timing = timing
        self.foreign = foreign

    def _echo(self, obj: dict[str, Any]) -> None:
        cache = self.informers.caches.get((obj["apiVersion"], obj["kind"]))
        if cache is None or self.timing == "never":
            return
        meta = obj["metadata"]

        def deliver() -> None:
            old = cache.get(meta["name"], meta.get("namespace") or "")
            cache.objects = [o for o in cache.objects if o is not old] + [obj]
            cache.fire("ADDED" if old is None else "MODIFIED", obj, old)

        if self.timing == "before":
            deliver()
        else:
            asyncio.get_running_loop().call_later(0.01, deliver)

    async def update(self, obj: Mapping[str, Any], *, status: bool = False) -> dict[str, Any]:
        out = await super().update(obj, status=status)
        self._echo(out)
        return out

    async def apply(
        self, obj: Mapping[str, Any], *, field_manager: str, force: bool = True, status: bool = False
    ) -> dict[str, Any]:
        before = self.objects.get(self._obj_key(obj))
        version = (before or {}).get("metadata", {}).get("resourceVersion")
        out = await super().apply(obj, field_manager=field_manager, force=force, status=status)
        changed = out["metadata"]["resourceVersion"] != version
        if changed:  # a real API server keeps the version of an apply that changed nothing: no event
            self._echo(out)
        if self.foreign and obj.get("kind") == "ConfigMap":
            self.foreign = False
            xr = self.objects[self._obj_key({**fx.xr(), "apiVersion": fx.XR_API})]
            self._echo({**xr, "metadata": {**xr["metadata"], "resourceVersion": "99999"}})
        return out


def ready_when_observed(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    """Two ConfigMaps, each ready once it is observed; nothing else."""
    observed = request.get_observed_composed_resources(req)
    for name in ("a", "b"):
        response.set_desired_composed_resource(
            rsp,
            name,
            {"apiVersion": "v1", "kind": "ConfigMap", "data": {"x": "1"}},
            ready=name in observed or None,
        )


def counts_observed(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    """As :func:`ready_when_observed`, and the XR's status says how many it observed."""
    ready_when_observed(req, rsp)
    xr = request.get_observed_composite_resource(req) or {}
    count = len(request.get_observed_composed_resources(req))
    response.set_desired_composite_resource(rsp, {**xr, "status": {"observed": count}})


def setup(
    fn: Any, timing: Timing, *, foreign: bool = False, timeout: float = 5.0
) -> tuple[EchoingApi, list[str], _composite.CompositeReconciler]:
    informers = FakeInformers()
    api = EchoingApi(informers, timing, foreign=foreign)
    comp = api.put(fx.composition())
    informers.caches[_selection.COMPOSITION] = FakeCache([comp])
    informers.caches[_selection.REVISION] = FakeCache([api.put(fx.revision(comp))])
    informers.caches[CM] = FakeCache()
    informers.caches[XR] = FakeCache([api.put(fx.xr())])
    queued: list[str] = []
    reconciler = _composite.CompositeReconciler(
        api, informers, fx.Events(), engine.build_runner(engine.InProcessRunner({"fn": fn})), engine.Sources(),
        xrd=fx.xrd(), clock=lambda: fx.T0, enqueue=queued.append,
    )  # fmt: skip
    reconciler._echoes = _echoes.Echoes(informers, timeout=timeout)
    reconciler._io._echoes = reconciler._echoes
    if reconciler._watches is not None:
        reconciler._watches._heard = reconciler._echoes.heard
    reconciler.start()
    return api, queued, reconciler


async def settle_events() -> None:
    """Let echoes sent "after" their writes arrive."""
    await asyncio.sleep(0.05)


@dataclasses.dataclass(frozen=True)
class RoundCase:
    id: str
    reason: str
    fn: Any
    timing: Timing
    want: list[list[str]]
    """What each reconcile, in turn, queued (after the round's echoes had all come in)."""
    foreign: bool = False


CASES = [
    RoundCase("EchoesBefore", "echoes handled before each write's answer: one follow-up for the round",
              ready_when_observed, "before", [["team/b"], []]),
    RoundCase("EchoesAfter", "echoes a moment after: the reconcile waits for them, then one follow-up",
              ready_when_observed, "after", [["team/b"], []]),
    RoundCase("Foreign", "someone else's change during the round: the follow-up comes for it too",
              ready_when_observed, "before", [["team/b"], []], foreign=True),
    RoundCase("FunctionStatus", "a status the functions wrote (not only conditions) is composed once more",
              counts_observed, "before", [["team/b"], ["team/b"], []]),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
async def test_a_round_of_writes_reconciles_once_more(case: RoundCase) -> None:
    api, queued, reconciler = setup(case.fn, case.timing, foreign=case.foreign)
    got = []
    for _ in case.want:
        await reconciler.reconcile("team/b")
        await settle_events()
        got.append(list(queued))
        queued.clear()
    assert got == case.want, case.reason
    status = api.objects[api._obj_key({**fx.xr(), "apiVersion": fx.XR_API})]["status"]
    ready = [c["status"] for c in status["conditions"] if c["type"] == "Ready"]
    assert ready == ["True"], "the XR ends up Ready: the follow-ups saw every write"
    assert len(reconciler._echoes) == 0, "nothing is left waiting"


async def test_the_creating_round_then_ready_round() -> None:
    """The second round's only write is Ready=True (a system condition): no third reconcile."""
    api, queued, reconciler = setup(ready_when_observed, "before")
    await reconciler.reconcile("team/b")
    queued.clear()
    writes_before = len(api.writes())
    await reconciler.reconcile("team/b")
    assert [w[0] for w in api.writes()[writes_before:]] == ["apply-status"], "the follow-up writes Ready=True"
    assert queued == [], "and is not reconciled again for it"


async def test_echoes_that_never_come_still_get_a_follow_up() -> None:
    _, queued, reconciler = setup(ready_when_observed, "never", timeout=0.05)
    await reconciler.reconcile("team/b")
    assert queued == ["team/b"], "after the wait, the XR is reconciled once more anyway"


# -- Echoes on its own ------------------------------------------------------------------------------


def cm(version: str, name: str = "c") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": "ns", "resourceVersion": version},
    }


def watched(*objects: dict[str, Any]) -> FakeInformers:
    informers = FakeInformers()
    informers.caches[CM] = FakeCache(list(objects))
    return informers


async def test_a_write_that_changed_nothing_waits_for_no_echo() -> None:
    echoes = _echoes.Echoes(watched(cm("5")), timeout=5)
    echoes.begin("ns/x")
    echoes.wrote("ns/x", cm("5"))
    async with asyncio.timeout(1):
        assert await echoes.settle("ns/x") is False, "the version it had: no event, no follow-up"


async def test_late_echoes_are_dropped_and_other_events_queue() -> None:
    echoes = _echoes.Echoes(watched(cm("5")), timeout=0.01)
    echoes.begin("ns/x")
    echoes.wrote("ns/x", cm("6"))
    assert await echoes.settle("ns/x") is True, "the echo did not come in time: look again"
    assert echoes.heard("ns/x", cm("6")) is True, "the late echo is ours: no second follow-up"
    assert echoes.heard("ns/x", cm("7")) is False, "anything else queues the XR"
    assert len(echoes) == 0


async def test_events_of_other_xrs_are_not_held() -> None:
    echoes = _echoes.Echoes(watched(cm("5")))
    echoes.begin("ns/x")
    assert echoes.heard("ns/y", cm("8", name="d")) is False


@pytest.mark.parametrize(
    ("before", "after", "want", "reason"),
    [
        pytest.param({"conditions": [{"type": "Ready", "status": "False"}]},
                     {"conditions": [{"type": "Ready", "status": "True"}]}, True, "Ready flipped", id="Ready"),
        pytest.param({}, {"conditions": [{"type": "Synced", "status": "True"}, {"type": "Responsive", "status": "True"}]},
                     True, "system conditions appear", id="Appear"),
        pytest.param({"conditions": [{"type": "Custom", "status": "False"}]},
                     {"conditions": [{"type": "Custom", "status": "True"}]}, False, "a function's condition", id="Custom"),
        pytest.param({"size": 1}, {"size": 2}, False, "a status field", id="Field"),
    ],
)  # fmt: skip
def test_only_system_conditions(
    before: dict[str, Any], after: dict[str, Any], want: bool, reason: str
) -> None:
    assert _echoes.only_system_conditions(before, after) is want, reason
