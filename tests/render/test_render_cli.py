"""``crossfn render`` on the command line:
upstream core-3.3's validation order and texts, exit codes, stdout discipline.

Every error is one ``crossfn: error:`` line on stderr, exit status 1, and
nothing on stdout.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crossfn import cli

_XR = """apiVersion: nop.example.org/v1alpha1
kind: XNopResource
metadata:
  name: test-render
spec:
  crossplane:
    compositionSelector:
      matchLabels:
        env: prod
"""
_COMP = """apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: xnop
  labels:
    env: prod
spec:
  compositeTypeRef:
    apiVersion: nop.example.org/v1alpha1
    kind: XNopResource
  mode: Pipeline
  pipeline:
  - step: test
    functionRef:
      name: function-test
"""
_FNS = """apiVersion: pkg.crossplane.io/v1
kind: Function
metadata:
  name: function-test
  annotations:
    render.crossplane.io/runtime: InProcess
    render.crossfn.io/runtime-inprocess-object: crossfn_render_testfns:success
spec:
  package: xpkg.crossplane.io/example/function-test:v0.1.0
"""


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "xr.yaml").write_text(_XR)
    (tmp_path / "composition.yaml").write_text(_COMP)
    (tmp_path / "functions.yaml").write_text(_FNS)
    (tmp_path / "crossfn_render_testfns.py").write_text(
        (Path(__file__).parent / "testdata" / "crossfn_render_testfns.py").read_text()
    )
    return tmp_path


def _run(capsys: pytest.CaptureFixture[str], d: Path, *extra: str) -> tuple[int, str, str]:
    code = cli.main(
        ["render", str(d / "xr.yaml"), str(d / "composition.yaml"), str(d / "functions.yaml"), *extra]
    )
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("edit", "want", "reason"),
    [
        pytest.param(
            {"xr.yaml": None},
            'crossfn: error: cannot load composite resource from "{d}/xr.yaml": ',
            "step 1: a missing XR file",
            id="NoSuchXR",
        ),
        pytest.param(
            {"xr.yaml": "a: [b"},
            'crossfn: error: cannot load composite resource from "{d}/xr.yaml": cannot parse YAML',
            "step 1: broken YAML names the file",
            id="BrokenXR",
        ),
        pytest.param(
            {"composition.yaml": None},
            'crossfn: error: cannot load Composition from "{d}/composition.yaml": ',
            "step 2: a missing Composition",
            id="NoSuchComposition",
        ),
        pytest.param(
            {"composition.yaml": _XR},
            'crossfn: error: cannot load Composition from "{d}/composition.yaml": not a composition: XNopResource/test-render',
            "step 2: NotAComposition",
            id="NotAComposition",
        ),
        pytest.param(
            {"xr.yaml": _XR.replace("kind: XNopResource", "kind: OtherKind")},
            "crossfn: error: composition's compositeTypeRef.kind (XNopResource) does not match XR's kind (OtherKind)",
            "step 3: kind mismatch",
            id="WrongKind",
        ),
        pytest.param(
            {"xr.yaml": _XR.replace("nop.example.org/v1alpha1", "other.example.org/v1alpha1")},
            "crossfn: error: composition's compositeTypeRef.apiVersion (nop.example.org/v1alpha1) "
            "does not match XR's apiVersion (other.example.org/v1alpha1)",
            "step 4: apiVersion mismatch",
            id="WrongAPIVersion",
        ),
        pytest.param(
            {"composition.yaml": _COMP.replace("env: prod", "tier: prod")},
            'crossfn: error: composition "xnop" is missing required label "env"',
            "step 5: missing selector label",
            id="MissingLabel",
        ),
        pytest.param(
            {"composition.yaml": _COMP.replace("env: prod", "env: dev")},
            'crossfn: error: composition "xnop" has incorrect value for label "env": want "prod", got "dev"',
            "step 5: label mismatch",
            id="LabelMismatch",
        ),
        pytest.param(
            {"composition.yaml": _COMP.replace("mode: Pipeline", "mode: Composed")},
            "crossfn: error: render only supports Composition Function pipelines: "
            'Composition "xnop" must use spec.mode: Pipeline',
            "step 6: a mode other than Pipeline (or Resources, which crossfn converts)",
            id="NotPipeline",
        ),
        pytest.param(
            {"composition.yaml": _COMP.replace("  mode: Pipeline\n", "")},
            "crossfn: error: render only supports Composition Function pipelines: "
            'Composition "xnop" must use spec.mode: Pipeline',
            "step 6: no defaulting, so a missing mode is rejected",
            id="NoMode",
        ),
        pytest.param(
            {"functions.yaml": _COMP},
            'crossfn: error: cannot load functions from "{d}/functions.yaml": not a function: Composition/xnop',
            "step 7: NotAFunction",
            id="NotAFunction",
        ),
    ],
)
def test_validation_errors(
    capsys: pytest.CaptureFixture[str], files: Path, edit: dict[str, str | None], want: str, reason: str
) -> None:
    for name, text in edit.items():
        if text is None:
            (files / name).unlink()
        else:
            (files / name).write_text(text)
    code, out, err = _run(capsys, files)
    assert code == 1, reason
    assert out == "", "nothing on stdout after an error"
    assert err.startswith(want.format(d=files)), f"{reason}: {err}"
    assert err.count("\n") == 1, "one line"


def test_bad_function_annotation(capsys: pytest.CaptureFixture[str], files: Path) -> None:
    code, out, err = _run(capsys, files, "-a", "novalue")
    assert (code, out) == (1, "")
    assert err == (
        "crossfn: error: cannot apply function annotation overrides: "
        'invalid function annotation format "novalue", expected key=value\n'
    )


def test_function_annotations_override_every_function(
    capsys: pytest.CaptureFixture[str], files: Path
) -> None:
    code, out, err = _run(capsys, files, "-a", "render.crossplane.io/runtime=wat")
    assert (code, out) == (1, "")
    assert 'annotation value "wat" (unknown runtime)' in err


def test_empty_functions_directory(capsys: pytest.CaptureFixture[str], files: Path) -> None:
    (files / "fns").mkdir()
    code = cli.main(["render", str(files / "xr.yaml"), str(files / "composition.yaml"), str(files / "fns")])
    out, err = capsys.readouterr()
    assert (code, out) == (1, "")
    assert (
        err
        == f'crossfn: error: cannot load functions from "{files}/fns": no YAML files found in "{files}/fns" (.yaml or .yml)\n'
    )


def test_xrd_unknown_version(capsys: pytest.CaptureFixture[str], files: Path) -> None:
    (files / "xrd.yaml").write_text(
        "apiVersion: apiextensions.crossplane.io/v1\nkind: CompositeResourceDefinition\n"
        "metadata:\n  name: xnopresources.nop.example.org\nspec:\n  group: nop.example.org\n"
        "  names:\n    kind: XNopResource\n    plural: xnopresources\n  versions:\n  - name: v1\n"
        "    served: true\n    referenceable: true\n    schema:\n      openAPIV3Schema:\n        type: object\n"
    )
    code, out, err = _run(capsys, files, "--xrd", str(files / "xrd.yaml"))
    assert (code, out) == (1, "")
    assert (
        err == 'crossfn: error: cannot default values for XR "test-render": '
        "the specified API version 'nop.example.org/v1alpha1' does not exist in the XRD\n"
    )


def test_success_yaml_and_json(capsys: pytest.CaptureFixture[str], files: Path) -> None:
    code, out, err = _run(capsys, files, "-v")
    assert code == 0
    assert out.startswith("---\napiVersion: nop.example.org/v1alpha1\nkind: XNopResource\n")
    assert 'Function "function-test": runtime InProcess (crossfn_render_testfns:success)' in err
    code, out, _ = _run(capsys, files, "--output", "json")
    assert code == 0
    docs = json.loads(out)
    assert [d["kind"] for d in docs] == ["XNopResource", "BComposed", "AComposed"]


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        pytest.param("1m", True, id="Minute"),
        pytest.param("1m30s", True, id="Compound"),
        pytest.param("500ms", True, id="Millis"),
        pytest.param("2.s", True, id="TrailingPoint"),
        pytest.param("soon", False, id="Invalid"),
        pytest.param("1d", False, id="UnknownUnit"),
        pytest.param("60", False, id="MissingUnit"),
        pytest.param("-1m", False, id="Negative"),
    ],
)
def test_timeout_flag(capsys: pytest.CaptureFixture[str], files: Path, value: str, ok: bool) -> None:
    code, out, err = _run(capsys, files, f"--timeout={value}")
    assert (code == 0) is ok
    if not ok:
        assert out == ""
        assert err == f'crossfn: error: --timeout: time: invalid duration "{value}"\n'


@pytest.mark.parametrize("flag", ["--context-values", "--context-files"])
def test_map_flag_without_equals_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], files: Path, flag: str
) -> None:
    """Argparse's usage, then one error line that names the flag once."""
    with pytest.raises(SystemExit) as exc:
        _run(capsys, files, flag, "nokey")
    out, err = capsys.readouterr()
    assert (exc.value.code, out) == (2, "")
    assert err.startswith("usage: crossfn render ")
    assert err.splitlines()[-1] == f"crossfn render: error: argument {flag}: expected KEY=VALUE, got 'nokey'"


