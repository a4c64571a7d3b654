"""The structlog-compatible logger of crossfn.sdk.logging: bind, keyword fields, levels, JSON lines.

A function ported from the official SDK logs as structlog does
(``log.bind(tag=...)``, ``log.info("composed", count=3)``); each case logs
through :func:`get_logger` at a level set by :func:`configure` and compares the
JSON lines written, without their timestamps.
"""

from __future__ import annotations

import datetime
import io
import json
import logging
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import structlog

from crossfn.sdk import logging as fnlogging

Level = fnlogging.Level


@pytest.fixture
def stream(monkeypatch: pytest.MonkeyPatch) -> Iterator[io.StringIO]:
    monkeypatch.setattr(fnlogging, "_level", None)
    out = io.StringIO()
    yield out
    root = logging.getLogger()
    for h in list(root.handlers):
        if getattr(h, "_crossfn", False):
            root.removeHandler(h)
    root.setLevel(logging.WARNING)
    structlog.contextvars.clear_contextvars()


def _lines(stream: io.StringIO) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    for line in lines:
        assert isinstance(line.pop("ts"), float), "every line has a Unix timestamp"
    return lines


def _exception(log: Any) -> None:
    try:
        raise KeyError("k")
    except KeyError:
        log.exception("cannot compose", step="s")


def _bound_is_a_copy(log: Any) -> None:
    bound = log.bind(a=1)
    log.info("plain")
    bound.bind(b=2).info("both")
    bound.unbind("a").info("none")
    bound.new(c=3).info("fresh")


def _tagged(log: Any) -> None:
    with fnlogging.bind_tag("from-runtime"):
        log.info("by the runtime")
        log.bind(tag="bound").info("bound wins")


def _contextvars(log: Any) -> None:
    structlog.contextvars.bind_contextvars(request="r1")
    log.info("merged")


def _levels(log: Any) -> None:
    log.debug("d")
    log.info("i")
    log.warning("w")
    log.error("e")
    log.critical("c")


L = "test.fn"


@pytest.mark.parametrize(
    ("reason", "level", "log", "want"),
    [
        pytest.param("Keyword arguments are fields.", Level.INFO,
                     lambda log: log.info("composed", count=3, names=["a", "b"], ok=True),
                     [{"level": "info", "logger": L, "msg": "composed", "count": 3, "names": ["a", "b"], "ok": True}],
                     id="KeywordFields"),
        pytest.param("bind() adds fields to every later line; the result is a new logger.", Level.INFO,
                     _bound_is_a_copy,
                     [{"level": "info", "logger": L, "msg": "plain"},
                      {"level": "info", "logger": L, "msg": "both", "a": 1, "b": 2},
                      {"level": "info", "logger": L, "msg": "none"},
                      {"level": "info", "logger": L, "msg": "fresh", "c": 3}],
                     id="Bind"),
        pytest.param("The runtime's request tag is on every line; a bound tag wins.", Level.INFO, _tagged,
                     [{"level": "info", "logger": L, "msg": "by the runtime", "tag": "from-runtime"},
                      {"level": "info", "logger": L, "msg": "bound wins", "tag": "bound"}],
                     id="Tag"),
        pytest.param("INFO drops debug lines.", Level.INFO, _levels,
                     [{"level": lv, "logger": L, "msg": lv[0]} for lv in ("info", "warning", "error", "critical")],
                     id="LevelInfo"),
        pytest.param("DEBUG keeps them.", Level.DEBUG, _levels,
                     [{"level": lv, "logger": L, "msg": lv[0]}
                      for lv in ("debug", "info", "warning", "error", "critical")],
                     id="LevelDebug"),
        pytest.param("DISABLED drops everything, as the official SDK's tests expect.", Level.DISABLED, _levels, [],
                     id="LevelDisabled"),
        pytest.param("Positional arguments format the message, as the standard library's.", Level.INFO,
                     lambda log: log.info("composed %d of %s", 3, "buckets"),
                     [{"level": "info", "logger": L, "msg": "composed 3 of buckets"}], id="PositionalArguments"),
        pytest.param("A standard-library extra= gives fields too.", Level.INFO,
                     lambda log: log.warning("slow", extra={"seconds": 2.5}),
                     [{"level": "warning", "logger": L, "msg": "slow", "seconds": 2.5}], id="StdlibExtra"),
        pytest.param("A standard-library logger's extra= fields follow the same rule.", Level.INFO,
                     lambda log: logging.getLogger(L).info("plain", extra={"level": "l", "n": 1}),
                     [{"level": "info", "logger": L, "msg": "plain", "field.level": "l", "n": 1}],
                     id="StdlibLoggerExtra"),
        pytest.param("Fields named as LogRecord attributes are fine; those named as a line's keys sit beside them.",
                     Level.INFO, lambda log: log.info("x", name="n", args=[1], msg="m", level="l"),
                     [{"level": "info", "logger": L, "msg": "x", "name": "n", "args": [1], "field.msg": "m",
                       "field.level": "l"}],
                     id="ReservedNames"),
        pytest.param("Values JSON cannot hold are written as text.", Level.INFO,
                     lambda log: log.info("at", when=datetime.date(2026, 1, 2)),
                     [{"level": "info", "logger": L, "msg": "at", "when": "2026-01-02"}], id="NotJSON"),
        pytest.param("structlog's context variables are merged in.", Level.INFO, _contextvars,
                     [{"level": "info", "logger": L, "msg": "merged", "request": "r1"}], id="ContextVars"),
    ],
)  # fmt: skip
def test_logger(
    stream: io.StringIO,
    reason: str,
    level: fnlogging.Level,
    log: Callable[[Any], None],
    want: list[dict[str, Any]],
) -> None:
    logger = fnlogging.get_logger(L)  # before configure, as a servicer's __init__ may
    fnlogging.configure(level=Level.INFO, stream=stream)
    fnlogging.configure(level=level, stream=stream)
    log(logger)
    assert _lines(stream) == want, reason
    assert fnlogging.configured_level() is level


