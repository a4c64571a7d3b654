"""The routing runner: one pipeline, each function name on its own transport."""

from __future__ import annotations

import pytest

from crossfn import engine, errors
from crossfn.proto.v1 import run_function_pb2 as fnv1


def _answering(text: str) -> engine.FunctionRunner:
    async def run(name: str, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
        rsp = fnv1.RunFunctionResponse()
        rsp.results.add(message=f"{text}:{name}")
        return rsp

    return engine.runner_from(run)


LOCAL = _answering("local")
REMOTE = _answering("remote")


@pytest.mark.parametrize(
    ("routes", "name", "want", "reason"),
    [
        pytest.param(
            {"a": LOCAL, "b": REMOTE}, "a", "local:a", "a mapping routes by name", id="MappingFirst"
        ),
        pytest.param(
            {"a": LOCAL, "b": REMOTE}, "b", "remote:b", "each name to its own runner", id="MappingSecond"
        ),
        pytest.param(
            lambda n: LOCAL if n.startswith("fn-") else REMOTE,
            "fn-x",
            "local:fn-x",
            "a callable decides per call",
            id="Callable",
        ),
    ],
)
async def test_routes(routes: object, name: str, want: str, reason: str) -> None:
    runner = engine.RoutingRunner(routes)  # type: ignore[arg-type]
    rsp = await runner.run_function(name, fnv1.RunFunctionRequest())
    assert [r.message for r in rsp.results] == [want], reason


@pytest.mark.parametrize(
    ("unknown", "want"),
    [
        pytest.param(None, 'cannot run Function "x": no runner is known for it', id="Default"),
        pytest.param(
            lambda n: errors.FunctionRunError(f"unknown Function {n}"), "unknown Function x", id="CallersText"
        ),
    ],
)
async def test_unknown_name_is_the_callers_error(unknown: object, want: str) -> None:
    runner = engine.RoutingRunner({}, unknown=unknown) if unknown else engine.RoutingRunner(lambda _: None)  # type: ignore[arg-type]
    with pytest.raises(errors.FunctionRunError) as got:
        await runner.run_function("x", fnv1.RunFunctionRequest())
    assert str(got.value) == want
