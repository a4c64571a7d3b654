"""Compose as Crossplane's controller does it
(upstream core-2.2–core-2.17; core-4.9 composition_functions_test.go).

Cases that exercise a Kubernetes client (Get/Apply/Update errors) belong to
the caller, not the engine, and are not here.
"""

import datetime
import hashlib
import random
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from google.protobuf import duration_pb2

from crossfn import engine, errors
from crossfn.engine import _gc, _metadata, _refs
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource, response

UID = "75e4a668-035f-4ce8-8c45-f4d3ac850155"
NOW = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
STEP = "run-cool-function"

Compose = Callable[[fnv1.RunFunctionRequest, fnv1.RunFunctionResponse], object]


def xr(namespace: str = "", uid: str = UID, label: str | None = "parent-xr", **extra: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": "cool-xr", "uid": uid}
    if label is not None:
        meta["labels"] = {"crossplane.io/composite": label}
    if namespace:
        meta["namespace"] = namespace
    return {"apiVersion": "example.org/v1", "kind": "XR", "metadata": meta, **extra}


def composed(name: str = "", namespace: str = "", kind: str = "CoolComposed", **meta: Any) -> dict[str, Any]:
    m: dict[str, Any] = dict(meta)
    if name:
        m["name"] = name
    if namespace:
        m["namespace"] = namespace
    return {"apiVersion": "test.crossplane.io/v1", "kind": kind, "metadata": m}


def desire(rsp: fnv1.RunFunctionResponse, name: str, obj: Mapping[str, Any], ready: bool = False) -> None:
    rsp.desired.resources[name].resource.CopyFrom(resource.dict_to_struct(obj))
    if ready:
        rsp.desired.resources[name].ready = fnv1.READY_TRUE


async def run(
    fn: Compose,
    *,
    the_xr: Mapping[str, Any] | None = None,
    step: engine.PipelineStep | None = None,
    observed: tuple[engine.ObservedResource, ...] = (),
    sources: engine.Sources | None = None,
    options: engine.ComposeOptions | None = None,
) -> engine.CompositionResult:
    options = options or engine.ComposeOptions.controller()
    runner = engine.build_runner(engine.InProcessRunner({"fn": fn}), sources=sources, options=options)
    return await engine.compose(
        the_xr or xr(), [step or engine.PipelineStep(STEP, "fn")], runner,
        observed=observed, sources=sources, options=options, clock=lambda: NOW,
    )  # fmt: skip


class Scopes:
    def __init__(self, namespaced: bool) -> None:
        self.namespaced = namespaced

    async def is_namespaced(self, api_version: str, kind: str) -> bool:
        return self.namespaced


class Secrets:
    def __init__(self, secrets: Mapping[tuple[str, str], Mapping[str, bytes]], fail: str = "") -> None:
        self.secrets = secrets
        self.fail = fail

    async def secret(self, namespace: str, name: str) -> Mapping[str, bytes] | None:
        if self.fail:
            raise RuntimeError(self.fail)
        return self.secrets.get((namespace, name))


class FailingResources(engine.NoResources):
    async def get(self, api_version: str, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        raise RuntimeError("boom")


class TakenResources(engine.NoResources):
    async def get(self, api_version: str, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        return composed(name)


def noop(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    return None


# Errors: each case's text is upstream core-2.18's, word for word.


@pytest.mark.parametrize(
    ("kwargs", "want", "reason"),
    [
        pytest.param(
            {"step": engine.PipelineStep(STEP, "fn", input=["not", "an", "object"])},
            'cannot unmarshal input for Composition pipeline step "run-cool-function": input must be an object, not an array',
            "A step input that is not a JSON object is a step error.",
            id="UnmarshalFunctionInputError",
        ),
        pytest.param(
            {
                "step": engine.PipelineStep(
                    STEP, "fn", credentials=(engine.StepCredential("cool-secret", "Secret", "s", "ns"),)
                ),
                "sources": engine.Sources(credentials=Secrets({}, fail="boom")),
            },
            'cannot get Composition pipeline step "run-cool-function" credential "cool-secret" from Secret: boom',
            "A credential Secret get failure names step and credential.",
            id="GetCredentialsSecretError",
        ),
        pytest.param(
            {
                "step": engine.PipelineStep(
                    STEP,
                    "fn",
                    required_resources=(engine.RequiredResource("cool-req", "v1", "Foo", name="a"),),
                ),
                "sources": engine.Sources(resources=FailingResources()),
            },
            'cannot fetch bootstrap required resources for requirement "cool-req": cannot get required resource by name: boom',
            "A bootstrap fetch error names the requirement.",
            id="BootstrapRequirementsError",
        ),
        pytest.param(
            {"step": engine.PipelineStep(STEP, "nope")},
            'cannot run Composition pipeline step "run-cool-function": cannot run Function "nope": no such in-process function',
            "A runner error is wrapped with the step.",
            id="RunFunctionError",
        ),
    ],
)
async def test_TestFunctionCompose_errors(kwargs: dict[str, Any], want: str, reason: str) -> None:
    with pytest.raises(errors.CrossfnError) as exc:
        await run(noop, **kwargs)
    assert str(exc.value) == want, reason


async def test_TestFunctionCompose_FatalFunctionResultError() -> None:
    def fn(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        response.normal(rsp, "A normal result")
        response.warning(rsp, "A warning result", reason="SomeReason", target=fnv1.TARGET_COMPOSITE_AND_CLAIM)
        response.fatal(rsp, "oh no")
        response.normal(rsp, "dropped")
        rsp.conditions.add(type="DatabaseReady", status=fnv1.STATUS_CONDITION_FALSE, reason="Creating")
        rsp.conditions.add(type="DeploymentReady", status=fnv1.STATUS_CONDITION_TRUE, reason="Available")

    result = await run(fn)
    assert result.fatal is not None, "a fatal result stops the pipeline"
    assert (result.fatal.step, result.fatal.message) == (STEP, "oh no"), (
        "PipelineFatalError carries step and message"
    )
    assert str(result.fatal) == 'pipeline step "run-cool-function" returned a fatal result: oh no'
    assert result.events == (
        engine.Event(
            "Normal",
            "ComposeResources",
            "A normal result",
            engine.Target.COMPOSITE,
            'Pipeline step "run-cool-function"',
        ),
        engine.Event(
            "Warning",
            "SomeReason",
            "A warning result",
            engine.Target.COMPOSITE_AND_CLAIM,
            'Pipeline step "run-cool-function"',
        ),
    ), "results before the fatal one become events; later ones are dropped"
    assert [c.type for c in result.pipeline.conditions] == ["DatabaseReady", "DeploymentReady"], (
        "all conditions of the fatal step are kept"
    )
    assert result.composed == () and result.garbage == (), (
        "nothing is composed or deleted after a fatal result"
    )
    with pytest.raises(errors.PipelineFatalError):
        result.raise_for_fatal()


async def test_TestFunctionCompose_RenderComposedResourceMetadataError() -> None:
    def fn(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        desire(rsp, "cool-resource", composed())

    with pytest.raises(errors.InputError) as exc:  # the XR lacks the label: the user's input
        await run(fn, the_xr=xr(label=None))
    assert str(exc.value) == (
        'cannot render metadata for composed resource "cool-resource": cannot find top-level composite resource name '
        'label "crossplane.io/composite" in composite resource metadata'
    )


async def test_TestFunctionCompose_InvalidNameCreateComposedResourceError() -> None:
    def fn(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        desire(rsp, "cool-resource", composed("Invalid_Name"))

    with pytest.raises(errors.FunctionOutputError) as exc:
        await run(fn)
    assert str(exc.value) == (
        'cannot apply composed resource "cool-resource" because it has an invalid name "Invalid_Name". '
        "Must be a valid RFC 1123 subdomain name."
    )


async def test_TestFunctionCompose_GenerateNameCreateComposedResourceError() -> None:
    def fn(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        desire(rsp, "cool-resource", composed())

    with pytest.raises(errors.CrossfnError) as exc:
        await run(fn, the_xr=xr(uid=""), sources=engine.Sources(resources=TakenResources()))
    assert (
        str(exc.value)
        == 'cannot generate a name for composed resource "cool-resource": cannot generate a name for a resource'
    )


async def test_random_name_fallback_without_uid() -> None:
    def fn(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        desire(rsp, "cool-resource", composed())

    result = await run(fn, the_xr=xr(uid=""))
    name = result.composed[0].resource["metadata"]["name"]
    assert name.startswith("parent-xr-") and len(name) == len("parent-xr-") + 5, (
        "an owner without UID gets a random free name"
    )


@pytest.mark.parametrize(
    ("xr_ns", "obj", "namespaced_kind", "want_ns", "want_events", "reason"),
    [
        pytest.param(
            "test-namespace",
            composed(),
            True,
            "test-namespace",
            [],
            "A namespaced kind lands in the XR's namespace.",
            id="NamespacedXRNamespacedComposition",
        ),
        pytest.param(
            "test-namespace",
            composed(namespace="other-namespace"),
            True,
            "test-namespace",
            [
                'cannot create composed resource "cool-resource" in namespace "other-namespace", using XR namespace "test-namespace" instead'
            ],
            "Another namespace is overridden with a warning.",
            id="NamespacedXRNamespaceOverridden",
        ),
        pytest.param(
            "test-namespace",
            composed(namespace="test-namespace"),
            True,
            "test-namespace",
            [],
            "The XR's own namespace gives no warning.",
            id="NamespacedXRNamespaceMatchesXR",
        ),
        pytest.param(
            "",
            composed(),
            False,
            None,
            [],
            "A cluster XR may compose cluster-scoped kinds.",
            id="ClusterXRClusterCompositionSuccess",
        ),
    ],
)
async def test_TestFunctionCompose_namespaces(
    *,
    xr_ns: str,
    obj: dict[str, Any],
    namespaced_kind: bool,
    want_ns: str | None,
    want_events: list[str],
    reason: str,
) -> None:
    def fn(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        desire(rsp, "cool-resource", obj)

    result = await run(fn, the_xr=xr(namespace=xr_ns), sources=engine.Sources(scopes=Scopes(namespaced_kind)))
    assert result.composed[0].resource["metadata"].get("namespace") == want_ns, reason
    assert [e.message for e in result.events] == want_events, reason
    assert all(e.reason == "NamespaceOverridden" and e.type == "Warning" for e in result.events), reason
    assert result.composed[0].ready is False, "the resource is still composed, not ready"


async def test_TestFunctionCompose_NamespacedXRClusterCompositionError() -> None:
    def fn(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        desire(rsp, "cool-resource", composed(kind="ClusterThing"))

    with pytest.raises(errors.FunctionOutputError) as exc:
        await run(fn, the_xr=xr(namespace="test-namespace"), sources=engine.Sources(scopes=Scopes(False)))
    assert str(exc.value) == (
        'cannot apply cluster scoped composed resource "cool-resource" (a ClusterThing named ) '
        "for a namespaced composite resource."
    )


@pytest.mark.parametrize(
    "namespace", ["test-namespace", "kube-system"], ids=["XRNamespace", "OtherNamespace"]
)
async def test_a_namespace_does_not_skip_the_cluster_scope_check(namespace: str) -> None:
    """Crossplane checks the scope only when the namespace is empty, so a ClusterRoleBinding with
    ``metadata.namespace`` set escaped a namespaced XR; crossfn checks it whatever the namespace."""

    def fn(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        desire(rsp, "binding", composed("admin", namespace=namespace, kind="ClusterRoleBinding"))

    with pytest.raises(errors.FunctionOutputError) as exc:
        await run(fn, the_xr=xr(namespace="test-namespace"), sources=engine.Sources(scopes=Scopes(False)))
    assert str(exc.value) == (
        'cannot apply cluster scoped composed resource "binding" (a ClusterRoleBinding named admin) '
        "for a namespaced composite resource."
    )


async def test_TestFunctionCompose_Successful() -> None:
    observed = composed(
        "observed-resource-a", annotations={"crossplane.io/composition-resource-name": "observed-resource-a"}
    )

    def fn(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        d = duration_pb2.Duration()
        d.FromTimedelta(datetime.timedelta(minutes=5))
        rsp.meta.ttl.CopyFrom(d)
        desire(rsp, "desired-resource-a", composed())
        desire(rsp, "observed-resource-a", composed("function-tries-rename"), ready=True)
        rsp.desired.composite.resource.CopyFrom(resource.dict_to_struct({"status": {"widgets": 42}}))
        rsp.desired.composite.connection_details["from"] = b"function-pipeline"
        response.normal(rsp, "A normal result")
        response.warning(rsp, "A warning result")
        rsp.results.add(severity=fnv1.SEVERITY_UNSPECIFIED, message="A result of unspecified severity")
        response.normal(
            rsp,
            "A result with reason and target",
            reason="SomeReason",
            target=fnv1.TARGET_COMPOSITE_AND_CLAIM,
        )
        rsp.conditions.add(type="DatabaseReady", status=fnv1.STATUS_CONDITION_FALSE, reason="Creating")
        rsp.conditions.add(
            type="DeploymentReady", status=fnv1.STATUS_CONDITION_TRUE, reason="Available",
            message="The deployment is ready.", target=fnv1.TARGET_COMPOSITE_AND_CLAIM,
        )  # fmt: skip

    result = await run(
        fn,
        observed=(engine.ObservedResource(observed, {"secret": b"s"}),),
        options=engine.ComposeOptions.controller(engine.CompositeSchema.LEGACY),
    )
    assert result.ttl == datetime.timedelta(minutes=5), "the TTL is propagated"
    by_name = {c.name: c for c in result.composed}
    assert by_name["observed-resource-a"].ready and not by_name["desired-resource-a"].ready, (
        "READY_TRUE alone means ready"
    )
    assert by_name["observed-resource-a"].resource["metadata"]["name"] == "observed-resource-a", (
        "observed names are kept"
    )
    assert by_name["desired-resource-a"].resource["metadata"]["name"] == "parent-xr-" + engine.child_name(
        "", UID, "desired-resource-a"
    ), "ChildName"
    assert result.connection_details == {"from": b"function-pipeline"}, (
        "a legacy XR's details come from the pipeline"
    )
    detail = 'Pipeline step "run-cool-function"'
    assert result.events == (
        engine.Event("Normal", "ComposeResources", "A normal result", engine.Target.COMPOSITE, detail),
        engine.Event("Warning", "ComposeResources", "A warning result", engine.Target.COMPOSITE, detail),
        engine.Event(
            "Warning", "ComposeResources",
            'Pipeline step "run-cool-function" returned a result of unknown severity (assuming warning): '
            "A result of unspecified severity",
        ),
        engine.Event("Normal", "SomeReason", "A result with reason and target", engine.Target.COMPOSITE_AND_CLAIM, detail),
    ), "results become events in order"  # fmt: skip
    assert result.events[0].xr_message == 'Pipeline step "run-cool-function": A normal result', (
        "the XR event message"
    )
    assert [(c.type, c.status, c.reason, c.message, c.target) for c in result.pipeline.conditions] == [
        ("DatabaseReady", "False", "Creating", "", engine.Target.COMPOSITE),
        (
            "DeploymentReady",
            "True",
            "Available",
            "The deployment is ready.",
            engine.Target.COMPOSITE_AND_CLAIM,
        ),
    ], "conditions keep status, reason, message and target"
    assert result.composite["status"] == {"widgets": 42}, "the XR's desired status is applied"
    assert (
        result.ready_condition is not None
        and result.ready_condition.message == "Unready resources: desired-resource-a"
    )
    assert sorted(r["name"] for r in result.resource_refs) == sorted(
        c.resource["metadata"]["name"] for c in result.composed
    ), "refs name every desired resource"


async def test_modern_xr_ignores_connection_details() -> None:
    def fn(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        assert not req.observed.composite.connection_details, "modern XRs send no observed details"
        rsp.desired.composite.connection_details["from"] = b"x"

    result = await run(fn)
    assert result.connection_details == {}, "a modern XR never publishes connection details"


async def test_TestFunctionCompose_ResourceReferencesWithoutObservedResources() -> None:
    long_name = "test-resource-with-a-super-duper-really-long-name-to-test-compaction"

    def fn(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        desire(rsp, long_name, composed())

    result = await run(fn)
    assert result.resource_refs == (
        {"apiVersion": "test.crossplane.io/v1", "kind": "CoolComposed", "name": "parent-xr-e5ac98dc40a2"},
    ), "the deterministic name appears in the refs"


async def test_pipeline_presence_rules() -> None:
    seen: list[fnv1.RunFunctionRequest] = []

    def first(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> fnv1.RunFunctionResponse:
        seen.append(req)
        return fnv1.RunFunctionResponse()  # no desired, no context

    def second(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        seen.append(req)

    observed = composed("gone", annotations={"crossplane.io/composition-resource-name": "gone"},
                        ownerReferences=[{"uid": UID, "controller": True, "kind": "XR", "name": "cool-xr"}])  # fmt: skip
    runner = engine.build_runner(engine.InProcessRunner({"a": first, "b": second}))
    result = await engine.compose(
        xr(), [engine.PipelineStep("one", "a"), engine.PipelineStep("two", "b")], runner,
        observed=(engine.ObservedResource(observed),), clock=lambda: NOW,
    )  # fmt: skip
    assert seen[0].HasField("desired") and seen[0].HasField("context"), (
        "the first step gets present, empty desired and context"
    )
    assert not seen[1].HasField("desired") and not seen[1].HasField("context"), "absent stays absent"
    assert list(seen[0].meta.capabilities) == list(engine.CAPABILITIES), "capabilities in Crossplane's order"
    assert seen[0].meta.tag and seen[0].meta.tag != seen[1].meta.tag, "each step's request is tagged"
    assert [g["metadata"]["name"] for g in result.garbage] == ["gone"], (
        "no desired state garbage-collects everything"
    )


async def test_credentials_are_delivered() -> None:
    def fn(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        rsp.desired.composite.resource.CopyFrom(
            resource.dict_to_struct(
                {
                    "status": {
                        "creds": sorted(req.credentials),
                        "pw": req.credentials["db"].credential_data.data["pw"].decode(),
                    }
                }
            )
        )

    step = engine.PipelineStep(
        STEP, "fn",
        credentials=(engine.StepCredential("db", "Secret", "s", "ns"), engine.StepCredential("skipped", "None")),
    )  # fmt: skip
    result = await run(
        fn, step=step, sources=engine.Sources(credentials=Secrets({("ns", "s"): {"pw": b"hunter2"}}))
    )
    assert result.composite["status"] == {"creds": ["db"], "pw": "hunter2"}, (
        "Secret credentials arrive; source None is skipped"
    )


def test_TestGetComposedResources() -> None:
    other = composed("x", annotations={"crossplane.io/composition-resource-name": "x"},
                     ownerReferences=[{"uid": "someone-else", "controller": True}])  # fmt: skip
    mine = composed("y", annotations={"crossplane.io/composition-resource-name": "y"})
    got = engine._compose.observed_resources(
        xr(), [engine.ObservedResource(other), engine.ObservedResource(mine)]
    )
    assert list(got) == ["y"], (
        "UncontrolledComposedResource: a resource controlled by someone else is skipped"
    )
    with pytest.raises(errors.CrossfnError) as exc:
        engine._compose.observed_resources(xr(), [engine.ObservedResource(composed("z"))])
    assert str(exc.value) == (
        "cannot get existing composed resources: encountered composed resource without required "
        '"crossplane.io/composition-resource-name" annotation'
    ), "AnonymousComposedResourceError"


def owned(name: str, uid: str | None) -> dict[str, Any]:
    refs = [] if uid is None else [{"uid": uid, "controller": True, "kind": "XR", "name": "other-xr"}]
    return composed(name, labels={"crossplane.io/composite": "parent-xr", "keep": "me"}, ownerReferences=refs)


@pytest.mark.parametrize(
    ("observed", "delete_orphans", "want", "reason"),
    [
        pytest.param(
            {"a": owned("a", UID)},
            False,
            ["a"],
            "An undesired resource we control is deleted.",
            id="SuccessfulDelete",
        ),
        pytest.param(
            {"desired": owned("d", UID)}, False, [], "A desired resource is kept.", id="SuccessfulNoop"
        ),
        pytest.param(
            {"a": owned("a", None)},
            False,
            [],
            "No controller ref: never delete what we cannot prove we composed.",
            id="OrphanedResourceNotDeleted",
        ),
        pytest.param(
            {"a": owned("a", None)},
            True,
            ["a"],
            "≤ v2.3 deletes orphans.",
            id="OrphanedResourceDeletedLegacy",
        ),
    ],
)
def test_TestGarbageCollectComposedResources(
    observed: dict[str, dict[str, Any]], delete_orphans: bool, want: list[str], reason: str
) -> None:
    got = _gc.garbage(observed, {"desired": object()}, xr(), delete_orphans=delete_orphans)
    assert [g["metadata"]["name"] for g in got] == want, reason
    for g in got:
        assert g["metadata"]["labels"] == {"keep": "me"}, (
            "composite and claim labels are stripped before deletion"
        )


def test_TestGarbageCollectComposedResources_UncontrolledResource() -> None:
    with pytest.raises(errors.CrossfnError) as exc:
        _gc.garbage({"a": owned("a", "someone-else")}, {}, xr(), delete_orphans=False)
    assert str(exc.value) == (
        "cannot garbage collect composed resources that are no longer desired: "
        'refusing to delete composed resource "a" that is controlled by XR "other-xr"'
    )


@pytest.mark.parametrize(
    ("namespaced", "want", "reason"),
    [
        pytest.param(
            False,
            [
                {"apiVersion": "a/v1", "kind": "A", "name": "x", "namespace": "ns"},
                {"apiVersion": "b/v1", "kind": "A", "name": "a"},
                {"apiVersion": "b/v1", "kind": "B", "name": "a"},
            ],
            "Cluster XR refs keep namespaces and sort by apiVersion+kind+name+namespace.",
            id="ClusterScopedXR",
        ),
        pytest.param(
            True,
            [
                {"apiVersion": "a/v1", "kind": "A", "name": "x"},
                {"apiVersion": "b/v1", "kind": "A", "name": "a"},
                {"apiVersion": "b/v1", "kind": "B", "name": "a"},
            ],
            "Namespaced XR refs drop the namespace.",
            id="NamespacedXR",
        ),
    ],
)
def test_TestUpdateResourceRefs(namespaced: bool, want: list[dict[str, str]], reason: str) -> None:
    objs: list[dict[str, Any]] = [
        {"apiVersion": "b/v1", "kind": "B", "metadata": {"name": "a"}},
        {"apiVersion": "a/v1", "kind": "A", "metadata": {"name": "x", "namespace": "ns"}},
        {"apiVersion": "b/v1", "kind": "A", "metadata": {"name": "a"}},
        {"metadata": {}},
    ]
    assert _refs.resource_refs(objs, namespaced_xr=namespaced) == want, reason


@pytest.mark.parametrize(
    ("step", "message", "want"),
    [
        pytest.param(
            "run-cool-function",
            "oh no",
            'pipeline step "run-cool-function" returned a fatal result: oh no',
            id="PopulatedFields",
        ),
        pytest.param("", "", 'pipeline step "" returned a fatal result: ', id="EmptyFields"),
    ],
)
def test_TestPipelineFatalErrorError(step: str, message: str, want: str) -> None:
    assert str(errors.PipelineFatalError(step, message)) == want


def test_TestPipelineFatalErrorAs() -> None:
    try:
        try:
            raise errors.PipelineFatalError("s", "m")
        except errors.PipelineFatalError as inner:
            raise errors.CrossfnError("cannot compose resources: " + str(inner)) from inner
    except errors.CrossfnError as outer:
        assert isinstance(outer.__cause__, errors.PipelineFatalError), (
            "the typed error is found through a wrap"
        )


@pytest.mark.parametrize(
    ("owners", "err", "reason"),
    [
        pytest.param(
            [{"uid": "other", "controller": True, "kind": "Other", "name": "o"}],
            "cannot set controller reference:  is already controlled by Other o (UID other)",
            "Another controller is refused.",
            id="ConflictingControllerReference",
        ),
        pytest.param(
            [{"uid": UID, "controller": True, "kind": "XR", "name": "cool-xr"}],
            None,
            "Our own controller ref is replaced.",
            id="CompatibleControllerReference",
        ),
        pytest.param([], None, "A fresh object gets the controller ref.", id="NoControllerReference"),
    ],
)
def test_TestRenderComposedResourceMetadata(
    owners: list[dict[str, Any]], err: str | None, reason: str
) -> None:
    obj = composed(ownerReferences=owners)
    if err is not None:
        with pytest.raises(errors.FunctionOutputError) as exc:
            _metadata.render_metadata(obj, xr(), "r", prefix="parent-xr", claim_ref_labels=False)
        assert str(exc.value) == err, reason
        return
    _metadata.render_metadata(obj, xr(), "r", prefix="parent-xr", claim_ref_labels=False)
    assert obj["metadata"]["ownerReferences"] == [
        {
            "apiVersion": "example.org/v1",
            "kind": "XR",
            "name": "cool-xr",
            "uid": UID,
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ], reason
    assert obj["metadata"]["labels"] == {"crossplane.io/composite": "parent-xr"}, (
        "NoClaimLabels: no claim labels without XR claim labels"
    )
    assert obj["metadata"]["annotations"] == {"crossplane.io/composition-resource-name": "r"}, reason
    assert obj["metadata"]["generateName"] == "parent-xr-", "generateName is the composite label plus -"


@pytest.mark.parametrize(
    ("meta", "reason"),
    [
        pytest.param(
            {"labels": None},
            "A common-labels patch from an XR without labels leaves labels null.",
            id="NullLabels",
        ),
        pytest.param(
            {"annotations": None},
            "Null annotations are empty too, as Go's SetAnnotations treats them.",
            id="NullAnnotations",
        ),
        pytest.param({"labels": None, "annotations": None}, "Both at once.", id="BothNull"),
    ],
)
def test_render_metadata_treats_null_maps_as_empty(meta: dict[str, Any], reason: str) -> None:
    obj = composed(**meta)
    _metadata.render_metadata(obj, xr(), "r", prefix="parent-xr", claim_ref_labels=False)
    assert obj["metadata"]["labels"] == {"crossplane.io/composite": "parent-xr"}, reason
    assert obj["metadata"]["annotations"] == {"crossplane.io/composition-resource-name": "r"}, reason


class FailingSchemas:
    async def schema(self, api_version: str, kind: str) -> dict[str, Any] | None:
        raise RuntimeError("boom")


class FailingScopes:
    async def is_namespaced(self, api_version: str, kind: str) -> bool:
        raise RuntimeError("boom")


def _desire_obj(obj: dict[str, Any]) -> Compose:
    def fn(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        desire(rsp, "cool-resource", obj)

    return fn


@pytest.mark.parametrize(
    ("fn", "kwargs", "want", "reason"),
    [
        pytest.param(
            noop,
            {
                "step": engine.PipelineStep(
                    STEP,
                    "fn",
                    required_schemas=(engine.RequiredSchema("cool-schema", "apps/v1", "Deployment"),),
                ),
                "sources": engine.Sources(schemas=FailingSchemas()),
            },
            'cannot fetch bootstrap required schema for requirement "cool-schema": cannot get OpenAPI schema for apps/v1: boom',
            "A bootstrap schema fetch error names the requirement.",
            id="BootstrapSchemaError",
        ),
        pytest.param(
            noop,
            {"the_xr": xr(spec={"when": object()})},
            "cannot encode composite resource to protocol buffer Struct well-known type: cannot convert object to a protobuf Value",
            "An XR that is not JSON cannot be sent.",
            id="EncodeCompositeError",
        ),
        pytest.param(
            _desire_obj({"apiVersion": "v1", "kind": "ConfigMap", "metadata": "nope"}),
            {},
            'cannot unmarshal desired composed resource "cool-resource" from RunFunctionResponse: metadata must be an object',
            "A desired resource whose metadata is not an object.",
            id="UnmarshalDesiredComposedError",
        ),
        pytest.param(
            _desire_obj(composed("n")),
            {"the_xr": xr(namespace="ns"), "sources": engine.Sources(scopes=FailingScopes())},
            'cannot check if composed resource "cool-resource" is namespaced (a CoolComposed named n): boom',
            "A failing scope lookup.",
            id="CheckNamespacedError",
        ),
    ],
)
async def test_error_catalogue(fn: Compose, kwargs: dict[str, Any], want: str, reason: str) -> None:
    with pytest.raises(errors.CrossfnError) as exc:
        await run(fn, **kwargs)
    assert str(exc.value) == want, reason


@pytest.mark.parametrize(
    ("schema", "namespace", "want_spec", "reason"),
    [
        pytest.param(
            engine.CompositeSchema.MODERN,
            "ns",
            {
                "crossplane": {
                    "resourceRefs": [
                        {"apiVersion": "test.crossplane.io/v1", "kind": "CoolComposed", "name": "n"}
                    ]
                }
            },
            "Modern XRs keep refs under spec.crossplane, without namespaces.",
            id="ModernXRWithV2XRD",
        ),
        pytest.param(
            engine.CompositeSchema.LEGACY,
            "",
            {"resourceRefs": [{"apiVersion": "test.crossplane.io/v1", "kind": "CoolComposed", "name": "n"}]},
            "Legacy XRs keep refs under spec.",
            id="LegacyXRWithV1XRDDefaultScope",
        ),
    ],
)
async def test_resource_refs_patch(
    schema: engine.CompositeSchema, namespace: str, want_spec: dict[str, Any], reason: str
) -> None:
    result = await run(
        _desire_obj(composed("n")),
        the_xr=xr(namespace=namespace),
        options=engine.ComposeOptions.controller(schema),
    )
    assert result.resource_refs_patch["spec"] == want_spec, reason
    assert result.resource_refs_patch["metadata"] == (
        {"name": "cool-xr", "namespace": namespace} if namespace else {"name": "cool-xr"}
    ), reason


def _desire_xr(obj: dict[str, Any]) -> Compose:
    def fn(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        rsp.desired.composite.resource.CopyFrom(resource.dict_to_struct(obj))

    return fn


@pytest.mark.parametrize(
    ("fn", "the_xr", "options", "want", "reason"),
    [
        pytest.param(
            _desire_obj({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"labels": ["a"]}}),
            None,
            None,
            'cannot unmarshal desired composed resource "cool-resource" from RunFunctionResponse: metadata.labels must map strings to strings',
            "Labels must be a string map.",
            id="ComposedLabelsNotAMap",
        ),
        pytest.param(
            _desire_obj({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": 3}}),
            None,
            None,
            'cannot unmarshal desired composed resource "cool-resource" from RunFunctionResponse: metadata.name must be a string',
            "A name must be a string.",
            id="ComposedNameNotAString",
        ),
        pytest.param(
            _desire_obj({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"ownerReferences": "me"}}),
            None,
            None,
            'cannot unmarshal desired composed resource "cool-resource" from RunFunctionResponse: metadata.ownerReferences must be a list of objects',
            "Owner references must be a list.",
            id="ComposedOwnersNotAList",
        ),
        pytest.param(
            _desire_xr({"status": "ready"}),
            None,
            None,
            "cannot unmarshal desired composite resource status from RunFunctionResponse: status must be an object",
            "The desired XR status must be an object.",
            id="DesiredStatusNotAnObject",
        ),
        pytest.param(
            _desire_xr({"status": {"conditions": "all good"}}),
            None,
            engine.ComposeOptions.classic_render(),
            "cannot render desired composite resource: status.conditions must be a list of objects",
            "Classic render's text for a bad desired XR.",
            id="ClassicDesiredConditionsNotAList",
        ),
        pytest.param(
            noop,
            {"apiVersion": "example.org/v1", "kind": "XR", "metadata": {"name": "x", "labels": "oops"}},
            None,
            "cannot compose resources: composite resource metadata.labels must map strings to strings",
            "A malformed XR is refused before any function runs.",
            id="CompositeLabelsNotAMap",
        ),
    ],
)
async def test_malformed_objects_are_clear_errors(
    fn: Compose, the_xr: dict[str, Any] | None, options: engine.ComposeOptions | None, want: str, reason: str
) -> None:
    # A malformed XR is the user's input at fault; a malformed desired object, the function's output.
    fault = errors.InputError if the_xr is not None else errors.FunctionOutputError
    with pytest.raises(fault) as exc:
        await run(fn, the_xr=the_xr, options=options)
    assert str(exc.value) == want, reason
    assert not isinstance(exc.value, errors.InputError) or fault is errors.InputError, reason


async def test_a_null_name_is_no_name() -> None:
    """A ``name: null`` (a template's empty ``name:``) decodes as Go's empty string: a name is generated."""
    result = await run(_desire_obj({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": None}}))
    (composed_resource,) = result.composed
    meta = composed_resource.resource["metadata"]
    prefix = meta["generateName"]
    assert prefix.endswith("-")
    assert isinstance(meta["name"], str) and meta["name"].startswith(prefix)


def test_malformed_observed_resource_is_an_input_error() -> None:
    with pytest.raises(errors.InputError) as exc:
        engine._compose.observed_resources(xr(), [engine.ObservedResource({"metadata": "nope"})])
    assert (
        str(exc.value)
        == "cannot get existing composed resources: observed resource metadata must be an object"
    )


def test_composed_field_owner() -> None:
    the_xr = {"apiVersion": "example.org/v1", "kind": "XBucket", "metadata": {"name": "cool-xr"}}
    want = "apiextensions.crossplane.io/composed/" + hashlib.sha256(b"cool-xrXBucket.example.org").hexdigest()
    assert _metadata.composed_field_owner(the_xr) == want, (
        "sha256 of the XR name and Kind.group, all 64 hex characters"
    )
    assert len(_metadata.composed_field_owner(the_xr).rpartition("/")[2]) == 64


class Taken(engine.NoResources):
    """A name source where the first ``taken`` lookups find an existing object."""

    def __init__(self, taken: int, fail: bool = False) -> None:
        self.taken = taken
        self.fail = fail
        self.gets = 0

    async def get(self, api_version: str, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        self.gets += 1
        if self.fail:
            raise RuntimeError("boom")
        return composed(name) if self.gets <= self.taken else None


@pytest.mark.parametrize(
    ("uid", "generate_name", "source", "want", "reason"),
    [
        pytest.param(
            UID,
            "cool-xr-",
            Taken(0),
            "cool-xr-" + engine.child_name("", UID, "res"),
            "An owner UID gives ChildName.",
            id="SuccessComposite",
        ),
        pytest.param(
            UID,
            "x" * 70 + "-",
            Taken(0),
            "x" * 50 + "-" + engine.child_name("", UID, "res"),
            "A long prefix is truncated.",
            id="SuccessCompositeTruncated",
        ),
        pytest.param(
            "",
            "cool-xr-",
            Taken(0),
            "cool-xr-?????",
            "No owner UID: a random free name.",
            id="SuccessMissingOwner",
        ),
        pytest.param(
            "", "cool-xr-", Taken(2), "cool-xr-?????", "Taken names are retried.", id="SuccessAfterConflict"
        ),
    ],
)
async def test_TestGenerateName(uid: str, generate_name: str, source: Taken, want: str, reason: str) -> None:
    obj = composed(generateName=generate_name)
    got = await engine._compose._generate_name(obj, xr(uid=uid), "res", source, random.Random(7))
    if want.endswith("?????"):
        assert got.startswith(want[:-5]) and len(got) == len(want) and got[-5:].isalnum(), reason
        assert source.gets == source.taken + 1, "each candidate is checked once"
        return
    assert got == want, reason
    assert source.gets == 0, "deterministic names need no lookup"


@pytest.mark.parametrize(
    ("source", "want", "reason"),
    [
        pytest.param(
            Taken(99),
            'cannot generate a name for composed resource "res": cannot generate a name for a resource',
            "Ten conflicts give up.",
            id="AlwaysConflict",
        ),
        pytest.param(
            Taken(0, fail=True),
            'cannot generate a name for composed resource "res": boom',
            "A lookup error is returned.",
            id="NameGeneratorClientError",
        ),
    ],
)
async def test_TestGenerateName_errors(source: Taken, want: str, reason: str) -> None:
    with pytest.raises(errors.CrossfnError) as exc:
        await engine._compose._generate_name(
            composed(generateName="p-"), xr(uid=""), "res", source, random.Random(7)
        )
    assert str(exc.value) == want, reason


async def test_TestGenerateName_SkipGenerateNamedResources() -> None:
    result = await run(_desire_obj(composed("explicit-name")))
    assert result.composed[0].resource["metadata"]["name"] == "explicit-name", (
        "a named resource keeps its name"
    )


async def test_TestAsState_Success() -> None:
    seen: list[fnv1.State] = []

    def fn(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        seen.append(req.observed)

    observed = composed("o", annotations={"crossplane.io/composition-resource-name": "cool"})
    await run(
        fn,
        observed=(engine.ObservedResource(observed, {"key": b"value"}),),
        options=engine.ComposeOptions.controller(engine.CompositeSchema.LEGACY),
    )
    state = seen[0]
    assert resource.struct_to_dict(state.composite.resource) == xr(), "the whole XR is observed"
    assert resource.struct_to_dict(state.resources["cool"].resource) == observed, (
        "keyed by composition resource name"
    )
    assert dict(state.resources["cool"].connection_details) == {"key": b"value"}, (
        "with its connection details"
    )


async def test_seeded_requirements_resolve_in_one_call() -> None:
    calls: list[fnv1.RunFunctionRequest] = []

    class Source(engine.NoResources):
        async def get(self, api_version: str, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
            if kind == "Nope":
                raise RuntimeError("forbidden")
            return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}}

    sources = engine.Sources(resources=Source())
    step = [engine.PipelineStep(STEP, "fn")]

    def fn_ok(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        calls.append(req)
        rsp.requirements.resources["cfg"].CopyFrom(
            fnv1.ResourceSelector(api_version="v1", kind="ConfigMap", match_name="cfg")
        )

    runner = engine.build_runner(engine.InProcessRunner({"fn": fn_ok}), sources=sources)
    first = await engine.compose(xr(), step, runner, sources=sources, tracer=engine.NoTracer())
    assert len(calls) == 2, "without a seed the function asks, then receives"
    calls.clear()
    seed = dict(first.pipeline.requirements)
    seed[STEP].resources["gone"].CopyFrom(
        fnv1.ResourceSelector(api_version="v1", kind="Nope", match_name="x")
    )
    await engine.compose(xr(), step, runner, sources=sources, tracer=engine.NoTracer(), seed=seed)
    assert len(calls) == 1, "seeded with last reconcile's requirements, one call suffices (HEAD)"
    assert "cfg" in calls[0].required_resources and "gone" not in calls[0].required_resources, (
        "seed errors are ignored"
    )


async def test_run_pipeline_without_observed_state() -> None:
    seen: list[fnv1.RunFunctionRequest] = []

    def fn(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        seen.append(req)

    runner = engine.build_runner(engine.InProcessRunner({"fn": fn}))
    await engine.run_pipeline(None, [engine.PipelineStep("op", "fn")], runner, tracer=engine.NoTracer())
    assert not seen[0].HasField("observed"), "an Operation's request has no observed state"
    assert seen[0].HasField("desired") and seen[0].HasField("context"), (
        "desired and context still start present and empty"
    )
