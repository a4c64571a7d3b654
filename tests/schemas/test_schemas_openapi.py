"""OpenAPI v3 lookups: Crossplane's TestOpenAPISchemasFetcherFetch, TestFilteringSchemaFetcher, TestLoadRequiredSchemas."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from crossfn import errors
from crossfn.schemas import openapi

DATA = Path(__file__).parents[1] / "data" / "schemas" / "openapi"

_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
_OWNER = "io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference"


def _doc(**schemas: Any) -> dict[str, Any]:
    return {"openapi": "3.0.0", "components": {"schemas": schemas}}


def _kind(group: str, version: str, kind: str, **props: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": props,
        "x-kubernetes-group-version-kind": [{"group": group, "version": version, "kind": kind}],
    }


_POD = _kind("", "v1", "Pod", spec={"type": "object"})
_DEPLOYMENT = _kind("apps", "v1", "Deployment", metadata={"$ref": f"#/components/schemas/{_META}"})
_META_SCHEMA = {
    "type": "object",
    "properties": {"ownerReferences": {"type": "array", "items": {"$ref": f"#/components/schemas/{_OWNER}"}}},
}
_OWNER_SCHEMA = {"type": "object", "properties": {"uid": {"type": "string"}}}
_MULTI = {
    "type": "object",
    "x-kubernetes-group-version-kind": [
        {"group": "apps", "version": "v1", "kind": "DeleteOptions"},
        {"group": "", "version": "v1", "kind": "DeleteOptions"},
    ],
}


@pytest.mark.parametrize(
    ("reason", "docs", "api_version", "kind", "want"),
    [
        pytest.param(
            "A group-version with no document gives nothing (an empty Schema).",
            [],
            "apps/v1",
            "Deployment",
            None,
            id="GVNotFound",
        ),
        pytest.param(
            "A document without the kind gives nothing.",
            [_doc(pod=_POD)],
            "apps/v1",
            "Deployment",
            None,
            id="KindNotFound",
        ),
        pytest.param(
            "A document without components gives nothing.",
            [{"openapi": "3.0.0"}],
            "v1",
            "Pod",
            None,
            id="NoComponents",
        ),
        pytest.param(
            "Schemas tagged with several GVKs are skipped even when one matches.",
            [_doc(opts=_MULTI)],
            "apps/v1",
            "DeleteOptions",
            None,
            id="MultiGVKSchemaSkipped",
        ),
        pytest.param(
            "A core kind is found by its empty group.",
            [_doc(pod=_POD)],
            "v1",
            "Pod",
            _POD,
            id="SuccessCoreGVK",
        ),
        pytest.param(
            "A kind of a named group is found; the top level keeps its own keys.",
            [_doc(dep=_kind("apps", "v1", "Deployment"))],
            "apps/v1",
            "Deployment",
            _kind("apps", "v1", "Deployment"),
            id="SuccessNonCoreGVK",
        ),
        pytest.param(
            "A $ref to ObjectMeta is inlined.",
            [_doc(dep=_DEPLOYMENT, **{_META: {"type": "object"}})],
            "apps/v1",
            "Deployment",
            {**_DEPLOYMENT, "properties": {"metadata": {"type": "object"}}},
            id="FlattensReferencedSchemas",
        ),
        pytest.param(
            "Refs are inlined transitively: ObjectMeta, then OwnerReference.",
            [_doc(dep=_DEPLOYMENT, **{_META: _META_SCHEMA, _OWNER: _OWNER_SCHEMA})],
            "apps/v1",
            "Deployment",
            {
                **_DEPLOYMENT,
                "properties": {
                    "metadata": {
                        "type": "object",
                        "properties": {"ownerReferences": {"type": "array", "items": _OWNER_SCHEMA}},
                    }
                },
            },
            id="FlattensNestedReferencedSchemas",
        ),
        pytest.param(
            "Group and version compare exactly by default.",
            [_doc(dep=_kind("Apps", "V1", "Deployment"))],
            "apps/v1",
            "Deployment",
            None,
            id="CaseSensitiveByDefault",
        ),
    ],
)
def test_find_schema(reason: str, docs: list[dict[str, Any]], api_version: str, kind: str, want: Any) -> None:
    assert openapi.find_schema(docs, api_version, kind) == want, reason


def test_find_schema_does_not_change_documents() -> None:
    doc = _doc(dep=_DEPLOYMENT, **{_META: _META_SCHEMA, _OWNER: _OWNER_SCHEMA})
    before = json.dumps(doc, sort_keys=True)
    found = openapi.find_schema([doc], "apps/v1", "Deployment")
    assert found is not None
    found["properties"]["metadata"]["type"] = "changed"
    assert json.dumps(doc, sort_keys=True) == before, "the result is a fresh copy"


def test_find_schema_ref_cycle_terminates() -> None:
    cyclic = {"type": "object", "properties": {"next": {"$ref": "#/components/schemas/node"}}}
    found = openapi.find_schema(
        [_doc(node=cyclic, top=_kind("x.io", "v1", "Top", n={"$ref": "#/components/schemas/node"}))],
        "x.io/v1",
        "Top",
    )
    assert found is not None
    assert found["properties"]["n"]["properties"]["next"] == {"$ref": "#/components/schemas/node"}, (
        "a cycle stops at the ref that would recurse"
    )


@pytest.mark.parametrize(
    ("reason", "api_version", "want"),
    [
        pytest.param(
            "Two slashes do not parse; the cause is Go's ParseGroupVersion text.",
            "a/b/c",
            'cannot parse apiVersion "a/b/c": unexpected GroupVersion string: a/b/c',
            id="TooManySlashes",
        ),
        pytest.param(
            "An empty apiVersion does not parse.",
            "",
            'cannot parse apiVersion "": group and version must not be empty',
            id="Empty",
        ),
        pytest.param(
            "An empty version does not parse.",
            "apps/",
            'cannot parse apiVersion "apps/": group and version must not be empty',
            id="EmptyVersion",
        ),
        pytest.param(
            "An empty group does not parse.",
            "/v1",
            'cannot parse apiVersion "/v1": group and version must not be empty',
            id="EmptyGroup",
        ),
    ],
)
def test_invalid_api_version(reason: str, api_version: str, want: str) -> None:
    with pytest.raises(errors.InputError) as exc:
        openapi.find_schema([], api_version, "Pod")
    assert str(exc.value) == want, reason


@pytest.mark.parametrize(
    ("reason", "api_version", "want"),
    [
        pytest.param("The core group maps to api/<version>.", "v1", "api/v1", id="Core"),
        pytest.param("Named groups map to apis/<group>/<version>.", "apps/v1", "apis/apps/v1", id="Named"),
    ],
)
def test_discovery_path(reason: str, api_version: str, want: str) -> None:
    assert openapi.discovery_path(api_version) == want, reason


# TestFilteringSchemaFetcher: render's -s fetcher searches every document and
# compares group/version case-insensitively.
@pytest.mark.parametrize(
    ("reason", "api_version", "kind", "want_title"),
    [
        pytest.param(
            "Widget is found in its group's document, refs flattened through allOf.",
            "example.org/v1",
            "Widget",
            "A Widget.",
            id="DeploymentFoundWithFlattenedRefs",
        ),
        pytest.param("A core kind is found in api/v1.", "v1", "ConfigMap", None, id="ConfigMapFoundCoreType"),
        pytest.param(
            "Group and version ignore case.", "EXAMPLE.org/V1", "Widget", "A Widget.", id="CaseInsensitive"
        ),
    ],
)
def test_filtering_fetch(reason: str, api_version: str, kind: str, want_title: str | None) -> None:
    docs = openapi.load_documents(DATA)
    found = openapi.find_schema(docs, api_version, kind, case_insensitive_group_version=True)
    assert found is not None, reason
    assert found.get("description") == want_title, reason
    meta = found["properties"]["metadata"]["allOf"][0]
    assert "$ref" not in json.dumps(found), "every $ref is inlined"
    assert meta["properties"]["ownerReferences"]["items"]["allOf"][0]["required"] == [
        "apiVersion",
        "kind",
        "name",
        "uid",
    ]


@pytest.mark.parametrize(
    ("reason", "docs", "kind"),
    [
        pytest.param("An unknown kind is not found.", None, "Gadget", id="NotFound"),
        pytest.param("No documents find nothing.", [], "Widget", id="EmptyDocuments"),
        pytest.param("The kind compares exactly even when case-insensitive.", None, "widget", id="KindExact"),
    ],
)
def test_filtering_fetch_not_found(reason: str, docs: list[dict[str, Any]] | None, kind: str) -> None:
    docs = openapi.load_documents(DATA) if docs is None else docs
    assert openapi.find_schema(docs, "example.org/v1", kind, case_insensitive_group_version=True) is None, (
        reason
    )


def test_filtering_fetch_multiple_documents() -> None:
    docs = [_doc(pod=_POD), _doc(dep=_kind("apps", "v1", "Deployment"))]
    assert openapi.find_schema(docs, "apps/v1", "Deployment", case_insensitive_group_version=True) is not None


# TestLoadRequiredSchemas.
def test_load_documents_directory(tmp_path: Path) -> None:
    (tmp_path / "b.json").write_text('{"components": {}}')
    (tmp_path / "a.json").write_text('{"openapi": "3.0.0"}')
    (tmp_path / "notes.txt").write_text("ignored")
    assert openapi.load_documents(tmp_path) == [{"openapi": "3.0.0"}, {"components": {}}], (
        "sorted, *.json only"
    )


def test_load_documents_single_file(tmp_path: Path) -> None:
    (tmp_path / "one.json").write_text('{"openapi": "3.0.0"}')
    assert openapi.load_documents(tmp_path / "one.json") == [{"openapi": "3.0.0"}], (
        "a walk of a file visits it"
    )


def test_load_documents_nested_directory() -> None:
    docs = openapi.load_documents(DATA)
    assert len(docs) == 2, "the walk is recursive"


@pytest.mark.parametrize(
    ("reason", "setup", "want"),
    [
        pytest.param(
            "A missing directory is an error.",
            lambda p: p / "missing",
            r"^lstat .*missing: no such file or directory$",
            id="NotFound",
        ),
        pytest.param(
            "A directory with no JSON file is Crossplane's error.",
            lambda p: p,
            r"^no JSON files found in \".*\"$",
            id="EmptyDirectory",
        ),
        pytest.param(
            "Bad JSON names the file.",
            lambda p: (p / "bad.json").write_text("{") and p,
            r"^cannot parse OpenAPI document \".*bad\.json\": ",
            id="InvalidJSON",
        ),
        pytest.param(
            "A JSON array is not a document.",
            lambda p: (p / "list.json").write_text("[]") and p,
            r"^cannot parse OpenAPI document \".*list\.json\": not a JSON object$",
            id="NotAnObject",
        ),
    ],
)
def test_load_documents_errors(reason: str, setup: Any, want: str, tmp_path: Path) -> None:
    with pytest.raises(errors.InputError, match=want):
        openapi.load_documents(setup(tmp_path))
