"""The Docker runtime's flow (pull, run, port, wait, cleanup) against a stand-in ``docker`` CLI.

No Docker engine is available to the suite, so a small executable plays the
``docker`` CLI: ``run`` starts the Python SDK example function as a local
process on a free port and prints a container id, ``port`` prints where it
listens, ``rm``/``stop`` end it. Every invocation is logged, so the test sees
exactly which docker commands render issued for each annotation.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

from crossfn import engine
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.render import _runtimes

_EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "python-sdk-process"

_FAKE_DOCKER = """#!{python}
import json, os, signal, socket, subprocess, sys
state, log = {state!r}, {log!r}
args = sys.argv[1:]
with open(log, "a") as f:
    f.write(json.dumps(args) + "\\n")
db = json.load(open(state)) if os.path.exists(state) else {{}}
if args[0] == "run":
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([{python!r}, "function.py", "--insecure", f"--address=127.0.0.1:{{port}}"],
                            cwd={example!r}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    cid = args[args.index("--name") + 1] if "--name" in args else f"c{{proc.pid}}"
    db[cid] = {{"pid": proc.pid, "port": port}}
    print(cid)
elif args[0] == "port":
    print(f"127.0.0.1:{{db[args[1]]['port']}}")
elif args[0] == "inspect":
    if args[-1] not in db:
        sys.exit("Error: No such object: " + args[-1])
    print("true")
elif args[0] in ("rm", "stop"):
    os.kill(db[args[-1]]["pid"], signal.SIGTERM)
json.dump(db, open(state, "w"))
"""


@pytest.fixture
def fake_docker(tmp_path: Path) -> tuple[Path, Path]:
    log = tmp_path / "docker.log"
    script = tmp_path / "docker"
    script.write_text(
        _FAKE_DOCKER.format(
            python=sys.executable, state=str(tmp_path / "state.json"), log=str(log), example=str(_EXAMPLE)
        )
    )
    script.chmod(0o755)
    return script, log


def _function(annotations: dict[str, str]) -> dict[str, object]:
    return {
        "metadata": {"name": "function-greet", "annotations": annotations},
        "spec": {"package": "example/greet:v1"},
    }


@pytest.mark.peer
@pytest.mark.parametrize(
    ("annotations", "want", "reason"),
    [
        pytest.param(
            {}, (["run", "-d", "-p", "127.0.0.1::9443/tcp", "--pull=missing", "example/greet:v1", "--insecure"],
            ["rm", "-f"]), "defaults: IfNotPresent pull, published on 127.0.0.1, removed afterwards", id="Defaults",
        ),
        pytest.param(
            {"render.crossplane.io/runtime-docker-cleanup": "Stop",
             "render.crossplane.io/runtime-docker-pull-policy": "Always",
             "render.crossplane.io/runtime-docker-name": "greet",
             "render.crossplane.io/runtime-docker-env": "A=1,B=2",
             "render.crossplane.io/runtime-docker-image": "example/other:v2"},
            (["run", "-d", "-p", "127.0.0.1::9443/tcp", "--pull=never", "--name", "greet", "-e", "A=1", "-e", "B=2",
             "example/other:v2", "--insecure"],
            ["stop", "-t", "5"]), "Always pulls first; Stop stops without removing", id="AllSet",
        ),
    ],
)  # fmt: skip
async def test_docker_runtime(
    tmp_path: Path,
    fake_docker: tuple[Path, Path],
    annotations: dict[str, str],
    want: tuple[list[str], list[str]],
    reason: str,
) -> None:
    """``want`` is the ``docker run`` argv and the start of the cleanup command."""
    want_run, want_cleanup = want
    script, log = fake_docker
    runtimes = _runtimes.plan([_function(annotations)])
    started = _runtimes.Started(runtimes, cwd=tmp_path, docker=str(script), docker_reachable=lambda: True)
    loop = asyncio.get_running_loop()
    try:
        await started.start(loop.time() + 30)
        runner = engine.GrpcRunner(started.targets)
        try:
            xr: dict[str, Any] = {
                "apiVersion": "example.crossplane.io/v1",
                "kind": "XGreeting",
                "metadata": {"name": "x"},
                "spec": {},
            }
            req = fnv1.RunFunctionRequest()
            req.observed.composite.resource.update(xr)
            rsp = await runner.run_function("function-greet", req)
        finally:
            await runner.aclose()
    finally:
        await started.stop()
    assert "greeting" in rsp.desired.resources, "the function in the 'container' answered"
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    runs = [c for c in calls if c[0] == "run"]
    assert runs == [want_run], reason
    if annotations.get("render.crossplane.io/runtime-docker-pull-policy") == "Always":
        assert calls[calls.index(want_run) - 1] == ["pull", "example/other:v2"], (
            "Always pulls right before run"
        )
    cleanup = [c for c in calls if c[0] in ("rm", "stop")]
    assert len(cleanup) == 1 and cleanup[0][: len(want_cleanup)] == want_cleanup, reason
    if "render.crossplane.io/runtime-docker-name" in annotations:
        assert calls[0][0] == "inspect", "a named container is looked up first, to be reused"


async def test_docker_reuses_a_named_container(tmp_path: Path, fake_docker: tuple[Path, Path]) -> None:
    """An existing container with the annotated name is reused, not run again (Orphan keeps it for the next render)."""
    script, log = fake_docker
    fn = _function({"render.crossplane.io/runtime-docker-name": "greet",
                    "render.crossplane.io/runtime-docker-cleanup": "Orphan"})  # fmt: skip
    loop = asyncio.get_running_loop()
    targets = []
    for _ in range(2):
        started = _runtimes.Started(
            _runtimes.plan([fn]), cwd=tmp_path, docker=str(script), docker_reachable=lambda: True
        )
        await started.start(loop.time() + 30)
        targets.append(started.targets["function-greet"])
        await started.stop()
    calls = [json.loads(line)[0] for line in log.read_text().splitlines()]
    assert calls.count("run") == 1, "the second render found the container by name"
    assert targets[0] == targets[1]
    for c in json.loads((tmp_path / "state.json").read_text()).values():
        os.kill(c["pid"], signal.SIGTERM)


async def test_docker_orphan_leaves_the_container(tmp_path: Path, fake_docker: tuple[Path, Path]) -> None:
    script, log = fake_docker
    runtimes = _runtimes.plan([_function({"render.crossplane.io/runtime-docker-cleanup": "Orphan"})])
    started = _runtimes.Started(runtimes, cwd=tmp_path, docker=str(script), docker_reachable=lambda: True)
    loop = asyncio.get_running_loop()
    await started.start(loop.time() + 30)
    await started.stop()
    calls = [json.loads(line)[0] for line in log.read_text().splitlines()]
    assert "rm" not in calls and "stop" not in calls, "Orphan leaves the container running"
    state = json.loads((tmp_path / "state.json").read_text())
    for c in state.values():  # clean up what the test started
        os.kill(c["pid"], signal.SIGTERM)
