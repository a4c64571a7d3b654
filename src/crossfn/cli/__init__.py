"""The ``crossfn`` command: parse flags, hand off, print one line on error.

Each sub-command lives in its own module under ``crossfn.cli`` and exposes
``register(subparsers)``, which adds its parser and sets ``handler`` (a function
of the parsed namespace returning the exit status). This module only wires them
up; the modules import their heavy dependencies inside the handler, so
``crossfn --help`` and a render of a built-in function start fast.

Errors: a :class:`crossfn.errors.CrossfnError` is printed as
``crossfn: error: <message>`` on stderr with exit status 1; a command that
needs an extra that is not installed prints
``crossfn <command>: needs the <extra> extra: pip install 'crossfn[<extra>]'``. Commands write their
output only once it is complete, so a failure leaves nothing on stdout.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from collections.abc import Sequence

from crossfn import __version__, extras
from crossfn.errors import CrossfnError, MissingExtraError

__all__ = ["main", "printable"]

# Objects may nest 10,000 deep (crossfn.gocompat.yaml_loader.MAX_DEPTH, as in Kubernetes), and the code
# that walks them recurses two to four Python frames per level; Python's default of 1,000 would end a render
# of an object 300 deep in a RecursionError. C recursion is bounded by the data, which the loader bounds.
RECURSION_LIMIT = 4 * 10_000 + 2_000

# One module per command, in the order `crossfn --help` lists them.
COMMANDS: tuple[str, ...] = (
    "render",
    "render_op",
    "function",
    "init",
    "validate",
    "convert",
    "test",
    "controller",
)


def build_parser() -> argparse.ArgumentParser:
    """Build the parser for every command."""
    parser = argparse.ArgumentParser(
        prog="crossfn",
        description="Crossplane composition functions: render, validate, write and serve them.",
    )
    parser.add_argument("--version", action="version", version=f"crossfn {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"crossfn.cli.{name}").register(sub)
    return parser


def _check_positionals(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse a one-value positional that argparse filled with ``[]``.

    Python 3.11's argparse gives ``[]`` to a positional whose only value is a second ``--``
    (``crossfn render xr.yaml comp.yaml -- --``); 3.12 passes ``"--"``. Either way the user gave
    no usable value: say so as argparse says it, not with a traceback later.
    """
    command = getattr(args, "command", None)
    subparsers = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not command or not subparsers:
        return
    sub = subparsers[0].choices.get(command)
    if sub is None:
        return
    for action in sub._actions:
        if not action.option_strings and action.nargs is None and getattr(args, action.dest, None) == []:
            sub.error(f"argument {action.metavar or action.dest}: expected one argument")


SUBCOMMANDS: dict[tuple[str, ...], str] = {("render", "op"): "render-op"}
"""Two words read as one command: ``render`` takes files, so ``render op`` cannot be an argparse sub-command."""


def _command_words(argv: Sequence[str]) -> list[str]:
    """``argv`` with a two-word command (``render op``) turned into the parser that handles it."""
    words = list(argv)
    command = SUBCOMMANDS.get(tuple(words[:2]))
    return [command, *words[2:]] if command else words


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit status."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))
    parser = build_parser()
    args = parser.parse_args(_command_words(sys.argv[1:] if argv is None else argv))
    _check_positionals(parser, args)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        status: int = handler(args)
    except CrossfnError as exc:
        extra = _missing_extra(exc)
        if extra:
            print(extras.message(f"crossfn {args.command}", extra), file=sys.stderr)
            return 1
        print(f"crossfn: error: {printable(str(exc))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return status


def _missing_extra(exc: BaseException) -> str:
    """The extra named by a :class:`MissingExtraError` that ``exc`` is or wraps, else ``""``."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, MissingExtraError) and cause.extra:
            return cause.extra
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return ""


# Controls, other line breaks and lone surrogates a message may carry from a user's text (a file name
# with a carriage return or an escape sequence); a newline stays, as messages that list problems use it.
_UNPRINTABLE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


def printable(message: str) -> str:
    """``message`` with every control character but the newline written as an escape (``\\x0d``)."""
    return _UNPRINTABLE.sub(
        lambda m: f"\\x{ord(m[0]):02x}" if ord(m[0]) < 0x100 else f"\\u{ord(m[0]):04x}", message
    )


def entrypoint() -> None:
    """Console-script entry point."""
    sys.exit(main())
