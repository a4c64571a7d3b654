"""function-kcl's package tests (``pkg/resource`` and ``render_test.go`` at v0.12.2) re-expressed, and the models generator."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format
from kcl_support import pool_limits, request, run

from crossfn.functions import kcl
from crossfn.functions._releases import kcl as releases
from crossfn.functions.kcl import _input, _output, _params
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource

limits = pytest.fixture(scope="module")(pool_limits)

CM = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "my-config", "namespace": "default"},
    "data": {"some-key": "some-value"},
}


def test_params_shape_go_types() -> None:
    """``ObjToRawExtension``: extra resources marshal as ``{name: [{"Resource": ...}]}``, desired as Resource and Ready."""
    req = json_format.ParseDict(
        {
            "extraResources": {"test": {"items": [{"resource": CM}]}},
            "desired": {"resources": {"cm": {"resource": CM, "ready": "READY_TRUE"}}},
            "observed": {"resources": {"cm": {"resource": CM, "connectionDetails": {"k": "dg=="}}}},
        },
        fnv1.RunFunctionRequest(),
    )
    got = _params.request_params(req, releases.BEHAVIOURS["kcl"])
    assert got["extraResources"] == {"test": [{"Resource": CM}]}
    assert got["requiredResources"] == {}
    assert got["dcds"] == {"cm": {"Resource": CM, "Ready": "True"}}
    assert got["ocds"] == {"cm": {"Resource": CM, "ConnectionDetails": {"k": "dg=="}}}
    assert (got["dxr"], got["ctx"]) == ({"apiVersion": "", "kind": ""}, {})
    assert "requiredResources" not in _params.request_params(req, releases.BEHAVIOURS["kcl@v0.12.1"])


# (data, path into the object, object before, object after, composed, reason)
SET_DATA: list[Any] = [
    pytest.param("c", ".some-array[2]", {"some-array": ["a", "b"]}, {"some-array": ["a", "b", "c"]}, True,
                 "a new element on an existing array is appended", id="AppendToArray"),
    pytest.param({"metadata": {"annotations": {"a.b/c": "x"}, "labels": {"l": "y"}}}, "", {},
                 {"metadata": {"annotations": {"a.b/c": "x"}, "labels": {"l": "y"}}}, True,
                 "annotation and label keys go in brackets, so dots and slashes stay in the key", id="AnnotationKeys"),
    pytest.param({"apiVersion": "v2", "kind": "K", "metadata": {"name": "n"}, "spec": {"a": 1}}, "",
                 {"apiVersion": "v1", "kind": "J", "metadata": {"name": "m"}}, {"apiVersion": "v1", "kind": "J",
                  "metadata": {"name": "m"}, "spec": {"a": 1}}, True,
                 "a composed resource keeps its apiVersion, kind and name", id="ComposedIdentityKept"),
    pytest.param({"apiVersion": "v2", "metadata": {"name": "n"}}, "", {"apiVersion": "v1", "metadata": {"name": "m"}},
                 {"apiVersion": "v2", "metadata": {"name": "n"}}, False, "the XR target overwrites even those",
                 id="XRIdentityPatched"),
    pytest.param({"spec": {"empty": {}, "list": []}}, "", {"spec": {"a": 1}}, {"spec": {"a": 1}}, True,
                 "empty maps and lists have no leaves, so nothing is written", id="EmptyValuesWriteNothing"),
]  # fmt: skip


@pytest.mark.parametrize(("data", "path", "before", "after", "composed", "reason"), SET_DATA)
def test_set_data(  # noqa: PLR0917 -- pytest passes parameters by position
    data: Any, path: str, before: dict[str, Any], after: dict[str, Any], composed: bool, reason: str
) -> None:
    _output._set_data(data, path, before, xr=not composed, behaviour=releases.BEHAVIOURS["kcl"], wrap="w")
    assert before == after, reason


@pytest.mark.parametrize(
    ("context", "data", "want"),
    [
        pytest.param(None, '{"hello" = "world"}', {"hello": "world"}, id="NoContextAtKey"),
        pytest.param(
            {"apiextensions.crossplane.io/environment": {"complex": {"a": "b", "c": {"d": "e", "f": "1", "overWrite": "fromContext"}}}},
            '{"newKey" = "newValue", "apiextensions.crossplane.io/environment" = {complex = {c = {overWrite = "fromFunction"}}}}',
            {"apiextensions.crossplane.io/environment": {"complex": {"a": "b", "c": {"d": "e", "f": "1", "overWrite": "fromFunction"}}},
             "newKey": "newValue"},
            id="SuccessfulMerge",
        ),
    ],
)  # fmt: skip
def test_merge_context(
    limits: kcl.Limits, context: dict[str, Any] | None, data: str, want: dict[str, Any]
) -> None:
    """``MergeContext``: the Context item's data merges into the request's context, its keys winning."""
    source = f'items = [{{apiVersion: "meta.krm.kcl.dev/v1alpha1", kind: "Context", data = {data}}}]'
    fields = {"context": context} if context is not None else {}
    rsp = run(kcl.Kcl(limits=limits), request(source, target="Default", **fields))
    assert resource.struct_to_dict(rsp.context) == want


@pytest.mark.parametrize(
    ("source", "want"),
    [
        pytest.param("oci://ghcr.io/kcl-lang/x", "oci", id="OCI"),
        pytest.param("./path/to/file.k", "local", id="RelativePath"),
        pytest.param("/src", "local", id="AbsolutePath"),
        pytest.param("https://example.com/x.k", "url", id="URL"),
        pytest.param("git::https://example.com/x.git", "git", id="GitGetter"),
        pytest.param("github.com/kcl-lang/modules/x", "git", id="GitHub"),
        pytest.param('items = [{a = "./b"}]', "inline", id="Inline"),
    ],
)
def test_source_kinds(source: str, want: str) -> None:
    """krm-kcl's classification: what is not a remote or local location is inline code."""
    assert _input.source_kind(source) == want


