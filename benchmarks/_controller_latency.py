"""Reconcile latency: from an XR's spec change to its composed resources showing the patched value.

Once N XRs are Ready (``benchmarks/controller.py``'s window, or this module's
own run), each XR's ``spec.tier`` is changed with a JSON merge patch; the
Composition patches it into ``data.tier`` of all 10 composed ConfigMaps
(``tier-%s``). Two informers (the XR kind and ConfigMaps, one namespace) see
both ends through watches, not polling:

- the change counts from the earlier of the patch's response and the XR
  watch event carrying the new value (both come after the API server stored it);
- the XR is updated when the last of its 10 ConfigMaps (label
  ``crossplane.io/composite``) carries ``tier-<new value>``; the first one is
  noted too, since the controller applies them in one reconcile.

A round changes every XR once, either all at once (``--rate 0``: the client's
request cap is the only pacing) or at a steady rate (``--rate 20``: 20 changes
per second). Reported per round: p50, p90, p99 and max of change -> all
composed updated (and p50 to the first one), how many XRs did not arrive within
``--timeout`` seconds of their change, how long sending took, the controller's
reconciles and CPU until it went quiet again (the realtime echoes of its own
writes included), and the load average during the round (the machine is shared).
Realtime compositions are on, as ``crossfn controller run`` defaults them.

    KUBEBUILDER_ASSETS=/work/envtest-bin python benchmarks/_controller_latency.py --xrs 500
        [--rate 0 20 5] [--timeout 120] [--workers 100]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import dataclasses
import math
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import _provenance
from _controller_support import (
    COMPOSED_PER_XR,
    GROUP,
    XR_API,
    XR_KIND,
    XR_PLURAL,
    ControllerProcess,
    cpu_seconds,
    loadavg,
)

from crossfn.controller import envtest as envtest_module
from crossfn.controller.kube import _api, _kube
from crossfn.controller.runtime import _informer

LABEL_COMPOSITE = "crossplane.io/composite"
XR_CONTROLLER = f"composite/{XR_PLURAL}.{GROUP}"
TIMEOUT = 120.0
RATES = (0.0, 20.0, 5.0)


@dataclasses.dataclass(frozen=True)
class Latency:
    """One round: every XR changed once at ``rate`` per second (0: all at once)."""

    xrs: int
    rate: float
    timeout: float
    seconds: tuple[float, ...]
    """Sorted, per XR that arrived in time: change -> all its composed resources updated."""
    first: tuple[float, ...]
    """Sorted, per XR that arrived in time: change -> its first composed resource updated."""
    sending: float
    load: str
    reconciles: float | None = None
    xr_reconciles: float | None = None
    controller_cpu: float | None = None

    @property
    def missing(self) -> int:
        return self.xrs - len(self.seconds)

    def line(self) -> str:
        pace = "all at once" if not self.rate else f"{self.rate:g}/s"
        head = f"N={self.xrs} spec change -> composed updated, {pace} (sent in {self.sending:.1f} s):"
        if not self.seconds:
            return f"{head} none within {self.timeout:g} s; load {self.load}"
        cost = ""
        if self.reconciles is not None and self.controller_cpu is not None:
            cost = (
                f"; reconciles {self.reconciles:.0f} (XR {self.xr_reconciles or 0:.0f}),"
                f" controller CPU {self.controller_cpu:.1f} s"
            )
        return (
            f"{head} p50 {percentile(self.seconds, 50):.2f} s, p90 {percentile(self.seconds, 90):.2f} s,"
            f" p99 {percentile(self.seconds, 99):.2f} s, max {self.seconds[-1]:.2f} s"
            f" (first composed p50 {percentile(self.first, 50):.2f} s);"
            f" {self.missing} of {self.xrs} not within {self.timeout:g} s{cost}; load {self.load}"
        )


def percentile(ordered: Sequence[float], p: float) -> float:
    """Nearest-rank percentile of sorted values: the smallest one with ``p`` % at or below it."""
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


class LatencyProbe:
    """Watches the XRs and their composed ConfigMaps of one namespace; notes each end of each change.

    Handlers run in the informers' tasks and only record times; a round sets
    what it awaits (:meth:`expect`) before it sends the first change, so no
    event is missed, and values of earlier rounds never match.
    """

    def __init__(self, api: _kube.KubeApi, namespace: str) -> None:
        self.changed: dict[str, float] = {}
        self.first: dict[str, float] = {}
        self.done: dict[str, float] = {}
        self.all_done = asyncio.Event()
        self._expected: dict[str, str] = {}
        self._updated: dict[str, set[str]] = collections.defaultdict(set)
        self._xrs = _informer.Informer(api, XR_API, XR_KIND, namespace)
        self._composed = _informer.Informer(api, "v1", "ConfigMap", namespace)
        self._xrs.add_handler(self._xr_seen)
        self._composed.add_handler(self._composed_seen)

    async def __aenter__(self) -> LatencyProbe:
        self._xrs.start()
        self._composed.start()
        await asyncio.gather(self._xrs.wait_synced(), self._composed.wait_synced())
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await asyncio.gather(self._xrs.stop(), self._composed.stop())

    def expect(self, names: Sequence[str], tier: str) -> None:
        """Start a round: each of ``names`` is about to get ``spec.tier = tier``."""
        self._expected = dict.fromkeys(names, tier)
        self.changed, self.first, self.done = {}, {}, {}
        self._updated.clear()
        self.all_done.clear()

    def changed_at(self, name: str, when: float) -> None:
        self.changed[name] = min(when, self.changed.get(name, when))

    def _xr_seen(self, event_type: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        name = obj["metadata"]["name"]
        want = self._expected.get(name)
        if want is not None and (obj.get("spec") or {}).get("tier") == want:
            self.changed_at(name, time.perf_counter())

    def _composed_seen(self, event_type: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        if event_type == "DELETED":
            return
        metadata = obj["metadata"]
        xr = (metadata.get("labels") or {}).get(LABEL_COMPOSITE, "")
        want = self._expected.get(xr)
        if want is None or xr in self.done or (obj.get("data") or {}).get("tier") != f"tier-{want}":
            return
        now = time.perf_counter()
        self.first.setdefault(xr, now)
        updated = self._updated[xr]
        updated.add(metadata["name"])
        if len(updated) >= COMPOSED_PER_XR:
            self.done[xr] = now
            if len(self.done) >= len(self._expected):
                self.all_done.set()

    async def round(
        self, api: _kube.KubeApi, namespace: str, names: Sequence[str], *, rate: float, timeout: float
    ) -> tuple[float, list[float], list[float]]:
        """Change every XR once; return (seconds to send all, sorted latencies, sorted first-updates)."""
        tier = f"lat-{uuid.uuid4().hex[:8]}"
        self.expect(names, tier)

        async def change(name: str) -> None:
            await api.patch(XR_API, XR_KIND, name, namespace, {"spec": {"tier": tier}})
            self.changed_at(name, time.perf_counter())

        started = time.perf_counter()
        if rate > 0:
            sends = []
            for i, name in enumerate(names):
                await asyncio.sleep(max(0.0, started + i / rate - time.perf_counter()))
                sends.append(asyncio.create_task(change(name)))
            await asyncio.gather(*sends)
        else:
            await asyncio.gather(*(change(name) for name in names))
        sending = time.perf_counter() - started
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.all_done.wait(), timeout)
        arrived = [
            (self.done[n] - self.changed[n], self.first[n] - self.changed[n])
            for n in names
            if n in self.done and n in self.changed and self.done[n] - self.changed[n] <= timeout
        ]
        return sending, sorted(a for a, _ in arrived), sorted(f for _, f in arrived)


async def spec_change_latency(
    api: _kube.KubeApi,
    namespace: str,
    names: Sequence[str],
    *,
    rates: Sequence[float] = RATES,
    timeout: float = TIMEOUT,
    controller: ControllerProcess | None = None,
    settle: Callable[[], Awaitable[None]] | None = None,
) -> list[Latency]:
    """One round per rate over the Ready XRs ``names``; ``settle`` runs before and after each round.

    ``settle`` (``benchmarks/controller.py``'s ``_quiet``) waits until the
    reconciles a round caused have finished, its own writes' realtime echoes
    included, so rounds do not overlap; with ``controller`` each round also
    reports those reconciles and the controller's CPU up to that point.
    """
    out = []
    async with LatencyProbe(api, namespace) as probe:
        if settle is not None:
            await settle()
        for rate in rates:
            load_before = loadavg()
            before = (controller.reconciles(), cpu_seconds(controller.pid)) if controller else None
            sending, seconds, first = await probe.round(api, namespace, names, rate=rate, timeout=timeout)
            load_after = loadavg()
            if settle is not None:  # the round's reconciles still finishing, and their echoes, count too
                await settle()
            cost: dict[str, float] = {}
            if controller is not None and before is not None:
                after = controller.reconciles()
                cost = {
                    "reconciles": sum(after.values()) - sum(before[0].values()),
                    "xr_reconciles": after.get(XR_CONTROLLER, 0.0) - before[0].get(XR_CONTROLLER, 0.0),
                    "controller_cpu": cpu_seconds(controller.pid) - before[1],
                }
            out.append(
                Latency(
                    xrs=len(names), rate=rate, timeout=timeout, seconds=tuple(seconds), first=tuple(first),
                    sending=sending, load=f"{load_before} -> {load_after}", **cost,
                )
            )  # fmt: skip
    return out


# -- standalone ------------------------------------------------------------------------------------


async def run_once(kubeconfig: str, n: int, args: argparse.Namespace) -> list[Latency]:
    """Controller process, setup and N Ready XRs as ``benchmarks/controller.py`` does; then the rounds."""
    import controller as bench  # not at the top: benchmarks/controller.py may import this module

    api = _kube.KubeApi.from_kubeconfig(kubeconfig)
    namespace = f"latency-{uuid.uuid4().hex[:6]}"
    log = Path(tempfile.gettempdir()) / f"crossfn-bench-latency-{n}.log"
    with contextlib.suppress(_api.Conflict):
        await api.create(
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": bench.CONTROLLER_NAMESPACE}}
        )
    process = ControllerProcess(
        kubeconfig, workers=args.workers, log=log, profile=None, py_spy="py-spy", launcher=None
    )
    try:
        await process.wait_ready()
        await bench._setup(api, namespace)
        await bench._quiet(process)
        window = await bench._window(api, process, namespace, n, args.creators)
        print(f"N={n}: all Ready in {window['seconds']:.1f} s (load {window['load_during']})", flush=True)
        return await spec_change_latency(
            api, namespace, [f"xr-{i}" for i in range(n)], rates=args.rate, timeout=args.timeout,
            controller=process, settle=lambda: bench._quiet(process),
        )  # fmt: skip
    finally:
        process.stop()
        await api.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--xrs", type=int, nargs="+", default=[500], help="N, one run each (default 500)")
    parser.add_argument("--rate", type=float, nargs="+", default=list(RATES),
                        help="changes per second, one round each; 0: all at once (default 0 20 5)")  # fmt: skip
    parser.add_argument("--timeout", type=float, default=TIMEOUT, help="seconds an XR may take (default 120)")
    parser.add_argument(
        "--workers", type=int, default=100, help="the controller's --max-concurrent-reconciles"
    )
    parser.add_argument("--creators", type=int, default=10, help="concurrent XR creations (default 10)")
    parser.add_argument("--kubeconfig", help="an existing API server (default: a fresh envtest per N)")
    args = parser.parse_args()
    print(_provenance.line(), flush=True)
    for n in args.xrs:
        if args.kubeconfig:
            rounds = asyncio.run(run_once(args.kubeconfig, n, args))
        else:
            env = envtest_module.Environment()
            env.start()
            try:
                rounds = asyncio.run(run_once(env.kubeconfig, n, args))
            finally:
                env.stop()
        for latency in rounds:
            print(latency.line(), flush=True)


if __name__ == "__main__":
    main()
