"""python: function-python, a Python script in the step's input, run in a sandbox process.

Input: ``python.fn.crossplane.io/v1beta1`` ``Script`` with ``script``: Python
source defining ``compose(req, rsp)`` (or, from v0.2.0, ``operate(req,
rsp)``; from v0.4.0 either may be ``async``). It gets the request and a
response started as the official SDK's ``response.to`` starts it, both
protobuf messages, and edits the response. What each release does:

=========  ==================================================================
v0.1.0     ``compose`` only; a missing one is an ``AttributeError``
v0.2.0     ``compose`` or ``operate``; both, or neither, is a Fatal result
           (``script must define only one function: compose or operate``,
           ``script must define a compose or operate function``); v0.3.0
           is the same
v0.4.0     an ``async`` ``compose``/``operate`` is awaited (before, it was
           called and never awaited); v0.5.0 is the same
=========  ==================================================================

``script: null`` is the Fatal result ``missing script``, as upstream. An
exception the script raises (or no ``script`` key at all) fails upstream's
gRPC call with ``Unexpected <class 'X'>: message``; here that text is a
Fatal result (docs/compatibility.md).

Scripts import the official Python SDK (``from crossplane.function import
response``): crossfn runs them with the SDK that is installed
(``crossfn[python]`` installs it; the releases' images pinned 0.6.0 to
0.14.0, whose functions the installed one keeps). Without it, scripts that
import nothing from it still run, on crossfn's messages, and one that does
gets ``No module named 'crossplane'`` and the extra to install.

The sandbox (``_worker``, ``crossfn.functions._sandbox``): a separate
process with a time limit, an address-space limit, a bounded response, and
no network, file or process access (upstream's container allows network;
crossfn does not, docs/security.md). ``crossfn render --no-exec`` refuses
this built-in: a Python script is code crossfn does not ship.
"""

from __future__ import annotations

import base64
import datetime
import os
from pathlib import Path

from crossfn import errors
from crossfn.functions import _files, _sandbox
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import response

__all__ = ["API_VERSION", "KIND", "Python", "compose"]

API_VERSION = "python.fn.crossplane.io/v1beta1"
KIND = "Script"
_WORKER = Path(__file__).with_name("_worker.py")
_NO_SDK = "No module named 'crossplane'"
MAX_ERROR = 16 << 10
"""Characters of an error kept in the Fatal result."""


class Python:
    """function-python as ``release`` (``v0.1.0``, ``v0.3.0`` or ``v0.5.0``) behaved; ``compose`` is v0.5.0.

    ``timeout`` bounds one script's run; ``grace`` is how much longer the
    parent waits before killing a sandbox stuck in a C call.
    ``memory_limit`` is the sandbox's address space, ``max_output`` the
    serialized response's size, ``workers`` how many scripts run at once.
    The sandbox is confined by the kernel too (Landlock) where it can be: it
    may read only the interpreter's files, whatever a script does to escape the
    audit hook (the stdlib's native modules run processes and write files
    without an audit event). With ``files`` (the controller's) that is required:
    without Landlock the script is refused, never run unconfined.
    """

    def __init__(
        self,
        release: str = "v0.5.0",
        *,
        timeout: datetime.timedelta = datetime.timedelta(seconds=5),
        grace: datetime.timedelta = datetime.timedelta(seconds=2),
        memory_limit: int = 1 << 30,
        max_output: int = 4 << 20,
        workers: int = min(4, os.cpu_count() or 1),
        files: _files.FileAccess | None = None,
    ) -> None:
        self._release = release
        self._settings = (timeout, grace, memory_limit, max_output, workers)
        self._required = files is not None
        self._timeout = timeout.total_seconds()
        self._hard_timeout = self._timeout + grace.total_seconds()
        self._max_output = max_output
        self._pool = _sandbox.Pool(
            _WORKER, size=workers, memory_limit=memory_limit, readable=(), required=self._required
        )

    def with_file_access(self, files: _files.FileAccess) -> Python:
        """The same function with its sandbox confined by the kernel (how the controller runs it)."""
        timeout, grace, memory_limit, max_output, workers = self._settings
        return Python(
            self._release, timeout=timeout, grace=grace, memory_limit=memory_limit, max_output=max_output,
            workers=workers, files=files,
        )  # fmt: skip

    def close(self) -> None:
        """Stop the sandbox processes; a later call starts new ones."""
        self._pool.close()

    def __call__(self, req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        """Run the step's script; its response replaces ``rsp``, or one Fatal result says why it failed."""
        job = {
            "req": base64.b64encode(req.SerializeToString()).decode("ascii"),
            "release": self._release,
            "timeout": self._timeout,
            "max_output": self._max_output,
        }
        try:
            reply = self._pool.run(job, hard_timeout=self._hard_timeout)
        except _sandbox.SandboxTimeoutError:
            response.fatal(
                rsp,
                f"script exceeded its time limit of {self._timeout:g}s and its sandbox was stopped "
                f"after {self._hard_timeout:g}s",
            )
            return
        except _sandbox.SandboxError as exc:
            response.fatal(rsp, str(exc))
            return
        if "error" in reply:
            message = str(reply["error"])
            if _NO_SDK in message:
                message += (
                    f" ({errors.quote('crossplane.function')}, the official Python SDK scripts import, "
                )
                message += "comes with pip install 'crossfn[python]')"
            if len(message) > MAX_ERROR:
                message = f"{message[:MAX_ERROR]}... ({len(message) - MAX_ERROR} more characters)"
            response.fatal(rsp, message)
            return
        rsp.Clear()
        rsp.MergeFromString(base64.b64decode(reply["ok"]))


compose = Python()
"""function-python v0.4.0 and v0.5.0."""

v0_3_0 = Python("v0.3.0")
"""v0.2.0 and v0.3.0: ``compose`` or ``operate``, never awaited."""

v0_1_0 = Python("v0.1.0")
"""v0.1.0: ``compose`` only."""
