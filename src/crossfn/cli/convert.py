"""``crossfn convert pipeline-composition``: rewrite a ``mode: Resources`` Composition as a Pipeline.

The same command, flags and output as ``crossplane beta convert
pipeline-composition``: read IN (a file, or stdin for ``-``), write the
converted Composition after a ``---`` line to stdout or ``-o OUT``. A
Composition already in Pipeline mode needs nothing; like upstream we write
nothing (and say so on stderr). The conversion itself lives in
:mod:`crossfn.functions.patch_and_transform.convert`, shared with render.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from crossfn import errors
from crossfn.cli import _output

__all__ = ["register"]


def register(subparsers: Any) -> None:
    """Add ``convert pipeline-composition`` to the command line."""
    parser = subparsers.add_parser("convert", help="convert legacy Crossplane manifests")
    sub = parser.add_subparsers(dest="convert_command", metavar="COMMAND", required=True)
    pc = sub.add_parser(
        "pipeline-composition",
        help="convert a mode: Resources (patch and transform) Composition to a function pipeline",
        description="Rewrite a mode: Resources Composition as a Pipeline, as crossplane beta convert "
        "pipeline-composition does.",
    )
    pc.add_argument(
        "input", nargs="?", default="-", metavar="IN", help="the Composition file, or - for stdin"
    )
    pc.add_argument("-o", "--output-file", metavar="PATH", help="write here instead of stdout")
    pc.add_argument(
        "--function-patch-and-transform-ref",
        default="function-patch-and-transform",
        help="name of the function-patch-and-transform Function to reference",
    )
    pc.add_argument(
        "--function-environment-configs-ref",
        default="function-environment-configs",
        help="name of the function-environment-configs Function to reference",
    )
    pc.set_defaults(handler=_run)


def _read(path: str) -> dict[str, Any]:
    """The first YAML document of ``path`` (``-`` is stdin); errors name what went wrong, the caller the file."""
    from crossfn.gocompat import yaml_loader  # noqa: PLC0415 -- keep `crossfn --help` light

    text = yaml_loader.read_stream(sys.stdin) if path == "-" else yaml_loader.read_file(path)
    try:
        docs = yaml_loader.load_all(text)
    except errors.InputError as exc:
        raise errors.InputError(f"cannot parse YAML: {exc}") from exc
    doc = docs[0] if docs else None
    if not isinstance(doc, dict):
        raise errors.InputError("cannot parse YAML: the document is not an object")
    return doc


def _run(args: argparse.Namespace) -> int:
    from crossfn.functions.patch_and_transform import convert  # noqa: PLC0415 -- heavy imports only when the command runs
    from crossfn.render import output  # noqa: PLC0415 -- heavy imports only when the command runs

    name = "stdin" if args.input == "-" else args.input
    try:
        converted = convert.to_pipeline(
            _read(args.input),
            function_name=args.function_patch_and_transform_ref,
            environment_function_name=args.function_environment_configs_ref,
        )
    except errors.InputError as exc:
        raise errors.InputError(f"cannot convert composition {errors.quote(name)}: {exc}") from exc
    if converted is None:
        print(f"crossfn: {name} is already a Pipeline Composition; nothing to convert", file=sys.stderr)
        return 0
    text = output.yaml_stream([converted])
    if args.output_file:
        try:
            Path(args.output_file).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise errors.InputError(f"cannot write {errors.quote(args.output_file)}: {exc}") from exc
        return 0
    _output.write(text)
    return 0
