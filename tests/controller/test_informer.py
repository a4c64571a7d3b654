"""Informers: list + watch into a cache, handlers, relist on Gone, reconnect with backoff.

Scripted against a small fake Api first (exact event sequences, injected clock), then against a
real API server, including a restart of the API server while an update is made.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator, Mapping
from typing import Any

import pytest

from crossfn.controller import envtest as envtest_module
from crossfn.controller.kube import _api, _kube
from crossfn.controller.runtime import _informer

from .fake_clock import FakeClock

Object = dict[str, Any]


def obj(name: str, version: str, namespace: str = "ns", **labels: str) -> Object:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace, "resourceVersion": version, "labels": labels},
    }


class ScriptedApi:
    """Answers list and watch from scripts; a watch whose script is exhausted waits forever."""

    def __init__(
        self,
        lists: list[tuple[list[Object], str] | Exception],
        watches: list[list[_api.WatchEvent | Exception]],
    ):
        self.lists = lists
        self.watches = watches
        self.watched_from: list[str] = []
        self.idle = asyncio.Event()

    async def list(
        self,
        api_version: str,
        kind: str,
        namespace: str | None = None,
        *,
        labels: Mapping[str, str] | None = None,
    ) -> tuple[list[Object], str]:
        answer = self.lists.pop(0)
        if isinstance(answer, Exception):
            raise answer
        items, version = answer
        return [dict(i) for i in items], version

    async def watch(
        self,
        api_version: str,
        kind: str,
        namespace: str | None = None,
        *,
        resource_version: str,
        timeout_seconds: int = 300,
    ) -> AsyncIterator[_api.WatchEvent]:
        self.watched_from.append(resource_version)
        if not self.watches:
            self.idle.set()
            await asyncio.Event().wait()
        for step in self.watches.pop(0):
            if isinstance(step, Exception):
                raise step
            yield step


def event(kind: str, o: Object) -> _api.WatchEvent:
    return _api.WatchEvent(kind, o)  # type: ignore[arg-type]  # test tables name the type as a str


class Recorded:
    def __init__(self) -> None:
        self.events: list[str] = []

    def __call__(self, event_type: str, o: Object, old: Object | None) -> None:
        old_version = old["metadata"]["resourceVersion"] if old else "-"
        self.events.append(
            f"{event_type} {o['metadata']['name']} {old_version}->{o['metadata']['resourceVersion']}"
        )


async def run(api: ScriptedApi, clock: FakeClock | None = None) -> tuple[_informer.Informer, Recorded]:
    informer = _informer.Informer(api, "v1", "ConfigMap", clock=clock or FakeClock())  # type: ignore[arg-type]
    recorded = Recorded()
    informer.add_handler(recorded)
    informer.start()
    await asyncio.wait_for(api.idle.wait(), 2)
    return informer, recorded


@pytest.mark.parametrize(
    ("lists", "watches", "want", "reason"),
    [
        pytest.param(
            [([obj("a", "1"), obj("b", "2")], "5")],
            [],
            (["ADDED a -->1", "ADDED b -->2"], ["a", "b"], ["5"]),
            "the initial list is delivered as ADDED and the watch starts at the list's version",
            id="InitialList",
        ),
        pytest.param(
            [([obj("a", "1")], "5")],
            [
                [
                    event("ADDED", obj("b", "6")),
                    event("MODIFIED", obj("a", "7")),
                    event("DELETED", obj("b", "8")),
                ]
            ],
            (["ADDED a -->1", "ADDED b -->6", "MODIFIED a 1->7", "DELETED b 6->8"], ["a"], ["5", "8"]),
            "watch events update the cache, carry the old object, and the next watch resumes after the last",
            id="WatchEvents",
        ),
        pytest.param(
            [([], "5")],
            [[event("BOOKMARK", {"metadata": {"resourceVersion": "42"}})]],
            ([], [], ["5", "42"]),
            "a bookmark moves the resume point and reaches no handler",
            id="Bookmark",
        ),
        pytest.param(
            [
                ([obj("a", "1"), obj("b", "2"), obj("c", "3")], "5"),
                ([obj("a", "1"), obj("b", "9"), obj("d", "8")], "10"),
            ],
            [[_api.Gone("too old resource version", status=410)]],
            (
                [
                    "ADDED a -->1",
                    "ADDED b -->2",
                    "ADDED c -->3",
                    "DELETED c -->3",
                    "MODIFIED b 2->9",
                    "ADDED d -->8",
                ],
                ["a", "b", "d"],
                ["5", "10"],
            ),
            "after Gone a relist reconciles the cache: vanished objects are DELETED, changed MODIFIED, new ADDED",
            id="RelistAfterGone",
        ),
        pytest.param(
            [([obj("a", "1")], "5"), ([obj("a", "6")], "11")],
            [[event("MODIFIED", obj("a", "6")), _api.Gone("too old", status=410)]],
            (["ADDED a -->1", "MODIFIED a 1->6"], ["a"], ["5", "11"]),
            "a Gone inside a stream relists; what the watch already delivered is not emitted twice",
            id="GoneMidStream",
        ),
    ],
)
async def test_informer_events(
    lists: list[tuple[list[Object], str]],
    watches: list[list[_api.WatchEvent | Exception]],
    want: tuple[list[str], list[str], list[str]],
    reason: str,
) -> None:
    """``want``: the handler's events, the names cached at the end, the versions each watch started from."""
    want_events, want_names, want_watched_from = want
    api = ScriptedApi(list(lists), watches)
    informer, recorded = await run(api)
    assert informer.synced
    assert recorded.events == want_events, reason
    assert sorted(o["metadata"]["name"] for o in informer.list()) == want_names, reason
    assert api.watched_from == want_watched_from, reason
    await informer.stop()


