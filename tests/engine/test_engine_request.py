"""The request each step is sent, as the pipeline builds it from encoded parts
(upstream core-2.3, core-2.4): the same message a field-by-field build gives, tagged with the hash
of its own deterministic encoding."""

from collections.abc import Mapping
from typing import Any

import pytest

from crossfn import engine
from crossfn.engine import _tag
from crossfn.proto import wire
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource

XR = {
    "apiVersion": "example.org/v1",
    "kind": "XR",
    "metadata": {"name": "x", "uid": "u1", "labels": {"crossplane.io/composite": "x"}},
    "spec": {"b": 2, "a": [1.5, "s", None, True]},
}
CM = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {
        "name": "cm",
        "namespace": "ns",
        "annotations": {"crossplane.io/composition-resource-name": "cm"},
        "ownerReferences": [
            {"apiVersion": "example.org/v1", "kind": "XR", "name": "x", "uid": "u1", "controller": True}
        ],
    },
    "data": {"z": "1", "a": "2"},
}
# A Struct field the schema does not know (number 9, a varint): kept through every step, as on the wire.
UNKNOWN_FIELD = b"\x48\x07"


class Recorder:
    """Records each request as sent and answers with what ``answer`` writes."""

    def __init__(self, answer: Any) -> None:
        self.requests: list[fnv1.RunFunctionRequest] = []
        self.answer = answer

    async def run_function(self, name: str, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
        self.requests.append(req)
        rsp = fnv1.RunFunctionResponse()
        self.answer(len(self.requests), req, rsp)
        return rsp


def passes_on(call: int, req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    rsp.desired.CopyFrom(req.desired)
    rsp.context.CopyFrom(req.context)
    rsp.desired.resources[f"r{call}"].resource.CopyFrom(resource.dict_to_struct({**CM, "step": call}))
    rsp.desired.resources[f"r{call}"].resource.MergeFromString(UNKNOWN_FIELD)
    rsp.context.fields["k" + str(call)].string_value = "v"


def drops_context(call: int, req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    rsp.desired.CopyFrom(req.desired)  # no context: the next step gets none


def drops_everything(call: int, req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    return None  # neither desired nor context: the next step gets neither


class Secrets:
    async def secret(self, namespace: str, name: str) -> Mapping[str, bytes] | None:
        return {"pw": b"hunter2", "user": b"me"}


class Schemas:
    async def schema(self, api_version: str, kind: str) -> dict[str, Any] | None:
        return {"type": "object", "properties": {"spec": {"type": "object"}}}


RICH_STEP = engine.PipelineStep(
    "rich",
    "fn",
    input={"apiVersion": "x/v1", "kind": "In", "list": [{"b": 1, "a": 2}], "empty": {}},
    credentials=(engine.StepCredential("db", "Secret", "s", "ns"), engine.StepCredential("none", "None")),
    required_resources=(
        engine.RequiredResource("cms", "v1", "ConfigMap", match_labels={"app": "x"}),
        engine.RequiredResource("one", "v1", "ConfigMap", name="cm", namespace="ns"),
    ),
    required_schemas=(engine.RequiredSchema("xrs", "example.org/v1", "XR"),),
)


@pytest.mark.parametrize(
    ("steps", "answer", "observed", "seed"),
    [
        pytest.param(
            [engine.PipelineStep("one", "fn"), engine.PipelineStep("two", "fn", input={})],
            passes_on, (CM,), None,
            id="desired and context carried on, with a field the schema does not know; an empty input",
        ),
        pytest.param(
            [engine.PipelineStep("one", "fn"), engine.PipelineStep("two", "fn")],
            drops_context, (), None,
            id="a step that returns no context: the next one is sent none",
        ),
        pytest.param(
            [engine.PipelineStep("one", "fn"), engine.PipelineStep("two", "fn")],
            drops_everything, (CM,), None,
            id="a step that returns nothing: neither desired nor context next",
        ),
        pytest.param(
            [RICH_STEP, RICH_STEP],
            passes_on, (CM,),
            {"rich": fnv1.Requirements(resources={"seeded": fnv1.ResourceSelector(api_version="v1", kind="Secret", match_name="s")})},
            id="credentials, bootstrap and seeded requirements, required schemas: the fields after the state",
        ),
    ],
)  # fmt: skip
async def test_each_request_is_tagged_with_its_own_encoding(
    steps: list[engine.PipelineStep],
    answer: Any,
    observed: tuple[dict[str, Any], ...],
    seed: Mapping[str, fnv1.Requirements] | None,
) -> None:
    """The tag is the hash of the request's deterministic encoding without meta (upstream core-2.4): a
    request assembled from encoded parts in any other order, or not in the encoding's canonical form,
    would hash differently from its own encoding."""
    runner = Recorder(answer)
    resources = engine.InMemoryResources(
        [CM, {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}]
    )
    sources = engine.Sources(resources=resources, credentials=Secrets(), schemas=Schemas())
    await engine.compose(
        XR, steps, runner, observed=[engine.ObservedResource(o, {"k": b"v"}) for o in observed],
        sources=sources, tracer=engine.NoTracer(), seed=seed,
    )  # fmt: skip
    assert len(runner.requests) == len(steps)
    for req in runner.requests:
        assert req.meta.tag == _tag.tag(req), "the tag hashes the request as it was sent"
        assert list(req.meta.capabilities) == list(engine.CAPABILITIES)


async def test_the_request_is_the_field_by_field_build() -> None:
    """Every field the pipeline sends is the value a field-by-field build gives (upstream core-2.3)."""
    runner = Recorder(passes_on)
    sources = engine.Sources(
        resources=engine.InMemoryResources([CM]), credentials=Secrets(), schemas=Schemas()
    )
    await engine.compose(
        XR, [RICH_STEP, RICH_STEP], runner, observed=[engine.ObservedResource(CM, {"k": b"v"})],
        sources=sources, tracer=engine.NoTracer(),
    )  # fmt: skip
    first, second = runner.requests
    want = fnv1.RunFunctionRequest()
    want.observed.composite.resource.CopyFrom(resource.dict_to_struct(XR))
    want.observed.resources["cm"].resource.CopyFrom(resource.dict_to_struct(CM))
    want.observed.resources["cm"].connection_details["k"] = b"v"
    want.desired.SetInParent()
    want.input.CopyFrom(resource.dict_to_struct(RICH_STEP.input))  # type: ignore[arg-type]
    want.context.SetInParent()
    want.credentials["db"].credential_data.data.update({"pw": b"hunter2", "user": b"me"})
    want.required_resources["cms"].SetInParent()  # its labels match nothing: present, empty
    want.required_resources["one"].items.add().resource.CopyFrom(resource.dict_to_struct(CM))
    want.required_schemas["xrs"].openapi_v3.CopyFrom(
        resource.dict_to_struct({"type": "object", "properties": {"spec": {"type": "object"}}})
    )
    want.meta.tag = _tag.tag(want)
    want.meta.capabilities.extend(engine.CAPABILITIES)
    assert first == want, "the first step: present, empty desired and context"
    want.desired.resources["r1"].resource.CopyFrom(resource.dict_to_struct({**CM, "step": 1}))
    want.desired.resources["r1"].resource.MergeFromString(UNKNOWN_FIELD)
    want.context.fields["k1"].string_value = "v"
    want.meta.tag = _tag.tag(want)
    assert second == want, "the second step: what the first returned, its unknown field included"


def test_a_steps_input_is_converted_once() -> None:
    step = engine.PipelineStep("s", "fn", input={"a": 1})
    assert step.input_wire is step.input_wire, "kept after the first use"
    assert fnv1.RunFunctionRequest.FromString(
        wire.message_field(4, step.input_wire)
    ).input == resource.dict_to_struct({"a": 1})
    bad = engine.PipelineStep("s", "fn", input={"a": object()})
    for _ in range(2):
        with pytest.raises(TypeError):
            bad.input_wire  # noqa: B018 -- the property raises; a failure is not kept


def _nested(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {"leaf": True}
    for _ in range(levels - 1):
        value = {"a": value}
    return value


async def test_deep_objects_reach_the_function_whole() -> None:
    """Objects nested deeper than protobuf's default decoding depth (about 30 objects) are observed and
    sent whole, as Kubernetes accepts them (issue 15): built in place where they can be, else apart."""
    deep_xr = {**XR, "spec": _nested(100)}
    deep_cm = {**CM, "data": _nested(100)}
    runner = Recorder(passes_on)
    await engine.compose(
        deep_xr, [engine.PipelineStep("one", "fn", input={"deep": _nested(100)})], runner,
        observed=[engine.ObservedResource(deep_cm)], tracer=engine.NoTracer(),
    )  # fmt: skip
    (req,) = runner.requests
    assert resource.struct_to_dict(req.observed.composite.resource) == deep_xr
    assert resource.struct_to_dict(req.observed.resources["cm"].resource) == deep_cm
    assert resource.struct_to_dict(req.input) == {"deep": _nested(100)}
    assert req.meta.tag == _tag.tag(req)
