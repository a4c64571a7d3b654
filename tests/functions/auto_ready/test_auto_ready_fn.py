"""auto-ready as a whole: which resources it decides, CEL customisations, TTL, bad input.

Named after function-auto-ready's fn_test.go behaviour: observed counterpart
required, explicit readiness respected, Ready-condition fallback, CEL rules
inline and from context (inline wins), an evaluation error giving a Warning.
"""

from __future__ import annotations

import datetime
import time
from typing import Any

import pytest
from google.protobuf import json_format

from crossfn.functions import auto_ready
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import function, response

BUCKET: dict[str, Any] = {
    "apiVersion": "s3.aws.upbound.io/v1beta1",
    "kind": "Bucket",
    "metadata": {"name": "b"},
}
READY: dict[str, Any] = {"conditions": [{"type": "Ready", "status": "True"}]}
NOT_READY: dict[str, Any] = {
    "conditions": [{"type": "Ready", "status": "False"}, {"type": "Synced", "status": "True"}]
}
DEPLOYMENT: dict[str, Any] = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "d"},
    "spec": {"replicas": 1},
    "status": {"updatedReplicas": 1, "availableReplicas": 0, "phase": "Running"},
}
CEL_KEY = "apps_v1_Deployment"


def _request(
    observed: dict[str, Any],
    desired: dict[str, Any],
    *,
    input_: dict[str, Any] | None = None,
    context: dict[str, Any] | None = None,
) -> fnv1.RunFunctionRequest:
    body: dict[str, Any] = {
        "observed": {"composite": {"resource": {"apiVersion": "x/v1", "kind": "XR"}}, "resources": observed},
        "desired": {"resources": desired},
    }
    if input_ is not None:
        body["input"] = {"apiVersion": "autoready.fn.crossplane.io/v1beta1", "kind": "Input", **input_}
    if context is not None:
        body["context"] = context
    return json_format.ParseDict(body, fnv1.RunFunctionRequest())


def _run(
    req: fnv1.RunFunctionRequest, fn: auto_ready.AutoReady = auto_ready.compose
) -> fnv1.RunFunctionResponse:
    rsp = response.to(req)
    fn(req, rsp)
    return rsp


def _with(obj: dict[str, Any], status: dict[str, Any]) -> dict[str, Any]:
    return {**obj, "status": status}


RULES = [
    pytest.param(
        {},
        {"b": {"resource": BUCKET}},
        fnv1.READY_UNSPECIFIED,
        "a desired resource that is not observed yet cannot be ready",
        id="NotObserved",
    ),
    pytest.param(
        {"b": {"resource": _with(BUCKET, READY)}},
        {"b": {"resource": BUCKET}},
        fnv1.READY_TRUE,
        "an observed resource with Ready=True is marked ready by the fallback",
        id="ReadyConditionFallback",
    ),
    pytest.param(
        {"b": {"resource": _with(BUCKET, NOT_READY)}},
        {"b": {"resource": BUCKET}},
        fnv1.READY_UNSPECIFIED,
        "Ready=False leaves readiness unspecified",
        id="ReadyConditionFalse",
    ),
    pytest.param(
        {"b": {"resource": BUCKET}},
        {"b": {"resource": BUCKET}},
        fnv1.READY_UNSPECIFIED,
        "no conditions at all: never ready (upstream issue #29)",
        id="NoConditions",
    ),
    pytest.param(
        {"b": {"resource": _with(BUCKET, READY)}},
        {"b": {"resource": BUCKET, "ready": "READY_FALSE"}},
        fnv1.READY_FALSE,
        "an earlier step said not ready: its opinion stands",
        id="ExplicitlyNotReady",
    ),
    pytest.param(
        {"b": {"resource": _with(BUCKET, NOT_READY)}},
        {"b": {"resource": BUCKET, "ready": "READY_TRUE"}},
        fnv1.READY_TRUE,
        "an earlier step said ready: its opinion stands",
        id="ExplicitlyReady",
    ),
    pytest.param(
        {"d": {"resource": _with(DEPLOYMENT, {**DEPLOYMENT["status"], **READY})}},
        {"d": {"resource": DEPLOYMENT}},
        fnv1.READY_TRUE,
        "a failing kind check leaves the resource to the Ready fallback",
        id="KindCheckFailsFallbackPasses",
    ),
]


@pytest.mark.parametrize(("observed", "desired", "want", "reason"), RULES)
def test_readiness_rules(observed: dict[str, Any], desired: dict[str, Any], want: int, reason: str) -> None:
    rsp = _run(_request(observed, desired))
    assert rsp.desired.resources[next(iter(desired))].ready == want, reason
    assert list(rsp.results) == [], reason


