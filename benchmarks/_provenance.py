"""Which code a benchmark measured: the commit, and whether the code had uncommitted changes.

Every benchmark prints :func:`line` with its figures, and one that rewrites its
section of ``docs/performance.md`` (``--write``) puts :func:`commit` in it, so a
figure in the docs always names the code it was measured on, and a figure
measured on uncommitted code says so.

Only the code counts as a change: ``src/``, ``benchmarks/`` and the files that
decide what gets installed (``pyproject.toml``, ``setup.py``, ``constraints.txt``),
committed or not yet added. The docs a benchmark rewrites do not.
"""

from __future__ import annotations

import pathlib
import subprocess

__all__ = ["CODE", "commit", "line"]

ROOT = pathlib.Path(__file__).resolve().parent.parent
CODE = ("src", "benchmarks", "pyproject.toml", "setup.py", "constraints.txt")
"""The paths whose changes make a measurement one of uncommitted code."""


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=False, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def commit() -> str:
    """``<commit>`` (12 hex digits), ``<commit> plus uncommitted changes``, or ``unknown (no git checkout)``."""
    head = _git("rev-parse", "--short=12", "HEAD")
    if head is None:
        return "unknown (no git checkout)"
    changes = _git("status", "--porcelain", "--", *CODE)
    if changes is None:
        return f"{head} (cannot tell whether the code has uncommitted changes)"
    return f"{head} plus uncommitted changes" if changes else head


def line() -> str:
    """The line a benchmark prints with its figures: ``measured at commit <commit()>``."""
    return f"measured at commit {commit()}"
