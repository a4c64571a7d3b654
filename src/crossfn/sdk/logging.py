"""Structured logs for a function server: JSON lines with the request tag bound.

Crossplane's own functions log JSON through zap; this module writes the same
shape (``ts``, ``level``, ``logger``, ``msg``, plus fields) with the standard
library, so function code keeps using ``logging.getLogger(__name__)``. The
runtime binds the request's tag with :func:`bind_tag` for the duration of a
call; every record logged meanwhile (also from a worker thread running a sync
function, since ``asyncio.to_thread`` copies context) carries ``tag``.

Named as the official SDK's ``crossplane.function.logging``.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import logging
import sys
from collections.abc import Iterator
from typing import Any, TextIO

__all__ = ["JsonFormatter", "bind_tag", "configure", "get_logger", "tag_var"]

tag_var: contextvars.ContextVar[str | None] = contextvars.ContextVar("crossfn_request_tag", default=None)
"""The request tag of the call being handled; the runtime sets it on the hot path without a context manager."""

# Attributes every LogRecord has; anything else was passed with ``extra=`` and is a field.
_STANDARD = frozenset(logging.makeLogRecord({}).__dict__) | {"message", "asctime"}


@contextlib.contextmanager
def bind_tag(tag: str) -> Iterator[None]:
    """Attach ``tag`` to every record logged in this context until the block ends."""
    token = tag_var.set(tag)
    try:
        yield
    finally:
        tag_var.reset(token)


class JsonFormatter(logging.Formatter):
    """Format a record as one JSON object per line, zap-style keys."""

    def format(self, record: logging.LogRecord) -> str:
        """Render ``record``, its ``extra`` fields, the bound tag and any traceback."""
        out: dict[str, Any] = {
            "ts": round(record.created, 6),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        tag = tag_var.get()
        if tag:
            out["tag"] = tag
        for key, value in record.__dict__.items():
            if key not in _STANDARD and not key.startswith("_"):
                out[key] = value
        if record.exc_info:
            out["error"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str)


def configure(*, debug: bool = False, stream: TextIO | None = None) -> None:
    """Send the root logger's records to ``stream`` (stderr) as JSON lines.

    ``debug`` lowers the level from INFO to DEBUG. Calling it again replaces the
    handler rather than adding a second one.
    """
    root = logging.getLogger()
    for h in list(root.handlers):
        if getattr(h, "_crossfn", False):
            root.removeHandler(h)
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter())
    handler._crossfn = True  # type: ignore[attr-defined] # marks our handler so configure() can replace it
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if debug else logging.INFO)
    # Their debug output is about event-loop plumbing, not the function.
    for noisy in ("asyncio", "grpc"):
        logging.getLogger(noisy).setLevel(logging.INFO)


def get_logger(name: str = "crossfn.function") -> logging.Logger:
    """Get a standard logger; records go out as JSON once :func:`configure` ran."""
    return logging.getLogger(name)
