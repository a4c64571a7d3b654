"""Benchmark the function server: CPU per request against the official SDK and a bare gRPC echo.

Run:  python benchmarks/function_server.py [--requests N] [--write]

Each server runs in its own process (so its CPU time is its own, and the
official one loads only the official SDK), started by re-running this script with a
``serve-*`` role. The load generator (this process) sends pre-serialised
request bytes over a generic gRPC channel with a fixed number of calls in
flight, so it needs neither implementation's classes. Server CPU time is read
from each server process's CPU-time clock (user + system, every thread, in
nanoseconds) before and after the measured calls; per-request figures divide
by the number of calls.

Servers:
  * crossfn: ``crossfn.sdk.serve``, the function as ``async def`` (served by
    the asyncio server) and as plain ``def`` (served by the threaded server);
  * official: ``crossplane.function.runtime.serve`` with the same logic written
    with the official SDK's helpers;
  * echo: a bare ``grpc.aio`` server returning the request bytes unchanged.

Workloads: ``trivial`` (``response.to(req)`` only) and ``compose10`` (read the
XR, compose 10 resources from it, mark them ready).

Also measured: dict <-> Struct conversion of a typical resource, crossfn's
converters against ``json_format`` and ``Struct.update``, and where a compose10
call's CPU goes inside the function (parse, ``response.to``, conversions,
serialise), measured in-process.

Results go to stdout and, with ``--write``, to the "Function server"
section of ``docs/performance.md``, each with the commit measured.

Quick mode, the perf gate CI runs (``.ci/run``):  python benchmarks/function_server.py --quick
measures only the two ratios the targets are about, crossfn's ``def`` server
against the bare echo (trivial) and against the official SDK (compose10), in
interleaved rounds of 1,000 calls per server, and keeps each server's best
round. It exits 1 when a ratio is over its gate (:data:`GATES`), looser than
the targets (:data:`TARGETS`) by the ratios' spread between runs on a loaded
two-core machine. Before failing it measures more rounds (up to
``--max-rounds``): more rounds only ever lower a best-of, so a ratio still
over the gate then is a regression rather than a noisy round. ``--inject-us N``
burns N µs of CPU in every crossfn call, to see the gate fail.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import pathlib
import platform
import re
import socket
import subprocess
import sys
import time
import timeit
from typing import Any

import _provenance

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "performance.md"
SECTION = "## Function server (crossfn.sdk)"
METHOD = "/apiextensions.fn.proto.v1.FunctionRunnerService/RunFunction"
TICK = os.sysconf("SC_CLK_TCK")
REPEATS = 5

TARGETS = {"trivial": 1.0, "compose10": 0.5}
"""Issue 24: crossfn's ``def`` server over the bare echo (trivial), over the official SDK (compose10)."""
GATES = {"trivial": 1.15, "compose10": 0.6}
"""Where the perf gate (``--quick``) fails: the targets plus a margin for a noisy machine."""
INJECT_ENV = "CROSSFN_BENCH_INJECT_US"

XR = {
    "apiVersion": "example.org/v1",
    "kind": "XBucket",
    "metadata": {"name": "bench", "labels": {"team": "a", "env": "dev"}, "uid": "0d8a3c9e"},
    "spec": {"region": "eu-west-1", "count": 10, "tags": {f"t{i}": f"v{i}" for i in range(8)}},
    "status": {"conditions": [{"type": "Ready", "status": "True", "reason": "Available"}]},
}


def _body(xr: dict[str, Any], i: int) -> dict[str, Any]:
    spec = xr["spec"]
    return {
        "apiVersion": "s3.aws.upbound.io/v1beta1",
        "kind": "Bucket",
        "metadata": {"name": f"{xr['metadata']['name']}-{i}", "labels": dict(xr["metadata"]["labels"])},
        "spec": {
            "forProvider": {
                "region": spec["region"],
                "tags": dict(spec["tags"]),
                "versioning": [{"enabled": True}],
            },
            "providerConfigRef": {"name": "default"},
        },
    }


