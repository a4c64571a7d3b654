"""Running a benchmark as the docs say (``python benchmarks/<name>.py``) prints its figures and leaves
docs/performance.md alone; only ``--write`` rewrites the page (issue 25). Every benchmark prints the
commit it measured, and what it writes to the page names it too (issue 24)."""

from __future__ import annotations

import ast
import subprocess
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

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


def _calls_provenance(func: ast.FunctionDef, name: str) -> bool:
    """Whether ``func`` calls ``_provenance.<name>()``."""
    return any(
        isinstance(node, ast.Call) and ast.unparse(node.func) == f"_provenance.{name}"
        for node in ast.walk(func)
    )


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_every_benchmark_names_the_commit_it_measured(script: Path) -> None:
    tree = ast.parse(script.read_text(encoding="utf-8"))
    functions = {f.name: f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)}
    if "main" not in functions:
        return  # a helper module, not a benchmark
    assert _calls_provenance(functions["main"], "line") or any(
        _calls_provenance(f, "line") for f in functions.values()
    ), f"{script.name}: prints no `measured at commit` line"
    if any(_writes_the_page(f) for f in functions.values()):
        assert any(_calls_provenance(f, "commit") for f in functions.values()), (
            f"{script.name}: writes figures to the page without the commit"
        )


def test_the_commit_says_when_the_code_had_uncommitted_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, load_benchmark: Callable[[str], ModuleType]
) -> None:
    """A clean checkout gives its commit; a changed source file adds so; a changed doc does not."""
    _provenance = load_benchmark("_provenance")

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(tmp_path), *args], capture_output=True, text=True, check=True
        ).stdout

    git("init", "-q")
    (tmp_path / "src").mkdir()
    (tmp_path / "docs").mkdir()
    (tmp_path / "src" / "m.py").write_text("x = 1\n")
    (tmp_path / "docs" / "performance.md").write_text("# Performance\n")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "one")
    head = git("rev-parse", "--short=12", "HEAD").strip()
    monkeypatch.setattr(_provenance, "ROOT", tmp_path)
    (tmp_path / "docs" / "performance.md").write_text("# Performance\n\nnew figures\n")
    assert (_provenance.commit(), _provenance.line()) == (head, f"measured at commit {head}")
    (tmp_path / "src" / "m.py").write_text("x = 2\n")
    assert _provenance.commit() == f"{head} plus uncommitted changes"
    monkeypatch.setattr(_provenance, "ROOT", tmp_path / "nowhere")
    assert _provenance.commit() == "unknown (no git checkout)"