def test_other_desired_state_passes_through() -> None:
    """auto-ready only touches readiness: the desired XR and resource bodies are unchanged."""
    req = _request(
        {"b": {"resource": _with(BUCKET, READY)}}, {"b": {"resource": {**BUCKET, "spec": {"x": 1}}}}
    )
    req.desired.composite.resource.update({"apiVersion": "x/v1", "kind": "XR", "status": {"a": "b"}})
    rsp = _run(req)
    want = fnv1.State()
    want.CopyFrom(req.desired)
    want.resources["b"].ready = fnv1.READY_TRUE
    assert rsp.desired == want


CEL = [
    pytest.param(
        {"celHealthCheckCustomization": {CEL_KEY: "object.status.phase == 'Running'"}},
        None,
        fnv1.READY_TRUE,
        0,
        "an inline rule that holds marks the resource ready",
        id="InlineTrue",
    ),
    pytest.param(
        {"celHealthCheckCustomization": {CEL_KEY: "object.status.availableReplicas >= 1"}},
        None,
        fnv1.READY_FALSE,
        0,
        "an inline rule that fails marks the resource explicitly not ready",
        id="InlineFalse",
    ),
    pytest.param(
        {"celHealthCheckCustomizationFrom": "[apiextensions.crossplane.io/environment].health"},
        {"apiextensions.crossplane.io/environment": {"health": {CEL_KEY: "object.spec.replicas == 1"}}},
        fnv1.READY_TRUE,
        0,
        "rules are read from the context with bracket notation",
        id="FromContext",
    ),
    pytest.param(
        {"celHealthCheckCustomizationFrom": "checks.byKind"},
        {"checks": {"byKind": {CEL_KEY: "true"}}},
        fnv1.READY_TRUE,
        0,
        "dot notation also finds context rules",
        id="FromContextDots",
    ),
    pytest.param(
        {"celHealthCheckCustomization": {CEL_KEY: "false"}, "celHealthCheckCustomizationFrom": "checks"},
        {"checks": {CEL_KEY: "true"}},
        fnv1.READY_FALSE,
        0,
        "an inline rule overrides the context rule for the same kind",
        id="InlineOverridesContext",
    ),
    pytest.param(
        {"celHealthCheckCustomizationFrom": "missing.path"},
        {"checks": {}},
        fnv1.READY_UNSPECIFIED,
        0,
        "a missing context path means no rules",
        id="FromContextMissing",
    ),
    pytest.param(
        {"celHealthCheckCustomization": {CEL_KEY: "object.status.nope == 1"}},
        None,
        fnv1.READY_UNSPECIFIED,
        1,
        "an evaluation error is a Warning and decides nothing",
        id="EvalErrorWarns",
    ),
    pytest.param(
        {"celHealthCheckCustomization": {CEL_KEY: "object.status.phase"}},
        None,
        fnv1.READY_UNSPECIFIED,
        1,
        "a rule that does not give a bool is a Warning",
        id="NotBoolWarns",
    ),
    pytest.param(
        {"celHealthCheckCustomization": {CEL_KEY: "object.status.phase ==="}},
        None,
        fnv1.READY_UNSPECIFIED,
        1,
        "a rule that does not compile is a Warning",
        id="CompileErrorWarns",
    ),
    pytest.param(
        {"celHealthCheckCustomization": {"apps_v1_StatefulSet": "true"}},
        None,
        fnv1.READY_UNSPECIFIED,
        0,
        "rules for other kinds do not apply",
        id="OtherKindIgnored",
    ),
]


@pytest.mark.parametrize(("input_", "context", "want", "warnings", "reason"), CEL)
def test_cel_customisations(
    input_: dict[str, Any], context: dict[str, Any] | None, want: int, warnings: int, reason: str
) -> None:
    req = _request(
        {"d": {"resource": DEPLOYMENT}}, {"d": {"resource": DEPLOYMENT}}, input_=input_, context=context
    )
    rsp = _run(req)
    assert rsp.desired.resources["d"].ready == want, reason
    assert [r.severity for r in rsp.results] == [fnv1.SEVERITY_WARNING] * warnings, reason


def test_cel_warning_text() -> None:
    """The Warning names the rule key and resource, then gives upstream's cause text."""
    req = _request(
        {"d": {"resource": DEPLOYMENT}},
        {"d": {"resource": DEPLOYMENT}},
        input_={"celHealthCheckCustomization": {CEL_KEY: "object.status.phase"}},
    )
    (result,) = _run(req).results
    assert result.message == (
        'cannot evaluate CEL health check apps_v1_Deployment for composed resource "d": '
        "celQuery does not return a bool type"
    )


