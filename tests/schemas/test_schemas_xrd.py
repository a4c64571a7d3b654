"""XRD -> CRD generation (v1 legacy with claims, v2 modern) and render's --xrd defaulting (TestDefaultValues)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from crossfn import errors
from crossfn.schemas import defaults, xrd

DATA = Path(__file__).parents[1] / "data" / "schemas" / "xrd"


def _load(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((DATA / name).read_text())
    return loaded


def _xrd(api_version: str = "apiextensions.crossplane.io/v2", **spec: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "group": "example.org",
        "names": {"kind": "XThing", "plural": "xthings"},
        "versions": [
            {
                "name": "v1",
                "served": True,
                "referenceable": True,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object"}}}},
            }
        ],
    }
    base.update(spec)
    return {
        "apiVersion": api_version,
        "kind": "CompositeResourceDefinition",
        "metadata": {"name": "xthings.example.org"},
        "spec": base,
    }


def _schema(crd: dict[str, Any], index: int = 0) -> dict[str, Any]:
    schema: dict[str, Any] = crd["spec"]["versions"][index]["schema"]["openAPIV3Schema"]
    return schema


@pytest.mark.parametrize(
    ("reason", "obj", "want"),
    [
        pytest.param(
            "A v1 XRD without scope is legacy.",
            _xrd("apiextensions.crossplane.io/v1"),
            "LegacyCluster",
            id="V1Default",
        ),
        pytest.param("A v2 XRD without scope is namespaced.", _xrd(), "Namespaced", id="V2Default"),
        pytest.param("An explicit scope wins.", _xrd(scope="Cluster"), "Cluster", id="Explicit"),
    ],
)
def test_scope_of(reason: str, obj: dict[str, Any], want: str) -> None:
    assert xrd.scope_of(obj) == want, reason


def test_legacy_xrd_crd() -> None:
    crd = xrd.crd_from_xrd(_load("v1-xpostgres.yaml"))
    assert crd["metadata"]["name"] == "xpostgresqlinstances.database.example.org"
    assert crd["spec"]["scope"] == "Cluster"
    assert crd["spec"]["names"]["categories"] == ["composite"]
    schema = _schema(crd)
    spec = schema["properties"]["spec"]
    for field in (
        "compositionRef",
        "compositionSelector",
        "compositionRevisionRef",
        "compositionRevisionSelector",
        "compositionUpdatePolicy",
        "claimRef",
        "resourceRefs",
        "writeConnectionSecretToRef",
        "parameters",
    ):
        assert field in spec["properties"], f"legacy XRs carry {field} directly under spec"
    assert "crossplane" not in spec["properties"]
    assert spec["required"] == ["parameters"], "the XRD's required fields are kept"
    assert spec["x-kubernetes-validations"][0]["message"] == "backups need a retention of at least one day"
    assert spec["properties"]["compositionUpdatePolicy"]["default"] == "Automatic", "the XRD's default policy"
    assert "namespace" in spec["properties"]["resourceRefs"]["items"]["properties"]
    status = schema["properties"]["status"]["properties"]
    assert {"conditions", "lastHandledReconcileAt", "connectionDetails", "claimConditionTypes", "address"} <= set(status)
    assert schema["properties"]["metadata"]["properties"]["name"]["maxLength"] == 63
    assert schema["required"] == ["spec"]
    version = crd["spec"]["versions"][0]
    assert version["subresources"] == {"status": {}}
    assert [c["name"] for c in version["additionalPrinterColumns"]] == [
        "SYNCED",
        "READY",
        "COMPOSITION",
        "COMPOSITIONREVISION",
        "AGE",
    ]


def test_legacy_xrd_claim_crd() -> None:
    claim = xrd.claim_crd_from_xrd(_load("v1-xpostgres.yaml"))
    assert claim is not None
    assert claim["metadata"]["name"] == "postgresqlinstances.database.example.org"
    assert claim["spec"]["scope"] == "Namespaced"
    assert claim["spec"]["names"]["kind"] == "PostgreSQLInstance"
    assert claim["spec"]["names"]["categories"] == ["claim"]
    spec = _schema(claim)["properties"]["spec"]
    assert {"compositeDeletePolicy", "resourceRef", "writeConnectionSecretToRef", "parameters"} <= set(
        spec["properties"]
    )
    assert "claimRef" not in spec["properties"]
    assert spec["properties"]["writeConnectionSecretToRef"]["required"] == ["name"], (
        "claims write to their own namespace"
    )
    assert "default" not in spec["properties"]["compositionUpdatePolicy"], (
        "only the XR gets the default update policy"
    )
    status = _schema(claim)["properties"]["status"]["properties"]
    assert {"conditions", "connectionDetails", "claimConditionTypes"} <= set(status), (
        "claims get legacy status fields"
    )
    assert _schema(claim)["properties"]["metadata"]["properties"]["name"]["maxLength"] == 63


@pytest.mark.parametrize(
    ("reason", "obj"),
    [
        pytest.param(
            "A v2 XRD has no claims.", _xrd(claimNames={"kind": "Thing", "plural": "things"}), id="V2"
        ),
        pytest.param(
            "A v1 XRD without claimNames has none.", _xrd("apiextensions.crossplane.io/v1"), id="NoClaimNames"
        ),
    ],
)
def test_no_claim_crd(reason: str, obj: dict[str, Any]) -> None:
    assert xrd.claim_crd_from_xrd(obj) is None, reason


def test_modern_namespaced_xrd_crd() -> None:
    crd = xrd.crd_from_xrd(_load("v2-xnetwork.yaml"))
    assert crd["spec"]["scope"] == "Namespaced"
    assert [v["name"] for v in crd["spec"]["versions"]] == ["v1beta1", "v1"], "every version is generated"
    assert [v["storage"] for v in crd["spec"]["versions"]] == [False, True], (
        "the referenceable version is stored"
    )
    spec = _schema(crd, 1)["properties"]["spec"]
    machinery = spec["properties"]["crossplane"]["properties"]
    assert set(machinery) == {
        "compositionRef",
        "compositionSelector",
        "compositionRevisionRef",
        "compositionRevisionSelector",
        "compositionUpdatePolicy",
        "resourceRefs",
    }, "modern XRs keep the machinery under spec.crossplane, with no claim or connection secret"
    assert "namespace" not in machinery["resourceRefs"]["items"]["properties"], (
        "namespaced XRs' refs carry no namespace"
    )
    assert machinery["resourceRefs"]["x-kubernetes-list-type"] == "atomic"
    status = _schema(crd, 1)["properties"]["status"]["properties"]
    assert set(status) == {"conditions", "lastHandledReconcileAt", "crossplane", "vpcId"}
    assert (
        status["crossplane"]["properties"]["connectionDetails"]["properties"]["lastPublishedTime"]["format"]
        == "date-time"
    )
    columns = crd["spec"]["versions"][1]["additionalPrinterColumns"]
    assert columns[2]["jsonPath"] == ".spec.crossplane.compositionRef.name"


def test_modern_cluster_xrd_refs_have_namespace() -> None:
    crd = xrd.crd_from_xrd(_xrd(scope="Cluster"))
    assert crd["spec"]["scope"] == "Cluster"
    refs = _schema(crd)["properties"]["spec"]["properties"]["crossplane"]["properties"]["resourceRefs"]
    assert "namespace" in refs["items"]["properties"], "cluster XRs may compose namespaced resources"


def test_xrd_name_max_length_kept_when_shorter() -> None:
    obj = _xrd()
    obj["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["metadata"] = {
        "type": "object",
        "properties": {"name": {"type": "string", "maxLength": 20}},
    }
    assert _schema(xrd.crd_from_xrd(obj))["properties"]["metadata"]["properties"]["name"]["maxLength"] == 20


@pytest.mark.parametrize(
    ("reason", "obj", "want"),
    [
        pytest.param(
            "A CRD is not an XRD.",
            {
                "apiVersion": "apiextensions.k8s.io/v1",
                "kind": "CustomResourceDefinition",
                "metadata": {"name": "a"},
            },
            r'^cannot convert XRD "a": not a CompositeResourceDefinition \(apiextensions\.k8s\.io/v1, Kind=CustomResourceDefinition\)$',
            id="NotAnXRD",
        ),
        pytest.param(
            "The group is required.",
            _xrd(group=""),
            r'^cannot convert XRD "xthings\.example\.org": spec\.group: Required value$',
            id="NoGroup",
        ),
        pytest.param(
            "Versions are required.", _xrd(versions=[]), r"spec\.versions: Required value$", id="NoVersions"
        ),
        pytest.param(
            "Each version needs a name.",
            _xrd(versions=[{}]),
            r"spec\.versions\[0\]\.name: Required value$",
            id="NoVersionName",
        ),
    ],
)
def test_crd_from_xrd_errors(reason: str, obj: dict[str, Any], want: str) -> None:
    with pytest.raises(errors.InputError, match=want):
        xrd.crd_from_xrd(obj)


# TestDefaultValues (cmd/crank/render xrd_test.go): render --xrd.
def _render_defaults(xr: dict[str, Any], obj: dict[str, Any]) -> dict[str, Any]:
    schema = xrd.version_schema(xrd.crd_from_xrd(obj), xr["apiVersion"])
    defaults.apply_defaults(xr, schema)
    return xr


def _defaulting_xrd() -> dict[str, Any]:
    def version(name: str, default: str) -> dict[str, Any]:
        return {
            "name": name,
            "served": True,
            "referenceable": name == "v1",
            "schema": {
                "openAPIV3Schema": {
                    "type": "object",
                    "properties": {
                        "spec": {
                            "type": "object",
                            "properties": {
                                "region": {"type": "string", "default": default},
                                "replicas": {"type": "integer", "default": 3},
                            },
                        }
                    },
                }
            },
        }

    return _xrd(versions=[version("v1beta1", "us-west-2"), version("v1", "eu-west-1")])


@pytest.mark.parametrize(
    ("reason", "xr", "want_spec"),
    [
        pytest.param(
            "Absent fields get the version's defaults.",
            {"apiVersion": "example.org/v1", "kind": "XThing", "spec": {}},
            {"region": "eu-west-1", "replicas": 3},
            id="SetDefaultValues",
        ),
        pytest.param(
            "Existing values are kept.",
            {"apiVersion": "example.org/v1", "kind": "XThing", "spec": {"region": "ap-south-1"}},
            {"region": "ap-south-1", "replicas": 3},
            id="DontOverwriteExistingValues",
        ),
        pytest.param(
            "Only the requested version's defaults apply.",
            {"apiVersion": "example.org/v1beta1", "kind": "XThing", "spec": {}},
            {"region": "us-west-2", "replicas": 3},
            id="MultipleVersions",
        ),
    ],
)
def test_default_values(reason: str, xr: dict[str, Any], want_spec: dict[str, Any]) -> None:
    assert _render_defaults(xr, _defaulting_xrd())["spec"] == want_spec, reason


def test_default_values_incorrect_api_version() -> None:
    xr = {"apiVersion": "example.org/v2", "kind": "XThing", "spec": {}}
    with pytest.raises(errors.InputError) as exc:
        _render_defaults(xr, _defaulting_xrd())
    assert str(exc.value) == "the specified API version 'example.org/v2' does not exist in the XRD"


def test_default_values_fill_machinery_defaults() -> None:
    xr = {
        "apiVersion": "database.example.org/v1alpha1",
        "kind": "XPostgreSQLInstance",
        "spec": {"parameters": {"storageGB": 20}},
    }
    _render_defaults(xr, _load("v1-xpostgres.yaml"))
    assert xr["spec"] == {
        "parameters": {
            "storageGB": 20,
            "version": "16",
            "tier": "standard",
            "backup": {"enabled": True, "retentionDays": 7},
        },
        "compositionUpdatePolicy": "Automatic",
    }, "a defaulted object receives its own children's defaults; the XRD's default update policy applies"
