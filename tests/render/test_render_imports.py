"""Start-up hygiene of ``crossfn render``: an all in-process render loads no transport, metrics or schema stack.

The README's XBucket render must start fast (docs/performance.md, render
section), and nearly all of its time is imports. These cases run a fresh
interpreter each (this test process has long since imported everything) and
list which heavy libraries it loaded: grpc (only Functions served over gRPC
need it), prometheus_client (only real metrics), pydantic and jsonschema
(validation and settings, never render), OpenTelemetry (only a process that
traces). asyncio, PyYAML and re2 do load, and must: the engine is async,
inputs are YAML, and patch-and-transform's regexp transforms use re2.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

_ROOT = Path(__file__).resolve().parents[2]
_XBUCKET = [
    str(_ROOT / "examples" / "xbucket" / f) for f in ("xr.yaml", "composition.yaml", "functions.yaml")
]
_HEAVY = ("grpc", "prometheus_client", "pydantic", "jsonschema", "opentelemetry")

_RENDER_XBUCKET = f"""
import contextlib, io
from crossfn import cli
with contextlib.redirect_stdout(io.StringIO()) as out:
    code = cli.main(["render", *{_XBUCKET!r}])
assert code == 0 and "kind: Bucket" in out.getvalue(), (code, out.getvalue())
"""


def _loaded_after(code: str) -> list[str]:
    """Which of :data:`_HEAVY` a fresh interpreter has loaded after running ``code``."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(m for m in {_HEAVY!r} if m in sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=_ROOT)
    loaded: list[str] = json.loads(out.stdout.splitlines()[-1])
    return loaded


@pytest.mark.parametrize(
    ("code", "reason"),
    [
        pytest.param(
            "import crossfn.cli.render, crossfn.render, crossfn.engine",
            "importing the render command, the render package and the engine loads none of them",
            id="ImportRenderStack",
        ),
        pytest.param(
            _RENDER_XBUCKET,
            "rendering XBucket (built-in patch-and-transform, in-process) end to end loads none of them",
            id="RenderXBucketInProcess",
        ),
    ],
)
def test_render_loads_no_heavy_library(code: str, reason: str) -> None:
    assert _loaded_after(code) == [], reason


def test_grpc_loads_for_a_served_function() -> None:
    # The counter-case: without it, a probe that never saw grpc would pass the tests above.
    code = "from crossfn import engine\nengine.GrpcRunner({'fn': '127.0.0.1:1'})"
    assert _loaded_after(code) == ["grpc"], "a gRPC runtime loads grpc, so the probe can see it"
