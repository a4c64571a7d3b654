"""Wrong types in Composition and Function fields are one line naming the file and field (issue 15)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from crossfn import cli
from crossfn.render import _load

_EXAMPLE = Path(__file__).parents[2] / "examples" / "xbucket"
_COMPOSITION: dict[str, Any] = yaml.safe_load((_EXAMPLE / "composition.yaml").read_text())
_FUNCTIONS = list(yaml.safe_load_all((_EXAMPLE / "functions.yaml").read_text()))


def _step(**fields: Any) -> dict[str, Any]:
    comp = copy.deepcopy(_COMPOSITION)
    comp["spec"]["pipeline"][0].update(fields)
    return comp


def _function(**fields: Any) -> list[dict[str, Any]]:
    fns = copy.deepcopy(_FUNCTIONS)
    fns[0].update(fields)
    return fns


_STEP = (
    'cannot load Composition from "{c}": cannot parse pipeline step "patch-and-transform": spec.pipeline[0].'
)
_FN = 'cannot load functions from "{f}": document 1: '


@pytest.mark.parametrize(
    ("reason", "comp", "fns", "want"),
    [
        pytest.param("credentials must be a list.", _step(credentials=1), _FUNCTIONS,
                     _STEP + "credentials must be a list", id="CredentialsNumber"),
        pytest.param("requiredResources must be a list.", _step(requirements={"requiredResources": 1}), _FUNCTIONS,
                     _STEP + "requirements.requiredResources must be a list", id="RequiredResourcesNumber"),
        pytest.param("requiredSchemas must be a list.", _step(requirements={"requiredSchemas": True}), _FUNCTIONS,
                     _STEP + "requirements.requiredSchemas must be a list", id="RequiredSchemasBool"),
        pytest.param("A Function's metadata must be an object.", _COMPOSITION, _function(metadata="x"),
                     _FN + "metadata must be an object", id="FunctionMetadataString"),
        pytest.param("A Function's name must be a string.", _COMPOSITION, _function(metadata={"name": 1}),
                     _FN + "metadata.name must be a string", id="FunctionNameNumber"),
        pytest.param("A Function's annotations must be an object.", _COMPOSITION,
                     _function(metadata={"name": "function-patch-and-transform", "annotations": 1}),
                     _FN + "metadata.annotations must be an object", id="FunctionAnnotationsNumber"),
    ],
)  # fmt: skip
def test_wrong_types_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], *, reason: str, comp: Any, fns: Any, want: str
) -> None:
    c, f = tmp_path / "composition.yaml", tmp_path / "functions.yaml"
    c.write_text(yaml.safe_dump(comp))
    f.write_text(yaml.safe_dump_all(fns))
    status = cli.main(["render", str(_EXAMPLE / "xr.yaml"), str(c), str(f)])
    out, err = capsys.readouterr()
    assert (status, out, err) == (1, "", f"crossfn: error: {want.format(c=c, f=f)}\n"), reason


def test_null_annotations_take_function_annotations(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "functions.yaml"
    f.write_text(
        yaml.safe_dump_all(_function(metadata={"name": "function-patch-and-transform", "annotations": None}))
    )
    status = cli.main(
        ["render", str(_EXAMPLE / "xr.yaml"), str(_EXAMPLE / "composition.yaml"), str(f), "-a", "a=b"]
    )
    assert status == 0, capsys.readouterr().err


def test_crossfn_test_exits_2_for_a_mistyped_composition(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "composition.yaml").write_text(yaml.safe_dump(_step(credentials=1)))
    test = yaml.safe_load((_EXAMPLE / "test.yaml").read_text())
    inputs = test["spec"]["tests"][0]["inputs"]
    inputs["xr"]["path"] = str(_EXAMPLE / "xr.yaml")
    inputs["functions"]["path"] = str(_EXAMPLE / "functions.yaml")
    (tmp_path / "t.yaml").write_text(yaml.safe_dump(test))
    status = cli.main(["test", str(tmp_path / "t.yaml")])
    out, err = capsys.readouterr()
    assert (status, out, err.count("\n")) == (2, "", 1), "bad input: exit 2, one line, no report"
    assert "spec.pipeline[0].credentials must be a list" in err


def _secret(**fields: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": "ns"}, **fields}


_CREDS = 'cannot load secrets from "{s}": document 1: '


@pytest.mark.parametrize(
    ("reason", "secret", "want"),
    [
        pytest.param("data values are base64, as Go's []byte in corev1.Secret.", _secret(data={"a": "!!!"}),
                     _CREDS + "data.a is not base64: illegal base64 data at input byte 0", id="DataNotBase64"),
        pytest.param("Padding is required, as Go's StdEncoding.", _secret(data={"a": "YQ"}),
                     _CREDS + "data.a is not base64: illegal base64 data at input byte 0", id="DataUnpadded"),
        pytest.param("A number is not a base64 string (str(5) decoded as garbage).", _secret(data={"a": 5}),
                     _CREDS + "data.a must be a base64 string, not a number", id="DataNumber"),
        pytest.param("data must be an object.", _secret(data=["YQ=="]),
                     _CREDS + "data must be an object, not an array", id="DataList"),
        pytest.param("stringData values are strings (a number was written as '5').", _secret(stringData={"a": 5}),
                     _CREDS + "stringData.a must be a string, not a number", id="StringDataNumber"),
        pytest.param("An object is not a string (its Python repr was the value).",
                     _secret(stringData={"a": {"b": 1}}),
                     _CREDS + "stringData.a must be a string, not an object", id="StringDataObject"),
        pytest.param("stringData must be an object.", _secret(stringData="x"),
                     _CREDS + "stringData must be an object, not a string", id="StringDataString"),
    ],
)  # fmt: skip
def test_bad_credentials_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], *, reason: str, secret: dict[str, Any], want: str
) -> None:
    """crossplane render decodes each credential into a corev1.Secret as it loads them, before any function runs,
    whether a step uses it or not; they were decoded only when a step asked, and wrong types were str()'d."""
    s = tmp_path / "secrets.yaml"
    s.write_text(yaml.safe_dump(secret))
    argv = [
        "render",
        str(_EXAMPLE / "xr.yaml"),
        str(_EXAMPLE / "composition.yaml"),
        str(_EXAMPLE / "functions.yaml"),
    ]
    status = cli.main([*argv, "--function-credentials", str(s)])
    out, err = capsys.readouterr()
    assert (status, out, err) == (1, "", f"crossfn: error: {want.format(s=s)}\n"), reason


