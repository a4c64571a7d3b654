"""Crossplane's spellings of crossfn's commands, so that command lines written for it run as they are.

========================================  ======================
Crossplane                                crossfn
========================================  ======================
``crossplane beta render`` (v1.14-v1.20)  ``crossfn render``
``crossplane beta validate`` (v1.15-v2.2) ``crossfn validate``
``crossplane composition render``         ``crossfn render``
``crossplane render xr``                  ``crossfn render``
``crossplane resource validate``          ``crossfn validate``
========================================  ======================

Each alias is a full parser of the command it stands for (its usage names the
alias), so errors, help and shell completion read as the user typed them.
``render xr`` is the one not built here: ``render`` takes positionals, so
:func:`crossfn.cli.main` drops the word ``xr`` before parsing.
"""

from __future__ import annotations

import argparse
from typing import Any

from crossfn.cli import render, validate

__all__ = ["register"]

_GROUPS = (
    ("beta", "Crossplane's beta spellings: beta render, beta validate.", ("render", "validate")),
    ("composition", "Crossplane's spelling: composition render.", ("render",)),
    ("resource", "Crossplane's spelling: resource validate.", ("validate",)),
)


def register(subparsers: Any) -> None:
    """Add ``beta``, ``composition`` and ``resource`` with the commands Crossplane has under them."""
    for group, help_text, commands in _GROUPS:
        parser = subparsers.add_parser(group, help=help_text, description=help_text)
        sub = parser.add_subparsers(dest=f"{group}_command", metavar="COMMAND", required=True)
        for name in commands:
            if name == "render":
                render.add_arguments(
                    sub.add_parser(name, help="Same as crossfn render.", description=render.DESCRIPTION)
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
