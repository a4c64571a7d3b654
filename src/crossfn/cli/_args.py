"""Flag values shared by the commands: environment fallbacks and argparse value types.

Each command maps flags and environment variables onto its settings in its own
module; the value checks they share live here once, so that the same mistake
reads the same in every command.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

__all__ = ["env", "path", "positive_int"]


def env(*names: str, default: str | None = None) -> str | None:
    """The first of the environment variables ``names`` that is set and not empty, else ``default``."""
    for n in names:
        value = os.environ.get(n)
        if value:
            return value
    return default


def positive_int(text: str) -> int:
    """A whole number of at least 1 (workers, threads, calls)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"want a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"want at least 1, got {value}")
    return value


def path(text: str) -> Path:
    """A file or directory named on the command line; an empty one is refused, not read as ``.``."""
    if not text:
        raise argparse.ArgumentTypeError("want a file or directory, got an empty path")
    return Path(text)
