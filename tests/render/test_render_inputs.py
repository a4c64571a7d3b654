"""Render's loading rules (upstream core-3.3) and its file-backed sources
(upstream core-3.5): streams, requirements, schemas, secrets.

Requirement and credential cases run through a real render with the
``echo_requests`` test function, which writes what it was sent into the XR
status: so each case checks the whole path from file to function.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from crossfn import errors, render
from crossfn.render import _inputs, _load

_HERE = Path(__file__).parent


@pytest.mark.parametrize(
    ("files", "want", "reason"),
    [
        pytest.param(
            {"a.yaml": "a: 1\n---\n---\nb: 2\n"},
            [{"a": 1}, {"b": 2}],
            "multi-document, empty documents skipped",
            id="MultiDocument",
        ),
        pytest.param(
            {"b.yml": "b: 1", "a.yaml": "a: 1", "c.txt": "c: 1", "sub/d.yaml": "d: 1"},
            [{"a": 1}, {"b": 1}],
            "a directory: top-level .yaml/.yml only, lexical order",
            id="SuccessWithSubdirectory",
        ),
        pytest.param(
            {"a.yaml": "t: 2024-01-01T00:00:00Z\nf: 1.0\n1: x\n"},
            [{"t": "2024-01-01T00:00:00Z", "f": 1, "1": "x"}],
            "timestamps stay strings, whole floats become ints, keys strings",
            id="JSONRoundTrip",
        ),
    ],
)
def test_load_documents(
    tmp_path: Path, files: dict[str, str], want: list[dict[str, Any]], reason: str
) -> None:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    path = tmp_path if len(files) > 1 else tmp_path / next(iter(files))
    assert _load.load_documents(path) == want, reason


@pytest.mark.parametrize(
    ("setup", "want", "reason"),
    [
        pytest.param("missing", "no such file or directory", "NoSuchFile", id="NoSuchFile"),
        pytest.param(
            "emptydir",
            'no YAML files found in "{d}" (.yaml or .yml)',
            "an empty directory",
            id="EmptyDirectory",
        ),
        pytest.param(
            "scalar", "document 1: not a YAML object", "a document must be an object", id="NotAnObject"
        ),
    ],
)
def test_load_errors(tmp_path: Path, setup: str, want: str, reason: str) -> None:
    path = tmp_path / "x.yaml"
    if setup == "emptydir":
        path = tmp_path
    elif setup == "scalar":
        path.write_text("just a string\n")
    with pytest.raises(errors.InputError) as info:
        _load.load_documents(path)
    assert want.format(d=tmp_path) in str(info.value), reason


_STEP = {
    "step": "test",
    "functionRef": {"name": "function-test"},
    "credentials": [{"name": "creds", "source": "Secret", "secretRef": {"namespace": "ns", "name": "s"}}],
    "requirements": {
        "requiredResources": [
            {"requirementName": "by-name", "apiVersion": "example.org/v1", "kind": "Thing", "name": "b"},
            {
                "requirementName": "by-label",
                "apiVersion": "example.org/v1",
                "kind": "Thing",
                "matchLabels": {"x": "1"},
            },
            {
                "requirementName": "all",
                "apiVersion": "example.org/v1",
                "kind": "Thing",
                "namespace": "ignored",
            },
            {"requirementName": "none", "apiVersion": "example.org/v1", "kind": "Thing", "name": "zzz"},
        ],
        "requiredSchemas": [
            {"requirementName": "deploy", "apiVersion": "Apps/V1", "kind": "Deployment"},
            {"requirementName": "unknown", "apiVersion": "example.org/v1", "kind": "Nope"},
        ],
    },
}
_THINGS = [
    {"apiVersion": "example.org/v1", "kind": "Thing", "metadata": {"name": "c", "labels": {"x": "1"}}},
    {"apiVersion": "example.org/v1", "kind": "Thing", "metadata": {"name": "b", "namespace": "other"}},
    {"apiVersion": "example.org/v1", "kind": "Thing", "metadata": {"name": "a", "labels": {"x": "1"}}},
    {"apiVersion": "example.org/v2", "kind": "Thing", "metadata": {"name": "d"}},
]
_OPENAPI = {
    "components": {
        "schemas": {
            "io.k8s.api.apps.v1.Deployment": {
                "type": "object",
                "properties": {"spec": {"$ref": "#/components/schemas/io.k8s.api.apps.v1.DeploymentSpec"}},
                "x-kubernetes-group-version-kind": [{"group": "apps", "version": "v1", "kind": "Deployment"}],
            },
            "io.k8s.api.apps.v1.DeploymentSpec": {"type": "object"},
        }
    }
}


def _request(tmp: Path, *, secret_ns: str = "ns", observed: str = "") -> render.Request:
    shutil.copy(_HERE / "testdata" / "crossfn_render_testfns.py", tmp / "crossfn_render_testfns.py")
    xr = {"apiVersion": "nop.example.org/v1alpha1", "kind": "XNopResource", "metadata": {"name": "x"}}
    comp = {
        "apiVersion": "apiextensions.crossplane.io/v1", "kind": "Composition", "metadata": {"name": "c"},
        "spec": {"compositeTypeRef": {"apiVersion": "nop.example.org/v1alpha1", "kind": "XNopResource"},
                 "mode": "Pipeline", "pipeline": [_STEP]},
    }  # fmt: skip
    fn = {
        "apiVersion": "pkg.crossplane.io/v1beta1", "kind": "Function", "metadata": {"name": "function-test",
        "annotations": {"render.crossplane.io/runtime": "InProcess",
                        "render.crossfn.io/runtime-inprocess-object": "crossfn_render_testfns:echo_requests"}},
        "spec": {"package": "example/function-test:v1"},
    }  # fmt: skip
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": secret_ns},
              "data": {"password": "aHVudGVyMg=="}}  # fmt: skip
    for name, doc in (("xr.yaml", xr), ("comp.yaml", comp), ("fns.yaml", fn), ("secrets.yaml", secret)):
        (tmp / name).write_text(yaml.safe_dump(doc))
    (tmp / "required.yaml").write_text(yaml.safe_dump_all(_THINGS))
    (tmp / "schemas" / "nested").mkdir(parents=True)
    (tmp / "schemas" / "nested" / "apps.json").write_text(json.dumps(_OPENAPI))
    (tmp / "observed.yaml").write_text(observed or "{}\n")
    return render.Request(
        composite_resource=tmp / "xr.yaml", composition=tmp / "comp.yaml", functions=tmp / "fns.yaml",
        required_resources=[tmp / "required.yaml"], required_schemas=tmp / "schemas",
        function_credentials=tmp / "secrets.yaml", observed_resources=tmp / "observed.yaml" if observed else None,
    )  # fmt: skip


def test_requirements_schemas_and_credentials(tmp_path: Path) -> None:
    status = render.render(_request(tmp_path), output=render.CLASSIC)[0]["status"]
    assert status["required"] == {
        "by-name": ["b"],  # namespace of the stored object does not matter
        "by-label": ["a", "c"],  # sorted by name
        "all": [
            "a",
            "b",
            "c",
        ],  # no match: every Thing of that apiVersion; the selector's namespace is ignored
        "none": [],  # a name that matches nothing: empty, not an error
    }, "FilteringFetcher semantics (TestFilterResources)"
    assert status["schemas"]["deploy"] == ["properties", "type", "x-kubernetes-group-version-kind"]
    assert status["schemas"]["unknown"] == [], "an unknown kind is an empty Schema"
    assert status["credentials"] == {"creds": {"password": "hunter2"}}


def test_deployment_schema_refs_flattened(tmp_path: Path) -> None:
    req = _request(tmp_path)
    docs = render.render(req, output=render.CLASSIC)
    assert docs[0]["status"]["schemas"]["deploy"], "group/version compare case-insensitively (Apps/V1)"


def test_secret_in_wrong_namespace(tmp_path: Path) -> None:
    """TestGetSecret/SecretWrongNamespace: name and namespace must both match."""
    with pytest.raises(errors.InputError) as info:
        render.render(_request(tmp_path, secret_ns="elsewhere"), output=render.CLASSIC)
    assert str(info.value) == (
        'cannot render composite resource: cannot get credentials from secret "s": secret "s" not found'
    )


_OBSERVED = """apiVersion: example.org/v1
kind: Bucket
metadata:
  name: bucket-1
  annotations:
    crossplane.io/composition-resource-name: bucket
