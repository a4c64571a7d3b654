"""``crossfn render`` of the auto-ready example, compared with a golden file.

Regenerate the golden file with::

    CROSSFN_UPDATE_GOLDEN=1 python -m pytest tests/functions/auto_ready/test_auto_ready_render.py
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from crossfn import cli

EXAMPLE = Path(__file__).parents[3] / "examples" / "auto-ready"
GOLDEN = Path(__file__).parent / "golden" / "auto-ready.yaml"


def test_render_auto_ready(capsys: pytest.CaptureFixture[str]) -> None:
    """ConfigMap (kind check), Bucket (Ready condition) and Queue (CEL) are ready; the Deployment is not."""
    args = [str(EXAMPLE / f) for f in ("xr.yaml", "composition.yaml", "functions.yaml")]
    assert (
        cli.main(["render", *args, "--observed-resources", str(EXAMPLE / "observed.yaml"), "-r", "--classic"])
        == 0
    )
    out = capsys.readouterr().out
    if os.environ.get("CROSSFN_UPDATE_GOLDEN") == "1":
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(out)
    assert out == GOLDEN.read_text()
    assert "message: 'Unready resources: web'" in out
