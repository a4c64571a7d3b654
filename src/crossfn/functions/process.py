"""A function server in a child process: started on a free loopback port, waited for, stopped with a grace period.

Two callers run function servers this way: render's ``Process`` runtime
(``crossfn.render._runtimes``: a command from an annotation, or an install of
``crossfn function install``) and the controller's installs
(:class:`crossfn.functions.installs.Server`). Both sit above this layer; the
engine, below neither, reaches servers only through gRPC targets and starts
nothing.

A server runs in a session of its own, so a command started through ``sh -c``
(or a wrapper that forks) is stopped with every process it started, not just
the shell: :meth:`ServerProcess.terminate` signals the whole group, and
:meth:`ServerProcess.wait_stopped` waits for every member, killing what is
left at the deadline. Callers stopping several servers terminate them all
first and then wait, so they share one grace period.

Errors: starting raises the ``OSError`` of ``exec`` (callers word it: a bad
command is the user's input to render, a broken install the controller's run
failure); :meth:`ServerProcess.wait_serving` raises
:class:`crossfn.errors.FunctionRunError`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO

from crossfn import errors

__all__ = ["STOP_GRACE", "ServerProcess", "argv_for", "wait_serving"]

STOP_GRACE = 5.0
"""Seconds a server gets to stop after SIGTERM before it is killed, Crossplane's budget."""

_LOOPBACK = "127.0.0.1"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((_LOOPBACK, 0))
        port: int = s.getsockname()[1]
        return port


def argv_for(command: Sequence[str], port: int) -> list[str]:
    """The command with its placeholders filled in, and the standard flags appended unless it places them.

    ``{python}`` is the interpreter running crossfn; ``{port}`` and
    ``{address}`` (``127.0.0.1:<port>``) let a command that does not take
    ``--insecure --address`` say where to listen.
    """
    address = f"{_LOOPBACK}:{port}"
    argv = [c.replace("{python}", sys.executable) for c in command]
    if any("{port}" in c or "{address}" in c for c in argv):
        return [c.replace("{port}", str(port)).replace("{address}", address) for c in argv]
    return [*argv, "--insecure", f"--address={address}"]


class ServerProcess:
    """One function server's child process and the loopback target it serves at."""

    def __init__(self, proc: asyncio.subprocess.Process, argv: Sequence[str], target: str) -> None:
        self.proc = proc
        self.argv = tuple(argv)
        self.target = target

    @classmethod
    async def start(
        cls,
        command: Sequence[str],
        *,
        output: IO[bytes] | int,
        cwd: Path | None = None,
    ) -> ServerProcess:
        """Start ``command`` (see :func:`argv_for`) on a free loopback port, its output to ``output``.

        ``output`` is a file or a file descriptor, never a pipe nobody reads
        (which could fill and block the server). Raises ``OSError`` when the
        command cannot be run.
        """
        port = _free_port()
        argv = argv_for(command, port)
        proc = await asyncio.create_subprocess_exec(
            *argv, cwd=cwd, stdin=asyncio.subprocess.DEVNULL, stdout=output, stderr=output,
            start_new_session=True,
        )  # fmt: skip
        return cls(proc, argv, f"{_LOOPBACK}:{port}")

    @property
    def running(self) -> bool:
        return self.proc.returncode is None

    async def wait_serving(self, deadline: float, who: str) -> None:
        """Wait until the server answers a gRPC health check (or says it has none), by the loop time ``deadline``.

        Raises :class:`crossfn.errors.FunctionRunError` naming ``who`` when the
        process exits first or the deadline passes.
        """
        await wait_serving(self.target, deadline, who, alive=self.proc)

    def terminate(self) -> None:
        """SIGTERM to the server's whole process group."""
        _signal_group(self.proc, signal.SIGTERM)

    async def wait_stopped(self, deadline: float) -> None:
        """Wait until the leader and every other member of its group are gone, killing what is left at ``deadline``."""
        loop = asyncio.get_running_loop()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.proc.wait(), max(0.0, deadline - loop.time()))
        while self.proc.returncode is not None and _group_alive(self.proc.pid) and loop.time() < deadline:
            await asyncio.sleep(0.02)  # members outliving the leader: poll, there is nothing to wait on
        _signal_group(self.proc, signal.SIGKILL)
        await self.proc.wait()

    async def stop(self, grace: float = STOP_GRACE) -> None:
        """SIGTERM to its group, SIGKILL to whatever is left after ``grace`` seconds."""
        self.terminate()
        await self.wait_stopped(asyncio.get_running_loop().time() + grace)


async def wait_serving(
    target: str, deadline: float, who: str, *, alive: asyncio.subprocess.Process | None = None
) -> None:
    """Wait until a gRPC server answers at ``target``: a health check that succeeds or is unimplemented.

    ``alive`` is the server's process when this one started it: its exit ends
    the wait at once. Render waits for its Docker containers this way too.
    """
    # grpc is imported only when a Function is served: in-process renders never load it.
    import grpc  # noqa: PLC0415 -- see above
    import grpc.aio  # noqa: PLC0415 -- see above
    from grpc_health.v1 import health_pb2  # noqa: PLC0415 -- see above

    loop = asyncio.get_running_loop()
    async with grpc.aio.insecure_channel(target) as ch:
        check: grpc.aio.UnaryUnaryMultiCallable[health_pb2.HealthCheckRequest, health_pb2.HealthCheckResponse]
        check = ch.unary_unary(
            "/grpc.health.v1.Health/Check",
            request_serializer=health_pb2.HealthCheckRequest.SerializeToString,
            response_deserializer=health_pb2.HealthCheckResponse.FromString,
        )
        while True:
            if alive is not None and alive.returncode is not None:
                raise errors.FunctionRunError(f"{who} exited with status {alive.returncode} before serving")
            try:
                await check(health_pb2.HealthCheckRequest(), timeout=0.5)
                return
            except grpc.aio.AioRpcError as exc:
                if exc.code() in (grpc.StatusCode.UNIMPLEMENTED, grpc.StatusCode.NOT_FOUND):
                    return
            if loop.time() > deadline:
                raise errors.FunctionRunError(f"{who} did not start serving gRPC at {target} in time")
            await asyncio.sleep(0.02)


def _signal_group(proc: asyncio.subprocess.Process, sig: signal.Signals) -> None:
    """Signal the process group ``proc`` leads (``start_new_session`` made its pid the group id)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True
