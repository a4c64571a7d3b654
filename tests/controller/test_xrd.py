"""The XRD controller: CRDs, finalizers, conditions, events and XR controllers, as Crossplane's
upstream controllers-1 and controllers-2.1."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import dataclasses
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from crossfn import errors
from crossfn.controller.crds import _crds
from crossfn.controller.definition import _xrd
from crossfn.controller.kube import _api
from crossfn.schemas import xrd as xrd_schemas

from . import definition_fakes as fakes
from .fake_api import FakeApi

TESTDATA = Path(__file__).parent / "testdata" / "crossplane"
XRD = (_xrd.XRD_API_VERSION, _xrd.XRD_KIND)
CRD = (_crds.CRD_API_VERSION, _crds.CRD_KIND)


def _load(name: str) -> dict[str, Any]:
    doc: dict[str, Any] = yaml.safe_load((TESTDATA / name).read_text())
    return doc


def _stored(doc: dict[str, Any]) -> dict[str, Any]:
    """The XRD as the controller reads it: at v1 (the storage version), its scope defaulted."""
    out = copy.deepcopy(doc)
    out["spec"].setdefault("scope", "LegacyCluster" if doc["apiVersion"].endswith("/v1") else "Namespaced")
    out["apiVersion"] = _xrd.XRD_API_VERSION
    return out


ESTABLISHED = [{"type": "Established", "status": "True"}]


class _Server(FakeApi):
    """A fake API server whose CRDs get ``crd_conditions`` on apply (Established, unless told otherwise)."""

    def __init__(self, *, crd_conditions: list[dict[str, str]] | None = ESTABLISHED) -> None:
        super().__init__(scopes={XRD: False, CRD: False, ("example.crossplane.io/v1", "App"): True})
        self.crd_conditions = crd_conditions

    async def apply(
        self, obj: Mapping[str, Any], *, field_manager: str, force: bool = True, status: bool = False
    ) -> dict[str, Any]:
        before = copy.deepcopy(self.objects.get(self._obj_key(obj)))
        out = await super().apply(obj, field_manager=field_manager, force=force, status=status)
        if before is not None and _same(before, self.objects[self._obj_key(obj)]):
            # As the real server, an apply that changes nothing keeps the resourceVersion.
            self.objects[self._obj_key(obj)] = before
            return copy.deepcopy(before)
        if obj.get("kind") == _crds.CRD_KIND and self.crd_conditions is not None:
            self.objects[self._obj_key(obj)]["status"] = {"conditions": copy.deepcopy(self.crd_conditions)}
            out["status"] = copy.deepcopy(self.objects[self._obj_key(obj)]["status"])
        return out


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    def strip(o: dict[str, Any]) -> dict[str, Any]:
        meta = {k: v for k, v in o["metadata"].items() if k not in ("resourceVersion", "generation")}
        return {**o, "metadata": meta}

    return strip(a) == strip(b)


def _reconciler(
    api: FakeApi, xr: fakes.XrControllers | None = None
) -> tuple[_xrd.XrdReconciler, fakes.Events]:
    events = fakes.Events()
    r = _xrd.XrdReconciler(
        api, fakes.factory(fakes.Informers()), events, xr or fakes.XrControllers(), clock=fakes.clock
    )
    return r, events


def _conditions(obj: Mapping[str, Any]) -> dict[str, tuple[str, str, str]]:
    return {
        c["type"]: (c["status"], c["reason"], c.get("message", ""))
        for c in (obj.get("status") or {}).get("conditions") or ()
    }


@dataclasses.dataclass(frozen=True)
class Established:
    """What an established XRD looks like: its CRDs (name: scope), finalizers, conditions, controllers."""

    crds: dict[str, str]
    finalizers: list[str]
    conditions: dict[str, tuple[str, str, str]]
    controllers: dict[str, Any]


@pytest.mark.parametrize(
    ("reason", "doc", "want"),
    [
        pytest.param(
            "a v2 namespaced XRD gets its namespaced XR CRD and Established",
            "xrd-v2-namespaced.yaml",
            Established(
                {"apps.example.crossplane.io": "Namespaced"},
                [_xrd.FINALIZER_DEFINED],
                {
                    "Established": ("True", "WatchingCompositeResource", ""),
                    "Synced": ("True", "ReconcileSuccess", ""),
                },
                {"compositeResourceType": {"apiVersion": "example.crossplane.io/v1", "kind": "App"}},
            ),
            id="V2Namespaced",
        ),
        pytest.param(
            "a v2 cluster XRD gets a cluster-scoped XR CRD",
            "xrd-v2-cluster.yaml",
            Established(
                {"xnetworks.example.crossplane.io": "Cluster"},
                [_xrd.FINALIZER_DEFINED],
                {
                    "Established": ("True", "WatchingCompositeResource", ""),
                    "Synced": ("True", "ReconcileSuccess", ""),
                },
                {
                    "compositeResourceType": {
                        "apiVersion": "example.crossplane.io/v1beta1",
                        "kind": "XNetwork",
                    }
                },
            ),
            id="V2Cluster",
        ),
        pytest.param(
            "a v1 XRD with claimNames also offers its claim",
            "xrd-v1-claims.yaml",
            Established(
                {
                    "xpostgresqlinstances.database.example.org": "Cluster",
                    "postgresqlinstances.database.example.org": "Namespaced",
                },
                [_xrd.FINALIZER_DEFINED, _xrd.FINALIZER_OFFERED],
                {
                    "Established": ("True", "WatchingCompositeResource", ""),
                    "Offered": ("True", "WatchingCompositeResourceClaim", ""),
                    "Synced": ("True", "ReconcileSuccess", ""),
                },
                {
                    "compositeResourceType": {
                        "apiVersion": "database.example.org/v1alpha1",
                        "kind": "XPostgreSQLInstance",
                    },
                    "compositeResourceClaimType": {
                        "apiVersion": "database.example.org/v1alpha1",
                        "kind": "PostgreSQLInstance",
                    },
                },
            ),
            id="V1WithClaims",
        ),
    ],
)
async def test_establish(reason: str, doc: str, want: Established) -> None:
    crds, finalizers, conditions, controllers = want.crds, want.finalizers, want.conditions, want.controllers
    api = _Server()
    xrd = api.put(_stored(_load(doc)))
    name = xrd["metadata"]["name"]
    xr = fakes.XrControllers()
    r, events = _reconciler(api, xr)
    assert (await r.reconcile(name)).requeue_after is None, reason
    got = api.objects[(*XRD, "", name)]
    assert got["metadata"]["finalizers"] == finalizers, reason
    assert _conditions(got) == conditions, reason
    assert got["status"]["controllers"] == controllers, reason
    assert all(c["observedGeneration"] == 1 for c in got["status"]["conditions"]), reason
    applied = {c["metadata"]["name"]: c for c in api.of_kind(_crds.CRD_KIND)}
    assert {n: c["spec"]["scope"] for n, c in applied.items()} == crds, reason
    for crd in applied.values():
        owner = crd["metadata"]["ownerReferences"]
        assert owner == [
            {
                "apiVersion": _xrd.XRD_API_VERSION,
                "kind": _xrd.XRD_KIND,
                "name": name,
                "uid": xrd["metadata"]["uid"],
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ], reason
    assert xr.calls == [("start", name)], reason
    nouns = {"xrd-v1-claims.yaml": ["composite resource", "composite resource claim"]}.get(
        doc, ["composite resource"]
    )
    assert events.recorded == [
        (
            name,
            "Normal",
            "EstablishComposite" if n == "composite resource" else "OfferClaim",
            f"Applied {n} CustomResourceDefinition: {c}",
        )
        for n, c in zip(nouns, crds, strict=True)
    ], reason

    # A second reconcile changes nothing and records nothing new.
    writes, recorded = len(api.writes()), len(events.recorded)
    await r.reconcile(name)
    assert [w for w in api.writes()[writes:] if w[0] != "apply"] == []
    assert len(events.recorded) == recorded
    assert api.objects[(*XRD, "", name)]["status"]["conditions"] == got["status"]["conditions"]


async def test_crd_metadata_comes_from_the_xrd() -> None:
    """The CRD gets the XRD's labels plus spec.metadata's labels and annotations (not the XRD's annotations)."""
    api = _Server()
    doc = _stored(_load("xrd-v2-cluster.yaml"))
    doc["metadata"]["annotations"] = {"not": "copied"}
    api.put(doc)
    r, _ = _reconciler(api)
    await r.reconcile("xnetworks.example.crossplane.io")
    (crd,) = api.of_kind(_crds.CRD_KIND)
    assert crd["metadata"]["labels"] == {"team": "platform", "example.crossplane.io/tier": "infrastructure"}
    assert crd["metadata"]["annotations"] == {"example.crossplane.io/owner": "platform-team"}


INSTALLING = [
    {"type": "NamesAccepted", "status": "True", "reason": "NoConflicts"},
    {
        "type": "Established",
        "status": "False",
        "reason": "Installing",
        "message": "the initial names have been accepted",
    },
]


@pytest.mark.parametrize(
    ("reason", "conditions"),
    [
        pytest.param("a CRD the API server has not looked at yet has no conditions", None, id="NoConditions"),
        pytest.param("a CRD whose names are accepted is being installed", INSTALLING, id="Installing"),
    ],
)
async def test_waits_until_established(reason: str, conditions: list[dict[str, str]] | None) -> None:
    """Until its CRD is Established the XR controller is not started; requeues back off 1, 2, 4 ... 30 s."""
    api = _Server(crd_conditions=conditions)
    api.put(_stored(_load("xrd-v2-namespaced.yaml")))
    xr = fakes.XrControllers()
    r, events = _reconciler(api, xr)
    delays = [(await r.reconcile("apps.example.crossplane.io")).requeue_after for _ in range(8)]
    assert delays == [1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0, 30.0], reason
    assert xr.calls == [], reason
    assert events.recorded[-1] == (
        "apps.example.crossplane.io",
        "Normal",
        "EstablishComposite",
        "waiting for composite resource CustomResourceDefinition to be established",
    ), reason
    assert "Established" not in _conditions(api.objects[(*XRD, "", "apps.example.crossplane.io")]), reason

    # Once Established the wait is over, and a later wait starts again at one second.
    api.of_kind(_crds.CRD_KIND)[0]["status"] = {"conditions": ESTABLISHED}
    assert (await r.reconcile("apps.example.crossplane.io")).requeue_after is None, reason
    assert xr.calls == [("start", "apps.example.crossplane.io")], reason
    api.of_kind(_crds.CRD_KIND)[0]["status"] = {"conditions": conditions or []}
    assert (await r.reconcile("apps.example.crossplane.io")).requeue_after == 1.0, reason


def _without_kind() -> dict[str, Any]:
    doc = _stored(_load("xrd-v2-namespaced.yaml"))
    del doc["spec"]["names"]["kind"]
    return doc


FOREIGN_UID = "00000000-0000-4000-8000-00000000beef"
NAME = "apps.example.crossplane.io"


def _prefix(name: str) -> str:
    return f'cannot render composite resource CustomResourceDefinition: cannot convert XRD "{name}": '


OPENAPI = "spec.versions[0].schema.openAPIV3Schema"


def _edited(edit: Any) -> dict[str, Any]:
    """The namespaced example XRD, changed by ``edit(spec)``."""
    doc = _stored(_load("xrd-v2-namespaced.yaml"))
    edit(doc["spec"])
    return doc


def _set_spec_schema(value: Any) -> Any:
    def edit(spec: dict[str, Any]) -> None:
        spec["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"] = value

    return edit


def _second_version(referenceable: bool, name: str = "v2") -> Any:
    def edit(spec: dict[str, Any]) -> None:
        spec["versions"].append(
            {**copy.deepcopy(spec["versions"][0]), "name": name, "referenceable": referenceable}
        )

    return edit


def _no_referenceable(spec: dict[str, Any]) -> None:
    spec["versions"][0]["referenceable"] = False


REFUSED_XRDS = [
    pytest.param(
        "a spec schema that is not a schema does not parse (Crossplane: cannot parse validation schema)",
        _set_spec_schema("a string"),
        f'cannot parse validation schema: {OPENAPI}.properties[spec]: Invalid value: "a string": '
        "must be a schema (an object)",
        id="SpecNotASchema",
    ),
    pytest.param(
        "a nested keyword of the wrong type does not parse either",
        _set_spec_schema({"type": "object", "properties": {"size": {"type": "integer", "minimum": "one"}}}),
        f"cannot parse validation schema: {OPENAPI}.properties[spec].properties[size].minimum: "
        'Invalid value: "one": must be a number',
        id="NestedKeywordWrongType",
    ),
    pytest.param(
        "a spec of another type than object is refused, not silently made an object",
        _set_spec_schema({"type": "array", "items": {"type": "string"}}),
        f'{OPENAPI}.properties[spec].type: Unsupported value: "array": supported values: "object"',
        id="SpecArray",
    ),
    pytest.param(
        "two referenceable versions are refused in plain words",
        _second_version(referenceable=True),
        'spec.versions: exactly one version must be marked as referenceable, found "v1", "v2"',
        id="TwoReferenceable",
    ),
    pytest.param(
        "no referenceable version is refused in plain words",
        _no_referenceable,
        "spec.versions: exactly one version must be marked as referenceable, found none",
        id="NoReferenceable",
    ),
    pytest.param(
        "a version name used twice is refused",
        _second_version(referenceable=False, name="v1"),
        'spec.versions[1].name: Duplicate value: "v1"',
        id="DuplicateVersion",
    ),
]


@pytest.mark.parametrize(("reason", "edit", "problem"), REFUSED_XRDS)
async def test_refuses_xrds_that_cannot_be_served(reason: str, edit: Any, problem: str) -> None:
    """A bad XRD is refused before any CRD is applied: one Warning RenderCRD naming the XRD and field, Synced=False."""
    want = _prefix(NAME) + problem
    api = _Server()
    api.put(_edited(edit))
    xr = fakes.XrControllers()
    r, events = _reconciler(api, xr)
    with pytest.raises(errors.CrossfnError) as info:
        await r.reconcile(NAME)
    assert str(info.value) == want, reason
    assert events.recorded == [(NAME, "Warning", "RenderCRD", want)], reason
    got = api.objects[(*XRD, "", NAME)]
    assert _conditions(got) == {"Synced": ("False", "ReconcileError", want)}, reason
    assert api.of_kind(_crds.CRD_KIND) == [], reason
    assert "finalizers" not in got["metadata"], reason
    assert xr.calls == [], reason


async def test_a_refused_xrd_can_still_be_deleted() -> None:
    """An established XRD edited into one that cannot be served still deletes: the check comes after deletion's."""
    api = _Server()
    api.put(_stored(_load("xrd-v2-namespaced.yaml")))
    r, _ = _reconciler(api)
    await r.reconcile(NAME)
    _second_version(referenceable=True)(api.objects[(*XRD, "", NAME)]["spec"])
    with pytest.raises(errors.CrossfnError):
        await r.reconcile(NAME)
    await api.delete(*XRD, NAME)
    for _ in range(3):
        await r.reconcile(NAME)
    assert api.of_kind(_xrd.XRD_KIND) == []
    assert api.of_kind(_crds.CRD_KIND) == []


@pytest.mark.parametrize(
    ("reason", "doc", "setup", "want_event"),
    [
        pytest.param(
            "an XRD the CRD cannot be rendered from",
            _without_kind(),
            None,
            (
                "RenderCRD",
                'cannot render composite resource CustomResourceDefinition: cannot convert XRD "apps.example.crossplane.io": '
                "spec.names.kind: Required value",
            ),
            id="RenderFails",
        ),
        pytest.param(
            "a CRD the API server rejects",
            _stored(_load("xrd-v2-namespaced.yaml")),
            lambda api: api.fail(
                "apply",
                _crds.CRD_KIND,
                _api.Invalid(
                    'CustomResourceDefinition.apiextensions.k8s.io "apps.example.crossplane.io" is invalid: bad',
                    status=422,
                ),
            ),
            (
                "EstablishComposite",
                "cannot apply rendered composite resource CustomResourceDefinition: "
                'CustomResourceDefinition.apiextensions.k8s.io "apps.example.crossplane.io" is invalid: bad',
            ),
            id="ApplyRejected",
        ),
        pytest.param(
            "a CRD another object controls",
            _stored(_load("xrd-v2-namespaced.yaml")),
            lambda api: api.put(
                {
                    "apiVersion": _crds.CRD_API_VERSION,
                    "kind": _crds.CRD_KIND,
                    "metadata": {
                        "name": "apps.example.crossplane.io",
                        "ownerReferences": [
                            {
                                "apiVersion": "v1",
                                "kind": "X",
                                "name": "x",
                                "uid": FOREIGN_UID,
                                "controller": True,
                            }
                        ],
                    },
                }
            ),
            (
                "EstablishComposite",
                "cannot apply rendered composite resource CustomResourceDefinition: existing object is not controlled by UID",
            ),
            id="ForeignCrd",
        ),
        pytest.param(
            "a CRD whose names the API server refuses: its conditions' reasons and messages, not an endless wait",
            _stored(_load("xrd-v2-namespaced.yaml")),
            lambda api: setattr(
                api,
                "crd_conditions",
                [
                    {
                        "type": "NamesAccepted",
                        "status": "False",
                        "reason": "ListKindConflict",
                        "message": '"AppList" is already in use',
                    },
                    {
                        "type": "Established",
                        "status": "False",
                        "reason": "NotAccepted",
                        "message": "not all names are accepted",
                    },
                ],
            ),
            (
                "EstablishComposite",
                'cannot establish composite resource CustomResourceDefinition "apps.example.crossplane.io": '
                'NamesAccepted=False (ListKindConflict): "AppList" is already in use; '
                "Established=False (NotAccepted): not all names are accepted",
            ),
            id="NamesRefused",
        ),
    ],
)
async def test_failures(reason: str, doc: dict[str, Any], setup: Any, want_event: tuple[str, str]) -> None:
    """A bad XRD gets a Warning event and Synced=False with the same text; the reconcile raises to back off."""
    api = _Server()
    api.put(doc)
    if setup is not None:
        setup(api)
    xr = fakes.XrControllers()
    r, events = _reconciler(api, xr)
    with pytest.raises(errors.CrossfnError):
        await r.reconcile("apps.example.crossplane.io")
    (_, type_, event_reason, message) = events.recorded[-1]
    assert (type_, event_reason) == ("Warning", want_event[0]), reason
    assert message.startswith(want_event[1]), reason
    synced = _conditions(api.objects[(*XRD, "", "apps.example.crossplane.io")])["Synced"]
    assert synced == ("False", "ReconcileError", message), reason
    assert xr.calls == [], reason


async def test_start_failure() -> None:
    api = _Server()
    api.put(_stored(_load("xrd-v2-namespaced.yaml")))
    r, events = _reconciler(api, fakes.XrControllers(fail_start="no informer"))
    with pytest.raises(errors.CrossfnError):
        await r.reconcile("apps.example.crossplane.io")
    assert events.recorded[-1] == (
        "apps.example.crossplane.io",
        "Warning",
        "EstablishComposite",
        "cannot start composite resource controller: no informer",
    )


async def test_restart_when_the_spec_changed() -> None:
    """An XRD whose generation moved past the Established condition's restarts its XR controller."""
    api = _Server()
    api.put(_stored(_load("xrd-v2-namespaced.yaml")))
    xr = fakes.XrControllers()
    r, events = _reconciler(api, xr)
    await r.reconcile("apps.example.crossplane.io")
    api.objects[(*XRD, "", "apps.example.crossplane.io")]["metadata"]["generation"] = 2
    await r.reconcile("apps.example.crossplane.io")
    assert xr.calls == [
        ("start", "apps.example.crossplane.io"),
        ("stop", "apps.example.crossplane.io"),
        ("start", "apps.example.crossplane.io"),
    ]
    assert (
        "apps.example.crossplane.io",
        "Normal",
        "RestartComposite",
        "XRD specification changed; restarting controller to apply updates",
    ) in events.recorded
    established = next(
        c
        for c in api.objects[(*XRD, "", "apps.example.crossplane.io")]["status"]["conditions"]
        if c["type"] == "Established"
    )
    assert established["observedGeneration"] == 2


async def test_deletion() -> None:
    """Deleting an XRD deletes its XRs, stops its XR controller, deletes its CRD and drops the finalizer."""
    api = _Server()
    api.put(_stored(_load("xrd-v2-namespaced.yaml")))
    xr = fakes.XrControllers()
    r, events = _reconciler(api, xr)
    await r.reconcile("apps.example.crossplane.io")
    api.put(
        {
            "apiVersion": "example.crossplane.io/v1",
            "kind": "App",
            "metadata": {"name": "web", "namespace": "team-a"},
        }
    )
    await api.delete(*XRD, "apps.example.crossplane.io")

    results = []
    for _ in range(4):
        results.append((await r.reconcile("apps.example.crossplane.io")).requeue_after)
    assert results == [1.0, 2.0, None, None], "waiting for the XRs, then for the CRD, backs off"
    assert api.of_kind("App") == []
    assert api.of_kind(_crds.CRD_KIND) == []
    assert api.of_kind(_xrd.XRD_KIND) == []
    assert ("stop", "apps.example.crossplane.io") in xr.calls
    assert [e[3] for e in events.recorded if e[2] == "TerminateComposite"] == [
        "waiting for defined composite resources to be deleted",
        "Deleted composite resource CustomResourceDefinition: apps.example.crossplane.io",
    ]


async def test_deletion_without_delete_on_crds_leaves_the_crd_to_the_garbage_collector() -> None:
    """deploy/ grants no delete on CRDs: the XRs are deleted, the finalizer dropped, and the CRD (controlled
    by the XRD) left to the garbage collector, said in an event."""
    api = _Server()
    api.put(_stored(_load("xrd-v2-namespaced.yaml")))
    xr = fakes.XrControllers()
    r, events = _reconciler(api, xr)
    await r.reconcile("apps.example.crossplane.io")
    api.fail("delete", _crds.CRD_KIND, _api.Forbidden("customresourcedefinitions is forbidden", status=403))
    await api.delete(*XRD, "apps.example.crossplane.io")
    for _ in range(3):
        await r.reconcile("apps.example.crossplane.io")
    assert api.of_kind(_xrd.XRD_KIND) == [], "the finalizer is dropped"
    assert [c["metadata"]["name"] for c in api.of_kind(_crds.CRD_KIND)] == ["apps.example.crossplane.io"]
    assert ("stop", "apps.example.crossplane.io") in xr.calls
    assert events.recorded[-1][2:] == (
        "TerminateComposite",
        "Leaving composite resource CustomResourceDefinition apps.example.crossplane.io to the garbage collector",
    )


async def test_gone_xrd_stops_its_controller() -> None:
    xr = fakes.XrControllers()
    r, _ = _reconciler(_Server(), xr)
    assert (await r.reconcile("gone.example.org")).requeue_after is None
    assert xr.calls == [("stop", "gone.example.org")]


async def test_watch_maps_crds_to_their_xrd() -> None:
    informers = fakes.Informers()
    keys: list[str] = []
    r = _xrd.XrdReconciler(_Server(), fakes.factory(informers), fakes.Events(), fakes.XrControllers())
    r.watch(keys.append)
    informers.informer(*XRD).emit("ADDED", {"metadata": {"name": "a.example.org"}})
    owned = {"kind": _xrd.XRD_KIND, "name": "b.example.org", "controller": True}
    informers.informer(*CRD).emit(
        "MODIFIED",
        {"metadata": {"ownerReferences": [owned]}, "spec": {"names": {"categories": ["composite"]}}},
    )
    informers.informer(*CRD).emit(
        "MODIFIED", {"metadata": {"ownerReferences": [owned]}, "spec": {"names": {"categories": ["other"]}}}
    )
    assert keys == ["a.example.org", "b.example.org"]


# Cluster ------------------------------------------------------------------------------------------


async def _settle(r: _xrd.XrdReconciler, key: str) -> None:
    """Reconcile until nothing is left to do, retrying errors as the controller's backoff would."""
    for _ in range(60):
        try:
            result = await r.reconcile(key)
        except errors.CrossfnError:  # A conflict, or a new CRD's storage still initialising.
            await asyncio.sleep(0.2)
            continue
        if result.requeue_after is None:
            return
        await asyncio.sleep(0.2)
    raise AssertionError(f"{key} did not settle")


def _unique(doc: dict[str, Any]) -> dict[str, Any]:
    """The example with a unique group, so that tests sharing the API server do not meet."""
    out = copy.deepcopy(doc)
    out["spec"]["group"] = f"t{uuid.uuid4().hex[:6]}.{out['spec']['group']}"
    out["metadata"]["name"] = f"{out['spec']['names']['plural']}.{out['spec']['group']}"
    return out


@pytest.mark.cluster
@pytest.mark.parametrize(
    ("doc", "scope", "claim"),
    [
        pytest.param("xrd-v2-namespaced.yaml", "Namespaced", False, id="V2Namespaced"),
        pytest.param("xrd-v2-cluster.yaml", "Cluster", False, id="V2Cluster"),
        pytest.param("xrd-v1-claims.yaml", "Cluster", True, id="V1WithClaims"),
    ],
)
async def test_xrd_on_a_real_api_server(
    kube: Any, crossplane_crds: list[str], doc: str, scope: str, claim: bool
) -> None:
    """An XRD yields served XR (and claim) CRDs and Established/Offered; deleting it removes them."""
    xrd = await kube.create(_unique(_load(doc)))
    name = xrd["metadata"]["name"]
    xr = fakes.XrControllers()
    r, events = _reconciler_on(kube, xr)
    await _settle(r, name)

    got = await kube.get(*XRD, name)
    want = {
        "Established": ("True", "WatchingCompositeResource", ""),
        "Synced": ("True", "ReconcileSuccess", ""),
    }
    if claim:
        want["Offered"] = ("True", "WatchingCompositeResourceClaim", "")
    assert _conditions(got) == want
    api_version, kind = xrd_schemas.composite_type(got)
    assert got["status"]["controllers"]["compositeResourceType"] == {"apiVersion": api_version, "kind": kind}
    assert await kube.is_namespaced(api_version, kind) is (scope == "Namespaced")
    xr_obj: dict[str, Any] = {
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"name": "example"},
        "spec": _example_spec(doc),
    }
    if scope == "Namespaced":
        xr_obj["metadata"]["namespace"] = "default"
    created = await kube.create(xr_obj)
    assert created["kind"] == kind, "the XR kind is served"
    if claim:
        claim_version, claim_kind = xrd_schemas.claim_type(got)
        assert await kube.is_namespaced(claim_version, claim_kind) is True
    assert xr.calls == [("start", name)]

    await kube.delete(*XRD, name)
    await _settle(r, name)
    assert await kube.get(*XRD, name) is None
    assert await kube.get(*CRD, name) is None
    assert ("stop", name) in xr.calls
    assert any(
        e[2] == "TerminateComposite" and e[3].startswith("Deleted composite resource")
        for e in events.recorded
    )


