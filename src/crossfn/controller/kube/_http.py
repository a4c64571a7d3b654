"""A lean HTTP/1.1 client for the controller's requests to the API server.

``KubeApi`` makes several requests per composed resource, so what a request
costs the controller's CPU is most of what a reconcile costs. httpx2 (with
httpcore and anyio) builds a URL, headers, a request, a response and an auth
flow per request: measured on envtest, about 0.4 ms of CPU per server-side apply
against 0.13 ms for the same request written as bytes (``docs/performance.md``,
"Controller"). So :class:`Http11Client` writes each request as one buffer on
an asyncio stream (request line, headers and body together: one TLS record,
one system call) and reads the response with ``readuntil``/``readexactly``.
httpx2 still does what it is good at once per credential, not per request: the
kubeconfig's authentication (tokens, rotating token files, exec plugins, basic
auth) is an ``httpx2.Auth`` whose flow this client drives for the headers it
sets, reusing them until the API server answers 401, when the flow is asked
again (a rotated token file is re-read, an exec plugin run) and the request
sent once more, as httpx2 would.

Only what the API server speaks is supported: HTTP/1.1 keep-alive, bodies
with ``Content-Length`` or chunked, identity encoding (``Accept-Encoding`` is
not sent: a controller near its API server spends CPU, not bandwidth).
Connections are kept idle for reuse, as many as requests may be in flight; an
idle connection the server has closed is noticed by the event loop (EOF) and
dropped before reuse. Should the server close one just as a request goes out,
the request is sent again on a new connection unless it is a POST (a create
must not happen twice). Errors are httpx2's, so the client above treats them
as it treats httpcore's. A write carrying a fence (leader election) is checked
in the same step as the socket write, so a replica frozen past its renew
deadline sends nothing when it resumes. :class:`Http11Transport` is the same
connection pool as an httpx2 transport (its fence in the request extension
:data:`WRITE_FENCE`), for callers that want an ``httpx2.AsyncClient``.

Watches go through the same client (:meth:`Http11Client.stream`), each on a
connection of its own outside the pool: the chunked body is read as it arrives
and split into lines as bytes (one JSON event a line, for msgspec as it is),
with no per-read timer: a watchdog per stream ends a connection silent for
longer than its idle limit. httpx2's streaming over httpcore and anyio cost a
watch event several times that (anyio pauses and resumes the socket's reader
around every read, a selector change each).
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import re
import ssl
import urllib.parse
from collections.abc import AsyncGenerator, AsyncIterator, Mapping, Sequence

import httpx2

from crossfn import errors
from crossfn.controller.kube import _api

__all__ = ["WRITE_FENCE", "Http11Client", "Http11Transport", "Reply", "Stream"]

WRITE_FENCE = "crossfn.write_fence"
"""The request extension holding a write's :class:`~crossfn.controller.kube._api.WriteFence`: checked
right before the request's bytes are written, and after they left when some had to wait."""

_SKIP_HEADERS = frozenset({b"accept-encoding", b"connection"})
_CLOSE_SECONDS = 1.0
"""How long a closing connection may wait for the server's TLS goodbye before it is cut."""
_HEAD_LIMIT = 1 << 20
"""Longest status line plus headers accepted (the API server's are a few hundred bytes)."""
_PATH_SAFE = re.compile(r"[A-Za-z0-9._~/:@!$&'()*+,;=-]*")
"""A path made only of these characters is sent as it is; any other is percent-encoded first."""

_QUERY_ESCAPES = {c: f"%{c:02X}" for c in range(128) if not (chr(c).isalnum() or chr(c) in "_.-~")} | {
    32: "+"
}
"""``urllib.parse.quote_plus`` of an ASCII text as one ``str.translate`` table."""


def _query_text(text: str) -> str:
    return text.translate(_QUERY_ESCAPES) if text.isascii() else urllib.parse.quote_plus(text)


_QUERIES: dict[tuple[tuple[str, str], ...], str] = {}
"""Queries written so far, by their parameters: most requests repeat a few (a field manager and
``force``); emptied when it reaches :data:`_QUERIES_MAX`, so watches' versions cannot grow it."""
_QUERIES_MAX = 256


