"""The XR reconciler against an in-memory API: upstream core-2.1's steps, texts and write order.

The real API server proves the same behaviours in test_composite.py; these
cases pin exact texts, the order of writes and the failure paths quickly.
"""

from __future__ import annotations

import dataclasses
import random
import re
from typing import Any

import pytest

from crossfn import engine, errors
from crossfn.controller.composite import _composite
from crossfn.controller.kube import _api
from crossfn.controller.runtime import _controller, _events
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import response

from . import composite_fixtures as fx
from .fake_api import FakeApi


def conditions(obj: dict[str, Any]) -> dict[str, tuple[str, str, str]]:
    return {
        c["type"]: (c["status"], c["reason"], c.get("message", ""))
        for c in obj.get("status", {}).get("conditions", [])
    }


def stored_xr(api: FakeApi, name: str = "b", namespace: str = "team") -> dict[str, Any]:
    [found] = [o for o in api.of_kind("XBucket") if o["metadata"]["name"] == name]
    return found


async def test_composes_a_namespaced_xr() -> None:
    api, rec, reconciler = fx.setup()
    api.put(fx.xr())
    result = await reconciler.reconcile("team/b")
    xr = stored_xr(api)
    assert xr["metadata"]["finalizers"] == ["composite.apiextensions.crossplane.io"], (
        "step 6 adds the finalizer"
    )
    assert xr["metadata"]["labels"]["crossplane.io/composite"] == "b", "step 10 labels the XR with its name"
    assert xr["spec"]["crossplane"]["compositionRef"] == {"name": "c"}, (
        "the only compatible Composition is chosen"
    )
    assert xr["spec"]["crossplane"]["compositionRevisionRef"] == {"name": "c-1"}, (
        "the latest revision is chosen"
    )
    cms = api.of_kind("ConfigMap")
    uid = xr["metadata"]["uid"]
    assert sorted(c["metadata"]["name"] for c in cms) == sorted(
        engine.child_name("b-", uid, n) for n in ("a", "b")
    ), "composed names are Crossplane's ChildName of the XR's composite label, UID and resource name"
    for cm in cms:
        meta = cm["metadata"]
        assert meta["namespace"] == "team", "a namespaced XR's resources live in its namespace"
        assert meta["labels"] == {"crossplane.io/composite": "b"}
        assert meta["annotations"]["crossplane.io/composition-resource-name"] in ("a", "b")
        [owner] = meta["ownerReferences"]
        assert (owner["kind"], owner["name"], owner["uid"], owner["controller"], owner["blockOwnerDeletion"]) == (
            "XBucket", "b", xr["metadata"]["uid"], True, True,
        )  # fmt: skip
        assert cm["data"] == {"size": "s"}
    refs = xr["spec"]["crossplane"]["resourceRefs"]
    assert [r["kind"] for r in refs] == ["ConfigMap", "ConfigMap"] and all(
        "namespace" not in r for r in refs
    ), "a namespaced XR's refs carry no namespace"
    got = conditions(xr)
    assert got["Responsive"] == ("True", "WatchCircuitClosed", "")
    assert got["Synced"] == ("True", "ReconcileSuccess", "")
    assert got["Ready"] == ("False", "Creating", "Unready resources: b")
    assert list(got) == ["Responsive", "Synced", "Ready"], "Crossplane's condition order for a fresh XR"
    assert ("Normal", "SelectComposition", "Successfully selected composition: c") in rec.seen
    assert ("Normal", "SelectComposition", "Selected composition revision: c-1") in rec.seen
    assert ("Normal", "ComposeResources", 'Composed resource "b" is not yet ready') in rec.seen
    assert result.requeue_after is not None and 54 <= result.requeue_after <= 66, (
        "realtime: requeue after the TTL (60 s) ±10%"
    )


