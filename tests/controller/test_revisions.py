"""CompositionRevisions: hashing, naming and numbering, the revision reconcilers, and ValidPipeline."""

from __future__ import annotations

import asyncio
import copy
import uuid
from typing import Any

import pytest

from crossfn import errors
from crossfn.controller.definition import _xrd
from crossfn.controller.kube import _api
from crossfn.controller.revisions import _revisions

from . import definition_fakes as fakes
from .fake_api import FakeApi

COMP_UID = "3f0c9b1e-0000-4000-8000-000000000001"
API = "apiextensions.crossplane.io/v1"


def _composition(
    *, labels: dict[str, str] | None = None, annotations: dict[str, str] | None = None, image: str = "nginx"
) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": "apps", "uid": COMP_UID}
    if labels is not None:
        meta["labels"] = labels
    if annotations is not None:
        meta["annotations"] = annotations
    return {
        "apiVersion": API,
        "kind": "Composition",
        "metadata": meta,
        "spec": {
            "compositeTypeRef": {"apiVersion": "example.org/v1", "kind": "App"},
            "mode": "Pipeline",
            "pipeline": [
                {
                    "step": "render",
                    "functionRef": {"name": "function-patch-and-transform"},
                    "input": {
                        "apiVersion": "pt.fn.crossplane.io/v1beta1",
                        "kind": "Resources",
                        "image": image,
                    },
                },
                {"step": "ready", "functionRef": {"name": "function-auto-ready"}},
            ],
        },
    }


BASE_HASH = _revisions.composition_hash(_composition())


@pytest.mark.parametrize(
    ("reason", "other", "same"),
    [
        pytest.param("an identical Composition", _composition(), True, id="Identical"),
        pytest.param(
            "key order does not matter",
            {**_composition(), "spec": dict(reversed(list(_composition()["spec"].items())))},
            True,
            id="KeyOrder",
        ),
        pytest.param(
            "status and other metadata do not count",
            {**_composition(), "status": {"x": 1}},
            True,
            id="Status",
        ),
        pytest.param("a spec change", _composition(image="httpd"), False, id="Spec"),
        pytest.param("a label change", _composition(labels={"a": "b"}), False, id="Labels"),
        pytest.param("an annotation change", _composition(annotations={"a": "b"}), False, id="Annotations"),
        pytest.param(
            "no labels differs from empty labels (null vs {})",
            _composition(labels={}),
            False,
            id="EmptyLabels",
        ),
    ],
)
def test_composition_hash(reason: str, other: dict[str, Any], same: bool) -> None:
    got = _revisions.composition_hash(other)
    assert len(got) == 64 and got == got.lower(), reason
    assert (got == BASE_HASH) is same, reason


@pytest.mark.parametrize(
    ("composition", "hash_", "want"),
    [
        pytest.param("apps", "0123456789abcdef", "apps-0123456", id="FirstSevenHexChars"),
        pytest.param(
            "xpostgres.aws.example.org", "f" * 64, "xpostgres.aws.example.org-fffffff", id="DottedName"
        ),
    ],
)
def test_revision_name(composition: str, hash_: str, want: str) -> None:
    assert _revisions.revision_name(composition, hash_) == want


def _rev(name: str, number: int, *, hash_: str = "h", owner: str | None = COMP_UID) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "name": name,
        "labels": {_revisions.LABEL_COMPOSITION_NAME: "apps", _revisions.LABEL_COMPOSITION_HASH: hash_[:63]},
    }
    if owner is not None:
        meta["ownerReferences"] = [
            {"apiVersion": API, "kind": "Composition", "name": "apps", "uid": owner, "controller": True}
        ]
    spec = copy.deepcopy(_composition()["spec"])
    spec["revision"] = number
    return {"apiVersion": API, "kind": "CompositionRevision", "metadata": meta, "spec": spec}


