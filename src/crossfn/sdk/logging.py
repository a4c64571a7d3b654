"""Structured logs for a function server: JSON lines with the request tag bound.

Named as the official SDK's ``crossplane.function.logging`` and used the same
way: :func:`configure` once (``level=Level.INFO``, ``Level.DEBUG`` or
``Level.DISABLED``), then :func:`get_logger`, a structlog logger that takes
keyword fields and binds context::

    log = logging.get_logger().bind(tag=req.meta.tag)
    log.info("composed", count=3)

Every line goes out through the standard library's ``logging`` (so crossfn's
own records, a function's ``logging.getLogger(__name__)`` and pytest's
``caplog`` see the same stream) and is written by :class:`JsonFormatter`:
one JSON object per line on stderr with zap's keys (``ts``, ``level``,
``logger``, ``msg``), the request ``tag`` and the fields. The runtime binds
the request's tag for the duration of a call (:data:`tag_var`); every record
logged meanwhile carries it, also from a worker thread running a sync
function, since ``asyncio.to_thread`` copies context.

structlog is imported by :func:`get_logger`, not here: a function module
loaded in-process for ``crossfn render`` pays for it only if it logs.
"""

from __future__ import annotations

import contextlib
import contextvars
import enum
import json
import logging
import sys
from collections.abc import Iterator, MutableMapping
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    import structlog

__all__ = [
    "JsonFormatter",
    "Level",
    "bind_tag",
    "configure",
    "configured_level",
    "get_logger",
    "tag_var",
]

tag_var: contextvars.ContextVar[str | None] = contextvars.ContextVar("crossfn_request_tag", default=None)
"""The request tag of the call being handled; the runtime sets it on the hot path without a context manager."""

_FIELDS = "_crossfn_fields"
"""The LogRecord attribute carrying a structlog event's keyword fields (any name may be a field)."""

_OWN_KEYS = frozenset({"ts", "level", "logger", "msg"})
"""Keys every line has; a field of one of these names is written as ``field.<name>``."""

# Attributes every LogRecord has; anything else was passed with ``extra=`` and is a field.
_STANDARD = frozenset(logging.makeLogRecord({}).__dict__) | {"message", "asctime"}


class Level(enum.Enum):
    """How much a function logs, as the official SDK's ``Level``."""

    DISABLED = 0
    """Drop every event logged through :func:`get_logger` (for tests)."""
    DEBUG = 1
    INFO = 2


_level: Level | None = None
"""What :func:`configure` last set; ``None`` until it is called."""


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
        """Render ``record``, its fields (``extra=`` or structlog keywords), the bound tag and any traceback."""
        out: dict[str, Any] = {
            "ts": round(record.created, 6),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        tag = tag_var.get()
        if tag:
            out["tag"] = tag
        extra = {k: v for k, v in record.__dict__.items() if k not in _STANDARD and not k.startswith("_")}
        for fields in (extra, record.__dict__.get(_FIELDS) or {}):
            for key, value in fields.items():
                # A field named like a line's own key is kept beside it, not over it.
                out[f"field.{key}" if key in _OWN_KEYS else key] = value
        if record.exc_info:
            out["error"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str)


def configure(level: Level = Level.INFO, *, debug: bool = False, stream: TextIO | None = None) -> None:
    """Send the root logger's records to ``stream`` (stderr) as JSON lines.

    ``level`` is the official SDK's: ``Level.INFO`` (the default), ``Level.DEBUG``,
    or ``Level.DISABLED``, which drops what :func:`get_logger`'s loggers log and
    leaves the standard library's handlers as they are. ``debug=True`` is
    crossfn's older spelling of ``level=Level.DEBUG``. Calling it again replaces
    the handler rather than adding a second one.

    The official SDK's own ``Level`` members are taken by name. Raises
    ``TypeError`` for any other level (a string such as ``"debug"`` was
    silently INFO) and ``ValueError`` for ``level=Level.DISABLED`` with ``debug=True``.
    """
    global _level  # noqa: PLW0603 -- the official SDK configures the process too (structlog.configure)
    level = _as_level(level)
    if debug:
        if level is Level.DISABLED:
            raise ValueError("configure(level=Level.DISABLED, debug=True) disagree: pass one of them")
        level = Level.DEBUG
    _level = level
    if level is Level.DISABLED:
        return
    root = logging.getLogger()
    for h in list(root.handlers):
        if getattr(h, "_crossfn", False):
            root.removeHandler(h)
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter())
    handler._crossfn = True  # type: ignore[attr-defined] # marks our handler so configure() can replace it
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if level is Level.DEBUG else logging.INFO)
    # Their debug output is about event-loop plumbing, not the function.
    for noisy in ("asyncio", "grpc"):
        logging.getLogger(noisy).setLevel(logging.INFO)


