"""Required schemas from OpenAPI v3 documents (upstream core-2.8; core-4.4 TestOpenAPISchemasFetcherFetch,
upstream core-4.10 TestFilteringSchemaFetcher)."""

import json
from collections.abc import Iterable
from typing import Any

import pytest

from crossfn import engine, errors
from crossfn.engine import _required
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.schemas import store
from crossfn.sdk import resource

OBJECT_META = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "ownerReferences": {"type": "array", "items": {"$ref": "#/components/schemas/OwnerReference"}},
    },
}
OWNER_REFERENCE = {"type": "object", "properties": {"uid": {"type": "string"}}}


def gvk(group: str, version: str, kind: str) -> list[dict[str, str]]:
    return [{"group": group, "version": version, "kind": kind}]


def doc(**schemas: dict[str, Any]) -> dict[str, Any]:
    return {"components": {"schemas": schemas}}


APPS = doc(
    Deployment={
        "type": "object",
        "x-kubernetes-group-version-kind": gvk("apps", "v1", "Deployment"),
        "properties": {"metadata": {"allOf": [{"$ref": "#/components/schemas/ObjectMeta"}]}},
    },
    ObjectMeta=OBJECT_META,
    OwnerReference=OWNER_REFERENCE,
    DeleteOptions={
        "type": "object",
        "x-kubernetes-group-version-kind": [
            *gvk("apps", "v1", "DeleteOptions"),
            *gvk("", "v1", "DeleteOptions"),
        ],
    },
)
CORE = doc(Pod={"type": "object", "x-kubernetes-group-version-kind": gvk("", "v1", "Pod")})


class Discovery:
    def __init__(self, documents: dict[str, bytes], *, paths_error: str = "", fetch_error: str = "") -> None:
        self.documents = documents
        self.paths_error = paths_error
        self.fetch_error = fetch_error

    async def paths(self) -> Iterable[str]:
        if self.paths_error:
            raise RuntimeError(self.paths_error)
        return list(self.documents)

    async def document(self, path: str) -> bytes:
        if self.fetch_error:
            raise RuntimeError(self.fetch_error)
        return self.documents[path]


GOOD = Discovery({"apis/apps/v1": json.dumps(APPS).encode(), "api/v1": json.dumps(CORE).encode()})


@pytest.mark.parametrize(
    ("discovery", "api_version", "kind", "want", "reason"),
    [
        pytest.param(
            GOOD,
            "example.org/v1",
            "Foo",
            None,
            "A group-version discovery does not list is an empty Schema.",
            id="GVNotFound",
        ),
        pytest.param(
            GOOD,
            "apps/v1",
            "StatefulSet",
            None,
            "A kind not in the document is an empty Schema.",
            id="KindNotFound",
        ),
        pytest.param(
            GOOD,
            "apps/v1",
            "DeleteOptions",
            None,
            "Entries with several GVKs are skipped.",
            id="MultiGVKSchemaSkipped",
        ),
        pytest.param(
            GOOD,
            "v1",
            "Pod",
            {"type": "object", "x-kubernetes-group-version-kind": gvk("", "v1", "Pod")},
            "The core group lives at api/v1.",
            id="SuccessCoreGVK",
        ),
        pytest.param(
            Discovery(
                {
                    "apis/apps/v1": json.dumps(
                        doc(
                            StatefulSet={
                                "type": "object",
                                "x-kubernetes-group-version-kind": gvk("apps", "v1", "StatefulSet"),
                            }
                        )
                    ).encode()
                }
            ),
            "apps/v1",
            "StatefulSet",
            {"type": "object", "x-kubernetes-group-version-kind": gvk("apps", "v1", "StatefulSet")},
            "Other groups live at apis/<group>/<version>.",
            id="SuccessNonCoreGVK",
        ),
        pytest.param(
            Discovery(
                {
                    "api/v1": json.dumps(
                        doc(
                            Pod={
                                "x-kubernetes-group-version-kind": gvk("", "v1", "Pod"),
                                "properties": {"metadata": {"$ref": "#/components/schemas/OwnerReference"}},
                            },
                            OwnerReference=OWNER_REFERENCE,
                        )
                    ).encode()
                }
            ),
            "v1",
            "Pod",
            {
                "x-kubernetes-group-version-kind": gvk("", "v1", "Pod"),
                "properties": {"metadata": OWNER_REFERENCE},
            },
            "A $ref is replaced by the schema it names.",
            id="FlattensReferencedSchemas",
        ),
        pytest.param(
            GOOD,
            "apps/v1",
            "Deployment",
            {
                "type": "object",
                "x-kubernetes-group-version-kind": gvk("apps", "v1", "Deployment"),
                "properties": {
                    "metadata": {
                        "allOf": [
                            {
                                "type": "object",
                                "properties": {
                                    "name": {"type": "string"},
                                    "ownerReferences": {"type": "array", "items": OWNER_REFERENCE},
                                },
                            }
                        ]
                    }
                },
            },
            "References are inlined transitively (ObjectMeta -> OwnerReference); the top level keeps its GVK.",
            id="FlattensNestedReferencedSchemas",
        ),
    ],
)
async def test_TestOpenAPISchemasFetcherFetch(
    discovery: Discovery, api_version: str, kind: str, want: dict[str, Any] | None, reason: str
) -> None:
    got = await _required.fetch_schema(
        engine.OpenAPISchemaSource(discovery), fnv1.SchemaSelector(api_version=api_version, kind=kind)
    )
    if want is None:
        assert got == fnv1.Schema() and not got.HasField("openapi_v3"), reason
        return
    assert resource.struct_to_dict(got.openapi_v3) == want, reason