@pytest.mark.parametrize(
    ("reason", "revisions", "want"),
    [
        pytest.param("numbering starts at 1, so none is 0", [], 0, id="None"),
        pytest.param("the highest number wins", [_rev("a", 1), _rev("b", 3), _rev("c", 2)], 3, id="Highest"),
        pytest.param(
            "uncontrolled revisions are ignored",
            [_rev("a", 1), _rev("b", 9, owner=None)],
            1,
            id="Uncontrolled",
        ),
        pytest.param(
            "other Compositions' revisions are ignored",
            [_rev("a", 2), _rev("b", 9, owner="x")],
            2,
            id="Other",
        ),
    ],
)
def test_latest_revision(reason: str, revisions: list[dict[str, Any]], want: int) -> None:
    assert _revisions.latest_revision(revisions, COMP_UID) == want, reason


def test_new_revision() -> None:
    """The revision copies the spec, adds its number, and lets the Composition's labels override its own."""
    comp = _composition(
        labels={"team": "a", _revisions.LABEL_COMPOSITION_NAME: "override"}, annotations={"n": "1"}
    )
    h = _revisions.composition_hash(comp)
    rev = _revisions.new_revision(comp, h, 4)
    assert rev["metadata"] == {
        "name": f"apps-{h[:7]}",
        "labels": {
            _revisions.LABEL_COMPOSITION_NAME: "override",
            _revisions.LABEL_COMPOSITION_HASH: h[:63],
            "team": "a",
        },
        "annotations": {"n": "1"},
        "ownerReferences": [
            {
                "apiVersion": API,
                "kind": "Composition",
                "name": "apps",
                "uid": COMP_UID,
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ],
    }
    assert rev["spec"] == {**comp["spec"], "revision": 4}
    assert "revision" not in comp["spec"], "the Composition is not modified"


def test_pipeline_functions() -> None:
    rev = {
        "spec": {
            "pipeline": [
                {"functionRef": {"name": "a"}},
                {"functionRef": {"name": "b"}},
                {"functionRef": {"name": "a"}},
            ]
        }
    }
    assert _revisions.pipeline_functions(rev) == ["a", "b"]


# CompositionReconciler ------------------------------------------------------------------------------


def _api_with(*objs: dict[str, Any]) -> FakeApi:
    api = FakeApi(
        scopes={
            (API, "Composition"): False,
            (API, "CompositionRevision"): False,
            ("pkg.crossplane.io/v1", "FunctionRevision"): False,
            ("pkg.crossplane.io/v1", "Function"): False,
        }
    )
    for obj in objs:
        api.put(obj)
    return api


def _numbers(api: FakeApi) -> dict[str, int]:
    return {r["metadata"]["name"]: r["spec"]["revision"] for r in api.of_kind("CompositionRevision")}


CHANGED = _composition(image="httpd")
CHANGED_HASH = _revisions.composition_hash(CHANGED)


@pytest.mark.parametrize(
    ("reason", "composition", "existing", "want_numbers", "want_events"),
    [
        pytest.param(
            "a Composition without revisions gets revision 1",
            _composition(),
            [],
            {f"apps-{BASE_HASH[:7]}": 1},
            [("apps", "Normal", "CreateRevision", "Created new revision")],
            id="First",
        ),
        pytest.param(
            "an unchanged Composition gets no new revision",
            _composition(),
            [_rev(f"apps-{BASE_HASH[:7]}", 1, hash_=BASE_HASH)],
            {f"apps-{BASE_HASH[:7]}": 1},
            [],
            id="Unchanged",
        ),
        pytest.param(
            "a changed spec gets the next number",
            CHANGED,
            [_rev(f"apps-{BASE_HASH[:7]}", 1, hash_=BASE_HASH)],
            {f"apps-{BASE_HASH[:7]}": 1, f"apps-{CHANGED_HASH[:7]}": 2},
            [("apps", "Normal", "CreateRevision", "Created new revision")],
            id="Changed",
        ),
        pytest.param(
            "reverting re-promotes the old revision above the latest",
            _composition(),
            [
                _rev(f"apps-{BASE_HASH[:7]}", 1, hash_=BASE_HASH),
                _rev(f"apps-{CHANGED_HASH[:7]}", 2, hash_=CHANGED_HASH),
            ],
            {f"apps-{BASE_HASH[:7]}": 3, f"apps-{CHANGED_HASH[:7]}": 2},
            [],
            id="Reverted",
        ),
    ],
)
async def test_composition_reconciler(
    reason: str,
    composition: dict[str, Any],
    existing: list[dict[str, Any]],
    want_numbers: dict[str, int],
    want_events: list[tuple[str, str, str, str]],
) -> None:
    api = _api_with(composition, *existing)
    events = fakes.Events()
    r = _revisions.CompositionReconciler(api, fakes.factory(fakes.Informers()), events)
    result = await r.reconcile("apps")
    assert result.requeue_after is None, reason
    assert _numbers(api) == want_numbers, reason
    assert events.recorded == want_events, reason
    for rev in api.of_kind("CompositionRevision"):
        assert rev["metadata"]["ownerReferences"][0]["uid"] == COMP_UID, reason


async def test_composition_reconciler_adopts_orphans() -> None:
    """A matching revision without a controller (restored from a backup) is adopted, not duplicated."""
    orphan = _rev(f"apps-{BASE_HASH[:7]}", 1, hash_=BASE_HASH, owner=None)
    api = _api_with(_composition(), orphan)
    await _revisions.CompositionReconciler(api, fakes.factory(fakes.Informers()), fakes.Events()).reconcile(
        "apps"
    )
    (rev,) = api.of_kind("CompositionRevision")
    assert rev["metadata"]["ownerReferences"][0]["controller"] is True
    assert rev["spec"]["revision"] == 1


@pytest.mark.parametrize(
    ("verb", "error", "want"),
    [
        pytest.param(
            "list",
            _api.ApiError("boom"),
            ("Warning", "CreateRevision", "cannot list CompositionRevisions: boom"),
            id="List",
        ),
        pytest.param(
            "create",
            _api.Forbidden("forbidden", status=403),
            ("Warning", "CreateRevision", "cannot create CompositionRevision: forbidden"),
            id="Create",
        ),
    ],
)
async def test_composition_reconciler_errors(
    verb: str, error: _api.ApiError, want: tuple[str, str, str]
) -> None:
    """Failures are Warning events on the Composition with Crossplane's text, and raised to requeue."""
    api = _api_with(_composition())
    api.fail(verb, "CompositionRevision", error)
    events = fakes.Events()
    with pytest.raises(Exception, match=want[2]):
        await _revisions.CompositionReconciler(api, fakes.factory(fakes.Informers()), events).reconcile(
            "apps"
        )
    assert events.recorded == [("apps", *want)]


async def test_composition_watch_maps_revisions_to_their_composition() -> None:
    informers = fakes.Informers()
    keys: list[str] = []
    _revisions.CompositionReconciler(_api_with(), fakes.factory(informers), fakes.Events()).watch(keys.append)
    informers.informer(API, "Composition").emit("ADDED", _composition())
    informers.informer(API, "CompositionRevision").emit("MODIFIED", _rev("apps-1234567", 1))
    informers.informer(API, "CompositionRevision").emit("MODIFIED", {"metadata": {"name": "unlabelled"}})
    assert keys == ["apps", "apps"]


# RevisionReconciler ---------------------------------------------------------------------------------


def _fn_rev(
    function: str, name: str, *, active: bool = True, capabilities: list[str] | None = None
) -> dict[str, Any]:
    status: dict[str, Any] = {}
    if capabilities is not None:
        status["capabilities"] = capabilities
    return {
        "apiVersion": "pkg.crossplane.io/v1",
        "kind": "FunctionRevision",
        "metadata": {"name": name, "labels": {"pkg.crossplane.io/package": function}},
        "spec": {"desiredState": "Active" if active else "Inactive", "image": "x", "revision": 1},
        "status": status,
    }


MISSING = (
    'function "function-auto-ready" (active revision "ready-2") is missing required capabilities: composition'
)


def _function(name: str) -> dict[str, Any]:
    return {"apiVersion": "pkg.crossplane.io/v1", "kind": "Function", "metadata": {"name": name}, "spec": {}}


BOTH = [_function("function-patch-and-transform"), _function("function-auto-ready")]
NO_READY = 'pipeline step "ready" names Function "function-auto-ready", which does not exist'


@pytest.mark.parametrize(
    ("reason", "objects", "want_valid", "want_event"),
    [
        pytest.param(
            "every function's active revision composes",
            [
                *BOTH,
                _fn_rev("function-patch-and-transform", "pt-1", capabilities=["Composition"]),
                _fn_rev("function-auto-ready", "ready-1", capabilities=["composition", "operation"]),
            ],
            ("True", "ValidPipeline", ""),
            ("Normal", "CheckCapabilities", "All functions have required composition capability"),
            id="Valid",
        ),
        pytest.param(
            "a revision listing no capabilities counts as a composition function",
            [*BOTH, _fn_rev("function-auto-ready", "ready-1", capabilities=[])],
            ("True", "ValidPipeline", ""),
            ("Normal", "CheckCapabilities", "All functions have required composition capability"),
            id="NoCapabilitiesListed",
        ),
        pytest.param(
            "a function without an active revision passes",
            [*BOTH, _fn_rev("function-auto-ready", "ready-1", active=False, capabilities=["operation"])],
            ("True", "ValidPipeline", ""),
            ("Normal", "CheckCapabilities", "All functions have required composition capability"),
            id="NoActiveRevision",
        ),
        pytest.param(
            "an operation-only function fails the gate",
            [*BOTH, _fn_rev("function-auto-ready", "ready-2", capabilities=["operation"])],
            ("False", "MissingCapabilities", MISSING),
            ("Warning", "CheckCapabilities", MISSING),
            id="MissingCapabilities",
        ),
        pytest.param(
            "a step naming a Function that does not exist (misspelt) fails the gate, naming step and Function",
            [_function("function-patch-and-transform")],
            ("False", "MissingFunctions", NO_READY),
            ("Warning", "CheckCapabilities", NO_READY),
            id="MissingFunction",
        ),
        pytest.param(
            "every missing Function is named, in step order",
            [],
            (
                "False",
                "MissingFunctions",
                'pipeline step "render" names Function "function-patch-and-transform", which does not exist; '
                + NO_READY,
            ),
            (
                "Warning",
                "CheckCapabilities",
                'pipeline step "render" names Function "function-patch-and-transform", which does not exist; '
                + NO_READY,
            ),
            id="NoFunctions",
        ),
    ],
)
async def test_revision_reconciler(
    reason: str,
    objects: list[dict[str, Any]],
    want_valid: tuple[str, str, str],
    want_event: tuple[str, str, str],
) -> None:
    rev = _rev("apps-1234567", 1)
    api = _api_with(rev, *objects)
    events = fakes.Events()
    r = _revisions.RevisionReconciler(api, fakes.factory(fakes.Informers()), events, clock=fakes.clock)
    await r.reconcile("apps-1234567")
    (stored,) = api.of_kind("CompositionRevision")
    conditions = {c["type"]: c for c in stored["status"]["conditions"]}
    valid = conditions["ValidPipeline"]
    assert (valid["status"], valid["reason"], valid.get("message", "")) == want_valid, reason
    assert valid["lastTransitionTime"] == "2026-11-24T09:00:00Z"
    assert (conditions["Synced"]["status"], conditions["Synced"]["reason"]) == ("True", "ReconcileSuccess")
    assert events.recorded == [("apps-1234567", *want_event)], reason


async def test_revision_reconciler_keeps_unchanged_conditions() -> None:
    """A second reconcile with the same outcome writes nothing (conditions keep their time)."""
    api = _api_with(_rev("apps-1234567", 1), *BOTH)
    r = _revisions.RevisionReconciler(
        api, fakes.factory(fakes.Informers()), fakes.Events(), clock=fakes.clock
    )
    await r.reconcile("apps-1234567")
    writes = len(api.writes())
    await r.reconcile("apps-1234567")
    assert len(api.writes()) == writes


async def test_revision_watch_maps_function_revisions() -> None:
    """A FunctionRevision change enqueues exactly the revisions whose pipeline uses its Function."""
    informers = fakes.Informers()
    keys: list[str] = []
    _revisions.RevisionReconciler(_api_with(), fakes.factory(informers), fakes.Events()).watch(keys.append)
    other = _rev("other-1", 1)
    other["spec"]["pipeline"] = [{"step": "x", "functionRef": {"name": "function-go-templating"}}]
    informers.informer(API, "CompositionRevision").cache = [_rev("apps-1", 1), other]
    informers.informer("pkg.crossplane.io/v1", "FunctionRevision").emit(
        "MODIFIED", _fn_rev("function-auto-ready", "r")
    )
    informers.informer("pkg.crossplane.io/v1", "FunctionRevision").emit(
        "MODIFIED", {"metadata": {"name": "nolabel"}}
    )
    assert keys == ["apps-1"]


async def test_revision_watch_maps_functions() -> None:
    """A Function created or deleted enqueues the revisions whose pipeline names it; an update does not."""
    informers = fakes.Informers()
    keys: list[str] = []
    _revisions.RevisionReconciler(_api_with(), fakes.factory(informers), fakes.Events()).watch(keys.append)
    informers.informer(API, "CompositionRevision").cache = [_rev("apps-1", 1)]
    functions = informers.informer("pkg.crossplane.io/v1", "Function")
    functions.emit("ADDED", _function("function-auto-ready"))
    functions.emit("MODIFIED", _function("function-auto-ready"))
    functions.emit("DELETED", _function("function-patch-and-transform"))
    functions.emit("ADDED", _function("function-go-templating"))
    assert keys == ["apps-1", "apps-1"]


# Cluster ------------------------------------------------------------------------------------------


async def _settle(reconcile: Any, key: str) -> None:
    """Reconcile until done, retrying errors as the controller's backoff would (a new CRD's storage may
    still be initialising)."""
    for _ in range(40):
        try:
            result = await reconcile(key)
        except errors.CrossfnError:
            await asyncio.sleep(0.25)
            continue
        if result.requeue_after is None:
            return
        await asyncio.sleep(result.requeue_after)
    raise AssertionError(f"{key} did not settle")


@pytest.mark.cluster
async def test_revisions_on_a_real_api_server(kube: Any, crossplane_crds: list[str]) -> None:
    """Edits make numbered, labelled revisions; ValidPipeline follows the Functions' active revisions."""
    name = f"apps-{uuid.uuid4().hex[:6]}"
    function = f"fn-{uuid.uuid4().hex[:6]}"
    comp = _composition()
    comp["metadata"] = {"name": name, "labels": {"team": "platform"}}
    comp["spec"]["pipeline"][0]["functionRef"]["name"] = f"{function}-pt"
    comp["spec"]["pipeline"][1]["functionRef"]["name"] = function
    comp = await kube.create(comp)
    events = fakes.Events()
    compositions = _revisions.CompositionReconciler(kube, fakes.factory(fakes.Informers()), events)
    validator = _revisions.RevisionReconciler(kube, fakes.factory(fakes.Informers()), events)

    await _settle(compositions.reconcile, name)
    comp["spec"]["pipeline"][0]["input"]["image"] = "httpd"
    comp = await kube.update(comp)
    await _settle(compositions.reconcile, name)
    await _settle(compositions.reconcile, name)  # Unchanged: no third revision.

    revs, _ = await kube.list(API, "CompositionRevision", labels={_revisions.LABEL_COMPOSITION_NAME: name})
    by_number = {r["spec"]["revision"]: r for r in revs}
    assert sorted(by_number) == [1, 2]
    newest = by_number[2]
    h = _revisions.composition_hash(comp)
    assert newest["metadata"]["name"] == f"{name}-{h[:7]}"
    assert newest["metadata"]["labels"] == {
        _revisions.LABEL_COMPOSITION_NAME: name,
        _revisions.LABEL_COMPOSITION_HASH: h[:63],
        "team": "platform",
    }
    owner = newest["metadata"]["ownerReferences"][0]
    assert (owner["kind"], owner["uid"], owner["controller"]) == (
        "Composition",
        comp["metadata"]["uid"],
        True,
    )
    assert newest["spec"]["pipeline"][0]["input"]["image"] == "httpd"

    rev_name = newest["metadata"]["name"]
    await _settle(validator.reconcile, rev_name)
    got = await kube.get(API, "CompositionRevision", rev_name)
    valid = next(c for c in got["status"]["conditions"] if c["type"] == "ValidPipeline")
    assert (valid["status"], valid["reason"], valid["message"]) == (
        "False",
        "MissingFunctions",
        f'pipeline step "render" names Function "{function}-pt", which does not exist; '
        f'pipeline step "ready" names Function "{function}", which does not exist',
    ), "misspelt functionRefs are named on the revision"

    for fn in (f"{function}-pt", function):
        await kube.create(_cluster_function(fn))
    fn_rev = _fn_rev(function, f"{function}-abc", capabilities=["operation"])
    fn_rev = await kube.create({k: v for k, v in fn_rev.items() if k != "status"})
    fn_rev["status"] = {"capabilities": ["operation"]}
    fn_rev = await kube.update(fn_rev, status=True)
    await _settle(validator.reconcile, rev_name)
    got = await kube.get(API, "CompositionRevision", rev_name)
    valid = next(c for c in got["status"]["conditions"] if c["type"] == "ValidPipeline")
    assert (valid["status"], valid["reason"], valid["message"]) == (
        "False",
        "MissingCapabilities",
        f'function "{function}" (active revision "{function}-abc") is missing required capabilities: composition',
    )

    fn_rev["status"] = {"capabilities": ["composition"]}
    await kube.update(fn_rev, status=True)
    await _settle(validator.reconcile, rev_name)
    got = await kube.get(API, "CompositionRevision", rev_name)
    valid = next(c for c in got["status"]["conditions"] if c["type"] == "ValidPipeline")
    assert (valid["status"], valid["reason"], valid.get("message")) == ("True", "ValidPipeline", None)
    assert (rev_name, "Normal", "CheckCapabilities", _revisions.VALID_PIPELINE_MESSAGE) == events.recorded[-1]

    await kube.delete("pkg.crossplane.io/v1", "FunctionRevision", fn_rev["metadata"]["name"])
    for fn in (f"{function}-pt", function):
        await kube.delete("pkg.crossplane.io/v1", "Function", fn)
    await kube.delete(API, "Composition", name)


def _cluster_function(name: str) -> dict[str, Any]:
    return {**_function(name), "spec": {"package": f"xpkg.example.org/test/{name}:v1"}}


@pytest.mark.parametrize(
    ("reason", "got", "want"),
    [
        pytest.param(
            "the XRD controller (upstream controllers-1.1)",
            _xrd.CONTROLLER_NAME,
            "defined/compositeresourcedefinition.apiextensions.crossplane.io",
            id="Defined",
        ),
        pytest.param(
            "the revision-making controller (upstream controllers-3.1)",
            _revisions.COMPOSITION_CONTROLLER_NAME,
            "revisions/composition.apiextensions.crossplane.io",
            id="Revisions",
        ),
        pytest.param(
            "the ValidPipeline controller (upstream controllers-3.6): revision/, singular, not pipeline/",
            _revisions.REVISION_CONTROLLER_NAME,
            "revision/compositionrevision.apiextensions.crossplane.io",
            id="Revision",
        ),
    ],
)
def test_controller_names_are_crossplanes(reason: str, got: str, want: str) -> None:
    """Controller names reach metrics, logs and events' source.component: they must be Crossplane's."""
    assert got == want, reason


@pytest.mark.cluster
async def test_revision_controllers_loop(kube: Any, crossplane_crds: list[str]) -> None:
    """Run by Controllers fed by informers: a Composition naming a Function that does not exist gets an
    invalid revision until the Function is created, and a FunctionRevision losing the composition capability
    invalidates it without any Composition change."""
    from crossfn.controller.runtime import _controller, _informer

    informers = _informer.InformerFactory(kube)
    compositions = _revisions.CompositionReconciler(kube, informers, fakes.Events())
    validator = _revisions.RevisionReconciler(kube, informers, fakes.Events())
    controllers = [
        _controller.Controller(_revisions.COMPOSITION_CONTROLLER_NAME, compositions.reconcile),
        _controller.Controller(_revisions.REVISION_CONTROLLER_NAME, validator.reconcile),
    ]
    compositions.watch(controllers[0].enqueue)
    validator.watch(controllers[1].enqueue)
    for c in controllers:
        c.start()
    name = f"loop-{uuid.uuid4().hex[:6]}"
    function = f"fn-{uuid.uuid4().hex[:6]}"
    try:
        comp = _composition()
        comp["metadata"] = {"name": name}
        comp["spec"]["pipeline"][0]["functionRef"]["name"] = f"{function}-pt"
        comp["spec"]["pipeline"][1]["functionRef"]["name"] = function
        await kube.create(comp)
        await kube.create(_cluster_function(f"{function}-pt"))

        async def valid_pipeline() -> tuple[str, str]:
            revs, _ = await kube.list(
                API, "CompositionRevision", labels={_revisions.LABEL_COMPOSITION_NAME: name}
            )
            for rev in revs:
                for c in (rev.get("status") or {}).get("conditions") or ():
                    if c["type"] == "ValidPipeline":
                        return c["status"], c.get("message", "")
            return "", ""

        missing = ("False", f'pipeline step "ready" names Function "{function}", which does not exist')
        await _eventually(valid_pipeline, missing)
        await kube.create(_cluster_function(function))  # the Function's creation alone re-validates
        await _eventually(valid_pipeline, ("True", ""))
        fn_rev = _fn_rev(function, f"{function}-abc")
        fn_rev = await kube.create({k: v for k, v in fn_rev.items() if k != "status"})
        fn_rev["status"] = {"capabilities": ["operation"]}
        await kube.update(fn_rev, status=True)
        await _eventually(
            valid_pipeline,
            (
                "False",
                f'function "{function}" (active revision "{function}-abc") is missing required capabilities: composition',
            ),
        )
        await kube.delete("pkg.crossplane.io/v1", "FunctionRevision", fn_rev["metadata"]["name"])
        for fn in (f"{function}-pt", function):
            await kube.delete("pkg.crossplane.io/v1", "Function", fn)
        await kube.delete(API, "Composition", name)
    finally:
        for c in controllers:
            await c.stop()
        await informers.stop()


async def _eventually(probe: Any, want: Any, timeout: float = 30.0) -> None:
    got = None
    for _ in range(int(timeout / 0.1)):
        got = await probe()
        if got == want:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"{probe.__name__}: wanted {want}, still {got} after {timeout:g}s")