async def test_writes_refs_before_composed_resources_and_status_last() -> None:
    api, _, reconciler = fx.setup()
    api.put(fx.xr())
    await reconciler.reconcile("team/b")
    writes = [(verb, kind) for verb, kind, _ in api.writes()]
    assert writes == [
        ("update", "XBucket"),  # finalizer, composition and revision refs, label: one update
        ("apply", "XBucket"),  # resourceRefs
        ("apply", "ConfigMap"),
        ("apply", "ConfigMap"),
        ("apply-status", "XBucket"),
    ], "upstream core-2.2: refs before any composed resource, status at the end"


async def test_settled_xr_costs_no_xr_writes() -> None:
    api, _, reconciler = fx.setup()
    api.put(fx.xr())
    await reconciler.reconcile("team/b")
    await reconciler.reconcile("team/b")  # the refs bumped the generation the conditions observe
    api.calls.clear()
    await reconciler.reconcile("team/b")
    assert [(v, k) for v, k, _ in api.writes()] == [("apply", "ConfigMap"), ("apply", "ConfigMap")], (
        "unchanged refs and status are not written again; composed resources are always applied"
    )


async def test_spec_change_reaches_composed_resources() -> None:
    api, _, reconciler = fx.setup()
    api.put(fx.xr())
    await reconciler.reconcile("team/b")
    xr = stored_xr(api)
    xr["spec"]["size"] = "xl"
    await reconciler.reconcile("team/b")
    assert {c["data"]["size"] for c in api.of_kind("ConfigMap")} == {"xl"}