def test_local_module_runs_with_its_path_dependencies(limits: kcl.Limits, tmp_path: Path) -> None:
    """A module directory source runs its files with ``kcl.mod`` path dependencies resolved."""
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "kcl.mod").write_text('[package]\nname = "lib"\nversion = "0.0.1"\n')
    (tmp_path / "lib" / "names.k").write_text('prefix = "lib"\n')
    (tmp_path / "fn").mkdir()
    (tmp_path / "fn" / "kcl.mod").write_text(
        '[package]\nname = "fn"\n\n[dependencies]\nlib = { path = "../lib" }\n'
    )
    (tmp_path / "fn" / "main.k").write_text(
        'import lib\nitems = [{apiVersion: "v1", kind: "A", metadata.name = lib.prefix + "-a"}]\n'
    )
    rsp = run(
        kcl.Kcl(limits=limits, base_dir=tmp_path), request("./fn", xr={"apiVersion": "v1", "kind": "X"})
    )
    assert (list(rsp.results), list(rsp.desired.resources)) == ([], ["lib-a"])


def test_registry_dependency_is_one_line_saying_how_to_vendor(
    limits: kcl.Limits, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KCL_PKG_PATH", str(tmp_path))
    rsp = run(kcl.Kcl(limits=limits), request(spec={"source": "a = 1", "dependencies": 'k8s = "1.31.2"'}))
    assert [r.message for r in rsp.results] == [
        'failed to run kcl function pipelines: cannot resolve KCL dependency "k8s" from the KCL package registry: '
        'built-in functions do not reach the network; vendor it locally with "kcl mod add k8s:1.31.2" (it lands '
        f"in the KCL package cache, where crossfn looked: {tmp_path / 'k8s_1.31.2'}) or declare it as a path "
        'dependency: k8s = { path = "<directory>" }'
    ]
    vendored = tmp_path / "k8s_1.31.2"
    vendored.mkdir()
    (vendored / "api.k").write_text('version = "1.31.2"\n')
    ok = run(kcl.Kcl(limits=limits), request(spec={"source": 'import k8s\nitems = [{apiVersion: "v1", kind: "A", metadata.name = k8s.version}]',
                                                   "dependencies": 'k8s = "1.31.2"'}))  # fmt: skip
    assert (list(ok.results), list(ok.desired.resources)) == ([], ["1.31.2"])


CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "spec": {
        "group": "ec2.aws.example.io",
        "names": {"kind": "SecurityGroup"},
        "versions": [{"name": "v1beta1", "schema": {"openAPIV3Schema": {"type": "object", "properties": {
            "spec": {"type": "object", "required": ["forProvider"], "properties": {
                "deletionPolicy": {"type": "string", "enum": ["Orphan", "Delete"], "default": "Delete"},
                "forProvider": {"type": "object", "properties": {
                    "type": {"type": "string"},
                    "port": {"x-kubernetes-int-or-string": True},
                    "name": {"type": "string", "maxLength": 5, "pattern": "^[a-z]+$"},
                    "tags": {"type": "object", "additionalProperties": {"type": "string"}},
                    "rules": {"type": "array", "items": {"type": "object", "properties": {"cidr": {"type": "string"}}}},
                    "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                }},
            }},
        }}}}],
    },
}  # fmt: skip


def test_generated_models(limits: kcl.Limits, tmp_path: Path) -> None:
    """Models as the CRD importer makes them: types, defaults, keywords escaped, checks, the sorted layout."""
    written = kcl.generate_models([CRD], tmp_path / "models")
    assert written == ["io/example/aws/ec2/v1beta1/securitygroup.k"]
    text = (tmp_path / "models" / written[0]).read_text()
    for line in (
        '    apiVersion: "ec2.aws.example.io/v1beta1" = "ec2.aws.example.io/v1beta1"',
        "    spec?: Ec2AwsExampleIoV1beta1SecurityGroupSpec",
        '    deletionPolicy?: "Orphan" | "Delete" = "Delete"',
        "    forProvider: Ec2AwsExampleIoV1beta1SecurityGroupSpecForProvider",
        "    $type?: str",
        "    port?: int | str",
        "    tags?: {str:str}",
        "    rules?: [Ec2AwsExampleIoV1beta1SecurityGroupSpecForProviderRulesItems0]",
        "    extra?: {str:any}",
        "        len(name) <= 5 if name not in [None, Undefined]",
        '        _regex_match(str(name), "^[a-z]+$") if name',
    ):
        assert line in text.splitlines(), line
    fn = kcl.Kcl(limits=limits, packages={"models": tmp_path / "models"})
    prog = (
        "import models.io.example.aws.ec2.v1beta1 as ec2\n"
        'items = [ec2.SecurityGroup{metadata.name = "sg", spec.forProvider = {type = "ingress", port = 80, name = "NAME"}}]\n'
    )
    dependencies = f'models = {{ path = "{tmp_path / "models"}" }}'
    good = run(fn, request(spec={"source": prog.replace("NAME", "web"), "dependencies": dependencies}))
    assert [r.message for r in good.results] == []
    assert resource.struct_to_dict(good.desired.resources["sg"].resource)["spec"] == {
        "deletionPolicy": "Delete",
        "forProvider": {"type": "ingress", "port": 80, "name": "web"},
    }
    bad = run(fn, request(spec={"source": prog.replace("NAME", "toolong"), "dependencies": dependencies}))
    [message] = [r.message for r in bad.results]
    assert message.startswith("failed to run kcl function pipelines: ") and message.endswith(
        "securitygroup.k:30:1: Check failed on the condition"
    ), message
