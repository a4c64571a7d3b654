"""The lean HTTP/1.1 transport under KubeApi's requests, against a scripted local server.

The real API server (TLS, chunked lists, errors) is covered by test_kube's cluster tests,
which go through this transport; here each case scripts the server's answers byte by byte
to reach what a healthy API server rarely does: closed idle connections, cut responses.
"""

from __future__ import annotations

import asyncio
import dataclasses
import ssl
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable

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


# -- Http11Client: KubeApi's requests as bytes ------------------------------------------------------

UNAUTHORIZED = b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 12\r\n\r\nUnauthorized"


@dataclasses.dataclass
class Heads(Server):
    """A scripted server that keeps each request's head (request line and headers) and body."""

    heads: list[bytes] = dataclasses.field(default_factory=list)
    bodies: list[bytes] = dataclasses.field(default_factory=list)

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while self.script:
                head = await reader.readuntil(b"\r\n\r\n")
                fields = dict(line.split(b": ", 1) for line in head[:-4].split(b"\r\n")[1:] if b": " in line)
                self.heads.append(head)
                self.bodies.append(await reader.readexactly(int(fields.get(b"Content-Length", b"0"))))
                writer.write(self.script.pop(0))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


class Tokens(httpx2.Auth):
    """A rotating credential as lightkube's token file and exec flows are: the token in use, a new one after a 401."""

    def __init__(self, *tokens: str, renews: bool = True) -> None:
        self.tokens = list(tokens)
        self.renews = renews
        self.flows = 0

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        self.flows += 1
        request.headers["Authorization"] = f"Bearer {self.tokens[0]}"
        response = yield request
        if response.status_code != 401 or not self.renews:
            return
        self.tokens.pop(0)
        request.headers["Authorization"] = f"Bearer {self.tokens[0]}"
        yield request


def client(server: Server, auth: httpx2.Auth | None = None, base: str = "") -> _http.Http11Client:
    return _http.Http11Client(
        f"http://127.0.0.1:{server.port}{base}",
        None,
        auth,
        headers=[("Accept", "application/json"), ("User-Agent", "crossfn/test")],
        timeout=httpx2.Timeout(5.0),
        max_idle=4,
    )


def header(head: bytes, name: bytes) -> bytes | None:
    for line in head.split(b"\r\n")[1:]:
        key, sep, value = line.partition(b": ")
        if sep and key.lower() == name.lower():
            return value
    return None


@pytest.mark.parametrize(
    ("params", "want", "reason"),
    [
        pytest.param({"force": "true", "a-b_c.d~e": "F0"}, "force=true&a-b_c.d~e=F0", "unreserved characters as they are", id="plain"),
        pytest.param({"fieldManager": "x.io/composed/ab"}, "fieldManager=x.io%2Fcomposed%2Fab", "'/' is encoded", id="slash"),
        pytest.param({"labelSelector": "a=b,c in (d e),!f"}, "labelSelector=a%3Db%2Cc+in+%28d+e%29%2C%21f", "a space is '+'", id="selector"),
        pytest.param({"q": "é\n%"}, "q=%C3%A9%0A%25", "UTF-8 bytes and controls percent-encoded", id="utf8"),
        pytest.param({}, "", "nothing", id="empty"),
    ],
)  # fmt: skip
def test_query_is_form_encoded(params: dict[str, str], want: str, reason: str) -> None:
    """What ``urllib.parse.urlencode`` gives, which the API server decodes."""
    assert _http.query(params) == want, reason


