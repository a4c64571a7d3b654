"""validate_render: render's --validate over the XR, step inputs and composed resources."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from crossfn import validate
from crossfn.schemas import store

DATA = Path(__file__).parents[1] / "data" / "schemas"

_INPUT_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "inputs.template.fn.example.io"},
    "spec": {
        "group": "template.fn.example.io",
        "names": {"kind": "Input", "plural": "inputs"},
        "scope": "Cluster",
        "versions": [
            {
                "name": "v1beta1",
                "served": True,
                "storage": True,
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "properties": {"template": {"type": "string"}},
                        "required": ["template"],
                    }
                },
            }
        ],
    },
}


def _store() -> store.SchemaStore:
    objects = [d for d in yaml.safe_load_all((DATA / "xrd" / "v2-xnetwork.yaml").read_text()) if d]
    return store.SchemaStore.from_objects([*objects, _INPUT_CRD])


def _xr(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "platform.example.org/v1",
        "kind": "Network",
        "metadata": {"name": "net", "namespace": "team-a"},
        "spec": {"region": "eu-west-1", "cidrBlock": "10.0.0.0/16", "subnets": [{"zone": "a"}], **spec},
    }


_DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"annotations": {"crossplane.io/composition-resource-name": "web"}},
    "spec": {"replicas": "two", "selector": {}, "template": {}},
}


def test_validate_render_labels_every_problem() -> None:
    problems = validate.validate_render(
        _xr(region="mars"),
        [_DEPLOYMENT, {"apiVersion": "x.io/v1", "kind": "Unknown", "metadata": {"name": "u"}}],
        _store(),
        inputs=[("render", {"apiVersion": "template.fn.example.io/v1beta1", "kind": "Input"})],
    )
    assert [str(p) for p in problems] == [
        'platform.example.org/v1, Kind=Network, net : spec.region: Unsupported value: "mars": '
        'supported values: "eu-west-1", "us-east-1", "us-west-2"',
        'step "render" input : template: Required value',
        'apps/v1, Kind=Deployment, web : spec.replicas: Invalid value: "string": '
        'spec.replicas in body must be of type integer: "string"',
    ], "XR first, then inputs, then composed; unknown kinds are skipped; names fall back to the resource name"


def test_validate_render_valid() -> None:
    assert validate.validate_render(_xr(), [], _store()) == []