def _as_level(level: object) -> Level:
    """``level`` as crossfn's :class:`Level`; an enum member of the same name (the official SDK's) is taken."""
    if isinstance(level, Level):
        return level
    if isinstance(level, enum.Enum) and level.name in Level.__members__:
        return Level[level.name]
    raise TypeError(f"configure(): level must be Level.DEBUG, Level.INFO or Level.DISABLED, not {level!r}")


def configured_level() -> Level | None:
    """The level :func:`configure` last set, or ``None`` when it was never called."""
    return _level


def _drop_when_disabled(logger: Any, method_name: str, event_dict: MutableMapping[str, Any]) -> Any:
    """structlog processor: ``Level.DISABLED`` drops every event (read per event, so it also
    silences loggers made before :func:`configure`)."""
    if _level is Level.DISABLED:
        import structlog  # noqa: PLC0415 -- loaded already: only structlog calls processors

        raise structlog.DropEvent
    return event_dict


_PASSED_TO_STDLIB = ("exc_info", "stack_info", "stacklevel")


def _to_stdlib(logger: Any, method_name: str, event_dict: MutableMapping[str, Any]) -> dict[str, Any]:
    """structlog's last processor: the keyword arguments of the standard library call.

    The event is the message; the other keys are fields, carried on the record
    under one attribute so that no name (``name``, ``msg``, ``args``) clashes
    with a LogRecord's own. A stdlib-style ``extra={...}`` adds its keys too.
    """
    kwargs: dict[str, Any] = {"msg": event_dict.pop("event", "")}
    for key in _PASSED_TO_STDLIB:
        if key in event_dict:
            kwargs[key] = event_dict.pop(key)
    extra = event_dict.pop("extra", None)
    if isinstance(extra, dict):
        event_dict = {**extra, **event_dict}
    elif extra is not None:
        event_dict["extra"] = extra
    kwargs["extra"] = {_FIELDS: dict(event_dict)}
    return kwargs


_processors: list[Any] = []


def _structlog_processors() -> list[Any]:
    if not _processors:
        import structlog  # noqa: PLC0415 -- see module doc

        _processors.extend(
            [
                _drop_when_disabled,
                structlog.stdlib.filter_by_level,
                structlog.contextvars.merge_contextvars,
                structlog.stdlib.PositionalArgumentsFormatter(),
                _to_stdlib,
            ]
        )
    return _processors


def get_logger(name: str | None = None, **initial_values: Any) -> structlog.stdlib.BoundLogger:
    """Get a structlog logger whose lines :func:`configure` formats; keyword fields welcome.

    ``name`` is the standard library logger's name; the default is the calling
    module's ``__name__``. ``initial_values`` are bound, as with ``bind()``.
    The logger does not depend on ``structlog.configure``: it always writes
    through the standard library, so nothing goes to stdout (which
    ``crossfn render`` writes its output to).
    """
    import structlog  # noqa: PLC0415 -- see module doc

    if name is None:
        name = sys._getframe(1).f_globals.get("__name__", "crossfn.function")
    return structlog.stdlib.BoundLogger(
        logging.getLogger(name), _structlog_processors(), dict(initial_values)
    )
