"""``KubeApi``: the :class:`~crossfn.controller.kube._api.Api` Protocol over HTTP, on dict objects.

:mod:`._kubeconfig` reads the kubeconfig or the in-cluster service account
(every problem one line naming the file and field) into the server, the TLS
context and lightkube's authentication flows (exec plugins, rotating token
files); the requests themselves are plain REST calls written as bytes by the
lean HTTP/1.1 client of :mod:`._http` (httpx2, the HTTP library lightkube is
built on, costs about three times its CPU per request), at most
:data:`MAX_IN_FLIGHT` at once, and watches, each on a connection of its own
outside that cap, read through the same client. Why not lightkube's
own request layer: it wants a Python class per kind with the plural and scope
known up front, cannot ask a watch for bookmarks, and turns every object into
its model types; the controller works on unstructured dicts of kinds that
appear at run time (``docs/architecture.md``, "The controller's Kubernetes
client").

Kinds are mapped to REST resources by :class:`_Discovery`: the group-version's
resource list is fetched on the first use of a kind and again whenever a kind
is not in the cache (a CRD created moments ago), so callers never restart for a
new kind. Every HTTP and transport error becomes an ``_api`` error here whose
message is the API server's ``Status.message``; an error that is about the
connection itself (unreachable, credentials refused) names the server's URL,
since a user with several clusters needs to know which one.

Every request says who sends it: ``User-Agent: crossfn/<version>``, and creates,
updates and patches carry ``fieldManager`` (``crossfn`` unless the caller names
another), so ``managedFields`` show the controller, not the HTTP library.
"""

from __future__ import annotations

import asyncio
import builtins
import copy
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from typing import Any, Literal, cast

import httpx2
import msgspec
from lightkube.core import exceptions as lightkube_exceptions

import crossfn
from crossfn.controller.kube import _api, _http, _kubeconfig

__all__ = ["KubeApi"]

Object = dict[str, Any]

_TIMEOUT = httpx2.Timeout(30.0, connect=5.0)
"""Per request: the API server answers in milliseconds; 30 s means it is in trouble, not slow."""

MAX_IN_FLIGHT = 16
"""Requests (not watches) in flight at once, each on its own kept-alive connection; more
wait in the client. Measured on envtest (``benchmarks/controller.py``): about 10 concurrent
applies already take all the API server gives, and fewer connections cost the client less."""

_WATCH_LIMITS = httpx2.Limits(max_connections=None, max_keepalive_connections=0)
"""A watch pool of an ``httpx2.AsyncClient`` (a caller's ``watch_http``): every watch holds a connection
for minutes, so no cap (a cap could starve a new informer); none is kept alive, a watch's connection
ends with its stream. :class:`~._http.Http11Client` gives each watch a connection of its own likewise."""

_WATCH_SLACK = 30.0
"""Seconds past a watch's server-side timeout before the client gives up on a silent connection."""

USER_AGENT = f"crossfn/{crossfn.__version__}"

_ERRORS: dict[int, type[_api.ApiError]] = {
    403: _api.Forbidden,
    404: _api.NotFound,
    409: _api.Conflict,
    410: _api.Gone,
    422: _api.Invalid,
}

_WatchType = Literal["ADDED", "MODIFIED", "DELETED", "BOOKMARK"]
_WATCH_TYPES = frozenset(("ADDED", "MODIFIED", "DELETED", "BOOKMARK"))

_PATCH_TYPES = {"merge": "application/merge-patch+json", "json": "application/json-patch+json"}


RETRY_AFTER_ATTEMPTS = 10
"""How often a request the API server asked to retry (429 or 5xx with ``Retry-After``) is sent.

client-go's REST client does the same, 10 times: the server sends ``Retry-After`` only for a
request it did not process (a CRD's storage (re)initializing, priority-and-fairness throttling),
so resending is safe for every verb."""

_RETRY_AFTER_MAX = 1.0
"""The longest wait between those attempts, in seconds: the server's hint is whole seconds."""


def _retry_after(reply: _http.Reply) -> float | None:
    """The wait the server asked for before a retry, or ``None`` when it asked for none."""
    if reply.status != 429 and reply.status < 500:
        return None
    value = reply.header("Retry-After")
    if value is None:
        return None
    try:
        return min(max(float(value), 0.05), _RETRY_AFTER_MAX)
    except ValueError:
        return None


