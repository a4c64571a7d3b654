"""The sandbox process that runs function-python scripts; started by ``crossfn.functions._sandbox``.

It runs as ``python -I _worker.py <memory limit bytes>``. Each stdin line is
a JSON job ``{"req": <base64 RunFunctionRequest>, "release", "timeout",
"max_output"}``; each stdout line is ``{"ok": <base64 RunFunctionResponse>}``
or ``{"error": "<one line>"}``. It imports crossfn only for the protocol's
messages, and only when the official SDK (``crossplane.function``, which
scripts import) is not installed: then the messages are crossfn's, which
register under the SDK's file names (``crossfn.proto._registry``).

What a script may do, as function-python lets it (``main.py`` of each
release: ``exec`` of the script into a module named ``script``, then
``compose(req, rsp)`` or ``operate(req, rsp)``), and what crossfn adds:

* Time: a timer raises in the script at the deadline; the parent kills this
  process at a hard deadline besides (a C call that never returns).
* Memory: ``RLIMIT_AS``; the process dies and the parent reports it.
* Output: the serialized response is measured; the script's prints go to
  stderr, never into the reply pipe.
* No network and no files: an audit hook (PEP 578) refuses sockets' connect,
  bind, send and name look-ups, opening a file for writing or outside the
  interpreter's own paths (imports still work), listing such directories,
  processes (``subprocess``, ``os.system``, ``exec``, ``fork``, ``kill``),
  file-system changes, ``ctypes``, ``readline`` and SQLite database files. An
  audit hook refuses what a script asks through Python; it is no boundary
  against native code (``_posixsubprocess`` starts processes with no event),
  which is why this process is also confined by the kernel where it can be
  (``crossfn.functions._landlock``, started by the sandbox pool), and why
  ``--no-exec`` refuses function-python altogether (docs/security.md).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import datetime
import importlib.util
import inspect
import json
import os
import resource
import signal
import sys
import types
from collections.abc import Callable, Sequence
from typing import Any

sys.dont_write_bytecode = True  # imports may read, never write


def _protocol() -> types.ModuleType:
    """The SDK's v1 messages when the SDK is installed (scripts build them), else crossfn's (the same classes)."""
    try:
        from crossplane.function.proto.v1 import run_function_pb2  # noqa: PLC0415 -- optional, see above

        return run_function_pb2
    except ImportError:
        from crossfn.proto.v1 import run_function_pb2 as crossfn_v1  # noqa: PLC0415 -- fallback, see above

        return crossfn_v1


def _preload() -> None:
    """Import what scripts use before the audit hook narrows file access (and to start faster)."""
    with contextlib.suppress(ImportError):
        import crossplane.function.request  # noqa: PLC0415 -- warm the SDK
        import crossplane.function.resource  # noqa: PLC0415
        import crossplane.function.response  # noqa: F401, PLC0415


class _TimeLimit(BaseException):
    """Raised into the script at its deadline (a BaseException, so ``except Exception`` does not swallow it)."""


_NETWORK = frozenset(
    {
        "socket.connect",
        "socket.bind",
        "socket.sendto",
        "socket.sendmsg",
        "socket.getaddrinfo",
        "socket.gethostbyname",
        "socket.gethostbyaddr",
        "socket.getnameinfo",
        "socket.sethostname",
    }
)
_PROCESSES = (
    "subprocess.",
    "os.system",
    "os.exec",
    "os.posix_spawn",
    "os.spawn",
    "os.fork",
    "os.kill",
    "os.killpg",
)
_CHANGES = (
    "os.remove",
    "os.rename",
    "os.rmdir",
    "os.mkdir",
    "os.chmod",
    "os.chown",
    "os.link",
    "os.symlink",
    "os.truncate",
    "os.utime",
    "os.chflags",
    "shutil.",
    "ctypes.",
    "mmap.",
    "os.startfile",
    "webbrowser.",
)
_NATIVE_FILE_MODULES = frozenset({"readline"})
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


def _readable_roots() -> tuple[str, ...]:
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix}
    roots.update(p for p in sys.path if p and os.path.isdir(p))
    return tuple(sorted(os.path.realpath(r) + os.sep for r in roots))


def _audit_hook(roots: Sequence[str]) -> Callable[[str, tuple[Any, ...]], None]:
    def allowed(path: object) -> bool:
        if isinstance(path, int):
            return True  # an open file descriptor: nothing new is reached
        try:
            real = os.path.realpath(os.fsdecode(path))  # type: ignore[arg-type] # str, bytes or PathLike
        except (TypeError, ValueError):
            return False
        return any((real + os.sep).startswith(root) for root in roots)

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event == "open":
            path, mode, flags = args
            writes = isinstance(mode, str) and any(c in mode for c in "wax+")
            if writes or (isinstance(flags, int) and flags & _WRITE_FLAGS) or not allowed(path):
                raise PermissionError(
                    f"crossfn runs function-python scripts without file access (open {path!r})"
                )
        elif event in ("os.listdir", "os.scandir"):
            if args and args[0] is not None and not allowed(args[0]):
                raise PermissionError(f"crossfn runs function-python scripts without file access ({event})")
        elif event in _NETWORK:
            raise PermissionError(f"crossfn runs function-python scripts without network access ({event})")
        elif event.startswith(_PROCESSES):
            raise PermissionError(
                f"crossfn runs function-python scripts without starting processes ({event})"
            )
        elif event.startswith(_CHANGES):
            raise PermissionError(f"crossfn runs function-python scripts without this operation ({event})")
        elif (event == "import" and args[0] in _NATIVE_FILE_MODULES) or (
            event == "sqlite3.connect" and os.fsdecode(args[0]) not in ("", ":memory:")
        ):
            # Native code that reads or writes files with no "open" event: readline's history files,
            # a SQLite database file.
            raise PermissionError(
                f"crossfn runs function-python scripts without file access ({event} {args[0]!r})"
            )

    return hook


def _load_module(source: object) -> types.ModuleType:
    """function-python's load_module: exec the source into a fresh module named ``script``."""
    spec = importlib.util.spec_from_loader("script", loader=None)
    assert spec is not None  # spec_from_loader with a name always gives one
    module = importlib.util.module_from_spec(spec)
    exec(source, module.__dict__)  # type: ignore[arg-type]
    return module


