"""Benchmark: ``crossfn controller run`` against a local API server, next to a bare apply loop.

For each N (``--xrs``, default 100 and 500) on a fresh envtest control plane
(etcd + kube-apiserver from ``KUBEBUILDER_ASSETS``; or ``--kubeconfig``):

1. ``crossfn controller run`` starts as its own process (its namespace
   ``crossplane-system`` created first, as an install does), so the CPU, the
   run-queue wait and the RSS read from ``/proc/<pid>`` are the controller's alone;
2. an XRD (v2, namespaced), a Composition of 10 resources through the built-in
   patch-and-transform (five patches each) and auto-ready, and the two
   Functions are created; the benchmark waits for the revision's
   ``ValidPipeline`` and for the controller to go quiet;
3. the clock starts; N XRs are created; the clock stops when the last one is
   ``Ready=True``. Composed resources are ConfigMaps, which auto-ready deems
   ready once they exist (its Kubernetes health check), so nothing but the
   controller works on them between creation and Ready;
4. the controller stops (SIGTERM), and the bare loop server-side-applies the
   same composed objects (read back from the API server, into a fresh
   namespace) with the same client (``KubeApi``: pool, request cap, JSON, field
   manager) and the controller's worker count as its concurrency. Its applies
   per second are what this API server takes; target: the controller's composed
   applies per second at N = 500 at least 70 % of it, and its RSS at most 300 MB.
3b. before that, with every XR Ready (``--latency-rates``): reconcile latency,
   each XR's spec changed (all at once, then paced) and timed until all its
   composed resources carry the change (p50/p90/p99/max; ``_controller_latency``).

Printed per N: XRs Ready per second; composed objects per second (N x 10 over
the whole window: the figure compared with the bare loop, also as the inverse
ratio of CPU per object, which the load of a shared machine moves far less) and
the API server's count of composed APPLY requests per second (the controller
applies each object more than once); the controller's reconciles, CPU per
reconcile and RSS (now and peak); the API server's and etcd's CPU; how long
both waited for a CPU (run queue: the machine is shared); the API server's write
requests per XR by verb and resource; the load average. ``--profile DIR`` runs
the controller under py-spy (``--py-spy``, default ``py-spy`` on PATH) or
cProfile and writes the profile there; ``--launcher FILE`` runs a variant of
the controller (``python FILE controller run ...``) to compare; ``--leader-election``
runs it as the leader of a Lease, every write fenced (``benchmarks/unfenced.py`` is the
launcher without the fence, to measure its cost).

    KUBEBUILDER_ASSETS=/work/envtest-bin python benchmarks/controller.py [--xrs 100 500]
        [--workers 100] [--concurrency 100] [--profile DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import dataclasses
import os
import re
import tempfile
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import _provenance
from _controller_latency import Latency, spec_change_latency
from _controller_support import (
    COMPOSED_PER_XR,
    GROUP,
    XR_API,
    XR_KIND,
    XR_PLURAL,
    ControllerProcess,
    children,
    composition,
    cpu_seconds,
    cpu_wait_seconds,
    functions,
    is_ready,
    loadavg,
    memory_mb,
    xr,
    xrd,
)

from crossfn.controller import envtest as envtest_module
from crossfn.controller.kube import _api, _kube
from crossfn.controller.runtime import _informer

FIELD_MANAGER = "crossfn-benchmark"
READY_TIMEOUT = 1800.0
CONTROLLER_NAMESPACE = "crossplane-system"


# -- the bare loop ---------------------------------------------------------------------------------


async def bare_loop(
    api: _kube.KubeApi,
    objects: Sequence[Mapping[str, Any]],
    *,
    concurrency: int = 10,
    field_manager: str = FIELD_MANAGER,
) -> float:
    """Server-side-apply every object once with ``concurrency`` workers; return applies per second.

    ``objects`` are applied exactly as given; the kinds must already be served.
    The workers pull from one shared iterator, as the controller's workers pull
    keys from its queue, so at most ``concurrency`` requests are in flight. Any
    API error fails the benchmark: a rejected object would make the figure meaningless.
    """
    pending: Iterator[Mapping[str, Any]] = iter(objects)

    async def worker() -> None:
        for obj in pending:
            await api.apply(obj, field_manager=field_manager, force=True)

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return len(objects) / (time.perf_counter() - started)


def copies(objects: Sequence[Mapping[str, Any]], namespace: str) -> list[dict[str, Any]]:
    """``objects`` as an apply would send them, moved to ``namespace`` (server-set fields dropped)."""
    out = []
    for obj in objects:
        meta = obj["metadata"]
        keep = {k: meta[k] for k in ("name", "labels", "annotations", "ownerReferences") if k in meta}
        out.append(
            {
                "apiVersion": obj.get("apiVersion", "v1"),
                "kind": obj.get("kind", "ConfigMap"),
                "metadata": {**keep, "namespace": namespace},
                "data": obj.get("data", {}),
            }
        )
    return out


_REQUEST = re.compile(r"^apiserver_request_total\{(.*)\} (\S+)$")
_LABEL = re.compile(r'(\w+)="([^"]*)"')


async def apiserver_requests(api: _kube.KubeApi) -> collections.Counter[str]:
    """The API server's request counts (its ``/metrics``) by ``VERB resource[/subresource]``."""
    counts: collections.Counter[str] = collections.Counter()
    for line in (await api.raw_get("metrics")).decode().splitlines():
        m = _REQUEST.match(line)
        if m is None:
            continue
        labels = dict(_LABEL.findall(m[1]))
        if labels.get("verb") in ("WATCH", "LIST", "GET") or not labels.get("resource"):
            continue  # reads are cache hits for the controller; only writes load etcd
        sub = f"/{labels['subresource']}" if labels.get("subresource") else ""
        counts[f"{labels['verb']} {labels['resource']}{sub}"] += int(float(m[2]))
    return counts