def _error_from_status(status: Mapping[str, Any], code: int) -> _api.ApiError:
    """The ``_api`` error for a ``Status`` object (a response body or a watch's ERROR event)."""
    code = int(status.get("code") or code)
    message = str(status.get("message") or f"the API server answered HTTP {code}")
    return _ERRORS.get(code, _api.ApiError)(
        message, status=code, reason=str(status.get("reason", "")), body=status
    )


def _error_from_response(reply: _http.Reply) -> _api.ApiError:
    try:
        body = _decode(reply.content)
    except ValueError:
        body = None
    if isinstance(body, dict) and body.get("kind") == "Status":
        return _error_from_status(body, reply.status)
    text = reply.text.strip()[:200] or reply.reason
    return _ERRORS.get(reply.status, _api.ApiError)(text, status=reply.status)


def _unreachable(server: str, exc: Exception) -> _api.ApiError:
    if isinstance(exc, lightkube_exceptions.ConfigError):  # a token file or exec plugin failed
        return _api.ApiError(f"cannot authenticate to the API server at {server}: {exc}")
    return _api.ApiError(f"cannot reach the API server at {server}: {exc or type(exc).__name__}")


def _unauthorized(server: str, error: _api.ApiError) -> _api.ApiError:
    """A 401 names the server: which cluster refused which credentials is the whole story."""
    return _api.ApiError(
        f"the API server at {server} refused the credentials: {error}", status=401, reason=error.reason
    )


def _group_version_path(api_version: str) -> str:
    return f"api/{api_version}" if "/" not in api_version else f"apis/{api_version}"


_ENCODER = msgspec.json.Encoder()
_DECODER = msgspec.json.Decoder()


def _encode(body: object) -> bytes:
    """Compact JSON (msgspec: several times faster than ``json`` on the objects a controller sends)."""
    return _ENCODER.encode(body)


def _decode(data: bytes | str) -> Any:
    """JSON to dicts and lists; a malformed body is a ``ValueError`` (msgspec's DecodeError is one)."""
    return _DECODER.decode(data)


class _Discovery:
    """apiVersion + kind -> (plural, namespaced), per group-version, refreshed on a miss.

    Fetching only the group-version asked for keeps a miss to one small request.
    Concurrent misses of one group-version share one fetch: each waits for the
    lock and skips its own fetch when another finished one meanwhile (a failed
    fetch changes nothing, so the next waiter tries again).
    """

    def __init__(self, get_json: Callable[[str], Awaitable[Any]]) -> None:
        self._get_json = get_json
        self._kinds: dict[tuple[str, str], tuple[str, bool]] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._fetches: dict[str, int] = {}

    async def resource(self, api_version: str, kind: str) -> tuple[str, bool]:
        found = self._kinds.get((api_version, kind))
        if found is not None:
            return found
        await self._refresh(api_version)
        found = self._kinds.get((api_version, kind))
        if found is None:
            raise _api.NoKindMatch(f'no matches for kind "{kind}" in version "{api_version}"', status=404)
        return found

    async def _refresh(self, api_version: str) -> None:
        before = self._fetches.get(api_version, 0)
        async with self._locks.setdefault(api_version, asyncio.Lock()):
            if self._fetches.get(api_version, 0) != before:
                return
            await self._fetch(api_version)
            self._fetches[api_version] = before + 1

    async def _fetch(self, api_version: str) -> None:
        try:
            resources = await self._get_json(_group_version_path(api_version))
        except _api.NotFound:
            resources = {"resources": []}
        for key in [k for k in self._kinds if k[0] == api_version]:
            del self._kinds[key]
        for resource in resources.get("resources", []):
            if "/" in resource["name"]:  # a subresource such as deployments/status
                continue
            self._kinds[(api_version, resource["kind"])] = (resource["name"], bool(resource["namespaced"]))


_HEADERS = (("Accept", "application/json"), ("User-Agent", USER_AGENT))
"""Sent with every request and watch."""


