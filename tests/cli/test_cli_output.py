"""A failed write of a command's output (a full disk) is one error line and exit status 1 (issue 15)."""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from crossfn import cli
from crossfn.cli import _output

_ROOT = Path(__file__).parents[2]
_X = _ROOT / "examples" / "xbucket"


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param(
            ["render", f"{_X}/xr.yaml", f"{_X}/composition.yaml", f"{_X}/functions.yaml"], id="render"
        ),
        pytest.param(
            ["validate", f"{_ROOT}/examples/controller/xrd.yaml", f"{_ROOT}/examples/controller/xr.yaml"],
            id="validate",
        ),
        pytest.param(["test", "-q", f"{_X}/test.yaml"], id="test"),
        pytest.param(
            ["convert", "pipeline-composition", f"{_ROOT}/tests/functions/pt/legacy-composition.yaml"],
            id="convert",
        ),
        pytest.param(["init", "function", "my-function", "-C", "{tmp}/my-function"], id="init"),
        pytest.param(["init", "wheel", "{tmp}/wheels"], id="init-wheel"),
    ],
)
def test_full_disk_is_one_line(tmp_path: Path, argv: list[str]) -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "crossfn", *(a.format(tmp=tmp_path) for a in argv)],
            stdout=full, stderr=subprocess.PIPE, text=True, timeout=120, check=False,
        )  # fmt: skip
    notes = "".join(
        line + "\n" for line in proc.stderr.splitlines() if line.startswith("crossfn: note: running ")
    )
    assert (proc.returncode, proc.stderr) == (
        1,
        notes + "crossfn: error: cannot write output: no space left on device\n",
    )


def test_lone_surrogate_is_written_as_replacement_character(monkeypatch: pytest.MonkeyPatch) -> None:
    """A real stdout encodes strictly: a lone surrogate is U+FFFD, as Go writes it, not a UnicodeEncodeError."""
    raw = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(raw, encoding="utf-8", errors="strict"))
    _output.write("a\ud800b\udcffc\n")
    assert raw.getvalue() == "a\ufffdb\ufffdc\n".encode()


def test_a_second_double_dash_leaves_functions_out(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Python 3.11's argparse drops a second ``--``: FUNCTIONS is then absent, as in a project, and the
    render says what is missing in one line rather than failing with a traceback."""
    xr = tmp_path / "xr.yaml"
    xr.write_text("apiVersion: example.org/v1\nkind: XR\nmetadata:\n  name: x\n")
    comp = tmp_path / "comp.yaml"
    comp.write_text(
        "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: c\nspec:\n"
        "  compositeTypeRef:\n    apiVersion: example.org/v1\n    kind: XR\n  mode: Pipeline\n  pipeline: []\n"
    )
    code = cli.main(["render", "-f", str(tmp_path / "none.yaml"), str(xr), str(comp), "--", "--"])
    assert code == 1
    assert capsys.readouterr().err == "crossfn: error: functions argument is required when not in a project\n"


def _parsers(
    parser: argparse.ArgumentParser, name: str = "crossfn"
) -> list[tuple[str, argparse.ArgumentParser]]:
    found = [(name, parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub, subparser in action.choices.items():
                found += _parsers(subparser, f"{name} {sub}")
    return found


def test_help_texts_are_plain_text() -> None:
    """`--help` is read in a terminal: no reStructuredText markup leaks from docstrings."""
    for name, parser in _parsers(cli.build_parser()):
        assert "``" not in parser.format_help(), f"{name} --help"
