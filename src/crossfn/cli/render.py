"""``crossfn render``: the flags of ``crossplane render`` (upstream core-3.2), mapped onto ``render.Request``.

This module only parses flags; :mod:`crossfn.render` does the work. Output is
written to stdout in one piece after the render succeeded, so a failure
leaves stdout empty and prints one ``crossfn: error:`` line (the CLI's
handler) with exit status 1.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from crossfn.cli import _args, _render_flags

__all__ = ["DESCRIPTION", "add_arguments", "register"]

DESCRIPTION = (
    "Render a composite resource (XR): run the Composition's function pipeline and print the XR "
    "and the composed resources as YAML. By default the output is today's crossplane render xr "
    "(crossplane/cli main: one reconcile of the XR controller); --classic gives Crossplane v2.2.4's. "
    "Built-in functions run in-process; see docs/render.md for every runtime. "
    "`crossfn render op OPERATION FUNCTIONS` renders an Operation (docs/operations.md)."
)


def register(subparsers: Any) -> None:
    """Add the ``render`` command."""
    p = subparsers.add_parser(
        "render",
        help="Render a composite resource (XR), like crossplane render, without Docker.",
        description=DESCRIPTION,
    )
    add_arguments(p)


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add render's arguments and handler to ``p`` (``render`` and its Crossplane spellings)."""
    p.add_argument(
        "composite_resource", metavar="COMPOSITE-RESOURCE", type=_args.path, help="A YAML file with the XR."
    )
    p.add_argument(
        "composition",
        metavar="COMPOSITION",
        type=_args.path,
        help="A YAML file with the Composition (mode: Pipeline, or a legacy mode: Resources).",
    )
    p.add_argument(
        "functions",
        metavar="FUNCTIONS",
        type=_args.path,
        nargs="?",
        help="A YAML file or directory of Functions. Optional in a project: its Functions and embedded functions.",
    )
    _render_flags.add_context(p)
    p.add_argument(
        "-r", "--include-function-results", action="store_true", help="Print the functions' results."
    )
    p.add_argument(
        "-x", "--include-full-xr", action="store_true", help="Print the input XR's spec and metadata."
    )
    p.add_argument("-c", "--include-context", action="store_true", help="Print the final context.")
    p.add_argument(
        "-o",
        "--observed-resources",
        type=_args.path,
        metavar="PATH",
        help="Observed composed resources (file or directory).",
    )
    p.add_argument(
        "-e",
        "--required-resources",
        action="append",
        default=[],
        type=_args.path,
        metavar="PATH",
        help="Resources for requirements (file or directory; repeatable, every one counts).",
    )
    p.add_argument(
        "--extra-resources",
        action="append",
        default=[],
        type=_args.path,
        metavar="PATH",
        help="Deprecated alias of --required-resources, without bootstrap requirements (repeatable).",
    )
    p.add_argument(
        "-s",
        "--required-schemas",
        type=_args.path,
        metavar="DIR",
        help="Directory of OpenAPI v3 JSON documents, searched recursively.",
    )
    _render_flags.add_function_flags(p)
    p.add_argument(
        "--xrd", type=_args.path, metavar="FILE", help="XRD whose schema defaults are applied to the XR."
    )
    p.add_argument(
        "--crds",
        action="append",
        default=[],
        type=_args.path,
        metavar="PATH",
        help="CRDs and XRDs (file or directory, searched recursively; repeatable) for --validate and required schemas.",
    )
    p.add_argument(
        "--validate",
        action="store_true",
        help="Check the XR, step inputs and composed resources against their schemas; fail listing the problems.",
    )
    p.add_argument(
        "-f",
        "--project-file",
        type=_args.path,
        default=Path("crossplane-project.yaml"),
        metavar="PATH",
        help="The project file, when FUNCTIONS is not given (default crossplane-project.yaml; upbound.yaml beside it too).",
    )
    _render_flags.add_run(p)
    p.add_argument(
        "--classic",
        action="store_true",
        help=(
            "Print classic render's output (Crossplane v2.2.4's crossplane render: generateName, no Synced "
            "or Responsive) instead of the current CLI's (crossplane render xr: one reconcile of the XR "
            "controller, real names, events as results)."
        ),
    )
    _render_flags.add_engine(p, "crossplane render xr")
    p.set_defaults(handler=_render_flags.handler(_render))


def _render(args: argparse.Namespace, report: _render_flags.Say, note: _render_flags.Say) -> list[Any]:
    from crossfn import render  # noqa: PLC0415 -- heavy imports only when the command runs

    req = render.Request(
        composite_resource=args.composite_resource,
        composition=args.composition,
        functions=args.functions,
        context_files=args.context_files,
        context_values=args.context_values,
        include_function_results=args.include_function_results,
        include_full_xr=args.include_full_xr,
        include_context=args.include_context,
        observed_resources=args.observed_resources,
        extra_resources=args.extra_resources,
        required_resources=args.required_resources,
        required_schemas=args.required_schemas,
        function_credentials=args.function_credentials,
        function_annotations=args.function_annotations,
        xrd=args.xrd,
        timeout=_render_flags.timeout(args.timeout),
        crds=args.crds,
        allow_exec=not args.no_exec,
        project_file=args.project_file,
    )
    validator = None
    if args.validate:
        from crossfn import validate  # noqa: PLC0415 -- only --validate needs the validator

        validator = validate.validate_render
    # --classic picks the output contract: Crossplane v2.2.4's render instead of today's `render xr`.
    contract = render.CLASSIC if args.classic else render.CURRENT
    return render.render(req, output=contract, report=report, note=note, validator=validator)