def _reconciler_on(kube: Any, xr: fakes.XrControllers) -> tuple[_xrd.XrdReconciler, fakes.Events]:
    events = fakes.Events()
    return _xrd.XrdReconciler(kube, fakes.factory(fakes.Informers()), events, xr), events


def _example_spec(doc: str) -> dict[str, Any]:
    specs: dict[str, dict[str, Any]] = {
        "xrd-v2-namespaced.yaml": {"image": "nginx"},
        "xrd-v2-cluster.yaml": {"cidrBlock": "10.0.0.0/16"},
        "xrd-v1-claims.yaml": {"parameters": {"storageGB": 20}},
    }
    return specs[doc]


@pytest.mark.cluster
async def test_invalid_xrd_schema_on_a_real_api_server(kube: Any, crossplane_crds: list[str]) -> None:
    """An XRD whose schema the API server rejects gets Synced=False with its message and a Warning event."""
    doc = _unique(_load("xrd-v2-namespaced.yaml"))
    doc["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["size"] = {
        "description": "a property without a type"
    }
    xrd = await kube.create(doc)
    name = xrd["metadata"]["name"]
    xr = fakes.XrControllers()
    r, events = _reconciler_on(kube, xr)
    with pytest.raises(errors.CrossfnError) as info:
        await r.reconcile(name)
    message = str(info.value)
    assert message.startswith(
        f'cannot apply rendered composite resource CustomResourceDefinition: CustomResourceDefinition.apiextensions.k8s.io "{name}" is invalid'
    )
    assert "type: Required value" in message
    assert events.recorded[-1] == (name, "Warning", "EstablishComposite", message)
    got = await kube.get(*XRD, name)
    assert _conditions(got)["Synced"] == ("False", "ReconcileError", message)
    assert "Established" not in _conditions(got)
    assert xr.calls == []
    await kube.delete(*XRD, name)
    await _settle(r, name)
    assert await kube.get(*XRD, name) is None


