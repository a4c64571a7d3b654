"""Composed applies the API server would make no-ops are not sent (``_compose_io``'s module docstring).

The informers here are views of the in-memory API server, so the cache always
holds what the server holds, as a synced informer does once it has seen the
events.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import pytest

from crossfn import engine
from crossfn.controller.composite import _compose_io, _composite
from crossfn.controller.kube import _api
from crossfn.controller.runtime import _informer

from . import composite_fixtures as fx
from .fake_api import FakeApi


class ApiCache:
    """One kind of the fake API server, seen through the ``Cache`` protocol."""

    def __init__(self, api: FakeApi, api_version: str, kind: str) -> None:
        self._api, self._api_version, self._kind = api, api_version, kind

    @property
    def synced(self) -> bool:
        return True

    async def wait_synced(self) -> None:
        return None

    async def synced_within(self, seconds: float) -> bool:
        return True

    def _objects(self) -> dict[tuple[str, str], dict[str, Any]]:
        return {
            (ns, name): o
            for (av, k, ns, name), o in self._api.objects.items()
            if (av, k) == (self._api_version, self._kind)
        }

    def get(self, name: str, namespace: str = "") -> dict[str, Any] | None:
        return self._objects().get((namespace, name))

    def list(
        self, namespace: str | None = None, labels: Mapping[str, str] | None = None
    ) -> list[dict[str, Any]]:
        found = [o for (ns, _), o in sorted(self._objects().items()) if namespace is None or ns == namespace]
        return [
            o
            for o in found
            if all(((o["metadata"].get("labels") or {}).get(k)) == v for k, v in (labels or {}).items())
        ]

    def add_handler(self, fn: _informer.Handler) -> None:
        return None

    def remove_handler(self, fn: _informer.Handler) -> None:
        return None


class ApiInformers:
    """Informers over the fake API server; ``unwatched`` kinds are not served, as if no one watched them."""

    def __init__(self, api: FakeApi, unwatched: tuple[tuple[str, str], ...] = ()) -> None:
        self._api = api
        self._unwatched = unwatched
        self.caches: dict[tuple[str, str], ApiCache] = {}

    def informer(self, api_version: str, kind: str) -> ApiCache:
        return self.caches.setdefault((api_version, kind), ApiCache(self._api, api_version, kind))

    def kinds(self) -> list[tuple[str, str]]:
        return [k for k in self.caches if k not in self._unwatched]

    def running(self, api_version: str, kind: str) -> ApiCache | None:
        return None if (api_version, kind) in self._unwatched else self.caches.get((api_version, kind))

    def acquire(self, api_version: str, kind: str, holder: str) -> ApiCache:
        return self.informer(api_version, kind)

    def release(self, api_version: str, kind: str, holder: str) -> None:
        return None


CONFIGMAP = ("v1", "ConfigMap")


def reconciler(api: FakeApi, informers: ApiInformers) -> _composite.CompositeReconciler:
    informers.informer(*CONFIGMAP)
    runner = engine.build_runner(engine.InProcessRunner({"fn": fx.two_configmaps}))
    return _composite.CompositeReconciler(
        api, informers, fx.Events(), runner, engine.Sources(), xrd=fx.xrd(),
        settings=_composite.CompositeSettings(realtime=False), clock=lambda: fx.T0,
    )  # fmt: skip


def composed(api: FakeApi, resource: str) -> dict[str, Any]:
    [found] = [
        o
        for o in api.of_kind("ConfigMap")
        if o["metadata"]["annotations"]["crossplane.io/composition-resource-name"] == resource
    ]
    return found


async def change_a_by_hand(api: FakeApi, informers: ApiInformers) -> None:
    meta = composed(api, "a")["metadata"]
    await api.patch("v1", "ConfigMap", meta["name"], meta["namespace"], {"data": {"size": "edited"}})


async def change_a_label_by_hand(api: FakeApi, informers: ApiInformers) -> None:
    meta = composed(api, "a")["metadata"]
    await api.patch(
        "v1", "ConfigMap", meta["name"], meta["namespace"], {"metadata": {"labels": {"team": "x"}}}
    )


async def change_the_xr(api: FakeApi, informers: ApiInformers) -> None:
    await api.patch(fx.XR_API, "XBucket", "b", "team", {"spec": {"size": "m"}})


async def change_b_and_back(api: FakeApi, informers: ApiInformers) -> None:
    meta = composed(api, "b")["metadata"]
    await api.patch("v1", "ConfigMap", meta["name"], meta["namespace"], {"data": {"size": "edited"}})
    await api.patch("v1", "ConfigMap", meta["name"], meta["namespace"], {"data": {"size": "s"}})


async def nothing(api: FakeApi, informers: ApiInformers) -> None:
    return None


@dataclasses.dataclass(frozen=True)
class SkipCase:
    id: str
    reason: str
    between: Callable[[FakeApi, ApiInformers], Awaitable[None]]
    want_applied: list[str]
    unwatched: tuple[tuple[str, str], ...] = ()


SKIPS = [
    SkipCase(
        "Unchanged",
        "the same desired objects, untouched since the last apply, are not applied again",
        nothing,
        [],
    ),
    SkipCase(
        "ChangedBySomeoneElse",
        "an object someone else changed is applied again (and only that one)",
        change_a_by_hand,
        ["a"],
    ),
    SkipCase(
        "MetadataChangedBySomeoneElse",
        "any change moves the resourceVersion: applied again",
        change_a_label_by_hand,
        ["a"],
    ),
    SkipCase(
        "ChangedAndChangedBack",
        "a change undone is still a change: the resourceVersion moved",
        change_b_and_back,
        ["b"],
    ),
    SkipCase("DesiredChanged", "a changed desired object is applied", change_the_xr, ["a", "b"]),
    SkipCase(
        "KindNotWatched",
        "without a cache nothing tells a change: always applied",
        nothing,
        ["a", "b"],
        (CONFIGMAP,),
    ),
]


@pytest.mark.parametrize("case", SKIPS, ids=lambda c: c.id)
async def test_skips_only_applies_the_server_would_not_act_on(case: SkipCase) -> None:
    api, _, _ = fx.setup()
    informers = ApiInformers(api, case.unwatched)
    xr_reconciler = reconciler(api, informers)
    api.put(fx.xr())
    await xr_reconciler.reconcile("team/b")
    await xr_reconciler.reconcile("team/b")  # settles the XR's refs and status
    await case.between(api, informers)
    api.calls.clear()
    await xr_reconciler.reconcile("team/b")
    names = {composed(api, r)["metadata"]["name"]: r for r in ("a", "b")}
    applied = sorted(
        names[name] for verb, kind, name in api.writes() if (verb, kind) == ("apply", "ConfigMap")
    )
    assert applied == case.want_applied, case.reason
    if case.id == "ChangedBySomeoneElse":
        assert composed(api, "a")["data"] == {"size": "s"}, (
            "the re-apply takes the field back, as Crossplane's would"
        )


async def test_a_compose_reads_cached_objects_without_changing_them() -> None:
    """The observed resources are the cache's own objects (not copied): nothing a reconcile does may change
    them, or every later reader of the cache would see the change."""
    api, _, _ = fx.setup()
    informers = ApiInformers(api)
    xr_reconciler = reconciler(api, informers)
    api.put(fx.xr())
    await xr_reconciler.reconcile("team/b")  # creates them; the next ones observe them
    cached = {r: composed(api, r) for r in ("a", "b")}
    before = copy.deepcopy(cached)
    api.calls.clear()
    await xr_reconciler.reconcile("team/b")
    await xr_reconciler.reconcile("team/b")
    assert not [w for w in api.writes() if w[1] == "ConfigMap"], "nothing to apply: the cached objects stay"
    assert {r: composed(api, r) for r in ("a", "b")} == before
    assert all(composed(api, r) is cached[r] for r in ("a", "b")), "the very objects the cache held"


async def test_a_refused_apply_is_not_remembered() -> None:
    api, _, _ = fx.setup()
    informers = ApiInformers(api)
    xr_reconciler = reconciler(api, informers)
    api.put(fx.xr())
    await xr_reconciler.reconcile("team/b")
    await change_the_xr(api, informers)
    api.fail("apply", "ConfigMap", _api.Invalid("bad", status=422))
    await xr_reconciler.reconcile("team/b")
    api.heal()
    api.calls.clear()
    await xr_reconciler.reconcile("team/b")
    assert [v for v, k, _ in api.writes() if k == "ConfigMap"] == ["apply", "apply"], (
        "objects the server refused are applied again on the next reconcile, though their desired state is unchanged"
    )
    assert {c["data"]["size"] for c in api.of_kind("ConfigMap")} == {"m"}


async def test_memory_follows_the_xrs() -> None:
    api, _, _ = fx.setup()
    informers = ApiInformers(api)
    xr_reconciler = reconciler(api, informers)
    io: _compose_io.ComposeIO = xr_reconciler._io
    api.put(fx.xr())
    api.put(fx.xr("c"))
    await xr_reconciler.reconcile("team/b")
    await xr_reconciler.reconcile("team/c")
    assert len(io.applied) == 4, "two composed resources remembered for each of two XRs"
    await api.delete(fx.XR_API, "XBucket", "c", "team")
    await xr_reconciler.reconcile("team/c")
    assert len(io.applied) == 2, "an XR being deleted is forgotten"
    api.objects.clear()
    await xr_reconciler.reconcile("team/b")
    assert len(io.applied) == 0, "an XR that is gone is forgotten"


@pytest.mark.parametrize(
    ("a", "b", "same", "reason"),
    [({"x": 1, "y": {"p": [1, 2]}}, {"y": {"p": [1, 2]}, "x": 1}, True, "key order does not matter"),
     ({"x": [1, 2]}, {"x": [2, 1]}, False, "list order does"),
     ({"x": "1"}, {"x": 1}, False, "types do")],
    ids=["KeyOrder", "ListOrder", "Types"],
)  # fmt: skip
def test_digest_is_canonical(a: dict[str, Any], b: dict[str, Any], same: bool, reason: str) -> None:
    assert (_compose_io.digest(a) == _compose_io.digest(b)) is same, reason


def _desire_taken(req: Any, rsp: Any) -> None:
    """Desire one ConfigMap with a fixed name, as a Composition that takes the name from the XR would."""
    from crossfn.sdk import response

    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "taken"}, "data": {"size": "big"}}
    response.set_desired_composed_resource(rsp, "cm", cm)


def _existing(annotations: dict[str, str] | None = None, controller: str | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": "taken", "namespace": "team"}
    if annotations:
        meta["annotations"] = annotations
    if controller:
        meta["ownerReferences"] = [
            {"apiVersion": "v1", "kind": "Team", "name": controller, "uid": controller, "controller": True}
        ]
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": {"size": "platform"}}


@dataclasses.dataclass(frozen=True)
class Adoption:
    name: str
    existing: dict[str, Any] | None
    adopt_existing: bool
    want_size: str
    want_error: str


_NOT_CREATED = (
    'cannot compose resources: refusing to adopt existing composed resource "cm" (a ConfigMap named taken): '
    'the composite resource did not create it (annotate it crossfn.io/adoptable: "true" to let it be adopted)'
)
ADOPTIONS = [
    Adoption("absent: created", None, False, "big", ""),
    Adoption("no controller: refused", _existing(), False, "platform", _NOT_CREATED),
    Adoption("annotated adoptable: adopted", _existing({"crossfn.io/adoptable": "true"}), False, "big", ""),
    Adoption("--adopt-existing-resources: adopted", _existing(), True, "big", ""),
    Adoption(
        "another controller: refused, even with the flag", _existing(controller="platform"), True, "platform",
        'cannot compose resources: refusing to adopt existing composed resource "cm" (a ConfigMap named taken): '
        'it is controlled by Team "platform"',
    ),
]  # fmt: skip


@pytest.mark.parametrize("case", ADOPTIONS, ids=[c.name for c in ADOPTIONS])
async def test_an_existing_object_is_adopted_only_when_allowed(case: Adoption) -> None:
    """Before any write of the reconcile: an existing object the XR did not create is refused unless it is
    annotated adoptable or the flag restores Crossplane's adoption; another controller's never."""
    api, _, _ = fx.setup()
    informers = ApiInformers(api)
    informers.informer(*CONFIGMAP)
    runner = engine.build_runner(engine.InProcessRunner({"fn": _desire_taken}))
    xr_reconciler = _composite.CompositeReconciler(
        api, informers, fx.Events(), runner, engine.Sources(), xrd=fx.xrd(),
        settings=_composite.CompositeSettings(realtime=False, adopt_existing=case.adopt_existing),
        clock=lambda: fx.T0,
    )  # fmt: skip
    if case.existing is not None:
        api.put(case.existing)
    api.put(fx.xr())
    if case.want_error:
        with pytest.raises(Exception, match="refusing to adopt"):
            await xr_reconciler.reconcile("team/b")
        xr = await api.get(fx.XR_API, "XBucket", "b", "team")
        assert xr is not None
        synced = next(c for c in xr["status"]["conditions"] if c["type"] == "Synced")
        assert synced["message"] == case.want_error
        assert not [w for w in api.writes() if w[1] == "ConfigMap"], "nothing applied"
    else:
        await xr_reconciler.reconcile("team/b")
    cm = await api.get("v1", "ConfigMap", "taken", "team")
    assert cm is not None and cm["data"]["size"] == case.want_size


@pytest.mark.parametrize(
    ("unwatched", "started", "realtime", "want_gets", "reason"),
    [
        pytest.param((), True, False, [], "a watched kind's cache answers, a miss included: no GET per new object", id="watched"),
        pytest.param((CONFIGMAP,), True, False, [("get", "ConfigMap", "taken")], "an unwatched kind is read live", id="unwatched"),
        pytest.param((), False, False, [("get", "ConfigMap", "taken")], "no watch starts without realtime compositions: live", id="not-started"),
        pytest.param(
            (), False, True, [],
            "realtime: the first read of a kind watches it and waits for its list, as controller-runtime's cached client",
            id="started-by-the-read",
        ),
    ],
)  # fmt: skip
async def test_the_ownership_check_reads_the_cache_of_a_watched_kind(
    unwatched: tuple[tuple[str, str], ...],
    started: bool,
    realtime: bool,
    want_gets: list[tuple[str, str, str]],
    reason: str,
) -> None:
    api, _, _ = fx.setup()
    informers = ApiInformers(api, unwatched)
    if started:
        informers.informer(*CONFIGMAP)
    runner = engine.build_runner(engine.InProcessRunner({"fn": _desire_taken}))
    xr_reconciler = _composite.CompositeReconciler(
        api, informers, fx.Events(), runner, engine.Sources(), xrd=fx.xrd(),
        settings=_composite.CompositeSettings(realtime=realtime), clock=lambda: fx.T0,
    )  # fmt: skip
    api.put(fx.xr())
    api.calls.clear()
    await xr_reconciler.reconcile("team/b")
    assert [c for c in api.calls if c[:2] == ("get", "ConfigMap")] == want_gets, reason
    assert (CONFIGMAP in informers.caches) is (started or realtime), "watched when started, or by the read"
    cm = await api.get("v1", "ConfigMap", "taken", "team")
    assert cm is not None and cm["data"]["size"] == "big", "created either way"


def _revision(function: str = "fn", mode: str = "Pipeline") -> dict[str, Any]:
    spec: dict[str, Any] = {
        "mode": mode,
        "pipeline": [{"step": "s", "functionRef": {"name": function}, "input": {"a": 1}}],
    }
    return {
        "apiVersion": "apiextensions.crossplane.io/v1",
        "kind": "CompositionRevision",
        "metadata": {"name": "r"},
        "spec": spec,
    }


def test_a_revision_object_is_parsed_once() -> None:
    """The informer replaces a revision it caches and never changes one: its steps are parsed once per object."""
    io = _compose_io.ComposeIO(FakeApi(), None)
    rev = _revision()
    steps, legacy = io._pipeline(rev)
    assert not legacy and [s.function_ref for s in steps] == ["fn"]
    again, _ = io._pipeline(rev)
    assert again is steps and again[0] is steps[0], (
        "the same object: the same steps, its input converted once"
    )
    fresh = _revision("other")
    assert [s.function_ref for s in io._pipeline(fresh)[0]] == ["other"], (
        "a revision read anew is parsed anew"
    )
    assert io._pipeline(copy.deepcopy(rev))[0] is not steps, "an equal but new object is parsed again"


def test_a_revision_that_fails_to_parse_is_not_kept() -> None:
    io = _compose_io.ComposeIO(FakeApi(), None)
    bad = _revision(mode="Unknown")
    for _ in range(2):
        with pytest.raises(_compose_io.ComposeFailed, match="unsupported composition mode"):
            io._pipeline(bad)


def test_parsed_revisions_are_bounded() -> None:
    io = _compose_io.ComposeIO(FakeApi(), None)
    revisions = [_revision(f"fn-{i}") for i in range(_compose_io._PARSED_REVISIONS + 1)]
    for rev in revisions:
        io._pipeline(rev)
    assert len(io._parsed) <= _compose_io._PARSED_REVISIONS, "at most so many revisions are held"
    assert [s.function_ref for s in io._pipeline(revisions[0])[0]] == ["fn-0"], (
        "a dropped one is parsed again"
    )
