"""docs/functions.md's first table names every built-in ``crossfn function serve <name>`` serves."""

from __future__ import annotations

import re
from pathlib import Path

from crossfn import functions

_DOC = Path(__file__).resolve().parents[2] / "docs" / "functions.md"


def test_every_builtin_is_in_the_table() -> None:
    rows = re.findall(
        r"^\| `([a-z-]+)` \| `([\w-]+/[\w-]+)` \| `([\w.]+:\w+)`", _DOC.read_text(), re.MULTILINE
    )
    table = {short: (package, obj) for short, package, obj in rows}
    want = {u.short: (f"{u.org}/{u.repo}", functions.BUILTINS[u.short]) for u in functions.upstreams()}
    assert table == want
