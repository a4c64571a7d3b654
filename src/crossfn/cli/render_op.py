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
from typing import Any

from crossfn.cli import _args, _render_flags

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
    _render_flags.add_context(p)
    _render_flags.add_function_flags(p)
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
    _render_flags.add_run(p)
    _render_flags.add_engine(p, "crossplane render op")
    p.set_defaults(handler=_render_flags.handler(_render, operation=True))


def _render(args: argparse.Namespace, report: _render_flags.Say, note: _render_flags.Say) -> list[Any]:
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
        timeout=_render_flags.timeout(args.timeout),
        allow_exec=not args.no_exec,
    )
    return render.render_operation(req, report=report, note=note)