@pytest.mark.cluster
@pytest.mark.parametrize(("reason", "edit", "problem"), REFUSED_XRDS)
async def test_refused_xrds_on_a_real_api_server(
    kube: Any, crossplane_crds: list[str], reason: str, edit: Any, problem: str
) -> None:
    """The API server stores these XRDs (the XRD CRD takes any schema); the controller refuses them by name and field."""
    doc = _unique(_load("xrd-v2-namespaced.yaml"))
    edit(doc["spec"])
    try:
        xrd = await kube.create(doc)
    except _api.Invalid as e:
        pytest.skip(f"the API server itself refuses this XRD: {e}")
    name = xrd["metadata"]["name"]
    want = _prefix(name) + problem
    xr = fakes.XrControllers()
    r, events = _reconciler_on(kube, xr)
    try:
        with pytest.raises(errors.CrossfnError) as info:
            await r.reconcile(name)
        assert str(info.value) == want, reason
        assert events.recorded == [(name, "Warning", "RenderCRD", want)], reason
        got = await kube.get(*XRD, name)
        assert _conditions(got) == {"Synced": ("False", "ReconcileError", want)}, reason
        assert await kube.get(*CRD, name) is None, reason
        assert xr.calls == [], reason
    finally:
        await kube.delete(*XRD, name)
        await _settle(r, name)