@pytest.mark.parametrize(
    ("base", "path", "params", "want_target", "reason"),
    [
        pytest.param(
            "",
            "api/v1/namespaces/ns/configmaps/a",
            {"fieldManager": "apiextensions.crossplane.io/composed/ab", "force": "true"},
            b"/api/v1/namespaces/ns/configmaps/a?fieldManager=apiextensions.crossplane.io%2Fcomposed%2Fab&force=true",
            "the path under the server's root, the parameters form-encoded",
            id="query",
        ),
        pytest.param(
            "/k8s/clusters/c-1/",
            "apis/rbac.authorization.k8s.io/v1/clusterroles/crossplane:aggregate-to-edit",
            None,
            b"/k8s/clusters/c-1/apis/rbac.authorization.k8s.io/v1/clusterroles/crossplane:aggregate-to-edit",
            "a server URL with a path (a proxy's) prefixes every request; ':' is sent as it is",
            id="prefix",
        ),
        pytest.param(
            "",
            "api/v1/namespaces/ns/configmaps/a b",
            None,
            b"/api/v1/namespaces/ns/configmaps/a%20b",
            "a character a path may not carry is percent-encoded",
            id="quoted",
        ),
    ],
)
async def test_client_request_shape(
    serve: Start, *, base: str, path: str, params: dict[str, str] | None, want_target: bytes, reason: str
) -> None:
    server = Heads([OK])
    await serve(server)
    http = client(server, base=base)
    try:
        reply = await http.send(
            "PATCH", path, params=params, body=b"{}", content_type="application/apply-patch+yaml"
        )
    finally:
        await http.aclose()
    assert (reply.status, reply.content, reply.header("content-type")) == (
        200,
        b'{"a": "b"}\n',
        "application/json",
    )
    head = server.heads[0]
    assert head.split(b"\r\n")[0] == b"PATCH " + want_target + b" HTTP/1.1", reason
    assert header(head, b"host") == f"127.0.0.1:{server.port}".encode()
    assert header(head, b"content-type") == b"application/apply-patch+yaml"
    assert (header(head, b"content-length"), header(head, b"user-agent")) == (b"2", b"crossfn/test")
    assert header(head, b"accept-encoding") is None and header(head, b"authorization") is None
    assert server.bodies == [b"{}"]


@pytest.mark.parametrize(
    ("auth", "script", "want_tokens", "want_statuses", "want_flows", "reason"),
    [
        pytest.param(
            Tokens("one"),
            [OK, OK],
            [b"Bearer one", b"Bearer one"],
            [200, 200],
            1,
            "the flow gives the header once; later requests reuse it",
            id="reused",
        ),
        pytest.param(
            Tokens("old", "new"),
            [UNAUTHORIZED, OK, OK],
            [b"Bearer old", b"Bearer new", b"Bearer new"],
            [200, 200],
            2,
            "a 401 asks the flow again (a rotated token); the request goes once more, and later ones use the new token",
            id="renewed",
        ),
        pytest.param(
            Tokens("only", renews=False),
            [UNAUTHORIZED, OK],
            [b"Bearer only", b"Bearer only"],
            [401, 200],
            2,
            "a flow with nothing new to offer leaves the 401 to the caller, sent once",
            id="refused",
        ),
    ],
)
async def test_client_authentication(
    serve: Start,
    *,
    auth: Tokens,
    script: list[bytes],
    want_tokens: list[bytes],
    want_statuses: list[int],
    want_flows: int,
    reason: str,
) -> None:
    server = Heads(list(script))
    await serve(server)
    http = client(server, auth)
    try:
        statuses = [(await http.send("GET", "api/v1/x")).status for _ in range(2)]
    finally:
        await http.aclose()
    assert statuses == want_statuses, reason
    assert [header(h, b"authorization") for h in server.heads] == want_tokens, reason
    assert auth.flows == want_flows, reason


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


@pytest.mark.parametrize("via", ["transport", "client"])
@pytest.mark.parametrize(
    ("allow", "want_requests"),
    [
        pytest.param(1, 1, id="allowed: sent"),
        pytest.param(0, 0, id="refused: not one byte leaves"),
    ],
)
async def test_a_write_fence_is_checked_as_the_bytes_leave(
    serve: Start, allow: int, want_requests: int, via: str
) -> None:
    """The fence is checked right before the socket write (leader election's fencing), by the httpx2
    transport and by ``Http11Client`` alike; a small request leaves at once, so there is nothing to
    confirm after it."""
    server = await serve(Server([OK]))
    fence = Fence(allow)

    async def send() -> int:
        if via == "client":
            http = client(server)
            try:
                return (await http.send("PATCH", "api/v1/x", body=b"{}", fence=fence)).status
            finally:
                await http.aclose()
        transport = _http.Http11Transport(None, max_idle=4)
        async with httpx2.AsyncClient(base_url=f"http://127.0.0.1:{server.port}", transport=transport) as c:
            request = c.build_request(
                "PATCH", "/api/v1/x", content=b"{}", extensions={_http.WRITE_FENCE: fence}
            )
            return (await c.send(request)).status_code

    if allow:
        assert await send() == 200
    else:
        with pytest.raises(_api.Fenced):
            await send()
    await asyncio.sleep(0.05)
    assert len(server.requests) == want_requests
    assert (fence.checks, fence.sent_calls) == (1, 0)


