"""KubeApi: the Api Protocol over HTTP. Error translation and watch decoding against a mock
transport; CRUD, server-side apply, status, discovery refresh, errors and OpenAPI against a real
API server (``cluster``)."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx2
import pytest
from lightkube.core import exceptions as lightkube_exceptions

import crossfn
from crossfn import errors
from crossfn.controller import envtest as envtest_module
from crossfn.controller.kube import _api, _http, _kube

RESOURCES_V1 = {
    "kind": "APIResourceList",
    "groupVersion": "v1",
    "resources": [
        {"name": "configmaps", "kind": "ConfigMap", "namespaced": True},
        {"name": "namespaces", "kind": "Namespace", "namespaced": False},
        {"name": "namespaces/status", "kind": "Namespace", "namespaced": False},
    ],
}


def status(code: int, reason: str, message: str) -> dict[str, Any]:
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "status": "Failure",
        "code": code,
        "reason": reason,
        "message": message,
    }


def mock_api(handler: Callable[[httpx2.Request], httpx2.Response]) -> _kube.KubeApi:
    """A KubeApi whose requests go to ``handler``; discovery of core/v1 is answered for it."""

    def route(request: httpx2.Request) -> httpx2.Response:
        if request.url.path == "/api/v1":
            return httpx2.Response(200, json=RESOURCES_V1)
        return handler(request)

    return _kube.KubeApi(
        httpx2.AsyncClient(base_url="https://k8s.test", transport=httpx2.MockTransport(route))
    )


def cm(name: str, namespace: str, **data: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": namespace},
        "data": data,
    }


@pytest.mark.parametrize(
    ("response", "want", "want_message", "reason"),
    [
        pytest.param(
            httpx2.Response(409, json=status(409, "AlreadyExists", 'configmaps "a" already exists')),
            _api.Conflict,
            'configmaps "a" already exists',
            "409 is Conflict with the Status message",
            id="Conflict",
        ),
        pytest.param(
            httpx2.Response(422, json=status(422, "Invalid", 'ConfigMap "A" is invalid')),
            _api.Invalid,
            'ConfigMap "A" is invalid',
            "422 is Invalid",
            id="Invalid",
        ),
        pytest.param(
            httpx2.Response(403, json=status(403, "Forbidden", "forbidden: no")),
            _api.Forbidden,
            "forbidden: no",
            "403 is Forbidden",
            id="Forbidden",
        ),
        pytest.param(
            httpx2.Response(410, json=status(410, "Expired", "too old resource version")),
            _api.Gone,
            "too old resource version",
            "410 is Gone",
            id="Gone",
        ),
        pytest.param(
            httpx2.Response(404, json=status(404, "NotFound", 'configmaps "a" not found')),
            _api.NotFound,
            'configmaps "a" not found',
            "404 is NotFound",
            id="NotFound",
        ),
        pytest.param(
            httpx2.Response(500, json=status(500, "InternalError", "etcd is sad")),
            _api.ApiError,
            "etcd is sad",
            "other codes are the base error",
            id="Internal",
        ),
        pytest.param(
            httpx2.Response(502, text="bad gateway from a proxy"),
            _api.ApiError,
            "bad gateway from a proxy",
            "a body that is not a Status is quoted",
            id="NotAStatus",
        ),
    ],
)
async def test_http_errors_become_api_errors(
    response: httpx2.Response, want: type[_api.ApiError], want_message: str, reason: str
) -> None:
    api = mock_api(lambda request: response)
    with pytest.raises(want) as caught:
        await api.create(cm("a", "ns"))
    assert type(caught.value) is want, reason
    assert str(caught.value) == want_message, reason
    assert caught.value.status == response.status_code, reason
    await api.close()


@pytest.mark.parametrize(
    ("failure", "want", "reason"),
    [
        pytest.param(
            httpx2.ConnectError("connection refused"),
            "cannot reach the API server at https://k8s.test: connection refused",
            "an unreachable server is named, so a user with several clusters knows which",
            id="Unreachable",
        ),
        pytest.param(
            lightkube_exceptions.ConfigError("Token file /run/token not found"),
            "cannot authenticate to the API server at https://k8s.test: Token file /run/token not found",
            "a token file or exec plugin failing at request time names the server too",
            id="CredentialsUnavailable",
        ),
    ],
)
async def test_transport_errors_become_api_errors(failure: Exception, want: str, reason: str) -> None:
    """A request that never got an answer is an ApiError with status 0, never an httpx exception."""

    def fail(request: httpx2.Request) -> httpx2.Response:
        raise failure

    api = mock_api(fail)
    with pytest.raises(_api.ApiError) as caught:
        await api.get("v1", "ConfigMap", "a", "ns")
    assert (str(caught.value), caught.value.status) == (want, 0), reason
    with pytest.raises(_api.ApiError, match=re.escape(want)):
        await anext(api.watch("v1", "ConfigMap", "ns", resource_version="1"))
    await api.close()


async def test_unauthorized_names_the_server() -> None:
    """A 401 (a request or a watch) says which server refused: ``Unauthorized`` alone says nothing."""
    api = mock_api(lambda request: httpx2.Response(401, json=status(401, "Unauthorized", "Unauthorized")))
    want = "the API server at https://k8s.test refused the credentials: Unauthorized"
    with pytest.raises(_api.ApiError) as caught:
        await api.get("v1", "ConfigMap", "a", "ns")
    assert (str(caught.value), caught.value.status, caught.value.reason) == (want, 401, "Unauthorized")
    with pytest.raises(_api.ApiError, match=re.escape(want)):
        await anext(api.watch("v1", "ConfigMap", "ns", resource_version="1"))
    await api.close()


async def test_requests_are_shaped_as_the_api_server_expects() -> None:
    """SSA is a PATCH with the apply content type, field manager and force; status goes to /status;
    creates, updates and patches name the client's field manager (or the caller's); every request,
    watches included, says it comes from crossfn."""
    seen: list[httpx2.Request] = []

    def record(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        if request.url.params.get("watch"):
            return httpx2.Response(200, content=b"")
        return httpx2.Response(200, json=json.loads(request.content or b"{}") or cm("a", "ns"))

    api = mock_api(record)
    await api.apply(cm("a", "ns", x="1"), field_manager="crossfn", status=True)
    await api.patch("v1", "Namespace", "n", "", {"metadata": {"labels": {"a": "b"}}})
    await api.delete("v1", "ConfigMap", "a", "ns", propagation="Foreground", uid="u-1")
    await api.create(cm("a", "ns"))
    await api.update(cm("a", "ns"), field_manager="someone")
    await api.patch("v1", "ConfigMap", "a", "ns", [], patch_type="json", status=True, field_manager="x")
    assert [e.type async for e in api.watch("v1", "ConfigMap", "ns", resource_version="1")] == ["BOOKMARK"]
    apply, patch, delete, create, update, json_patch, watch = seen
    assert (apply.method, apply.url.path) == ("PATCH", "/api/v1/namespaces/ns/configmaps/a/status")
    assert apply.headers["content-type"] == "application/apply-patch+yaml"
    assert dict(apply.url.params) == {"fieldManager": "crossfn", "force": "true"}
    assert (patch.url.path, patch.headers["content-type"]) == (
        "/api/v1/namespaces/n",
        "application/merge-patch+json",
    )
    writes = (patch, delete, create, update, json_patch, watch)
    managers = [dict(r.url.params).get("fieldManager") for r in writes]
    assert managers == ["crossfn", None, "crossfn", "someone", "x", None], "the client's manager unless named"
    assert (create.method, update.method, json_patch.url.path) == (
        "POST",
        "PUT",
        "/api/v1/namespaces/ns/configmaps/a/status",
    )
    assert {r.headers["user-agent"] for r in seen} == {f"crossfn/{crossfn.__version__}"}, "every request"
    assert json.loads(delete.content) == {
        "apiVersion": "v1",
        "kind": "DeleteOptions",
        "propagationPolicy": "Foreground",
        "preconditions": {"uid": "u-1"},
    }
    await api.close()


async def test_discovery_is_cached_shared_and_refreshed_on_a_miss() -> None:
    """Known kinds cost no discovery request; concurrent misses share one; a later miss asks again."""
    discovery_calls = 0

    async def route(request: httpx2.Request) -> httpx2.Response:
        nonlocal discovery_calls
        if request.url.path == "/api/v1":
            discovery_calls += 1
            await asyncio.sleep(0.01)  # a real round trip: the other misses arrive meanwhile
            return httpx2.Response(200, json=RESOURCES_V1)
        return httpx2.Response(404, json=status(404, "NotFound", "not found"))

    api = _kube.KubeApi(
        httpx2.AsyncClient(base_url="https://k8s.test", transport=httpx2.MockTransport(route))
    )
    assert await api.is_namespaced("v1", "ConfigMap") is True
    assert await api.is_namespaced("v1", "Namespace") is False
    assert discovery_calls == 1, "one group-version list serves every kind in it"
    results = await asyncio.gather(*(api.get("v1", "Widget", "w") for _ in range(5)))
    assert results == [None] * 5, "get of an unknown kind is None"
    assert discovery_calls == 2, "concurrent misses share one refresh"
    with pytest.raises(_api.NoKindMatch, match='no matches for kind "Widget" in version "v1"'):
        await api.is_namespaced("v1", "Widget")
    assert discovery_calls == 3, "a later miss refreshes again (the kind may exist by now)"
    await api.close()


def watch_stream(*events: dict[str, Any]) -> Callable[[httpx2.Request], httpx2.Response]:
    def answer(request: httpx2.Request) -> httpx2.Response:
        assert request.url.params["allowWatchBookmarks"] == "true", "watches must ask for bookmarks"
        assert request.url.params["resourceVersion"] == "7"
        return httpx2.Response(200, content=b"".join(json.dumps(e).encode() + b"\n" for e in events))

    return answer


async def collect(events: AsyncIterator[_api.WatchEvent]) -> list[str]:
    return [f"{e.type} {e.object['metadata'].get('resourceVersion')}" async for e in events]


async def test_watch_yields_events_and_bookmarks() -> None:
    api = mock_api(
        watch_stream(
            {"type": "ADDED", "object": {"metadata": {"name": "a", "resourceVersion": "8"}}},
            {"type": "BOOKMARK", "object": {"metadata": {"resourceVersion": "9"}}},
            {"type": "DELETED", "object": {"metadata": {"name": "a", "resourceVersion": "10"}}},
        )
    )
    assert await collect(api.watch("v1", "ConfigMap", "ns", resource_version="7")) == [
        "BOOKMARK 7",  # the watch is live: sent before the server says anything
        "ADDED 8",
        "BOOKMARK 9",
        "DELETED 10",
    ]
    await api.close()


async def chunks_of(*parts: bytes) -> AsyncIterator[bytes]:
    for part in parts:
        yield part


@pytest.mark.parametrize(
    ("chunks", "want", "reason"),
    [
        pytest.param([b'{"a":1}\n{"b":2}\n'], [b'{"a":1}', b'{"b":2}'], "two lines in one chunk", id="one-chunk"),
        pytest.param([b'{"a"', b":1", b'}\n{"b":2}\n'], [b'{"a":1}', b'{"b":2}'], "a line over three chunks", id="split"),
        pytest.param([b'{"a":1}\n', b"\n", b'\r\n{"b":2}'], [b'{"a":1}', b'{"b":2}'],
                     "blank lines skipped; the last line needs no newline", id="blank"),
        pytest.param([b'{"a":1}\r\n'], [b'{"a":1}\r'], "a CR stays: JSON reads it as whitespace", id="crlf"),
        pytest.param([b"", b"\n"], [], "nothing", id="empty"),
    ],
)  # fmt: skip
async def test_watch_stream_lines(chunks: list[bytes], want: list[bytes], reason: str) -> None:
    assert [line async for line in _kube._lines(chunks_of(*chunks))] == want, reason


async def test_watch_error_event_410_is_gone() -> None:
    """A 410 inside the stream (an ERROR event) is raised as Gone, like a 410 status."""
    api = mock_api(
        watch_stream(
            {"type": "ADDED", "object": {"metadata": {"name": "a", "resourceVersion": "8"}}},
            {"type": "ERROR", "object": status(410, "Expired", "too old resource version: 7 (20)")},
        )
    )
    seen: list[str] = []
    with pytest.raises(_api.Gone, match="too old resource version"):
        async for event in api.watch("v1", "ConfigMap", "ns", resource_version="7"):
            seen.append(event.type)
    assert seen == ["BOOKMARK", "ADDED"]
    await api.close()


@pytest.mark.parametrize(
    ("limit", "callers", "want_peak", "reason"),
    [
        pytest.param(3, 10, 3, "ten callers, three in flight: the rest wait in the client", id="capped"),
        pytest.param(16, 5, 5, "fewer callers than the limit all go at once", id="under-limit"),
    ],
)
async def test_requests_in_flight_are_capped(limit: int, callers: int, want_peak: int, reason: str) -> None:
    in_flight = peak = 0

    async def route(request: httpx2.Request) -> httpx2.Response:
        nonlocal in_flight, peak
        if request.url.path == "/api/v1":
            return httpx2.Response(200, json=RESOURCES_V1)
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(0.01)
        in_flight -= 1
        return httpx2.Response(200, json=cm("a", "ns"))

    http = httpx2.AsyncClient(base_url="https://k8s.test", transport=httpx2.MockTransport(route))
    api = _kube.KubeApi(http, max_in_flight=limit)
    await api.is_namespaced("v1", "ConfigMap")  # discovery first, so only the gets are counted
    results = await asyncio.gather(*(api.get("v1", "ConfigMap", "a", "ns") for _ in range(callers)))
    assert len(results) == callers
    assert peak == want_peak, reason
    await api.close()


async def test_watches_use_their_own_pool_outside_the_cap() -> None:
    """A watch holds its connection for minutes: it must neither take a request slot nor its pool."""
    paths: dict[str, list[str]] = {"requests": [], "watches": []}

    def pool(name: str, answer: Callable[[httpx2.Request], httpx2.Response]) -> httpx2.AsyncClient:
        def route(request: httpx2.Request) -> httpx2.Response:
            paths[name].append(request.url.path)
            if request.url.path == "/api/v1":
                return httpx2.Response(200, json=RESOURCES_V1)
            return answer(request)

        return httpx2.AsyncClient(base_url="https://k8s.test", transport=httpx2.MockTransport(route))

    watch = watch_stream({"type": "BOOKMARK", "object": {"metadata": {"resourceVersion": "8"}}})
    api = _kube.KubeApi(
        pool("requests", lambda r: httpx2.Response(200, json=cm("a", "ns"))),
        watch_http=pool("watches", watch),
        max_in_flight=1,
    )
    events = api.watch("v1", "ConfigMap", "ns", resource_version="7")
    first = await anext(events)  # the watch is open (and must hold no request slot) ...
    got = await asyncio.wait_for(api.get("v1", "ConfigMap", "a", "ns"), 5)  # ... so a get still goes
    assert (got or {})["metadata"]["name"] == "a"
    assert (first.type, first.object["metadata"]["resourceVersion"]) == ("BOOKMARK", "7")
    assert [e.object["metadata"]["resourceVersion"] async for e in events] == ["8"], "then the server's"
    assert paths["watches"] == ["/api/v1/namespaces/ns/configmaps"], "the watch went to the watch pool"
    assert paths["requests"] == ["/api/v1", "/api/v1/namespaces/ns/configmaps/a"], "requests went to theirs"
    await api.close()


async def test_lean_watches_hold_no_request_slot() -> None:
    """Through the lean client too, a watch is a connection of its own: it takes no request slot, and
    its events arrive as the server writes them (the watch is still open when the get returns)."""
    requests: list[bytes] = []
    watching = asyncio.Event()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                line = (await reader.readuntil(b"\r\n\r\n")).split(b"\r\n")[0]
                requests.append(line)
                if b"watch=true" in line:
                    event = json.dumps({"type": "ADDED", "object": cm("a", "ns")}).encode() + b"\n"
                    writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
                    writer.write(b"%x\r\n%s\r\n" % (len(event), event))
                    watching.set()
                    await reader.read()  # held open until the client hangs up
                    return
                body = json.dumps(
                    RESOURCES_V1 if line.startswith(b"GET /api/v1 ") else cm("a", "ns")
                ).encode()
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    listening = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = listening.sockets[0].getsockname()[1]
    http = _http.Http11Client(
        f"http://127.0.0.1:{port}", None, None, headers=[], timeout=httpx2.Timeout(5.0), max_idle=1
    )
    api = _kube.KubeApi(http, max_in_flight=1)
    try:
        events = api.watch("v1", "ConfigMap", "ns", resource_version="7")
        assert (await anext(events)).type == "BOOKMARK"
        added = await anext(events)
        assert (added.type, added.object["metadata"]["name"]) == ("ADDED", "a")
        got = await asyncio.wait_for(api.get("v1", "ConfigMap", "a", "ns"), 5)
        assert (got or {})["metadata"]["name"] == "a", "a get goes while the watch holds its connection"
        await events.aclose()  # type: ignore[attr-defined]
    finally:
        await api.close()
        listening.close()
        await listening.wait_closed()
    assert watching.is_set()
    assert [r.split(b"?")[0] for r in requests] == [
        b"GET /api/v1 HTTP/1.1",
        b"GET /api/v1/namespaces/ns/configmaps",
        b"GET /api/v1/namespaces/ns/configmaps/a HTTP/1.1",
    ]


@pytest.mark.parametrize(
    ("config", "want", "reason"),
    [
        pytest.param(None, "no such file", "a kubeconfig that is not there", id="Missing"),
        pytest.param(
            "hello", "not a kubeconfig: the document is a string, not a mapping", "not a mapping", id="Scalar"
        ),
    ],
)
def test_bad_kubeconfig_is_one_input_error_line(
    tmp_path: Any, config: str | None, want: str, reason: str
) -> None:
    """The client reports what ``_kubeconfig`` finds (``test_kubeconfig.py`` has every case)."""
    path = tmp_path / "kubeconfig"
    if config is not None:
        path.write_text(config)
    with pytest.raises(errors.InputError) as caught:
        _kube.KubeApi.from_kubeconfig(str(path))
    assert str(caught.value) == f"cannot load kubeconfig {path}: {want}", reason


TWO_CONTEXTS = {
    "apiVersion": "v1",
    "kind": "Config",
    "clusters": [
        {"name": "a", "cluster": {"server": "https://a.test:6443", "insecure-skip-tls-verify": True}},
        {"name": "b", "cluster": {"server": "https://b.test:6443", "insecure-skip-tls-verify": True}},
    ],
    "users": [{"name": "u", "user": {"token": "t"}}],
    "contexts": [
        {"name": "a", "context": {"cluster": "a", "user": "u"}},
        {"name": "b", "context": {"cluster": "b", "user": "u"}},
    ],
    "current-context": "a",
}


@pytest.mark.parametrize(
    ("how", "want", "reason"),
    [
        pytest.param(("path", None), "https://a.test:6443", "a path and its current context", id="Path"),
        pytest.param(("path", "b"), "https://b.test:6443", "a named context wins", id="NamedContext"),
        pytest.param(("env", None), "https://a.test:6443", "no path: $KUBECONFIG (its first file)", id="Env"),
    ],
)
async def test_kubeconfig_selection(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, how: tuple[str, str | None], want: str, reason: str
) -> None:
    """``how``: where the kubeconfig comes from (a path or the environment) and the context asked for."""
    source, context = how
    path = tmp_path / "kubeconfig"
    path.write_text(json.dumps(TWO_CONTEXTS))
    monkeypatch.setenv("KUBECONFIG", f"{path}:{tmp_path / 'second'}")
    api = _kube.KubeApi.from_kubeconfig(str(path) if source == "path" else None, context=context)
    assert api.server == want, reason
    await api.close()


# -- against the real API server -------------------------------------------------------------------


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


@pytest.fixture
async def namespace(kube: _kube.KubeApi) -> str:
    name = unique("h1")
    await kube.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
    return name


def widget_crd(group: str) -> dict[str, Any]:
    """A namespaced Widget kind with a status subresource and a bounded ``spec.size``."""
    schema = {
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "properties": {"size": {"type": "integer", "maximum": 10}, "color": {"type": "string"}},
            },
            "status": {"type": "object", "properties": {"phase": {"type": "string"}}},
        },
    }
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"widgets.{group}"},
        "spec": {
            "group": group,
            "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "subresources": {"status": {}},
                    "schema": {"openAPIV3Schema": schema},
                }
            ],
        },
    }


async def eventually(check: Callable[[], Any], timeout: float = 20.0) -> Any:
    """Poll an async check until the kind it needs is served (real time: a real server)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        try:
            return await check()
        except (_api.NoKindMatch, _api.NotFound, AssertionError):  # not served yet
            if asyncio.get_running_loop().time() > deadline:
                raise
            await asyncio.sleep(0.1)


