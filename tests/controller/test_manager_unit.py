"""The manager's parts that need no cluster: probes, JSON logs, XR controllers per XRD."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from collections.abc import Callable
from typing import Any

import pytest

from crossfn.controller import _controller, _manager, _observability


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
    pytest.param("/healthz", True, "HTTP/1.1 200 OK", "ok\n", "the process answers", id="Healthz"),
    pytest.param("/readyz", True, "HTTP/1.1 200 OK", "ok\n", "informers synced", id="Ready"),
    pytest.param(
        "/readyz",
        False,
        "HTTP/1.1 503 Service Unavailable",
        "informers not synced\n",
        "not yet",
        id="NotReady",
    ),
    pytest.param("/metrics", True, "HTTP/1.1 200 OK", "m 1\n", "Prometheus text", id="Metrics"),
    pytest.param("/other", True, "HTTP/1.1 404 Not Found", "not found\n", "nothing else", id="NotFound"),
]


@pytest.mark.parametrize(("path", "ready", "status", "body", "reason"), PROBES)
async def test_probe_server(path: str, ready: bool, status: str, body: str, reason: str) -> None:
    server = _observability.ProbeServer("127.0.0.1:0", ready=lambda: ready, metrics=lambda: b"m 1\n")
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

    def __init__(self, xrd: dict[str, Any], log: list[str]) -> None:
        self.xrd, self.log = xrd, log
        self.enqueue: Callable[[str], None] | None = None

    def set_enqueue(self, enqueue: Callable[[str], None]) -> None:
        self.enqueue = enqueue

    def set_xrd(self, xrd: dict[str, Any]) -> None:
        self.log.append(f"update {xrd['metadata']['name']}")
        self.xrd = xrd

    def start(self) -> None:
        self.log.append(f"start {self.xrd['metadata']['name']}")

    def stop(self) -> None:
        self.log.append(f"stop {self.xrd['metadata']['name']}")

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
    xr = _manager.XrControllers(
        lambda x: FakeReconciler(x, log),
        informers,
        workers=1,
        rate=None,
    )
    await xr.start(xrd("a"))
    [handler] = informers.informer("example.org/v1", "XThing").handlers
    handler("ADDED", {"metadata": {"name": "one", "namespace": "ns"}}, None)
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
