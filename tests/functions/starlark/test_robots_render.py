"""``crossfn render`` of the Starlark robots example, compared with golden files.

Regenerate the golden files with::

    CROSSFN_UPDATE_GOLDEN=1 python -m pytest tests/functions/starlark/test_robots_render.py
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from crossfn import cli

EXAMPLE = Path(__file__).parents[3] / "examples" / "starlark-robots"
GOLDEN = Path(__file__).parent / "golden"

CASES = [
    pytest.param([], "robots.yaml", "first reconcile: three new purple robots", id="ThreeRobots"),
    pytest.param(
        ["--observed-resources", str(EXAMPLE / "observed.yaml")],
        "robots-observed.yaml",
        "robot-0 exists and stays red; robot-1 and robot-2 are new",
        id="KeepsObservedRobot",
    ),
]


@pytest.mark.parametrize(("flags", "golden", "reason"), CASES)
def test_render_robots(
    capsys: pytest.CaptureFixture[str], flags: list[str], golden: str, reason: str
) -> None:
    args = [str(EXAMPLE / f) for f in ("xr.yaml", "composition.yaml", "functions.yaml")]
    assert cli.main(["render", *args, "--classic", *flags]) == 0, reason
    out = capsys.readouterr().out
    path = GOLDEN / golden
    if os.environ.get("CROSSFN_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(exist_ok=True)
        path.write_text(out)
    assert out == path.read_text(), reason
