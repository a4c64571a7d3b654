"""The engine under classic render's contract (upstream core-3.5; core-4.10 cmd/crank/render render_test.go).

Loading files and printing YAML are render's; what is tested here is what
the engine decides with ``ComposeOptions.classic_render()``.
"""

import datetime
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from crossfn import engine, errors
from crossfn.engine import _metadata
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource, response

FIXED = datetime.datetime(2024, 1, 1, tzinfo=datetime.UTC)
OPTIONS = engine.ComposeOptions.classic_render()

Compose = Callable[[fnv1.RunFunctionRequest, fnv1.RunFunctionResponse], object]


def xr(**meta: Any) -> dict[str, Any]:
    return {
        "apiVersion": "nop.example.org/v1alpha1",
        "kind": "XNopResource",
        "metadata": {"name": "test-render", **meta},
        "spec": {"coolField": "I'm cool!"},
    }


class Objects(engine.NoResources):
    def __init__(self, *objects: dict[str, Any]) -> None:
        self.objects = objects

    async def list(
        self, api_version: str, kind: str, namespace: str | None, labels: Mapping[str, str] | None
    ) -> list[dict[str, Any]]:
        return [o for o in self.objects if (o["apiVersion"], o["kind"]) == (api_version, kind)]


class Secrets:
    def __init__(self, *secrets: tuple[str, str, dict[str, bytes]]) -> None:
        self.secrets = {(ns, name): data for ns, name, data in secrets}

    async def secret(self, namespace: str, name: str) -> Mapping[str, bytes] | None:
        return self.secrets.get((namespace, name))


