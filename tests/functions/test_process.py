"""A function server in a child process (``crossfn.functions.process``): its command line, waiting, stopping."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import pytest

from crossfn import errors
from crossfn.functions import process


@pytest.mark.parametrize(
    ("command", "want", "reason"),
    [
        pytest.param(
            ("node", "f.mjs"),
            ["node", "f.mjs", "--insecure", "--address=127.0.0.1:7000"],
            "flags appended",
            id="Append",
        ),
        pytest.param(
            ("srv", "-l", "{address}"),
            ["srv", "-l", "127.0.0.1:7000"],
            "placeholders replace the flags",
            id="Placeholder",
        ),
        pytest.param(
            ("srv", "--port={port}"),
            ["srv", "--port=7000"],
            "the port alone",
            id="Port",
        ),
        pytest.param(
            ("{python}", "-m", "fn"),
            [sys.executable, "-m", "fn", "--insecure", "--address=127.0.0.1:7000"],
            "{python} is this interpreter",
            id="Python",
        ),
    ],
)
def test_argv_for(command: tuple[str, ...], want: list[str], reason: str) -> None:
    assert process.argv_for(command, 7000) == want, reason


async def test_exit_before_serving_names_the_status(tmp_path: Path) -> None:
    """A server that exits before it serves ends the wait at once, with its exit status."""
    server = await process.ServerProcess.start(
        ("{python}", "-c", "import sys; sys.exit(3)", "{port}"), output=os.open(os.devnull, os.O_WRONLY)
    )
    deadline = asyncio.get_running_loop().time() + 30
    with pytest.raises(errors.FunctionRunError) as info:
        await server.wait_serving(deadline, "fn")
    assert str(info.value) == "fn exited with status 3 before serving"
    await server.stop()


def _running(pid: int) -> bool:
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has stopped
    except OSError:
        return False


async def test_stop_stops_the_whole_group(tmp_path: Path) -> None:
    """A server that forks (``sh -c``) is stopped with what it started; one that ignores SIGTERM is killed."""
    pid_file = tmp_path / "pid"
    child = (
        "import os, signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
        f"open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(600)"
    )
    command = ("sh", "-c", f'"$0" -c "{child}"; true', "{python}", "{port}")
    server = await process.ServerProcess.start(command, output=os.open(os.devnull, os.O_WRONLY))
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30
    while not pid_file.exists() or not pid_file.read_text():
        assert loop.time() < deadline, "the forked child did not start"
        await asyncio.sleep(0.02)
    pid = int(pid_file.read_text())
    await server.stop(grace=0.2)
    running = _running(pid)
    while running and loop.time() < deadline:  # SIGKILL is sent; its delivery is the kernel's
        await asyncio.sleep(0.02)
        running = _running(pid)
    if running:
        os.kill(pid, signal.SIGKILL)
    assert not running, "the forked child outlived stop()"
    assert not server.running