spec:
  writeConnectionSecretToRef:
    name: bucket-conn
    namespace: crossplane-system
---
apiVersion: v1
kind: Secret
metadata:
  name: bucket-conn
  namespace: crossplane-system
data:
  endpoint: aHR0cHM6Ly9leGFtcGxl
---
apiVersion: example.org/v1
kind: Database
metadata:
  name: db-1
  annotations:
    crossplane.io/composition-resource-name: db
    render.crossfn.io/connection-details: '{"password": "s3cret", "port": "5432"}'
"""


def test_observed_connection_details(tmp_path: Path) -> None:
    """Connection details from a companion Secret
    (upstream core-2.16 lookup) or the connection-details annotation."""
    status = render.render(_request(tmp_path, observed=_OBSERVED), output=render.CLASSIC)[0]["status"]
    assert status["connection"] == {
        "bucket": {"endpoint": "https://example"},
        "db": {"password": "s3cret", "port": "5432"},
    }, "the companion Secret is not an observed resource itself"


_XR = "apiVersion: example.org/v1\nkind: XThing\nmetadata: {name: x}\nspec: {flag: y}\n"
_COMPOSITION = """apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: c}
spec:
  compositeTypeRef: {apiVersion: example.org/v1, kind: XThing}
  mode: Pipeline
  pipeline:
  - step: s
    functionRef: {name: f}
    input: {flag: y}