# -- streams (watches) ---------------------------------------------------------------------------

WATCH_HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"


def chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)


@dataclasses.dataclass
class Streaming:
    """A server that reads one request per connection and writes ``pieces`` (a pause between each); then it
    ends the connection, or holds it open when ``hold``; notes when the client hangs up."""

    pieces: list[bytes]
    hold: bool = False
    heads: list[bytes] = dataclasses.field(default_factory=list)
    hung_up: asyncio.Event = dataclasses.field(default_factory=asyncio.Event)
    port: int = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            self.heads.append(await reader.readuntil(b"\r\n\r\n"))
            for piece in self.pieces:
                writer.write(piece)
                await writer.drain()
                await asyncio.sleep(0.005)
            if self.hold:
                while await reader.read(1024):
                    pass
                self.hung_up.set()
        except ConnectionError:
            self.hung_up.set()
        finally:
            writer.close()


async def stream_lines(
    server: Streaming, *, idle: float | None = 5.0, auth: httpx2.Auth | None = None
) -> list[bytes] | str:
    """The lines of one streamed GET, or the name of the error it ended with (or ``Reply <status> <body>``)."""
    http = _http.Http11Client(
        f"http://127.0.0.1:{server.port}",
        None,
        auth,
        headers=[("Accept", "application/json")],
        timeout=httpx2.Timeout(5.0),
        max_idle=4,
    )
    lines: list[bytes] = []
    try:
        opened = await http.stream("GET", "api/v1/x", params={"watch": "true"}, idle=idle)
        if isinstance(opened, _http.Reply):
            return f"Reply {opened.status} {opened.content!r}"
        try:
            async for line in opened.lines():
                lines.append(line)
        finally:
            opened.close()
    except httpx2.HTTPError as exc:
        return f"{type(exc).__name__} after {lines}"
    finally:
        await http.aclose()
    return lines


