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


_TWO_VERSIONS = [
    {"name": "v1alpha1", "served": True, "referenceable": False},
    {"name": "v1", "served": True, "referenceable": True},
]
_CLAIM_NAMES = {"kind": "Thing", "plural": "things"}


@pytest.mark.parametrize(
    ("reason", "obj", "want_xr", "want_claim"),
    [
        pytest.param(
            "A v2 XRD serves its XR at the referenceable version and offers no claim.",
            _xrd(),
            ("example.org/v1", "XThing"),
            ("", ""),
            id="Modern",
        ),
        pytest.param(
            "The referenceable version names the XR's apiVersion, wherever it is listed.",
            _xrd(versions=_TWO_VERSIONS),
            ("example.org/v1", "XThing"),
            ("", ""),
            id="ReferenceableNotFirst",
        ),
        pytest.param(
            "A legacy XRD with claimNames offers a claim at the XR's version.",
            _xrd("apiextensions.crossplane.io/v1", claimNames=_CLAIM_NAMES),
            ("example.org/v1", "XThing"),
            ("example.org/v1", "Thing"),
            id="LegacyWithClaim",
        ),
        pytest.param(
            "claimNames on a v2 XRD offer nothing: only LegacyCluster XRs have claims.",
            _xrd(claimNames=_CLAIM_NAMES),
            ("example.org/v1", "XThing"),
            ("", ""),
            id="ModernClaimNamesIgnored",
        ),
        pytest.param(
            "Without a referenceable version the version is empty, as Crossplane's GetCompositeGroupVersionKind.",
            _xrd(versions=[{"name": "v1", "served": True}]),
            ("example.org/", "XThing"),
            ("", ""),
            id="NoReferenceableVersion",
        ),
    ],
)
def test_composite_and_claim_type(
    reason: str, obj: dict[str, Any], want_xr: tuple[str, str], want_claim: tuple[str, str]
) -> None:
    assert xrd.composite_type(obj) == want_xr, reason
    assert xrd.claim_type(obj) == want_claim, reason
    assert xrd.offers_claim(obj) is (want_claim != ("", "")), reason


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
    assert {
        "conditions",
        "lastHandledReconcileAt",
        "connectionDetails",
        "claimConditionTypes",
        "address",
    } <= set(status)
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


def _with_schema(schema: Any) -> dict[str, Any]:
    """An XRD whose only version has this ``openAPIV3Schema``."""
    obj = _xrd()
    obj["spec"]["versions"][0]["schema"] = {"openAPIV3Schema": schema}
    return obj


def _spec_props(**props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"spec": {"type": "object", "properties": props}}}


_AT = "spec.versions[0].schema.openAPIV3Schema"
_SPEC = f"{_AT}.properties[spec]"