async def test_dropped_resource_is_deleted() -> None:
    keep_a = {"on": False}

    def fn(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        fx.two_configmaps(req, rsp)
        if keep_a["on"]:
            del rsp.desired.resources["b"]

    api, _, reconciler = fx.setup(fn)
    api.put(fx.xr())
    await reconciler.reconcile("team/b")
    keep_a["on"] = True
    await reconciler.reconcile("team/b")
    [left] = api.of_kind("ConfigMap")
    assert left["metadata"]["annotations"]["crossplane.io/composition-resource-name"] == "a"
    assert [r["name"] for r in stored_xr(api)["spec"]["crossplane"]["resourceRefs"]] == [
        left["metadata"]["name"]
    ]
    assert [c[0] for c in api.calls if c[1] == "ConfigMap" and c[0] in ("update", "delete")] == [
        "update",
        "delete",
    ], "upstream core-2.11: labels are stripped with an update before the foreground delete"


async def test_not_found_is_done() -> None:
    api, _, reconciler = fx.setup()
    assert await reconciler.reconcile("team/missing") == _controller.Result()
    assert api.writes() == []


async def test_paused() -> None:
    api, rec, reconciler = fx.setup()
    api.put(
        {
            **fx.xr(),
            "metadata": {"name": "b", "namespace": "team", "annotations": {"crossplane.io/paused": "true"}},
        }
    )
    assert await reconciler.reconcile("team/b") == _controller.Result()
    assert conditions(stored_xr(api))["Synced"] == (
        "False", "ReconcilePaused", "Reconciliation (including deletion) is paused via the pause annotation",
    )  # fmt: skip
    assert rec.seen == [
        ("Normal", "ReconciliationPaused", "Reconciliation is paused via the pause annotation")
    ]
    assert api.of_kind("ConfigMap") == [] and "finalizers" not in stored_xr(api)["metadata"], (
        "nothing else happens"
    )


async def test_reconcile_request_is_handled_once() -> None:
    api, rec, reconciler = fx.setup()
    api.put(
        {
            **fx.xr(),
            "metadata": {
                "name": "b",
                "namespace": "team",
                "annotations": {"crossplane.io/reconcile-requested-at": "t1"},
            },
        }
    )
    await reconciler.reconcile("team/b")
    await reconciler.reconcile("team/b")
    assert stored_xr(api)["status"]["lastHandledReconcileAt"] == "t1", "the handled token is kept in status"
    assert rec.seen.count(("Normal", "ReconcileRequestHandled", "Handling reconcile request")) == 1


async def test_deletion_removes_the_finalizer() -> None:
    api, _, reconciler = fx.setup()
    api.put(fx.xr())
    await reconciler.reconcile("team/b")
    await api.delete(fx.XR_API, "XBucket", "b", "team")
    assert await reconciler.reconcile("team/b") == _controller.Result()
    assert api.of_kind("XBucket") == [], "without its finalizer the deleting XR is gone"


@dataclasses.dataclass(frozen=True)
class FailCase:
    id: str
    reason: str
    setup: Any
    want_event: tuple[str, str]
    want_synced: str
    transient: bool = False
    """A moment's race: reported, then retried with backoff as a result instead of raised."""


def no_composition(api: Any) -> None:
    for key in [k for k in api.objects if k[1] == "Composition"]:
        del api.objects[key]


def fatal_fn(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    response.fatal(rsp, "boom")


def name_other_kinds_composition(api: Any) -> None:
    other = api.put(fx.composition("other", kind="XOther"))
    api.put(fx.revision(other))
    api.put(fx.xr(crossplane={"compositionRef": {"name": "other"}}))


FAILS = [
    FailCase("NoCompatibleComposition", "the label selector finds nothing", no_composition,
             ("Warning", "SelectComposition"), "cannot select Composition: no compatible Compositions found"),
    FailCase("NoRevision", "a Composition without revisions cannot be used",
             lambda api: [api.objects.pop(k) for k in [k for k in api.objects if k[1] == "CompositionRevision"]],
             ("Warning", "ComposeResources"), "cannot fetch Composition: no compatible CompositionRevisions found",
             transient=True),
    FailCase("OtherKindsComposition", "a v2 XR is never composed with a Composition for another kind",
             name_other_kinds_composition,
             ("Warning", "ComposeResources"),
             "cannot configure composite resource: referenced composition is not compatible with this composite resource"),
]  # fmt: skip


@pytest.mark.parametrize("case", FAILS, ids=lambda c: c.id)
async def test_selection_failures(case: FailCase) -> None:
    api, rec, reconciler = fx.setup()
    api.put(fx.xr())
    case.setup(api)
    if case.transient:
        got = [(await reconciler.reconcile("team/b")).requeue_after for _ in range(3)]
        assert got == [1.0, 2.0, 4.0], f"{case.reason}: retried with backoff, not raised (no error log)"
    else:
        with pytest.raises(errors.CrossfnError) as raised:
            await reconciler.reconcile("team/b")
        assert str(raised.value) == case.want_synced, case.reason
    assert conditions(stored_xr(api))["Synced"] == ("False", "ReconcileError", case.want_synced), case.reason
    assert (*case.want_event, case.want_synced) in rec.seen, case.reason
    assert api.of_kind("ConfigMap") == [], f"{case.reason}: nothing is composed"


@pytest.mark.parametrize(
    ("valid", "transient", "want", "reason"),
    [(None, True, "pipeline status unknown",
      "a revision not checked yet is a moment's race: retried with backoff, not raised (no error log)"),
     ("False", False, "pipeline status unknown", "a pipeline found invalid is an error")],
    ids=["NotCheckedYet", "Invalid"],
)  # fmt: skip
async def test_invalid_pipeline_gate(valid: str | None, transient: bool, want: str, reason: str) -> None:
    api, rec, reconciler = fx.setup(valid=valid)
    api.put(fx.xr())
    want = f"selected CompositionRevision c-1 does not have a valid function pipeline: {want}"
    if transient:
        assert (await reconciler.reconcile("team/b")).requeue_after == 1.0, reason
    else:
        with pytest.raises(errors.CrossfnError, match=want):
            await reconciler.reconcile("team/b")
    assert conditions(stored_xr(api))["Synced"] == ("False", "ReconcileError", want)
    assert ("Warning", "ComposeResources", want) in rec.seen
    assert api.of_kind("ConfigMap") == [], "nothing is composed without a valid pipeline"
    machinery = stored_xr(api)["spec"]["crossplane"]
    assert (machinery["compositionRef"], machinery["compositionRevisionRef"]) == (
        {"name": "c"},
        {"name": "c-1"},
    ), (
        "the chosen Composition and revision are kept even though the gate failed, as Crossplane updates them first"
    )


async def test_fatal_result() -> None:
    api, rec, reconciler = fx.setup(fatal_fn)
    api.put(fx.xr())
    want = 'cannot compose resources: pipeline step "s" returned a fatal result: boom'
    with pytest.raises(errors.PipelineFatalError):
        await reconciler.reconcile("team/b")
    assert conditions(stored_xr(api))["Synced"] == ("False", "ReconcileError", want)
    assert ("Warning", "ComposeResources", want) in rec.seen


async def test_missing_function() -> None:
    api, _, reconciler = fx.setup()
    api.put(fx.xr())
    comp = next(o for o in api.of_kind("CompositionRevision"))
    comp["spec"]["pipeline"][0]["functionRef"]["name"] = "nope"
    with pytest.raises(errors.FunctionRunError):
        await reconciler.reconcile("team/b")
    assert conditions(stored_xr(api))["Synced"] == (
        "False", "ReconcileError",
        'cannot compose resources: cannot run Composition pipeline step "s": cannot run Function "nope": no such in-process function',
    )  # fmt: skip


async def test_invalid_composed_resource_is_unsynced_not_fatal() -> None:
    api, rec, reconciler = fx.setup()
    api.put(fx.xr())
    invalid = _api.Invalid('ConfigMap "x" is invalid: data: Invalid value', status=422)
    api.fail("apply", "ConfigMap", invalid)
    await reconciler.reconcile("team/b")
    got = conditions(stored_xr(api))
    assert got["Synced"] == ("False", "ReconcileError", "Unsynced resources: a, b")
    assert ("Warning", "ComposeResources", f'cannot apply composed resource "a": {invalid}') in rec.seen
    assert ("Normal", "ComposeResources", 'Composed resource "a" is not yet valid') in rec.seen


async def test_other_apply_error_aborts() -> None:
    api, _, reconciler = fx.setup()
    api.put(fx.xr())
    api.fail("apply", "ConfigMap", _api.Forbidden("configmaps is forbidden", status=403))
    with pytest.raises(errors.CrossfnError):
        await reconciler.reconcile("team/b")
    message = conditions(stored_xr(api))["Synced"][2]
    assert re.fullmatch(
        r'cannot compose resources: cannot apply composed resource "[ab]": configmaps is forbidden', message
    ), "the first failed apply aborts with its resource's name (desired resources come in map order)"


async def test_invalid_refs_point_at_events() -> None:
    api, rec, reconciler = fx.setup()
    api.put(fx.xr())
    api.fail("apply", "XBucket", _api.Invalid("XBucket is invalid: unstable text 0xc000", status=422))
    with pytest.raises(errors.CrossfnError):
        await reconciler.reconcile("team/b")
    assert (
        conditions(stored_xr(api))["Synced"][2]
        == "cannot compose resources: some resources were invalid, check events"
    )
    assert ("Warning", "ComposeResources",
            "cannot compose resources: cannot update composed resource references: XBucket is invalid: unstable text 0xc000") in rec.seen  # fmt: skip


async def test_conflict_requeues_silently() -> None:
    api, rec, reconciler = fx.setup()
    api.put(fx.xr())
    api.fail("update", "XBucket", _api.Conflict("modified", status=409))
    with pytest.raises(_api.Conflict):
        await reconciler.reconcile("team/b")
    assert [w for w in api.writes() if w[0] != "update"] == [] and rec.seen == [], (
        "no status, no event on a conflict"
    )


async def test_legacy_xr() -> None:
    the_xrd = fx.xrd("LegacyCluster")
    api, _, reconciler = fx.setup(the_xrd=the_xrd)
    revision = api.of_kind("CompositionRevision")[0]
    revision["spec"]["writeConnectionSecretsToNamespace"] = "crossplane-system"
    api.put(fx.xr(namespace=""))
    await reconciler.reconcile("b")
    xr = stored_xr(api, namespace="")
    assert xr["spec"]["compositionRef"] == {"name": "c"} and "crossplane" not in xr["spec"], (
        "legacy fields sit under spec"
    )
    assert xr["spec"]["writeConnectionSecretToRef"] == {
        "name": xr["metadata"]["uid"],
        "namespace": "crossplane-system",
    }
    assert [r["kind"] for r in xr["spec"]["resourceRefs"]] == ["ConfigMap", "ConfigMap"]
    assert conditions(xr)["Synced"] == ("True", "ReconcileSuccess", "")


@dataclasses.dataclass(frozen=True)
class RequeueCase:
    id: str
    reason: str
    settings: _composite.CompositeSettings
    annotations: dict[str, str]
    ttl: float
    waiting: bool
    want: tuple[float, float] | None
    want_backoff: bool = False


RT = _composite.CompositeSettings()
POLL = _composite.CompositeSettings(realtime=False, poll_interval=60)
REQUEUES = [
    RequeueCase("RealtimeTTL", "realtime requeues after the pipeline TTL", RT, {}, 30, False, (27, 33)),
    RequeueCase("RealtimeNoTTL", "realtime without TTL does not poll", RT, {}, 0, True, None),
    RequeueCase("RealtimeAnnotation", "the annotation still polls under realtime", RT, {"crossplane.io/poll-interval": "10s"}, 0, False, (9, 11)),
    RequeueCase("PollInterval", "without realtime the poll interval", POLL, {}, 30, False, (54, 66)),
    RequeueCase("AnnotationWins", "the annotation beats the flag", POLL, {"crossplane.io/poll-interval": "2m"}, 0, False, (108, 132)),
    RequeueCase("AnnotationFloor", "the annotation is floored at the minimum", POLL, {"crossplane.io/poll-interval": "1ms"}, 0, False, (0.9, 1.1)),
    RequeueCase("AnnotationBad", "an unparsable annotation is ignored", POLL, {"crossplane.io/poll-interval": "soon"}, 0, False, (54, 66)),
    RequeueCase("AnnotationZero", "a zero annotation is ignored, not floored to a 1s poll", POLL, {"crossplane.io/poll-interval": "0s"}, 0, False, (54, 66)),
    RequeueCase("AnnotationNegative", "a negative annotation is ignored", POLL, {"crossplane.io/poll-interval": "-5m"}, 0, False, (54, 66)),
    RequeueCase("RealtimeAnnotationZero", "under realtime a zero annotation leaves no polling at all", RT, {"crossplane.io/poll-interval": "0s"}, 0, False, None),
    RequeueCase("WaitingBacksOff", "without realtime, unready resources back off", POLL, {}, 0, True, None, True),
]  # fmt: skip


@pytest.mark.parametrize("case", REQUEUES, ids=lambda c: c.id)
def test_requeue_after(case: RequeueCase) -> None:
    xr = {"metadata": {"annotations": case.annotations}}
    for seed in range(20):
        got = _composite.requeue_after(
            case.settings, xr, ttl=case.ttl, waiting=case.waiting, rng=random.Random(seed)
        )
        assert got.backoff == case.want_backoff, case.reason
        if case.want is None:
            assert got.after is None, case.reason
        else:
            assert got.after is not None and case.want[0] <= got.after <= case.want[1], case.reason


async def test_backoff_grows_while_waiting_without_realtime() -> None:
    api, _, reconciler = fx.setup(realtime=False)
    api.put(fx.xr())
    got = [(await reconciler.reconcile("team/b")).requeue_after for _ in range(3)]
    assert got == [1.0, 2.0, 4.0], "unready resources without realtime: exponential backoff from 1 s"


async def test_rejected_status_still_reports_conditions() -> None:
    def bad_status(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        response.set_desired_composite_status(rsp, {"size": {"not": "a string"}})

    api, rec, reconciler = fx.setup(bad_status)
    api.put(fx.xr())
    real_apply = api.apply

    async def apply(obj: Any, **kw: Any) -> Any:
        if kw.get("status") and "size" in obj.get("status", {}):
            raise _api.Invalid("XBucket.example.org is invalid: status.size: Invalid value", status=422)
        return await real_apply(obj, **kw)

    api.apply = apply  # type: ignore[method-assign]  # the fake's status endpoint rejects one shape
    with pytest.raises(errors.CrossfnError, match="cannot apply composite resource status"):
        await reconciler.reconcile("team/b")
    assert conditions(stored_xr(api))["Synced"] == ("False", "ReconcileError", _composite.INVALID_MESSAGE)
    assert ("Warning", "ComposeResources",
            "cannot compose resources: cannot apply composite resource status: "
            "XBucket.example.org is invalid: status.size: Invalid value") in rec.seen  # fmt: skip


async def test_function_bug_is_reported_on_the_xr() -> None:
    async def broken_runner(name: str, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
        raise RuntimeError("kaboom")

    api, _, reconciler = fx.setup()
    reconciler._runner = engine.runner_from(broken_runner)
    api.put(fx.xr())
    with pytest.raises(errors.CrossfnError):
        await reconciler.reconcile("team/b")
    assert (
        conditions(stored_xr(api))["Synced"][2]
        == 'cannot compose resources: cannot run Composition pipeline step "s": RuntimeError: kaboom'
    )


@dataclasses.dataclass(frozen=True)
class MalformedCase:
    id: str
    reason: str
    spec: dict[str, Any]
    want_event: str
    want_synced: str
    legacy: bool = False


SELECT, COMPOSE = "cannot select Composition: ", "cannot compose resources: "
MALFORMED = [
    MalformedCase("CrossplaneNotObject", "spec.crossplane must hold the machinery", {"crossplane": "x"},
                  "SelectComposition", SELECT + "spec.crossplane must be an object, not a string"),
    MalformedCase("CompositionRefNumber", "a ref must be an object, never read as unset", {"crossplane": {"compositionRef": 5}},
                  "SelectComposition", SELECT + "spec.crossplane.compositionRef must be an object, not a number"),
    MalformedCase("CompositionRefNameNumber", "a ref's name must be a string",
                  {"crossplane": {"compositionRef": {"name": 5}}},
                  "SelectComposition", SELECT + "spec.crossplane.compositionRef.name must be a string, not a number"),
    MalformedCase("RevisionRefString", "a revision ref must be an object", {"crossplane": {"compositionRevisionRef": "c-1"}},
                  "SelectComposition", SELECT + "spec.crossplane.compositionRevisionRef must be an object, not a string"),
    MalformedCase("SelectorNotObject", "a selector must be an object", {"crossplane": {"compositionSelector": ["a"]}},
                  "SelectComposition", SELECT + "spec.crossplane.compositionSelector must be an object, not an array"),
    MalformedCase("MatchLabelsNotObject", "matchLabels must be an object",
                  {"crossplane": {"compositionSelector": {"matchLabels": "team=a"}}},
                  "SelectComposition", SELECT + "spec.crossplane.compositionSelector.matchLabels must be an object, not a string"),
    MalformedCase("MatchLabelNotString", "label values must be strings",
                  {"crossplane": {"compositionRevisionSelector": {"matchLabels": {"team": 5}}}},
                  "SelectComposition",
                  SELECT + "spec.crossplane.compositionRevisionSelector.matchLabels.team must be a string, not a number"),
    MalformedCase("UnknownUpdatePolicy", "the policy is Automatic or Manual",
                  {"crossplane": {"compositionUpdatePolicy": "Sometimes"}},
                  "SelectComposition", SELECT + 'spec.crossplane.compositionUpdatePolicy must be Automatic or Manual, not "Sometimes"'),
    MalformedCase("ResourceRefsObject", "resourceRefs must be a list", {"crossplane": {"resourceRefs": {}}},
                  "ComposeResources", COMPOSE + "spec.crossplane.resourceRefs must be a list, not an object"),
    MalformedCase("ResourceRefsNumber", "resourceRefs must be a list", {"crossplane": {"resourceRefs": 5}},
                  "ComposeResources", COMPOSE + "spec.crossplane.resourceRefs must be a list, not a number"),
    MalformedCase("ResourceRefNotObject", "each resourceRef must be an object", {"crossplane": {"resourceRefs": ["a"]}},
                  "ComposeResources", COMPOSE + "spec.crossplane.resourceRefs[0] must be an object, not a string"),
    MalformedCase("LegacyRefNumber", "a legacy XR's machinery sits under spec", {"compositionRef": 5},
                  "SelectComposition", SELECT + "spec.compositionRef must be an object, not a number", legacy=True),
    MalformedCase("LegacySecretRefString", "a legacy XR's Secret ref must be an object",
                  {"writeConnectionSecretToRef": "s"},
                  "ComposeResources", COMPOSE + "spec.writeConnectionSecretToRef must be an object, not a string", legacy=True),
]  # fmt: skip


@pytest.mark.parametrize("case", MALFORMED, ids=lambda c: c.id)
async def test_malformed_fields_are_reported(case: MalformedCase) -> None:
    api, rec, reconciler = fx.setup(the_xrd=fx.xrd("LegacyCluster") if case.legacy else None)
    namespace = "" if case.legacy else "team"
    api.put(fx.xr(namespace=namespace, **case.spec))
    with pytest.raises(errors.CrossfnError) as raised:  # a user's mistake, never another exception
        await reconciler.reconcile("b" if case.legacy else "team/b")
    assert case.want_synced.endswith(str(raised.value)), case.reason
    xr = stored_xr(api, namespace=namespace)
    assert conditions(xr)["Synced"] == ("False", "ReconcileError", case.want_synced), case.reason
    assert ("Warning", case.want_event, case.want_synced) in rec.seen, case.reason
    assert api.of_kind("ConfigMap") == [], f"{case.reason}: nothing is composed"


async def test_events_come_from_the_xr_controller() -> None:
    api, _, _ = fx.setup()
    recorder = _events.EventRecorder(api, host="h")
    reconciler = _composite.CompositeReconciler(
        api, None, recorder, engine.build_runner(engine.InProcessRunner({"fn": fx.two_configmaps})), engine.Sources(),
        xrd=fx.xrd(), clock=lambda: fx.T0,
    )  # fmt: skip
    api.put(fx.xr())
    await reconciler.reconcile("team/b")
    await recorder.flush()
    sources = {e["source"]["component"] for e in api.of_kind("Event")}
    assert sources == {"defined/compositeresourcedefinition.apiextensions.crossplane.io"}, (
        "Crossplane's XR controller records through the defined controller's recorder"
    )
    assert {e["metadata"]["annotations"]["controller"] for e in api.of_kind("Event")} == {
        "composite/xbuckets.example.org"
    }, "annotated with the XR controller's name"


async def test_a_revision_whose_pipeline_is_not_a_list_is_reported() -> None:
    api, _, reconciler = fx.setup()
    api.of_kind("CompositionRevision")[0]["spec"]["pipeline"] = {"step": "s"}
    api.put(fx.xr())
    with pytest.raises(errors.CrossfnError):
        await reconciler.reconcile("team/b")
    want = "cannot compose resources: spec.pipeline must be a list, not an object"
    assert conditions(stored_xr(api))["Synced"] == ("False", "ReconcileError", want), (
        "a bad revision, never a crash"
    )