@pytest.mark.parametrize(
    ("pieces", "want", "reason"),
    [
        pytest.param(
            [WATCH_HEAD, chunk(b'{"a":1}\n'), chunk(b'{"b":2}\n'), b"0\r\n\r\n"],
            [b'{"a":1}', b'{"b":2}'],
            "one event a chunk, as the API server flushes them; the last chunk ends the stream",
            id="chunk-per-event",
        ),
        pytest.param(
            [WATCH_HEAD, chunk(b'{"a"'), chunk(b':1}\n{"b"'), chunk(b":2}\n\n"), b"0\r\nX-T: 1\r\n\r\n"],
            [b'{"a":1}', b'{"b":2}'],
            "an event over several chunks and two in one are split at newlines; blank lines and trailers skipped",
            id="split-events",
        ),
        pytest.param(
            [WATCH_HEAD + chunk(b'{"a":1}\r\n') + chunk(b'{"b":2}') + b"0\r\n\r\n"],
            [b'{"a":1}\r', b'{"b":2}'],
            "all in one read; a CR stays (JSON reads it as whitespace); the last line needs no newline",
            id="one-read",
        ),
        pytest.param(
            [b"HTTP/1.1 200 OK\r\nContent-Length: 16\r\n\r\n", b'{"a":1}\n{"b":2}\nNOT-READ'],
            [b'{"a":1}', b'{"b":2}'],
            "a body with a length ends there",
            id="content-length",
        ),
        pytest.param(
            [b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n", b'{"a":1}\n', b'{"b":2}\n'],
            [b'{"a":1}', b'{"b":2}'],
            "a body with neither length nor chunks ends with the connection",
            id="until-close",
        ),
        pytest.param(
            [WATCH_HEAD, chunk(b'{"a":1}\n'), b"20\r\n{"],
            "RemoteProtocolError after [b'{\"a\":1}']",
            "a stream cut inside a chunk is an error after the events read whole, not a clean end",
            id="cut",
        ),
        pytest.param(
            [WATCH_HEAD, chunk(b'{"a":1}\n'), b"4\r\n{}\n\nXX"],
            "RemoteProtocolError after [b'{\"a\":1}']",
            "a chunk not followed by CRLF is malformed",
            id="bad-chunk",
        ),
        pytest.param(
            [b"HTTP/1.1 410 Gone\r\nContent-Length: 9\r\n\r\n", b'{"c":410}'],
            "Reply 410 b'{\"c\":410}'",
            "an answer that is not 2xx is read whole, for the caller's error",
            id="error-status",
        ),
        pytest.param(
            [WATCH_HEAD, chunk(b'{"a":1}\n')],
            "RemoteProtocolError after [b'{\"a\":1}']",
            "a connection that ends without the last chunk is an error",
            id="no-last-chunk",
        ),
    ],
)
async def test_stream_lines(pieces: list[bytes], want: list[bytes] | str, reason: str) -> None:
    server = Streaming(pieces)
    listening = await asyncio.start_server(server.handle, "127.0.0.1", 0)
    server.port = listening.sockets[0].getsockname()[1]
    try:
        assert await stream_lines(server) == want, reason
    finally:
        listening.close()
        await listening.wait_closed()
    assert server.heads[0].startswith(b"GET /api/v1/x?watch=true HTTP/1.1\r\n")


async def test_a_stream_with_a_bad_length_fails_and_hangs_up_at_once() -> None:
    """An answer whose Content-Length is no number is a protocol error, and its connection is dropped
    then, not when the client closes (before: a bare ValueError, the socket kept busy)."""
    server = Streaming([b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n{}\n"], hold=True)
    listening = await asyncio.start_server(server.handle, "127.0.0.1", 0)
    server.port = listening.sockets[0].getsockname()[1]
    http = _http.Http11Client(
        f"http://127.0.0.1:{server.port}", None, None, headers=[], timeout=httpx2.Timeout(5.0), max_idle=4
    )
    try:
        with pytest.raises(httpx2.RemoteProtocolError, match="malformed response"):
            await http.stream("GET", "api/v1/x", params={"watch": "true"}, idle=5.0)
        async with asyncio.timeout(2):
            await server.hung_up.wait()  # while the client is still open
    finally:
        await http.aclose()
        listening.close()
        await listening.wait_closed()


async def test_stream_renews_credentials_after_a_401(serve: Start) -> None:
    """A watch is authenticated as a request is: a 401 asks the flow again and the watch goes once more."""
    server = Heads([UNAUTHORIZED, b'HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\n{"a":1}\n'])
    await serve(server)
    auth = Tokens("old", "new")
    got = await stream_lines(Streaming([], port=server.port), auth=auth)
    assert got == [b'{"a":1}']
    assert [header(h, b"authorization") for h in server.heads] == [b"Bearer old", b"Bearer new"]


async def test_a_silent_stream_times_out_and_hangs_up() -> None:
    """No byte for longer than ``idle``: the stream fails as a read timeout and its connection is closed."""
    server = Streaming([WATCH_HEAD, chunk(b'{"a":1}\n')], hold=True)
    listening = await asyncio.start_server(server.handle, "127.0.0.1", 0)
    server.port = listening.sockets[0].getsockname()[1]
    try:
        assert await stream_lines(server, idle=0.2) == "ReadTimeout after [b'{\"a\":1}']"
        async with asyncio.timeout(5):
            await server.hung_up.wait()
    finally:
        listening.close()
        await listening.wait_closed()


@pytest.mark.parametrize("how", ["stream closed", "client closed"])
async def test_an_open_stream_is_closed_with_its_client(how: str) -> None:
    """A stream stopped half way (an informer stopping) or one its client outlives hangs up at once."""
    server = Streaming([WATCH_HEAD, chunk(b'{"a":1}\n')], hold=True)
    listening = await asyncio.start_server(server.handle, "127.0.0.1", 0)
    server.port = listening.sockets[0].getsockname()[1]
    http = _http.Http11Client(
        f"http://127.0.0.1:{server.port}", None, None, headers=[], timeout=httpx2.Timeout(60.0), max_idle=4
    )
    try:
        opened = await http.stream("GET", "api/v1/x", idle=60.0)
        assert isinstance(opened, _http.Stream)
        lines = opened.lines()
        assert await anext(lines) == b'{"a":1}'
        if how == "stream closed":
            opened.close()
        else:
            await http.aclose()
        async with asyncio.timeout(2):  # well before any timeout could end it
            await server.hung_up.wait()
        with pytest.raises(httpx2.HTTPError):
            await anext(lines)
    finally:
        await http.aclose()
        listening.close()
        await listening.wait_closed()


async def test_a_stream_cancelled_in_its_tls_handshake_closes_its_socket() -> None:
    """An informer stopped while its watch connects leaves no socket open (it would leak at loop end)."""
    accepted, hung_up = asyncio.Event(), asyncio.Event()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted.set()  # and never answer the ClientHello: the handshake hangs
        await reader.read()  # until the client hangs up
        hung_up.set()
        writer.close()

    listening = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = listening.sockets[0].getsockname()[1]
    http = _http.Http11Client(
        f"https://127.0.0.1:{port}", ssl.create_default_context(), None, headers=[],
        timeout=httpx2.Timeout(60.0), max_idle=4,
    )  # fmt: skip
    try:
        watch = asyncio.create_task(http.stream("GET", "api/v1/pods", idle=60.0))
        await accepted.wait()
        await asyncio.sleep(0.05)  # into the handshake
        watch.cancel()
        with pytest.raises(asyncio.CancelledError):
            await watch
        async with asyncio.timeout(5):
            await hung_up.wait()
    finally:
        await http.aclose()
        listening.close()
        await listening.wait_closed()


# -- deadlines -------------------------------------------------------------------------------------

HANG = None
STALLED = b'HTTP/1.1 200 OK\r\n\r\n{"partial":'
"""An answer with neither length nor chunks (its body ends with the connection) that stops half way."""
"""In a :class:`Paced` script: never answer (until the client hangs up)."""


@dataclasses.dataclass
class Paced:
    """A server answering each request of one connection after a pause, or never (:data:`HANG`)."""

    script: list[tuple[float, bytes | None]]
    connections: int = 0
    hung_up: asyncio.Event = dataclasses.field(default_factory=asyncio.Event)

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while self.script:
                await reader.readuntil(b"\r\n\r\n")
                pause, answer = self.script.pop(0)
                if answer is HANG:
                    while await reader.read(1024):
                        pass
                    break
                await asyncio.sleep(pause)
                writer.write(answer)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self.hung_up.set()
            writer.close()


@pytest.mark.parametrize(
    ("script", "timeout", "idle", "want", "want_connections", "reason"),
    [
        pytest.param(
            [(0.0, HANG)], 0.25, 0.0, ["ReadTimeout"], 1,
            "a server that never answers: the request fails at its deadline", id="no-answer",
        ),
        pytest.param(
            [(0.6, OK), (0.8, OK)], 1.0, 0.0, [200, 200], 1,
            "the second exchange (0.6 s to 1.4 s) has its own deadline (1.6 s), past the first one's (1.0 s)",
            id="deadline-moves-on",
        ),
        pytest.param(
            [(0.3, OK), (0.0, HANG)], 0.5, 0.0, [200, "ReadTimeout"], 1,
            "and it is kept: the second one still ends at its deadline", id="moved-deadline-holds",
        ),
        pytest.param(
            [(0.0, STALLED), (0.0, HANG)], 0.25, 0.0, ["ReadTimeout"], 1,
            "a body that ends with the connection, stalled half way, fails at its deadline: the deadline's "
            "abort is no end of the body (before: a 200 with the bytes so far)", id="until-close-stalled",
        ),
        pytest.param(
            [(0.0, OK), (0.0, OK)], 0.25, 0.4, [200, 200], 1,
            "a connection idle past the deadline of its last exchange is not cut: it carries the next request",
            id="idle-past-deadline",
        ),
    ],
)  # fmt: skip
async def test_an_exchange_ends_at_its_deadline(
    *,
    script: list[tuple[float, bytes | None]],
    timeout: float,
    idle: float,
    want: list[object],
    want_connections: int,
    reason: str,
) -> None:
    server = Paced(list(script))
    listening = await asyncio.start_server(server.handle, "127.0.0.1", 0)
    port = listening.sockets[0].getsockname()[1]
    http = _http.Http11Client(
        f"http://127.0.0.1:{port}", None, None, headers=[], timeout=httpx2.Timeout(timeout), max_idle=4
    )
    got: list[object] = []
    try:
        for _ in want:
            try:
                got.append((await http.send("GET", "api/v1/x")).status)
            except httpx2.HTTPError as exc:
                got.append(type(exc).__name__)
            await asyncio.sleep(idle)
        if "ReadTimeout" in got:
            async with asyncio.timeout(2):
                await server.hung_up.wait()  # the timed-out connection was closed
    finally:
        await http.aclose()
        listening.close()
        await listening.wait_closed()
    assert got == want, reason
    assert server.connections == want_connections, reason
