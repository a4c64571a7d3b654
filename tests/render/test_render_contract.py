"""Render's output contract is an object the caller passes: render asks it, and nothing else, what to print."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_render_classic import _write

from crossfn import engine, errors, render
from crossfn.proto.v1 import run_function_pb2 as fnv1


class Recording:
    """An output contract that calls one Function and prints what it got back, recording what render handed it."""

    def __init__(self, call: str) -> None:
        self.call = call
        self.seen: list[render.Include] = []

    def unknown_function(self, name: str) -> Exception:
        return errors.FunctionRunError(f"no {name} here")

    async def render(
        self, inputs: render.Inputs, transport: engine.FunctionRunner, include: render.Include
    ) -> render.Rendered:
        self.seen.append(include)
        rsp = await transport.run_function(self.call, fnv1.RunFunctionRequest())
        doc = {"kind": "Called", "results": len(rsp.results), "xr": inputs.xr["metadata"]["name"]}
        return render.Rendered(documents=[doc], composed=[])


def test_the_callers_contract_renders(tmp_path: Path) -> None:
    req = _write(tmp_path, "success")
    contract = Recording("function-test")
    docs = render.render(render.Request(**{**req.__dict__, "include_context": True}), output=contract)
    assert docs == [{"kind": "Called", "results": 1, "xr": "test-render"}], (
        "the contract's documents, as it made them"
    )
    assert contract.seen == [render.Include(context=True)], "the -r/-x/-c flags reach the contract"


@pytest.mark.parametrize(
    ("contract", "want"),
    [
        pytest.param(Recording("nope"), "no nope here", id="Callers"),
        pytest.param(
            None, 'unknown function "function-test" - is it listed in the render input?', id="Current"
        ),
    ],
)
def test_unknown_function_is_the_contracts_text(
    tmp_path: Path, contract: Recording | None, want: str
) -> None:
    req = _write(tmp_path, "success", function_name="function-other")
    with pytest.raises(errors.FunctionRunError) as got:
        render.render(req, output=contract)
    assert str(got.value).endswith(want)