@pytest.mark.parametrize(
    ("reason", "obj", "want"),
    [
        pytest.param(
            "A property that is a string, not a schema (the review's XRD).",
            _with_schema({"type": "object", "properties": {"spec": "a string"}}),
            f'{_SPEC}: Invalid value: "a string": must be a schema (an object)',
            id="SpecString",
        ),
        pytest.param(
            "properties must be a map.",
            _with_schema({"type": "object", "properties": ["spec"]}),
            f'{_AT}.properties: Invalid value: ["spec"]: must be a map of schemas',
            id="PropertiesList",
        ),
        pytest.param(
            "required is a list of strings.",
            _with_schema({"type": "object", "required": "spec"}),
            f'{_AT}.required: Invalid value: "spec": must be a list of strings',
            id="RequiredString",
        ),
        pytest.param(
            "An integer keyword takes no fraction, as Go's int64.",
            _with_schema(_spec_props(name={"type": "string", "maxLength": 5.5})),
            f"{_SPEC}.properties[name].maxLength: Invalid value: 5.5: must be an integer",
            id="MaxLengthFraction",
        ),
        pytest.param(
            "A boolean keyword is not a string.",
            _with_schema(_spec_props(tags={"type": "object", "x-kubernetes-preserve-unknown-fields": "yes"})),
            f'{_SPEC}.properties[tags].x-kubernetes-preserve-unknown-fields: Invalid value: "yes": must be a boolean',
            id="PreserveString",
        ),
        pytest.param(
            "items may be a schema or a list of schemas; each must be a schema.",
            _with_schema(_spec_props(ports={"type": "array", "items": [{"type": "integer"}, 80]})),
            f"{_SPEC}.properties[ports].items[1]: Invalid value: 80: must be a schema (an object)",
            id="ItemsListEntry",
        ),
        pytest.param(
            "additionalProperties is a schema or a boolean.",
            _with_schema(_spec_props(labels={"type": "object", "additionalProperties": "string"})),
            f'{_SPEC}.properties[labels].additionalProperties: Invalid value: "string": '
            "must be a schema (an object) or a boolean",
            id="AdditionalPropertiesString",
        ),
        pytest.param(
            "A CEL rule is a string.",
            _with_schema(_spec_props(size={"type": "integer", "x-kubernetes-validations": [{"rule": 1}]})),
            f"{_SPEC}.properties[size].x-kubernetes-validations[0].rule: Invalid value: 1: must be a string",
            id="RuleNumber",
        ),
        pytest.param(
            "oneOf is a list of schemas.",
            _with_schema(_spec_props(a={"oneOf": {"required": ["x"]}})),
            f'{_SPEC}.properties[a].oneOf: Invalid value: {{"required": ["x"]}}: must be a list of schemas',
            id="OneOfObject",
        ),
        pytest.param(
            "A long value is cut short in the message.",
            _with_schema({"type": "object", "description": {"text": "x" * 100}}),
            f'{_AT}.description: Invalid value: {{"text": "{"x" * 47}...: must be a string',
            id="LongValue",
        ),
        pytest.param(
            "The version's schema itself must be an object.",
            _xrd(versions=[{"name": "v1", "referenceable": True, "served": True, "schema": "none"}]),
            'spec.versions[0].schema: Invalid value: "none": must be an object',
            id="SchemaString",
        ),
    ],
)
def test_crd_from_xrd_refuses_schemas_that_do_not_parse(reason: str, obj: dict[str, Any], want: str) -> None:
    """Crossplane cannot unmarshal these into JSONSchemaProps either; crossfn names the field instead of dropping it."""
    with pytest.raises(errors.InputError) as info:
        xrd.crd_from_xrd(obj)
    assert str(info.value) == (
        f'cannot convert XRD "xthings.example.org": cannot parse validation schema: {want}'
    ), reason


@pytest.mark.parametrize(
    ("reason", "schema"),
    [
        pytest.param("null is allowed anywhere, as Go's decoder allows it.", _spec_props(a=None)),
        pytest.param(
            "Unknown keywords are ignored, not refused.", _spec_props(a={"type": "string", "madeUp": 1})
        ),
        pytest.param(
            "Every kind of keyword, well typed.",
            _spec_props(
                a={
                    "type": "array",
                    "items": {"type": "integer", "minimum": 0, "maximum": 1.5, "enum": [0, 1]},
                    "maxItems": 3,
                    "x-kubernetes-list-type": "set",
                    "default": [0],
                },
                b={"type": "object", "additionalProperties": False, "externalDocs": {"url": "https://x"}},
                c={"anyOf": [{"type": "string"}], "not": {"type": "integer"}},
                d={"type": "object", "dependencies": {"x": ["y"], "z": {"required": ["w"]}}},
            ),
        ),
        pytest.param("A version without a schema generates an empty spec.", None),
    ],
)
def test_crd_from_xrd_accepts_what_parses(reason: str, schema: Any) -> None:
    assert xrd.crd_from_xrd(_with_schema(schema))["spec"]["versions"][0]["schema"], reason