async def settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


BROKEN = _api.ApiError("cannot reach the API server at https://k8s.test: connection refused")


async def test_outages_back_off_log_once_and_report_health(caplog: pytest.LogCaptureFixture) -> None:
    """Reconnects wait 0.2 s doubling to 5 s from the version they had, without a relist; one
    warning per outage, debug for the retries, info when it resumes; the backoff starts over
    after a success; the factory reports the watch down for the outage only."""
    broken: _api.WatchEvent | Exception = BROKEN
    api = ScriptedApi(
        [([obj("a", "1")], "5")],
        [[broken]] * 7 + [[event("MODIFIED", obj("a", "6"))], [broken], [event("MODIFIED", obj("a", "7"))]],
    )
    clock = FakeClock()
    factory = _informer.InformerFactory(api, clock=clock)  # type: ignore[arg-type]
    health: list[tuple[bool, list[str]]] = []
    with caplog.at_level(logging.DEBUG, logger="crossfn.controller.informer"):
        informer = factory.informer("v1", "ConfigMap")
        await settle()
        while clock.pending():
            health.append((factory.healthy(), factory.problems()))
            clock.advance(clock.pending()[0] - clock.now())
            await settle()
        await asyncio.wait_for(api.idle.wait(), 2)
    assert clock.sleeps == [0.2, 0.4, 0.8, 1.6, 3.2, 5.0, 5.0, 0.2]
    assert api.watched_from == ["5"] * 8 + ["6", "6", "7"], "every reconnect resumes; none relists"
    assert informer.relists == 1
    assert (informer.get("a", "ns") or {})["metadata"]["resourceVersion"] == "7"
    down = (False, ["v1 ConfigMap: " + str(BROKEN)])
    assert health == [down] * 8, "down while reconnecting"
    assert (factory.healthy(), factory.problems()) == (True, []), "healthy once the watch is back"
    logged = [
        (r.levelname, r.getMessage().split(",")[0].split(":")[0])
        for r in caplog.records
        if r.name == "crossfn.controller.informer"
    ]
    outage = [("WARNING", "cannot watch v1 ConfigMap")] + [("DEBUG", "cannot watch v1 ConfigMap")] * 6
    resumed = [("INFO", "watch of v1 ConfigMap resumed")]
    assert logged == outage + resumed + [("WARNING", "cannot watch v1 ConfigMap")] + resumed
    await factory.stop()