def test_exception_carries_the_traceback(stream: io.StringIO) -> None:
    fnlogging.configure(stream=stream)
    _exception(fnlogging.get_logger(L))
    (line,) = _lines(stream)
    assert {k: line[k] for k in ("level", "msg", "step")} == {
        "level": "error",
        "msg": "cannot compose",
        "step": "s",
    }
    assert "KeyError: 'k'" in line["error"]


def test_default_name_is_the_calling_module(stream: io.StringIO) -> None:
    fnlogging.configure(stream=stream)
    fnlogging.get_logger().info("hi")
    assert _lines(stream)[0]["logger"] == __name__


def test_initial_values_are_bound(stream: io.StringIO) -> None:
    fnlogging.configure(stream=stream)
    fnlogging.get_logger(L, step="one").info("hi")
    assert _lines(stream) == [{"level": "info", "logger": L, "msg": "hi", "step": "one"}]


@pytest.mark.parametrize(
    ("reason", "kwargs", "want"),
    [
        pytest.param("The official SDK's default.", {}, Level.INFO, id="Default"),
        pytest.param("crossfn's older spelling of DEBUG.", {"debug": True}, Level.DEBUG, id="DebugFlag"),
        pytest.param("Both may be given when they agree.", {"level": Level.DEBUG, "debug": True}, Level.DEBUG,
                     id="Agree"),
        pytest.param("debug=True wins over the default level.", {"level": Level.INFO, "debug": True}, Level.DEBUG,
                     id="DebugOverInfo"),
    ],
)  # fmt: skip
def test_configure_levels(
    stream: io.StringIO, reason: str, kwargs: dict[str, Any], want: fnlogging.Level
) -> None:
    fnlogging.configure(stream=stream, **kwargs)
    assert fnlogging.configured_level() is want, reason
    assert logging.getLogger().level == (logging.DEBUG if want is Level.DEBUG else logging.INFO), reason


def test_configure_takes_the_official_sdks_level(stream: io.StringIO) -> None:
    """A ported main.py may pass the official SDK's Level: it was silently INFO."""
    from crossplane.function import logging as official

    fnlogging.configure(level=official.Level.DEBUG, stream=stream)  # type: ignore[arg-type]
    assert fnlogging.configured_level() is Level.DEBUG
    assert logging.getLogger().level == logging.DEBUG


@pytest.mark.parametrize(
    "level", ["debug", 1, None, logging.DEBUG], ids=["String", "Int", "None", "StdlibLevel"]
)
def test_configure_refuses_a_level_it_does_not_know(stream: io.StringIO, level: Any) -> None:
    """Each was silently INFO (configured_level() then returned the bad value)."""
    with pytest.raises(
        TypeError, match=r"^configure\(\): level must be Level.DEBUG, Level.INFO or Level.DISABLED"
    ):
        fnlogging.configure(level=level, stream=stream)


def test_configure_refuses_disagreeing_level_and_debug(stream: io.StringIO) -> None:
    with pytest.raises(ValueError, match="disagree"):
        fnlogging.configure(level=Level.DISABLED, debug=True)


def test_nothing_goes_to_stdout() -> None:
    """Unconfigured, or with structlog configured to print, lines go through the standard library:
    stdout stays clean for ``crossfn render``'s output."""
    code = (
        "import structlog\n"
        "structlog.configure(logger_factory=structlog.PrintLoggerFactory())\n"
        "from crossfn.sdk import logging\n"
        "log = logging.get_logger('fn')\n"
        "log.info('quiet', n=1)\n"
        "log.warning('loud', n=2)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout == ""
    assert run.stderr == "loud\n", "the standard library's last-resort handler writes warnings to stderr"
