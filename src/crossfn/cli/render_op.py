"""``crossfn render op``: the arguments and flags of ``crossplane render op`` (upstream ops-5), onto ``render.OperationRequest``.

argparse cannot give ``render`` both positional files and an ``op`` sub-command, so
:mod:`crossfn.cli` reads ``crossfn render op ...`` as this command (``render-op``, not listed on
its own); Crossplane's other spelling, ``operation render``, is an alias (:mod:`crossfn.cli.aliases`).
The render-engine flags ``crossplane render op`` shares with ``render xr`` are accepted and
explained, as ``crossfn render`` does. This module only parses flags;
:func:`crossfn.render.render_operation` does the work, and the output is written in one piece
once the render succeeded.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import Any

from crossfn.cli import _args, _output
from crossfn.cli import render as render_cli

__all__ = ["COMMAND", "DESCRIPTION", "add_arguments", "register"]

COMMAND = "render-op"
"""The parser's name: what ``crossfn render op`` is read as."""

DESCRIPTION = (
    "Render an Operation, like crossplane render op, without Docker: run its function pipeline once, "
    "as the Operation controller does, and print the Operation with its status, then the resources it "
    "would apply. A CronOperation or WatchOperation renders as the Operation it would make. Built-in "
    "functions run in-process; see docs/operations.md."
)


def register(subparsers: Any) -> None:
    """Add the ``render op`` command (as ``render-op``, unlisted)."""
    add_arguments(subparsers.add_parser(COMMAND, prog="crossfn render op", description=DESCRIPTION))


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add render op's arguments and handler to ``p`` (``render op`` and ``operation render``)."""
    p.add_argument(
        "operation",
        metavar="OPERATION",
        type=_args.path,
        help="A YAML file with the Operation (or a CronOperation or WatchOperation).",
    )
    p.add_argument(
        "functions", metavar="FUNCTIONS", type=_args.path, help="A YAML file or directory of Functions."
    )
    p.add_argument(
        "--context-files",
        action="append",
        default=[],
        type=render_cli._key_value,
        metavar="KEY=FILE",
        help="Context key and a file holding its JSON/YAML value (repeatable).",
    )
    p.add_argument(
        "--context-values",
        action="append",
        default=[],
        type=render_cli._key_value,
        metavar="KEY=VALUE",
        help="Context key and its inline JSON/YAML value (repeatable; wins over files).",
    )
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
    p.add_argument("-c", "--include-context", action="store_true", help="Print the final context.")
    p.add_argument(
        "-o",
        "--include-full-operation",
        action="store_true",
        help="Print the input Operation's spec (the output always has it: accepted for compatibility).",
    )
    p.add_argument(
        "-r", "--include-function-results", action="store_true", help="Print the functions' results."
    )
    p.add_argument(
        "-e",
        "--required-resources",
        action="append",
        default=[],
        type=_args.path,
        metavar="PATH",
        help="Resources for requirements (file or directory; repeatable).",
    )
    p.add_argument(
        "--required-schemas", type=_args.path, metavar="DIR", help="Directory of OpenAPI v3 JSON documents."
    )
    p.add_argument(
        "-w",
        "--watched-resource",
        type=_args.path,
        metavar="PATH",
        help="The resource a WatchOperation saw change: required as ops.crossplane.io/watched-resource.",
    )
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
    p.add_argument("--no-exec", action="store_true", help=render_cli.NO_EXEC_HELP)
    engine = p.add_argument_group(
        "Crossplane render engine flags",
        "Accepted for crossplane render op's command lines and ignored, with a note on stderr: crossfn "
        "renders with its own engine in-process, without Docker or a crossplane binary.",
    )
    for flag, metavar, what in render_cli._ENGINE_FLAGS:
        engine.add_argument(flag, metavar=metavar, dest=render_cli._dest(flag), help=f"Would choose {what}.")
    p.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from crossfn import render  # noqa: PLC0415 -- heavy imports only when the command runs

    for line in render_cli.ignored_flag_notes(args):
        print(f"crossfn: note: {line}", file=sys.stderr)

    req = render.OperationRequest(
        operation=args.operation,
        functions=args.functions,
        context_files=args.context_files,
        context_values=args.context_values,
        include_function_results=args.include_function_results,
        include_full_operation=args.include_full_operation,
        include_context=args.include_context,
        required_resources=args.required_resources,
        required_schemas=args.required_schemas,
        watched_resource=args.watched_resource,
        function_credentials=args.function_credentials,
        function_annotations=args.function_annotations,
        timeout=render_cli._timeout(args.timeout),
        allow_exec=not args.no_exec,
    )

    def report(line: str) -> None:
        if args.verbose:
            print(f"crossfn: {line}", file=sys.stderr)

    def note(line: str) -> None:
        print(f"crossfn: note: {line}", file=sys.stderr)

    # stdout holds only the render: what an in-process function prints (debugging) goes to stderr.
    with contextlib.redirect_stdout(sys.stderr), _output.function_tracebacks(shown=args.verbose):
        docs = render.render_operation(req, report=report, note=note)
    text = (
        render.output.to_json(docs)
        if args.output == "json"
        else render.output.yaml_stream(docs, describe=render.output.operation_document)
    )
    _output.write(text)
    return 0