async def _call(fn: Any, req: Any, rsp: Any, awaits: bool) -> None:
    if awaits and inspect.iscoroutinefunction(fn):
        await fn(req, rsp)
    else:
        fn(req, rsp)


async def _run_function(req: Any, rsp: Any, release: str, fnv1: types.ModuleType) -> None:
    """RunFunction of function-python ``release`` (``v0.1.0``, ``v0.3.0`` or ``v0.5.0``), after ``response.to``."""
    fatal = rsp.results
    severity_fatal = fnv1.SEVERITY_FATAL
    script_source = req.input["script"]  # a missing key raises ValueError("Value not set"), as upstream
    if script_source is None:
        fatal.add(severity=severity_fatal, message="missing script")
        return
    script = _load_module(script_source)
    if release == "v0.1.0":
        await _call(script.compose, req, rsp, awaits=False)
        return
    has_compose, has_operate = hasattr(script, "compose"), hasattr(script, "operate")
    if has_compose and has_operate:
        fatal.add(severity=severity_fatal, message="script must define only one function: compose or operate")
    elif has_compose or has_operate:
        fn = script.compose if has_compose else script.operate
        await _call(fn, req, rsp, awaits=release == "v0.5.0")
    else:
        fatal.add(severity=severity_fatal, message="script must define a compose or operate function")


def _start(fnv1: types.ModuleType, req: Any) -> Any:
    """The official SDK's ``response.to(req)``: tag, a 60 s TTL, desired state and context copied."""
    rsp = fnv1.RunFunctionResponse()
    rsp.meta.tag = req.meta.tag
    rsp.meta.ttl.FromTimedelta(datetime.timedelta(seconds=60))
    rsp.desired.CopyFrom(req.desired)
    rsp.context.CopyFrom(req.context)
    return rsp


def _on_alarm(signum: int, frame: object) -> None:
    raise _TimeLimit


def run(job: dict[str, Any], fnv1: types.ModuleType) -> dict[str, Any]:
    """Run one job; returns the protocol reply."""
    req = fnv1.RunFunctionRequest.FromString(base64.b64decode(job["req"]))
    rsp = _start(fnv1, req)
    timeout: float = job["timeout"]
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        asyncio.run(_run_function(req, rsp, job["release"], fnv1))
    except _TimeLimit:
        return {"error": f"script exceeded its time limit of {timeout:g}s"}
    except BaseException as exc:  # what grpc.aio reports for an exception a servicer raised (sys.exit too)
        return {"error": f"Unexpected {type(exc)}: {exc}"}
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    out = rsp.SerializeToString()
    if len(out) > job["max_output"]:
        return {
            "error": f"the script's response is {len(out)} bytes, more than the limit of {job['max_output']} bytes"
        }
    return {"ok": base64.b64encode(out).decode("ascii")}


def serve(memory_limit: int) -> None:
    """Answer jobs until stdin closes."""
    if memory_limit > 0:
        # Some kernels (macOS) refuse RLIMIT_AS; the time and output limits still hold there.
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
    replies = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)  # a script's print() goes to stderr, never into the reply pipe
    sys.stdout = sys.stderr
    fnv1 = _protocol()
    _preload()
    signal.signal(signal.SIGALRM, _on_alarm)
    sys.addaudithook(_audit_hook(_readable_roots()))
    for line in sys.stdin.buffer:
        try:
            reply = run(json.loads(line), fnv1)
        except MemoryError:
            reply = {"error": "script exceeded its memory limit"}
        replies.write(json.dumps(reply, separators=(",", ":")).encode() + b"\n")


if __name__ == "__main__":
    serve(int(sys.argv[1]))