async def new_widget_kind(kube: _kube.KubeApi) -> str:
    """Create a Widget CRD in a fresh group and return its apiVersion once the kind is served."""
    group = f"{unique('w')}.crossfn.io"
    await kube.create(widget_crd(group))

    async def served() -> None:
        crd = await kube.get("apiextensions.k8s.io/v1", "CustomResourceDefinition", f"widgets.{group}")
        assert crd is not None
        conditions = {c["type"]: c["status"] for c in (crd.get("status") or {}).get("conditions") or []}
        assert conditions.get("Established") == "True"

    await eventually(served)
    return f"{group}/v1"


@pytest.mark.cluster
async def test_configmap_crud(kube: _kube.KubeApi, namespace: str) -> None:
    created = await kube.create(cm("a", namespace, x="1"))
    assert created["metadata"]["uid"]
    assert (await kube.get("v1", "ConfigMap", "a", namespace) or {})["data"] == {"x": "1"}
    items, version = await kube.list("v1", "ConfigMap", namespace)
    assert [i["metadata"]["name"] for i in items if i["metadata"]["name"] == "a"] == ["a"]
    assert {i["kind"] for i in items} == {"ConfigMap"}, "list items carry their kind"
    assert version

    created["data"] = {"x": "2"}
    updated = await kube.update(created)
    created["data"] = {"x": "3"}
    with pytest.raises(_api.Conflict, match="the object has been modified"):
        await kube.update(created)  # stale resourceVersion

    patched = await kube.patch("v1", "ConfigMap", "a", namespace, {"data": {"y": "1"}})
    assert patched["data"] == {"x": "2", "y": "1"}
    patched = await kube.patch(
        "v1", "ConfigMap", "a", namespace, [{"op": "remove", "path": "/data/y"}], patch_type="json"
    )
    assert patched["data"] == {"x": "2"}

    with pytest.raises(_api.Conflict):
        await kube.delete("v1", "ConfigMap", "a", namespace, uid="not-its-uid")
    await kube.delete("v1", "ConfigMap", "a", namespace, uid=updated["metadata"]["uid"])
    assert await kube.get("v1", "ConfigMap", "a", namespace) is None
    with pytest.raises(_api.NotFound, match='configmaps "a" not found'):
        await kube.delete("v1", "ConfigMap", "a", namespace)


