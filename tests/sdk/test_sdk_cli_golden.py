"""Golden files for what users read from the SDK's commands.

Regenerate with ``CROSSFN_UPDATE_GOLDEN=1 pytest tests/sdk/test_sdk_cli_golden.py``.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

_GOLDEN = pathlib.Path(__file__).parent / "golden"
_UPDATE = os.environ.get("CROSSFN_UPDATE_GOLDEN") == "1"
# argparse wraps help to the terminal width; help shows environment defaults, so clear them.
_ENV = {
    "COLUMNS": "100",
    "ADDRESS": "",
    "TLS_SERVER_CERTS_DIR": "",
    "MAX_RECV_MESSAGE_SIZE": "",
    "WORKERS": "",
    "CALL_TIMEOUT": "",
    "MAX_CALLS": "",
}


def _check(name: str, got: str, reason: str) -> None:
    path = _GOLDEN / name
    if _UPDATE:
        path.write_text(got)
    assert got == path.read_text(), (
        f"{reason}; regenerate with CROSSFN_UPDATE_GOLDEN=1 pytest tests/sdk/test_sdk_cli_golden.py"
    )


def _run(args: list[str], cwd: pathlib.Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "crossfn", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **_ENV},
        timeout=60,
    )


@pytest.mark.parametrize(
    ("reason", "args", "golden"),
    [
        pytest.param(
            "The serve flags are the official SDK's plus crossfn's, with their environment variables.",
            ["function", "serve", "--help"],
            "function_serve_help.txt",
            id="FunctionServeHelp",
        ),
        pytest.param(
            "How to start a function project.",
            ["init", "function", "--help"],
            "init_function_help.txt",
            id="InitHelp",
        ),
        pytest.param(
            "How to refresh a project's crossfn wheel.",
            ["init", "wheel", "--help"],
            "init_wheel_help.txt",
            id="InitWheelHelp",
        ),
        pytest.param(
            "init lists what it wrote and the next step.",
            ["init", "function", "function-greet"],
            "init_function_output.txt",
            id="InitOutput",
        ),
    ],
)
def test_cli_output(tmp_path: pathlib.Path, reason: str, args: list[str], golden: str) -> None:
    out = _run(args, tmp_path)
    assert out.returncode == 0, out.stderr
    _check(golden, out.stdout, reason)