# -- one run ---------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Bare:
    """One bare loop: applies per second, and CPU milliseconds per apply in the client and the server."""

    rate: float
    client_ms: float
    server_ms: float


@dataclasses.dataclass
class Figures:
    xrs: int
    seconds: float
    controller_cpu: float
    reconciles: float
    xr_reconciles: float
    rss_mb: float
    peak_rss_mb: float
    apply_requests: float
    server_cpu: float
    load_during: str
    bare: dict[int, Bare]
    load_bare: str
    created: float
    controller_wait: float
    server_wait: float
    writes: collections.Counter[str]
    first_ready: float
    median_ready: float
    latency: list[Latency] = dataclasses.field(default_factory=list)

    @property
    def objects_per_second(self) -> float:
        return self.xrs * COMPOSED_PER_XR / self.seconds


async def _setup(api: _kube.KubeApi, namespace: str) -> None:
    """Namespace, Functions, XRD, Composition; wait for the XR kind and a valid revision."""
    await api.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
    for obj in [*functions(), xrd(), composition()]:
        await api.apply(obj, field_manager=FIELD_MANAGER)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        revisions, _ = await api.list("apiextensions.crossplane.io/v1", "CompositionRevision")
        valid = any(
            c.get("type") == "ValidPipeline" and c.get("status") == "True"
            for r in revisions
            for c in (r.get("status") or {}).get("conditions") or []
        )
        with contextlib.suppress(Exception):
            if valid and await api.is_namespaced(XR_API, XR_KIND):
                return
        await asyncio.sleep(0.5)
    raise SystemExit("the XRD or Composition did not become usable in 120 s")


async def _create_all(api: _kube.KubeApi, namespace: str, n: int, creators: int) -> None:
    pending = iter(range(n))

    async def creator() -> None:
        for i in pending:
            await api.create(xr(i, namespace))

    await asyncio.gather(*(creator() for _ in range(creators)))


