"""The pipeline inspector runner and redaction (upstream core-2.5 item 1;
upstream core-4.8 inspected/runner_test.go)."""

import datetime
import json
from typing import Any

import pytest

from crossfn import engine, errors
from crossfn.engine import _callctx, _inspected
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource

NOW = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
R = b"**REDACTED**"


class Inspector:
    def __init__(self, fail_request: bool = False, fail_response: bool = False) -> None:
        self.fail_request, self.fail_response = fail_request, fail_response
        self.requests: list[tuple[dict[str, Any], engine.StepMeta]] = []
        self.responses: list[tuple[dict[str, Any] | None, str, engine.StepMeta]] = []

    async def emit_request(self, request: bytes, meta: engine.StepMeta) -> None:
        if self.fail_request:
            raise RuntimeError("socket gone")
        self.requests.append((json.loads(request), meta))

    async def emit_response(self, response: bytes, error: str, meta: engine.StepMeta) -> None:
        if self.fail_response:
            raise RuntimeError("socket gone")
        self.responses.append((json.loads(response) if response else None, error, meta))


class Counter:
    def __init__(self) -> None:
        self.errors: list[tuple[str, str]] = []

    def inspector_error(self, function: str, kind: str) -> None:
        self.errors.append((function, kind))


class Answer:
    def __init__(self, error: Exception | None = None) -> None:
        self.error = error
        self.calls = 0

    async def run_function(self, name: str, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
        self.calls += 1
        if self.error is not None:
            raise self.error
        rsp = fnv1.RunFunctionResponse(meta=fnv1.ResponseMeta(tag=req.meta.tag))
        rsp.desired.composite.connection_details["password"] = b"hunter2"
        return rsp


def request() -> fnv1.RunFunctionRequest:
    req = fnv1.RunFunctionRequest(meta=fnv1.RequestMeta(tag="t"))
    req.observed.composite.resource.CopyFrom(resource.dict_to_struct(
        {"apiVersion": "example.org/v1", "kind": "XR", "metadata": {"name": "xr", "namespace": "ns", "uid": "uid-1"}}
    ))  # fmt: skip
    req.credentials["db"].credential_data.data["password"] = b"hunter2"
    return req


async def inspect(
    inspector: Inspector, runner: Answer, metrics: Counter, *, in_step: bool = True
) -> fnv1.RunFunctionResponse:
    inspected = engine.InspectedRunner(runner, inspector, metrics=metrics, clock=lambda: NOW)
    if not in_step:
        return await inspected.run_function("fn", request())
    token = _callctx.STEP.set(_callctx.Step("trace-1", 2, "cool-step", "cool-composition"))
    it = _callctx.ITERATION.set(1)
    try:
        return await inspected.run_function("fn", request())
    finally:
        _callctx.ITERATION.reset(it)
        _callctx.STEP.reset(token)


async def test_TestRunFunction_SuccessfulEmission() -> None:
    inspector, metrics = Inspector(), Counter()
    rsp = await inspect(inspector, Answer(), metrics)
    assert rsp.meta.tag == "t", "the response is returned"
    (sent, meta), = inspector.requests  # fmt: skip
    (got, error, meta2), = inspector.responses  # fmt: skip
    assert sent["credentials"]["db"]["credentialData"]["data"]["password"] == "KipSRURBQ1RFRCoq", (
        "credentials are redacted (base64 of **REDACTED**)"
    )
    assert got is not None and error == "" and "hunter2" not in json.dumps(got), (
        "desired connection details are redacted"
    )
    assert (meta.trace_id, meta.step_index, meta.step_name, meta.iteration, meta.function_name) == (
        "trace-1",
        2,
        "cool-step",
        1,
        "fn",
    )
    assert (meta.composition_name, meta.composite_resource_uid, meta.composite_resource_name, meta.composite_resource_namespace) == (
        "cool-composition", "uid-1", "xr", "ns",
    )  # fmt: skip
    assert (meta.composite_resource_api_version, meta.composite_resource_kind, meta.timestamp) == (
        "example.org/v1",
        "XR",
        NOW,
    )
    assert meta == meta2, "TestRunFunctionMetadataConsistency: both emits carry the same StepMeta"
    assert metrics.errors == [], "nothing failed"


async def test_TestRunFunction_MetadataExtractionError() -> None:
    inspector, runner = Inspector(), Answer()
    await inspect(inspector, runner, Counter(), in_step=False)
    assert runner.calls == 1 and inspector.requests == [] and inspector.responses == [], (
        "no metadata: run without inspection"
    )


@pytest.mark.parametrize(
    ("fail_request", "fail_response", "want", "reason"),
    [
        pytest.param(
            True,
            False,
            [("fn", "request")],
            "A failed request emit is counted and the call goes on.",
            id="EmitRequestError",
        ),
        pytest.param(
            False,
            True,
            [("fn", "response")],
            "A failed response emit is counted and the result returned.",
            id="EmitResponseError",
        ),
        pytest.param(
            True,
            True,
            [("fn", "request"), ("fn", "response")],
            "Both failures are counted.",
            id="BothEmitErrors",
        ),
    ],
)
async def test_TestRunFunction_emit_errors(
    fail_request: bool, fail_response: bool, want: list[tuple[str, str]], reason: str
) -> None:
    metrics, runner = Counter(), Answer()
    rsp = await inspect(Inspector(fail_request, fail_response), runner, metrics)
    assert rsp.meta.tag == "t" and runner.calls == 1, reason
    assert metrics.errors == want, reason


async def test_TestRunFunction_WrappedFunctionError() -> None:
    inspector = Inspector()
    with pytest.raises(errors.FunctionRunError, match=r"^boom$"):
        await inspect(inspector, Answer(errors.FunctionRunError("boom")), Counter())
    assert [(r, e) for r, e, _ in inspector.responses] == [(None, "boom")], (
        "the error is emitted as the response"
    )


def state_with(composite: dict[str, Any] | None = None, **resources: dict[str, Any]) -> fnv1.State:
    s = fnv1.State()
    if composite is not None:
        s.composite.resource.CopyFrom(resource.dict_to_struct(composite))
    for k, v in resources.items():
        s.resources[k].resource.CopyFrom(resource.dict_to_struct(v))
    return s


SECRET = {"apiVersion": "v1", "kind": "Secret", "data": {"k": "c2VjcmV0"}, "stringData": {"s": "secret"}}
CONFIGMAP = {"apiVersion": "v1", "kind": "ConfigMap", "data": {"k": "visible"}}


@pytest.mark.parametrize(
    ("state", "check", "reason"),
    [
        pytest.param(None, lambda s: s == fnv1.State(), "An absent state stays absent.", id="NilState"),
        pytest.param(
            fnv1.State(), lambda s: s == fnv1.State(), "An empty state stays empty.", id="EmptyState"
        ),
        pytest.param(
            fnv1.State(composite=fnv1.Resource(connection_details={"a": b"1"})),
            lambda s: dict(s.composite.connection_details) == {"a": R},
            "Keys kept, values redacted.",
            id="RedactsCompositeConnectionDetails",
        ),
        pytest.param(
            fnv1.State(resources={"r": fnv1.Resource(connection_details={"a": b"1", "b": b"2"})}),
            lambda s: dict(s.resources["r"].connection_details) == {"a": R, "b": R},
            "Composed details too.",
            id="RedactsResourceConnectionDetails",
        ),
        pytest.param(
            state_with(None, s=SECRET),
            lambda s: resource.struct_to_dict(s.resources["s"].resource)["data"] == {"k": "**REDACTED**"},
            "Secret data is redacted.",
            id="RedactsSecretData",
        ),
        pytest.param(
            state_with(None, s=SECRET),
            lambda s: (
                resource.struct_to_dict(s.resources["s"].resource)["stringData"] == {"s": "**REDACTED**"}
            ),
            "Secret stringData is redacted.",
            id="RedactsSecretStringData",
        ),
        pytest.param(
            state_with(None, c=CONFIGMAP),
            lambda s: resource.struct_to_dict(s.resources["c"].resource)["data"] == {"k": "visible"},
            "Other kinds keep their data.",
            id="PreservesNonSecretData",
        ),
    ],
)
def test_TestSanitizeState(state: fnv1.State | None, check: Any, reason: str) -> None:
    req = fnv1.RunFunctionRequest()
    if state is not None:
        req.desired.CopyFrom(state)
    out = _inspected.sanitize_request(req)
    assert check(out.desired), reason
    assert out.HasField("desired") is (state is not None), "presence is preserved"


@pytest.mark.parametrize(
    ("creds", "want", "reason"),
    [
        pytest.param({}, {}, "No credentials, nothing to redact.", id="EmptyCredentials"),
        pytest.param(
            {"db": {"pw": b"x"}},
            {"db": {"pw": R}},
            "Credential values are redacted.",
            id="RedactsCredentialData",
        ),
        pytest.param(
            {"a": {"k": b"1"}, "b": {"k": b"2", "j": b"3"}},
            {"a": {"k": R}, "b": {"k": R, "j": R}},
            "Every credential.",
            id="RedactsMultipleCredentials",
        ),
    ],
)
def test_TestRedactCredentials(
    creds: dict[str, dict[str, bytes]], want: dict[str, dict[str, bytes]], reason: str
) -> None:
    req = fnv1.RunFunctionRequest()
    for name, data in creds.items():
        req.credentials[name].credential_data.data.update(data)
    out = _inspected.sanitize_request(req)
    assert {n: dict(c.credential_data.data) for n, c in out.credentials.items()} == want, reason
    assert dict(req.credentials["db"].credential_data.data) == creds.get("db", {}), (
        "the original request is untouched"
    )


def test_TestSanitizeRequiredResources() -> None:
    req = fnv1.RunFunctionRequest()
    req.required_resources["secrets"].items.add(
        resource=resource.dict_to_struct(SECRET), connection_details={"a": b"1"}
    )
    req.required_resources["configs"].items.add(resource=resource.dict_to_struct(CONFIGMAP))
    req.extra_resources["old"].items.add(resource=resource.dict_to_struct(SECRET))
    out = _inspected.sanitize_request(req)
    secret = out.required_resources["secrets"].items[0]
    assert dict(secret.connection_details) == {"a": R}, "RedactsConnectionDetails"
    assert resource.struct_to_dict(secret.resource)["data"] == {"k": "**REDACTED**"}, "RedactsSecretData"
    assert resource.struct_to_dict(out.required_resources["configs"].items[0].resource)["data"] == {
        "k": "visible"
    }, "PreservesNonSecretData"
    assert resource.struct_to_dict(out.extra_resources["old"].items[0].resource)["data"] == {
        "k": "**REDACTED**"
    }, "HandlesMultipleResourceGroups"


async def test_inspector_in_the_stack_sees_every_step() -> None:
    inspector = Inspector()

    def fn(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        return None

    runner = engine.build_runner(engine.InProcessRunner({"fn": fn}), inspector=inspector)
    xr = {
        "apiVersion": "example.org/v1",
        "kind": "XR",
        "metadata": {"name": "xr", "uid": "u", "labels": {"crossplane.io/composite": "xr"}},
    }
    steps = [engine.PipelineStep("a", "fn"), engine.PipelineStep("b", "fn")]
    result = await engine.compose(xr, steps, runner, tracer=engine.NoTracer(), composition_name="comp")
    metas = [m for _, m in inspector.requests]
    assert [(m.step_name, m.step_index, m.composition_name) for m in metas] == [
        ("a", 0, "comp"),
        ("b", 1, "comp"),
    ], "one emit per step"
    assert {m.trace_id for m in metas} == {result.pipeline.trace_id}, "the reconcile's trace id"


async def test_an_operations_steps_are_emitted_as_the_operations() -> None:
    """An Operation's steps carry OperationMeta (its name and uid), not a composite's (upstream ops-1)."""
    inspector = Inspector()

    def fn(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        return None

    class Store:
        async def update_status(self, op: dict[str, Any]) -> None:
            return None

        async def apply(self, obj: dict[str, Any], *, field_owner: str) -> None:
            return None

    options = engine.ComposeOptions.operation()
    runner = engine.build_runner(engine.InProcessRunner({"fn": fn}), options=options, inspector=inspector)
    op = {
        "apiVersion": "ops.crossplane.io/v1alpha1",
        "kind": "Operation",
        "metadata": {"name": "op", "uid": "op-uid"},
        "spec": {"pipeline": [{"step": "a", "functionRef": {"name": "fn"}}]},
    }
    await engine.reconcile_operation(op, runner, store=Store(), tracer=engine.NoTracer())
    [(_, meta)] = inspector.requests
    assert (meta.operation_name, meta.operation_uid, meta.composite_resource_uid) == ("op", "op-uid", "")
