"""CEL health-check customisations: a user's expression decides readiness.

function-auto-ready evaluates a CEL expression with one variable, ``object``
(the observed composed resource). ``true`` marks the resource ready, any other
boolean marks it explicitly *not* ready, and an error leaves its readiness
alone and becomes a Warning. We use cel-python (``celpy``, through
:mod:`crossfn.gocompat.cel`). Unlike cel-go it
has no static type check, so "does not return a bool" is detected on the
value rather than at compile time; the message is upstream's either way.

celpy is imported on first use: it costs about 60 ms, and most pipelines
have no CEL rules; without the ``cel`` extra a CEL rule gives a Warning naming
it. Evaluation is bounded by Kubernetes' per-call cost limit
(:mod:`crossfn.gocompat.celcost`), estimated before evaluating, and by time:
cel-python runs about a hundred times slower than cel-go, so a rule within the
cost limit (one ``map`` inside an ``all`` over 450 items: some 600,000 units,
milliseconds in cel-go) took 8-24 s. Past :data:`EVAL_SECONDS` the evaluation
is interrupted (the SDK's watchdog) and the rule gives a Warning, like any
rule that fails.
"""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Mapping
from typing import Any

from crossfn import errors
from crossfn.gocompat import cel, celcost
from crossfn.sdk import _calls

__all__ = ["EVAL_SECONDS", "CelError", "evaluate", "gvk_key", "lookup"]

EVAL_SECONDS = 1.0
"""The longest one health check may evaluate (cel-go's per-call cost limit is "roughly 0.1 second")."""

_WATCHDOG = _calls.Watchdog()


class CelError(errors.CrossfnError):
    """A CEL health check that did not compile, failed, or gave no bool; its text is upstream's."""


def gvk_key(group: str, version: str, kind: str) -> str:
    """The key a customisation is filed under: ``<group>_<version>_<kind>`` (core group empty)."""
    return f"{group}_{version}_{kind}"


@functools.lru_cache(maxsize=256)
def _program(expr: str) -> Any:
    try:
        env = cel.environment()
    except errors.MissingExtraError as exc:
        raise CelError(f"failed to compile query: {exc}") from exc
    try:
        return env.program(env.compile(expr))
    except Exception as exc:  # celpy raises parser- and lark-specific errors
        raise CelError(f"failed to compile query: {_one_line(exc)}") from exc


def _one_line(exc: BaseException) -> str:
    text = exc.args[0] if exc.args and isinstance(exc.args[0], str) else str(exc)
    return " ".join(text.split())


def evaluate(expr: str, obj: Mapping[str, Any]) -> bool:
    """Evaluate ``expr`` against ``object = obj``: True means ready, False explicitly not ready."""
    program = _program(expr)
    celpy = cel.module()
    # Kubernetes' per-call cost limit, checked before evaluating: a quadratic rule
    # over 1,000 items took 108 s in cel-python.
    if celcost.exceeds(expr, {"object": obj}):
        raise CelError(f"failed to eval the program: {celcost.LIMIT_EXCEEDED}")
    due = time.monotonic() + EVAL_SECONDS
    try:
        value = _WATCHDOG.run(due, program.evaluate, {"object": celpy.adapter.json_to_cel(dict(obj))})
    except _calls.DeadlineExceeded:
        if time.monotonic() < due:
            raise  # not ours: the function call's own deadline (a server's watchdog)
        raise CelError(f"failed to eval the program: evaluation took longer than {EVAL_SECONDS:g}s") from None
    except Exception as exc:  # CELEvalError and friends: anything the expression does wrong
        raise CelError(f"failed to eval the program: {_one_line(exc)}") from exc
    if isinstance(value, celpy.evaluation.CELEvalError):
        raise CelError(f"failed to eval the program: {_one_line(value)}")
    if not isinstance(value, celpy.celtypes.BoolType):
        raise CelError("celQuery does not return a bool type")
    return bool(value)


_KEY_PART = re.compile(r"\[([^\[\]]+)\]|([^.\[\]]+)")


def lookup(context: Mapping[str, Any], key: str) -> dict[str, str] | None:
    """Find the customisation map at ``key`` in the context, as upstream's GetNestedMap.

    ``key`` takes dots and brackets (``apiextensions.crossplane.io/environment``
    needs brackets: ``[apiextensions.crossplane.io/environment].healthChecks``).
    A missing path or a non-map gives None; non-string entries are dropped.
    """
    parts = [m.group(1) or m.group(2) for m in _KEY_PART.finditer(key)]
    if not parts:
        return None
    cur: Any = context
    for part in parts:
        if not isinstance(cur, Mapping) or part not in cur:
            return None
        cur = cur[part]
    if not isinstance(cur, Mapping):
        return None
    return {k: v for k, v in cur.items() if isinstance(v, str)}
