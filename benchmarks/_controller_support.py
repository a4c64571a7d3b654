"""What ``benchmarks/controller.py`` composes, and how it starts and reads the controller process.

The objects (an XRD, a Composition of 10 ConfigMaps through patch-and-transform
and auto-ready, the two Functions, the XRs) and the ``/proc`` readings (CPU,
run-queue wait, RSS of one process; the envtest processes this one started)
live here so that the benchmark itself reads as its steps.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Any

COMPOSED_PER_XR = 10
GROUP = "bench.crossfn.io"
XR_API = f"{GROUP}/v1"
XR_KIND = "XBench"
XR_PLURAL = "xbenches"
COMPOSITION = "xbench"
PAT_PACKAGE = "xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform:v0.10.8"
AUTO_READY_PACKAGE = "xpkg.crossplane.io/crossplane-contrib/function-auto-ready:v0.7.0"
TICK = os.sysconf("SC_CLK_TCK")
TTL = 60.0
"""The pipeline's TTL: both built-in functions answer with the SDK's default, 60 s. With realtime
compositions Crossplane requeues every XR after it (±10 %), so N settled XRs are reconciled about
N / 60 times a second even when nothing changes (upstream core-2.17)."""


# -- what the controller composes ------------------------------------------------------------------


def xrd() -> dict[str, Any]:
    spec_props = {"region": {"type": "string"}, "size": {"type": "integer"}, "tier": {"type": "string"}}
    return {
        "apiVersion": "apiextensions.crossplane.io/v2",
        "kind": "CompositeResourceDefinition",
        "metadata": {"name": f"{XR_PLURAL}.{GROUP}"},
        "spec": {
            "group": GROUP,
            "names": {"kind": XR_KIND, "plural": XR_PLURAL},
            "scope": "Namespaced",
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "referenceable": True,
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "properties": {"spec": {"type": "object", "properties": spec_props}},
                        }
                    },
                }
            ],
        },
    }


def _resource(i: int) -> dict[str, Any]:
    """One composed ConfigMap with the patch mix of ``benchmarks/patch_and_transform.py``."""
    return {
        "name": f"config-{i}",
        "base": {"apiVersion": "v1", "kind": "ConfigMap", "data": {"index": str(i)}},
        "patches": [
            {"fromFieldPath": "spec.region", "toFieldPath": "data.region"},
            {
                "fromFieldPath": "spec.region",
                "toFieldPath": "data.zone",
                "transforms": [
                    {"type": "map", "map": {"eu-north-1": "eu-north-1a", "us-east-2": "us-east-2b"}}
                ],
            },
            {
                "fromFieldPath": "spec.size",
                "toFieldPath": "data.sizeMiB",
                "transforms": [
                    {"type": "math", "math": {"type": "Multiply", "multiply": 1024}},
                    {"type": "convert", "convert": {"toType": "string"}},
                ],
            },
            {
                "fromFieldPath": "spec.tier",
                "toFieldPath": "data.tier",
                "transforms": [{"type": "string", "string": {"type": "Format", "fmt": "tier-%s"}}],
            },
            {
                "type": "CombineFromComposite",
                "combine": {
                    "variables": [{"fromFieldPath": "spec.region"}, {"fromFieldPath": "spec.tier"}],
                    "strategy": "string",
                    "string": {"fmt": "%s/%s"},
                },
                "toFieldPath": "data.placement",
            },
        ],
    }


def composition() -> dict[str, Any]:
    pat = {
        "apiVersion": "pt.fn.crossplane.io/v1beta1",
        "kind": "Resources",
        "resources": [_resource(i) for i in range(COMPOSED_PER_XR)],
    }
    return {
        "apiVersion": "apiextensions.crossplane.io/v1",
        "kind": "Composition",
        "metadata": {"name": COMPOSITION},
        "spec": {
            "compositeTypeRef": {"apiVersion": XR_API, "kind": XR_KIND},
            "mode": "Pipeline",
            "pipeline": [
                {
                    "step": "patch-and-transform",
                    "functionRef": {"name": "function-patch-and-transform"},
                    "input": pat,
                },
                {"step": "auto-ready", "functionRef": {"name": "function-auto-ready"}},
            ],
        },
    }


def functions() -> list[dict[str, Any]]:
    return [
        {
            "apiVersion": "pkg.crossplane.io/v1",
            "kind": "Function",
            "metadata": {"name": name},
            "spec": {"package": pkg},
        }
        for name, pkg in (
            ("function-patch-and-transform", PAT_PACKAGE),
            ("function-auto-ready", AUTO_READY_PACKAGE),
        )
    ]


def xr(i: int, namespace: str) -> dict[str, Any]:
    return {
        "apiVersion": XR_API,
        "kind": XR_KIND,
        "metadata": {"name": f"xr-{i}", "namespace": namespace},
        "spec": {
            "region": "eu-north-1" if i % 2 else "us-east-2",
            "size": i % 7 + 1,
            "tier": "gold" if i % 3 else "silver",
            "crossplane": {"compositionRef": {"name": COMPOSITION}},
        },
    }


def is_ready(obj: Mapping[str, Any]) -> bool:
    conditions = (obj.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


# -- processes -------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    """User + system CPU of ``pid`` (its threads included), from ``/proc/<pid>/stat``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def cpu_wait_seconds(pid: int) -> float:
    """Time ``pid``'s threads were runnable but waiting for a CPU (``/proc/<pid>/schedstat``), summed."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            total += int((task / "schedstat").read_text().split()[1])
    return total / 1e9


def memory_mb(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) of ``pid`` in MB: resident now and at its peak."""
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            values[key] = int(rest.split()[0]) / 1024
    return values["VmRSS"], values["VmHWM"]