@pytest.mark.parametrize(
    ("flags", "want", "reason"),
    [
        pytest.param(
            ["--function-credentials", "{d}/xr.yaml"],
            'crossfn: error: cannot load secrets from "{d}/xr.yaml": document 1 is a XNopResource, not a v1 Secret',
            "credentials must be Secrets", id="CredentialsNotSecrets",
        ),
        pytest.param(
            ["-o", "{d}/missing.yaml"],
            'crossfn: error: cannot load observed composed resources from "{d}/missing.yaml": open {d}/missing.yaml: '
            "no such file or directory", "a missing observed file", id="NoSuchObserved",
        ),
        pytest.param(
            ["--extra-resources", "{d}/xr.yaml", "--extra-resources", "{d}/missing.yaml"],
            'crossfn: error: cannot load extra resources from "{d}/missing.yaml": ',
            "every --extra-resources occurrence is loaded", id="NoSuchExtra",
        ),
        pytest.param(
            ["-e", "{d}/empty"],
            'crossfn: error: cannot load required resources from "{d}/empty": no YAML files found in "{d}/empty" '
            "(.yaml or .yml)", "an empty directory", id="EmptyRequiredDirectory",
        ),
        pytest.param(
            ["--context-files", "k={d}/missing.json"],
            'crossfn: error: cannot read context value for key "k": open {d}/missing.json: ',
            "a missing context file", id="NoSuchContextFile",
        ),
        pytest.param(
            ["-s", "{d}/empty"],
            'crossfn: error: cannot load required schemas from "{d}/empty": no JSON files found in "{d}/empty"',
            "a schema directory without JSON documents", id="NoSchemas",
        ),
    ],
)  # fmt: skip
def test_step9_load_errors(
    capsys: pytest.CaptureFixture[str], files: Path, flags: list[str], want: str, reason: str
) -> None:
    (files / "empty").mkdir()
    code, out, err = _run(capsys, files, *(f.format(d=files) for f in flags))
    assert (code, out) == (1, ""), reason
    assert err.startswith(want.format(d=files)), f"{reason}: {err}"
    assert err.count("\n") == 1


