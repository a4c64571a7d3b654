"""Import hygiene: ``import crossfn.engine`` loads no transport, cache or metrics library until asked.

Each case runs a fresh interpreter (``sys.modules`` of this test process is
already full of everything the suite imported) and reports which of the
heavy modules got loaded.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

_HEAVY = (
    "grpc",
    "prometheus_client",
    "opentelemetry",
    "crossfn.engine._cache_store",
    "crossfn.engine._caching",
    "crossfn.engine._grpc",
    "crossfn.engine._inspected",
)

_ONE_STEP_PIPELINE = """
import asyncio
from crossfn import engine
from crossfn.proto.v1 import run_function_pb2 as fnv1

async def answer(name, req):
    return fnv1.RunFunctionResponse()

step = engine.PipelineStep.from_dict({"step": "s", "functionRef": {"name": "f"}})
asyncio.run(engine.run_pipeline(None, [step], engine.runner_from(answer)))
"""


def _loaded_after(code: str) -> list[str]:
    """Which of :data:`_HEAVY` a fresh interpreter has loaded after running ``code``."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps([m for m in {_HEAVY!r} if m in sys.modules]))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    loaded: list[str] = json.loads(out.stdout.splitlines()[-1])
    return loaded


@pytest.mark.parametrize(
    ("code", "want", "reason"),
    [
        pytest.param(
            "import crossfn.engine",
            [],
            "importing the engine must not load grpc, prometheus_client, the cache or the inspector",
            id="ImportEngine",
        ),
        pytest.param(
            "from crossfn import engine\n"
            "engine.build_runner(engine.InProcessRunner({}), metrics=engine.NoMetrics())",
            [],
            "a stack without cache or inspector, with no-op metrics, loads none of them",
            id="StackWithoutCache",
        ),
        pytest.param(
            "from crossfn import engine\nengine.build_runner(engine.InProcessRunner({}), cache=engine.MemoryStore())",
            ["crossfn.engine._cache_store", "crossfn.engine._caching"],
            "a configured cache loads the caching runner and its store, still no grpc",
            id="StackWithCache",
        ),
        pytest.param(
            "from crossfn import engine\nengine.GrpcRunner",
            ["grpc", "crossfn.engine._grpc"],
            "the gRPC runner loads grpc on first access",
            id="GrpcRunnerOnAccess",
        ),
        pytest.param(
            _ONE_STEP_PIPELINE + "assert isinstance(engine.default_tracer(), engine.NoTracer)",
            [],
            "a process that never imported OpenTelemetry gets no spans and no OpenTelemetry import",
            id="NoTracingUnlessUsed",
        ),
        pytest.param(
            "import opentelemetry.trace\nfrom crossfn import engine\n"
            "assert isinstance(engine.default_tracer(), engine.OpenTelemetryTracer)",
            ["opentelemetry"],
            "a process that uses OpenTelemetry gets a span per step",
            id="TracingWhenUsed",
        ),
        pytest.param(
            "import prometheus_client\nfrom crossfn import engine\n"
            "engine.PrometheusMetrics(prometheus_client.CollectorRegistry())",
            ["prometheus_client"],
            "real metrics are the only reason to load prometheus_client",
            id="PrometheusMetricsBuilt",
        ),
    ],
)
def test_engine_loads_heavy_modules_on_demand(code: str, want: list[str], reason: str) -> None:
    assert _loaded_after(code) == want, reason


def test_lazy_names_are_public_and_resolve_to_their_modules_objects() -> None:
    import importlib

    from crossfn import engine

    table: dict[str, str] = engine._LAZY  # the private table, checked on purpose
    assert set(table) <= set(engine.__all__), "only public names are loaded lazily"
    wrong = [
        name
        for name, module in table.items()
        if getattr(engine, name) is not getattr(importlib.import_module(f"crossfn.engine.{module}"), name)
    ]
    assert wrong == [], "a lazily loaded name is the very object its module defines"


def test_unknown_name_is_an_attribute_error() -> None:
    from crossfn import engine

    with pytest.raises(AttributeError, match="has no attribute 'NoSuchRunner'"):
        _ = engine.NoSuchRunner  # type: ignore[attr-defined]  # the point: it does not exist


def test_dir_lists_lazy_names() -> None:
    from crossfn import engine

    assert set(engine.__all__) <= set(dir(engine)), "dir() shows every public name, loaded or not"