@pytest.mark.parametrize(
    ("discovery", "api_version", "want", "reason"),
    [
        pytest.param(
            GOOD,
            "a/b/c",
            'cannot parse apiVersion "a/b/c": unexpected GroupVersion string: a/b/c',
            "A malformed apiVersion is an error.",
            id="InvalidApiVersion",
        ),
        pytest.param(
            Discovery({}, paths_error="boom"),
            "apps/v1",
            "cannot get OpenAPI v3 paths: boom",
            "Discovery failing is an error.",
            id="PathsError",
        ),
        pytest.param(
            Discovery({"apis/apps/v1": b""}, fetch_error="boom"),
            "apps/v1",
            "cannot get OpenAPI schema for apis/apps/v1: boom",
            "A failed fetch is an error.",
            id="SchemaFetchError",
        ),
        pytest.param(
            Discovery({"apis/apps/v1": b"{nope"}),
            "apps/v1",
            "cannot parse OpenAPI schema for apis/apps/v1: ",
            "A bad document is an error.",
            id="InvalidJSON",
        ),
    ],
)
async def test_TestOpenAPISchemasFetcherFetch_errors(
    discovery: Discovery, api_version: str, want: str, reason: str
) -> None:
    with pytest.raises(errors.CrossfnError) as exc:
        await _required.fetch_schema(
            engine.OpenAPISchemaSource(discovery),
            fnv1.SchemaSelector(api_version=api_version, kind="Deployment"),
        )
    assert str(exc.value).startswith(want), reason


async def test_TestOpenAPISchemasFetcherFetch_NilSelector() -> None:
    with pytest.raises(errors.CrossfnError, match=r"^you must specify a schema selector$"):
        await _required.fetch_schema(engine.OpenAPISchemaSource(GOOD), None)


@pytest.mark.parametrize(
    ("documents", "api_version", "kind", "found", "reason"),
    [
        pytest.param(
            [APPS],
            "apps/v1",
            "Deployment",
            True,
            "Refs are flattened in render too.",
            id="DeploymentFoundWithFlattenedRefs",
        ),
        pytest.param(
            [CORE], "v1", "Pod", True, "Core types have an empty group.", id="ConfigMapFoundCoreType"
        ),
        pytest.param([APPS], "apps/v1", "Nope", False, "Unknown kinds are empty.", id="NotFound"),
        pytest.param(
            [CORE, APPS],
            "APPS/V1",
            "Deployment",
            True,
            "Every document is searched; group/version ignore case.",
            id="MultipleDocuments",
        ),
        pytest.param([], "apps/v1", "Deployment", False, "No documents, no schema.", id="EmptyDocuments"),
        pytest.param(
            [APPS], "apps/v1", "deployment", False, "The kind is compared exactly.", id="KindIsCaseSensitive"
        ),
    ],
)
async def test_TestFilteringSchemaFetcher(
    documents: list[dict[str, Any]], api_version: str, kind: str, found: bool, reason: str
) -> None:
    # Render's -s fetcher is a SchemaStore of the documents, as render builds it.
    source = store.SchemaStore.from_objects(documents, builtins=False, case_insensitive_group_version=True)
    got = await _required.fetch_schema(source, fnv1.SchemaSelector(api_version=api_version, kind=kind))
    assert got.HasField("openapi_v3") is found, reason
    if found:
        assert "$ref" not in json.dumps(resource.struct_to_dict(got.openapi_v3)), "no reference is left"
