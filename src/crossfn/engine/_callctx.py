"""Per-call facts the runners pass down without changing the runner signature.

Crossplane threads the trace id, step and requirements iteration through Go's
``context.Context``; here they are ``contextvars``, set by the pipeline (trace
id, step, XR identity) and by the fetching runner (iteration), and read by the
pipeline inspector. asyncio copies them into every task, so concurrent
reconciles never see each other's values.
"""

from __future__ import annotations

import contextvars
import dataclasses

__all__ = ["ITERATION", "STEP", "Step"]


@dataclasses.dataclass(frozen=True)
class Step:
    """The pipeline step a call belongs to."""

    trace_id: str
    index: int
    name: str
    composition_name: str = ""
    operation: tuple[str, str] | None = None
    """The name and uid of the Operation the step belongs to; ``None`` in a Composition's pipeline."""


STEP: contextvars.ContextVar[Step | None] = contextvars.ContextVar("crossfn_engine_step", default=None)
ITERATION: contextvars.ContextVar[int] = contextvars.ContextVar("crossfn_engine_iteration", default=0)