# --- servers (each runs in its own process) ------------------------------------------------------


def _serve_crossfn(workload: str, style: str, port: int, workers: int) -> None:
    if style == "sync-pure":
        # The same server with the pure-Python conversions: what a machine without a C
        # compiler at install time gets.
        os.environ["CROSSFN_PURE_PYTHON"] = "1"
        style = "sync"
    from crossfn.sdk import request, response, runtime, settings

    def trivial(req: Any, rsp: Any) -> None:
        return None

    def compose10(req: Any, rsp: Any) -> None:
        xr = request.get_observed_composite_resource(req)
        for i in range(10):
            response.set_desired_composed_resource(rsp, f"bucket-{i}", _body(xr, i), ready=True)

    fn = trivial if workload == "trivial" else compose10
    inject = float(os.environ.get(INJECT_ENV, "0")) / 1e6
    if inject:
        # --inject-us: extra CPU in every call, as a regression of the per-call path would add.
        plain = fn

        def fn(req: Any, rsp: Any) -> None:
            until = time.thread_time() + inject
            while time.thread_time() < until:
                pass
            plain(req, rsp)

    if style == "async":
        sync_fn = fn

        async def fn(req: Any, rsp: Any) -> None:
            sync_fn(req, rsp)

    config = settings.ServerSettings(
        listen=settings.ListenSettings(address=f"127.0.0.1:{port}", insecure=True),
        process=settings.ProcessSettings(workers=workers),
    )
    if workers > 1:
        # Workers are spawned and must import the function: name it by spec.
        runtime.serve(f"function_server:_{workload}_{style}_spec", config)
        return
    runtime.serve(fn, config)


# Module-level copies for spawned workers, which import the function by name. They
# import crossfn lazily, so that the serve-official process runs the official SDK alone.
async def _trivial_async_spec(req: Any, rsp: Any) -> None:
    return None


def _trivial_sync_spec(req: Any, rsp: Any) -> None:
    return None


def _compose10_sync_spec(req: Any, rsp: Any) -> None:
    from crossfn.sdk import request, response

    xr = request.get_observed_composite_resource(req)
    for i in range(10):
        response.set_desired_composed_resource(rsp, f"bucket-{i}", _body(xr, i), ready=True)


async def _compose10_async_spec(req: Any, rsp: Any) -> None:
    from crossfn.sdk import request, response

    xr = request.get_observed_composite_resource(req)
    for i in range(10):
        response.set_desired_composed_resource(rsp, f"bucket-{i}", _body(xr, i), ready=True)


def _serve_official(workload: str, port: int) -> None:
    from crossplane.function import resource, response, runtime
    from crossplane.function.proto.v1 import run_function_pb2 as fnv1
    from crossplane.function.proto.v1 import run_function_pb2_grpc as grpcv1

    class Runner(grpcv1.FunctionRunnerServiceServicer):
        async def RunFunction(self, req: Any, context: Any) -> Any:
            rsp = response.to(req)
            if workload == "compose10":
                xr = resource.struct_to_dict(req.observed.composite.resource)
                for i in range(10):
                    resource.update(rsp.desired.resources[f"bucket-{i}"], _body(xr, i))
                    rsp.desired.resources[f"bucket-{i}"].ready = fnv1.READY_TRUE
            return rsp

    runtime.serve(Runner(), f"127.0.0.1:{port}", creds=None, insecure=True)


def _serve_echo(port: int) -> None:
    import grpc

    async def echo(request: bytes, context: Any) -> bytes:
        return request

    async def main() -> None:
        server = grpc.aio.server()
        handler = grpc.unary_unary_rpc_method_handler(echo)
        server.add_generic_rpc_handlers(
            (
                grpc.method_handlers_generic_handler(
                    "apiextensions.fn.proto.v1.FunctionRunnerService", {"RunFunction": handler}
                ),
            )
        )
        server.add_insecure_port(f"127.0.0.1:{port}")
        await server.start()
        await server.wait_for_termination()

    asyncio.run(main())


# --- load generator ------------------------------------------------------------------------------


