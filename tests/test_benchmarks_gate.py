"""The function server's perf gate (``python benchmarks/function_server.py --quick``, run by .ci/run):
which ratios fail it, and that it fails when every call costs more (issue 24)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    ("ratios", "want", "reason"),
    [
        pytest.param({"trivial": 0.7, "compose10": 0.4}, [], "both within the targets", id="Fast"),
        pytest.param({"trivial": 1.15, "compose10": 0.6}, [], "a ratio at its gate passes", id="AtTheGates"),
        pytest.param({"trivial": 1.16, "compose10": 0.4}, ["trivial"], "trivial over 1.15", id="TrivialOver"),
        pytest.param(
            {"trivial": 0.9, "compose10": 0.61}, ["compose10"], "compose10 over 0.6", id="ComposeOver"
        ),
        pytest.param(
            {"trivial": 2.0, "compose10": 1.0}, ["trivial", "compose10"], "both over", id="BothOver"
        ),
    ],
)
def test_which_ratios_fail_the_gate(
    ratios: dict[str, float], want: list[str], reason: str, load_benchmark: Callable[[str], ModuleType]
) -> None:
    assert load_benchmark("function_server")._over_the_gates(ratios) == want, reason


@pytest.mark.parametrize(
    ("ratio", "target", "want", "reason"),
    [
        pytest.param(0.4, 0.5, "met", "under the target", id="Under"),
        pytest.param(0.5, 0.5, "met", "a ratio at its target meets it (at most)", id="AtTheTarget"),
        pytest.param(0.51, 0.5, "not met", "over the target, though within a 0.6 gate", id="Over"),
    ],
)
def test_a_ratio_meets_its_target_at_most_equal(
    ratio: float, target: float, want: str, reason: str, load_benchmark: Callable[[str], ModuleType]
) -> None:
    assert load_benchmark("function_server")._verdict(ratio, target) == want, reason


def test_gated_ratios_divide_crossfn_by_its_baseline(load_benchmark: Callable[[str], ModuleType]) -> None:
    best = {
        "echo/trivial": 200.0,
        "crossfn/trivial": 100.0,
        "official/compose10": 500.0,
        "crossfn/compose10": 200.0,
    }
    assert load_benchmark("function_server")._gated_ratios(best) == {"trivial": 0.5, "compose10": 0.4}


@pytest.mark.slow
def test_the_gate_fails_when_every_call_costs_more() -> None:
    """400 µs more CPU per call (a trivial call costs about 100-150 µs) puts both ratios far over their gates."""
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "function_server.py"),
            "--quick",
            "--inject-us",
            "400",
            "--calls",
            "300",
            "--rounds",
            "1",
            "--max-rounds",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "measured at commit " in done.stdout
    assert done.stdout.count("over the gate") == 3, done.stdout  # both ratios, and the FAIL line