class _HttpxRequests:
    """Requests through an ``httpx2.AsyncClient``: a test's mock transport, or any client a caller builds.

    ``headers`` go with every request; a write's fence rides in the request's extensions
    (:data:`~crossfn.controller.kube._http.WRITE_FENCE`, checked by ``Http11Transport``).
    """

    def __init__(self, client: httpx2.AsyncClient, headers: Sequence[tuple[str, str]]) -> None:
        self.client = client
        self.server = str(client.base_url).rstrip("/")
        self._headers = httpx2.Headers(list(headers))

    async def send(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str] | None = None,
        body: bytes | None = None,
        content_type: str = "",
        fence: _api.WriteFence | None = None,
    ) -> _http.Reply:
        headers = self._headers.copy()
        if body is not None:
            headers["Content-Type"] = content_type
        extensions = None if fence is None else {_http.WRITE_FENCE: fence}
        response = await self.client.request(
            method, path, params=params, content=body, headers=headers, extensions=extensions
        )
        return _http.Reply(
            response.status_code, response.reason_phrase, response.headers.raw, response.content
        )

    async def aclose(self) -> None:
        await self.client.aclose()


class KubeApi:
    """The controller's client: unstructured objects, server-side apply, watches with bookmarks.

    One instance per process; its connection pool is shared by every
    reconcile and informer. Build it with :meth:`from_kubeconfig`; tests may
    pass any ``httpx2.AsyncClient`` (a mock transport).
    """

    def __init__(
        self,
        http: httpx2.AsyncClient | _http.Http11Client,
        *,
        watch_http: httpx2.AsyncClient | None = None,
        max_in_flight: int = MAX_IN_FLIGHT,
        field_manager: str = _api.FIELD_MANAGER,
        namespace: str = "default",
        headers: Sequence[tuple[str, str]] = (),
    ) -> None:
        """``http`` serves requests, at most ``max_in_flight`` at once; ``watch_http`` watches (default:
        ``http``; an ``Http11Client`` opens a connection per watch, outside that cap).

        ``headers`` go with every request and watch (``Impersonate-User``, one ``Impersonate-Group``
        per group...): an ``httpx2.AsyncClient`` is sent them, an ``Http11Client`` is built with them
        (:meth:`from_kubeconfig`).
        """
        self._headers = (*_HEADERS, *headers)
        self._requests = _HttpxRequests(http, self._headers) if isinstance(http, httpx2.AsyncClient) else http
        self._watch_http: httpx2.AsyncClient | _http.Http11Client = http if watch_http is None else watch_http
        self._in_flight = asyncio.Semaphore(max_in_flight)
        self._discovery = _Discovery(self._get_json)
        self.field_manager = field_manager
        self.namespace = namespace
        """The kubeconfig context's namespace: where a command looks when it is not told."""
        self._fence: _api.WriteFence | None = None

    def fenced(self, fence: _api.WriteFence) -> KubeApi:
        """This client, sharing its connections and discovery, whose every write passes ``fence``
        first (:class:`~crossfn.controller.kube._api.Fenced` when it may not); reads are not fenced."""
        view = copy.copy(self)
        view._fence = fence
        return view

    @classmethod
    def from_kubeconfig(
        cls,
        path: str | None = None,
        *,
        context: str | None = None,
        field_manager: str = _api.FIELD_MANAGER,
        headers: Sequence[tuple[str, str]] = (),
    ) -> KubeApi:
        """A client for ``path`` (``None``: ``$KUBECONFIG``, then in-cluster, then ``~/.kube/config``).

        Every problem with the kubeconfig is one ``InputError`` line naming the file and the field.
        """
        config = _kubeconfig.load(path, context=context)

        requests = _http.Http11Client(
            config.server,
            config.verify,
            config.auth,
            headers=(*_HEADERS, *headers),
            timeout=_TIMEOUT,
            max_idle=MAX_IN_FLIGHT,
        )
        return cls(
            requests,
            field_manager=field_manager,
            namespace=config.namespace,
            headers=headers,
        )

    @property
    def server(self) -> str:
        """The API server's URL (for logs and errors)."""
        return self._requests.server

    async def close(self) -> None:
        """Close every pooled connection (watches in flight end with an error)."""
        try:
            await self._requests.aclose()
        finally:
            requests = self._requests.client if isinstance(self._requests, _HttpxRequests) else self._requests
            if self._watch_http is not requests:  # a client of their own
                await self._watch_http.aclose()

    # -- transport -------------------------------------------------------------------------------

    async def _send(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str] | None = None,
        body: object = None,
        content_type: str = "application/json",
    ) -> _http.Reply:
        content = None if body is None else _encode(body)
        fence = self._fence if method != "GET" else None
        for attempt in range(RETRY_AFTER_ATTEMPTS):
            if fence is not None:
                fence.check()  # again in the transport, right before the bytes leave
            try:
                async with self._in_flight:
                    reply = await self._requests.send(
                        method, path, params=params, body=content, content_type=content_type, fence=fence
                    )
            except (httpx2.HTTPError, lightkube_exceptions.ConfigError) as exc:
                raise _unreachable(self.server, exc) from exc
            delay = _retry_after(reply)
            if delay is None or attempt == RETRY_AFTER_ATTEMPTS - 1:
                break
            await asyncio.sleep(delay)
        if reply.status >= 400:
            raise self._error(reply)
        return reply

    def _error(self, reply: _http.Reply) -> _api.ApiError:
        error = _error_from_response(reply)
        return _unauthorized(self.server, error) if reply.status == 401 else error

    async def _get_json(self, path: str) -> Any:
        response = await self._send("GET", path)
        return _decode(response.content)

    async def _path(
        self, api_version: str, kind: str, namespace: str | None, name: str = "", subresource: str = ""
    ) -> str:
        plural, namespaced = await self._discovery.resource(api_version, kind)
        parts = [_group_version_path(api_version)]
        if namespaced and namespace:
            parts.append(f"namespaces/{namespace}")
        parts.append(plural)
        if name:
            parts.append(name)
        if subresource:
            parts.append(subresource)
        return "/".join(parts)

    async def _object_path(self, obj: Mapping[str, Any], *, status: bool = False) -> str:
        metadata = obj.get("metadata") or {}
        return await self._path(
            str(obj.get("apiVersion", "")),
            str(obj.get("kind", "")),
            str(metadata.get("namespace") or ""),
            str(metadata.get("name", "")),
            "status" if status else "",
        )

    # -- the Api Protocol ------------------------------------------------------------------------

    async def get(self, api_version: str, kind: str, name: str, namespace: str = "") -> Object | None:
        """The object, or ``None`` when it or its kind does not exist."""
        try:
            return await self.read(api_version, kind, name, namespace)
        except (_api.NotFound, _api.NoKindMatch):
            return None

    async def read(self, api_version: str, kind: str, name: str, namespace: str = "") -> Object:
        """The object; :class:`~_api.NotFound` (with the API server's ``Status``) or
        :class:`~_api.NoKindMatch` when it or its kind does not exist."""
        return dict(await self._get_json(await self._path(api_version, kind, namespace, name)))

    async def list(
        self,
        api_version: str,
        kind: str,
        namespace: str | None = None,
        *,
        labels: Mapping[str, str] | None = None,
    ) -> tuple[list[Object], str]:
        """Every object (of one namespace, or all) and the list's resourceVersion."""
        params = {"labelSelector": ",".join(f"{k}={v}" for k, v in labels.items())} if labels else None
        body = await self._get_json_params(await self._path(api_version, kind, namespace), params)
        items: list[Object] = body.get("items") or []
        for item in items:  # lists omit each item's apiVersion and kind; callers need them
            item.setdefault("apiVersion", api_version)
            item.setdefault("kind", kind)
        return items, str(body.get("metadata", {}).get("resourceVersion", ""))

    async def _get_json_params(self, path: str, params: Mapping[str, str] | None) -> Any:
        return _decode((await self._send("GET", path, params=params)).content)

    def watch(
        self,
        api_version: str,
        kind: str,
        namespace: str | None = None,
        *,
        resource_version: str,
        timeout_seconds: int = 300,
    ) -> AsyncIterator[_api.WatchEvent]:
        """Events after ``resource_version`` with bookmarks; :class:`~_api.Gone` when it is too old.

        The first event is a BOOKMARK at ``resource_version`` itself, sent as soon as the API server
        has accepted the watch: the server may stay silent for minutes on a quiet kind, and a caller
        (the informer's health, ``/readyz``) needs to know the watch is live before that.
        """
        watch = self._watch_lean if isinstance(self._watch_http, _http.Http11Client) else self._watch_httpx
        return watch(api_version, kind, namespace, resource_version, timeout_seconds)

    def _watch_params(self, resource_version: str, timeout_seconds: int) -> dict[str, str]:
        return {
            "watch": "true",
            "allowWatchBookmarks": "true",
            "resourceVersion": resource_version,
            "timeoutSeconds": str(timeout_seconds),
        }

    async def _watch_lean(
        self, api_version: str, kind: str, namespace: str | None, resource_version: str, timeout_seconds: int
    ) -> AsyncIterator[_api.WatchEvent]:
        """A watch through the :class:`~._http.Http11Client`: a connection of its own, lines read as bytes."""
        assert isinstance(self._watch_http, _http.Http11Client)
        path = await self._path(api_version, kind, namespace)
        params = self._watch_params(resource_version, timeout_seconds)
        try:
            opened = await self._watch_http.stream(
                "GET", path, params=params, idle=timeout_seconds + _WATCH_SLACK
            )
        except (httpx2.HTTPError, lightkube_exceptions.ConfigError) as exc:
            raise _unreachable(self.server, exc) from exc
        if isinstance(opened, _http.Reply):
            raise self._error(opened)
        lines = opened.lines()
        try:
            yield _api.WatchEvent("BOOKMARK", {"metadata": {"resourceVersion": resource_version}})
            async for line in lines:
                yield _watch_event(line)
        except httpx2.HTTPError as exc:
            raise _unreachable(self.server, exc) from exc
        finally:
            opened.close()
            await lines.aclose()  # it awaits nothing once closed: safe in a cancelled task

    async def _watch_httpx(
        self, api_version: str, kind: str, namespace: str | None, resource_version: str, timeout_seconds: int
    ) -> AsyncIterator[_api.WatchEvent]:
        """A watch through an ``httpx2.AsyncClient`` (a test's mock transport, a caller's client)."""
        client = self._watch_http
        assert isinstance(client, httpx2.AsyncClient)
        path = await self._path(api_version, kind, namespace)
        params = self._watch_params(resource_version, timeout_seconds)
        timeout = httpx2.Timeout(_TIMEOUT.connect, read=timeout_seconds + _WATCH_SLACK)
        request = client.build_request("GET", path, params=params, headers=self._headers, timeout=timeout)
        try:
            response = await _open_stream(client, request)
        except (httpx2.HTTPError, lightkube_exceptions.ConfigError) as exc:
            raise _unreachable(self.server, exc) from exc
        try:
            if response.status_code >= 400:
                await response.aread()
                raise self._error(
                    _http.Reply(
                        response.status_code, response.reason_phrase, response.headers.raw, response.content
                    )
                )
            yield _api.WatchEvent("BOOKMARK", {"metadata": {"resourceVersion": resource_version}})
            async for line in _lines(response.aiter_bytes()):
                yield _watch_event(line)
        except httpx2.HTTPError as exc:
            raise _unreachable(self.server, exc) from exc
        finally:
            await response.aclose()

    async def apply(
        self, obj: Mapping[str, Any], *, field_manager: str, force: bool = True, status: bool = False
    ) -> Object:
        """Server-side apply ``obj`` (or its status) as ``field_manager``; a JSON body is valid YAML."""
        params = {"fieldManager": field_manager}
        if force:
            params["force"] = "true"
        response = await self._send(
            "PATCH",
            await self._object_path(obj, status=status),
            params=params,
            body=obj,
            content_type="application/apply-patch+yaml",
        )
        return dict(_decode(response.content))

    async def create(self, obj: Mapping[str, Any], *, field_manager: str | None = None) -> Object:
        """Create ``obj`` (as ``field_manager``, default the client's); :class:`~_api.Conflict` when it exists."""
        metadata = obj.get("metadata") or {}
        path = await self._path(
            str(obj.get("apiVersion", "")), str(obj.get("kind", "")), str(metadata.get("namespace") or "")
        )
        response = await self._send("POST", path, params=self._manager(field_manager), body=obj)
        return dict(_decode(response.content))

    def _manager(self, field_manager: str | None) -> dict[str, str]:
        return {"fieldManager": field_manager or self.field_manager}

    async def create_event(self, event: Mapping[str, Any]) -> Object:
        """Create a core/v1 Event (the same as :meth:`create`; named for the recorder's call sites)."""
        return await self.create(event)

    async def update(
        self, obj: Mapping[str, Any], *, status: bool = False, field_manager: str | None = None
    ) -> Object:
        """Replace ``obj`` (PUT); :class:`~_api.Conflict` when its resourceVersion is stale."""
        path = await self._object_path(obj, status=status)
        response = await self._send("PUT", path, params=self._manager(field_manager), body=obj)
        return dict(_decode(response.content))

    async def patch(
        self,
        api_version: str,
        kind: str,
        name: str,
        namespace: str,
        patch: Mapping[str, Any] | builtins.list[Any],
        *,
        patch_type: Literal["merge", "json"] = "merge",
        status: bool = False,
        field_manager: str | None = None,
    ) -> Object:
        """A JSON merge patch (or JSON patch) on the object or its status."""
        path = await self._path(api_version, kind, namespace, name, "status" if status else "")
        response = await self._send(
            "PATCH",
            path,
            params=self._manager(field_manager),
            body=patch,
            content_type=_PATCH_TYPES[patch_type],
        )
        return dict(_decode(response.content))

    async def delete(
        self,
        api_version: str,
        kind: str,
        name: str,
        namespace: str = "",
        *,
        propagation: Literal["Foreground", "Background", "Orphan"] | None = None,
        uid: str | None = None,
    ) -> None:
        """Delete the object; ``uid`` is a precondition; :class:`~_api.NotFound` when it is gone."""
        options: Object = {"apiVersion": "v1", "kind": "DeleteOptions"}
        if propagation is not None:
            options["propagationPolicy"] = propagation
        if uid is not None:
            options["preconditions"] = {"uid": uid}
        await self._send("DELETE", await self._path(api_version, kind, namespace, name), body=options)

    async def is_namespaced(self, api_version: str, kind: str) -> bool:
        """Whether the kind is namespaced; :class:`~_api.NoKindMatch` when discovery does not know it."""
        return (await self._discovery.resource(api_version, kind))[1]

    async def openapi_paths(self) -> builtins.list[str]:
        """The group-version paths that ``/openapi/v3`` lists (``api/v1``, ``apis/example.org/v1``)."""
        return sorted((await self._get_json("openapi/v3")).get("paths", {}))

    async def openapi_document(self, path: str) -> bytes:
        """The OpenAPI v3 document of one group-version."""
        return (await self._send("GET", f"openapi/v3/{path.lstrip('/')}")).content

    async def raw_get(self, path: str) -> bytes:
        """The body of a non-resource path such as ``metrics`` or ``version`` (benchmarks, diagnostics)."""
        return (await self._send("GET", path.lstrip("/"))).content