def _rival_crd(group: str, kind: str, list_kind: str) -> dict[str, Any]:
    """A plain CRD in ``group`` holding names an XRD's CRD may then ask for."""
    return {
        "apiVersion": _crds.CRD_API_VERSION,
        "kind": _crds.CRD_KIND,
        "metadata": {"name": f"rivals.{group}"},
        "spec": {
            "group": group,
            "scope": "Cluster",
            "names": {"plural": "rivals", "singular": "rival", "kind": kind, "listKind": list_kind},
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {
                        "openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
                    },
                }
            ],
        },
    }


async def _until_refused(r: _xrd.XrdReconciler, key: str) -> str:
    """Reconcile until the CRD's names are refused (the API server's naming controller runs after the apply)."""
    for _ in range(100):
        try:
            await r.reconcile(key)
        except errors.CrossfnError as e:
            if str(e).startswith("cannot establish"):
                return str(e)
        await asyncio.sleep(0.1)
    raise AssertionError(f"{key}: the CRD's names were never refused")


@pytest.mark.cluster
@pytest.mark.parametrize(
    ("reason", "rival_names", "want_reason"),
    [
        pytest.param(
            "another CRD of the group has the XR's kind", ("App", "RivalList"), "KindConflict", id="Kind"
        ),
        pytest.param(
            "another CRD of the group has the XR's list kind",
            ("Rival", "AppList"),
            "ListKindConflict",
            id="ListKind",
        ),
    ],
)
async def test_refused_crd_names_on_a_real_api_server(
    kube: Any, crossplane_crds: list[str], reason: str, rival_names: tuple[str, str], want_reason: str
) -> None:
    """A CRD whose names conflict: the XRD says so (Warning + Synced=False) and, once the conflict is gone, establishes."""
    doc = _unique(_load("xrd-v2-namespaced.yaml"))
    rival = await kube.create(_rival_crd(doc["spec"]["group"], *rival_names))
    xrd = await kube.create(doc)
    name = xrd["metadata"]["name"]
    xr = fakes.XrControllers()
    r, events = _reconciler_on(kube, xr)
    try:
        message = await _until_refused(r, name)
        assert message.startswith(
            f'cannot establish composite resource CustomResourceDefinition "{name}": NamesAccepted=False ({want_reason}): '
        ), reason
        assert message.endswith("; Established=False (NotAccepted): not all names are accepted"), reason
        assert events.recorded[-1] == (name, "Warning", "EstablishComposite", message), reason
        assert _conditions(await kube.get(*XRD, name))["Synced"] == ("False", "ReconcileError", message), (
            reason
        )
        assert xr.calls == [], reason

        await kube.delete(*CRD, rival["metadata"]["name"])
        await _settle(r, name)
        assert _conditions(await kube.get(*XRD, name))["Established"][0] == "True", reason
        assert xr.calls == [("start", name)], reason
    finally:
        with contextlib.suppress(_api.NotFound):
            await kube.delete(*CRD, rival["metadata"]["name"])
        await kube.delete(*XRD, name)
        await _settle(r, name)


