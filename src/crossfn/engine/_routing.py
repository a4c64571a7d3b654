"""Routing calls between transports by function name: one pipeline, in-process and remote functions.

A caller that runs some functions in its own process and others over gRPC
(render, the test harness, the controller's built-ins) wraps each transport
in a runner and hands the engine a :class:`RoutingRunner` over them. The
routes are a mapping, or a callable consulted on every call (so they can
change between calls, as the controller's do when a Function object
changes). A name with no route gets the caller's error: which text a user
sees for an unknown function is the caller's contract, not the router's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from crossfn import errors
from crossfn.engine import _runner
from crossfn.proto.v1 import run_function_pb2 as fnv1

__all__ = ["RoutingRunner"]


def _no_route(name: str) -> errors.FunctionRunError:
    return errors.FunctionRunError(f"cannot run Function {errors.quote(name)}: no runner is known for it")


class RoutingRunner:
    """Runs each function on the runner ``routes`` gives for its name.

    ``routes`` maps a function name to its runner (a mapping, or a callable
    returning ``None`` for unknown names). ``unknown`` makes the error raised
    for a name without a route.
    """

    def __init__(
        self,
        routes: Mapping[str, _runner.FunctionRunner] | Callable[[str], _runner.FunctionRunner | None],
        *,
        unknown: Callable[[str], Exception] = _no_route,
    ) -> None:
        self._routes = routes
        self._unknown = unknown

    def route(self, name: str) -> _runner.FunctionRunner | None:
        """The runner of function ``name``, or ``None``."""
        if callable(self._routes):
            return self._routes(name)
        return self._routes.get(name)

    async def run_function(self, name: str, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
        runner = self.route(name)
        if runner is None:
            raise self._unknown(name)
        return await runner.run_function(name, req)