def _versions(*versions: tuple[str, bool]) -> list[dict[str, Any]]:
    schema = {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object"}}}}
    return [{"name": n, "served": True, "referenceable": r, "schema": schema} for n, r in versions]


@pytest.mark.parametrize(
    ("reason", "obj", "want"),
    [
        pytest.param("A valid XRD passes.", _xrd(), "", id="Valid"),
        pytest.param(
            "A valid two-version XRD passes.",
            _xrd(versions=_versions(("v1", True), ("v2", False))),
            "",
            id="TwoVersions",
        ),
        pytest.param(
            "Two referenceable versions.",
            _xrd(versions=_versions(("v1", True), ("v2", True))),
            'spec.versions: exactly one version must be marked as referenceable, found "v1", "v2"',
            id="TwoReferenceable",
        ),
        pytest.param(
            "No referenceable version.",
            _xrd(versions=_versions(("v1", False))),
            "spec.versions: exactly one version must be marked as referenceable, found none",
            id="NoReferenceable",
        ),
        pytest.param(
            "A repeated version name.",
            _xrd(versions=_versions(("v1", True), ("v1", False))),
            'spec.versions[1].name: Duplicate value: "v1"',
            id="Duplicate",
        ),
        pytest.param(
            "The XR's own type must be object.",
            _with_schema({"type": "string"}),
            f'{_AT}.type: Unsupported value: "string": supported values: "object"',
            id="TopString",
        ),
        pytest.param(
            "spec must be an object: Crossplane would silently make an array one.",
            _with_schema({"type": "object", "properties": {"spec": {"type": "array"}}}),
            f'{_SPEC}.type: Unsupported value: "array": supported values: "object"',
            id="SpecArray",
        ),
        pytest.param(
            "status must be an object too.",
            _with_schema({"type": "object", "properties": {"status": {"type": "string"}}}),
            f'{_AT}.properties[status].type: Unsupported value: "string": supported values: "object"',
            id="StatusString",
        ),
        pytest.param(
            "Every problem is listed, in one line.",
            _xrd(versions=_versions(("v1", False), ("v1", False))),
            "spec.versions: exactly one version must be marked as referenceable, found none; "
            'spec.versions[1].name: Duplicate value: "v1"',
            id="Several",
        ),
        pytest.param(
            "Past five problems, only how many more.",
            _xrd(versions=_versions(*[("v1", True)] * 4)),
            'spec.versions: exactly one version must be marked as referenceable, found "v1", "v1", "v1", "v1"; '
            + "; ".join(f'spec.versions[{i}].name: Duplicate value: "v1"' for i in (1, 2, 3)),
            id="Capped",
        ),
        pytest.param(
            "The parse errors of crd_from_xrd come first.",
            _with_schema({"type": "object", "properties": {"spec": 1}}),
            f"cannot parse validation schema: {_SPEC}: Invalid value: 1: must be a schema (an object)",
            id="ParseError",
        ),
    ],
)
def test_check_xrd(reason: str, obj: dict[str, Any], want: str) -> None:
    """What the controller refuses up front, naming each field; render keeps Crossplane's leniency."""
    if not want:
        xrd.check_xrd(obj)
        return
    with pytest.raises(errors.InputError) as info:
        xrd.check_xrd(obj)
    assert str(info.value) == f'cannot convert XRD "xthings.example.org": {want}', reason


def test_render_keeps_crossplanes_leniency() -> None:
    """crd_from_xrd (render, validate) still generates what Crossplane generates from an XRD check_xrd refuses."""
    obj = _with_schema({"type": "object", "properties": {"spec": {"type": "array"}}})
    assert _schema(xrd.crd_from_xrd(obj))["properties"]["spec"]["type"] == "object"


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


def test_xrd_version_scale_subresource_is_the_crds() -> None:
    """An XRD version's ``subresources.scale`` (v2.3+) is copied to the XR's CRD, beside ``status``."""
    doc = _load("v1-xpostgres.yaml")
    scale = {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}
    doc["spec"]["versions"][0]["subresources"] = {"scale": scale}
    version = xrd.crd_from_xrd(doc)["spec"]["versions"][0]
    assert version["subresources"] == {"status": {}, "scale": scale}