@pytest.mark.cluster
async def test_labels_select_in_list(kube: _kube.KubeApi, namespace: str) -> None:
    for name, team in (("a", "red"), ("b", "blue"), ("c", "red")):
        obj = cm(name, namespace)
        obj["metadata"]["labels"] = {"team": team}
        await kube.create(obj)
    items, _ = await kube.list("v1", "ConfigMap", namespace, labels={"team": "red"})
    assert sorted(i["metadata"]["name"] for i in items) == ["a", "c"]


@pytest.mark.cluster
async def test_server_side_apply_owns_only_what_it_sends(kube: _kube.KubeApi, namespace: str) -> None:
    """A field the manager stops sending is removed; another manager's field is kept."""
    await kube.apply(cm("a", namespace, x="1", y="2"), field_manager="crossfn")
    await kube.apply(cm("a", namespace, other="kept"), field_manager="someone-else")
    applied = await kube.apply(cm("a", namespace, x="1"), field_manager="crossfn")
    assert applied["data"] == {"x": "1", "other": "kept"}
    managers = {m["manager"] for m in applied["metadata"]["managedFields"]}
    assert {"crossfn", "someone-else"} <= managers


@pytest.mark.cluster
async def test_kind_created_moments_ago_is_discovered(kube: _kube.KubeApi, namespace: str) -> None:
    """Discovery refreshes on a miss: a CRD created after the client started is usable at once."""
    group = f"{unique('fresh')}.crossfn.io"
    with pytest.raises(_api.NoKindMatch, match=f'no matches for kind "Widget" in version "{group}/v1"'):
        await kube.is_namespaced(f"{group}/v1", "Widget")
    assert await kube.get(f"{group}/v1", "Widget", "w", namespace) is None, "get of an unknown kind is None"
    with pytest.raises(_api.NoKindMatch):
        await kube.list(f"{group}/v1", "Widget")

    await kube.create(widget_crd(group))
    assert await eventually(lambda: kube.is_namespaced(f"{group}/v1", "Widget")) is True
    widget = {
        "apiVersion": f"{group}/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "namespace": namespace},
        "spec": {"size": 3},
    }
    created = await eventually(lambda: kube.create(widget))
    assert created["spec"] == {"size": 3}
    items, _ = await kube.list(f"{group}/v1", "Widget", namespace)
    assert [i["metadata"]["name"] for i in items] == ["w"]
    await kube.delete(f"{group}/v1", "Widget", "w", namespace)
    assert await kube.get(f"{group}/v1", "Widget", "w", namespace) is None


