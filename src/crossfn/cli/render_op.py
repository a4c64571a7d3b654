"""``crossfn render op``: the arguments and flags of ``crossplane render op`` (upstream ops-5), onto ``render.OperationRequest``.

argparse cannot give ``render`` both positional files and an ``op`` sub-command, so
:mod:`crossfn.cli` reads ``crossfn render op ...`` as this command (``render-op``, not listed on
its own). This module only parses flags; :func:`crossfn.render.render_operation` does the work,
and the output is written in one piece once the render succeeded.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path
from typing import Any

from crossfn.cli import _output
from crossfn.cli import render as render_cli

__all__ = ["COMMAND", "register"]

COMMAND = "render-op"
"""The parser's name: what ``crossfn render op`` is read as."""


def register(subparsers: Any) -> None:
    """Add the ``render op`` command (as ``render-op``, unlisted)."""
    p = subparsers.add_parser(
        COMMAND,
        prog="crossfn render op",
        description=(
            "Render an Operation, like crossplane render op, without Docker: run its function pipeline once, "
            "as the Operation controller does, and print the Operation with its status, then the resources it "
            "would apply. A CronOperation or WatchOperation renders as the Operation it would make. Built-in "
            "functions run in-process; see docs/operations.md."
        ),
    )
    p.add_argument(
        "operation",
        metavar="OPERATION",
        type=Path,
        help="A YAML file with the Operation (or a CronOperation or WatchOperation).",
    )
    p.add_argument("functions", metavar="FUNCTIONS", type=Path, help="A YAML file or directory of Functions.")
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
        "--function-credentials", type=Path, metavar="PATH", help="v1 Secrets for step credentials."
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
        type=Path,
        metavar="PATH",
        help="Resources for requirements (file or directory; repeatable).",
    )
    p.add_argument(
        "--required-schemas", type=Path, metavar="DIR", help="Directory of OpenAPI v3 JSON documents."
    )
    p.add_argument(
        "-w",
        "--watched-resource",
        type=Path,
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
    p.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from crossfn import render  # noqa: PLC0415 -- heavy imports only when the command runs

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
    text = render.output.to_json(docs) if args.output == "json" else render.output.yaml_stream(docs)
    _output.write(text)
    return 0
