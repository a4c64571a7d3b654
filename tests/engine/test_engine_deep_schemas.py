"""Required schemas of any depth reach a function, bootstrap and dynamic, in process and over gRPC.

A built-in kind's schema (apps/v1 Deployment) nests past protobuf's default
decoder depth of 100 message levels; Go decodes 10,000, and Kubernetes serves
JSON up to 10,000 levels. A schema 10,000 JSON objects deep (5,000 levels of
``properties``) must reach the function whole, however it is asked for and
however the function is called.
"""

from __future__ import annotations

from typing import Any

import pytest

from crossfn import engine
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource, runtime, settings

DEPTH = 5_000
"""Schema levels: each is two JSON objects (the schema and its ``properties``), so 10,000 JSON levels."""
XR = {"apiVersion": "test.crossplane.io/v1", "kind": "XThing", "metadata": {"name": "x"}, "spec": {}}
_INSECURE = settings.ServerSettings(listen=settings.ListenSettings(address="127.0.0.1:0", insecure=True))


def deep_schema(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels - 1):
        schema = {"type": "object", "properties": {"x": schema}}
    return schema


def depth(schema: dict[str, Any]) -> int:
    n = 1
    while "properties" in schema:
        schema = schema["properties"]["x"]
        n += 1
    return n


class Schemas:
    async def schema(self, api_version: str, kind: str) -> dict[str, Any] | None:
        return deep_schema(DEPTH) if (api_version, kind) == ("test.crossplane.io/v1", "Deep") else None


def measure(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    """Ask for the deep schema (dynamically), and report the depth of what was received."""
    rsp.requirements.schemas["dynamic"].api_version = "test.crossplane.io/v1"
    rsp.requirements.schemas["dynamic"].kind = "Deep"
    seen = {
        name: depth(resource.struct_to_dict(s.openapi_v3))
        for name, s in req.required_schemas.items()
        if s.HasField("openapi_v3")
    }
    rsp.context.update({"seen": seen})


STEP = engine.PipelineStep(
    "measure", "fn", required_schemas=(engine.RequiredSchema("bootstrap", "test.crossplane.io/v1", "Deep"),)
)


async def _compose(transport: engine.FunctionRunner) -> dict[str, Any]:
    sources = engine.Sources(schemas=Schemas())
    options = engine.ComposeOptions.controller()
    runner = engine.build_runner(transport, sources=sources, options=options)
    result = await engine.compose(XR, [STEP], runner, sources=sources, options=options)
    return dict(result.pipeline.context or {})


async def test_deep_schema_in_process() -> None:
    got = await _compose(engine.InProcessRunner({"fn": measure}))
    assert got["seen"] == {"bootstrap": DEPTH, "dynamic": DEPTH}


async def test_deep_schema_over_grpc() -> None:
    server = runtime.FunctionServer(measure, _INSECURE)
    port = await server.start()
    transport = engine.GrpcRunner({"fn": f"127.0.0.1:{port}"}, timeout=30)
    try:
        got = await _compose(transport)
    finally:
        await transport.aclose()
        await server.stop(0)
    assert got["seen"] == {"bootstrap": DEPTH, "dynamic": DEPTH}


@pytest.mark.parametrize("levels", [1, 101, DEPTH])
async def test_fetch_schema_any_depth(levels: int) -> None:
    """``fetch_schema`` gives a schema of any depth Kubernetes allows: none is refused by upb's 100-level limit."""

    class One:
        async def schema(self, api_version: str, kind: str) -> dict[str, Any] | None:
            return deep_schema(levels)

    got = await engine._required.fetch_schema(One(), fnv1.SchemaSelector(api_version="v1", kind="K"))
    assert depth(resource.struct_to_dict(got.openapi_v3)) == levels