@pytest.mark.cluster
async def test_status_subresource_apply(kube: _kube.KubeApi, namespace: str) -> None:
    """Status is written through /status only; the main resource ignores it, and vice versa."""
    api_version = await new_widget_kind(kube)
    widget = {
        "apiVersion": api_version,
        "kind": "Widget",
        "metadata": {"name": "w", "namespace": namespace},
        "spec": {"size": 1},
        "status": {"phase": "ignored"},
    }
    created = await eventually(lambda: kube.apply(widget, field_manager="crossfn"))
    assert "status" not in created, "the main resource ignores status"
    status_only = {
        "apiVersion": api_version,
        "kind": "Widget",
        "metadata": {"name": "w", "namespace": namespace},
        "status": {"phase": "Ready"},
    }
    applied = await kube.apply(status_only, field_manager="crossfn", status=True)
    assert applied["status"] == {"phase": "Ready"}
    assert applied["spec"] == {"size": 1}, "a status apply leaves spec alone"
    merged = await kube.patch(
        api_version, "Widget", "w", namespace, {"status": {"phase": "Gone"}}, status=True
    )
    assert merged["status"] == {"phase": "Gone"}


@pytest.mark.cluster
async def test_invalid_object_is_invalid(kube: _kube.KubeApi, namespace: str) -> None:
    """A schema violation is Invalid (422) with the API server's message naming the field."""
    api_version = await new_widget_kind(kube)
    widget = {
        "apiVersion": api_version,
        "kind": "Widget",
        "metadata": {"name": "w", "namespace": namespace},
        "spec": {"size": 11},
    }
    with pytest.raises(_api.Invalid, match=r"spec.size: Invalid value: 11: spec.size in body should be less"):
        await eventually(lambda: kube.apply(widget, field_manager="crossfn"))
    with pytest.raises(_api.Conflict, match="already exists"):
        await kube.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})


