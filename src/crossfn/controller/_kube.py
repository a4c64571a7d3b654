"""``KubeApi``: the :class:`~crossfn.controller._api.Api` Protocol over HTTP, on dict objects.

lightkube reads the kubeconfig (files, in-cluster service accounts, exec
plugins, rotating token files) and provides the authentication and TLS
settings; the requests themselves are plain REST calls on one pooled
``httpx2`` client (the HTTP library lightkube is built on). Why not lightkube's
own request layer: it wants a Python class per kind with the plural and scope
known up front, cannot ask a watch for bookmarks, and turns every object into
its model types; the controller works on unstructured dicts of kinds that
appear at run time (``docs/architecture.md``, "The controller's Kubernetes
client").

Kinds are mapped to REST resources by :class:`_Discovery`: the group-version's
resource list is fetched on the first use of a kind and again whenever a kind
is not in the cache (a CRD created moments ago), so callers never restart for a
new kind. Every HTTP and transport error becomes an ``_api`` error here whose
message is the API server's ``Status.message``.
"""

from __future__ import annotations

import asyncio
import builtins
import json
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any, Literal, cast

import httpx2
import yaml
from lightkube.config import client_adapter, kubeconfig, models
from lightkube.core import exceptions as lightkube_exceptions

from crossfn import errors
from crossfn.controller import _api

__all__ = ["KubeApi"]

Object = dict[str, Any]

_TIMEOUT = httpx2.Timeout(30.0, connect=5.0)
"""Per request: the API server answers in milliseconds; 30 s means it is in trouble, not slow."""

_LIMITS = httpx2.Limits(max_connections=None, max_keepalive_connections=64, keepalive_expiry=60.0)
"""No cap on connections: every watch holds one for minutes, so a cap could starve requests;
64 kept alive covers the workers' concurrent calls without reconnecting (TLS handshakes cost ms)."""

_WATCH_SLACK = 30.0
"""Seconds past a watch's server-side timeout before the client gives up on a silent connection."""

_CONFIG_ERRORS = (
    lightkube_exceptions.ConfigError,
    OSError,
    yaml.YAMLError,
    KeyError,
    ValueError,  # msgspec's validation errors among them: a field of the wrong type
    TypeError,
    AttributeError,  # a document that is not a mapping
)
"""What reading a bad kubeconfig raises inside lightkube; each becomes one InputError line."""

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


def _error_from_status(status: Mapping[str, Any], code: int) -> _api.ApiError:
    """The ``_api`` error for a ``Status`` object (a response body or a watch's ERROR event)."""
    code = int(status.get("code") or code)
    message = str(status.get("message") or f"the API server answered HTTP {code}")
    return _ERRORS.get(code, _api.ApiError)(message, status=code, reason=str(status.get("reason", "")))


def _error_from_response(response: httpx2.Response) -> _api.ApiError:
    try:
        body = json.loads(response.content)
    except ValueError:
        body = None
    if isinstance(body, dict) and body.get("kind") == "Status":
        return _error_from_status(body, response.status_code)
    text = response.text.strip()[:200] or response.reason_phrase
    return _ERRORS.get(response.status_code, _api.ApiError)(text, status=response.status_code)


def _unreachable(exc: Exception) -> _api.ApiError:
    return _api.ApiError(f"cannot reach the API server: {exc or type(exc).__name__}")


def _group_version_path(api_version: str) -> str:
    return f"api/{api_version}" if "/" not in api_version else f"apis/{api_version}"


def _encode(body: object) -> bytes:
    return json.dumps(body, separators=(",", ":")).encode()


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