@pytest.mark.parametrize(
    ("first_list", "want_down", "reason"),
    [
        pytest.param(BROKEN, True, "a list that cannot reach the server is a watch down", id="Unreachable"),
        pytest.param(
            _api.NoKindMatch('no matches for kind "ConfigMap" in version "v1"', status=404),
            False,
            "a kind not served (a CRD not installed) is the objects' problem, not a lost connection",
            id="KindNotServed",
        ),
        pytest.param(None, False, "an informer still making its first list is not down", id="Starting"),
    ],
)
async def test_what_counts_as_down(first_list: Exception | None, want_down: bool, reason: str) -> None:
    api = ScriptedApi([first_list] if first_list is not None else [], [])
    if first_list is None:
        api.list = lambda *a, **k: asyncio.Event().wait()  # type: ignore[assignment,method-assign]  # never answers
    factory = _informer.InformerFactory(api, clock=FakeClock())  # type: ignore[arg-type]
    informer = factory.informer("v1", "ConfigMap")
    await settle()
    assert informer.down is want_down, reason
    assert factory.healthy() is not want_down, reason
    assert bool(factory.problems()) is want_down, reason
    await factory.stop()


@pytest.mark.parametrize(
    ("first_list", "want_synced", "reason"),
    [
        pytest.param(([obj("a", "1")], "5"), True, "the first list loads: the cache answers", id="Loaded"),
        pytest.param(
            _api.NoKindMatch('no matches for kind "ConfigMap" in version "v1"', status=404),
            False,
            "a kind not served never loads: the reader goes live without waiting the bound out",
            id="KindNotServed",
        ),
        pytest.param(BROKEN, False, "a list that cannot reach the server: read live", id="Unreachable"),
        pytest.param(None, False, "a first list slower than the bound: read live", id="Slow"),
    ],
)
async def test_synced_within_waits_for_the_first_list_only(
    first_list: tuple[list[Object], str] | Exception | None, want_synced: bool, reason: str
) -> None:
    api = ScriptedApi([first_list] if first_list is not None else [], [])
    if first_list is None:
        api.list = lambda *a, **k: asyncio.Event().wait()  # type: ignore[assignment,method-assign]  # never answers
    factory = _informer.InformerFactory(api, clock=FakeClock())  # type: ignore[arg-type]
    informer = factory.acquire("v1", "ConfigMap", "composite/x")
    bound = 0.05 if first_list is None else 3600.0  # only the slow case may reach its bound
    assert await asyncio.wait_for(informer.synced_within(bound), 10) is want_synced, reason
    assert await informer.synced_within(bound) is want_synced, f"asked again: {reason}"
    await factory.stop()


async def test_synced_within_ends_when_the_informer_stops() -> None:
    """A reader waiting for a first list that will never come (its informer released and stopped
    meanwhile) reads live at once, not after the bound; a restarted informer is waited for again."""
    api = ScriptedApi([], [])
    api.list = lambda *a, **k: asyncio.Event().wait()  # type: ignore[assignment,method-assign]  # never answers
    factory = _informer.InformerFactory(api, clock=FakeClock())  # type: ignore[arg-type]
    informer = factory.acquire("v1", "ConfigMap", "composite/x")
    waiting = asyncio.create_task(informer.synced_within(3600.0))
    await settle()
    assert not waiting.done(), "the first list is awaited"
    await informer.stop()
    assert await asyncio.wait_for(waiting, 10) is False, "stopped: read live"
    informer.start()
    again = asyncio.create_task(informer.synced_within(3600.0))
    await settle()
    assert not again.done(), "restarted: its first list is awaited again"
    again.cancel()
    await factory.stop()


async def test_handlers_replay_and_survive_failures() -> None:
    """A late handler gets the cache as ADDED; a raising handler does not stop the others or the informer."""
    api = ScriptedApi(
        [([obj("a", "1", team="red"), obj("b", "2", "other")], "5")],
        [[event("MODIFIED", obj("a", "6", team="blue"))]],
    )

    def broken(event_type: str, o: Object, old: Object | None) -> None:
        raise RuntimeError("handler bug")

    informer = _informer.Informer(api, "v1", "ConfigMap", clock=FakeClock())  # type: ignore[arg-type]
    early = Recorded()
    informer.add_handler(broken)
    informer.add_handler(early)
    informer.start()
    await asyncio.wait_for(api.idle.wait(), 2)
    assert early.events == ["ADDED a -->1", "ADDED b -->2", "MODIFIED a 1->6"], (
        "a failing handler stops nothing"
    )
    late = Recorded()
    informer.add_handler(late)
    assert late.events == ["ADDED a -->6", "ADDED b -->2"], "a late handler gets the cache replayed as ADDED"
    assert [o["metadata"]["name"] for o in informer.list(namespace="other")] == ["b"]
    assert [o["metadata"]["name"] for o in informer.list(labels={"team": "blue"})] == ["a"]
    assert informer.get("b", "other") is not None and informer.get("b") is None
    await informer.stop()


