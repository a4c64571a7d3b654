"""function-pythonic for the peer tests: its pinned PyPI release in a Python >= 3.12 environment.

``scripts/pythonic_peer_env.py`` (which ``.ci/run`` runs first) makes it once
and caches it; the fixture runs the same script, a no-op once made. Without a
Python >= 3.12 the tests skip with the script's reason, and with ``CI=true``
that skip fails the run: CI must really run them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "scripts" / "pythonic_peer_env.py"
NO_PYTHON = 3


def corpus_root() -> Path:
    """The shared corpus (``$CROSSFN_CORPUS``, else ``shared/corpus`` beside an ancestor of this file),
    as ``tests/corpus`` finds it; the path of the usual place when there is none (its tests then fail)."""
    given = os.environ.get("CROSSFN_CORPUS")
    if given:
        return Path(given)
    for parent in Path(__file__).resolve().parents:
        if (parent / "shared" / "corpus" / "README.md").is_file():
            return parent / "shared" / "corpus"
    return ROOT.parent / "shared" / "corpus"


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


@pytest.fixture(scope="session")
def pythonic() -> dict[str, str]:
    """``package``, ``functions_dir``, ``install``, ``examples`` and ``python`` of the pinned release."""
    out = subprocess.run(
        [sys.executable, str(SCRIPT)], capture_output=True, text=True, check=False, timeout=600
    )
    if out.returncode == NO_PYTHON:
        pytest.skip(out.stderr.strip())
    assert out.returncode == 0, f"{SCRIPT.name} failed:\n{out.stderr}"
    env: dict[str, str] = json.loads(out.stdout)
    return env


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    """With ``CI=true`` a skipped pythonic peer test is a failure."""
    report = yield
    if report.skipped and _in_ci():
        report.outcome = "failed"
        report.longrepr = f"function-pythonic peer test skipped while CI=true: {report.longrepr}"
    return report