"""
_FUNCTIONS = (
    "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: f}\nspec: {package: x, flag: y}\n"
)
_OBJECT = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: o}\ndata: {flag: y}\n"
_SECRET = "apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: ns}\nimmutable: y\n"
_XRD = """apiVersion: apiextensions.crossplane.io/v1
kind: CompositeResourceDefinition
metadata: {name: xthings.example.org}
spec:
  group: example.org
  names: {kind: XThing, plural: xthings}
  versions:
  - name: v1
    served: true
    referenceable: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              flag: {type: boolean}
              defaulted: {type: boolean, default: y}
"""


@pytest.mark.parametrize(
    ("field", "text", "got", "reason"),
    [
        pytest.param("composite_resource", None, lambda i: i.xr["spec"]["flag"], "the XR", id="XR"),
        pytest.param("composition", None, lambda i: i.composition["spec"]["pipeline"][0]["input"]["flag"],
                     "the Composition's function input", id="Composition"),
        pytest.param("functions", None, lambda i: i.functions[0]["spec"]["flag"], "the Functions", id="Functions"),
        pytest.param("observed_resources", _OBJECT, lambda i: i.observed[0]["data"]["flag"],
                     "--observed-resources", id="ObservedResources"),
        pytest.param("extra_resources", _OBJECT, lambda i: i.extra[0]["data"]["flag"], "--extra-resources",
                     id="ExtraResources"),
        pytest.param("required_resources", _OBJECT, lambda i: i.required[0]["data"]["flag"],
                     "--required-resources", id="RequiredResources"),
        pytest.param("function_credentials", _SECRET, lambda i: i.credentials[0]["immutable"],
                     "--function-credentials", id="FunctionCredentials"),
        pytest.param("context_files", "y\n", lambda i: i.context["k"], "--context-files", id="ContextFiles"),
        pytest.param("context_values", "y", lambda i: i.context["k"], "--context-values", id="ContextValues"),
        pytest.param("xrd", _XRD, lambda i: (i.xr["spec"]["defaulted"], i.xrd_document is not None),
                     "--xrd: a default of y is true", id="XRD"),
        pytest.param("crds", _XRD, lambda i: i.crd_documents[0]["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
                     ["properties"]["spec"]["properties"]["defaulted"]["default"], "--crds", id="CRDs"),
    ],
)  # fmt: skip
def test_every_input_reads_y_as_kubernetes_does(
    tmp_path: Path, field: str, text: str | None, got: Any, reason: str
) -> None:
    """go-yaml v2 (sigs.k8s.io/yaml) reads a plain ``y`` as the boolean true, in every file render reads."""
    paths = {}
    for name, content in (
        ("xr", _XR),
        ("composition", _COMPOSITION),
        ("functions", _FUNCTIONS),
        ("input", text),
    ):
        if content is not None:
            paths[name] = tmp_path / f"{name}.yaml"
            paths[name].write_text(content)
    extra: dict[str, Any] = {}
    if field in ("observed_resources", "function_credentials", "xrd"):
        extra[field] = paths["input"]
    elif field in ("extra_resources", "required_resources", "crds"):
        extra[field] = [paths["input"]]
    elif field == "context_files":
        extra[field] = [("k", str(paths["input"]))]
    elif field == "context_values":
        extra[field] = [("k", text)]
    req = render.Request(
        composite_resource=paths["xr"],
        composition=paths["composition"],
        functions=paths["functions"],
        **extra,
    )
    value = got(_inputs.load(req))
    assert value in (True, (True, True)), reason