@pytest.mark.parametrize(
    ("rule", "reason"),
    [
        pytest.param(
            "object.spec.items.all(x, object.spec.items.all(y, x == y || x != y))",
            "a quadratic rule over 1,000 items took 108 s in cel-python", id="Quadratic",
        ),
        pytest.param(
            "object.spec.items.map(x, object.spec.items.filter(y, y > x)).all(l, l.all(z, z >= 0))",
            "ranges built by map and filter are charged by the size of what they walk", id="ThroughMapFilter",
        ),
    ],
)  # fmt: skip
def test_cel_cost_limit(rule: str, reason: str) -> None:
    """Kubernetes' per-call cost limit stops a runaway rule at once, with cel-go's error, as a Warning."""
    deployment = {**DEPLOYMENT, "spec": {"items": list(range(1000))}}
    req = _request(
        {"d": {"resource": deployment}}, {"d": {"resource": deployment}},
        input_={"celHealthCheckCustomization": {CEL_KEY: rule}},
    )  # fmt: skip
    start = time.process_time()  # CPU seconds: a loaded machine does not stretch them as it does wall time
    (result,) = _run(req).results
    assert time.process_time() - start < 5, reason
    assert result.message == (
        'cannot evaluate CEL health check apps_v1_Deployment for composed resource "d": '
        "failed to eval the program: operation cancelled: actual cost limit exceeded"
    ), reason


@pytest.mark.parametrize(
    "rule",
    [
        pytest.param("object.spec.items.all(x, object.spec.items.map(y, y.name).size() > 0)", id="MapInAll"),
        pytest.param("object.spec.items.all(x, x.name in object.spec.items.map(y, y.name))", id="InMap"),
    ],
)
def test_cel_within_the_cost_limit_but_too_slow_is_stopped(rule: str) -> None:
    """Rules within Kubernetes' cost limit (about 600,000 units over 450 items: milliseconds in cel-go)
    that cel-python takes 8-24 s over: stopped after a second, a Warning; before, 15 s per reconcile."""
    deployment = {**DEPLOYMENT, "spec": {"items": [{"name": f"item-{i}"} for i in range(450)]}}
    req = _request(
        {"d": {"resource": deployment}}, {"d": {"resource": deployment}},
        input_={"celHealthCheckCustomization": {CEL_KEY: rule}},
    )  # fmt: skip
    (result,) = _run(req).results
    assert result.message == (
        'cannot evaluate CEL health check apps_v1_Deployment for composed resource "d": '
        "failed to eval the program: evaluation took longer than 1s"
    )


def test_cel_within_the_cost_limit_is_evaluated() -> None:
    """A linear rule over the same 1,000 items stays well under the limit."""
    deployment = {**DEPLOYMENT, "spec": {"items": list(range(1000))}}
    req = _request(
        {"d": {"resource": deployment}}, {"d": {"resource": deployment}},
        input_={"celHealthCheckCustomization": {CEL_KEY: "object.spec.items.all(x, x >= 0)"}},
    )  # fmt: skip
    rsp = _run(req)
    assert list(rsp.results) == [] and rsp.desired.resources["d"].ready == fnv1.READY_TRUE


def test_cel_disabled_like_the_feature_gate() -> None:
    """With CEL off (upstream's feature gate off) rules are ignored and the kind check decides."""
    req = _request(
        {"d": {"resource": DEPLOYMENT}},
        {"d": {"resource": DEPLOYMENT}},
        input_={"celHealthCheckCustomization": {CEL_KEY: "true"}},
    )
    rsp = _run(req, auto_ready.AutoReady(cel=False))
    assert rsp.desired.resources["d"].ready == fnv1.READY_UNSPECIFIED


TTL = [
    pytest.param(
        None, auto_ready.compose, datetime.timedelta(seconds=60), "default TTL is 60s", id="Default"
    ),
    pytest.param(
        {"ttl": "5m30s"}, auto_ready.compose, datetime.timedelta(seconds=330), "input ttl wins", id="InputTTL"
    ),
    pytest.param(
        {"ttl": "1.5s"}, auto_ready.compose, datetime.timedelta(seconds=1.5), "fractions", id="FractionalTTL"
    ),
    pytest.param(
        {"ttl": " 90s "},
        auto_ready.compose,
        datetime.timedelta(seconds=90),
        "blanks are trimmed",
        id="PaddedTTL",
    ),
    pytest.param(
        None,
        auto_ready.AutoReady(ttl=datetime.timedelta(seconds=5)),
        datetime.timedelta(seconds=5),
        "the --ttl equivalent applies without input",
        id="ConstructorTTL",
    ),
]