def children(name: str) -> list[int]:
    """Pids of this process's descendants whose command is ``name`` (envtest's etcd, kube-apiserver)."""
    parents: dict[int, int] = {}
    names: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            text = (entry / "stat").read_text()
            head, _, tail = text.rpartition(")")
            names[int(entry.name)] = head.split("(", 1)[1]
            parents[int(entry.name)] = int(tail.split()[1])

    def descends(pid: int) -> bool:
        while pid > 1:
            pid = parents.get(pid, 0)
            if pid == os.getpid():
                return True
        return False

    return [pid for pid, n in names.items() if n == name and descends(pid)]


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def controller_argv(
    kubeconfig: str, *, workers: int, metrics: int, health: int, leader_election: bool
) -> list[str]:
    """``crossfn controller run``'s arguments for a benchmark: every port its own, webhooks off.

    The benchmark creates no Usages, and the usage webhook would bind :9443, so
    two benchmarks on one machine would clash (and its registration would point
    the API server at a Service no envtest has).
    """
    return [
        "controller", "run", "--kubeconfig", kubeconfig, "--insecure-functions",
        "--max-concurrent-reconciles", str(workers),
        "--metrics-address", f"127.0.0.1:{metrics}", "--health-address", f"127.0.0.1:{health}",
        "--no-enable-webhooks",
        *(["--leader-election"] if leader_election else []),
    ]  # fmt: skip


class ControllerProcess:
    """``crossfn controller run`` in its own process, optionally under a profiler."""

    def __init__(
        self,
        kubeconfig: str,
        *,
        workers: int,
        log: Path,
        profile: Path | None,
        py_spy: str,
        launcher: str | None,
        leader_election: bool = False,
    ) -> None:
        self.health = free_port()
        self.metrics = free_port()
        argv = controller_argv(
            kubeconfig,
            workers=workers,
            metrics=self.metrics,
            health=self.health,
            leader_election=leader_election,
        )
        main = [launcher] if launcher else ["-m", "crossfn"]
        command = [sys.executable, *main, *argv]
        if profile is not None and profile.suffix == ".prof":
            command = [sys.executable, "-m", "cProfile", "-o", str(profile), *main, *argv]
        self._log = log.open("ab")
        self.popen = subprocess.Popen(
            command, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
        )
        self.pid = self.popen.pid
        self._spy: subprocess.Popen[bytes] | None = None
        if profile is not None and profile.suffix != ".prof":
            spy = [
                py_spy,
                "record",
                "--pid",
                str(self.pid),
                "--rate",
                "100",
                "--nonblocking",
                "-o",
                str(profile),
            ]
            spy += [
                "--format",
                {".txt": "raw", ".speedscope": "speedscope"}.get(profile.suffix, "flamegraph"),
            ]
            self._spy = subprocess.Popen(spy, stdout=self._log, stderr=subprocess.STDOUT)

    def _get(self, port: int, path: str) -> str:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=60) as r:
            return str(r.read().decode())

    async def wait_ready(self, timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            if self.popen.poll() is not None:
                raise SystemExit(f"the controller exited with status {self.popen.returncode}; see its log")
            with contextlib.suppress(OSError):
                self._get(self.health, "/readyz")
                return
            if time.monotonic() > deadline:
                raise SystemExit("the controller did not become ready")
            await asyncio.sleep(0.2)

    async def quiet(self, *, xrs: int = 0, settle: float = 2.0) -> None:
        """Wait until the reconciles come down to the TTL requeues of ``xrs`` settled XRs for ``settle`` s.

        Settled XRs are still reconciled once a :data:`TTL`, so "quiet" allows that rate
        (with room for its jitter) over each ``settle``-second window; nothing else may move.
        """
        allowance = xrs * settle / TTL * 1.5 + (3 if xrs else 0)
        last = sum(self.reconciles().values())
        while True:
            await asyncio.sleep(settle)
            now = sum(self.reconciles().values())
            if now - last <= allowance:
                return
            last = now

    def reconciles(self) -> dict[str, float]:
        """``controller_runtime_reconcile_total`` summed per controller."""
        out: dict[str, float] = {}
        pattern = re.compile(
            r'^controller_runtime_reconcile_total\{controller="([^"]*)",result="[^"]*"\} (\S+)$'
        )
        for line in self._get(self.metrics, "/metrics").splitlines():
            m = pattern.match(line)
            if m:
                out[m[1]] = out.get(m[1], 0.0) + float(m[2])
        return out

    def stop(self) -> None:
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
            try:
                self.popen.wait(60)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()
        if self._spy is not None:
            try:
                self._spy.wait(60)
            except subprocess.TimeoutExpired:
                self._spy.kill()
                self._spy.wait()
        self._log.close()
