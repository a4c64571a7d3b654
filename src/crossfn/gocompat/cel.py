"""cel-go as crossfn runs it: the one CEL interpreter, cel-python (``celpy``, the ``cel`` extra).

validate's ``x-kubernetes-validations``, function-auto-ready's health checks
and :mod:`.celcost`'s cost estimate all compile through :func:`environment`.
celpy is imported on first use (about 60 ms; most commands never need it), and
without the ``cel`` extra that use fails with one line naming it.

cel-go compares values of different types with *heterogeneous equality*
(``1.0 == 1`` is true, ``1 == "a"`` false); cel-python raises "no such
overload" for both. :func:`go_equality` gives the ``==``, ``!=`` and ``in``
of cel-go, for a program to pass as ``functions=`` (function-cel-filter's
expressions compare the doubles of a Struct with integer literals).

celpy's ``Environment()`` sets the interpreter's recursion limit to 2,500 (lowering the CLI's,
:data:`crossfn.cli.RECURSION_LIMIT`, or raising a host's); the one environment is made once and
the caller's limit put back: a library does not change the interpreter's global settings.
"""

from __future__ import annotations

import functools
import importlib
import sys
from types import ModuleType
from typing import Any

from crossfn import extras

__all__ = ["SIZE_LIMIT", "environment", "go_equality", "module", "size_error", "value"]

SIZE_LIMIT = 100_000
"""cel-go's parser refuses an expression longer than this many code points (``ExpressionSizeCodePointLimit``)."""


def size_error(expression: str) -> str | None:
    """cel-go's parse error for an expression over :data:`SIZE_LIMIT`, or ``None``; checked before parsing,
    so a hostile expression of megabytes costs nothing (celpy would parse it for seconds)."""
    if len(expression) <= SIZE_LIMIT:
        return None
    return (
        f"ERROR: <input>:-1:0: expression code point size exceeds limit: size: {len(expression)}, "
        f"limit {SIZE_LIMIT}"
    )


@functools.cache
def module() -> ModuleType:
    """The ``celpy`` package, with ``celpy.adapter`` loaded."""
    extras.require("cel", "CEL expressions")
    importlib.import_module("celpy.adapter")
    return importlib.import_module("celpy")


@functools.cache
def environment() -> Any:
    """celpy's ``Environment``, shared: ``compile`` gives a parse tree, ``program`` a runnable."""
    celpy = module()
    limit = sys.getrecursionlimit()
    env = celpy.Environment()
    sys.setrecursionlimit(limit)
    return env


def _equal(a: Any, b: Any) -> bool:
    """cel-go's heterogeneous equality over cel-python values: numbers by value, containers deeply, else same type."""
    t = module().celtypes
    if isinstance(a, t.BoolType) or isinstance(b, t.BoolType):
        return isinstance(a, t.BoolType) and isinstance(b, t.BoolType) and bool(a) == bool(b)
    numbers = (t.IntType, t.UintType, t.DoubleType)
    if isinstance(a, numbers) and isinstance(b, numbers):
        x = float(a) if isinstance(a, t.DoubleType) else int(a)
        y = float(b) if isinstance(b, t.DoubleType) else int(b)
        return x == y
    if isinstance(a, t.ListType) and isinstance(b, t.ListType):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, t.MapType) and isinstance(b, t.MapType):
        return len(a) == len(b) and all(
            any(_equal(k, j) and _equal(v, b[j]) for j in b) for k, v in a.items()
        )
    if type(a) is not type(b):
        return False
    return bool(a == b)


def _contains(item: Any, container: Any) -> Any:
    t = module().celtypes
    failed = module().evaluation.CELEvalError
    if isinstance(item, failed) or isinstance(container, failed):
        return item if isinstance(item, failed) else container
    if isinstance(container, t.MapType | t.ListType):
        return t.BoolType(any(_equal(item, x) for x in container))
    return module().evaluation.CELEvalError("no such overload", TypeError, ())


@functools.cache
def go_equality() -> dict[str, Any]:
    """cel-go's ``==``, ``!=`` and ``in`` (heterogeneous equality), as cel-python ``functions=`` overrides."""
    t = module().celtypes

    failed = module().evaluation.CELEvalError

    def eq(a: Any, b: Any) -> Any:
        if isinstance(a, failed) or isinstance(b, failed):
            return a if isinstance(a, failed) else b
        return t.BoolType(_equal(a, b))

    def ne(a: Any, b: Any) -> Any:
        result = eq(a, b)
        return result if isinstance(result, failed) else t.BoolType(not result)

    return {"_==_": eq, "_!=_": ne, "_in_": _contains}


def value(v: Any) -> Any:
    """Plain data as cel-python values; unlike celpy's ``json_to_cel`` it takes ``bytes`` (connection details)."""
    t = module().celtypes
    if v is None:
        return None
    if isinstance(v, bool):
        return t.BoolType(v)
    if isinstance(v, int):
        return t.IntType(v)
    if isinstance(v, float):
        return t.DoubleType(v)
    if isinstance(v, str):
        return t.StringType(v)
    if isinstance(v, bytes):
        return t.BytesType(v)
    if isinstance(v, dict):
        return t.MapType({t.StringType(k): value(x) for k, x in v.items()})
    return t.ListType([value(x) for x in v])
