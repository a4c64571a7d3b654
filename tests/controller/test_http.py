"""The lean HTTP/1.1 transport under KubeApi's requests, against a scripted local server.

The real API server (TLS, chunked lists, errors) is covered by test_kube's cluster tests,
which go through this transport; here each case scripts the server's answers byte by byte
to reach what a healthy API server rarely does: closed idle connections, cut responses.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Awaitable, Callable

import httpx2
import pytest

from crossfn.controller.kube import _api, _http

OK = b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{"a": "b"}\n'
CHUNKED = (
    b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{"a"\r\n7;ext=1\r\n: "b"}\n\r\n0\r\n\r\n'
)
CLOSE = b'HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 11\r\n\r\n{"a": "b"}\n'
CUT = b'HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n{"a"'
NO_CONTENT = b"HTTP/1.1 204 No Content\r\n\r\n"
BAD_CHUNK = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}XX0\r\n\r\n"

DROP = b""
"""In a script: close the connection without answering."""


@dataclasses.dataclass
class Server:
    """A local server answering requests from a script; counts connections and requests."""

    script: list[bytes]
    hang_up_after: set[int] = dataclasses.field(default_factory=set)
    connections: int = 0
    requests: list[bytes] = dataclasses.field(default_factory=list)
    port: int = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while self.script:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    (
                        int(line.split(b":")[1])
                        for line in head.split(b"\r\n")
                        if line.lower().startswith(b"content-length")
                    ),
                    0,
                )
                self.requests.append(head.split(b"\r\n")[0] + b" " + await reader.readexactly(length))
                answer = self.script.pop(0)
                if answer == DROP:
                    break
                writer.write(answer)
                await writer.drain()
                if len(self.requests) in self.hang_up_after or answer in (CLOSE, CUT):
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


Start = Callable[[Server], Awaitable[Server]]


@pytest.fixture
async def serve() -> AsyncIterator[Start]:
    """Start a :class:`Server` on a free port; every one started is stopped after the test."""
    servers: list[asyncio.Server] = []

    async def start(server: Server) -> Server:
        listening = await asyncio.start_server(server.handle, "127.0.0.1", 0)
        servers.append(listening)
        server.port = listening.sockets[0].getsockname()[1]
        return server

    yield start
    for listening in servers:
        listening.close()
        await listening.wait_closed()


async def send(server: Server, *requests: tuple[str, bytes]) -> list[httpx2.Response | Exception]:
    """Send the requests one after another through one client; responses or the errors raised."""
    transport = _http.Http11Transport(None, max_idle=4)
    out: list[httpx2.Response | Exception] = []
    async with httpx2.AsyncClient(base_url=f"http://127.0.0.1:{server.port}", transport=transport) as client:
        for method, body in requests:
            try:
                out.append(await client.request(method, "/api/v1/x", content=body))
            except httpx2.HTTPError as exc:
                out.append(exc)
    return out


@pytest.mark.parametrize(
    ("script", "hang_up_after", "requests", "want", "want_connections", "reason"),
    [
        pytest.param(
            [OK, OK],
            set(),
            [("GET", b""), ("PATCH", b"{}")],
            ["200 {'a': 'b'}", "200 {'a': 'b'}"],
            1,
            "two requests share one kept-alive connection",
            id="keep-alive",
        ),
        pytest.param(
            [CHUNKED],
            set(),
            [("GET", b"")],
            ["200 {'a': 'b'}"],
            1,
            "a chunked body (with a chunk extension) is joined",
            id="chunked",
        ),
        pytest.param(
            [NO_CONTENT, OK],
            set(),
            [("DELETE", b"{}"), ("GET", b"")],
            ["204 None", "200 {'a': 'b'}"],
            1,
            "204 has no body and keeps the connection",
            id="no-content",
        ),
        pytest.param(
            [CLOSE, OK],
            set(),
            [("GET", b""), ("GET", b"")],
            ["200 {'a': 'b'}", "200 {'a': 'b'}"],
            2,
            "Connection: close is honoured: the next request opens a new connection",
            id="connection-close",
        ),
        pytest.param(
            [OK, OK],
            {1},
            [("GET", b""), ("GET", b"")],
            ["200 {'a': 'b'}", "200 {'a': 'b'}"],
            2,
            "an idle connection the server closed is not reused",
            id="idle-closed",
        ),
        pytest.param(
            [OK, DROP, OK],
            set(),
            [("GET", b""), ("PUT", b"{}")],
            ["200 {'a': 'b'}", "200 {'a': 'b'}"],
            2,
            "a reused connection closed before any answer: the PUT goes again on a new one",
            id="resend-put",
        ),
        pytest.param(
            [OK, DROP, OK],
            set(),
            [("GET", b""), ("POST", b"{}")],
            ["200 {'a': 'b'}", "RemoteProtocolError"],
            1,
            "a POST is never sent twice: the create may have happened",
            id="no-resend-post",
        ),
        pytest.param(
            [BAD_CHUNK, OK],
            set(),
            [("GET", b""), ("GET", b"")],
            ["RemoteProtocolError", "200 {'a': 'b'}"],
            2,
            "a malformed answer is an error and its connection is not reused",
            id="bad-chunk",
        ),
        pytest.param(
            [CUT],
            set(),
            [("GET", b"")],
            ["RemoteProtocolError"],
            1,
            "a body cut short is an error, not a short body",
            id="cut",
        ),
    ],
)
async def test_transport(
    serve: Start,
    *,
    script: list[bytes],
    hang_up_after: set[int],
    requests: list[tuple[str, bytes]],
    want: list[str],
    want_connections: int,
    reason: str,
) -> None:
    server = await serve(Server(list(script), hang_up_after))
    got = [
        f"{r.status_code} {r.json() if r.content else None}"
        if isinstance(r, httpx2.Response)
        else type(r).__name__
        for r in await send(server, *requests)
    ]
    assert got == want, reason
    assert server.connections == want_connections, reason


async def test_request_has_no_accept_encoding(serve: Start) -> None:
    """Identity bodies only: the transport never asks for gzip it would have to decode."""
    heads: list[bytes] = []

    class Recording(Server):
        async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            heads.append(await reader.readuntil(b"\r\n\r\n"))
            await reader.readexactly(2)
            writer.write(OK)
            await writer.drain()
            writer.close()

    server = await serve(Recording([OK]))
    [response] = await send(server, ("PATCH", b"{}"))
    assert isinstance(response, httpx2.Response) and response.status_code == 200
    head = heads[0].lower()
    assert head.startswith(b"patch /api/v1/x http/1.1\r\n")
    assert b"accept-encoding" not in head and b"content-length: 2\r\n" in head


@dataclasses.dataclass
class Hanging:
    """A server that reads one request, never answers, and notes when the client hangs up."""

    connections: int = 0
    hung_up: asyncio.Event = dataclasses.field(default_factory=asyncio.Event)

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            await reader.readuntil(b"\r\n\r\n")
            while await reader.read(1024):
                pass
            self.hung_up.set()
        except ConnectionError:
            self.hung_up.set()
        finally:
            writer.close()


async def test_close_aborts_a_request_in_flight() -> None:
    """A request nobody waits for cannot keep its socket open past the client (it would leak at loop end)."""
    server = Hanging()
    listening = await asyncio.start_server(server.handle, "127.0.0.1", 0)
    port = listening.sockets[0].getsockname()[1]
    try:
        client = httpx2.AsyncClient(
            base_url=f"http://127.0.0.1:{port}", transport=_http.Http11Transport(None, max_idle=4), timeout=60
        )
        request = asyncio.create_task(client.get("/api/v1/x"))
        while not server.connections:
            await asyncio.sleep(0.01)
        await client.aclose()
        async with asyncio.timeout(2):  # well before the request's own timeout could end it
            await server.hung_up.wait()
        with pytest.raises(httpx2.TransportError):
            await request
        assert server.connections == 1, "a closed client must not reconnect to send the request again"
    finally:
        listening.close()
        await listening.wait_closed()


class _StuckWriter:
    """A stream writer whose close never completes (a TLS goodbye the server does not answer)."""

    def __init__(self) -> None:
        self.aborted = False
        self.transport = self

    def close(self) -> None:
        pass

    async def wait_closed(self) -> None:
        await asyncio.Event().wait()

    def abort(self) -> None:
        self.aborted = True


async def test_connection_close_cancelled_aborts_the_socket() -> None:
    """Cancelled while waiting for the goodbye, close aborts: a half-closed TLS socket outlives the loop."""
    writer = _StuckWriter()
    conn = _http._Connection(asyncio.StreamReader(), writer)  # type: ignore[arg-type]
    closing = asyncio.create_task(conn.close())
    await asyncio.sleep(0)
    closing.cancel()
    with pytest.raises(asyncio.CancelledError):
        await closing
    assert writer.aborted


@dataclasses.dataclass
class Fence:
    """A write fence that allows ``allow`` checks, then refuses; counts the ``sent`` calls."""

    allow: int
    checks: int = 0
    sent_calls: int = 0

    def check(self) -> None:
        self.checks += 1
        if self.checks > self.allow:
            raise _api.Fenced("not the leader any more")

    def sent(self) -> None:
        self.sent_calls += 1


@pytest.mark.parametrize(
    ("allow", "want_requests"),
    [
        pytest.param(1, 1, id="allowed: sent"),
        pytest.param(0, 0, id="refused: not one byte leaves"),
    ],
)
async def test_a_write_fence_is_checked_as_the_bytes_leave(
    serve: Start, allow: int, want_requests: int
) -> None:
    """The fence is checked in the transport right before the socket write (leader election's fencing);
    a small request leaves at once, so there is nothing to confirm after it."""
    server = await serve(Server([OK]))
    fence = Fence(allow)
    transport = _http.Http11Transport(None, max_idle=4)
    async with httpx2.AsyncClient(base_url=f"http://127.0.0.1:{server.port}", transport=transport) as client:
        request = client.build_request(
            "PATCH", "/api/v1/x", content=b"{}", extensions={_http.WRITE_FENCE: fence}
        )
        if allow:
            assert (await client.send(request)).status_code == 200
        else:
            with pytest.raises(_api.Fenced):
                await client.send(request)
    await asyncio.sleep(0.05)
    assert len(server.requests) == want_requests
    assert (fence.checks, fence.sent_calls) == (1, 0)
