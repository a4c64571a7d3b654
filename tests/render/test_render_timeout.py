"""``render --timeout`` holds for in-process functions too: a function that never returns cannot block it.

In-process functions (crossfn's built-ins included) once ran on render's own
event loop, so a runaway one ignored ``--timeout`` (and a CompositionTest's
``timeoutSeconds``) and ran for hours.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_render_cli import _COMP, _FNS, _XR

from crossfn import cli

_MODULE = "crossfn_render_runaway"


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    (tmp_path / "xr.yaml").write_text(_XR)
    (tmp_path / "composition.yaml").write_text(_COMP)
    (tmp_path / f"{_MODULE}.py").write_text(
        (Path(__file__).parent / "testdata" / f"{_MODULE}.py").read_text()
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    if _MODULE in sys.modules:
        sys.modules[_MODULE].RELEASE.clear()
    yield tmp_path
    module = sys.modules.get(_MODULE)
    if module is not None:
        module.RELEASE.set()


@pytest.mark.parametrize(
    ("function", "reason"),
    [
        pytest.param("runaway", "a sync function looping in Python is interrupted", id="Runaway"),
        pytest.param("stuck", "a sync function stuck in one C call is abandoned", id="Stuck"),
        pytest.param(
            "blocking", "an async function that never awaits cannot block the timeout", id="AsyncBlocking"
        ),
    ],
)
def test_timeout_stops_in_process_function(
    capsys: pytest.CaptureFixture[str], files: Path, function: str, reason: str
) -> None:
    (files / "functions.yaml").write_text(
        _FNS.replace("crossfn_render_testfns:success", f"{_MODULE}:{function}")
    )
    # None of these functions ever returns by itself, so a render that returns was ended by its deadline
    # (the error says so); one that never does fails on pytest's timeout. No wall-clock bound: it would
    # only measure the machine's load.
    code = cli.main(
        ["render", str(files / "xr.yaml"), str(files / "composition.yaml"), str(files / "functions.yaml"),
         "--timeout", "500ms"]
    )  # fmt: skip
    out, err = capsys.readouterr()
    assert (code, out, err) == (
        1,
        "",
        "crossfn: error: cannot render composite resource: context deadline exceeded\n",
    ), reason
