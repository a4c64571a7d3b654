"""``crossfn render --validate``: the XR, the step inputs and the composed resources against their schemas.

Test data (``testdata/validate``): an XRD for ``XBucket`` (``spec.region``
required, one of ``eu``/``us``; ``spec.acl`` defaults to ``private``), a CRD
for the composed ``Bucket`` (``spec.forProvider.acl`` one of ``private``/
``public-read``), and a CRD for patch-and-transform's input that requires
``patchSets``. The Composition copies ``spec.region`` and ``spec.acl`` into the
Bucket.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crossfn import cli

_DATA = Path(__file__).parent / "testdata" / "validate"
_XR_LINE = "[x] schema validation error example.crossplane.io/v1, Kind=XBucket, test : "
_BUCKET_LINE = "[x] schema validation error s3.example.org/v1beta1, Kind=Bucket, bucket : "
_BUILTIN = (
    "crossfn: note: running function-patch-and-transform v0.10.8 as the built-in patch-and-transform "
    "(behaves as v0.10.0-v0.10.8)\n"
)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    for f in _DATA.iterdir():
        (tmp_path / f.name).write_text(f.read_text())
    nested = tmp_path / "crds" / "nested"
    nested.mkdir(parents=True)
    for name in ("xrd.yaml", "bucket-crd.yaml", "functions.yaml"):
        (nested / name).write_text((_DATA / name).read_text())
    return tmp_path


def _render(capsys: pytest.CaptureFixture[str], d: Path, *flags: str) -> tuple[int, str, str]:
    argv = ["render", str(d / "xr.yaml"), str(d / "composition.yaml"), str(d / "functions.yaml"), "--classic"]
    code = cli.main([*argv, *(f.format(d=d) for f in flags)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("flags", "reason"),
    [
        pytest.param(["--xrd", "{d}/xrd.yaml", "--crds", "{d}/bucket-crd.yaml"], "XRD and CRD", id="XRDAndCRD"),
        pytest.param(["--crds", "{d}/crds"], "a directory, searched recursively of CRDs and XRDs; other documents ignored", id="CRDDirectory"),
        pytest.param([], "no schemas: unknown kinds are not checked", id="NoSchemas"),
    ],
)  # fmt: skip
def test_valid_render_passes(
    capsys: pytest.CaptureFixture[str], data: Path, flags: list[str], reason: str
) -> None:
    code, out, err = _render(capsys, data, "--validate", *flags)
    assert code == 0, f"{reason}: {err}"
    assert err == _BUILTIN
    code, plain, _ = _render(capsys, data, *flags)
    assert (code, out) == (0, plain), f"{reason}: --validate does not change the output"


@pytest.mark.parametrize(
    ("edit", "flags", "lines", "reason"),
    [
        pytest.param(
            {"xr.yaml": ("region: eu", "region: mars")},
            ["--xrd", "{d}/xrd.yaml", "--crds", "{d}/bucket-crd.yaml"],
            [_XR_LINE + 'spec.region: Unsupported value: "mars": supported values: "eu", "us"'],
            "the input XR against its XRD", id="InvalidXR",
        ),
        pytest.param(
            {"xr.yaml": ("region: eu", "region: eu\n  colour: red")},
            ["--crds", "{d}/xrd.yaml"],
            [_XR_LINE + 'spec.colour: Invalid value: "colour": unknown field: "colour"'],
            "an XRD given with --crds checks the XR too", id="UnknownXRFieldXRDAsCRD",
        ),
        pytest.param(
            {"xr.yaml": ("region: eu", "region: eu\n  acl: everyone")},
            ["--xrd", "{d}/xrd.yaml", "--crds", "{d}/bucket-crd.yaml"],
            [_BUCKET_LINE + 'spec.forProvider.acl: Unsupported value: "everyone": supported values: "private", "public-read"'],
            "a composed resource against its CRD", id="InvalidComposed",
        ),
        pytest.param(
            {"xr.yaml": ("region: eu", "region: mars\n  acl: everyone")},
            ["--xrd", "{d}/xrd.yaml", "--crds", "{d}/bucket-crd.yaml", "--crds", "{d}/input-crd.yaml"],
            [
                _XR_LINE + 'spec.region: Unsupported value: "mars": supported values: "eu", "us"',
                '[x] schema validation error step "patch-and-transform" input : patchSets: Required value',
                _BUCKET_LINE + 'spec.forProvider.acl: Unsupported value: "everyone": supported values: "private", "public-read"',
            ],
            "XR, then step inputs, then composed resources", id="EveryKindOfProblem",
        ),
        pytest.param(
            {"xrd.yaml": ("default: private", "default: everyone")},
            ["--xrd", "{d}/xrd.yaml", "--crds", "{d}/bucket-crd.yaml"],
            [_BUCKET_LINE + 'spec.forProvider.acl: Unsupported value: "everyone": supported values: "private", "public-read"'],
            "the XR is checked after --xrd defaulting, and the default flows into the Bucket", id="DefaultedXR",
        ),
    ],
)  # fmt: skip
def test_invalid_render_fails(
    capsys: pytest.CaptureFixture[str],
    data: Path,
    *,
    edit: dict[str, tuple[str, str]],
    flags: list[str],
    lines: list[str],
    reason: str,
) -> None:
    for name, (old, new) in edit.items():
        text = (data / name).read_text()
        assert old in text
        (data / name).write_text(text.replace(old, new))
    code, out, err = _render(capsys, data, "--validate", *flags)
    assert (code, out) == (1, ""), f"{reason}: exit 1, nothing on stdout"
    count = f"{len(lines)} problem" + ("s" if len(lines) > 1 else "")
    assert err == _BUILTIN + "\n".join([f"crossfn: error: cannot validate render: {count}", *lines]) + "\n", (
        reason
    )
    code, _, err = _render(capsys, data, *flags)
    assert code == 0, f"{reason}: without --validate the render succeeds: {err}"


@pytest.mark.parametrize(
    ("setup", "flag", "want", "reason"),
    [
        pytest.param(
            None, "{d}/missing.yaml",
            'cannot load CRDs from "{d}/missing.yaml": open {d}/missing.yaml: no such file or directory',
            "a missing path", id="NoSuchPath",
        ),
        pytest.param(
            "empty", "{d}/empty", 'cannot load CRDs from "{d}/empty": no YAML or JSON files found in "{d}/empty"',
            "a directory without YAML or JSON", id="EmptyDirectory",
        ),
        pytest.param(
            "bad", "{d}/bad",
            'cannot load CRDs from "{d}/bad": {d}/bad/sub/crd.yaml: cannot load CRD "broken": '
            "spec.group and spec.names.kind are required",
            "a CRD without its group, found in a subdirectory, names its file", id="BrokenCRD",
        ),
    ],
)  # fmt: skip
def test_crds_errors(
    capsys: pytest.CaptureFixture[str], data: Path, *, setup: str | None, flag: str, want: str, reason: str
) -> None:
    if setup == "empty":
        (data / "empty").mkdir()
    if setup == "bad":
        (data / "bad" / "sub").mkdir(parents=True)
        (data / "bad" / "sub" / "crd.yaml").write_text(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: broken\nspec: {}\n"
        )
    code, out, err = _render(capsys, data, "--crds", flag)
    assert (code, out) == (1, ""), reason
    assert err == f"crossfn: error: {want.format(d=data)}\n", reason


_SCHEMA_FUNCTION = """
from crossfn.sdk import request, response


