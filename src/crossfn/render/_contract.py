"""Render's output contracts: which ``crossplane render`` a render reproduces, as an object the caller picks.

Crossplane has two renders whose output differs: today's ``crossplane render
xr`` (one reconcile of the XR controller, upstream core-3.8, core-3.9) and v2.2.4's classic
``crossplane render`` (upstream core-3.5, core-3.6). Each is an :class:`Output`: given render's
loaded inputs and a runner that reaches every Function, it runs the engine
under its contract and returns what it rendered. Each also owns its text for
a Function the inputs do not name. The CLI's ``--classic`` picks
:data:`crossfn.render.CLASSIC`; the default is :data:`crossfn.render.CURRENT`.
Nothing else in render asks which contract it runs.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from crossfn import engine
    from crossfn.render import _inputs

__all__ = ["NOTHING_MORE", "Include", "Output", "Rendered"]


@dataclasses.dataclass(frozen=True)
class Include:
    """What to print besides the XR and the composed resources (``-r``, ``-x``, ``-c``)."""

    function_results: bool = False
    full_xr: bool = False
    context: bool = False


NOTHING_MORE = Include()
"""The XR and the composed resources only: no flag given."""


@dataclasses.dataclass(frozen=True)
class Rendered:
    """What one render produced: the documents to print, and the composed resources to validate."""

    documents: list[dict[str, Any]]
    composed: list[dict[str, Any]]


class Output(Protocol):
    """An output contract of ``crossplane render`` (see the module docstring)."""

    def unknown_function(self, name: str) -> Exception:
        """The error for a pipeline step naming a Function the inputs do not have."""
        ...

    async def render(
        self, inputs: _inputs.Inputs, transport: engine.FunctionRunner, include: Include
    ) -> Rendered:
        """Render ``inputs`` through ``transport``; a failure (a fatal result too) raises."""
        ...
