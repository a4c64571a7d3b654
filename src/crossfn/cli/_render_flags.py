"""The flags ``crossfn render`` and ``crossfn render op`` share, and how both run and print a render.

``crossplane render xr`` and ``crossplane render op`` take the same pipeline
inputs (context, function credentials and annotations), the same run flags
(``--timeout``, ``--output``, ``--verbose``; crossfn's ``--no-exec``) and the
same render-engine flags, which crossfn accepts and explains. Each command's
module (:mod:`crossfn.cli.render`, :mod:`crossfn.cli.render_op`) adds its own
arguments around these, in its own order, and its render as its
:func:`handler`. ``crossfn test`` shares ``--no-exec``.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import sys
from collections.abc import Callable
from typing import Any

from crossfn import errors
from crossfn.cli import _args, _output
from crossfn.gocompat import time as gotime

__all__ = [
    "NO_EXEC_HELP",
    "Render",
    "Say",
    "add_context",
    "add_engine",
    "add_function_flags",
    "add_run",
    "handler",
    "print_render",
    "timeout",
]

NO_EXEC_HELP = (
    "Refuse Functions that would run code crossfn does not ship: the Process and Docker runtimes and "
    "InProcess objects other than the built-ins (for untrusted inputs; see docs/security.md)."
)

# Flags of crossplane render that choose the Crossplane render engine (an image or a binary) and
# the CLI's configuration file: crossfn runs its own engine in-process, so each is accepted and
# explained on stderr (flag, metavar, what it would have chosen).
_ENGINE_FLAGS = (
    ("--crossplane-version", "VERSION", "the version of the Crossplane image to render with"),
    ("--crossplane-image", "IMAGE", "the Crossplane image to render with"),
    ("--crossplane-binary", "PATH", "a local crossplane binary to render with"),
    ("--crossplane-docker-network", "NETWORK", "the Docker network of the Crossplane container"),
    ("--config", "PATH", "the crossplane CLI's configuration file"),
)

Say = Callable[[str], None]
"""Where a render says something on the way: a ``--verbose`` report or a note."""


def timeout(text: str) -> float:
    """``--timeout`` in seconds, parsed as Go's ``time.ParseDuration`` does.

    Every bad value, a negative one included, keeps the one text this flag
    has always given, ``--timeout: time: invalid duration "<value>"``, rather
    than Go's finer ones (unknown unit, missing unit).
    """
    try:
        seconds = gotime.parse_duration(text)
    except errors.GoError:
        seconds = None
    if seconds is None or seconds < 0:
        raise errors.InputError(f"--timeout: time: invalid duration {errors.quote(text)}")
    return seconds


def _key_value(text: str) -> tuple[str, str]:
    """An argparse type for ``KEY=VALUE`` map flags (split at the first ``=``); argparse names the flag."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key, value


def add_context(p: argparse.ArgumentParser) -> None:
    """``--context-files`` and ``--context-values``."""
    p.add_argument(
        "--context-files",
        action="append",
        default=[],
        type=_key_value,
        metavar="KEY=FILE",
        help="Context key and a file holding its JSON/YAML value (repeatable).",
    )
    p.add_argument(
        "--context-values",
        action="append",
        default=[],
        type=_key_value,
        metavar="KEY=VALUE",
        help="Context key and its inline JSON/YAML value (repeatable; wins over files).",
    )


def add_function_flags(p: argparse.ArgumentParser) -> None:
    """``--function-credentials`` and ``-a/--function-annotations``."""
    p.add_argument(
        "--function-credentials", type=_args.path, metavar="PATH", help="v1 Secrets for step credentials."
    )
    p.add_argument(
        "-a",
        "--function-annotations",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="Set an annotation on every Function (repeatable).",
    )


def add_run(p: argparse.ArgumentParser) -> None:
    """``--timeout``, ``--output``, ``-v/--verbose`` and ``--no-exec``."""
    p.add_argument(
        "--timeout", default="1m", metavar="DURATION", help="Whole-render timeout (Go duration, default 1m)."
    )
    p.add_argument("--output", choices=("yaml", "json"), default="yaml", help="Output format (default yaml).")
    p.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="Say on stderr which runtime each Function uses, and an in-process Function's traceback.",
    )
    p.add_argument("--no-exec", action="store_true", help=NO_EXEC_HELP)


def add_engine(p: argparse.ArgumentParser, command: str) -> None:
    """The render-engine flags, accepted and explained; ``command`` is Crossplane's (``crossplane render xr``)."""
    engine = p.add_argument_group(
        "Crossplane render engine flags",
        f"Accepted for {command}'s command lines and ignored, with a note on stderr: crossfn "
        "renders with its own engine in-process, without Docker or a crossplane binary.",
    )
    for flag, metavar, what in _ENGINE_FLAGS:
        engine.add_argument(flag, metavar=metavar, dest=_dest(flag), help=f"Would choose {what}.")


def _dest(flag: str) -> str:
    return "ignored_" + flag.lstrip("-").replace("-", "_")


def _ignored_flag_notes(args: argparse.Namespace) -> list[str]:
    """One note per Crossplane render-engine flag given: what it would choose, and why it is ignored."""
    return [
        f"{flag} is ignored: it chooses {what}; crossfn renders in-process"
        for flag, _, what in _ENGINE_FLAGS
        if getattr(args, _dest(flag), None) is not None
    ]


Render = Callable[[argparse.Namespace, Say, Say], list[Any]]
"""A command's render: its flags onto its request, rendered (``report`` and ``note`` passed on)."""


def handler(render: Render, *, operation: bool = False) -> Callable[[argparse.Namespace], int]:
    """The command's handler: :func:`print_render` of ``render`` (an Operation's documents when ``operation``)."""
    return functools.partial(print_render, render=render, operation=operation)


def print_render(args: argparse.Namespace, *, render: Render, operation: bool = False) -> int:
    """Run ``render(args, report, note)`` and print its documents in ``--output``'s format, in one piece.

    The engine flags' notes come first, before ``render`` reads any flag;
    ``report`` prints only with ``--verbose``, notes always. stdout holds
    only the render: what an in-process function prints (debugging) goes to
    stderr, and a failure leaves stdout empty.
    """
    from crossfn.render import output  # noqa: PLC0415 -- heavy imports only when the command runs

    def report(line: str) -> None:
        if args.verbose:
            print(f"crossfn: {line}", file=sys.stderr)

    def note(line: str) -> None:
        print(f"crossfn: note: {line}", file=sys.stderr)

    for line in _ignored_flag_notes(args):
        note(line)
    with contextlib.redirect_stdout(sys.stderr), _output.function_tracebacks(shown=args.verbose):
        docs = render(args, report, note)
    describe = output.operation_document if operation else output.render_document
    _output.write(
        output.to_json(docs) if args.output == "json" else output.yaml_stream(docs, describe=describe)
    )
    return 0
