"""``crossfn render``: the flags of ``crossplane render`` (upstream core-3.2), mapped onto ``render.Request``.

This module only parses flags; :mod:`crossfn.render` does the work. Output is
written to stdout in one piece after the render succeeded, so a failure
leaves stdout empty and prints one ``crossfn: error:`` line (the CLI's
handler) with exit status 1.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path
from typing import Any

from crossfn import errors
from crossfn.cli import _args, _output
from crossfn.gocompat import time as gotime

__all__ = ["DESCRIPTION", "NO_EXEC_HELP", "add_arguments", "register"]

NO_EXEC_HELP = (
    "Refuse Functions that would run code crossfn does not ship: the Process and Docker runtimes and "
    "InProcess objects other than the built-ins (for untrusted inputs; see docs/security.md)."
)


def _timeout(text: str) -> float:
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


DESCRIPTION = (
    "Render a composite resource (XR): run the Composition's function pipeline and print the XR "
    "and the composed resources as YAML. By default the output is today's crossplane render xr "
    "(crossplane/cli main: one reconcile of the XR controller); --classic gives Crossplane v2.2.4's. "
    "Built-in functions run in-process; see docs/render.md for every runtime. "
    "`crossfn render op OPERATION FUNCTIONS` renders an Operation (docs/operations.md)."
)

# Flags of crossplane render xr that choose the Crossplane render engine (an image or a binary) and
# the CLI's configuration file: crossfn runs its own engine in-process, so each is accepted and
# explained on stderr (flag, metavar, what it would have chosen).
_ENGINE_FLAGS = (
    ("--crossplane-version", "VERSION", "the version of the Crossplane image to render with"),
    ("--crossplane-image", "IMAGE", "the Crossplane image to render with"),
    ("--crossplane-binary", "PATH", "a local crossplane binary to render with"),
    ("--crossplane-docker-network", "NETWORK", "the Docker network of the Crossplane container"),
    ("--config", "PATH", "the crossplane CLI's configuration file"),
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
        type=Path,
        default=Path("crossplane-project.yaml"),
        metavar="PATH",
        help="The project file, when FUNCTIONS is not given (default crossplane-project.yaml; upbound.yaml beside it too).",
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
    p.add_argument("--no-exec", action="store_true", help=NO_EXEC_HELP)
    p.add_argument(
        "--classic",
        action="store_true",
        help=(
            "Print classic render's output (Crossplane v2.2.4's crossplane render: generateName, no Synced "
            "or Responsive) instead of the current CLI's (crossplane render xr: one reconcile of the XR "
            "controller, real names, events as results)."
        ),
    )
    engine = p.add_argument_group(
        "Crossplane render engine flags",
        "Accepted for crossplane render xr's command lines and ignored, with a note on stderr: crossfn "
        "renders with its own engine in-process, without Docker or a crossplane binary.",
    )
    for flag, metavar, what in _ENGINE_FLAGS:
        engine.add_argument(flag, metavar=metavar, dest=_dest(flag), help=f"Would choose {what}.")
    p.set_defaults(handler=_run)  # fmt: skip


def _dest(flag: str) -> str:
    return "ignored_" + flag.lstrip("-").replace("-", "_")


def ignored_flag_notes(args: argparse.Namespace) -> list[str]:
    """One note per Crossplane render-engine flag given: what it would choose, and why it is ignored."""
    return [
        f"{flag} is ignored: it chooses {what}; crossfn renders in-process"
        for flag, _, what in _ENGINE_FLAGS
        if getattr(args, _dest(flag), None) is not None
    ]


def _run(args: argparse.Namespace) -> int:
    from crossfn import render  # noqa: PLC0415 -- heavy imports only when the command runs

    for line in ignored_flag_notes(args):
        print(f"crossfn: note: {line}", file=sys.stderr)

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
        timeout=_timeout(args.timeout),
        crds=args.crds,
        allow_exec=not args.no_exec,
        project_file=args.project_file,
    )

    def report(line: str) -> None:
        if args.verbose:
            print(f"crossfn: {line}", file=sys.stderr)

    def note(line: str) -> None:
        print(f"crossfn: note: {line}", file=sys.stderr)

    validator = None
    if args.validate:
        from crossfn import validate  # noqa: PLC0415 -- only --validate needs the validator

        validator = validate.validate_render
    # --classic picks the output contract: Crossplane v2.2.4's render instead of today's `render xr`.
    contract = render.CLASSIC if args.classic else render.CURRENT
    # stdout holds only the render: what an in-process function prints (debugging) goes to stderr.
    with contextlib.redirect_stdout(sys.stderr), _output.function_tracebacks(shown=args.verbose):
        docs = render.render(req, output=contract, report=report, note=note, validator=validator)
    text = render.output.to_json(docs) if args.output == "json" else render.output.yaml_stream(docs)
    _output.write(text)
    return 0