def _request_bytes(workload: str) -> bytes:
    from crossfn.proto.v1 import run_function_pb2 as fnv1
    from crossfn.sdk import resource

    req = fnv1.RunFunctionRequest(meta=fnv1.RequestMeta(tag="bench"))
    req.observed.composite.resource.CopyFrom(resource.dict_to_struct(XR))
    if workload == "compose10":
        for i in range(3):
            req.desired.resources[f"previous-{i}"].resource.CopyFrom(resource.dict_to_struct(_body(XR, i)))
    return req.SerializeToString()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _cpu_seconds(pids: list[int]) -> float:
    """CPU seconds (user + system, every thread, living or ended) the processes ``pids`` have used.

    Read from each process's CPU-time clock (Linux ``clock_getcpuclockid``: nanoseconds), or,
    where that clock cannot be read, from ``/proc/<pid>/stat`` (clock ticks, 10 ms each)."""
    total = 0.0
    for pid in pids:
        try:
            total += time.clock_gettime(((~pid) << 3) | 2)  # CPUCLOCK_SCHED of the whole process
        except OSError:
            fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / TICK  # utime, stime
    return total


def _children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True, check=False).stdout
    return [int(p) for p in out.split()]


async def _drive(port: int, payload: bytes, calls: int, concurrency: int, channels: int) -> float:
    import grpc

    chans = [grpc.aio.insecure_channel(f"127.0.0.1:{port}") for _ in range(channels)]
    stubs = [c.unary_unary(METHOD) for c in chans]
    remaining = calls

    async def worker(k: int) -> None:
        nonlocal remaining
        stub = stubs[k % len(stubs)]
        while remaining > 0:
            remaining -= 1
            await stub(payload, timeout=30)

    start = time.perf_counter()
    await asyncio.gather(*(worker(k) for k in range(concurrency)))
    elapsed = time.perf_counter() - start
    for c in chans:
        await c.close()
    return elapsed


async def _wait_ready(port: int, payload: bytes, poll: float = 0.1) -> None:
    import grpc

    deadline = time.monotonic() + 30
    while True:
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as c:
                await c.unary_unary(METHOD)(payload, timeout=2)
            return
        except grpc.aio.AioRpcError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(poll)


class _Server:
    """A server process under measurement; started once, measured in several windows."""

    def __init__(self, role: list[str], payload: bytes, *, workers: int = 1, channels: int = 4) -> None:
        self.port, self.payload, self.channels = _free_port(), payload, channels
        path = f"{pathlib.Path(__file__).parent}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"
        self.proc = subprocess.Popen(
            [sys.executable, __file__, *role, str(self.port), str(workers)],
            env={**os.environ, "PYTHONPATH": path},
            stderr=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
        )
        asyncio.run(_wait_ready(self.port, payload))
        self.pids = [self.proc.pid] if workers == 1 else _children(self.proc.pid)
        self.best: dict[str, float] = {"us": float("inf"), "rps": 0.0, "load_cores": 0.0}

    def window(self, calls: int) -> None:
        """Measure ``calls`` calls; keep the window with the least CPU per call."""
        cpu0, load0 = _cpu_seconds(self.pids), time.process_time()
        elapsed = asyncio.run(_drive(self.port, self.payload, calls, 32, self.channels))
        us = (_cpu_seconds(self.pids) - cpu0) / calls * 1e6
        if us < self.best["us"]:
            self.best = {
                "us": us,
                "rps": calls / elapsed,
                "load_cores": (time.process_time() - load0) / elapsed,
            }

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=20)


