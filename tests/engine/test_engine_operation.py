"""The Operation reconciler as Crossplane's (upstream ops-1; reconciler_test.go's cases, re-expressed).

Each case reconciles one Operation through an in-process function and a fake store, and checks the
Operation as written, what was applied, the events and the error.
"""

from __future__ import annotations

import copy
import dataclasses
import datetime
import math
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from crossfn import engine, errors
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import request, response

NOW = datetime.datetime(2026, 3, 1, 12, 0, tzinfo=datetime.UTC)
T = "2026-03-01T12:00:00Z"
UID = "0b5e7f4c-2a8e-4f2b-9a57-6d4b0c7e1a11"
CM = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "cm", "namespace": "ops"},
    "data": {"a": "b"},
}

Fn = Callable[[fnv1.RunFunctionRequest, fnv1.RunFunctionResponse], object]


class Store:
    """A fake OperationStore: status writes and applies recorded; either can be made to fail."""

    def __init__(self, *, fail_update: int | None = None, fail_apply: str | None = None) -> None:
        self.writes: list[dict[str, Any]] = []
        self.applied: list[tuple[dict[str, Any], str]] = []
        self._fail_update = fail_update
        self._fail_apply = fail_apply

    async def update_status(self, op: dict[str, Any]) -> None:
        if self._fail_update is not None and len(self.writes) == self._fail_update:
            self.writes.append({})
            raise errors.CrossfnError("the object has been modified")
        self.writes.append(copy.deepcopy(op))

    async def apply(self, obj: dict[str, Any], *, field_owner: str) -> None:
        if obj["metadata"]["name"] == self._fail_apply:
            raise errors.CrossfnError("admission webhook denied it")
        self.applied.append((obj, field_owner))


def operation(
    *steps: Mapping[str, Any], status: Mapping[str, Any] | None = None, **spec: Any
) -> dict[str, Any]:
    op: dict[str, Any] = {
        "apiVersion": "ops.crossplane.io/v1alpha1",
        "kind": "Operation",
        "metadata": {"name": "op", "uid": UID, "generation": 1},
        "spec": {"mode": "Pipeline", "pipeline": list(steps) or [step()], **spec},
    }
    if status is not None:
        op["status"] = dict(status)
    return op


def step(name: str = "one", fn: str = "fn", **extra: Any) -> dict[str, Any]:
    return {"step": name, "functionRef": {"name": fn}, **extra}


