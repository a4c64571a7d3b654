"""Every example in ``examples/`` rendered by ``crossfn render`` and compared with its golden output.

The command for each example is the one its README shows. Regenerate the
golden files with ``CROSSFN_UPDATE_GOLDEN=1 pytest tests/examples``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from crossfn import cli

_ROOT = Path(__file__).resolve().parents[2]
_GOLDEN = Path(__file__).parent / "golden"
_UPDATE = os.environ.get("CROSSFN_UPDATE_GOLDEN") == "1"


def _args(example: str, *flags: str) -> list[str]:
    """The README's command for ``example``; ``examples/...`` paths are made absolute, as if run from the root."""
    d = f"examples/{example}"
    argv = ["render", f"{d}/xr.yaml", f"{d}/composition.yaml", f"{d}/functions.yaml", *flags]
    return [_absolute(a) for a in argv]


def _absolute(arg: str) -> str:
    key, sep, value = arg.rpartition("=")
    if value.startswith("examples/"):
        return f"{key}{sep}{_ROOT / value}"
    return arg


@pytest.mark.parametrize(
    ("name", "argv", "reason"),
    [
        pytest.param("xbucket", _args("xbucket"), "the README's first command: patch-and-transform in-process", id="XBucket"),
        pytest.param(
            "pipeline-observed",
            _args("pipeline-observed", "-o", "examples/pipeline-observed/observed.yaml", "-r"),
            "patch-and-transform then auto-ready, with observed resources", id="PipelineObserved",
        ),
        pytest.param(
            "required",
            _args("required", "-e", "examples/required/resources", "-s", "examples/required/schemas", "-r"),
            "bootstrap required resources and a required schema", id="Required",
        ),
        pytest.param(
            "context",
            _args(
                "context",
                "--context-files", "apiextensions.crossplane.io/environment=examples/context/environment.yaml",
                "--context-values", 'example.org/owner={"team": "platform", "oncall": true}',
                "-c",
            ),
            "context from a file and an inline value", id="Context",
        ),
        pytest.param(
            "python-sdk-process", _args("python-sdk-process", "-r"),
            "an official Python SDK function through the Process runtime", id="PythonSDKProcess",
        ),
    ],
)  # fmt: skip
def test_example(capsys: pytest.CaptureFixture[str], name: str, argv: list[str], reason: str) -> None:
    code = cli.main(argv)
    out, err = capsys.readouterr()
    assert code == 0, f"{reason}: {err}"
    golden = _GOLDEN / f"{name}.yaml"
    if _UPDATE:
        golden.write_text(out)
    assert out == golden.read_text(), (
        f"{reason}; regenerate with CROSSFN_UPDATE_GOLDEN=1 pytest tests/examples"
    )