async def test_factory_shares_one_informer_per_kind() -> None:
    api = ScriptedApi([([], "1")], [])
    factory = _informer.InformerFactory(api, clock=FakeClock())  # type: ignore[arg-type]
    first = factory.informer("v1", "ConfigMap")
    assert factory.informer("v1", "ConfigMap") is first
    await first.wait_synced()
    assert factory.kinds() == [("v1", "ConfigMap")]
    await factory.stop_informer("v1", "ConfigMap")
    assert factory.kinds() == []
    await factory.stop()


@pytest.mark.parametrize(
    ("reason", "steps", "want_running", "want_standing"),
    [
        pytest.param("a holder's watch runs while it is held", [("acquire", "a")], True, False, id="Held"),
        pytest.param(
            "released by its only holder, it stops",
            [("acquire", "a"), ("release", "a")],
            False,
            False,
            id="Released",
        ),
        pytest.param(
            "two holders: one release leaves it running",
            [("acquire", "a"), ("acquire", "b"), ("release", "a")],
            True,
            False,
            id="SharedByHolders",
        ),
        pytest.param(
            "a standing need outlives every holder",
            [("informer", ""), ("acquire", "a"), ("release", "a")],
            True,
            True,
            id="StandingOutlivesHolder",
        ),
        pytest.param(
            "a holder outlives the standing need (an XR kind composed by another XRD's XRs)",
            [("acquire", "a"), ("informer", ""), ("stop_informer", "")],
            True,
            False,
            id="HolderOutlivesStanding",
        ),
    ],
)
async def test_factory_holds_and_releases(
    reason: str, steps: list[tuple[str, str]], want_running: bool, want_standing: bool
) -> None:
    """A dependency watch lives while some holder needs it; only standing informers count for readiness."""
    api = ScriptedApi([([], "1")] * 3, [])
    factory = _informer.InformerFactory(api, clock=FakeClock())  # type: ignore[arg-type]
    for verb, holder in steps:
        if verb == "acquire":
            factory.acquire("v1", "ConfigMap", holder)
        elif verb == "release":
            factory.release("v1", "ConfigMap", holder)
        elif verb == "informer":
            factory.informer("v1", "ConfigMap")
        else:
            await factory.stop_informer("v1", "ConfigMap")
    assert (factory.running("v1", "ConfigMap") is not None) is want_running, reason
    assert (factory.standing() == [("v1", "ConfigMap")]) is want_standing, reason
    await factory.stop()


async def test_a_held_watch_that_never_syncs_does_not_count_for_readiness() -> None:
    """A kind one XR's requirement watches, which cannot be listed, is no readiness problem."""
    api = ScriptedApi([_api.Forbidden("configmaps is forbidden", status=403)] * 50, [])
    factory = _informer.InformerFactory(api, clock=FakeClock())  # type: ignore[arg-type]
    informer = factory.acquire("v1", "ConfigMap", "composite/x")
    for _ in range(20):
        if informer.down:
            break
        await asyncio.sleep(0)
    assert informer.down, "the watch is down"
    assert factory.problems() == [] and factory.standing() == [], "but it is not a standing informer"
    await factory.stop()


# -- against the real API server -------------------------------------------------------------------


def configmap(name: str, namespace: str, value: str) -> Object:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace},
        "data": {"value": value},
    }


async def wait_for(condition: Any, timeout: float = 30.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.05)


@pytest.fixture
async def namespace(kube: _kube.KubeApi) -> str:
    name = f"h1-inf-{uuid.uuid4().hex[:8]}"
    await kube.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
    return name


def names(recorded: Recorded) -> list[str]:
    return [" ".join(e.split()[:2]) for e in recorded.events]


