"""The engine's sources over the API: cache or live reads, schema cache invalidation, secrets."""

from __future__ import annotations

import base64
import json

import pytest

from crossfn import engine, errors
from crossfn.controller.composite import _sources
from crossfn.controller.crds import _crds
from crossfn.controller.kube import _api

from .fake_api import FakeApi
from .fake_informers import FakeCache, FakeInformers

CM = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "x", "namespace": "ns", "labels": {"a": "1"}},
}


async def test_resources_read_live_when_not_watched() -> None:
    api = FakeApi()
    api.put(CM)
    source = _sources.ApiResources(api, FakeInformers())
    assert (await source.get("v1", "ConfigMap", "ns", "x") or {})["metadata"]["name"] == "x"
    assert [o["metadata"]["name"] for o in await source.list("v1", "ConfigMap", None, {"a": "1"})] == ["x"]
    assert ("list", "ConfigMap", "") in api.calls, "a kind nobody watches is listed live"


async def test_resources_read_the_cache_when_watched() -> None:
    api = FakeApi()
    informers = FakeInformers()
    informers.caches[("v1", "ConfigMap")] = FakeCache([CM])
    source = _sources.ApiResources(api, informers)
    assert await source.get("v1", "ConfigMap", "ns", "x") == CM
    assert await source.list("v1", "ConfigMap", "ns", {"a": "1"}) == [CM]
    assert await source.list("v1", "ConfigMap", "ns", {"a": "2"}) == []
    assert api.calls == [], "a watched, synced kind is answered from the cache"


async def test_resources_cache_miss_and_unsynced_cache_go_live() -> None:
    api = FakeApi()
    api.put(CM)
    informers = FakeInformers()
    informers.caches[("v1", "ConfigMap")] = FakeCache([], synced=True)
    assert await _sources.ApiResources(api, informers).get("v1", "ConfigMap", "ns", "x") is not None, (
        "a miss may be an object created a moment ago"
    )
    informers.caches[("v1", "ConfigMap")] = FakeCache([], synced=False)
    assert len(await _sources.ApiResources(api, informers).list("v1", "ConfigMap", None, None)) == 1, (
        "an unsynced cache is not trusted"
    )


async def test_an_unserved_kind_is_an_error() -> None:
    """A required kind the API server does not serve fails the fetch, by name and by labels, as Crossplane's
    client does: it is not "nothing matched" (upstream core-2.7)."""
    api = FakeApi()
    unserved = 'no matches for kind "Nope" in version "x/v1"'
    api.fail("list", "Nope", _api.NoKindMatch(unserved))
    source = _sources.ApiResources(api, None)
    with pytest.raises(_api.NoKindMatch, match=unserved):
        await source.list("x/v1", "Nope", None, None)
    with pytest.raises(_api.NoKindMatch, match=unserved):
        await source.get("x/v1", "Nope", "", "x")
    api.scopes[("x/v1", "Nope")] = False
    assert await source.get("x/v1", "Nope", "", "x") is None, "a served kind without the object: not found"


def openapi_doc(kind: str) -> bytes:
    return json.dumps({"components": {"schemas": {f"org.example.v1.{kind}": {
        "type": "object", "x-kubernetes-group-version-kind": [{"group": "example.org", "version": "v1", "kind": kind}],
    }}}}).encode()  # fmt: skip


async def test_schemas_are_cached_until_a_crd_changes() -> None:
    api = FakeApi()
    api.openapi["apis/example.org/v1"] = openapi_doc("XOld")
    schemas = _sources.ApiSchemas(api)
    assert await schemas.schema("example.org/v1", "XNew") is None
    reads = api.openapi_reads
    api.openapi["apis/example.org/v1"] = openapi_doc("XNew")
    assert await schemas.schema("example.org/v1", "XNew") is None, "discovery is cached"
    assert api.openapi_reads == reads, "a cached answer reads nothing"
    informers = FakeInformers()
    schemas.watch_crds(informers)
    informers.caches[(_crds.CRD_API_VERSION, _crds.CRD_KIND)].fire(
        "ADDED", {"metadata": {"name": "xnews.example.org"}}
    )
    found = await schemas.schema("example.org/v1", "XNew")
    assert found is not None and found["type"] == "object", "a CRD event drops the cache"


async def test_missing_group_version_is_an_empty_schema() -> None:
    assert await _sources.ApiSchemas(FakeApi()).schema("nothing.example/v1", "X") is None


async def test_secrets() -> None:
    api = FakeApi()
    api.put({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": "ns"},
             "data": {"k": base64.b64encode(b"v").decode()}})  # fmt: skip
    secrets = _sources.ApiSecrets(api)
    assert await secrets.secret("ns", "s") == {"k": b"v"}
    assert await secrets.secret("ns", "missing") is None
    api.objects[("v1", "Secret", "ns", "s")]["data"]["k"] = "!!"
    with pytest.raises(errors.InputError, match="cannot decode Secret ns/s"):
        await secrets.secret("ns", "s")


async def test_scopes_and_bundle() -> None:
    api = FakeApi({("example.org/v1", "XNet"): False})
    sources = _sources.api_sources(api, None)
    assert isinstance(sources, engine.Sources)
    assert await sources.scopes.is_namespaced("v1", "ConfigMap") is True
    assert await sources.scopes.is_namespaced("example.org/v1", "XNet") is False
