"""Starting the controller: an address that cannot be bound is one line naming the flag; a failed start
logs no drain that did not happen and releases what it opened (connections, tasks, ports); text logs keep their fields; the HTTP client's request lines stay
out of the logs unless debugging."""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from crossfn import errors
from crossfn.controller import _settings
from crossfn.controller.kube import _api
from crossfn.controller.manager import _manager, _observability

from .fake_api import FakeApi


class QuietApi(FakeApi):
    """A fake API server whose watches stay open with nothing to say (the fake's own end at once)."""

    async def watch(self, *args: Any, **kwargs: Any) -> AsyncIterator[_api.WatchEvent]:
        await asyncio.Event().wait()
        yield _api.WatchEvent("BOOKMARK", {})  # never reached: the watch stays open, silent


@pytest.fixture
def busy_port() -> Iterator[int]:
    """A port some other process listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield s.getsockname()[1]


BIND = [
    pytest.param(
        "127.0.0.1:{busy}", "--health-address", True,
        "cannot serve /healthz /readyz on --health-address 127.0.0.1:{busy}: address already in use",
        "a port in use (Errno 98)", id="InUse",
    ),
    pytest.param(
        "10.99.99.99:8081", "--health-address", True,
        "cannot serve /healthz /readyz on --health-address 10.99.99.99:8081: cannot assign requested address",
        "an address that is not this host's (Errno 99)", id="NotThisHost",
    ),
    pytest.param(
        "127.0.0.1:{busy}", "--metrics-address", False,
        "cannot serve /metrics on --metrics-address 127.0.0.1:{busy}: address already in use",
        "the metrics server names its own flag", id="MetricsInUse",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("address", "flag", "probes", "want", "reason"), BIND)
async def test_an_address_that_cannot_be_bound_is_one_line(
    busy_port: int, *, address: str, flag: str, probes: bool, want: str, reason: str
) -> None:
    server = _observability.ProbeServer(
        address.format(busy=busy_port), flag=flag, probes=probes, metrics=None if probes else lambda: b""
    )
    with pytest.raises(errors.InputError) as caught:
        await server.start()
    assert str(caught.value) == want.format(busy=busy_port), reason
    assert "\n" not in str(caught.value), "one line, no traceback"


async def test_a_failed_start_logs_no_drain(busy_port: int, caplog: pytest.LogCaptureFixture) -> None:
    settings = _settings.Settings(
        webhooks=_settings.WebhookSettings(enabled=False),
        cluster=_settings.ClusterSettings(skip_crds=True),
        functions=_settings.FunctionSettings(insecure=True),
        packages=_settings.PackageSettings(runtime="External"),
        observability=_settings.ObservabilitySettings(
            metrics_address=f"127.0.0.1:{busy_port}", health_address=""
        ),
    )
    manager = _manager.Manager(settings, api=QuietApi())
    caplog.set_level(logging.INFO)
    with pytest.raises(errors.InputError, match="--metrics-address"):
        await manager.start()
    await manager.stop()
    messages = [r.getMessage() for r in caplog.records]
    assert "controller started" not in messages, "the start failed"
    assert not [m for m in messages if m.startswith("stopping") or m == "controller stopped"], (
        "nothing was reconciling, so nothing was drained"
    )


TEXT = [
    pytest.param(
        {"controller": "composite/xbuckets.example.org"},
        "INFO crossfn.controller: started controller controller=composite/xbuckets.example.org",
        "which controller started is a field, and text keeps it", id="Field",
    ),
    pytest.param(
        {"error": "cannot get Function \"x\": boom", "n": 3},
        'INFO crossfn.controller: started controller error="cannot get Function \\"x\\": boom" n=3',
        "a value with spaces or quotes is quoted, so the line still splits on spaces", id="Quoted",
    ),
    pytest.param({}, "INFO crossfn.controller: started controller", "no fields, nothing added", id="None"),
]  # fmt: skip


@pytest.mark.parametrize(("extra", "want", "reason"), TEXT)
def test_text_logs_keep_structured_fields(extra: dict[str, object], want: str, reason: str) -> None:
    record = logging.makeLogRecord(
        {
            "name": "crossfn.controller",
            "levelno": logging.INFO,
            "levelname": "INFO",
            "msg": "started controller",
        }
    )
    record.__dict__.update(extra)
    line = _observability.TextFormatter().format(record)
    assert line.partition(" ")[2].partition(" ")[2] == want, reason


NOISY = [
    pytest.param("httpx2", False, logging.WARNING, "one line per API request would drown the controller's own", id="Httpx2"),
    pytest.param("httpcore2", False, logging.WARNING, "its transport is quieter still", id="Httpcore2"),
    pytest.param("httpx2", True, logging.DEBUG, "--debug shows every request", id="Debug"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "debug", "want", "reason"), NOISY)
def test_http_client_request_lines_only_when_debugging(
    name: str, debug: bool, want: int, reason: str
) -> None:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        _observability.configure_logging("json", debug=debug)
        assert logging.getLogger(name).getEffectiveLevel() == want, reason
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
        logging.getLogger(name).setLevel(logging.NOTSET)


class FlakyApi(QuietApi):
    """Lists work; watches fail while ``down`` (the API server went away after the first list)."""

    down = True

    async def watch(self, *args: Any, **kwargs: Any) -> AsyncIterator[_api.WatchEvent]:
        if self.down:
            raise ConnectionRefusedError("connection refused")
        # The informer counts a watch as back with its first event; a bookmark is the cheapest.
        yield _api.WatchEvent("BOOKMARK", {"metadata": {"resourceVersion": kwargs["resource_version"]}})
        async for event in super().watch(*args, **kwargs):
            yield event


async def test_readyz_fails_while_watches_are_down_and_recovers() -> None:
    api = FlakyApi()
    settings = _settings.Settings(
        webhooks=_settings.WebhookSettings(enabled=False),
        cluster=_settings.ClusterSettings(skip_crds=True),
        functions=_settings.FunctionSettings(insecure=True),
        packages=_settings.PackageSettings(runtime="External"),
        observability=_settings.ObservabilitySettings(metrics_address="", health_address="127.0.0.1:0"),
    )
    manager = _manager.Manager(settings, api=api)
    await manager.start()
    try:
        await manager.wait_ready()

        async def readyz() -> tuple[str, str]:
            reader, writer = await asyncio.open_connection("127.0.0.1", manager.health_port)
            writer.write(b"GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n")
            data = (await reader.read()).decode()
            writer.close()
            head, _, body = data.partition("\r\n\r\n")
            return head.splitlines()[0], body

        async def settle(want: bool) -> None:
            for _ in range(200):
                if manager.ready is want:
                    return
                await asyncio.sleep(0.05)

        await settle(False)
        status, body = await readyz()
        assert status == "HTTP/1.1 503 Service Unavailable", "synced caches that cannot follow the API server"
        assert "watch down: pkg.crossplane.io/v1 Function: connection refused\n" in body, body
        api.down = False
        await settle(True)
        assert await readyz() == ("HTTP/1.1 200 OK", "ok\nleader election: off\n"), "ready again, no restart"
    finally:
        await manager.stop()


class RefusingServer:
    """An HTTP/1.1 API server on loopback that answers every request 403 and keeps the connection
    open, counting the connections a client holds open to it."""

    def __init__(self) -> None:
        self.open = 0
        self.requests = 0
        self.closed = asyncio.Event()
        self._server: asyncio.Server | None = None

    async def __aenter__(self) -> RefusingServer:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.sockets[0].getsockname()[1])

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.open += 1
        self.closed.clear()
        body = b'{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403}'
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    (
                        int(line.split(b":")[1])
                        for line in head.split(b"\r\n")
                        if line.lower().startswith(b"content-length:")
                    ),
                    0,
                )
                await reader.readexactly(length)
                self.requests += 1
                writer.write(
                    b"HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\n"
                    b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
                )
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()
            self.open -= 1
            if not self.open:
                self.closed.set()


def _settings_for(*, metrics_address: str, health_address: str) -> _settings.Settings:
    return _settings.Settings(
        webhooks=_settings.WebhookSettings(enabled=False),
        cluster=_settings.ClusterSettings(skip_crds=True),
        functions=_settings.FunctionSettings(insecure=True),
        packages=_settings.PackageSettings(runtime="External"),
        observability=_settings.ObservabilitySettings(
            metrics_address=metrics_address, health_address=health_address
        ),
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _bindable(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def _kubeconfig(tmp_path: Any, port: int) -> str:
    path = tmp_path / "kubeconfig"
    path.write_text(
        "apiVersion: v1\nkind: Config\ncurrent-context: x\n"
        f"clusters: [{{name: c, cluster: {{server: 'http://127.0.0.1:{port}'}}}}]\n"
        "users: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\n"
    )
    return str(path)


async def test_a_start_with_no_api_server_leaves_nothing_running(tmp_path: Any) -> None:
    """Nothing listens where the kubeconfig points: start re-raises and leaves no task behind."""
    settings = _settings.Settings(
        webhooks=_settings.WebhookSettings(enabled=False),
        cluster=_settings.ClusterSettings(kubeconfig=_kubeconfig(tmp_path, _free_port())),
        functions=_settings.FunctionSettings(insecure=True),
        packages=_settings.PackageSettings(runtime="External"),
        observability=_settings.ObservabilitySettings(metrics_address="", health_address=""),
    )
    manager = _manager.Manager(settings)
    before = asyncio.all_tasks()
    with pytest.raises(_api.ApiError, match=r"^cannot reach the API server at http://127\.0\.0\.1:"):
        await manager.start()
    assert asyncio.all_tasks() - before == set()
    assert manager._api is None, "the client it built was closed and dropped"


async def test_a_start_the_api_server_refuses_closes_its_connections(tmp_path: Any) -> None:
    """CRDs refused (403): start re-raises, and the client it built has closed every connection it opened."""
    async with RefusingServer() as server:
        settings = _settings.Settings(
            webhooks=_settings.WebhookSettings(enabled=False),
            cluster=_settings.ClusterSettings(kubeconfig=_kubeconfig(tmp_path, server.port)),
            functions=_settings.FunctionSettings(insecure=True),
            packages=_settings.PackageSettings(runtime="External"),
            observability=_settings.ObservabilitySettings(metrics_address="", health_address=""),
        )
        before = asyncio.all_tasks()
        with pytest.raises(_api.ApiError):
            await _manager.Manager(settings).start()
        assert server.requests > 0, "the start reached the API server"
        await asyncio.wait_for(
            server.closed.wait(), 30
        )  # waits for the client's close; fails if it never comes
        assert server.open == 0
        assert asyncio.all_tasks() - before == set()


# (the settings' addresses, with {busy} a port in use and {free} one free before the start; the flag
# the error names; ports bound before the failure; reason)
STAGES = [
    pytest.param({"metrics_address": "127.0.0.1:{busy}", "health_address": ""}, "--metrics-address", [],
                 "the first server: informers, the function transport and the GC tasks are already running",
                 id="MetricsPort"),
    pytest.param({"metrics_address": "127.0.0.1:{free}", "health_address": "127.0.0.1:{busy}"}, "--health-address",
                 ["{free}"], "the second server: the metrics server is already listening", id="HealthPort"),
]  # fmt: skip


@pytest.mark.parametrize(("addresses", "flag", "bound", "reason"), STAGES)
async def test_a_failed_start_releases_what_it_opened(
    busy_port: int, addresses: dict[str, str], flag: str, bound: list[str], reason: str
) -> None:
    free = _free_port()
    settings = _settings_for(**{k: v.format(busy=busy_port, free=free) for k, v in addresses.items()})
    manager = _manager.Manager(settings, api=QuietApi())
    before = asyncio.all_tasks()
    with pytest.raises(errors.InputError, match=flag):
        await manager.start()
    assert asyncio.all_tasks() - before == set(), f"{reason}: no informer or GC task is left running"
    for port in bound:
        assert _bindable(int(port.format(free=free))), f"{reason}: its port is free again"
    await manager.stop()  # stopping after a failed start is harmless


async def test_a_failed_webhook_start_releases_the_probe_servers(busy_port: int, tmp_path: Any) -> None:
    """The last stage: the usage webhook's port is taken after both probe servers listen."""
    metrics, health = _free_port(), _free_port()
    settings = _settings.Settings(
        webhooks=_settings.WebhookSettings(address=f"127.0.0.1:{busy_port}", url="https://127.0.0.1:1"),
        cluster=_settings.ClusterSettings(skip_crds=True),
        functions=_settings.FunctionSettings(insecure=True),
        packages=_settings.PackageSettings(runtime="External"),
        observability=_settings.ObservabilitySettings(
            metrics_address=f"127.0.0.1:{metrics}", health_address=f"127.0.0.1:{health}"
        ),
    )
    manager = _manager.Manager(settings, api=QuietApi())
    before = asyncio.all_tasks()
    with pytest.raises(errors.InputError, match=r"^cannot serve the usage webhook on --webhook-address "):
        await manager.start()
    assert asyncio.all_tasks() - before == set()
    assert _bindable(metrics) and _bindable(health), "both probe servers stopped listening"