@pytest.mark.parametrize(
    ("reason", "secret", "want"),
    [
        pytest.param("Line breaks in base64 are skipped, as Go's decoder does.", _secret(data={"a": "aGVs\nbG8=\r\n"}),
                     {"a": b"hello"}, id="DataLineBreaks"),
        pytest.param("null is an empty value (Go's nil []byte; str(None) decoded 'None').",
                     _secret(data={"a": None}, stringData={"b": None}), {"a": b"", "b": b""}, id="Nulls"),
        pytest.param("stringData is written over data, as the API server does.",
                     _secret(data={"a": "eA==", "b": "eQ=="}, stringData={"a": "z"}), {"a": b"z", "b": b"y"},
                     id="StringDataWins"),
        pytest.param("A Secret without data has none.", _secret(data=None), {}, id="NullData"),
    ],
)  # fmt: skip
def test_secret_data(reason: str, secret: dict[str, Any], want: dict[str, bytes]) -> None:
    assert _load.secret_data(secret, "Secret ns/s") == want, reason


_XR = "apiVersion: example.crossplane.io/v1\nkind: XBucket\nmetadata:\n  name: example-render\n"


@pytest.mark.parametrize(
    ("reason", "spec", "flags", "want"),
    [
        pytest.param("An XR's NaN fails to load, as sigs.k8s.io/yaml's JSON round trip (it was rendered as "
                     "'%!d(float64=NaN)' and the like).", "spec: {a: .nan}", [],
                     'cannot load composite resource from "{x}": cannot parse YAML in {x}: line 5 column 11: '
                     "error converting YAML to JSON: json: unsupported value: NaN", id="XRNaN"),
        pytest.param("An infinity in a list.", "spec: {a: [1, -.inf]}", [],
                     'cannot load composite resource from "{x}": cannot parse YAML in {x}: line 5 column 15: '
                     "error converting YAML to JSON: json: unsupported value: -Inf", id="XRInfinityInList"),
        pytest.param("A NaN key is the string '.nan', as sigs.k8s.io/yaml makes it; its value is checked.",
                     "spec:\n  .nan: .inf", [],
                     'cannot load composite resource from "{x}": cannot parse YAML in {x}: line 6 column 9: '
                     "error converting YAML to JSON: json: unsupported value: +Inf", id="XRNaNKey"),
        pytest.param("A context value's NaN is upstream's unmarshal error (it failed only when printed, with -c).",
                     "spec: {}", ["--context-values", "k=.nan"],
                     'cannot render composite resource: cannot unmarshal YAML/JSON for context key "k": '
                     "line 1 column 1: error converting YAML to JSON: json: unsupported value: NaN", id="ContextNaN"),
    ],
)  # fmt: skip
def test_non_finite_numbers_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], *, reason: str, spec: str, flags: list[str], want: str
) -> None:
    x = tmp_path / "xr.yaml"
    x.write_text(_XR + spec + "\n")
    comp, fns = _EXAMPLE / "composition.yaml", _EXAMPLE / "functions.yaml"
    status = cli.main(["render", str(x), str(comp), str(fns), *flags])
    out, err = capsys.readouterr()
    assert (status, out, err) == (1, "", f"crossfn: error: {want.format(x=x)}\n"), reason