@pytest.mark.cluster
async def test_openapi_v3(kube: _kube.KubeApi) -> None:
    """/openapi/v3 lists group-versions, including a new CRD's, and serves each document."""
    api_version = await new_widget_kind(kube)
    paths = await eventually(lambda: _assert_has(kube, f"apis/{api_version}"))
    assert "api/v1" in paths
    document = json.loads(await kube.openapi_document(f"apis/{api_version}"))
    schemas = document["components"]["schemas"]
    assert any(name.endswith(".Widget") for name in schemas)


async def _assert_has(kube: _kube.KubeApi, path: str) -> list[str]:
    paths = await kube.openapi_paths()
    assert path in paths
    return paths


@pytest.mark.cluster
async def test_watch_from_a_list(kube: _kube.KubeApi, namespace: str) -> None:
    """A watch from a list's resourceVersion sees later changes (bookmarks are requested)."""
    _, version = await kube.list("v1", "ConfigMap", namespace)
    await kube.create(cm("a", namespace))
    await kube.delete("v1", "ConfigMap", "a", namespace)
    seen: list[str] = []
    async for event in kube.watch("v1", "ConfigMap", namespace, resource_version=version, timeout_seconds=5):
        if event.type != "BOOKMARK":
            seen.append(f"{event.type} {event.object['metadata']['name']}")
        if len(seen) == 2:
            break
    assert seen == ["ADDED a", "DELETED a"]