@pytest.mark.cluster
async def test_informer_follows_the_api_server(kube: _kube.KubeApi, namespace: str) -> None:
    await kube.create(configmap("before", namespace, "1"))
    informer = _informer.Informer(kube, "v1", "ConfigMap", namespace)
    recorded = Recorded()
    informer.add_handler(recorded)
    informer.start()
    await asyncio.wait_for(informer.wait_synced(), 10)
    await kube.apply(configmap("new", namespace, "1"), field_manager="test")
    await kube.apply(configmap("new", namespace, "2"), field_manager="test")
    await kube.delete("v1", "ConfigMap", "before", namespace)
    await wait_for(lambda: len(recorded.events) >= 4)
    assert names(recorded) == ["ADDED before", "ADDED new", "MODIFIED new", "DELETED before"]
    assert (informer.get("new", namespace) or {})["data"] == {"value": "2"}
    assert informer.get("before", namespace) is None
    await informer.stop()


@pytest.mark.cluster
@pytest.mark.slow
async def test_informer_recovers_from_an_api_server_restart(
    envtest: envtest_module.Environment, namespace: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The watch breaks and the server comes back with a new watch cache: the informer resumes
    (relisting if its version is Gone) within the backoff's cap and delivers what changed while it
    was not watching; the outage is one warning and one "resumed", and the factory is healthy again."""
    writer = _kube.KubeApi.from_kubeconfig(envtest.kubeconfig)
    watcher = _kube.KubeApi.from_kubeconfig(envtest.kubeconfig)
    await writer.create(configmap("kept", namespace, "old"))
    await writer.create(configmap("dropped", namespace, "x"))
    factory = _informer.InformerFactory(watcher)
    informer = factory.informer("v1", "ConfigMap")  # cluster-wide: other namespaces' are not recorded
    recorded = Recorded()
    informer.add_handler(
        lambda t, o, old: recorded(t, o, old) if o["metadata"]["namespace"] == namespace else None
    )
    await asyncio.wait_for(informer.wait_synced(), 10)
    stale_version = informer.resource_version
    await writer.create(configmap("later", namespace, "1"))  # moves the server past stale_version
    await wait_for(lambda: informer.get("later", namespace) is not None)

    with caplog.at_level(logging.DEBUG, logger="crossfn.controller.informer"):
        await asyncio.to_thread(envtest.stop_apiserver)
        await wait_for(lambda: informer.down)
        assert not factory.healthy() and factory.problems()[0].startswith("v1 ConfigMap: ")
        await asyncio.to_thread(envtest.start_apiserver)
        back = asyncio.get_running_loop().time()
        # Made as soon as the server is back, while the informer is still reconnecting.
        await writer.apply(configmap("kept", namespace, "new"), field_manager="test")
        await writer.delete("v1", "ConfigMap", "dropped", namespace)

        await wait_for(lambda: (informer.get("kept", namespace) or {}).get("data") == {"value": "new"})
        await wait_for(lambda: informer.get("dropped", namespace) is None)
        caught_up = asyncio.get_running_loop().time() - back
    assert caught_up < _informer.RETRY_MAX + 3, f"caught up {caught_up:.1f}s after the server came back"
    assert factory.healthy() and factory.problems() == []
    levels = [r.levelname for r in caplog.records if "cannot watch" in r.getMessage()]
    assert levels[:1] == ["WARNING"] and set(levels[1:]) <= {"DEBUG"}, "one warning per outage"
    assert [r.levelname for r in caplog.records if "resumed" in r.getMessage()] == ["INFO"]
    assert names(recorded)[3:] == ["MODIFIED kept", "DELETED dropped"] or sorted(names(recorded)[3:]) == [
        "DELETED dropped",
        "MODIFIED kept",
    ]
    await factory.stop()

    # A resourceVersion from before the restart and the writes is Gone now: a watch from it relists.
    stale = _informer.Informer(watcher, "v1", "ConfigMap", namespace)
    stale.resource_version = stale_version
    stale.start()
    await asyncio.wait_for(stale.wait_synced(), 10)
    assert stale.relists == 1, "a Gone watch is followed by exactly one list"
    assert (stale.get("kept", namespace) or {}).get("data") == {"value": "new"}
    await stale.stop()
    await writer.close()
    await watcher.close()
