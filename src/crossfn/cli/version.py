"""``crossfn version``: the client's version, as ``crossplane version`` prints it.

``crossplane version`` also prints the version of the Crossplane it finds on the
current cluster unless ``--client`` is given; crossfn's command queries no
cluster (docs/compatibility.md), so ``--client`` is accepted and changes nothing.
"""

from __future__ import annotations

import argparse
from typing import Any

from crossfn import __version__
from crossfn.cli import _output

__all__ = ["register"]


def register(subparsers: Any) -> None:
    """Add the ``version`` command."""
    p = subparsers.add_parser(
        "version",
        help="Print crossfn's version.",
        description="Print crossfn's version as crossplane version prints the client's: Client Version: vX.Y.Z.",
    )
    p.add_argument(
        "--client",
        action="store_true",
        help="Print the client version only (crossfn version never queries a cluster).",
    )
    p.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    _output.write(f"Client Version: v{__version__}\n")
    return 0