class KubeApi:
    """The controller's client: unstructured objects, server-side apply, watches with bookmarks.

    One instance per process; its connection pool is shared by every
    reconcile and informer. Build it with :meth:`from_kubeconfig`; tests may
    pass any ``httpx2.AsyncClient`` (a mock transport).
    """

    def __init__(self, http: httpx2.AsyncClient) -> None:
        self._http = http
        self._discovery = _Discovery(self._get_json)

    @classmethod
    def from_kubeconfig(cls, path: str | None = None, *, context: str | None = None) -> KubeApi:
        """A client for ``path`` (``None``: ``$KUBECONFIG``, then in-cluster, then ``~/.kube/config``)."""
        where = path or "(KUBECONFIG, in-cluster or ~/.kube/config)"
        try:
            config = _load_config(path).get(context)
        except _CONFIG_ERRORS as exc:
            raise errors.InputError(f"cannot load kubeconfig {where}: {exc}") from exc
        if config is None:
            raise errors.InputError(f"cannot load kubeconfig {where}: no current context")
        user = config.user or models.User()  # none: an unauthenticated endpoint such as kubectl proxy
        http = httpx2.AsyncClient(
            base_url=config.cluster.server,
            verify=client_adapter.verify_cluster(config.cluster, user, config.abs_file),
            auth=client_adapter.user_auth(user),
            timeout=_TIMEOUT,
            limits=_LIMITS,
            trust_env=False,
        )
        return cls(http)

    @property
    def server(self) -> str:
        """The API server's URL (for logs and errors)."""
        return str(self._http.base_url).rstrip("/")

    async def close(self) -> None:
        """Close every pooled connection (watches in flight end with an error)."""
        await self._http.aclose()

    # -- transport -------------------------------------------------------------------------------

    async def _send(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str] | None = None,
        body: object = None,
        content_type: str = "application/json",
    ) -> httpx2.Response:
        headers = {"Accept": "application/json"}
        content = None
        if body is not None:
            content = _encode(body)
            headers["Content-Type"] = content_type
        try:
            response = await self._http.request(method, path, params=params, content=content, headers=headers)
        except (httpx2.HTTPError, lightkube_exceptions.ConfigError) as exc:
            raise _unreachable(exc) from exc
        if response.status_code >= 400:
            raise _error_from_response(response)
        return response

    async def _get_json(self, path: str) -> Any:
        response = await self._send("GET", path)
        return json.loads(response.content)

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
            return dict(await self._get_json(await self._path(api_version, kind, namespace, name)))
        except (_api.NotFound, _api.NoKindMatch):
            return None

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
        return json.loads((await self._send("GET", path, params=params)).content)

    async def watch(
        self,
        api_version: str,
        kind: str,
        namespace: str | None = None,
        *,
        resource_version: str,
        timeout_seconds: int = 300,
    ) -> AsyncIterator[_api.WatchEvent]:
        """Events after ``resource_version`` with bookmarks; :class:`~_api.Gone` when it is too old."""
        path = await self._path(api_version, kind, namespace)
        params = {
            "watch": "true",
            "allowWatchBookmarks": "true",
            "resourceVersion": resource_version,
            "timeoutSeconds": str(timeout_seconds),
        }
        timeout = httpx2.Timeout(_TIMEOUT.connect, read=timeout_seconds + _WATCH_SLACK)
        request = self._http.build_request("GET", path, params=params, timeout=timeout)
        try:
            response = await self._http.send(request, stream=True)
        except (httpx2.HTTPError, lightkube_exceptions.ConfigError) as exc:
            raise _unreachable(exc) from exc
        try:
            if response.status_code >= 400:
                await response.aread()
                raise _error_from_response(response)
            async for line in response.aiter_lines():
                if line:
                    yield _watch_event(line)
        except httpx2.HTTPError as exc:
            raise _unreachable(exc) from exc
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
        return dict(json.loads(response.content))

    async def create(self, obj: Mapping[str, Any]) -> Object:
        """Create ``obj``; :class:`~_api.Conflict` when it already exists."""
        metadata = obj.get("metadata") or {}
        path = await self._path(
            str(obj.get("apiVersion", "")), str(obj.get("kind", "")), str(metadata.get("namespace") or "")
        )
        return dict(json.loads((await self._send("POST", path, body=obj)).content))

    async def create_event(self, event: Mapping[str, Any]) -> Object:
        """Create a core/v1 Event (the same as :meth:`create`; named for the recorder's call sites)."""
        return await self.create(event)

    async def update(self, obj: Mapping[str, Any], *, status: bool = False) -> Object:
        """Replace ``obj`` (PUT); :class:`~_api.Conflict` when its resourceVersion is stale."""
        response = await self._send("PUT", await self._object_path(obj, status=status), body=obj)
        return dict(json.loads(response.content))

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
    ) -> Object:
        """A JSON merge patch (or JSON patch) on the object or its status."""
        path = await self._path(api_version, kind, namespace, name, "status" if status else "")
        response = await self._send("PATCH", path, body=patch, content_type=_PATCH_TYPES[patch_type])
        return dict(json.loads(response.content))

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


def _watch_event(line: str) -> _api.WatchEvent:
    """One line of a watch stream; an ERROR event (a 410 among them) is raised as its error."""
    try:
        event = json.loads(line)
        kind, obj = event["type"], event["object"]
    except (ValueError, KeyError, TypeError) as exc:
        raise _api.ApiError(f"cannot decode a watch event: {exc}") from exc
    if kind == "ERROR":
        raise _error_from_status(obj, 500)
    if kind not in _WATCH_TYPES:
        raise _api.ApiError(f"cannot decode a watch event: unknown type {kind!r}")
    return _api.WatchEvent(cast(_WatchType, kind), obj)


def _load_config(path: str | None) -> kubeconfig.KubeConfig:
    """The kubeconfig at ``path``, or the one the environment names (kubectl's order, in-cluster second)."""
    if path:
        return kubeconfig.KubeConfig.from_file(path)
    env = os.environ.get("KUBECONFIG", "")
    candidates = [p for p in env.split(os.pathsep) if p]
    if candidates:
        return kubeconfig.KubeConfig.from_file(candidates[0])
    if os.environ.get("KUBERNETES_SERVICE_HOST"):
        return kubeconfig.KubeConfig.from_service_account()
    return kubeconfig.KubeConfig.from_file(Path(kubeconfig.DEFAULT_KUBECONFIG).expanduser())
