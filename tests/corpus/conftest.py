"""Fixtures of the corpus suite: where ``crossfn function install`` put the functions that run from PyPI.

function-pythonic (two Crossplane docs Compositions) runs as shipped once
``crossfn function install`` made its environment. ``scripts/pythonic_peer_env.py``
makes that install once and caches it (``.ci/run`` runs it before the tests;
``tests/peers/pythonic`` uses the same one); the suite points render at it with
``$CROSSFN_FUNCTIONS_DIR``, as a user's shell would after the install. Without a
Python >= 3.12 for it the two Compositions are skipped, and under ``CI=true``
that skip is a failure.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "pythonic_peer_env.py"
NO_PYTHON = 3


@functools.cache
def _installed() -> tuple[str, str]:
    """(functions directory, "") once made, or ("", why not)."""
    out = subprocess.run(
        [sys.executable, str(SCRIPT)], capture_output=True, text=True, check=False, timeout=600
    )
    if out.returncode == NO_PYTHON:
        return "", out.stderr.strip()
    assert out.returncode == 0, f"{SCRIPT.name} failed:\n{out.stderr}"
    return str(json.loads(out.stdout)["functions_dir"]), ""


@pytest.fixture
def installed_functions() -> str:
    """The ``crossfn function install`` directory holding function-pythonic's pinned release."""
    found, why = _installed()
    if not found:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"function-pythonic cannot be installed while CI=true: {why}")
        pytest.skip(why)
    return found