@pytest.mark.parametrize(("input_", "fn", "want", "reason"), TTL)
def test_ttl(
    input_: dict[str, Any] | None, fn: auto_ready.AutoReady, want: datetime.timedelta, reason: str
) -> None:
    rsp = _run(_request({}, {}, input_=input_), fn)
    assert rsp.meta.ttl.ToTimedelta() == want, reason


BAD_INPUT = [
    pytest.param({"ttl": "5 minutes"}, 'invalid input: ttl: time: invalid duration "5 minutes"', id="BadTTL"),
    pytest.param({"ttl": "1d"}, 'invalid input: ttl: time: invalid duration "1d"', id="UnknownUnitTTL"),
    pytest.param(
        {"ttl": "2562048h"}, 'invalid input: ttl: time: invalid duration "2562048h"', id="OverflowTTL"
    ),
    pytest.param({"ttl": 5}, "invalid input: ttl: must be a duration string such as 1m0s", id="NumericTTL"),
    pytest.param(
        {"celHealthCheckCustomization": {"k": 1}},
        "invalid input: celHealthCheckCustomization: must map <group>_<version>_<kind> to a CEL string",
        id="NonStringRule",
    ),
    pytest.param(
        {"celHealthCheckCustomizationFrom": ["a"]},
        "invalid input: celHealthCheckCustomizationFrom: must be a string",
        id="NonStringFrom",
    ),
]


@pytest.mark.parametrize(("input_", "message"), BAD_INPUT)
def test_bad_input_is_fatal(input_: dict[str, Any], message: str) -> None:
    rsp = _run(_request({}, {}, input_=input_))
    assert [(r.severity, r.message) for r in rsp.results] == [(fnv1.SEVERITY_FATAL, message)]


async def test_runs_through_a_handler() -> None:
    """The registered object works with the SDK's handler adapter, as render and serve call it."""
    handle = function.to_handler(auto_ready.compose)
    rsp = await handle(_request({"b": {"resource": _with(BUCKET, READY)}}, {"b": {"resource": BUCKET}}))
    assert rsp.desired.resources["b"].ready == fnv1.READY_TRUE


CONFIGMAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}
HEALTHY_DEPLOYMENT = {
    **DEPLOYMENT,
    "status": {
        "updatedReplicas": 1,
        "availableReplicas": 1,
        "conditions": [{"type": "Available", "status": "True"}],
    },
}
ALWAYS_TRUE = {"celHealthCheckCustomization": {"s3.aws.upbound.io_v1beta1_Bucket": "true"}}

# (observed, input, v0.7.0's readiness, v0.6.0-and-earlier's readiness, v0.7.0's fatal)
VERSIONS = [
    pytest.param(CONFIGMAP, None, fnv1.READY_TRUE, fnv1.READY_UNSPECIFIED, False, id="ConfigMapExists"),
    pytest.param(
        HEALTHY_DEPLOYMENT, None, fnv1.READY_TRUE, fnv1.READY_UNSPECIFIED, False, id="HealthyDeployment"
    ),
    pytest.param(_with(BUCKET, READY), None, fnv1.READY_TRUE, fnv1.READY_TRUE, False, id="ReadyCondition"),
    pytest.param(
        _with(BUCKET, NOT_READY), ALWAYS_TRUE, fnv1.READY_TRUE, fnv1.READY_UNSPECIFIED, False, id="CelRule"
    ),
    pytest.param(
        BUCKET, {"ttl": "5 minutes"}, fnv1.READY_UNSPECIFIED, fnv1.READY_UNSPECIFIED, True, id="BadInput"
    ),
]


@pytest.mark.parametrize(("observed", "input_", "v070", "v060", "fatal"), VERSIONS)
def test_ready_condition_only_is_v0_6_0_and_earlier(
    observed: dict[str, Any], input_: dict[str, Any] | None, v070: int, v060: int, fatal: bool
) -> None:
    """Up to v0.6.0 function-auto-ready read no input and checked only the Ready condition."""
    req = _request({"r": {"resource": observed}}, {"r": {"resource": observed}}, input_=input_)
    new = _run(req)
    old = _run(req, auto_ready.compose_ready_condition_only)
    assert new.desired.resources["r"].ready == v070
    assert any(r.severity == fnv1.SEVERITY_FATAL for r in new.results) is fatal
    assert old.desired.resources["r"].ready == v060
    assert not old.results
    assert old.meta.ttl.ToTimedelta() == datetime.timedelta(minutes=1)
