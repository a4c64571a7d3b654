"""The manager's parts that need no cluster: probes, JSON logs, XR controllers per XRD."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from crossfn.controller.definition import _xrcontrollers
from crossfn.controller.manager import _observability
from crossfn.controller.runtime import _controller, _metrics

from .fake_clock import FakeClock


async def http_get(port: int, path: str) -> tuple[str, str]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    await writer.drain()
    data = await reader.read()
    writer.close()
    await writer.wait_closed()
    head, _, body = data.decode().partition("\r\n\r\n")
    return head.splitlines()[0], body


PROBES = [
    pytest.param("/healthz", [], "HTTP/1.1 200 OK", "ok\n", "the process answers", id="Healthz"),
    pytest.param(
        "/healthz", ["watch down: v1 Secret: connection refused"], "HTTP/1.1 200 OK", "ok\n",
        "liveness never depends on the API server: a restart would not bring it back", id="HealthzWhileDown",
    ),
    pytest.param("/readyz", [], "HTTP/1.1 200 OK", "ok\n", "informers synced and watching", id="Ready"),
    pytest.param(
        "/readyz", ["not synced: v1/Secret"], "HTTP/1.1 503 Service Unavailable", "not synced: v1/Secret\n",
        "not yet: the body says which kind", id="NotSynced",
    ),
    pytest.param(
        "/readyz", ["watch down: v1 Secret: connection refused", "watch down: v1 ConfigMap: connection refused"],
        "HTTP/1.1 503 Service Unavailable",
        "watch down: v1 Secret: connection refused\nwatch down: v1 ConfigMap: connection refused\n",
        "the API server is unreachable: one line per watch, with its error", id="WatchDown",
    ),
    pytest.param("/metrics", [], "HTTP/1.1 200 OK", "m 1\n", "Prometheus text", id="Metrics"),
    pytest.param("/other", [], "HTTP/1.1 404 Not Found", "not found\n", "nothing else", id="NotFound"),
]  # fmt: skip


@pytest.mark.parametrize(("path", "problems", "status", "body", "reason"), PROBES)
async def test_probe_server(path: str, problems: list[str], status: str, body: str, reason: str) -> None:
    server = _observability.ProbeServer("127.0.0.1:0", ready=lambda: problems, metrics=lambda: b"m 1\n")
    await server.start()
    try:
        assert await http_get(server.port, path) == (status, body), reason
    finally:
        await server.stop()


async def test_metrics_only_server_has_no_probes() -> None:
    server = _observability.ProbeServer("127.0.0.1:0", metrics=lambda: b"", probes=False)
    await server.start()
    try:
        assert (await http_get(server.port, "/healthz"))[0] == "HTTP/1.1 404 Not Found", (
            "metrics and probes are served on their own addresses, as Crossplane's two ports"
        )
    finally:
        await server.stop()


async def _closed(reader: asyncio.StreamReader, within: float) -> bool:
    """Whether the server closes the connection (EOF or reset) within ``within`` seconds."""
    try:
        async with asyncio.timeout(within):
            while await reader.read(1024):
                pass
    except TimeoutError:
        return False
    except ConnectionError:
        pass
    return True


async def test_a_probe_client_cannot_hold_a_connection(monkeypatch: pytest.MonkeyPatch, caplog: Any) -> None:
    """Idle, trickling (a header line every second, forever: each line came within the old per-line
    10 s) and oversized requests are closed within the request timeout, without a log line; before,
    a client could hold connections forever and thousands of tracebacks filled the log at the
    descriptor limit."""
    monkeypatch.setattr(_observability, "REQUEST_TIMEOUT", 1.0)
    server = _observability.ProbeServer("127.0.0.1:0", ready=list)
    await server.start()
    try:
        idle = await asyncio.open_connection("127.0.0.1", server.port)
        trickle = await asyncio.open_connection("127.0.0.1", server.port)
        huge = await asyncio.open_connection("127.0.0.1", server.port)
        trickle[1].write(b"GET /healthz HTTP/1.1\r\n")
        huge[1].write(b"GET /healthz HTTP/1.1\r\nX: " + b"a" * 100_000 + b"\r\n\r\n")

        async def keep_trickling() -> None:
            with contextlib.suppress(ConnectionError):
                for i in range(30):
                    trickle[1].write(f"X-{i}: y\r\n".encode())
                    await trickle[1].drain()
                    await asyncio.sleep(0.25)

        trickling = asyncio.ensure_future(keep_trickling())
        assert await _closed(huge[0], 1.0), "an oversized request is refused at once"
        assert await _closed(idle[0], 2.5) and await _closed(trickle[0], 2.5)
        trickling.cancel()
        for _, writer in (idle, trickle, huge):
            writer.close()
        assert await http_get(server.port, "/healthz") == ("HTTP/1.1 200 OK", "ok\n")
    finally:
        await server.stop()
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []


async def test_a_connection_flood_does_not_lock_out_the_probes() -> None:
    """300 idle connections: at most 64 are held (a new one closes the oldest), and a probe is answered."""
    server = _observability.ProbeServer("127.0.0.1:0", ready=list)
    await server.start()
    flood = []
    try:
        for _ in range(300):
            flood.append(await asyncio.open_connection("127.0.0.1", server.port))
        await asyncio.sleep(0.2)
        assert await http_get(server.port, "/healthz") == ("HTTP/1.1 200 OK", "ok\n")
        closed = [await _closed(reader, 0.05) for reader, _ in flood]
        assert sum(closed) >= 300 - _observability.MAX_CONNECTIONS
    finally:
        for _, writer in flood:
            writer.close()
        await server.stop()


def test_json_log_line() -> None:
    record = logging.LogRecord(
        "crossfn.controller", logging.ERROR, __file__, 1, "cannot reconcile %s", ("a/b",), None
    )
    record.controller = "composite/x"
    try:
        raise ValueError("boom")
    except ValueError:
        record.exc_info = sys.exc_info()
    line = json.loads(_observability.JsonFormatter().format(record))
    assert line["level"] == "error" and line["logger"] == "crossfn.controller"
    assert line["msg"] == "cannot reconcile a/b", "the message with its arguments"
    assert line["controller"] == "composite/x", "extra fields become keys"
    assert "ValueError: boom" in line["error"], "a traceback is one field, the line stays one line"
    assert line["ts"] == round(record.created, 6), "seconds since the epoch, as `crossfn function serve` logs"


ADDRESSES = [
    pytest.param(":8080", (None, 8080), "every interface", id="AllInterfaces"),
    pytest.param("127.0.0.1:0", ("127.0.0.1", 0), "a host and an ephemeral port", id="Loopback"),
    pytest.param("[::1]:9", ("::1", 9), "IPv6 in brackets", id="IPv6"),
]


@pytest.mark.parametrize(("address", "want", "reason"), ADDRESSES)
def test_split_address(address: str, want: tuple[str | None, int], reason: str) -> None:
    assert _observability.split_address(address) == want, reason


class FakeReconciler:
    """What XrControllers needs of a CompositeReconciler."""

    def __init__(self, xrd: dict[str, Any], log: list[str], prefix: str = "") -> None:
        self.xrd, self.log, self.prefix = xrd, log, prefix
        self.enqueue: Callable[[str], None] | None = None

    def set_enqueue(self, enqueue: Callable[[str], None]) -> None:
        self.enqueue = enqueue

    def set_xrd(self, xrd: Mapping[str, Any]) -> None:
        self.log.append(f"update {self.prefix}{xrd['metadata']['name']}")
        self.xrd = dict(xrd)

    def start(self) -> None:
        self.log.append(f"start {self.prefix}{self.xrd['metadata']['name']}")

    def stop(self) -> None:
        self.log.append(f"stop {self.prefix}{self.xrd['metadata']['name']}")

    async def reconcile(self, key: str) -> _controller.Result:
        self.log.append(f"reconcile {key}")
        return _controller.Result()


class FakeInformer:
    def __init__(self) -> None:
        self.handlers: list[Any] = []

    def add_handler(self, fn: Any) -> None:
        self.handlers.append(fn)

    def remove_handler(self, fn: Any) -> None:
        self.handlers.remove(fn)


class FakeInformers:
    def __init__(self) -> None:
        self.running: dict[tuple[str, str], FakeInformer] = {}
        self.stopped: list[tuple[str, str]] = []

    def informer(self, api_version: str, kind: str) -> FakeInformer:
        return self.running.setdefault((api_version, kind), FakeInformer())

    def kinds(self) -> list[tuple[str, str]]:
        return sorted(self.running)

    async def stop_informer(self, api_version: str, kind: str) -> None:
        self.running.pop((api_version, kind), None)
        self.stopped.append((api_version, kind))


def xrd(name: str, version: str = "v1", generation: int = 1) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "generation": generation},
        "spec": {
            "group": "example.org",
            "names": {"kind": "XThing"},
            "versions": [{"name": version, "referenceable": True}],
        },
    }


async def test_xr_controllers_start_update_restart_stop() -> None:
    log: list[str] = []
    informers = FakeInformers()
    made: list[FakeReconciler] = []

    def make(x: dict[str, Any]) -> FakeReconciler:
        made.append(FakeReconciler(x, log))
        return made[-1]

    xr = _xrcontrollers.XrControllers(make, informers, workers=1, rate=None)
    await xr.start(xrd("a"))
    assert made[0].enqueue is not None, "the reconciler is wired to its controller's queue"
    made[0].enqueue("ns/one")  # what its own XR handler does, through its circuit breaker
    for _ in range(20):
        await asyncio.sleep(0)
    assert log == ["start a", "reconcile ns/one"], "an XR event reaches the XR controller's reconcile"
    await xr.start(xrd("a", generation=2))
    assert log[-1] == "update a", "a changed XRD of the same kind updates the running reconciler, no restart"
    await xr.start(xrd("a", version="v2", generation=3))
    assert log[-2:] == ["stop a", "start a"], "a new XR kind restarts it"
    assert informers.stopped == [("example.org/v1", "XThing")], "the old kind's informer is stopped"
    assert xr.names() == ["a"]
    await xr.stop("a")
    assert log[-1] == "stop a" and xr.names() == []
    assert informers.informer("example.org/v2", "XThing").handlers == [], (
        "no handler is left on a shared informer"
    )
    await xr.stop("a")  # stopping what does not run is a no-op


class Recorded:
    """Every metric call, as ``(method, args)``."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...]]] = []

    def __getattr__(self, name: str) -> Callable[..., None]:
        def record(*args: Any) -> None:
            self.calls.append((name, args))

        return record

    def of(self, name: str) -> list[tuple[Any, ...]]:
        return [args for n, args in self.calls if n == name]


