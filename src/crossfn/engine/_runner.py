"""The one seam between the engine and functions: a runner.

A :class:`FunctionRunner` has a single async method that takes a function name
and a request and returns the response. Every runner in the engine (gRPC,
in-process, fetching, caching) implements it, and the wrappers hold the
runner they wrap without knowing what it is, as Crossplane's
``internal/xfn`` runners do. :func:`runner_from` adapts a plain coroutine
function, which is how tests and small embeddings plug in.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

from crossfn.proto.v1 import run_function_pb2 as fnv1

__all__ = ["FunctionRunner", "RunFunction", "runner_from"]

RunFunction = Callable[[str, fnv1.RunFunctionRequest], Awaitable[fnv1.RunFunctionResponse]]
"""A coroutine function with the runner's signature."""


class FunctionRunner(Protocol):
    """Runs the named composition function with a request and returns its response.

    Transport failures raise :class:`crossfn.errors.FunctionRunError`; a fatal
    *result* is a normal response. Runners must not mutate ``req``: the
    fetching runner builds each iteration from it.
    """

    async def run_function(self, name: str, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse: ...


class _FuncRunner:
    """A runner made from a coroutine function."""

    def __init__(self, fn: RunFunction) -> None:
        self._fn = fn

    async def run_function(self, name: str, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
        return await self._fn(name, req)


def runner_from(fn: RunFunction) -> FunctionRunner:
    """Adapt ``async def fn(name, req) -> rsp`` into a :class:`FunctionRunner`."""
    return _FuncRunner(fn)
