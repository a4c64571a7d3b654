"""KubeApi: the Api Protocol over HTTP. Error translation and watch decoding against a mock
transport; CRUD, server-side apply, status, discovery refresh, errors and OpenAPI against a real
API server (``cluster``)."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx2
import pytest

from crossfn import errors
from crossfn.controller import _api, _kube

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


async def test_transport_errors_become_api_errors() -> None:
    """An unreachable server is an ApiError with status 0, never an httpx exception."""

    def refuse(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("connection refused", request=request)

    api = mock_api(refuse)
    with pytest.raises(_api.ApiError, match="cannot reach the API server: connection refused") as caught:
        await api.get("v1", "ConfigMap", "a", "ns")
    assert caught.value.status == 0
    await api.close()


async def test_requests_are_shaped_as_the_api_server_expects() -> None:
    """SSA is a PATCH with the apply content type, field manager and force; status goes to /status."""
    seen: list[httpx2.Request] = []

    def record(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return httpx2.Response(200, json=json.loads(request.content or b"{}") or cm("a", "ns"))

    api = mock_api(record)
    await api.apply(cm("a", "ns", x="1"), field_manager="crossfn", status=True)
    await api.patch("v1", "Namespace", "n", "", {"metadata": {"labels": {"a": "b"}}})
    await api.delete("v1", "ConfigMap", "a", "ns", propagation="Foreground", uid="u-1")
    apply, patch, delete = seen
    assert (apply.method, apply.url.path) == ("PATCH", "/api/v1/namespaces/ns/configmaps/a/status")
    assert apply.headers["content-type"] == "application/apply-patch+yaml"
    assert dict(apply.url.params) == {"fieldManager": "crossfn", "force": "true"}
    assert (patch.url.path, patch.headers["content-type"]) == (
        "/api/v1/namespaces/n",
        "application/merge-patch+json",
    )
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
        "ADDED 8",
        "BOOKMARK 9",
        "DELETED 10",
    ]
    await api.close()


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
    assert seen == ["ADDED"]
    await api.close()


@pytest.mark.parametrize(
    ("config", "reason"),
    [
        pytest.param("not: [a kubeconfig", "a file that is not YAML", id="NotYaml"),
        pytest.param(
            '{"clusters": [], "contexts": [], "current-context": "x"}',
            "a context that is missing",
            id="MissingContext",
        ),
    ],
)
def test_bad_kubeconfig_is_an_input_error(tmp_path: Any, config: str, reason: str) -> None:
    path = tmp_path / "kubeconfig"
    path.write_text(config)
    with pytest.raises(errors.InputError, match=f"cannot load kubeconfig {path}"):
        _kube.KubeApi.from_kubeconfig(str(path))


def test_missing_kubeconfig_is_an_input_error(tmp_path: Any) -> None:
    with pytest.raises(errors.InputError, match="cannot load kubeconfig"):
        _kube.KubeApi.from_kubeconfig(str(tmp_path / "absent"))


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