async def test_instrumented_queue_reports_adds_retries_and_time_waited() -> None:
    clock, metrics = FakeClock(), Recorded()
    queue = _metrics.InstrumentedQueue("q", metrics, clock=clock)
    queue.add("a")
    clock.advance(2.0)
    queue.add("a")  # already queued: still waits since the first add
    assert await queue.get() == "a"
    assert metrics.of("queue_added") == [("q",), ("q",)], "every add is counted, as client-go's adds_total"
    assert metrics.of("queue_latency") == [("q", 2.0)], "the wait is measured from the first add"
    queue.add_rate_limited("a")  # in flight: comes back after done and its backoff
    queue.done("a")
    clock.advance(1.0)
    assert await queue.get() == "a"
    assert metrics.of("queue_retried") == [("q",)]
    assert metrics.of("queue_latency")[-1] == ("q", 0.0), "a delayed key waits from when it became due"
    queue.shutdown()
    queue.add("b")
    assert len(metrics.of("queue_added")) == 3, "a shut-down queue takes, and counts, nothing"


async def test_instrument_refuses_a_started_controller() -> None:
    async def reconcile(key: str) -> _controller.Result:
        return _controller.Result()

    c = _controller.Controller("c", reconcile, workers=1)
    _metrics.instrument(c, Recorded())
    assert isinstance(c.queue, _metrics.InstrumentedQueue)
    c.start()
    try:
        with pytest.raises(RuntimeError, match="cannot instrument controller c: it has started"):
            _metrics.instrument(c, Recorded())
    finally:
        await c.stop()