def test_function_prints_go_to_stderr(capsys: pytest.CaptureFixture[str], files: Path) -> None:
    """stdout holds only the render: an in-process function's print() (debugging) goes to stderr."""
    (files / "crossfn_render_printing.py").write_text(
        "import sys\n\ndef compose(req, rsp):\n    print('debugging')\n    sys.stdout.write('more\\n')\n"
    )
    fns = _FNS.replace("crossfn_render_testfns:success", "crossfn_render_printing:compose")
    (files / "functions.yaml").write_text(fns)
    code, out, err = _run(capsys, files)
    assert code == 0, err
    assert out.startswith("---\napiVersion: nop.example.org/v1alpha1\n"), out
    assert "debugging\nmore\n" in err


def _deep_schema_doc(levels: int) -> str:
    """An OpenAPI v3 document whose schema of ``y/v1 Thing`` nests ``levels`` JSON objects, as text."""
    inner = '{"properties":{"a":' * (levels // 2) + '{"type":"string"}' + "}}" * (levels // 2)
    return (
        '{"openapi":"3.0.0","components":{"schemas":{"y.v1.Thing":{"type":"object",'
        '"x-kubernetes-group-version-kind":[{"group":"y","version":"v1","kind":"Thing"}],'
        f'"properties":{{"spec":{inner}}}}}}}}}}}'
    )


@pytest.mark.parametrize(
    ("levels", "want_code", "want_err"),
    [
        pytest.param(1_800, 0, "", id="deep-within-the-limit"),
        pytest.param(9_000, 0, "", id="near-the-limit"),
        pytest.param(
            30_000, 1,
            'crossfn: error: cannot load required schemas from "{d}/schemas": cannot parse OpenAPI document '
            '"{d}/schemas/deep.json": exceeded max depth\n',
            id="past-the-limit",
        ),
    ],
)  # fmt: skip
def test_required_schemas_as_deep_as_go_reads_them(
    capsys: pytest.CaptureFixture[str], files: Path, levels: int, want_code: int, want_err: str
) -> None:
    """A required schema nested thousands deep is sent to the function (10,000 levels, Go's JSON limit);
    past that, one line: before, a 59-line traceback (upb's limit of 100 message levels)."""
    comp = _COMP + (
        "    requirements:\n      requiredSchemas:\n      - requirementName: thing\n        apiVersion: y/v1\n"
        "        kind: Thing\n"
    )
    (files / "composition.yaml").write_text(comp)
    (files / "schemas").mkdir()
    (files / "schemas" / "deep.json").write_text(_deep_schema_doc(levels))
    code, out, err = _run(capsys, files, "-s", str(files / "schemas"))
    assert (code, err) == (want_code, want_err.format(d=files))
    assert ("Traceback" in out + err) is False
    assert (out != "") is (want_code == 0)
