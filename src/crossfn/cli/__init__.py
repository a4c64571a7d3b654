"""The ``crossfn`` command: parse flags, hand off, print one line on error.

Each sub-command lives in its own module under ``crossfn.cli`` and exposes
``register(subparsers)``, which adds its parser and sets ``handler`` (a function
of the parsed namespace returning the exit status). This module only wires them
up; the modules import their heavy dependencies inside the handler, so
``crossfn --help`` and a render of a built-in function start fast. Crossplane's
spellings of the same commands (``beta validate``, ``composition render``,
``render xr``, ...) are aliases (:mod:`crossfn.cli.aliases`).

A flag no command knows is refused by the command it was given to, with that
command's usage (``crossfn render: error: unrecognized arguments: --x``).

Errors: a :class:`crossfn.errors.CrossfnError` is printed as
``crossfn: error: <message>`` on stderr with exit status 1; a command that
needs an extra that is not installed prints
``crossfn <command>: needs the <extra> extra: pip install 'crossfn[<extra>]'``. Commands write their
output only once it is complete, so a failure leaves nothing on stdout.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
from collections.abc import Iterator, Sequence

from crossfn import __version__, extras
from crossfn.errors import CrossfnError, MissingExtraError

__all__ = ["build_parser", "main", "parsers", "printable"]

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
    "trace",
    "controller",
    "version",
    "completion",
    "aliases",
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
    for _, p in parsers(parser):
        # The innermost command's parser wins: it reports flags it does not know, with its usage.
        p.set_defaults(_parser=p)
    return parser


def parsers(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """Every parser of the command tree with its command path (``()``, ``("function", "serve")``, ...)."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from parsers(child, (*path, name))


def _crossplane_spelling(argv: list[str]) -> list[str]:
    """``render xr XR ...`` (Crossplane's ``crossplane render xr``) as ``render XR ...``, and ``render op ...``
    as the ``render-op`` command (``render`` takes positionals, so neither can be an argparse sub-command).

    ``xr`` and ``op`` are read as the word of the command unless a file of that name is in the working directory.
    """
    if argv[:2] == ["render", "xr"] and not os.path.isfile("xr"):
        return ["render", *argv[2:]]
    if argv[:2] == ["render", "op"] and not os.path.isfile("op"):
        return ["render-op", *argv[2:]]
    return argv


def _check_positionals(command: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse a one-value positional that argparse filled with ``[]``.

    Python 3.11's argparse gives ``[]`` to a positional whose only value is a second ``--``
    (``crossfn render xr.yaml comp.yaml -- --``); 3.12 passes ``"--"``. Either way the user gave
    no usable value: say so as argparse says it, not with a traceback later.
    """
    for action in command._actions:
        if not action.option_strings and action.nargs is None and getattr(args, action.dest, None) == []:
            command.error(f"argument {action.metavar or action.dest}: expected one argument")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit status."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))
    parser = build_parser()
    args, unknown = parser.parse_known_args(
        _crossplane_spelling(list(sys.argv[1:] if argv is None else argv))
    )
    command: argparse.ArgumentParser = getattr(args, "_parser", parser)
    if unknown:
        command.error(f"unrecognized arguments: {' '.join(unknown)}")
    _check_positionals(command, args)
    handler = getattr(args, "handler", None)
    if handler is None:
        command.print_help(sys.stderr)
        return 2
    try:
        status: int = handler(args)
    except CrossfnError as exc:
        extra = _missing_extra(exc)
        if extra:
            print(extras.message(command.prog, extra), file=sys.stderr)
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