@pytest.mark.cluster
async def test_xrd_controller_loop(kube: Any, crossplane_crds: list[str]) -> None:
    """Run by a Controller fed by informers, an XRD becomes Established and its deletion completes unaided."""
    from crossfn.controller.runtime import _controller, _informer

    informers = _informer.InformerFactory(kube)
    xr = fakes.XrControllers()
    r = _xrd.XrdReconciler(kube, informers, fakes.Events(), xr)
    controller = _controller.Controller(_xrd.CONTROLLER_NAME, r.reconcile)
    r.watch(controller.enqueue)
    controller.start()
    try:
        xrd = await kube.create(_unique(_load("xrd-v2-namespaced.yaml")))
        name = xrd["metadata"]["name"]

        async def established() -> bool:
            got = await kube.get(*XRD, name)
            return _conditions(got or {}).get("Established", ("",))[0] == "True"

        await _eventually(established)
        # The informers see every XRD in the shared API server; only this test's XRD's calls count.
        assert set(_calls_for(xr, name)) == {("start", name)}, (
            "start is idempotent: every reconcile may call it"
        )

        await kube.delete(*XRD, name)

        async def gone() -> bool:
            return await kube.get(*XRD, name) is None and await kube.get(*CRD, name) is None

        await _eventually(gone)
        assert _calls_for(xr, name)[-1] == ("stop", name)
    finally:
        await controller.stop()
        await informers.stop()