def claim_xrd(name: str, claim_kind: str | None = "Thing") -> dict[str, Any]:
    x = xrd(name)
    x["apiVersion"] = "apiextensions.crossplane.io/v1"
    if claim_kind is not None:
        x["spec"]["claimNames"] = {"kind": claim_kind, "plural": claim_kind.lower() + "s"}
    return x


async def test_xr_controllers_start_and_stop_claim_controllers_with_metrics() -> None:
    log: list[str] = []
    informers, metrics = FakeInformers(), Recorded()
    xr = _xrcontrollers.XrControllers(
        lambda x: FakeReconciler(x, log), informers, workers=1, rate=None, metrics=metrics,
        make_claim=lambda x: FakeReconciler(x, log, "claim-"),
    )  # fmt: skip
    await xr.start(claim_xrd("a"))
    assert (xr.names(), xr.claim_names()) == (["a"], ["a"]), "an XRD offering a claim gets both controllers"
    assert metrics.of("controller_started") == [("composite/a",), ("claim/a",)]
    assert metrics.of("watch_started") == [
        ("composite/a", "CompositeResource"), ("claim/a", "Claim"), ("claim/a", "CompositeResource"),
    ], "Crossplane's engine_watches_started_total types"  # fmt: skip
    await xr.start(claim_xrd("a"))
    assert log[-2:] == ["update a", "update claim-a"], "the same kinds: both take the new XRD, no restart"
    await xr.start(claim_xrd("a", "Other"))
    assert log[-2:] == ["stop claim-a", "start claim-a"] and xr.names() == ["a"], (
        "a new claim kind restarts only the claim controller"
    )
    await xr.start(claim_xrd("a", None))
    assert xr.claim_names() == [] and log[-1] == "stop claim-a", "a claim withdrawn stops its controller"
    await xr.start(claim_xrd("a"))
    await xr.stop_all()
    assert (xr.names(), xr.claim_names()) == ([], [])
    assert metrics.of("controller_stopped")[-2:] == [("claim/a",), ("composite/a",)], "claims first, then XRs"


