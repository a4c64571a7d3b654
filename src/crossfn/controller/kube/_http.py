"""A lean HTTP/1.1 transport for the controller's requests to the API server.

``KubeApi`` sends every request (not watches) through ``httpx2.AsyncClient``,
which keeps doing what it is good at: URLs, headers and the kubeconfig's
authentication (tokens, token files, exec plugins). Below it this transport
replaces httpcore and anyio, which cost about 0.6 ms of CPU per request
(``docs/performance.md``, "Controller"): the controller makes several requests
per composed resource, so that was most of its CPU. Here a request is one
write on an asyncio stream (headers and body together: one TLS record, one
system call) and the response is read with ``readuntil``/``readexactly``.

Only what the API server speaks is supported: HTTP/1.1 keep-alive, bodies
with ``Content-Length`` or chunked, identity encoding (``Accept-Encoding`` is
not sent: a controller near its API server spends CPU, not bandwidth).
Connections are kept idle for reuse, as many as requests may be in flight; an
idle connection the server has closed is noticed by the event loop (EOF) and
dropped before reuse. Should the server close one just as a request goes out,
the request is sent again on a new connection unless it is a POST (a create
must not happen twice). Errors are httpx2's, so the client above treats them
as it treats httpcore's. A write carrying a fence (:data:`WRITE_FENCE`, leader
election) is checked in the same step as the socket write, so a replica frozen
past its renew deadline sends nothing when it resumes.
"""

from __future__ import annotations

import asyncio
import collections
import ssl

import httpx2

from crossfn import errors
from crossfn.controller.kube import _api

__all__ = ["WRITE_FENCE", "Http11Transport"]

WRITE_FENCE = "crossfn.write_fence"
"""The request extension holding a write's :class:`~crossfn.controller.kube._api.WriteFence`: checked
right before the request's bytes are written, and after they left when some had to wait."""

_SKIP_HEADERS = frozenset({b"accept-encoding", b"connection"})
_CLOSE_SECONDS = 1.0
"""How long a closing connection may wait for the server's TLS goodbye before it is cut."""
_HEAD_LIMIT = 1 << 20
"""Longest status line plus headers accepted (the API server's are a few hundred bytes)."""


class _Connection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    @property
    def usable(self) -> bool:
        return not self.reader.at_eof() and not self.writer.is_closing()

    def abort(self) -> None:
        """Drop the connection at once, without a TLS goodbye: for one whose exchange failed or was cancelled."""
        self.writer.transport.abort()

    async def close(self) -> None:
        """Close and wait until the socket is released (a TLS goodbye takes a loop turn or two).

        Cancelled while waiting, it aborts: a goodbye left half done would keep the socket open
        past the event loop's end (an unclosed socket, a ResourceWarning).
        """
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


class Http11Transport(httpx2.AsyncBaseTransport):
    """HTTP/1.1 over asyncio streams, with up to ``max_idle`` connections kept alive per host."""

    def __init__(self, ssl_context: ssl.SSLContext | None, *, max_idle: int) -> None:
        self._ssl = ssl_context
        self._max_idle = max_idle
        self._idle: dict[tuple[str, str, int], collections.deque[_Connection]] = {}
        self._busy: set[_Connection] = set()
        self._closed = False

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        url = request.url
        key = (url.scheme, url.host, url.port or (443 if url.scheme == "https" else 80))
        body = await request.aread()
        head = [b"%s %s HTTP/1.1\r\n" % (request.method.encode(), url.raw_path)]
        head += [b"%s: %s\r\n" % (k, v) for k, v in request.headers.raw if k.lower() not in _SKIP_HEADERS]
        message = b"".join(head) + b"\r\n" + body
        timeouts: dict[str, float | None] = request.extensions.get("timeout", {})
        conn = self._take(key)
        if conn is not None:
            try:
                return await self._exchange(conn, key, message, request, timeouts)
            except _ClosedBeforeAnswerError:
                if request.method == "POST":
                    raise httpx2.RemoteProtocolError(
                        "the server closed the connection", request=request
                    ) from None
        conn = await self._connect(key, request, timeouts.get("connect"))
        try:
            return await self._exchange(conn, key, message, request, timeouts)
        except _ClosedBeforeAnswerError:
            raise httpx2.RemoteProtocolError("the server closed the connection", request=request) from None

    def _take(self, key: tuple[str, str, int]) -> _Connection | None:
        idle = self._idle.get(key)
        while idle:
            conn = idle.pop()
            if conn.usable:
                return conn
            conn.abort()  # the server has gone: no goodbye to wait for
        return None

    async def _give_back(self, key: tuple[str, str, int], conn: _Connection) -> None:
        idle = self._idle.setdefault(key, collections.deque())
        if self._closed or len(idle) >= self._max_idle or not conn.usable:
            await conn.close()
        else:
            idle.append(conn)

    async def _connect(
        self, key: tuple[str, str, int], request: httpx2.Request, timeout: float | None
    ) -> _Connection:
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
        key: tuple[str, str, int],
        message: bytes,
        request: httpx2.Request,
        timeouts: dict[str, float | None],
    ) -> httpx2.Response:
        """Send ``message``, read the answer; the connection goes back to the pool or is closed.

        On every path: one that failed or was cancelled is aborted at once (no await in a
        cancelled task's way), one read whole but not to be kept is closed politely.
        """
        reuse = answered = done = False
        self._busy.add(conn)
        try:
            async with asyncio.timeout(timeouts.get("read")):
                fence: _api.WriteFence | None = request.extensions.get(WRITE_FENCE)
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
                done, reuse = True, keep  # only a connection whose answer was read whole can carry another
        except asyncio.IncompleteReadError as exc:
            if not answered and not exc.partial:
                raise _ClosedBeforeAnswerError from exc
            raise httpx2.RemoteProtocolError(f"incomplete response: {exc}", request=request) from exc
        except TimeoutError as exc:
            raise httpx2.ReadTimeout("timed out waiting for the API server", request=request) from exc
        except (ConnectionError, ssl.SSLError) as exc:
            if not answered and isinstance(exc, ConnectionResetError | BrokenPipeError):
                raise _ClosedBeforeAnswerError from exc
            raise httpx2.ReadError(str(exc) or type(exc).__name__, request=request) from exc
        except (ValueError, asyncio.LimitOverrunError) as exc:
            raise httpx2.RemoteProtocolError(f"malformed response: {exc}", request=request) from exc
        finally:
            self._busy.discard(conn)
            if not done:
                conn.abort()
            elif reuse:
                await self._give_back(key, conn)
            else:
                await conn.close()
        return httpx2.Response(
            status,
            headers=headers,
            content=content,
            request=request,
            extensions={"http_version": b"HTTP/1.1", "reason_phrase": reason},
        )

    async def aclose(self) -> None:
        """Close the idle connections and abort those in use (their requests fail): none outlives the client.

        A request still in flight here belongs to a task nobody waits for; were its connection
        left to close "when the request ends", the event loop could end first and leak the socket.
        """
        self._closed = True
        idle = [conn for pool in self._idle.values() for conn in pool]
        self._idle.clear()
        for conn in self._busy:
            conn.abort()
        await asyncio.gather(*(conn.close() for conn in idle))


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
    while True:
        size = int((await reader.readuntil(b"\r\n"))[:-2].split(b";", 1)[0], 16)
        if size == 0:
            while await reader.readuntil(b"\r\n") != b"\r\n":  # trailers, if any
                pass
            return b"".join(parts)
        parts.append(await reader.readexactly(size))
        if await reader.readexactly(2) != b"\r\n":
            raise ValueError("chunk not followed by CRLF")
