"""Crossplane's spellings of crossfn's commands, so that command lines written for it run as they are.

========================================  ======================
Crossplane                                crossfn
========================================  ======================
``crossplane beta render`` (v1.14-v1.20)  ``crossfn render``
``crossplane beta trace`` (v1.14-v2.2)    ``crossfn trace``
``crossplane beta validate`` (v1.15-v2.2) ``crossfn validate``
``crossplane composition render``         ``crossfn render``
``crossplane operation render``           ``crossfn render op``
``crossplane render xr``                  ``crossfn render``
``crossplane resource trace``             ``crossfn trace``
``crossplane resource validate``          ``crossfn validate``
========================================  ======================

Each alias is a full parser of the command it stands for (its usage names the
alias), so errors, help and shell completion read as the user typed them.
``render xr`` and ``render op`` are not built here: ``render`` takes positionals, so
:func:`crossfn.cli.main` reads those words before parsing.
"""

from __future__ import annotations

import argparse
from typing import Any

from crossfn.cli import render, render_op, trace, validate

__all__ = ["register"]

_GROUPS = (
    (
        "beta",
        "Crossplane's beta spellings: beta render, beta trace, beta validate.",
        ("render", "trace", "validate"),
    ),
    ("composition", "Crossplane's spelling: composition render.", ("render",)),
    ("operation", "Crossplane's spelling: operation render.", ("render",)),
    ("resource", "Crossplane's spellings: resource trace, resource validate.", ("trace", "validate")),
)


def register(subparsers: Any) -> None:
    """Add ``beta``, ``composition`` and ``resource`` with the commands Crossplane has under them."""
    for group, help_text, commands in _GROUPS:
        parser = subparsers.add_parser(group, help=help_text, description=help_text)
        sub = parser.add_subparsers(dest=f"{group}_command", metavar="COMMAND", required=True)
        for name in commands:
            if group == "operation":
                render_op.add_arguments(
                    sub.add_parser(name, help="Same as crossfn render op.", description=render_op.DESCRIPTION)
                )
            elif name == "render":
                render.add_arguments(
                    sub.add_parser(name, help="Same as crossfn render.", description=render.DESCRIPTION)
                )
            elif name == "trace":
                trace.add_arguments(
                    sub.add_parser(
                        name,
                        help="Same as crossfn trace.",
                        description=trace.DESCRIPTION,
                        formatter_class=argparse.RawDescriptionHelpFormatter,
                    )
                )
            else:
                validate.add_arguments(
                    sub.add_parser(
                        name,
                        help="Same as crossfn validate.",
                        description=validate.DESCRIPTION,
                        formatter_class=argparse.RawDescriptionHelpFormatter,
                    )
                )