@pytest.mark.cluster
async def test_writes_are_recorded_under_the_field_manager(kube: _kube.KubeApi, namespace: str) -> None:
    """managedFields show crossfn (or the manager a caller names), never the HTTP library."""
    created = await kube.create(cm("a", namespace, x="1"))
    created["data"] = {"x": "2"}
    await kube.update(created)
    patched = await kube.patch(
        "v1", "ConfigMap", "a", namespace, {"data": {"y": "1"}}, field_manager="claims"
    )
    managers = {(m["manager"], m["operation"]) for m in patched["metadata"]["managedFields"]}
    assert managers == {("crossfn", "Update"), ("claims", "Update")}


def with_server_and_token(
    envtest: envtest_module.Environment, tmp_path: Any, *, server: str, token: str
) -> str:
    """A copy of the environment's kubeconfig pointing at ``server`` with ``token``."""
    config = json.loads(Path(envtest.kubeconfig).read_text())
    config["clusters"][0]["cluster"]["server"] = server
    config["users"][0]["user"]["token"] = token
    path = tmp_path / "kubeconfig"
    path.write_text(json.dumps(config))
    return str(path)


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.cluster
@pytest.mark.parametrize(
    ("target", "want", "reason"),
    [
        pytest.param(
            "wrong-token",
            "the API server at {url} refused the credentials: Unauthorized",
            "a 401 names the server that refused",
            id="Unauthorized",
        ),
        pytest.param(
            "closed-port",
            "cannot reach the API server at {url}: ",
            "a server that is not listening is named",
            id="Unreachable",
        ),
    ],
)
async def test_connection_errors_name_the_server(
    envtest: envtest_module.Environment, tmp_path: Any, target: str, want: str, reason: str
) -> None:
    """Both the request client and the watch client (each has its own transport)."""
    url = envtest.url if target == "wrong-token" else f"https://127.0.0.1:{closed_port()}"
    token = "not-the-token" if target == "wrong-token" else envtest.token
    api = _kube.KubeApi.from_kubeconfig(with_server_and_token(envtest, tmp_path, server=url, token=token))
    expected = want.format(url=url)
    try:
        for attempt in (
            api.list("v1", "Namespace"),
            anext(api.watch("v1", "Namespace", resource_version="1")),
        ):
            with pytest.raises(_api.ApiError) as caught:
                await attempt
            assert str(caught.value).startswith(expected), (reason, str(caught.value))
            assert "\n" not in str(caught.value)
    finally:
        await api.close()