class _Readiness:
    """Watches the benchmark's XRs and notes when each first reads ``Ready=True``."""

    def __init__(self, api: _kube.KubeApi, namespace: str, n: int) -> None:
        self.n = n
        self.ready: dict[str, float] = {}
        self.done = asyncio.Event()
        self.informer = _informer.Informer(api, XR_API, XR_KIND, namespace)
        self.informer.add_handler(self._seen)

    def _seen(self, event_type: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        name = obj["metadata"]["name"]
        if name not in self.ready and is_ready(obj):
            self.ready[name] = time.perf_counter()
            if len(self.ready) >= self.n:
                self.done.set()


async def _window(
    api: _kube.KubeApi, controller: ControllerProcess, namespace: str, n: int, creators: int
) -> dict[str, Any]:
    """Create N XRs and wait until all are Ready; what the controller and the server spent meanwhile."""
    readiness = _Readiness(api, namespace, n)
    readiness.informer.start()
    try:
        await readiness.informer.wait_synced()
        server = children("kube-apiserver") + children("etcd")
        server_cpu0 = sum(cpu_seconds(p) for p in server)
        cpu0, rec0 = cpu_seconds(controller.pid), controller.reconciles()
        wait0 = cpu_wait_seconds(controller.pid), sum(cpu_wait_seconds(p) for p in server)
        requests0 = await apiserver_requests(api)
        load_before = loadavg()
        started = time.perf_counter()
        await _create_all(api, namespace, n, creators)
        created = time.perf_counter() - started
        await asyncio.wait_for(readiness.done.wait(), READY_TIMEOUT)
        seconds = time.perf_counter() - started
        cpu1, rec1 = cpu_seconds(controller.pid), controller.reconciles()
        wait1 = cpu_wait_seconds(controller.pid), sum(cpu_wait_seconds(p) for p in server)
        server_cpu = sum(cpu_seconds(p) for p in server) - server_cpu0
        requests = await apiserver_requests(api) - requests0
        requests[f"POST {XR_PLURAL}"] -= n  # the benchmark's own creates
        rss, peak = memory_mb(controller.pid)
    finally:
        await readiness.informer.stop()
    times = sorted(t - started for t in readiness.ready.values())
    key = f"composite/{XR_PLURAL}.{GROUP}"
    return {
        "seconds": seconds, "created": created, "first_ready": times[0], "median_ready": times[len(times) // 2],
        "controller_wait": wait1[0] - wait0[0], "server_wait": wait1[1] - wait0[1],
        "controller_cpu": cpu1 - cpu0, "reconciles": sum(rec1.values()) - sum(rec0.values()),
        "xr_reconciles": rec1.get(key, 0) - rec0.get(key, 0), "rss_mb": rss, "peak_rss_mb": peak,
        "apply_requests": requests["APPLY configmaps"], "writes": +requests, "server_cpu": server_cpu,
        "load_during": f"{load_before} -> {loadavg()}",
    }  # fmt: skip


async def _bare_runs(
    api: _kube.KubeApi, composed: Sequence[Mapping[str, Any]], concurrencies: Sequence[int]
) -> dict[int, Bare]:
    """The bare loop on copies of ``composed`` in a fresh namespace per concurrency."""
    server = children("kube-apiserver") + children("etcd")
    out: dict[int, Bare] = {}
    for concurrency in concurrencies:
        target = f"bare-{uuid.uuid4().hex[:6]}"
        await api.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": target}})
        objects = copies(composed, target)
        client0, server0 = cpu_seconds(os.getpid()), sum(cpu_seconds(p) for p in server)
        rate = await bare_loop(api, objects, concurrency=concurrency)
        client = cpu_seconds(os.getpid()) - client0
        server_used = sum(cpu_seconds(p) for p in server) - server0
        out[concurrency] = Bare(rate, 1000 * client / len(objects), 1000 * server_used / len(objects))
    return out


async def run_once(kubeconfig: str, n: int, args: argparse.Namespace) -> Figures:
    """One N: the controller's window, then (controller stopped) the bare loop on the same objects."""
    api = _kube.KubeApi.from_kubeconfig(kubeconfig)
    namespace = f"bench-{uuid.uuid4().hex[:6]}"
    log = Path(tempfile.gettempdir()) / f"crossfn-bench-controller-{n}.log"
    profile = Path(args.profile) / f"controller-{n}.{args.profile_format}" if args.profile else None
    with contextlib.suppress(_api.Conflict):  # the controller's own namespace, as an install creates it
        await api.create(
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": CONTROLLER_NAMESPACE}}
        )
    controller = ControllerProcess(
        kubeconfig, workers=args.workers, log=log, profile=profile, py_spy=args.py_spy, launcher=args.launcher,
        leader_election=args.leader_election,
    )  # fmt: skip
    latency: list[Latency] = []
    try:
        try:
            await controller.wait_ready()
            await _setup(api, namespace)
            await controller.quiet()
            window = await _window(api, controller, namespace, n, args.creators)
            composed, _ = await api.list("v1", "ConfigMap", namespace)
            if args.latency_rates:
                latency = await spec_change_latency(
                    api,
                    namespace,
                    [f"xr-{i}" for i in range(n)],
                    rates=args.latency_rates,
                    controller=controller,
                    settle=lambda: controller.quiet(xrs=n),
                )
        finally:
            controller.stop()
        load_bare = loadavg()
        bare = await _bare_runs(api, composed, args.concurrency)
        return Figures(xrs=n, bare=bare, load_bare=f"{load_bare} -> {loadavg()}", latency=latency, **window)
    finally:
        await api.close()


def report(f: Figures, workers: int) -> str:
    best = max(f.bare, key=lambda c: f.bare[c].rate)
    ratio = f.objects_per_second / f.bare[best].rate
    bare = "; ".join(
        f"{b.rate:.0f}/s at {c} (CPU/apply: client {b.client_ms:.1f} ms, server {b.server_ms:.1f} ms)"
        for c, b in sorted(f.bare.items())
    )

    def per_object(seconds: float) -> float:
        return 1000 * seconds / (f.xrs * COMPOSED_PER_XR)

    # On a CPU-bound machine both runs get the same CPU share, so their rates stand in the
    # inverse ratio of the CPU (client or controller, plus server) each spends per object.
    cpu_ratio = (f.bare[best].client_ms + f.bare[best].server_ms) / per_object(
        f.controller_cpu + f.server_cpu
    )

    lines = [
        f"N={f.xrs} XRs x {COMPOSED_PER_XR} composed, {workers} workers, {_kube.MAX_IN_FLIGHT} requests in flight: all Ready in {f.seconds:.1f} s",
        f"  XRs Ready/s           {f.xrs / f.seconds:8.1f}   (all created after {f.created:.1f} s; "
        f"first Ready {f.first_ready:.1f} s, half {f.median_ready:.1f} s)",
        f"  composed objects/s    {f.objects_per_second:8.1f}   ({ratio:.0%} of the bare loop's best, "
        f"{f.bare[best].rate:.0f}/s; by CPU per object: {cpu_ratio:.0%})",
        f"  composed APPLY req/s  {f.apply_requests / f.seconds:8.1f}   ({f.apply_requests / (f.xrs * COMPOSED_PER_XR):.1f} per object)",
        f"  reconciles            {f.reconciles:8.0f}   (XR controller {f.xr_reconciles:.0f}: {f.xr_reconciles / f.xrs:.2f} per XR)",
        f"  CPU per reconcile     {1000 * f.controller_cpu / max(f.reconciles, 1):8.1f} ms "
        f"  (controller CPU {f.controller_cpu:.1f} s = {f.controller_cpu / f.seconds:.0%} of a core)",
        f"  controller RSS        {f.rss_mb:8.0f} MB (peak {f.peak_rss_mb:.0f} MB)",
        f"  API server+etcd CPU   {f.server_cpu:8.1f} s  ({f.server_cpu / f.seconds:.0%} of a core)",
        f"  CPU per composed obj  {per_object(f.controller_cpu):8.2f} ms controller + {per_object(f.server_cpu):.2f} ms server "
        f"(bare loop: {f.bare[best].client_ms:.1f} ms client + {f.bare[best].server_ms:.1f} ms server)",
        f"  waiting for a CPU     {f.controller_wait:8.1f} s controller, {f.server_wait:.1f} s server threads (run queue)",
        f"  load average          {f.load_during}",
        f"  API writes per XR     {sum(f.writes.values()) / f.xrs:8.1f}   ("
        + ", ".join(f"{k} {v / f.xrs:.1f}" for k, v in f.writes.most_common())
        + ")",
        *(f"  {lat.line()}" for lat in f.latency),
        f"  bare loop applies/s   {bare}",
        f"  load average (bare)   {f.load_bare}",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--xrs", type=int, nargs="+", default=[100, 500], help="N, one run each (default 100 500)"
    )
    parser.add_argument(
        "--workers", type=int, default=100, help="the controller's --max-concurrent-reconciles"
    )
    parser.add_argument(
        "--concurrency",
        type=int,
        nargs="+",
        default=None,
        help="bare loop concurrencies (default: --workers)",
    )
    parser.add_argument(
        "--latency-rates",
        type=float,
        nargs="*",
        default=[0.0, 20.0],
        help="spec-change latency rounds, changes/s (0: all at once; none given: skip)",
    )
    parser.add_argument("--creators", type=int, default=10, help="concurrent XR creations (default 10)")
    parser.add_argument("--kubeconfig", help="an existing API server (default: a fresh envtest per N)")
    parser.add_argument("--profile", metavar="DIR", help="profile the controller into DIR")
    parser.add_argument("--profile-format", choices=("svg", "txt", "speedscope", "prof"), default="svg",
                        help="py-spy flame graph (svg), collapsed stacks (txt) or cProfile (prof)")  # fmt: skip
    parser.add_argument("--py-spy", default="py-spy", help="the py-spy executable")
    parser.add_argument(
        "--leader-election",
        action="store_true",
        help="run the controller with --leader-election: every write passes the Lease's fence",
    )
    parser.add_argument(
        "--launcher",
        metavar="FILE",
        help="run the controller as `python FILE controller run` (a variant to compare)",
    )
    args = parser.parse_args()
    print(_provenance.line(), flush=True)
    args.concurrency = args.concurrency or [args.workers]
    if args.profile:
        Path(args.profile).mkdir(parents=True, exist_ok=True)
    for n in args.xrs:
        if args.kubeconfig:
            figures = asyncio.run(run_once(args.kubeconfig, n, args))
        else:
            env = envtest_module.Environment()
            env.start()
            try:
                figures = asyncio.run(run_once(env.kubeconfig, n, args))
            finally:
                env.stop()
        print(report(figures, args.workers), flush=True)


if __name__ == "__main__":
    main()
