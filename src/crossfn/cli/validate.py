"""``crossfn validate EXTENSIONS RESOURCES``: validate resources offline, like ``crossplane beta validate``.

Flags parse here; the work is :func:`crossfn.validate.run`. The report goes to
stdout in full (it is the command's output, valid or not); when validation
fails the upstream error goes to stderr and the exit status is 1.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from crossfn.cli import _output

__all__ = ["DESCRIPTION", "add_arguments", "register"]

DESCRIPTION = """\
Validate resources against the schemas of extensions: CRDs, XRDs (turned into
the XR's and claim's CRDs as Crossplane generates them) and OpenAPI v3
documents. Built-in Kubernetes kinds are known without extensions. Each
argument is a file, a directory (searched recursively for .yaml, .yml and
.json), '-' for standard input, or a comma-separated list of these. The output
of 'crossfn render' can be piped in:

  crossfn render xr.yaml composition.yaml functions.yaml | crossfn validate extensions/ -
"""


def register(subparsers: Any) -> None:
    """Add the ``validate`` command."""
    p = subparsers.add_parser(
        "validate",
        help="Validate resources against CRDs, XRDs and OpenAPI schemas, offline.",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(p)


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add validate's arguments and handler to ``p`` (``validate`` and its Crossplane spellings)."""
    p.add_argument("extensions", metavar="EXTENSIONS", help="CRDs, XRDs and OpenAPI v3 documents.")
    p.add_argument("resources", metavar="RESOURCES", help="Resources to validate.")
    p.add_argument(
        "--error-on-missing-schemas",
        action="store_true",
        help="Exit non-zero when a resource's schema is not known.",
    )
    p.add_argument("--skip-success-results", action="store_true", help="Do not print valid resources.")
    p.add_argument(
        "--old-resources", metavar="PATH", help="Previous versions of the resources, for CEL oldSelf rules."
    )
    # crossplane beta validate's package-cache flags: accepted so scripts keep working; crossfn fetches nothing.
    offline = "Accepted for compatibility with crossplane beta validate; crossfn downloads nothing."
    p.add_argument("--cache-dir", metavar="DIR", help=offline)
    p.add_argument("--clean-cache", action="store_true", help=offline)
    p.add_argument("--crossplane-image", metavar="IMAGE", help=offline)
    p.add_argument("--update-cache", action="store_true", help=offline)
    p.add_argument(
        "-o",
        "--output",
        choices=("text", "json", "yaml"),
        default="text",
        help="Report format (default text); json and yaml hold the same document.",
    )
    p.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from crossfn import validate  # noqa: PLC0415 -- CEL, RE2 and YAML load only for this command

    report = validate.run(args.extensions, args.resources, old_resources=args.old_resources)
    if args.output == "text":
        _output.write(report.text(skip_success=args.skip_success_results))
    else:
        _output.write(report.json() if args.output == "json" else report.yaml())
    for package in report.skipped_packages:
        print(
            f"crossfn: warning: cannot fetch schemas of package {package} offline; give its CRDs as extensions",
            file=sys.stderr,
        )
    error = report.error(error_on_missing_schemas=args.error_on_missing_schemas)
    if error is None:
        return 0
    print(f"crossfn: error: {error}", file=sys.stderr)
    return 1
