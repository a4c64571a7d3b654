"""The schema store: CRDs, XRDs, OpenAPI documents and built-in kinds, for required schemas and validation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from crossfn import errors, schemas
from crossfn.schemas import builtin, openapi, store

DATA = Path(__file__).parents[1] / "data" / "schemas"


def _yaml(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


@pytest.fixture(scope="module")
def full() -> store.SchemaStore:
    objects = _yaml(DATA / "provider" / "ec2.aws.example.io_instances.yaml")
    objects += _yaml(DATA / "xrd" / "v1-xpostgres.yaml") + _yaml(DATA / "xrd" / "v2-xnetwork.yaml")
    objects += openapi.load_documents(DATA / "openapi")
    objects.append({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "not-an-extension"}})
    return store.SchemaStore.from_objects(objects)


def test_exports() -> None:
    assert schemas.__all__ == ["builtin", "defaults", "openapi", "store", "xrd"]


@pytest.mark.parametrize(
    ("reason", "api_version", "kind"),
    [
        pytest.param(
            "Every served CRD version is known.", "ec2.aws.example.io/v1beta1", "Instance", id="CRDv1beta1"
        ),
        pytest.param(
            "Every served CRD version is known.", "ec2.aws.example.io/v1beta2", "Instance", id="CRDv1beta2"
        ),
        pytest.param(
            "A legacy XRD gives its XR.",
            "database.example.org/v1alpha1",
            "XPostgreSQLInstance",
            id="LegacyXR",
        ),
        pytest.param(
            "A legacy XRD gives its claim.", "database.example.org/v1alpha1", "PostgreSQLInstance", id="Claim"
        ),
        pytest.param(
            "A modern XRD gives its XR at every version.",
            "platform.example.org/v1beta1",
            "Network",
            id="ModernXR",
        ),
    ],
)
def test_crd_kinds(reason: str, full: store.SchemaStore, api_version: str, kind: str) -> None:
    assert full.is_crd(api_version, kind), reason
    assert (api_version, kind) in full.kinds(), reason
    published = full.schema_for(api_version, kind)
    assert published is not None, reason
    group, version = api_version.split("/")
    assert published["x-kubernetes-group-version-kind"] == [
        {"group": group, "kind": kind, "version": version}
    ]
    assert "ownerReferences" in published["properties"]["metadata"]["properties"], (
        "published CRD schemas carry the full ObjectMeta, as the API server serves them"
    )
    validation = full.validation_schema(api_version, kind)
    assert validation is not None
    assert "x-kubernetes-group-version-kind" not in validation, "validation uses the CRD's own schema"


@pytest.mark.parametrize(
    ("reason", "api_version", "kind"),
    [
        pytest.param("Deployments are built in.", "apps/v1", "Deployment", id="Deployment"),
        pytest.param("Core kinds are built in.", "v1", "Secret", id="Secret"),
        pytest.param("Pods are built in.", "v1", "Pod", id="Pod"),
        pytest.param("An OpenAPI document adds kinds.", "example.org/v1", "Widget", id="Document"),
    ],
)
def test_published_kinds(reason: str, full: store.SchemaStore, api_version: str, kind: str) -> None:
    found = full.schema_for(api_version, kind)
    assert found is not None, reason
    assert not full.is_crd(api_version, kind)
    assert "$ref" not in json.dumps(found), "refs are flattened"
    assert full.validation_schema(api_version, kind) == found


def test_document_wins_over_builtin(full: store.SchemaStore) -> None:
    found = full.schema_for("v1", "ConfigMap")
    assert found is not None
    assert "allOf" in found["properties"]["metadata"], (
        "the loaded document (allOf-wrapped) is used before built-ins"
    )


def test_builtin_shapes() -> None:
    s = store.SchemaStore()
    dep = s.schema_for("apps/v1", "Deployment")
    assert dep is not None
    assert "enum" not in dep["properties"]["apiVersion"], "no converter-added enum on apiVersion"
    port = dep["properties"]["spec"]["properties"]["template"]["properties"]["spec"]["properties"][
        "containers"
    ]["items"]
    target = s.schema_for("v1", "Service")
    assert target is not None
    target_port = target["properties"]["spec"]["properties"]["ports"]["items"]["properties"]["targetPort"]
    assert target_port.get("x-kubernetes-int-or-string") is True, "IntOrString becomes int-or-string"
    assert port["properties"]["name"]["type"] == "string", "optional types lose their null alternative"
    assert builtin.kubernetes_version().startswith("v1.")


@pytest.mark.parametrize(
    ("reason", "options", "api_version", "kind"),
    [
        pytest.param(
            "An unknown kind is None (an empty Schema).", {}, "example.org/v1", "Nothing", id="Unknown"
        ),
        pytest.param(
            "Built-ins can be turned off.", {"builtins": False}, "apps/v1", "Deployment", id="NoBuiltins"
        ),
    ],
)
def test_unknown(reason: str, options: dict[str, bool], api_version: str, kind: str) -> None:
    s = store.SchemaStore(**options)
    assert s.schema_for(api_version, kind) is None, reason
    assert s.validation_schema(api_version, kind) is None, reason


def test_case_insensitive_documents() -> None:
    s = store.SchemaStore.from_objects(
        openapi.load_documents(DATA / "openapi"), case_insensitive_group_version=True
    )
    assert s.schema_for("Example.ORG/v1", "Widget") is not None, (
        "render's -s fetcher ignores group/version case"
    )
    assert (
        store.SchemaStore.from_objects(openapi.load_documents(DATA / "openapi")).schema_for(
            "Example.ORG/v1", "Widget"
        )
        is None
    )


async def test_schema_source() -> None:
    s = store.SchemaStore()
    found = await s.schema("apps/v1", "Deployment")
    assert found is not None
    assert found["x-kubernetes-group-version-kind"] == [
        {"group": "apps", "kind": "Deployment", "version": "v1"}
    ]
    assert await s.schema("apps/v1", "Nothing") is None


def test_schema_for_returns_copies() -> None:
    s = store.SchemaStore()
    first = s.schema_for("v1", "Secret")
    assert first is not None
    first["properties"].clear()
    second = s.schema_for("v1", "Secret")
    assert second is not None and second["properties"], "callers cannot change the store"


@pytest.mark.parametrize(
    ("reason", "obj", "want"),
    [
        pytest.param(
            "Anything else is refused.",
            {"apiVersion": "v1", "kind": "ConfigMap"},
            r"^cannot load schemas from v1, Kind=ConfigMap: not a CustomResourceDefinition",
            id="NotAnExtension",
        ),
        pytest.param(
            "A CRD needs a group and kind.",
            {
                "apiVersion": "apiextensions.k8s.io/v1",
                "kind": "CustomResourceDefinition",
                "metadata": {"name": "x"},
                "spec": {},
            },
            r'^cannot load CRD "x": spec\.group and spec\.names\.kind are required$',
            id="BadCRD",
        ),
    ],
)
def test_add_errors(reason: str, obj: dict[str, Any], want: str) -> None:
    with pytest.raises(errors.InputError, match=want):
        store.SchemaStore().add(obj)


def test_unserved_versions_skipped() -> None:
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "things.x.io"},
        "spec": {
            "group": "x.io",
            "names": {"kind": "Thing"},
            "versions": [
                {"name": "v1", "served": False, "schema": {"openAPIV3Schema": {"type": "object"}}},
                {"name": "v2", "served": True, "schema": {"openAPIV3Schema": {"type": "object"}}},
            ],
        },
    }
    s = store.SchemaStore(builtins=False)
    s.add(crd)
    assert s.kinds() == [("x.io/v2", "Thing")]