def compose(req, rsp):
    response.require_schema(rsp, "xr", "example.crossplane.io/v1", "XBucket")
    response.require_schema(rsp, "bucket", "s3.example.org/v1beta1", "Bucket")
    for name in ("xr", "bucket"):
        schema = request.get_required_schema(req, name)
        fields = sorted(schema["properties"]["spec"]["properties"]) if schema else None
        response.normal(rsp, f"{name}: {fields}")
"""
_LEGACY_XR_SPEC = sorted([
    "acl", "claimRef", "compositionRef", "compositionRevisionRef", "compositionRevisionSelector",
    "compositionSelector", "compositionUpdatePolicy", "region", "resourceRefs", "writeConnectionSecretToRef",
])  # fmt: skip
"""The XR's spec fields: the test XRD's own and those Crossplane adds to a v1 (legacy) XR."""
_SCHEMA_FUNCTIONS = """apiVersion: pkg.crossplane.io/v1
kind: Function
metadata:
  name: function-patch-and-transform
  annotations:
    render.crossplane.io/runtime: InProcess
    render.crossfn.io/runtime-inprocess-object: crossfn_render_schemafn:compose
spec:
  package: xpkg.crossplane.io/example/function-schemas:v0.1.0
"""


@pytest.mark.parametrize(
    ("flags", "want", "reason"),
    [
        pytest.param(
            ["--crds", "{d}/crds"], [f"xr: {_LEGACY_XR_SPEC}", "bucket: ['forProvider']"],
            "an XRD and a CRD from --crds answer required schemas", id="FromCRDs",
        ),
        pytest.param(
            ["--xrd", "{d}/xrd.yaml"], ["xr: None", "bucket: None"],
            "--xrd alone does not, as upstream: a kind nobody gave is an empty schema", id="NotFromXRD",
        ),
    ],
)  # fmt: skip
def test_crds_answer_required_schemas(
    capsys: pytest.CaptureFixture[str], data: Path, flags: list[str], want: list[str], reason: str
) -> None:
    (data / "functions.yaml").write_text(_SCHEMA_FUNCTIONS)
    (data / "crossfn_render_schemafn.py").write_text(_SCHEMA_FUNCTION)
    code, out, err = _render(capsys, data, "-r", "--output", "json", *flags)
    assert code == 0, f"{reason}: {err}"
    results = [d["message"] for d in json.loads(out) if d["kind"] == "Result"]
    assert results == want, reason