async def test_watch_cancelled_in_its_tls_handshake_closes_its_socket() -> None:
    """httpcore drops a connection cancelled in its TLS handshake unclosed; the watch's send must not."""
    accepted, hung_up = asyncio.Event(), asyncio.Event()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted.set()  # and never answer the ClientHello: the handshake hangs
        await reader.read()  # until the client hangs up
        hung_up.set()
        writer.close()

    listening = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = listening.sockets[0].getsockname()[1]
    client = httpx2.AsyncClient(base_url=f"https://127.0.0.1:{port}", limits=_kube._WATCH_LIMITS)
    try:
        request = client.build_request("GET", "/api/v1/pods", timeout=httpx2.Timeout(0.5))
        watch = asyncio.create_task(_kube._open_stream(client, request))
        await accepted.wait()
        await asyncio.sleep(0.05)  # into the handshake
        watch.cancel()
        with pytest.raises(asyncio.CancelledError):
            await watch
        async with asyncio.timeout(5):
            await hung_up.wait()
    finally:
        await client.aclose()
        listening.close()
        await listening.wait_closed()


@pytest.mark.parametrize(
    ("answers", "want_calls", "want_error", "reason"),
    [
        pytest.param(
            [(429, {"Retry-After": "1"}), (200, {})],
            2,
            None,
            "a request the server asked to retry (a CRD's storage re-initializing) is sent again",
            id="RetryAfterThenOK",
        ),
        pytest.param(
            [(503, {"Retry-After": "0"}), (503, {"Retry-After": "0"}), (200, {})],
            3,
            None,
            "a 5xx with Retry-After is retried too, as client-go does",
            id="UnavailableTwice",
        ),
        pytest.param(
            [(503, {})],
            1,
            "storage is (re)initializing",
            "without Retry-After the error is the caller's at once",
            id="NoRetryAfter",
        ),
        pytest.param(
            [(429, {"Retry-After": "0"})] * _kube.RETRY_AFTER_ATTEMPTS,
            _kube.RETRY_AFTER_ATTEMPTS,
            "storage is (re)initializing",
            "the retries are bounded, then the error surfaces",
            id="Bounded",
        ),
    ],
)
async def test_retry_after(
    answers: list[tuple[int, dict[str, str]]], want_calls: int, want_error: str | None, reason: str
) -> None:
    calls: list[int] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        code, headers = answers[min(len(calls), len(answers) - 1)]
        calls.append(code)
        if code == 200:
            return httpx2.Response(200, json={"items": [], "metadata": {"resourceVersion": "7"}})
        status = {"kind": "Status", "code": code, "message": "storage is (re)initializing"}
        return httpx2.Response(code, json=status, headers=headers)

    api = mock_api(handler)
    try:
        if want_error is None:
            assert await api.list("v1", "ConfigMap", "ns") == ([], "7"), reason
        else:
            with pytest.raises(_api.ApiError, match=re.escape(want_error)):
                await api.list("v1", "ConfigMap", "ns")
    finally:
        await api.close()
    assert len(calls) == want_calls, reason
