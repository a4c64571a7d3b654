"""The patch-and-transform examples rendered by ``crossfn render``, compared with golden output.

Regenerate the golden files with
``CROSSFN_UPDATE_GOLDEN=1 python -m pytest tests/functions/pt/test_pt_examples.py``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from crossfn import cli

ROOT = Path(__file__).resolve().parents[3]
GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize(
    ("example", "reason"),
    [
        pytest.param("pt-docs", "the documentation's P&T patterns, with an observed bucket", id="PTDocs"),
        pytest.param(
            "pt-package",
            "a P&T-heavy configuration-package Composition, with an observed VPC",
            id="PTPackage",
        ),
    ],
)
def test_example_renders(capsys: pytest.CaptureFixture[str], example: str, reason: str) -> None:
    """Each example's README command prints exactly its golden output."""
    d = ROOT / "examples" / example
    argv = [
        "render",
        str(d / "xr.yaml"),
        str(d / "composition.yaml"),
        str(d / "functions.yaml"),
        "-o",
        str(d / "observed.yaml"),
        "-r",
        "--classic",
    ]
    code = cli.main(argv)
    out, err = capsys.readouterr()
    assert code == 0, f"{reason}: {err}"
    golden = GOLDEN / f"{example}.yaml"
    if os.environ.get("CROSSFN_UPDATE_GOLDEN") == "1":
        golden.write_text(out, encoding="utf-8")
    assert out == golden.read_text(encoding="utf-8"), reason
