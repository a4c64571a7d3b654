"""Running a benchmark as the docs say (``python benchmarks/<name>.py``) prints its figures and leaves
docs/performance.md alone; only ``--write`` rewrites the page (issue 25)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = sorted((ROOT / "benchmarks").glob("*.py"))


def _writes_the_page(func: ast.FunctionDef) -> bool:
    """Whether ``func`` writes the page (``DOC.write_text``, ``DOC.write_bytes``)."""
    for node in ast.walk(func):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("write_text", "write_bytes")
            and "DOC" in ast.unparse(node.func.value)
        ):
            return True
    return False


def _guarded_by_write_flag(tree: ast.Module, call: ast.Call) -> bool:
    """Whether ``call`` sits under ``if args.write:``."""
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.If)
            and ast.unparse(node.test) == "args.write"
            and any(inner is call for stmt in node.body for inner in ast.walk(stmt))
        ):
            return True
    return False


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_the_page_is_written_only_with_write(script: Path) -> None:
    tree = ast.parse(script.read_text(encoding="utf-8"))
    writers = {f.name for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and _writes_the_page(f)}
    if not writers:
        return  # this benchmark prints only
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in writers
    ]
    assert calls, f"{script.name}: {writers} never called"
    unguarded = [ast.unparse(c) for c in calls if not _guarded_by_write_flag(tree, c)]
    assert not unguarded, f"{script.name}: docs/performance.md written without --write: {unguarded}"
    assert '"--write", action="store_true"' in script.read_text(), (
        f"{script.name}: a --write switch, off by default"
    )
