"""Real-world shapes: a large provider CRD, a v1 XRD with a claim and a v2 XRD, valid and invalid resources."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from crossfn import validate
from crossfn.schemas import store

DATA = Path(__file__).parents[1] / "data" / "schemas"


def _docs(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


@pytest.fixture(scope="module")
def schemas() -> store.SchemaStore:
    objects = _docs(DATA / "provider" / "ec2.aws.example.io_instances.yaml")
    objects += _docs(DATA / "xrd" / "v1-xpostgres.yaml") + _docs(DATA / "xrd" / "v2-xnetwork.yaml")
    return store.SchemaStore.from_objects(objects)


def _resource(file: str, name: str) -> dict[str, Any]:
    for doc in _docs(DATA / "resources" / file):
        if doc["metadata"]["name"] == name:
            return doc
    raise AssertionError(f"no resource {name} in {file}")


@pytest.mark.parametrize(
    ("reason", "file", "name", "want"),
    [
        pytest.param("A complete instance is valid.", "instances.yaml", "web", [], id="ProviderValid"),
        pytest.param(
            "The managementPolicies default ['*'] makes upjet's region rule apply.",
            "instances.yaml",
            "no-region",
            ['spec: Invalid value: "object": spec.forProvider.region is a required parameter'],
            id="ProviderCELRequiredParameter",
        ),
        pytest.param(
            "Observe-only instances need no region.",
            "instances.yaml",
            "observe-only",
            [],
            id="ProviderObserveOnly",
        ),
        pytest.param(
            "Types, enums, sets, required refs and unknown fields in a provider CRD.",
            "instances.yaml",
            "broken",
            [
                'spec.deletionPolicy: Unsupported value: "Keep": supported values: "Orphan", "Delete"',
                'spec.forProvider.cpuCoreCount: Invalid value: "string": spec.forProvider.cpuCoreCount in body must be of type number: "string"',
                'spec.forProvider.ebsBlockDevice[0].volumeSize: Invalid value: "string": '
                'spec.forProvider.ebsBlockDevice[0].volumeSize in body must be of type number: "string"',
                'spec.forProvider.vpcSecurityGroupIds[1]: Duplicate value: "sg-1"',
                'spec.managementPolicies[1]: Unsupported value: "Destroy": supported values: "Observe", "Create", "Update", "Delete", "LateInitialize", "*"',
                "spec.writeConnectionSecretToRef.namespace: Required value",
                'spec.forProvider.colour: Invalid value: "colour": unknown field: "colour"',
            ],
            id="ProviderInvalid",
        ),
        pytest.param(
            "A legacy XR relying on defaults is valid.", "composites.yaml", "db", [], id="LegacyXRValid"
        ),
        pytest.param(
            "Bounds, patterns, the legacy machinery enum and the XRD's CEL rule.",
            "composites.yaml",
            "bad-db",
            [
                "spec.parameters.storageGB: Invalid value: 10: spec.parameters.storageGB in body should be greater than or equal to 20",
                "spec.parameters.tier: Invalid value: \"gold\": spec.parameters.tier in body should match '^(standard|premium)$'",
                'spec.compositionUpdatePolicy: Unsupported value: "Sometimes": supported values: "Automatic", "Manual"',
                'spec: Invalid value: "object": backups need a retention of at least one day',
            ],
            id="LegacyXRInvalid",
        ),
        pytest.param("A claim of the legacy XRD is valid.", "composites.yaml", "my-db", [], id="ClaimValid"),
        pytest.param(
            "A modern XR with spec.crossplane is valid.", "composites.yaml", "net", [], id="ModernXRValid"
        ),
        pytest.param(
            "Enum, cidr, additionalProperties bounds, namespaced refs and a messageExpression rule.",
            "composites.yaml",
            "bad-net",
            [
                'spec.region: Unsupported value: "mars-1": supported values: "eu-west-1", "us-east-1", "us-west-2"',
                'spec.cidrBlock: Invalid value: "10.0.0.300/16": spec.cidrBlock in body must be of type cidr: "10.0.0.300/16"',
                "spec.tags.owner: Too long: may not be more than 16 bytes",
                'spec.crossplane.resourceRefs[0].namespace: Invalid value: "namespace": unknown field: "namespace"',
                'spec.subnets: Invalid value: "object": need at least 2 subnets, got 1',
            ],
            id="ModernXRInvalid",
        ),
    ],
)
def test_real_world(reason: str, schemas: store.SchemaStore, file: str, name: str, want: list[str]) -> None:
    problems = validate.validate_resource(_resource(file, name), schemas)
    assert problems is not None, reason
    assert [p.message for p in problems] == want, reason


def test_provider_defaults_applied_before_cel(schemas: store.SchemaStore) -> None:
    obj = _resource("instances.yaml", "no-region")
    obj["spec"]["managementPolicies"] = []
    problems = validate.validate_resource(obj, schemas)
    assert problems == [], "an explicit empty policy list is kept, so the rule does not apply"


def test_unknown_kind_is_none(schemas: store.SchemaStore) -> None:
    assert validate.validate_resource({"apiVersion": "x.io/v1", "kind": "Nope"}, schemas) is None


def test_openapi_document_kind() -> None:
    from crossfn.schemas import openapi

    s = store.SchemaStore.from_objects(openapi.load_documents(DATA / "openapi"), builtins=False)
    widget = {
        "apiVersion": "example.org/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "ownerReferences": [{"apiVersion": "v1", "kind": "X", "name": "x"}]},
        "spec": {"size": 0, "colour": "red"},
    }
    problems = validate.validate_resource(widget, s)
    assert problems is not None
    assert [p.message for p in problems] == [
        "metadata.ownerReferences[0].uid: Required value",
        "spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1",
        'spec.colour: Invalid value: "colour": unknown field: "colour"',
    ], "a published schema validates through allOf-wrapped refs; metadata's fields are checked, not pruned"
