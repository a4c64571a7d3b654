"""Functions nobody here wrote, run in a render: the official Python and TypeScript SDKs.

Each runs in its own process through the ``Process`` runtime (crossfn starts
it on a free port, waits for it to serve, calls it, stops it), and the
Python one also through ``Development`` (already running, found by target).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from crossfn import errors, render

_ROOT = Path(__file__).resolve().parents[2]
_PY_EXAMPLE = _ROOT / "examples" / "python-sdk-process"
_TS_PEER = _ROOT / "tests" / "peers" / "typescript"

pytestmark = pytest.mark.peer

_COMPOSITION = """apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: xgreetings.example.crossplane.io
spec:
  compositeTypeRef:
    apiVersion: example.crossplane.io/v1
    kind: XGreeting
  mode: Pipeline
  pipeline:
  - step: greet
    functionRef:
      name: function-greet
"""


def _composition(tmp: Path) -> Path:
    path = tmp / "composition.yaml"
    path.write_text(_COMPOSITION)
    return path


def _greeting(docs: list[dict[str, object]]) -> tuple[str, list[str]]:
    composed = docs[1]
    assert isinstance(composed, dict)
    results = [str(d["message"]) for d in docs if d.get("kind") == "Result"]
    return str(composed["data"]["greeting"]), results  # type: ignore[index]


def test_python_sdk_function_as_process(tmp_path: Path) -> None:
    lines: list[str] = []
    req = render.Request(
        composite_resource=_PY_EXAMPLE / "xr.yaml",
        composition=_composition(tmp_path),
        functions=_PY_EXAMPLE / "functions.yaml",
        include_function_results=True,
    )
    greeting, results = _greeting(render.render(req, report=lines.append, output=render.CLASSIC))
    assert greeting == "Hello from the Python SDK"
    assert results == ["said 'Hello from the Python SDK'"]
    assert any("runtime Process" in line for line in lines), "--verbose names the runtime"


@pytest.mark.skipif(
    not (_TS_PEER / "node_modules").is_dir(), reason="run `npm ci` in tests/peers/typescript first"
)
@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_typescript_sdk_function_as_process(tmp_path: Path) -> None:
    req = render.Request(
        composite_resource=_PY_EXAMPLE / "xr.yaml",
        composition=_composition(tmp_path),
        functions=_TS_PEER / "functions.yaml",
        include_function_results=True,
    )
    greeting, results = _greeting(render.render(req, output=render.CLASSIC))
    assert greeting == "Hello from the Python SDK", "the XR's greeting, composed by the TypeScript function"
    assert results == ['said "Hello from the Python SDK"']


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_listening(port: int, proc: subprocess.Popen[bytes]) -> None:
    """Return once 127.0.0.1:``port`` accepts connections; fail if ``proc`` exits first."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the function exited before it listened"
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise AssertionError(f"the function did not listen on {port} within 120 s")


def test_python_sdk_function_in_development(tmp_path: Path) -> None:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "function.py", "--insecure", f"--address=127.0.0.1:{port}"],
        cwd=_PY_EXAMPLE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        # A Development target is already running, as a user starts it before rendering; one that
        # is not listening fails the step within seconds (tests/cli/test_cli_surface.py).
        _wait_listening(port, proc)
        (tmp_path / "fns.yaml").write_text(
            "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata:\n  name: function-greet\n  annotations:\n"
            "    render.crossplane.io/runtime: Development\n"
            f"    render.crossplane.io/runtime-development-target: 127.0.0.1:{port}\n"
            "spec:\n  package: example/function-greet:v1\n"
        )
        req = render.Request(
            composite_resource=_PY_EXAMPLE / "xr.yaml",
            composition=_composition(tmp_path),
            functions=tmp_path / "fns.yaml",
            timeout=20,
        )
        greeting, _ = _greeting(render.render(req, output=render.CLASSIC))  # the render's timeout bounds it
        assert greeting == "Hello from the Python SDK"
    finally:
        proc.terminate()
        proc.wait(10)


def test_process_that_exits_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "fns.yaml").write_text(
        "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata:\n  name: function-greet\n  annotations:\n"
        "    render.crossplane.io/runtime: Process\n"
        '    render.crossfn.io/runtime-process-command: "{python} -c \'raise SystemExit(\\"no port for me\\")\'"\n'
        "spec:\n  package: example/function-greet:v1\n"
    )
    req = render.Request(
        composite_resource=_PY_EXAMPLE / "xr.yaml",
        composition=_composition(tmp_path),
        functions=tmp_path / "fns.yaml",
    )
    with pytest.raises(errors.FunctionRunError) as info:
        render.render(req, output=render.CLASSIC)
    assert 'cannot start Function "function-greet" (Process ' in str(info.value)
    assert str(info.value).endswith("exited with status 1 before serving: no port for me"), (
        "the log's last line"
    )


def test_docker_without_engine_names_the_alternatives(tmp_path: Path) -> None:
    """No Docker engine on this machine: a Function that would need one fails with the ways around it."""
    (tmp_path / "fns.yaml").write_text(
        "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata:\n  name: function-greet\n"
        "spec:\n  package: xpkg.crossplane.io/example/function-greet:v1\n"
    )
    req = render.Request(
        composite_resource=_PY_EXAMPLE / "xr.yaml",
        composition=_composition(tmp_path),
        functions=tmp_path / "fns.yaml",
    )
    if shutil.which("docker") and (Path("/var/run/docker.sock").exists() or os.environ.get("DOCKER_HOST")):
        pytest.skip("a Docker engine is reachable here")
    with pytest.raises(errors.InputError) as info:
        render.render(req, output=render.CLASSIC)
    text = str(info.value)
    assert (
        'cannot start Function "function-greet" (Docker image "xpkg.crossplane.io/example/function-greet:v1")'
        in text
    )
    for alternative in ("InProcess", "Process", "Development"):
        assert alternative in text