def _calls_for(xr: fakes.XrControllers, name: str) -> list[tuple[str, str]]:
    """The XR controller calls for XRD ``name`` alone, whatever other XRDs the API server holds."""
    return [c for c in xr.calls if c[1] == name]


async def _eventually(check: Any, timeout: float = 30.0) -> None:
    for _ in range(int(timeout / 0.1)):
        if await check():
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"{check.__name__} did not happen within {timeout:g}s")


# Ownership before action (issue 26, finding 1) ------------------------------------------------------


def _xrd_named(group: str, kind: str, plural: str, *, approved: bool = False) -> dict[str, Any]:
    """A v2 cluster XRD defining ``kind`` in ``group`` (``approved``: with the annotation Kubernetes
    groups need, which an XRD can pass to its CRD through ``spec.metadata``)."""
    spec: dict[str, Any] = {
        "group": group,
        "scope": "Cluster",
        "names": {"kind": kind, "plural": plural},
        "versions": [
            {
                "name": "v1",
                "served": True,
                "referenceable": True,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object"}}}},
            }
        ],
    }
    if approved:
        spec["metadata"] = {"annotations": {"api-approved.kubernetes.io": "https://example.org/pull/1"}}
    return {
        "apiVersion": "apiextensions.crossplane.io/v2",
        "kind": "CompositeResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": spec,
    }