async def render(
    fn: Compose,
    *,
    the_xr: dict[str, Any] | None = None,
    step: engine.PipelineStep | None = None,
    context: Mapping[str, Any] | None = None,
    sources: engine.Sources | None = None,
    observed: tuple[engine.ObservedResource, ...] = (),
    options: engine.ComposeOptions = OPTIONS,
) -> tuple[engine.CompositionResult, list[fnv1.RunFunctionRequest]]:
    calls: list[fnv1.RunFunctionRequest] = []

    def recording(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> object:
        calls.append(req)
        return fn(req, rsp)

    runner = engine.build_runner(
        engine.InProcessRunner({"function-dummy": recording}), sources=sources, options=options
    )
    result = await engine.compose(
        the_xr or xr(), [step or engine.PipelineStep("test", "function-dummy")], runner,
        observed=observed, context=context, sources=sources, options=options, clock=lambda: FIXED,
    )  # fmt: skip
    return result, calls


def success(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    rsp.desired.composite.resource.CopyFrom(resource.dict_to_struct({"status": {"widgets": 9001}}))
    rsp.desired.resources["b-cool-resource"].resource.CopyFrom(
        resource.dict_to_struct(
            {"apiVersion": "atest.crossplane.io/v1", "kind": "AComposed", "spec": {"widgets": 9003}}
        )
    )
    rsp.desired.resources["a-cool-resource"].resource.CopyFrom(
        resource.dict_to_struct(
            {"apiVersion": "btest.crossplane.io/v1", "kind": "BComposed", "spec": {"widgets": 9002}}
        )
    )
    rsp.conditions.add(
        type="ProvisioningSuccess",
        status=fnv1.STATUS_CONDITION_TRUE,
        reason="Provisioned",
        message="Provisioned successfully",
    )
    rsp.requirements.SetInParent()


async def test_TestRender_Success() -> None:
    result, calls = await render(success)
    result.raise_for_fatal()
    assert result.composite == {
        "apiVersion": "nop.example.org/v1alpha1",
        "kind": "XNopResource",
        "metadata": {"name": "test-render"},
        "status": {
            "conditions": [
                {"lastTransitionTime": "2024-01-01T00:00:00Z", "message": "Unready resources: a-cool-resource, b-cool-resource",
                 "reason": "Creating", "status": "False", "type": "Ready"},
                {"lastTransitionTime": "2024-01-01T00:00:00Z", "message": "Provisioned successfully",
                 "reason": "Provisioned", "status": "True", "type": "ProvisioningSuccess"},
            ],
            "widgets": 9001,
        },
    }, "the golden XR: Ready first, then function conditions, no Synced"  # fmt: skip
    assert [c.name for c in result.composed] == ["a-cool-resource", "b-cool-resource"], (
        "sorted by composition resource name"
    )
    assert result.composed[0].resource == {
        "apiVersion": "btest.crossplane.io/v1",
        "kind": "BComposed",
        "metadata": {
            "annotations": {"crossplane.io/composition-resource-name": "a-cool-resource"},
            "generateName": "test-render-",
            "labels": {"crossplane.io/composite": "test-render"},
            "ownerReferences": [
                {"apiVersion": "nop.example.org/v1alpha1", "blockOwnerDeletion": True, "controller": True,
                 "kind": "XNopResource", "name": "test-render", "uid": ""},
            ],
        },
        "spec": {"widgets": 9002},
    }, "classic render keeps generateName and uses the XR name as prefix"  # fmt: skip
    assert "test" in result.pipeline.requirements, "Requirements[test] is recorded"
    assert not calls[0].meta.tag and list(calls[0].meta.capabilities) == list(engine.CAPABILITIES), (
        "no tag, capabilities only"
    )


async def test_TestRender_SuccessReady() -> None:
    def fn(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        success(req, rsp)
        for r in rsp.desired.resources.values():
            r.ready = fnv1.READY_TRUE
        rsp.desired.composite.resource.CopyFrom(
            resource.dict_to_struct(
                {"status": {"conditions": [{"type": "Ready", "status": "False", "reason": "Creating"}]}}
            )
        )

    result, _ = await render(fn)
    ready = [c for c in result.composite["status"]["conditions"] if c["type"] == "Ready"]
    assert ready == [
        {
            "type": "Ready",
            "status": "True",
            "reason": "Available",
            "lastTransitionTime": "2024-01-01T00:00:00Z",
        }
    ], "render's computed Ready replaces the function-supplied one"


@pytest.mark.parametrize(
    ("requirements", "reason"),
    [
        pytest.param(False, "Outputs contain an empty Requirements map.", id="FatalResult"),
        pytest.param(
            True, "Outputs contain the fatal step's requirements.", id="FatalResultWithRequirements"
        ),
    ],
)
async def test_TestRender_fatal(requirements: bool, reason: str) -> None:
    def fn(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        response.fatal(rsp, "oh no")
        if requirements:
            rsp.requirements.resources["x"].CopyFrom(
                fnv1.ResourceSelector(api_version="v1", kind="Foo", match_name="x")
            )

    result, _ = await render(fn)
    with pytest.raises(errors.PipelineFatalError) as exc:
        result.raise_for_fatal()
    assert str(exc.value) == 'pipeline step "test" returned a fatal result: oh no'
    assert (list(result.pipeline.requirements) == ["test"]) is requirements, reason


async def test_TestRender_SuccessWithResources() -> None:
    def fn(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        rsp.requirements.extra_resources["extra-resource-by-name"].CopyFrom(
            fnv1.ResourceSelector(
                api_version="test.crossplane.io/v1", kind="Foo", match_name="extra-resource"
            )
        )
        items = (
            req.extra_resources["extra-resource-by-name"].items
            if "extra-resource-by-name" in req.extra_resources
            else []
        )
        if items:
            widgets = resource.struct_to_dict(items[0].resource)["spec"]["widgets"]
            rsp.desired.composite.resource.CopyFrom(resource.dict_to_struct({"status": {"widgets": widgets}}))

    extra = {
        "apiVersion": "test.crossplane.io/v1",
        "kind": "Foo",
        "metadata": {"name": "extra-resource"},
        "spec": {"widgets": 42},
    }
    result, calls = await render(fn, sources=engine.Sources(resources=Objects(extra)))
    assert len(calls) == 2, "exactly two calls: ask, then receive"
    assert result.composite["status"]["widgets"] == 42, "the second call read the fetched resource"


async def test_TestRender_InvalidInput() -> None:
    with pytest.raises(errors.CrossfnError) as exc:
        await render(success, step=engine.PipelineStep("test", "function-dummy", input="{"))
    assert (
        str(exc.value)
        == 'cannot unmarshal input for Composition pipeline step "test": input must be an object, not a string'
    )


async def test_TestRender_SuccessWithYAMLAndJSONContexts() -> None:
    def fn(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        rsp.desired.composite.resource.CopyFrom(
            resource.dict_to_struct({"status": {"ctx": resource.struct_to_dict(req.context)}})
        )

    ctx = {"apiextensions.crossplane.io/environment": {"a": 1}, "json": {"b": [1, 2]}}
    result, _ = await render(fn, context=ctx)
    assert result.composite["status"]["ctx"] == ctx, "context values arrive before step 1"
    assert result.pipeline.context == ctx, "the final context is returned for -c"


async def test_TestRender_NamespacedXRPropagatesToComposed() -> None:
    result, _ = await render(success, the_xr=xr(namespace="test-namespace"))
    assert {c.resource["metadata"]["namespace"] for c in result.composed} == {"test-namespace"}


async def test_results_are_kept_with_their_step() -> None:
    def fn(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        response.normal(rsp, "hi")
        rsp.results.add(severity=fnv1.SEVERITY_UNSPECIFIED, message="what")

    result, _ = await render(fn)
    assert [(r.step, r.severity_name, r.message) for r in result.pipeline.results] == [
        ("test", "SEVERITY_NORMAL", "hi"),
        ("test", "SEVERITY_UNSPECIFIED", "what"),
    ], "classic Result documents: message, severity, step"


async def test_observed_resources_keep_identity_and_are_not_collected() -> None:
    observed = {
        "apiVersion": "btest.crossplane.io/v1", "kind": "BComposed",
        "metadata": {"name": "observed-name", "annotations": {"crossplane.io/composition-resource-name": "a-cool-resource"}},
    }  # fmt: skip
    gone = {
        "apiVersion": "v1",
        "kind": "Gone",
        "metadata": {"name": "gone", "annotations": {"crossplane.io/composition-resource-name": "gone"}},
    }
    result, _ = await render(
        success, observed=(engine.ObservedResource(observed), engine.ObservedResource(gone))
    )
    assert result.composed[0].resource["metadata"]["name"] == "observed-name", "the observed name is copied"
    assert "generateName" not in result.composed[0].resource["metadata"], (
        "an observed resource has no generateName"
    )
    assert result.garbage == (), "classic render has no GC"


@pytest.mark.parametrize(
    ("secrets", "err", "reason"),
    [
        pytest.param(
            [("ns", "s", {"k": b"v"})],
            None,
            "A Secret with matching name and namespace is used.",
            id="SecretFound",
        ),
        pytest.param(
            [],
            'cannot get credentials from secret "s": secret "s" not found',
            "A missing Secret is an error.",
            id="SecretNotFound",
        ),
        pytest.param(
            [("other", "s", {"k": b"v"})],
            'cannot get credentials from secret "s": secret "s" not found',
            "The namespace must match too.",
            id="SecretWrongNamespace",
        ),
    ],
)
async def test_TestGetSecret(
    secrets: list[tuple[str, str, dict[str, bytes]]], err: str | None, reason: str
) -> None:
    step = engine.PipelineStep(
        "test", "function-dummy", credentials=(engine.StepCredential("c", "Secret", "s", "ns"),)
    )
    sources = engine.Sources(credentials=Secrets(*secrets))
    if err is None:
        _, calls = await render(success, step=step, sources=sources)
        assert calls[0].credentials["c"].credential_data.data["k"] == b"v", reason
        return
    with pytest.raises(errors.CrossfnError) as exc:
        await render(success, step=step, sources=sources)
    assert str(exc.value) == err, reason


async def test_classic_call_error_text() -> None:
    options = engine.ComposeOptions.classic_render()
    runner = engine.build_runner(engine.InProcessRunner({}), options=options)
    with pytest.raises(errors.FunctionRunError) as exc:
        await engine.compose(xr(), [engine.PipelineStep("test", "missing")], runner, options=options)
    assert str(exc.value).startswith('cannot run pipeline step "test": '), "classic render's call error text"


async def test_bootstrap_resources_come_only_from_bootstrap_source() -> None:
    def fn(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        got = [
            resource.struct_to_dict(i.resource)["metadata"]["name"]
            for i in req.required_resources["boot"].items
        ]
        rsp.desired.composite.resource.CopyFrom(resource.dict_to_struct({"status": {"got": got}}))

    def foo(name: str) -> dict[str, Any]:
        return {"apiVersion": "v1", "kind": "Foo", "metadata": {"name": name}}

    step = engine.PipelineStep(
        "test",
        "function-dummy",
        required_resources=(engine.RequiredResource("boot", "v1", "Foo"),),
        has_requirements=True,
    )
    sources = engine.Sources(
        resources=Objects(foo("extra"), foo("required")), bootstrap_resources=Objects(foo("required"))
    )
    result, _ = await render(fn, step=step, sources=sources)
    assert result.composite["status"]["got"] == ["required"], (
        "--extra-resources do not serve bootstrap requirements"
    )


@pytest.mark.parametrize(
    ("xr_meta", "xr_spec", "want_labels", "reason"),
    [
        pytest.param(
            {},
            {},
            {"crossplane.io/composite": "test-render"},
            "No label: the XR name is prefix and label.",
            id="RootXRUsesOwnName",
        ),
        pytest.param(
            {"labels": {"crossplane.io/composite": "root"}},
            {},
            {"crossplane.io/composite": "root"},
            "A nested XR passes the root label on.",
            id="NestedXRPropagatesRootLabel",
        ),
        pytest.param(
            {
                "labels": {
                    "crossplane.io/composite": "root",
                    "crossplane.io/claim-name": "c",
                    "crossplane.io/claim-namespace": "n",
                }
            },
            {},
            {
                "crossplane.io/composite": "root",
                "crossplane.io/claim-name": "c",
                "crossplane.io/claim-namespace": "n",
            },
            "Claim labels propagate from a nested XR.",
            id="NestedXRPropagatesClaimLabels",
        ),
        pytest.param(
            {},
            {"claimRef": {"name": "c", "namespace": "n"}},
            {
                "crossplane.io/composite": "test-render",
                "crossplane.io/claim-name": "c",
                "crossplane.io/claim-namespace": "n",
            },
            "A root legacy XR takes claim labels from its claimRef.",
            id="RootXRWithClaimReference",
        ),
        pytest.param(
            {"labels": {"crossplane.io/claim-name": "c", "crossplane.io/claim-namespace": "n"}},
            {},
            {
                "crossplane.io/composite": "test-render",
                "crossplane.io/claim-name": "c",
                "crossplane.io/claim-namespace": "n",
            },
            "Claim labels without a composite label still propagate.",
            id="XRWithClaimLabelsButNoCompositeLabel",
        ),
        pytest.param(
            {"labels": {"crossplane.io/claim-name": "c", "crossplane.io/claim-namespace": ""}},
            {},
            {"crossplane.io/composite": "test-render"},
            "An empty claim label is no claim: neither label is copied.",
            id="EmptyClaimNamespaceLabel",
        ),
        pytest.param(
            {"labels": {"crossplane.io/claim-name": "", "crossplane.io/claim-namespace": "n"}},
            {"claimRef": {"name": "c", "namespace": "n"}},
            {
                "crossplane.io/composite": "test-render",
                "crossplane.io/claim-name": "c",
                "crossplane.io/claim-namespace": "n",
            },
            "Empty claim labels fall back to the legacy claimRef.",
            id="EmptyClaimNameLabelFallsBackToClaimRef",
        ),
        pytest.param(
            {"labels": {"crossplane.io/claim-name": "c"}},
            {},
            {"crossplane.io/composite": "test-render"},
            "One claim label alone is not copied.",
            id="OnlyClaimNameLabel",
        ),
    ],
)
def test_TestSetComposedResourceMetadata(
    xr_meta: dict[str, Any], xr_spec: dict[str, Any], want_labels: dict[str, str], reason: str
) -> None:
    the_xr = {
        "apiVersion": "a/v1",
        "kind": "X",
        "metadata": {"name": "test-render", **xr_meta},
        "spec": xr_spec,
    }
    obj: dict[str, Any] = {"apiVersion": "b/v1", "kind": "Y"}
    prefix = _metadata.composite_prefix(the_xr, require_label=False)
    _metadata.render_metadata(obj, the_xr, "r", prefix=prefix, claim_ref_labels=True)
    assert obj["metadata"]["labels"] == want_labels, reason


_XR_REF = {
    "apiVersion": "a/v1",
    "kind": "X",
    "name": "test-render",
    "uid": "u1",
    "controller": True,
    "blockOwnerDeletion": True,
}


@pytest.mark.parametrize(
    ("owners", "want", "reason"),
    [
        pytest.param([], [_XR_REF], "no owners: the XR is appended", id="None"),
        pytest.param(
            [{"apiVersion": "a/v1", "kind": "X", "name": "old", "uid": "u1"}, {"apiVersion": "v1", "kind": "ConfigMap", "name": "cm", "uid": "u2"}],
            [_XR_REF, {"apiVersion": "v1", "kind": "ConfigMap", "name": "cm", "uid": "u2"}],
            "a ref with the XR's uid is replaced where it stands, the others keep their places", id="ReplacedInPlace",
        ),
        pytest.param(
            [{"apiVersion": "v1", "kind": "ConfigMap", "name": "cm", "uid": "u2"}, {"apiVersion": "a/v1", "kind": "X", "name": "test-render", "uid": "u1", "controller": True}],
            [{"apiVersion": "v1", "kind": "ConfigMap", "name": "cm", "uid": "u2"}, _XR_REF],
            "a last ref is replaced as the last", id="ReplacedLast",
        ),
        pytest.param(
            [{"apiVersion": "v1", "kind": "ConfigMap", "name": "cm", "uid": "u2"}],
            [{"apiVersion": "v1", "kind": "ConfigMap", "name": "cm", "uid": "u2"}, _XR_REF],
            "no ref with the XR's uid: appended after the others", id="Appended",
        ),
    ],
)  # fmt: skip
def test_controller_reference_replaced_in_place(
    owners: list[dict[str, Any]], want: list[dict[str, Any]], reason: str
) -> None:
    """crossplane-runtime's AddOwnerReference replaces a same-UID ref at its index, else appends."""
    the_xr = {"apiVersion": "a/v1", "kind": "X", "metadata": {"name": "test-render", "uid": "u1"}}
    obj: dict[str, Any] = {"apiVersion": "b/v1", "kind": "Y", "metadata": {"ownerReferences": owners}}
    _metadata.render_metadata(obj, the_xr, "r", prefix="test-render", claim_ref_labels=False)
    assert obj["metadata"]["ownerReferences"] == want, reason


_T = "2024-01-01T00:00:00Z"
_READY = {"type": "Ready", "status": "True", "reason": "Available", "lastTransitionTime": _T}


@pytest.mark.parametrize(
    ("written", "want", "reason"),
    [
        pytest.param(
            [{"type": "Custom", "status": "True", "reason": "Because", "message": "m", "lastTransitionTime": "2024-05-06T07:08:09.123456+02:00"}],
            [{"type": "Custom", "status": "True", "reason": "Because", "message": "m", "lastTransitionTime": "2024-05-06T05:08:09Z"}, _READY],
            "times are written in UTC to the second, as metav1.Time", id="TimeInUTC",
        ),
        pytest.param(
            [{"type": "Custom", "status": "False", "extra": 1, "severity": "high"}],
            [{"type": "Custom", "status": "False", "reason": "", "lastTransitionTime": None}, _READY],
            "unknown keys are dropped; reason is always present, a missing time is null", id="UnknownKeysDropped",
        ),
        pytest.param(
            [{"Type": "Custom", "STATUS": "True", "reason": "R", "message": "", "observedGeneration": 0}],
            [{"type": "Custom", "status": "True", "reason": "R", "lastTransitionTime": None}, _READY],
            "keys match case-insensitively; an empty message and a zero generation are omitted", id="CaseInsensitiveKeys",
        ),
        pytest.param(
            [{"type": "Custom", "status": "True", "reason": "R", "lastTransitionTime": _T, "observedGeneration": 3}],
            [{"type": "Custom", "status": "True", "reason": "R", "lastTransitionTime": _T, "observedGeneration": 3}, _READY],
            "a generation is kept", id="Generation",
        ),
        pytest.param(
            [{"type": "Custom", "status": 1}],
            [{"type": "Custom", "status": 1}],
            "a value Go cannot decode: the conditions stay as written and none is set", id="WrongTypeSetsNothing",
        ),
        pytest.param(
            [{"type": "Custom", "status": "True", "lastTransitionTime": "yesterday"}],
            [{"type": "Custom", "status": "True", "lastTransitionTime": "yesterday"}],
            "a time that is not RFC 3339 fails the decode too", id="BadTimeSetsNothing",
        ),
    ],
)  # fmt: skip
async def test_function_conditions_take_gos_round_trip(
    written: list[Any], want: list[Any], reason: str
) -> None:
    """Conditions a function writes into the desired XR come out as crossplane-runtime's Condition encodes them."""

    def fn(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        rsp.desired.composite.resource.CopyFrom(resource.dict_to_struct({"status": {"conditions": written}}))

    result, _ = await render(fn)
    assert result.composite["status"]["conditions"] == want, reason


@pytest.mark.parametrize(
    ("condition_type", "applied"),
    [
        pytest.param("Ready", False, id="Ready"),
        pytest.param("Synced", False, id="Synced"),
        pytest.param("Healthy", False, id="Healthy"),
        pytest.param("UpToDate", True, id="UpToDateIsNotSystemInV2_2"),
        pytest.param("Responsive", True, id="ResponsivePostdatesClassic"),
        pytest.param("Custom", True, id="Custom"),
    ],
)
async def test_classic_system_condition_types(condition_type: str, applied: bool) -> None:
    """Classic render (v2.2.4) skips function conditions of the system types it knows: Ready, Synced, Healthy."""

    def fn(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        rsp.conditions.add(type=condition_type, status=fnv1.STATUS_CONDITION_FALSE, reason="FromFunction")

    result, _ = await render(fn)
    reasons = {c["type"]: c["reason"] for c in result.composite["status"]["conditions"]}
    assert (reasons.get(condition_type) == "FromFunction") is applied
