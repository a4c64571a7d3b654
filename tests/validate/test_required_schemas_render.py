"""End to end: the required-schemas seed's usage in a render (issue 7).

A function asks for ``apps/v1 Deployment`` and for its XR's kind, receives
both schemas from ``crossfn render -s DIR``, validates a desired Deployment
with the first and reads the XR's fields from the second. The ``-s`` documents
are what the API server would publish: built from the Kubernetes schemas
crossfn ships and from an XRD, by :class:`crossfn.schemas.store.SchemaStore`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml

from crossfn.schemas import store

ROOT = Path(__file__).parents[2]
XRD = ROOT / "tests" / "data" / "schemas" / "xrd" / "v2-xnetwork.yaml"

_FUNCTION = """
from crossfn import validate
from crossfn.sdk import request, resource, response


def compose(req, rsp):
    response.require_schema(rsp, "deployment", "apps/v1", "Deployment")
    response.require_schema(rsp, "xr", "platform.example.org/v1", "Network")
    response.require_schema(rsp, "missing", "example.org/v1", "Nothing")
    deployment_schema = request.get_required_schema(req, "deployment")
    xr_schema = request.get_required_schema(req, "xr")
    if deployment_schema is None or xr_schema is None:
        return
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "spec": {
            "replicas": "three",
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "web", "image": "nginx", "colour": "blue"}]}},
        },
    }
    for problem in validate.validate_object(deployment, deployment_schema, structural=False):
        response.warning(rsp, problem.message)
    deployment["spec"]["replicas"] = 3
    del deployment["spec"]["template"]["spec"]["containers"][0]["colour"]
    if not validate.validate_object(deployment, deployment_schema, structural=False):
        resource.update(rsp.desired.resources["web"], deployment)
    fields = sorted(xr_schema["properties"]["spec"]["properties"])
    response.normal(rsp, "xr spec fields: " + ", ".join(fields))
    response.normal(rsp, "missing kind resolved: " + str(request.get_required_schema(req, "missing")))
"""


def _write(tmp: Path) -> list[str]:
    schemas = store.SchemaStore()
    schemas.add(yaml.safe_load(XRD.read_text()))
    deployment = schemas.schema_for("apps/v1", "Deployment")
    network = schemas.schema_for("platform.example.org/v1", "Network")
    docs = tmp / "schemas"
    (docs / "apis" / "apps").mkdir(parents=True)
    (docs / "apis" / "platform.example.org").mkdir(parents=True)
    (docs / "apis" / "apps" / "v1.json").write_text(
        json.dumps({"components": {"schemas": {"io.k8s.api.apps.v1.Deployment": deployment}}})
    )
    (docs / "apis" / "platform.example.org" / "v1.json").write_text(
        json.dumps({"components": {"schemas": {"org.example.platform.v1.Network": network}}})
    )
    (tmp / "schemafn.py").write_text(_FUNCTION)
    (tmp / "xr.yaml").write_text(
        "apiVersion: platform.example.org/v1\nkind: Network\nmetadata: {name: net, namespace: team-a}\n"
        "spec: {region: eu-west-1, cidrBlock: 10.0.0.0/16}\n"
    )
    (tmp / "composition.yaml").write_text(
        "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata: {name: networks}\n"
        "spec:\n  compositeTypeRef: {apiVersion: platform.example.org/v1, kind: Network}\n  mode: Pipeline\n"
        "  pipeline:\n  - step: schemas\n    functionRef: {name: function-schemas}\n"
    )
    (tmp / "functions.yaml").write_text(
        "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata:\n  name: function-schemas\n  annotations:\n"
        "    render.crossplane.io/runtime: InProcess\n    render.crossfn.io/runtime-inprocess-object: schemafn:compose\n"
        "spec: {package: example.org/function-schemas:v0.1.0}\n"
    )
    return ["render", "xr.yaml", "composition.yaml", "functions.yaml", "-s", "schemas", "-r", "--classic"]


def test_function_requires_deployment_and_xr_schemas(tmp_path: Path) -> None:
    args = _write(tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "crossfn", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    docs = [d for d in yaml.safe_load_all(result.stdout) if d]
    results = [(d["severity"], d["message"]) for d in docs if d.get("kind") == "Result"]
    assert results == [
        (
            "SEVERITY_WARNING",
            'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
        ),
        (
            "SEVERITY_WARNING",
            'spec.template.spec.containers[0].colour: Invalid value: "colour": unknown field: "colour"',
        ),
        ("SEVERITY_NORMAL", "xr spec fields: cidrBlock, crossplane, minSubnets, region, subnets, tags"),
        ("SEVERITY_NORMAL", "missing kind resolved: None"),
    ], "both schemas arrive; the Deployment is validated with one, the XR's fields read from the other"
    composed = [d for d in docs if d.get("kind") == "Deployment"]
    assert len(composed) == 1 and composed[0]["spec"]["replicas"] == 3, "the corrected Deployment is composed"