def query(params: Mapping[str, str]) -> str:
    """``urllib.parse.urlencode(params)``, at a fraction of its CPU for the ASCII names and values
    every request carries (a field manager, ``force``, a label selector)."""
    key = tuple(params.items())
    found = _QUERIES.get(key)
    if found is None:
        found = "&".join(f"{_query_text(k)}={_query_text(str(v))}" for k, v in key)
        if len(_QUERIES) >= _QUERIES_MAX:
            _QUERIES.clear()
        _QUERIES[key] = found
    return found


_Key = tuple[str, str, int]
"""scheme, host, port."""


@dataclasses.dataclass(frozen=True)
class Reply:
    """A response read whole: status, reason phrase, headers (as sent) and body."""

    status: int
    reason: str
    headers: list[tuple[bytes, bytes]]
    content: bytes

    def header(self, name: str) -> str | None:
        """The first header called ``name`` (any case), or ``None``."""
        return _header(self.headers, name)

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")


class _Connection:
    """A kept-alive connection and the deadline of the exchange on it.

    An exchange past its deadline has its connection aborted, so the read waiting on it ends at
    once; :attr:`timed_out` tells why. One timer per connection serves every exchange: it is
    moved only when it fires before the deadline in force (or an exchange needs an earlier
    one), not created and cancelled per request as an ``asyncio.timeout`` is.
    """

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.timed_out = False
        self._loop = asyncio.get_running_loop()
        self._deadline: float | None = None
        self._timer: asyncio.TimerHandle | None = None

    @property
    def usable(self) -> bool:
        return not self.reader.at_eof() and not self.writer.is_closing()

    def start(self, seconds: float | None) -> None:
        """An exchange begins: abort the connection should it not end within ``seconds`` (``None``: no limit)."""
        if seconds is None:
            return
        self._deadline = deadline = self._loop.time() + seconds
        if self._timer is not None and self._timer.when() > deadline:
            self._timer.cancel()
            self._timer = None
        if self._timer is None:
            self._timer = self._loop.call_at(deadline, self._expire)

    def finish(self) -> None:
        """The exchange ended: no deadline until the next one."""
        self._deadline = None

    def _expire(self) -> None:
        self._timer = None
        if self._deadline is None:
            return  # idle: the next exchange arms the timer again
        if self._loop.time() < self._deadline:
            self._timer = self._loop.call_at(self._deadline, self._expire)
            return
        self.timed_out = True
        self.abort()

    def abort(self) -> None:
        """Drop the connection at once, without a TLS goodbye: for one whose exchange failed or was cancelled."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.writer.transport.abort()

    async def close(self) -> None:
        """Close and wait until the socket is released (a TLS goodbye takes a loop turn or two).

        Cancelled while waiting, it aborts: a goodbye left half done would keep the socket open
        past the event loop's end (an unclosed socket, a ResourceWarning).
        """
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.writer.close()
        try:
            async with asyncio.timeout(_CLOSE_SECONDS):
                await self.writer.wait_closed()
        except (TimeoutError, OSError, ssl.SSLError):
            self.abort()
        except asyncio.CancelledError:
            self.abort()
            raise


class _ClosedBeforeAnswerError(errors.CrossfnError):
    """A reused connection ended before any byte of the response: the request may go again."""


class _Pool:
    """Kept-alive HTTP/1.1 connections per host (up to ``max_idle`` idle each) and one exchange on them."""

    def __init__(self, ssl_context: ssl.SSLContext | None, *, max_idle: int) -> None:
        self._ssl = ssl_context
        self._max_idle = max_idle
        self._idle: dict[_Key, collections.deque[_Connection]] = {}
        self._busy: set[_Connection] = set()
        self._closed = False

    async def exchange(
        self,
        key: _Key,
        message: bytes,
        *,
        resend: bool,
        read: float | None,
        connect: float | None,
        request: httpx2.Request | None = None,
        fence: _api.WriteFence | None = None,
    ) -> Reply:
        """Send ``message`` on a kept-alive connection (or a new one) and read the whole answer.

        A reused connection the server closed before answering is replaced and the
        request sent again, unless ``resend`` is false (a POST). ``fence`` is checked
        right before the bytes are written, and told when they left after a wait.
        """
        conn = self._take(key)
        if conn is not None:
            try:
                return await self._exchange(conn, key, message, read, request, fence=fence)
            except _ClosedBeforeAnswerError:
                if not resend:
                    raise httpx2.RemoteProtocolError(
                        "the server closed the connection", request=request
                    ) from None
        conn = await self._connect(key, connect, request)
        try:
            return await self._exchange(conn, key, message, read, request, fence=fence)
        except _ClosedBeforeAnswerError:
            raise httpx2.RemoteProtocolError("the server closed the connection", request=request) from None

    def _take(self, key: _Key) -> _Connection | None:
        idle = self._idle.get(key)
        while idle:
            conn = idle.pop()
            if conn.usable:
                return conn
            conn.abort()  # the server has gone: no goodbye to wait for
        return None

    async def _give_back(self, key: _Key, conn: _Connection) -> None:
        idle = self._idle.setdefault(key, collections.deque())
        if self._closed or len(idle) >= self._max_idle or not conn.usable:
            await conn.close()
        else:
            idle.append(conn)

    async def _connect(self, key: _Key, timeout: float | None, request: httpx2.Request | None) -> _Connection:
        scheme, host, port = key
        if self._closed:
            raise httpx2.ConnectError(
                f"cannot connect to {host}:{port}: the client is closed", request=request
            )
        tls = self._ssl if scheme == "https" else None
        try:
            async with asyncio.timeout(timeout):
                reader, writer = await asyncio.open_connection(
                    host, port, ssl=tls, server_hostname=host if tls else None, limit=_HEAD_LIMIT
                )
        except TimeoutError as exc:
            raise httpx2.ConnectTimeout(
                f"cannot connect to {host}:{port}: timed out", request=request
            ) from exc
        except (OSError, ssl.SSLError) as exc:
            raise httpx2.ConnectError(f"cannot connect to {host}:{port}: {exc}", request=request) from exc
        return _Connection(reader, writer)

    async def _exchange(
        self,
        conn: _Connection,
        key: _Key,
        message: bytes,
        read: float | None,
        request: httpx2.Request | None,
        *,
        fence: _api.WriteFence | None,
    ) -> Reply:
        """Send ``message``, read the answer; the connection goes back to the pool or is closed.

        On every path: one that failed or was cancelled is aborted at once (no await in a
        cancelled task's way), one read whole but not to be kept is closed politely.
        """
        reuse = answered = done = False
        self._busy.add(conn)
        conn.start(read)
        try:
            if fence is not None:
                fence.check()  # the last moment before the bytes leave: nothing awaits in between
            conn.writer.write(message)
            unsent = conn.writer.transport.get_write_buffer_size()
            await conn.writer.drain()
            if fence is not None and unsent:
                fence.sent()
            status, reason, headers, keep = await _read_head(conn.reader)
            answered = True
            content = await _read_body(conn.reader, headers, status)
            if conn.timed_out:  # a body read to the connection's end takes the deadline's abort for that end
                raise httpx2.ReadTimeout("timed out waiting for the API server", request=request)
            done, reuse = True, keep  # only a connection whose answer was read whole can carry another
        except _EXCHANGE_ERRORS as exc:
            if conn.timed_out:
                raise httpx2.ReadTimeout("timed out waiting for the API server", request=request) from exc
            if not answered and _closed_before_answer(exc):
                raise _ClosedBeforeAnswerError from exc
            raise _transport_error(exc, request) from exc
        finally:
            conn.finish()
            self._busy.discard(conn)
            if not done:
                conn.abort()
            elif reuse:
                await self._give_back(key, conn)
            else:
                await conn.close()
        return Reply(status, reason.decode("latin-1"), headers, content)

    async def open(
        self, key: _Key, message: bytes, *, read: float | None, connect: float | None, idle: float | None
    ) -> Stream:
        """Send ``message`` on a new connection of its own and read the answer's head: a :class:`Stream`.

        The connection is never pooled (a watch holds it for minutes); the pool aborts it when it
        closes, as it does those in use, should the stream still be open.
        """
        conn = await self._connect(key, connect, None)
        self._busy.add(conn)
        try:
            async with asyncio.timeout(read):
                conn.writer.write(message)
                await conn.writer.drain()
                status, reason, headers, _ = await _read_head(conn.reader)
                return Stream(self, conn, status, reason.decode("latin-1"), headers, idle=idle)
        except BaseException as exc:  # a bad head (a Content-Length that is no number) included
            self._busy.discard(conn)
            conn.abort()
            if isinstance(exc, _EXCHANGE_ERRORS):
                raise _transport_error(exc, None) from exc
            raise

    async def aclose(self) -> None:
        """Close the idle connections and abort those in use (their requests fail): none outlives the pool.

        A request still in flight here belongs to a task nobody waits for; were its connection
        left to close "when the request ends", the event loop could end first and leak the socket.
        """
        self._closed = True
        idle = [conn for pool in self._idle.values() for conn in pool]
        self._idle.clear()
        for conn in self._busy:
            conn.abort()
        await asyncio.gather(*(conn.close() for conn in idle))


_EXCHANGE_ERRORS = (
    asyncio.IncompleteReadError, TimeoutError, ConnectionError, ssl.SSLError, ValueError, asyncio.LimitOverrunError
)  # fmt: skip
"""What an exchange on a connection may raise, each turned into httpx2's error by :func:`_transport_error`."""


def _closed_before_answer(exc: BaseException) -> bool:
    """Whether ``exc``, raised before any byte of the answer came, says the server had closed the connection."""
    if isinstance(exc, asyncio.IncompleteReadError):
        return not exc.partial
    return isinstance(exc, ConnectionResetError | BrokenPipeError)


def _transport_error(exc: BaseException, request: httpx2.Request | None) -> httpx2.HTTPError:
    """httpx2's error for a failed exchange (one of :data:`_EXCHANGE_ERRORS`), as httpcore raises them."""
    if isinstance(exc, asyncio.IncompleteReadError):
        return httpx2.RemoteProtocolError(f"incomplete response: {exc}", request=request)
    if isinstance(exc, TimeoutError):
        return httpx2.ReadTimeout("timed out waiting for the API server", request=request)
    if isinstance(exc, ConnectionError | ssl.SSLError):
        return httpx2.ReadError(str(exc) or type(exc).__name__, request=request)
    return httpx2.RemoteProtocolError(f"malformed response: {exc}", request=request)


_PIECE = 1 << 16
"""The most bytes read at once from a body that is not chunked."""


class Stream:
    """An answer whose body is read as it arrives (a watch): status, reason, headers, then :meth:`lines`.

    It holds a connection of its own until :meth:`close`, which always aborts it (a stream
    read half way cannot carry another request, and an abort never awaits, so closing in a
    cancelled task leaks nothing). ``idle`` bounds the seconds between two pieces of the
    body: one timer per stream, re-armed only when it fires, not a timeout per read.
    """

    def __init__(
        self,
        pool: _Pool,
        conn: _Connection,
        status: int,
        reason: str,
        headers: list[tuple[bytes, bytes]],
        *,
        idle: float | None,
    ) -> None:
        self.status = status
        self.reason = reason
        self.headers = headers
        self._pool = pool
        self._conn = conn
        fields = {name.lower(): value for name, value in headers}
        self._chunked = fields.get(b"transfer-encoding", b"").lower().endswith(b"chunked")
        length = fields.get(b"content-length")
        self._remaining = None if self._chunked or length is None else int(length)
        self._loop = asyncio.get_running_loop()
        self._idle = idle
        self._last = self._loop.time()
        self._timed_out = False
        self._watchdog: asyncio.TimerHandle | None = None
        if idle is not None and status not in (204, 304):
            self._watchdog = self._loop.call_at(self._last + idle, self._check_idle)

    def header(self, name: str) -> str | None:
        """The first header called ``name`` (any case), or ``None``."""
        return _header(self.headers, name)

    def _check_idle(self) -> None:
        assert self._idle is not None
        due = self._last + self._idle
        if self._loop.time() < due:
            self._watchdog = self._loop.call_at(due, self._check_idle)
            return
        self._watchdog = None
        self._timed_out = True
        self._conn.abort()  # the read waiting on it ends at once (EOF), and says why

    async def read(self) -> bytes:
        """The whole body (an error's ``Status``); the stream is closed after."""
        try:
            return b"".join([piece async for piece in self._pieces()])
        finally:
            self.close()

    async def lines(self) -> AsyncGenerator[bytes, None]:
        """The body's non-blank lines, as bytes, as they arrive: a watch's events, one JSON object a line.

        A line's ``\\r`` stays (JSON reads it as whitespace); the last line needs no newline.
        """
        pending = b""
        async for piece in self._pieces():
            if b"\n" not in piece:
                pending += piece
                continue
            lines = piece.split(b"\n")
            lines[0] = pending + lines[0]
            pending = lines.pop()
            for line in lines:
                if line and not line.isspace():
                    yield line
        if pending and not pending.isspace():
            yield pending

    async def _pieces(self) -> AsyncIterator[bytes]:
        """The body's bytes as they come (chunked framing removed); httpx2's errors when it fails."""
        if self.status in (204, 304):
            return
        reader = self._conn.reader
        try:
            while True:
                if self._chunked:
                    chunk = await _read_chunk(reader)
                    if chunk is None:
                        return
                    piece = chunk
                elif self._remaining is not None:
                    if not self._remaining:
                        return
                    piece = await reader.read(min(self._remaining, _PIECE))
                    if not piece:
                        raise asyncio.IncompleteReadError(b"", self._remaining)
                    self._remaining -= len(piece)
                else:
                    piece = await reader.read(_PIECE)
                    if not piece:
                        if self._timed_out:
                            raise TimeoutError
                        return  # no length: the body ends with the connection
                self._last = self._loop.time()
                yield piece
        except _EXCHANGE_ERRORS as exc:
            if self._timed_out:
                raise httpx2.ReadTimeout("timed out waiting for the API server") from exc
            raise _transport_error(exc, None) from exc

    def close(self) -> None:
        """Abort the connection (idempotent): a stream is never reused."""
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None
        self._pool._busy.discard(self._conn)
        self._conn.abort()


def _header(headers: list[tuple[bytes, bytes]], name: str) -> str | None:
    wanted = name.lower().encode()
    for key, value in headers:
        if key.lower() == wanted:
            return value.decode("latin-1")
    return None


def _key(url: httpx2.URL) -> _Key:
    return url.scheme, url.host, url.port or (443 if url.scheme == "https" else 80)


class Http11Transport(httpx2.AsyncBaseTransport):
    """The connection pool of this module as an httpx2 transport (up to ``max_idle`` idle per host)."""

    def __init__(self, ssl_context: ssl.SSLContext | None, *, max_idle: int) -> None:
        self._pool = _Pool(ssl_context, max_idle=max_idle)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        url = request.url
        body = await request.aread()
        head = [b"%s %s HTTP/1.1\r\n" % (request.method.encode(), url.raw_path)]
        head += [b"%s: %s\r\n" % (k, v) for k, v in request.headers.raw if k.lower() not in _SKIP_HEADERS]
        timeouts: dict[str, float | None] = request.extensions.get("timeout", {})
        reply = await self._pool.exchange(
            _key(url),
            b"".join(head) + b"\r\n" + body,
            resend=request.method != "POST",
            read=timeouts.get("read"),
            connect=timeouts.get("connect"),
            request=request,
            fence=request.extensions.get(WRITE_FENCE),
        )
        return httpx2.Response(
            reply.status,
            headers=reply.headers,
            content=reply.content,
            request=request,
            extensions={"http_version": b"HTTP/1.1", "reason_phrase": reply.reason.encode("latin-1")},
        )

    async def aclose(self) -> None:
        await self._pool.aclose()


class Http11Client:
    """Requests to one API server: each written as bytes on a pooled connection, authenticated by ``auth``.

    ``server`` is the base URL (a path prefix, as behind some proxies, is kept);
    ``headers`` go with every request (a name may repeat); ``timeout`` bounds the connect and each
    request's exchange. At most ``max_idle`` idle connections are kept: as many
    as the caller lets requests be in flight.
    """

    def __init__(
        self,
        server: str,
        ssl_context: ssl.SSLContext | None,
        auth: httpx2.Auth | None,
        *,
        headers: Sequence[tuple[str, str]],
        timeout: httpx2.Timeout,
        max_idle: int,
    ) -> None:
        url = httpx2.URL(server)
        self.server = str(url).rstrip("/")
        self._key = _key(url)
        self._prefix = url.raw_path.decode("ascii").rstrip("/") + "/"
        lines = [("Host", url.netloc.decode("ascii")), *headers]
        self._head = "".join(f"{k}: {v}\r\n" for k, v in lines).encode("latin-1")
        self._pool = _Pool(ssl_context, max_idle=max_idle)
        self._auth = auth
        self._credentials: bytes | None = None if auth is not None else b""
        self._read = timeout.read
        self._connect = timeout.connect
        self._server_url = server

    async def send(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str] | None = None,
        body: bytes | None = None,
        content_type: str = "",
        fence: _api.WriteFence | None = None,
    ) -> Reply:
        """``method`` on ``path`` (relative to the server's URL) with ``params``; the whole answer.

        ``fence`` is checked right before the request's bytes are written (each time they are).
        """
        target = self._target(path, params)
        extra = b""
        if body is not None:
            extra = b"Content-Type: %s\r\nContent-Length: %d\r\n" % (
                content_type.encode("latin-1"),
                len(body),
            )
        if self._credentials is None:  # the first request: the flow's first step always gives headers
            self._credentials = await self._authenticate(None) or b""
        reply = await self._exchange(method, target, self._credentials, extra, body, fence=fence)
        if reply.status == 401 and self._auth is not None:
            renewed = await self._authenticate(reply)
            if renewed is not None:
                self._credentials = renewed
                reply = await self._exchange(method, target, renewed, extra, body, fence=fence)
        return reply

    async def stream(
        self, method: str, path: str, *, params: Mapping[str, str] | None = None, idle: float | None
    ) -> Stream | Reply:
        """``method`` on ``path`` with ``params``: a :class:`Stream` of a 2xx answer's body, to be read as
        it arrives (a watch); any other answer read whole (a :class:`Reply`).

        The request goes on a connection of its own, outside the pool and its idle connections.
        ``idle`` bounds the seconds the server may stay silent (``None``: forever). Authenticated
        as :meth:`send` is: a 401 renews the credentials and the request goes once more.
        """
        target = self._target(path, params)
        if self._credentials is None:
            self._credentials = await self._authenticate(None) or b""
        opened = await self._open(method, target, self._credentials, idle)
        if isinstance(opened, Reply) and opened.status == 401 and self._auth is not None:
            renewed = await self._authenticate(opened)
            if renewed is not None:
                self._credentials = renewed
                opened = await self._open(method, target, renewed, idle)
        return opened

    async def _open(self, method: str, target: str, credentials: bytes, idle: float | None) -> Stream | Reply:
        message = b"".join(
            (method.encode("ascii"), b" ", target.encode("ascii"), b" HTTP/1.1\r\n", self._head, credentials, b"\r\n")
        )  # fmt: skip
        stream = await self._pool.open(self._key, message, read=self._read, connect=self._connect, idle=idle)
        if 200 <= stream.status < 300:
            return stream
        return Reply(stream.status, stream.reason, stream.headers, await stream.read())

    def _target(self, path: str, params: Mapping[str, str] | None) -> str:
        target = self._prefix + (path if _PATH_SAFE.fullmatch(path) else urllib.parse.quote(path))
        return target + "?" + query(params) if params else target

    async def _exchange(
        self,
        method: str,
        target: str,
        credentials: bytes,
        extra: bytes,
        body: bytes | None,
        *,
        fence: _api.WriteFence | None,
    ) -> Reply:
        message = b"".join(
            (method.encode("ascii"), b" ", target.encode("ascii"), b" HTTP/1.1\r\n", self._head, credentials, extra,
             b"\r\n", body or b"")
        )  # fmt: skip
        return await self._pool.exchange(
            self._key, message, resend=method != "POST", read=self._read, connect=self._connect, fence=fence
        )

    async def _authenticate(self, refused: Reply | None) -> bytes | None:
        """The header lines ``auth`` sets; after a 401 (``refused``), those it sets for a second try.

        The flow runs as httpx2 runs it for one request. Its first step gives the headers
        in use (a token file is read, an exec plugin run, the first time only); told of
        the 401 it renews them, or ends (``None``: the 401 stands).
        """
        assert self._auth is not None
        probe = httpx2.Request("GET", self._server_url)
        flow: AsyncGenerator[httpx2.Request, httpx2.Response] = self._auth.async_auth_flow(probe)
        try:
            request = await flow.__anext__()
            if refused is not None:
                response = httpx2.Response(
                    refused.status, headers=refused.headers, content=refused.content, request=request
                )
                try:
                    request = await flow.asend(response)
                except StopAsyncIteration:
                    return None
        finally:
            await flow.aclose()
        return b"".join(
            b"%s: %s\r\n" % (k, v) for k, v in request.headers.raw if k.lower() not in _PROBE_HEADERS
        )

    async def aclose(self) -> None:
        await self._pool.aclose()