async def _refused_then_deleted(kube: Any, doc: dict[str, Any], want: str) -> None:
    """The XRD is refused with ``want`` (Warning event, Synced=False, no XR controller) and deletes cleanly."""
    xrd = await kube.create(doc)
    name = xrd["metadata"]["name"]
    xr = fakes.XrControllers()
    r, events = _reconciler_on(kube, xr)
    try:
        with pytest.raises(errors.CrossfnError) as info:
            await r.reconcile(name)
        assert str(info.value) == want
        assert events.recorded[-1] == (name, "Warning", "EstablishComposite", want)
        assert _conditions(await kube.get(*XRD, name))["Synced"] == ("False", "ReconcileError", want)
        assert xr.calls == []
    finally:
        await kube.delete(*XRD, name)
        await _settle(r, name)
    assert await kube.get(*XRD, name) is None


@pytest.mark.cluster
async def test_an_xrd_does_not_adopt_a_crd_no_one_controls(kube: Any, crossplane_crds: list[str]) -> None:
    """An XRD named like an existing CRD that no controller owns is refused; deleting the XRD deletes
    neither the CRD nor its objects (before: it took the CRD over, put its finalizer on every object, and
    its deletion deleted them all and the CRD)."""
    group = f"t{uuid.uuid4().hex[:6]}.example.org"
    crd = _rival_crd(group, "Rival", "RivalList")
    crd["spec"]["scope"] = "Cluster"
    await kube.create(crd)
    try:
        await _eventually(lambda: _served(kube, f"{group}/v1", "Rival"))
        await kube.create({"apiVersion": f"{group}/v1", "kind": "Rival", "metadata": {"name": "precious"}})
        want = (
            "cannot apply rendered composite resource CustomResourceDefinition: existing object is not "
            'controlled by UID "{uid}"'
        )
        doc = _xrd_named(group, "Rival", "rivals")
        xr = fakes.XrControllers()
        r, events = _reconciler_on(kube, xr)
        xrd = await kube.create(doc)
        name = xrd["metadata"]["name"]
        with pytest.raises(errors.CrossfnError) as info:
            await r.reconcile(name)
        message = want.format(uid=xrd["metadata"]["uid"])
        assert str(info.value) == message
        assert events.recorded[-1] == (name, "Warning", "EstablishComposite", message)
        assert _conditions(await kube.get(*XRD, name))["Synced"] == ("False", "ReconcileError", message)
        assert xr.calls == []
        got = await kube.get(*CRD, name)
        assert got is not None and not got["metadata"].get("ownerReferences"), "the CRD was not taken over"
        await kube.delete(*XRD, name)
        await _settle(r, name)
        assert await kube.get(*XRD, name) is None
        assert await kube.get(*CRD, name) is not None, "the CRD survives the XRD"
        precious = await kube.get(f"{group}/v1", "Rival", "precious")
        assert precious is not None and not precious["metadata"].get("finalizers")
    finally:
        with contextlib.suppress(_api.NotFound):
            await kube.delete(*CRD, crd["metadata"]["name"])