async def test_xrds_not_offering_claims_get_no_claim_controller() -> None:
    xr = _xrcontrollers.XrControllers(
        lambda x: FakeReconciler(x, []), FakeInformers(), workers=1, rate=None,
        make_claim=lambda x: FakeReconciler(x, []),
    )  # fmt: skip
    await xr.start(xrd("v2"))  # a v2 XRD (no claimNames)
    assert xr.claim_names() == []
    await xr.stop_all()


class Fixed:
    def __init__(self, result: _controller.Result | Exception, log: list[str], name: str) -> None:
        self.result, self.log, self.name = result, log, name

    def watch(self, enqueue: Callable[[str], None]) -> None:
        self.log.append(f"watch {self.name}")

    async def reconcile(self, key: str) -> _controller.Result:
        self.log.append(f"{self.name} {key}")
        if isinstance(self.result, Exception):
            raise self.result
        return self.result


BOTH = [
    pytest.param(
        [_controller.Result(), _controller.Result(requeue_after=60.0)], _controller.Result(requeue_after=60.0),
        "one asks for a requeue", id="OneRequeue",
    ),
    pytest.param(
        [_controller.Result(requeue_after=10.0), _controller.Result(requeue_after=60.0)],
        _controller.Result(requeue_after=10.0), "the soonest requeue wins", id="Soonest",
    ),
    pytest.param([_controller.Result(), _controller.Result()], _controller.Result(), "nothing to do", id="None"),
    pytest.param(
        [RuntimeError("boom"), _controller.Result()], RuntimeError, "a failure is raised after the other ran",
        id="FailureAfterOthers",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("results", "want", "reason"), BOTH)
async def test_function_reconcilers_share_one_controller(
    results: list[_controller.Result | Exception], want: Any, reason: str
) -> None:
    log: list[str] = []
    both = _xrcontrollers.Together([Fixed(r, log, f"r{i}") for i, r in enumerate(results)])
    both.watch(lambda key: None)
    if isinstance(want, type):
        with pytest.raises(want):
            await both.reconcile("fn")
    else:
        assert await both.reconcile("fn") == want, reason
    assert log == ["watch r0", "watch r1", "r0 fn", "r1 fn"], "each reconciler sees every key, in order"


async def test_readyz_says_whether_this_replica_leads() -> None:
    server = _observability.ProbeServer("127.0.0.1:0", ready=list, detail=lambda: "leader election: leading")
    await server.start()
    try:
        assert await http_get(server.port, "/readyz") == ("HTTP/1.1 200 OK", "ok\nleader election: leading\n")
    finally:
        await server.stop()


def test_informer_collector_reports_watches_and_leadership() -> None:
    import prometheus_client

    class Inf:
        def __init__(self, synced: bool, relists: int) -> None:
            self.synced, self.relists = synced, relists

    class Factory:
        def __init__(self) -> None:
            self.found = {("v1", "A"): Inf(True, 2), ("v1", "B"): Inf(False, 0)}

        def kinds(self) -> list[tuple[str, str]]:
            return sorted(self.found)

        def running(self, api_version: str, kind: str) -> Inf:
            return self.found[(api_version, kind)]

    registry = prometheus_client.CollectorRegistry()
    leading: list[bool | None] = [None]
    registry.register(_observability.InformerCollector(Factory(), leading=lambda: leading[0], lease="l"))
    text = prometheus_client.generate_latest(registry).decode()
    assert "crossfn_watches 2.0" in text
    assert 'crossfn_watch_synced{api_version="v1",kind="B"} 0.0' in text
    assert 'crossfn_watch_lists_total{api_version="v1",kind="A"} 2.0' in text, "A was relisted once"
    assert "leader_election_master_status" not in text, "no leader election, no leader metric"
    leading[0] = True
    text = prometheus_client.generate_latest(registry).decode()
    assert 'leader_election_master_status{name="l"} 1.0' in text