_PROBE_HEADERS = frozenset({b"host", b"accept", b"accept-encoding", b"connection", b"user-agent"})
"""Headers an ``httpx2.Request`` has of its own: not the auth flow's, so not copied from it."""


async def _read_head(reader: asyncio.StreamReader) -> tuple[int, bytes, list[tuple[bytes, bytes]], bool]:
    """Status, reason, headers and whether the connection stays open; 1xx answers are skipped."""
    while True:
        raw = await reader.readuntil(b"\r\n\r\n")
        lines = raw[:-4].split(b"\r\n")
        version, _, rest = lines[0].partition(b" ")
        code, _, reason = rest.partition(b" ")
        status = int(code)
        if not version.startswith(b"HTTP/1.") or not 100 <= status <= 599:
            raise ValueError(f"bad status line {lines[0][:80]!r}")
        if status >= 200:
            break
    headers: list[tuple[bytes, bytes]] = []
    connection = b""
    for line in lines[1:]:
        name, sep, value = line.partition(b":")
        if not sep:
            raise ValueError(f"bad header line {line[:80]!r}")
        name, value = name.strip(), value.strip()
        headers.append((name, value))
        if name.lower() == b"connection":
            connection = value.lower()
    keep = connection != b"close" if version == b"HTTP/1.1" else connection == b"keep-alive"
    return status, reason, headers, keep


