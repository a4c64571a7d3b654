"""No file in the repository carries an unresolved merge: a conflict marker at the start of a line."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_MARKER = re.compile(rb"^(<{7}|>{7}) ", re.M)


def test_no_conflict_markers() -> None:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.split(b"\0")
    found = []
    for name in filter(None, listed):
        path = ROOT / name.decode()
        if path.is_file() and _MARKER.search(path.read_bytes()):
            found.append(name.decode())
    assert not found, f"unresolved merge conflict markers in: {', '.join(found)}"