def _measure_all(
    roles: dict[str, tuple[list[str], bytes]], calls: int, **kw: int
) -> dict[str, dict[str, float]]:
    """Measure every server in interleaved rounds (other load on the machine comes and goes:
    interleaving spreads it over all servers) and keep each one's best window."""
    servers: dict[str, _Server] = {}
    try:
        for name, (role, payload) in roles.items():
            servers[name] = _Server(role, payload, **kw)
        for server in servers.values():
            server.window(max(calls // 5, 200))  # warm up
            server.best["us"] = float("inf")
        for _ in range(REPEATS):
            for server in servers.values():
                server.window(calls)
    finally:
        for server in servers.values():
            server.stop()
    return {name: server.best for name, server in servers.items()}


def _quick(calls: int, rounds: int, max_rounds: int) -> int:
    """The perf gate (module docstring): print both ratios against their gates; 1 if one is over."""
    trivial, compose10 = _request_bytes("trivial"), _request_bytes("compose10")
    roles = {
        "echo/trivial": (["serve-echo", "trivial"], trivial),
        "crossfn/trivial": (["serve-crossfn", "trivial", "sync"], trivial),
        "official/compose10": (["serve-official", "compose10"], compose10),
        "crossfn/compose10": (["serve-crossfn", "compose10", "sync"], compose10),
    }
    servers: dict[str, _Server] = {}
    done = 0
    try:
        for name, (role, payload) in roles.items():
            servers[name] = _Server(role, payload)
        for server in servers.values():
            server.window(max(calls // 4, 100))  # warm up
            server.best["us"] = float("inf")
        while True:
            order = list(servers.values())
            shift = done % len(order)  # a different server first each round
            for server in order[shift:] + order[:shift]:
                server.window(calls)
            done += 1
            over = _over_the_gates(
                _gated_ratios({name: server.best["us"] for name, server in servers.items()})
            )
            if done >= max_rounds or (done >= rounds and not over):
                break
    finally:
        for server in servers.values():
            server.stop()
    ratios = _gated_ratios({name: server.best["us"] for name, server in servers.items()})
    print(f"function server perf gate, {_provenance.line()}")
    print(f"best of {done} interleaved rounds of {calls} calls per server, server CPU µs per call:")
    for name, server in servers.items():
        print(f"  {name:20s} {server.best['us']:7.1f}")
    for workload, ratio in ratios.items():
        base = "bare grpc.aio echo" if workload == "trivial" else "official SDK"
        verdict = "over the gate" if workload in _over_the_gates(ratios) else "ok"
        verdict += f", target {_verdict(ratio, TARGETS[workload])}"
        print(
            f"  {workload:9s} crossfn / {base}: {ratio:.2f} (target ≤ {TARGETS[workload]}, "
            f"gate ≤ {GATES[workload]}): {verdict}"
        )
    failed = _over_the_gates(ratios)
    if failed:
        print(f"FAIL: {', '.join(failed)} over the gate after {done} rounds", flush=True)
        return 1
    return 0


def _gated_ratios(best_us: dict[str, float]) -> dict[str, float]:
    """The gated ratios from each server's best CPU µs per call (``server/workload`` names)."""
    return {
        "trivial": best_us["crossfn/trivial"] / best_us["echo/trivial"],
        "compose10": best_us["crossfn/compose10"] / best_us["official/compose10"],
    }


def _verdict(ratio: float, target: float) -> str:
    """``met`` or ``not met``, as the docs state a target."""
    return "met" if ratio <= target else "not met"


def _over_the_gates(ratios: dict[str, float]) -> list[str]:
    """The workloads whose ratio is over its gate."""
    return [workload for workload, ratio in ratios.items() if ratio > GATES[workload]]


def _cold_start(role: list[str], runs: int = 5) -> tuple[float, float]:
    """Seconds from process start to the first answered call, and from SIGTERM to exit (best of ``runs``)."""
    payload = _request_bytes("trivial")
    starts, stops = [], []
    path = f"{pathlib.Path(__file__).parent}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"
    for _ in range(runs):
        port = _free_port()
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, __file__, *role, str(port), "1"],
            env={**os.environ, "PYTHONPATH": path},
            stderr=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
        )
        asyncio.run(_wait_ready(port, payload, poll=0.005))
        starts.append(time.perf_counter() - t0)
        t1 = time.perf_counter()
        proc.terminate()
        proc.wait(timeout=20)
        stops.append(time.perf_counter() - t1)
    return min(starts), min(stops)


# --- conversions ---------------------------------------------------------------------------------


def _conversions() -> list[tuple[str, float]]:
    from google.protobuf import json_format, struct_pb2

    from crossfn.sdk import resource

    body = {**_body(XR, 1), "status": XR["status"]}
    s = resource.dict_to_struct(body)

    def pure_dict_to_struct() -> None:
        resource._fill(struct_pb2.Struct(), body)

    def pure_struct_to_dict() -> None:
        fields = s.fields
        {k: resource._to_python(fields[k], True) for k in fields}

    path = "C extension" if resource.ACCELERATED else "pure Python: the extension is not built"
    cases = [
        (f"dict -> Struct: crossfn dict_to_struct ({path})", lambda: resource.dict_to_struct(body)),
        ("dict -> Struct: crossfn, pure-Python path", pure_dict_to_struct),
        ("dict -> Struct: json_format.ParseDict", lambda: json_format.ParseDict(body, struct_pb2.Struct())),
        (
            "dict -> Struct: Struct.update (what the official SDK's `resource.update` uses)",
            lambda: struct_pb2.Struct().update(body),
        ),
        (f"Struct -> dict: crossfn struct_to_dict ({path})", lambda: resource.struct_to_dict(s)),
        ("Struct -> dict: crossfn, pure-Python path", pure_struct_to_dict),
        (
            "Struct -> dict: json_format.MessageToDict (the official SDK's `struct_to_dict`)",
            lambda: json_format.MessageToDict(s),
        ),
    ]
    n = 3000
    return [(name, min(timeit.repeat(fn, number=n, repeat=5)) / n * 1e6) for name, fn in cases]


def _breakdown() -> list[tuple[str, float]]:
    """Where a compose10 call's CPU goes inside the function server, measured in-process."""
    from crossfn.proto.v1 import run_function_pb2 as fnv1
    from crossfn.sdk import request, resource, response

    payload = _request_bytes("compose10")
    req = fnv1.RunFunctionRequest.FromString(payload)
    xr = request.get_observed_composite_resource(req)
    bodies = [_body(xr, i) for i in range(10)]
    rsp = response.to(req)
    for i, body in enumerate(bodies):
        response.set_desired_composed_resource(rsp, f"bucket-{i}", body, ready=True)
    cases = [
        ("parse the request (upb)", lambda: fnv1.RunFunctionRequest.FromString(payload)),
        ("`response.to(req)`: copy tag, TTL, desired state, context", lambda: response.to(req)),
        ("observed XR -> dict (`struct_to_dict`)", lambda: request.get_observed_composite_resource(req)),
        ("build the 10 bodies (the function's own logic)", lambda: [_body(xr, i) for i in range(10)]),
        ("10 × dict -> Struct (`dict_to_struct`)", lambda: [resource.dict_to_struct(b) for b in bodies]),
        ("serialise the response (upb)", rsp.SerializeToString),
    ]
    n = 1000
    return [(name, min(timeit.repeat(fn, number=n, repeat=5)) / n * 1e6) for name, fn in cases]


# --- report --------------------------------------------------------------------------------------


def _report(requests: int) -> str:
    lines: list[str] = []
    roles: dict[str, tuple[list[str], bytes]] = {}
    for workload in ("trivial", "compose10"):
        payload = _request_bytes(workload)
        roles[f"echo/{workload}"] = (["serve-echo", workload], payload)
        roles[f"official/{workload}"] = (["serve-official", workload], payload)
        roles[f"crossfn-async/{workload}"] = (["serve-crossfn", workload, "async"], payload)
        roles[f"crossfn-sync/{workload}"] = (["serve-crossfn", workload, "sync"], payload)
        roles[f"crossfn-pure/{workload}"] = (["serve-crossfn", workload, "sync-pure"], payload)
    rows = _measure_all(roles, requests)
    lines.append(
        "| Server | trivial: CPU µs/request | compose10: CPU µs/request | trivial req/s | compose10 req/s |"
    )
    lines.append("|---|---:|---:|---:|---:|")
    labels = {
        "echo": "bare grpc.aio echo (bytes in, bytes out)",
        "official": "official SDK 0.15.1 runtime (async servicer)",
        "crossfn-async": "crossfn, `async def compose` (asyncio server)",
        "crossfn-sync": "crossfn, `def compose` (threaded server)",
        "crossfn-pure": "crossfn, `def compose`, pure-Python conversions (`CROSSFN_PURE_PYTHON=1`)",
    }
    for name, label in labels.items():
        t, c = rows[f"{name}/trivial"], rows[f"{name}/compose10"]
        lines.append(f"| {label} | {t['us']:.0f} | {c['us']:.0f} | {t['rps']:.0f} | {c['rps']:.0f} |")
    echo_t = rows["echo/trivial"]["us"]
    off_c = rows["official/compose10"]["us"]
    trivial, compose10 = (
        rows["crossfn-sync/trivial"]["us"] / echo_t,
        rows["crossfn-sync/compose10"]["us"] / off_c,
    )
    lines.append("")
    lines.append(
        f"Ratios: crossfn trivial / bare echo = {trivial:.2f} (def), "
        f"{rows['crossfn-async/trivial']['us'] / echo_t:.2f} (async def); target ≤ {TARGETS['trivial']} (def): "
        f"{_verdict(trivial, TARGETS['trivial'])}. crossfn compose10 / official = {compose10:.2f} (def), "
        f"{rows['crossfn-pure/compose10']['us'] / off_c:.2f} (def, pure Python), "
        f"{rows['crossfn-async/compose10']['us'] / off_c:.2f} (async def); target ≤ {TARGETS['compose10']} (def): "
        f"{_verdict(compose10, TARGETS['compose10'])}."
    )
    lines.append("")
    payload = _request_bytes("compose10")
    lines.append(
        "Throughput, crossfn compose10 (`def`, threaded server), 32 calls in flight over 8 connections:"
    )
    lines.append("")
    lines.append("| Workers | req/s | load generator cores used |")
    lines.append("|---:|---:|---:|")
    for workers in (1, 2):
        r = _measure_all(
            {"w": (["serve-crossfn", "compose10", "sync"], payload)}, requests, workers=workers, channels=8
        )["w"]
        lines.append(f"| {workers} | {r['rps']:.0f} | {r['load_cores']:.2f} |")
    lines.append("")
    lines.append(
        "Start-up (process start to first answered call) and SIGTERM to exit, idle server, best of 5:"
    )
    lines.append("")
    lines.append("| Server | start-up s | stop s |")
    lines.append("|---|---:|---:|")
    for label, role in (
        ("official SDK 0.15.1 runtime", ["serve-official", "trivial"]),
        ("crossfn, `def compose` (threaded server)", ["serve-crossfn", "trivial", "sync"]),
        ("crossfn, `async def compose` (asyncio server)", ["serve-crossfn", "trivial", "async"]),
    ):
        start, stop = _cold_start(role)
        lines.append(f"| {label} | {start:.2f} | {stop:.2f} |")
    lines.append("")
    lines.append("Where a compose10 call's CPU goes in the function itself (in-process, one thread):")
    lines.append("")
    lines.append("| Step | µs |")
    lines.append("|---|---:|")
    for name, us in _breakdown():
        lines.append(f"| {name} | {us:.1f} |")
    lines.append("")
    lines.append("dict <-> Struct conversion of one composed resource (~25 values):")
    lines.append("")
    lines.append("| Conversion | µs |")
    lines.append("|---|---:|")
    for name, us in _conversions():
        lines.append(f"| {name} | {us:.1f} |")
    return "\n".join(lines)


def _write(table: str, requests: int, load: tuple[float, float]) -> None:
    header = (
        f"{SECTION}\n\n"
        f"Measured at commit `{_provenance.commit()}` with `python benchmarks/function_server.py --requests {requests}` on "
        f"{os.cpu_count()} CPUs ({platform.processor() or platform.machine()}), Python {platform.python_version()}, "
        f"{time.strftime('%Y-%m-%d', time.gmtime())}, 1-minute load average {load[0]:.2f} at the start and "
        f"{load[1]:.2f} at the end (the benchmark's own processes count). CPU µs/request counts only the server "
        "process(es), read from each one's CPU-time clock, best of five interleaved windows (other load on the "
        f"machine only adds to it). Targets (issue 24): trivial ≤ {TARGETS['trivial']}× the bare echo; compose10 ≤ "
        f"{TARGETS['compose10']}× the official SDK, for the `def` server. CI's perf gate "
        f"(`python benchmarks/function_server.py --quick`, run by `.ci/run`) fails above {GATES['trivial']}× and "
        f"{GATES['compose10']}×: looser than the targets by issue 24's margins because on a shared, loaded machine "
        "the ratios move by about ±0.1 from run to run (the official runtime and the echo suffer more from load "
        "than crossfn), so a gate at the target itself would turn CI red on noise; the gate catches a regression "
        "of about 15-20 % of a call's CPU, and the targets are judged from this full run. The load generator runs "
        f"on the same machine and competes with the servers for its {os.cpu_count()} cores, so more workers raise "
        "throughput only where cores are left over. Compare runs made under similar load.\n\n"
        "Reading the figures. gRPC's own per-call cost is the floor every server stands on (the bare echo). "
        "On it, a `def` function served by the threaded server pays least: its function threads take calls "
        "from one queue, so a busy server does not wake a thread per call (`crossfn.sdk._threads`); that is "
        "the style to use for CPU-bound functions, which composition functions almost always are. An "
        "`async def` function is served by `grpc.aio`, whose per-call cost is the official runtime's too, so "
        "its ratios track that floor rather than crossfn's own work; use it for functions that await I/O. What "
        "crossfn adds to the floor is mostly dict <-> Struct conversion, which the C extension "
        "(`crossfn.sdk._structpb`) does about five times faster than Python; the pure-Python row shows a "
        "machine that could not build it.\n\n"
    )
    text = DOC.read_text() if DOC.exists() else "# Performance\n"
    pattern = re.compile(rf"^{re.escape(SECTION)}\n.*?(?=^## |\Z)", re.S | re.M)
    block = header + table + "\n\n"
    text = pattern.sub(lambda _: block, text) if pattern.search(text) else text.rstrip("\n") + "\n\n" + block
    DOC.write_text(text)


def main() -> None:
    role = sys.argv[1] if len(sys.argv) > 1 else ""
    if role == "serve-crossfn":
        _serve_crossfn(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
        return
    if role == "serve-official":
        _serve_official(sys.argv[2], int(sys.argv[3]))
        return
    if role == "serve-echo":
        _serve_echo(int(sys.argv[3]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=5000, help="measured calls per server (default 5000)")
    parser.add_argument(
        "--write", action="store_true", help="also rewrite this section of docs/performance.md"
    )
    parser.add_argument(
        "--quick", action="store_true", help="the perf gate: the two gated ratios only; exit 1 if one is over"
    )
    parser.add_argument("--calls", type=int, default=1000, help="--quick: calls per server per round")
    parser.add_argument("--rounds", type=int, default=5, help="--quick: rounds when both ratios pass")
    parser.add_argument("--max-rounds", type=int, default=15, help="--quick: rounds before a ratio fails")
    parser.add_argument(
        "--inject-us", type=float, default=0, help="burn this many µs of CPU in every crossfn call"
    )
    args = parser.parse_args()
    if args.inject_us:
        os.environ[INJECT_ENV] = str(args.inject_us)
    if args.quick:
        sys.exit(_quick(args.calls, args.rounds, max(args.max_rounds, args.rounds)))
    print(_provenance.line())
    load_before = os.getloadavg()[0]
    table = _report(args.requests)
    load = (load_before, os.getloadavg()[0])
    print(table)
    print(f"\nload average: {load[0]:.2f} at the start, {load[1]:.2f} at the end")
    if args.write:
        _write(table, args.requests, load)


if __name__ == "__main__":
    main()
