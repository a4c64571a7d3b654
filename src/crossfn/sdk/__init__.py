"""The crossfn SDK: write, test and serve a composition function in Python.

Modules, named as in the official Python SDK so porting is an import change:
``request`` (read a RunFunctionRequest), ``response`` (build a
RunFunctionResponse), ``resource`` (dicts, Structs, conditions, names),
``function`` (what counts as a function), ``runtime`` (serve it), ``cli`` (a
``main.py``'s standard flags), ``settings`` (how it is served), ``logging`` and
``metrics`` (what it reports), ``testing`` (test it). Import the modules: ``from crossfn.sdk import request, response``.

:func:`serve` is the one-line entry point of a function's ``main``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["serve"]


def serve(fn: object, *args: Any, **kwargs: Any) -> None:
    """Serve ``fn`` until SIGTERM; see :func:`crossfn.sdk.runtime.serve` for both call shapes.

    The runtime (gRPC, health, reflection) is imported only here, so a function
    module importing ``crossfn.sdk.response`` stays cheap to load in-process.
    """
    from crossfn.sdk import runtime  # noqa: PLC0415 -- keep `import crossfn.sdk` free of grpc

    runtime.serve(fn, *args, **kwargs)