async def _read_body(reader: asyncio.StreamReader, headers: list[tuple[bytes, bytes]], status: int) -> bytes:
    if status in (204, 304):
        return b""
    fields = {name.lower(): value for name, value in headers}
    if fields.get(b"transfer-encoding", b"").lower().endswith(b"chunked"):
        return await _read_chunked(reader)
    if b"content-length" in fields:
        return await reader.readexactly(int(fields[b"content-length"]))
    return await reader.read()  # no length: the body ends with the connection (not reused: at EOF)


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    parts: list[bytes] = []
    while (chunk := await _read_chunk(reader)) is not None:
        parts.append(chunk)
    return b"".join(parts)


async def _read_chunk(reader: asyncio.StreamReader) -> bytes | None:
    """The next chunk's data of a chunked body (extensions ignored); ``None`` after the last chunk and
    its trailers. ``ValueError`` for a malformed one."""
    size = int((await reader.readuntil(b"\r\n"))[:-2].split(b";", 1)[0], 16)
    if size == 0:
        while await reader.readuntil(b"\r\n") != b"\r\n":  # trailers, if any
            pass
        return None
    data = await reader.readexactly(size + 2)
    if data[-2:] != b"\r\n":
        raise ValueError("chunk not followed by CRLF")
    return data[:-2]