async def _open_stream(client: httpx2.AsyncClient, request: httpx2.Request) -> httpx2.Response:
    """``client.send(request, stream=True)``, which a cancellation never cuts half way.

    httpcore closes a connection that fails in its TLS handshake only on an ``Exception``: cancelled
    there (an informer stopped while its watch connects), the socket is dropped open and leaks. So
    the send runs in a task of its own; a cancelled caller lets it end (the connect timeout bounds
    it: the API server answers a watch's headers at once) and closes what it opened.
    """
    sending = asyncio.ensure_future(client.send(request, stream=True))
    try:
        return await asyncio.shield(sending)
    except asyncio.CancelledError:
        await asyncio.wait({sending}, timeout=_TIMEOUT.connect)
        if not sending.done():
            sending.cancel()  # past the connect timeout: reading headers, where httpcore closes on any error
        elif not sending.cancelled() and sending.exception() is None:
            await sending.result().aclose()
        raise


async def _lines(chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    """The non-blank lines of a byte stream, as bytes: a watch's events, one JSON object a line.

    httpx2's ``aiter_lines`` decodes every chunk to text and splits it in Python, several
    times the CPU of the JSON decode itself; msgspec reads the bytes as they are.
    """
    pending: list[bytes] = []
    async for chunk in chunks:
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            pending.append(chunk[start:end])
            line = b"".join(pending) if len(pending) > 1 else pending[0]
            pending.clear()
            if line.strip():
                yield line
            start = end + 1
        if start < len(chunk):
            pending.append(chunk[start:])
    line = b"".join(pending)
    if line.strip():
        yield line


def _watch_event(line: bytes | str) -> _api.WatchEvent:
    """One line of a watch stream; an ERROR event (a 410 among them) is raised as its error."""
    try:
        event = _decode(line)
        kind, obj = event["type"], event["object"]
    except (ValueError, KeyError, TypeError) as exc:
        raise _api.ApiError(f"cannot decode a watch event: {exc}") from exc
    if kind == "ERROR":
        raise _error_from_status(obj, 500)
    if kind not in _WATCH_TYPES:
        raise _api.ApiError(f"cannot decode a watch event: unknown type {kind!r}")
    return _api.WatchEvent(cast(_WatchType, kind), obj)
