"""starlark: composition logic as an inline, sandboxed Starlark script.

Input: ``apiVersion: starlark.fn.crossfn.io/v1alpha1``, ``kind:
StarlarkScript``, ``script: <source>``. The script defines ``main(req)``,
which receives the request as plain data (``_data``) and returns a
RunFunctionResponse-shaped dict. Connection details and credentials are
``{"base64": ...}`` bytes values, exact both ways. Predeclared helpers:
``response_to``, ``normal``/``warning``/``fatal``, ``set_condition``,
``set_ready``, ``require_resources``, ``required_resources``, ``credentials``,
``text``, ``from_base64``, ``child_name`` and ``json``.

Scripts run in a separate sandbox process (``crossfn.functions._sandbox``, ``_worker``): no file
system, network, clock, randomness or ``load()``; bounded time, memory and
output. Every failure is a Fatal result that starts ``cannot run starlark
script:`` and names ``script.star:<line>:<col>`` where the evaluator knows it.
The caller (a server thread or render) only ever waits on a pipe, so a
runaway script costs one sandbox process, never the server.
"""

from __future__ import annotations

import datetime
import os
from pathlib import Path
from typing import Any

from crossfn import errors
from crossfn import extras as _extras
from crossfn.functions import _sandbox as _pool
from crossfn.functions.starlark import _data
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource, response

_extras.require("starlark", "crossfn.functions.starlark")  # without the extra: one line naming it

__all__ = ["API_VERSION", "KIND", "Starlark", "compose"]

API_VERSION = "starlark.fn.crossfn.io/v1alpha1"
"""The input's apiVersion."""
KIND = "StarlarkScript"
"""The input's kind."""
_WORKER = Path(__file__).with_name("_worker.py")


class Starlark:
    """The Starlark function; ``compose`` is an instance with the default limits.

    ``timeout`` bounds one script's run; the evaluator stops at the line it is
    on. ``grace`` is how much longer the parent waits before killing a
    sandbox stuck in one builtin call. ``memory_limit`` is the sandbox's
    address space (the interpreter needs about 100 MiB of it). ``max_output``
    bounds the JSON size of what ``main`` returns (gRPC's default message limit
    is 4 MiB). ``workers`` is how many scripts may run at once.
    """

    def __init__(
        self,
        *,
        timeout: datetime.timedelta = datetime.timedelta(seconds=5),
        grace: datetime.timedelta = datetime.timedelta(seconds=2),
        memory_limit: int = 1 << 30,
        max_output: int = 4 << 20,
        workers: int = min(4, os.cpu_count() or 1),
    ) -> None:
        self._timeout = timeout.total_seconds()
        self._hard_timeout = self._timeout + grace.total_seconds()
        self._max_output = max_output
        self._pool = _pool.Pool(_WORKER, size=workers, memory_limit=memory_limit)

    def close(self) -> None:
        """Stop the sandbox processes; a later call starts new ones."""
        self._pool.close()

    def __enter__(self) -> Starlark:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __call__(self, req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        """Run the step's script and write what ``main`` returned into ``rsp``."""
        try:
            script = _script(req)
            stash = _data.Stash()
            returned = self._run(script, stash.cut(_data.request_data(req)))
            _data.apply_response(returned, rsp)
            stash.restore(rsp)
        except errors.FunctionInputError as exc:
            response.fatal(rsp, _truncate(f"cannot run starlark script: {exc}"))

    def _run(self, script: str, req: dict[str, Any]) -> dict[str, Any]:
        job = {"script": script, "req": req, "timeout": self._timeout, "max_output": self._max_output}
        try:
            reply = self._pool.run(job, hard_timeout=self._hard_timeout)
        except _pool.SandboxTimeoutError as exc:
            raise errors.FunctionInputError(
                f"script.star: script exceeded its time limit of {self._timeout:g}s inside one "
                f"builtin call and its sandbox was stopped after {self._hard_timeout:g}s"
            ) from exc
        except _pool.SandboxError as exc:
            raise errors.FunctionInputError(f"script.star: {exc}") from exc
        if "error" in reply:
            raise errors.FunctionInputError(reply["error"])
        ok: dict[str, Any] = reply["ok"]
        return ok


MAX_ERROR = 16 << 10
"""Characters of an error kept in the Fatal result: a ``fail()`` message larger than the
output limit must still make a response gRPC can send."""


def _truncate(message: str) -> str:
    if len(message) <= MAX_ERROR:
        return message
    return f"{message[:MAX_ERROR]}... ({len(message) - MAX_ERROR} more characters)"


def _script(req: fnv1.RunFunctionRequest) -> str:
    if not req.HasField("input"):
        raise errors.FunctionInputError(f"missing input: want {API_VERSION} {KIND} with a script")
    script = resource.struct_to_dict(req.input).get("script")
    if not isinstance(script, str) or not script.strip():
        raise errors.FunctionInputError("invalid input: script: must be a non-empty string")
    return script


compose = Starlark()
"""The Starlark function with the default limits (5 s, 1 GiB, 4 MiB output)."""
