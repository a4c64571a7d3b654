"""examples/operations: the README's ``crossfn render op`` commands against golden files, and its OperationTest.

Regenerate the golden files with ``CROSSFN_UPDATE_GOLDEN=1 pytest tests/examples``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from crossfn import cli

_ROOT = Path(__file__).resolve().parents[2]
_EXAMPLE = _ROOT / "examples" / "operations"
_GOLDEN = Path(__file__).parent / "golden" / "operations"
_UPDATE = os.environ.get("CROSSFN_UPDATE_GOLDEN") == "1"


def _args(operation: str, *flags: str) -> list[str]:
    files = [str(_EXAMPLE / operation), str(_EXAMPLE / "functions.yaml")]
    return ["render", "op", *files, *(str(_EXAMPLE / f) if f.endswith(".yaml") else f for f in flags)]


COMMANDS = {
    "operation": (_args("operation.yaml", "-e", "configmaps.yaml", "-r"), "the Operation, with its results"),
    "cronoperation": (_args("cronoperation.yaml", "-e", "configmaps.yaml"), "the CronOperation's template"),
    "watchoperation": (
        _args("watchoperation.yaml", "-w", "watched.yaml"),
        "the WatchOperation, with a watched resource",
    ),
}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_example(capsys: pytest.CaptureFixture[str], name: str) -> None:
    argv, reason = COMMANDS[name]
    code = cli.main(argv)
    out, err = capsys.readouterr()
    assert code == 0, f"{reason}: {err}"
    golden = _GOLDEN / f"{name}.yaml"
    if _UPDATE:
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(out)
    assert out == golden.read_text(), (
        f"{reason}; regenerate with CROSSFN_UPDATE_GOLDEN=1 pytest tests/examples"
    )


def test_the_example_operation_test_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["test", str(_EXAMPLE / "test.yaml")]) == 0, capsys.readouterr().out