async def _served(kube: Any, api_version: str, kind: str) -> bool:
    try:
        await kube.list(api_version, kind)
    except _api.ApiError:
        return False
    return True


@pytest.mark.cluster
async def test_an_xrd_of_a_kubernetes_kind_is_refused(kube: Any, crossplane_crds: list[str]) -> None:
    """An XRD named after ClusterRoleBindings, with the approval annotation in spec.metadata, is refused:
    no CRD, and deleting it deletes no ClusterRoleBinding (before: Established, and its deletion deleted
    every ClusterRoleBinding in the cluster)."""
    binding = await kube.create(
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": {"name": f"precious-{uuid.uuid4().hex[:6]}"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
            "subjects": [{"kind": "User", "name": "someone", "apiGroup": "rbac.authorization.k8s.io"}],
        }
    )
    before = len((await kube.list("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"))[0])
    try:
        doc = _xrd_named(
            "rbac.authorization.k8s.io", "ClusterRoleBinding", "clusterrolebindings", approved=True
        )
        want = (
            "cannot apply rendered composite resource CustomResourceDefinition: refusing to define kind "
            "ClusterRoleBinding.rbac.authorization.k8s.io: the API group rbac.authorization.k8s.io is "
            "Kubernetes' own (an XRD defines kinds of its own group only)"
        )
        await _refused_then_deleted(kube, doc, want)
        assert await kube.get(*CRD, "clusterrolebindings.rbac.authorization.k8s.io") is None
        after = await kube.list("rbac.authorization.k8s.io/v1", "ClusterRoleBinding")
        assert len(after[0]) == before, "no ClusterRoleBinding deleted"
    finally:
        with contextlib.suppress(_api.NotFound):
            await kube.delete(
                "rbac.authorization.k8s.io/v1", "ClusterRoleBinding", binding["metadata"]["name"]
            )


@pytest.mark.cluster
async def test_an_xrd_of_an_aggregated_api_is_refused(kube: Any, crossplane_crds: list[str]) -> None:
    """A group-version an APIService serves (an aggregated API server, not CRDs) is not an XRD's to define."""
    group = f"t{uuid.uuid4().hex[:6]}.example.org"
    service = {
        "apiVersion": "apiregistration.k8s.io/v1",
        "kind": "APIService",
        "metadata": {"name": f"v1.{group}"},
        "spec": {
            "group": group, "version": "v1", "groupPriorityMinimum": 1000, "versionPriority": 15,
            "service": {"name": "api", "namespace": "default", "port": 443}, "insecureSkipTLSVerify": True,
        },
    }  # fmt: skip
    await kube.create(service)
    try:
        want = (
            f"cannot apply rendered composite resource CustomResourceDefinition: refusing to define kind "
            f"Thing.{group}: {group}/v1 is already served by APIService v1.{group}, not by "
            "CustomResourceDefinitions"
        )
        await _refused_then_deleted(kube, _xrd_named(group, "Thing", "things"), want)
        assert await kube.get(*CRD, f"things.{group}") is None
    finally:
        await kube.delete("apiregistration.k8s.io/v1", "APIService", f"v1.{group}")
