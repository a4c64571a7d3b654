"""cel-go as crossfn runs it: the one CEL interpreter, cel-python (``celpy``, the ``cel`` extra).

validate's ``x-kubernetes-validations``, function-auto-ready's health checks
and :mod:`.celcost`'s cost estimate all compile through :func:`environment`.
celpy is imported on first use (about 60 ms; most commands never need it), and
without the ``cel`` extra that use fails with one line naming it.

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

__all__ = ["environment", "module"]


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
