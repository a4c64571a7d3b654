"""Hostile KCL: every runaway program ends in one Fatal line, its worker process is replaced, and others go on."""

from __future__ import annotations

import asyncio
import datetime
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from kcl_support import request, results, run

from crossfn.functions import kcl

RUN = "failed to run kcl function pipelines: "
ENDLESS = "f = lambda n: int -> int { 0 if n == 0 else f(n - 1) + f(n - 1) }\na = f(60)"
"""A program that computes for ever (2**60 calls) in constant memory: KCL has no loop that never ends."""


@pytest.fixture(scope="module")
def tight() -> Iterator[kcl.Kcl]:
    """One worker with a 3 s time limit, 256 MiB of address space and 64 KiB of output."""
    limits = kcl.Limits(
        timeout=datetime.timedelta(seconds=3), memory_limit=256 << 20, max_output=64 << 10, workers=1
    )
    yield kcl.Kcl(limits=limits)
    limits.close()


@pytest.fixture(scope="module")
def deep() -> Iterator[kcl.Kcl]:
    """``tight`` with a 60 s time limit: a stack overflow takes seconds to reach on a loaded machine."""
    limits = kcl.Limits(
        timeout=datetime.timedelta(seconds=60), memory_limit=256 << 20, max_output=64 << 10, workers=1
    )
    yield kcl.Kcl(limits=limits)
    limits.close()


@pytest.fixture(scope="module")
def pools(tight: kcl.Kcl, deep: kcl.Kcl) -> dict[str, kcl.Kcl]:
    return {"tight": tight, "deep": deep}


@pytest.mark.parametrize(
    ("pool", "source", "want"),
    [
        pytest.param("tight", ENDLESS, "the KCL program exceeded its time limit of 3s and was stopped",
                     id="EndlessLoop"),
        pytest.param("deep", "f = lambda n: int -> int { f(n + 1) }\na = f(1)",
                     "the KCL program crashed the KCL runtime with a stack overflow (unbounded recursion?)",
                     id="UnboundedRecursion"),
        pytest.param("tight", 'a = "x" * 2000000000', "the KCL program exceeded its memory limit of 256 MiB",
                     id="HugeString"),
        pytest.param("tight",
                     'items = [{apiVersion: "v1", kind: "A", metadata.name = "n{}".format(i), data.x = "y" * 100} '
                     "for i in range(2000)]",
                     "the KCL program's output is 368901 bytes, more than the limit of 65536 bytes", id="HugeOutput"),
    ],
)  # fmt: skip
def test_hostile_program_is_one_fatal_line(
    pools: dict[str, kcl.Kcl], pool: str, source: str, want: str
) -> None:
    tight = pools[pool]
    rsp = run(tight, request(source, xr={"apiVersion": "v1", "kind": "X"}))
    [(severity, message)] = results(rsp)
    assert severity == "SEVERITY_FATAL"
    assert message.startswith(RUN + want), message
    assert "\n" not in message
    # The next program runs in a fresh worker.
    ok = run(
        tight,
        request(
            'items = [{apiVersion: "v1", kind: "A", metadata.name = "n"}]',
            xr={"apiVersion": "v1", "kind": "X"},
        ),
    )
    assert results(ok) == []
    assert list(ok.desired.resources) == ["n"]


def test_cancelled_call_kills_its_worker(tight: kcl.Kcl) -> None:
    """A caller that gives up (render's --timeout) takes its program down with it; the pool goes on."""
    req = request(ENDLESS, xr={"apiVersion": "v1", "kind": "X"})

    async def give_up() -> None:
        from crossfn.sdk import response

        with pytest.raises(TimeoutError):
            await asyncio.wait_for(tight(req, response.to(req)), 0.2)

    asyncio.run(give_up())
    ok = run(
        tight,
        request(
            'items = [{apiVersion: "v1", kind: "A", metadata.name = "n"}]',
            xr={"apiVersion": "v1", "kind": "X"},
        ),
    )
    assert results(ok) == []


def test_render_timeout_ends_a_runaway_program_in_one_line(tmp_path: Path) -> None:
    """``crossfn render --timeout`` stops a program that would run for ever: one error line, exit status 1."""
    (tmp_path / "xr.yaml").write_text(
        yaml.safe_dump({"apiVersion": "example.org/v1", "kind": "XR", "metadata": {"name": "x"}})
    )
    (tmp_path / "fns.yaml").write_text(
        yaml.safe_dump(
            {
                "apiVersion": "pkg.crossplane.io/v1",
                "kind": "Function",
                "metadata": {"name": "kcl"},
                "spec": {"package": "xpkg.upbound.io/crossplane-contrib/function-kcl:v0.12.2"},
            }
        )
    )
    (tmp_path / "comp.yaml").write_text(yaml.safe_dump({
        "apiVersion": "apiextensions.crossplane.io/v1", "kind": "Composition", "metadata": {"name": "c"},
        "spec": {"compositeTypeRef": {"apiVersion": "example.org/v1", "kind": "XR"}, "mode": "Pipeline", "pipeline": [{
            "step": "s", "functionRef": {"name": "kcl"},
            "input": {"apiVersion": "krm.kcl.dev/v1alpha1", "kind": "KCLInput",
                      "spec": {"source": ENDLESS}}}]}}))  # fmt: skip
    proc = subprocess.run(
        [sys.executable, "-m", "crossfn", "render", "--timeout", "2s", "xr.yaml", "comp.yaml", "fns.yaml"],
        cwd=tmp_path, capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip
    assert (proc.returncode, proc.stdout) == (1, "")
    lines = [line for line in proc.stderr.splitlines() if not line.startswith("crossfn: note:")]
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("crossfn: error:") and "deadline exceeded" in lines[0], lines
