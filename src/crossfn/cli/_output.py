"""Writing a command's output: all at once, and a failed write is one error line, never a traceback.

Every command prints its result through :func:`write`. A full disk (``>
/dev/full``), a closed pipe or an I/O error becomes :class:`~crossfn.errors.
CrossfnError` ``cannot write output: <cause>``, which the CLI prints as one line
with exit status 1. Standard output is then pointed at ``/dev/null``, so the
interpreter's own flush at exit does not fail a second time with a traceback of
its own.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import re
import sys
from collections.abc import Iterator

from crossfn import errors

__all__ = ["function_tracebacks", "write"]


def write(text: str) -> None:
    """Write ``text`` to standard output and flush it; raise ``cannot write output: ...`` if that fails."""
    try:
        try:
            sys.stdout.write(text)
        except UnicodeEncodeError:
            # A lone surrogate (from a JSON input's "\\ud800") has no UTF-8 form; Go writes U+FFFD for it.
            sys.stdout.write(re.sub("[\ud800-\udfff]", "\ufffd", text))
        sys.stdout.flush()
    except OSError as exc:
        _discard_stdout()
        raise errors.CrossfnError(f"cannot write output: {(exc.strerror or str(exc)).lower()}") from exc


def _discard_stdout() -> None:
    """Point file descriptor 1 at /dev/null, so what is still buffered goes nowhere quietly."""
    try:
        fd = sys.stdout.fileno()
    except (OSError, ValueError, io.UnsupportedOperation):
        return  # not a real file (tests capture it): nothing will flush it at exit
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


@contextlib.contextmanager
def function_tracebacks(shown: bool) -> Iterator[None]:
    """Show the tracebacks the SDK logs for an in-process function that raises only if ``shown``.

    A served function's log wants them; a command's error line or report already names the
    exception, and Python's last-resort handler would print them on stderr around it.
    """
    log = logging.getLogger("crossfn.sdk.function")
    muted = None if shown or log.handlers else logging.NullHandler()
    if muted is not None:
        log.addHandler(muted)
    try:
        yield
    finally:
        if muted is not None:
            log.removeHandler(muted)