def cond(type_: str, status: str, reason: str, message: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {"type": type_, "status": status, "reason": reason, "lastTransitionTime": T}
    if message:
        out["message"] = message
    out["observedGeneration"] = 1
    return out


RUNNING = cond("Succeeded", "Unknown", "PipelineRunning")
VALID = cond("ValidPipeline", "True", "ValidPipeline")
DONE = [cond("Succeeded", "True", "PipelineSuccess"), VALID, cond("Synced", "True", "ReconcileSuccess")]


def applies(rsp: fnv1.RunFunctionResponse, name: str, body: Mapping[str, Any]) -> None:
    response.set_desired_composed_resource(rsp, name, body)


def obj(kind: str, name: str, namespace: str = "") -> dict[str, Any]:
    meta = {"name": name, **({"namespace": namespace} if namespace else {})}
    return {"apiVersion": "example.org/v1", "kind": kind, "metadata": meta}


def ok(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    response.set_output(rsp, {"checked": 2})
    applies(rsp, "z", obj("Report", "b", "ops"))
    applies(rsp, "a", obj("Report", "a"))
    response.normal(rsp, "all good")
    response.warning(rsp, "one odd thing")


def fatal(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    response.normal(rsp, "before")
    response.set_output(rsp, {"ignored": True})
    response.fatal(rsp, "boom")
    response.normal(rsp, "after")


def nan_output(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    rsp.output.fields["x"].number_value = math.nan


def unknown_severity(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    rsp.results.add(severity=fnv1.Severity.ValueType(9), message="future")


def raises(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    raise RuntimeError("nope")


def two_resources(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    applies(rsp, "a", obj("Report", "first"))
    applies(rsp, "b", obj("Report", "bad"))


@dataclasses.dataclass(frozen=True)
class Case:
    reason: str
    op: dict[str, Any]
    functions: Mapping[str, Fn] = dataclasses.field(default_factory=lambda: {"fn": ok})
    store: Callable[[], Store] = Store
    capabilities: str | None = None
    """A CapabilityCheck failure's text, else no check fails."""
    status: dict[str, Any] | None = None
    """The status as last written; None: nothing written."""
    applied: tuple[tuple[str, str], ...] = ()
    events: tuple[tuple[str, str, str], ...] = ()
    error: str | None = None
    ran: bool = True


CASES = [
    pytest.param(
        Case(
            "An Operation runs its pipeline, records the output, applies in name order and succeeds.",
            operation(),
            status={
                "conditions": DONE,
                "pipeline": [{"step": "one", "output": {"checked": 2}}],
                "appliedResourceRefs": [
                    {"apiVersion": "example.org/v1", "kind": "Report", "name": "a"},
                    {"apiVersion": "example.org/v1", "kind": "Report", "name": "b", "namespace": "ops"},
                ],
            },
            applied=(("Report", "a"), ("Report", "b")),
            events=(
                ("Normal", "RunPipelineStep", 'Pipeline step "one": all good'),
                ("Warning", "RunPipelineStep", 'Pipeline step "one": one odd thing'),
            ),
        ),
        id="Success",
    ),
    pytest.param(
        Case(
            "A finished Operation never runs again.",
            operation(status={"conditions": [cond("Succeeded", "False", "PipelineError")]}),
            ran=False,
        ),
        id="AlreadyFailed",
    ),
    pytest.param(
        Case("A succeeded Operation never runs again.", operation(status={"conditions": DONE}), ran=False),
        id="AlreadySucceeded",
    ),
    pytest.param(
        Case(
            "An Operation being deleted is left alone.",
            {**operation(), "metadata": {"name": "op", "deletionTimestamp": T}},
            ran=False,
        ),
        id="Deleted",
    ),
    pytest.param(
        Case(
            "At the retry limit the Operation fails without running.",
            operation(retryLimit=2, status={"failures": 2}),
            functions={"fn": raises},
            status={
                "failures": 2,
                "conditions": [
                    cond("Synced", "True", "ReconcileSuccess"),
                    cond("Succeeded", "False", "PipelineError", "failure limit of 2 reached"),
                ],
            },
        ),
        id="RetryLimitReached",
    ),
    pytest.param(
        Case(
            "The default retry limit is 5.",
            operation(status={"failures": 5}),
            status={
                "failures": 5,
                "conditions": [
                    cond("Synced", "True", "ReconcileSuccess"),
                    cond("Succeeded", "False", "PipelineError", "failure limit of 5 reached"),
                ],
            },
        ),
        id="DefaultRetryLimit",
    ),
    pytest.param(
        Case(
            "A fatal result counts a failure; results before it are events, the step's output is not kept.",
            operation(status={"failures": 1}),
            functions={"fn": fatal},
            status={
                "failures": 2,
                "conditions": [
                    RUNNING,
                    VALID,
                    cond(
                        "Synced",
                        "False",
                        "ReconcileError",
                        'pipeline step "one" returned a fatal result: boom',
                    ),
                ],
            },
            events=(
                ("Normal", "RunPipelineStep", 'Pipeline step "one": before'),
                ("Warning", "FunctionInvocation", 'pipeline step "one" returned a fatal result: boom'),
            ),
            error='pipeline step "one" returned a fatal result: boom',
        ),
        id="Fatal",
    ),
    pytest.param(
        Case(
            "A later step's failure keeps the earlier step's output.",
            operation(step("one"), step("two", "bad")),
            functions={"fn": ok, "bad": fatal},
            status={
                "failures": 1,
                "conditions": [
                    RUNNING,
                    VALID,
                    cond(
                        "Synced",
                        "False",
                        "ReconcileError",
                        'pipeline step "two" returned a fatal result: boom',
                    ),
                ],
                "pipeline": [{"step": "one", "output": {"checked": 2}}],
            },
            events=(
                ("Normal", "RunPipelineStep", 'Pipeline step "one": all good'),
                ("Warning", "RunPipelineStep", 'Pipeline step "one": one odd thing'),
                ("Normal", "RunPipelineStep", 'Pipeline step "two": before'),
                ("Warning", "FunctionInvocation", 'pipeline step "two" returned a fatal result: boom'),
            ),
            error='pipeline step "two" returned a fatal result: boom',
        ),
        id="LaterStepFails",
    ),
    pytest.param(
        Case(
            "An input that does not decode fails the Operation at once, without counting a failure.",
            operation(step(input=[1, 2])),
            status={
                "conditions": [
                    cond(
                        "Succeeded",
                        "False",
                        "PipelineError",
                        'cannot unmarshal input for operation pipeline step "one"',
                    ),
                    VALID,
                    cond("Synced", "True", "ReconcileSuccess"),
                ]
            },
            error='cannot unmarshal input for operation pipeline step "one": input must be an object, not an array',
        ),
        id="UndecodableInput",
    ),
    pytest.param(
        Case(
            "A missing credential Secret is a FunctionInvocation failure.",
            operation(
                step(
                    credentials=[
                        {"name": "c", "source": "Secret", "secretRef": {"name": "s", "namespace": "x"}}
                    ]
                )
            ),
            status={
                "failures": 1,
                "conditions": [
                    RUNNING,
                    VALID,
                    cond(
                        "Synced",
                        "False",
                        "ReconcileError",
                        'cannot get operation pipeline step "one" credential "c" from Secret: secrets "s" not found',
                    ),
                ],
            },
            events=(
                (
                    "Warning",
                    "FunctionInvocation",
                    'cannot get operation pipeline step "one" credential "c" from Secret: secrets "s" not found',
                ),
            ),
            error='cannot get operation pipeline step "one" credential "c" from Secret: secrets "s" not found',
        ),
        id="MissingCredential",
    ),
    pytest.param(
        Case(
            "A function that cannot run is a FunctionInvocation failure: failed to invoke pipeline step.",
            operation(step(fn="missing")),
            status={
                "failures": 1,
                "conditions": [
                    RUNNING,
                    VALID,
                    cond(
                        "Synced",
                        "False",
                        "ReconcileError",
                        'failed to invoke pipeline step "one": no such function',
                    ),
                ],
            },
            events=(
                ("Warning", "FunctionInvocation", 'failed to invoke pipeline step "one": no such function'),
            ),
            error='failed to invoke pipeline step "one": no such function',
        ),
        id="CannotInvoke",
    ),
    pytest.param(
        Case(
            "An output with no JSON form is an InvalidOutput failure, in protojson's words.",
            operation(),
            functions={"fn": nan_output},
            status={
                "failures": 1,
                "conditions": [
                    RUNNING,
                    VALID,
                    cond(
                        "Synced",
                        "False",
                        "ReconcileError",
                        'cannot marshal pipeline step "one" output to JSON: '
                        "proto: google.protobuf.Value.number_value: invalid NaN value",
                    ),
                ],
            },
            events=(
                (
                    "Warning",
                    "InvalidOutput",
                    'cannot marshal pipeline step "one" output to JSON: '
                    "proto: google.protobuf.Value.number_value: invalid NaN value",
                ),
            ),
            error='cannot marshal pipeline step "one" output to JSON: '
            "proto: google.protobuf.Value.number_value: invalid NaN value",
        ),
        id="InvalidOutput",
    ),
    pytest.param(
        Case(
            "A result of unknown severity is a warning event that says so.",
            operation(),
            functions={"fn": unknown_severity},
            status={"conditions": DONE},
            events=(
                (
                    "Warning",
                    "RunPipelineStep",
                    'Pipeline step "one" returned a result of unknown severity (assuming warning): future',
                ),
            ),
        ),
        id="UnknownSeverity",
    ),
    pytest.param(
        Case(
            "An apply that fails is an InvalidResource failure; what was applied before stays referenced.",
            operation(),
            functions={"fn": two_resources},
            store=lambda: Store(fail_apply="bad"),
            status={
                "failures": 1,
                "conditions": [
                    RUNNING,
                    VALID,
                    cond(
                        "Synced",
                        "False",
                        "ReconcileError",
                        "cannot apply desired resource: admission webhook denied it",
                    ),
                ],
                "appliedResourceRefs": [{"apiVersion": "example.org/v1", "kind": "Report", "name": "first"}],
            },
            applied=(("Report", "first"),),
            events=(
                ("Warning", "InvalidResource", "cannot apply desired resource: admission webhook denied it"),
            ),
            error="cannot apply desired resource: admission webhook denied it",
        ),
        id="ApplyFails",
    ),
    pytest.param(
        Case(
            "A function without the operation capability invalidates the pipeline.",
            operation(),
            capabilities='function "fn" is missing required capabilities: operation',
            status={
                "failures": 1,
                "conditions": [
                    RUNNING,
                    cond(
                        "Synced",
                        "False",
                        "ReconcileError",
                        'function capability check failed: function "fn" is missing required capabilities: operation',
                    ),
                    cond(
                        "ValidPipeline",
                        "False",
                        "MissingCapabilities",
                        'function capability check failed: function "fn" is missing required capabilities: operation',
                    ),
                ],
            },
            events=(
                (
                    "Warning",
                    "InvalidPipeline",
                    'function capability check failed: function "fn" is missing required capabilities: operation',
                ),
            ),
            error='function capability check failed: function "fn" is missing required capabilities: operation',
        ),
        id="MissingCapabilities",
    ),
    pytest.param(
        Case(
            "A stale Operation (the running write fails) runs nothing.",
            operation(),
            functions={"fn": raises},
            store=lambda: Store(fail_update=0),
            error="cannot update Operation status: the object has been modified",
        ),
        id="StaleOperation",
    ),
]


@pytest.mark.parametrize("case", CASES)
async def test_reconcile_operation(case: Case) -> None:
    async def run(name: str, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
        fn = case.functions.get(name)
        if fn is None:
            raise errors.FunctionRunError("no such function")
        return await engine.InProcessRunner({name: fn}).run_function(name, req)

    async def capabilities(names: Any) -> None:
        if case.capabilities is not None:
            raise errors.InputError(case.capabilities)

    store = case.store()
    op = dict(case.op)
    options = engine.ComposeOptions.operation()
    runner = engine.build_runner(engine.runner_from(run), options=options)
    out = await engine.reconcile_operation(
        op, runner, store=store, check_capabilities=capabilities, clock=lambda: NOW, tracer=engine.NoTracer()
    )
    assert out.ran == case.ran, case.reason
    written = [w for w in store.writes if w]
    assert (written[-1].get("status") if written else None) == case.status, case.reason
    assert [(o["kind"], o["metadata"]["name"]) for o, _ in store.applied] == list(case.applied), case.reason
    assert {owner for _, owner in store.applied} <= {f"ops.crossplane.io/operation/{UID}"}, case.reason
    assert [(e.type, e.reason, e.message) for e in out.events] == list(case.events), case.reason
    assert (str(out.error) if out.error else None) == case.error, case.reason


async def test_fatal_error_is_the_pipeline_fatal_error() -> None:
    """Callers branch on a fatal result: render prints nothing, as the CLI on a fatal pipeline."""
    runner = engine.build_runner(
        engine.InProcessRunner({"fn": fatal}), options=engine.ComposeOptions.operation()
    )
    out = await engine.reconcile_operation(
        operation(), runner, store=Store(), clock=lambda: NOW, tracer=engine.NoTracer()
    )
    assert isinstance(out.error, errors.PipelineFatalError)


async def test_bootstrap_requirements_and_watched_resource_reach_the_function() -> None:
    """The watched resource arrives as the ops.crossplane.io/watched-resource requirement; a failing fetch is a
    BootstrapRequirements failure."""
    seen: list[Any] = []

    def fn(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        seen.append(request.get_watched_resource(req))
        assert not req.HasField("observed"), "an Operation sends no observed state"

    spec: dict[str, Any] = {"pipeline": [step()]}
    engine.inject_watched(spec, CM)
    assert spec["pipeline"][0]["requirements"]["requiredResources"] == [
        {
            "requirementName": "ops.crossplane.io/watched-resource",
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "name": "cm",
            "namespace": "ops",
        }
    ]
    sources = engine.Sources(resources=engine.InMemoryResources([CM]))
    runner = engine.build_runner(
        engine.InProcessRunner({"fn": fn}), sources=sources, options=engine.ComposeOptions.operation()
    )
    op = operation(*spec["pipeline"])
    out = await engine.reconcile_operation(
        op, runner, store=Store(), sources=sources, clock=lambda: NOW, tracer=engine.NoTracer()
    )
    assert out.error is None and seen == [CM], "the watched resource is the function's"

    class Broken:
        async def get(self, *a: Any) -> dict[str, Any] | None:
            raise errors.CrossfnError("etcd is down")

        async def list(self, *a: Any) -> list[dict[str, Any]]:
            raise errors.CrossfnError("etcd is down")

    broken = engine.Sources(resources=Broken())
    out = await engine.reconcile_operation(
        operation(*spec["pipeline"]),
        runner,
        store=Store(),
        sources=broken,
        clock=lambda: NOW,
        tracer=engine.NoTracer(),
    )
    assert [(e.reason, e.message) for e in out.events] == [
        (
            "BootstrapRequirements",
            'cannot fetch bootstrap required resources for requirement "ops.crossplane.io/watched-resource": '
            "cannot get required resource by name: etcd is down",
        )
    ]


@pytest.mark.parametrize(
    ("refs", "add", "want", "reason"),
    [
        pytest.param([], obj("K", "a"), [("K", "a")], "the first reference is added", id="First"),
        pytest.param(
            [{"apiVersion": "example.org/v1", "kind": "K", "name": "a"}],
            obj("K", "a"),
            [("K", "a")],
            "no duplicates",
            id="Duplicate",
        ),
        pytest.param(
            [{"apiVersion": "example.org/v1", "kind": "K", "name": "z"}],
            obj("K", "b"),
            [("K", "b"), ("K", "z")],
            "sorted by apiVersion, kind, namespace and name run together",
            id="Sorted",
        ),
        pytest.param(
            [
                {"apiVersion": "example.org/v1", "kind": "K", "name": "z"},
                {"apiVersion": "example.org/v1", "kind": "K", "name": "b"},
            ],
            obj("K", "b"),
            [("K", "z"), ("K", "b")],
            "an existing reference leaves the list as it was, unsorted",
            id="NoSortWithoutAdd",
        ),
    ],
)
def test_add_resource_ref(
    refs: list[dict[str, Any]], add: dict[str, Any], want: list[tuple[str, str]], reason: str
) -> None:
    assert [(r["kind"], r["name"]) for r in engine.add_resource_ref(refs, add)] == want, reason


def test_add_step_output_replaces_in_place_and_appends() -> None:
    pipeline = [{"step": "a", "output": 1}, {"step": "b", "output": 2}]
    assert engine.add_step_output(pipeline, "a", 3) == [
        {"step": "a", "output": 3},
        {"step": "b", "output": 2},
    ]
    assert engine.add_step_output([], "c", {}) == [{"step": "c", "output": {}}]


@pytest.mark.parametrize(
    ("status", "want"),
    [
        pytest.param(None, False, id="NoStatus"),
        pytest.param({"conditions": [{"type": "Succeeded", "status": "Unknown"}]}, False, id="Running"),
        pytest.param({"conditions": [{"type": "Succeeded", "status": "True"}]}, True, id="Succeeded"),
        pytest.param({"conditions": [{"type": "Succeeded", "status": "False"}]}, True, id="Failed"),
        pytest.param({"conditions": [{"type": "Synced", "status": "True"}]}, False, id="OtherType"),
    ],
)
def test_is_complete(status: dict[str, Any] | None, want: bool) -> None:
    op: dict[str, Any] = {"status": status} if status is not None else {}
    assert engine.is_complete(op) is want
