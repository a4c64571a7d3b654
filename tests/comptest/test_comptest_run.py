"""Running test cases (``crossfn.comptest.run``): inputs, patches, XRD, validation, and errors naming the test field."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml

from crossfn import comptest, errors, render
from crossfn.comptest import _run as run_module

_ROOT = Path(__file__).resolve().parents[2]
_XBUCKET = _ROOT / "examples" / "xbucket"
_FNS = Path(__file__).parent / "testdata" / "fns"
_XR = {"apiVersion": "example.crossplane.io/v1", "kind": "XBucket", "metadata": {"name": "b"},
       "spec": {"bucketRegion": "us-east-2"}}  # fmt: skip


def _file(tmp_path: Path, test: dict[str, object], **inputs: object) -> Path:
    """A CompositionTest file with one test: the xbucket example's inputs, overridden by ``inputs``."""
    base: dict[str, object] = {
        "xr": {"path": str(_XBUCKET / "xr.yaml")},
        "composition": {"path": str(_XBUCKET / "composition.yaml")},
        "functions": {"path": str(_XBUCKET / "functions.yaml")},
    }
    doc = {
        "apiVersion": comptest.API_VERSION,
        "kind": comptest.KIND,
        "metadata": {"name": "t"},
        "spec": {"tests": [{"name": "case", **test, "inputs": {**base, **inputs}}]},
    }
    file = tmp_path / "t.yaml"
    file.write_text(json.dumps(doc))
    return file


def _bucket(**for_provider: object) -> dict[str, object]:
    return {
        "apiVersion": "s3.aws.upbound.io/v1beta1",
        "kind": "Bucket",
        "spec": {"forProvider": for_provider},
    }


def _expect(*resources: dict[str, object]) -> dict[str, object]:
    return {"assertions": [{"type": "chainsaw", "chainsaw": {"resources": list(resources)}}]}


def _run(file: Path) -> comptest.Outcome:
    [outcome] = comptest.run(comptest.load([file]))
    return outcome


_COMPOSITION = next(yaml.safe_load_all((_XBUCKET / "composition.yaml").read_text()))
_XR_OUT = {"apiVersion": "example.crossplane.io/v1", "kind": "XBucket"}


@pytest.mark.parametrize(
    ("test", "inputs", "reason"),
    [
        pytest.param(_expect(_bucket(region="us-east-2")), {}, "the example renders its bucket", id="PathInputs"),
        pytest.param(_expect(_bucket(region="eu-central-1")),
                     {"xr": {"raw": {**_XR, "spec": {"bucketRegion": "eu-central-1"}}}},
                     "an inline XR is rendered", id="RawXR"),
        pytest.param(_expect(_bucket(region="eu-central-1")),
                     {"composition": {"raw": _COMPOSITION},
                      "xr": {"raw": {**_XR, "spec": {"bucketRegion": "eu-central-1"}}}},
                     "an inline Composition is rendered", id="RawComposition"),
        pytest.param({"patches": {"addFields": {"spec.bucketRegion": "eu-central-1"}},
                      **_expect(_bucket(region="eu-central-1"), {**_XR_OUT, "spec": {"bucketRegion": "eu-central-1"}})},
                     {}, "addFields sets a field of the XR before the render", id="AddFields"),
        pytest.param({"patches": {"xrd": {"path": str(_FNS / "xrd.yaml")}},
                      **_expect({**_XR_OUT, "spec": {"acl": "private", "bucketRegion": "us-east-2"}})},
                     {}, "patches.xrd applies the XRD's defaults to the XR", id="XRDDefaults"),
        pytest.param(_expect({"apiVersion": "render.crossplane.io/v1beta1", "kind": "Context",
                              "fields": {"example.org/team": {"name": "platform"}}}),
                     {"context": {"example.org/team": {"name": "platform"}}},
                     "context values reach the pipeline and the Context document", id="Context"),
        pytest.param(_expect({"kind": "Bucket", "metadata": {"annotations": {
                         "crossplane.io/composition-resource-name": "storage-bucket"}, "name": "b-1"}}),
                     {"observedResources": {"raw": [{**_bucket(region="us-east-2"), "metadata": {
                         "name": "b-1", "annotations": {"crossplane.io/composition-resource-name": "storage-bucket"}},
                         "status": {"atProvider": {}}}]}},
                     "an observed resource gives its name to the desired one", id="ObservedRaw"),
        pytest.param({}, {}, "a test without assertions passes when the render succeeds", id="NoAssertions"),
    ],
)  # fmt: skip
def test_run_passes(tmp_path: Path, test: dict[str, object], inputs: dict[str, object], reason: str) -> None:
    outcome = _run(_file(tmp_path, test, **inputs))
    assert outcome.passed, f"{reason}: {outcome.error} {outcome.failures}"


@pytest.mark.parametrize(
    ("test", "inputs", "want", "reason"),
    [
        pytest.param({}, {"xr": {"path": "nope.yaml"}}, "spec.tests[0].inputs.xr.path: no such file or directory: {dir}/nope.yaml",
                     "a missing XR file names the field", id="MissingXRFile"),
        pytest.param({}, {"xr": {"path": "."}}, "spec.tests[0].inputs.xr.path: is a directory: {dir}",
                     "the XR is one file", id="XRIsDirectory"),
        pytest.param({}, {"composition": {"path": "nope.yaml"}},
                     "spec.tests[0].inputs.composition.path: no such file or directory: {dir}/nope.yaml",
                     "a missing Composition file names the field", id="MissingCompositionFile"),
        pytest.param({}, {"composition": {"raw": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}}},
                     'spec.tests[0].inputs: cannot load Composition from "spec.tests[0].inputs.composition.raw": '
                     "not a composition: ConfigMap/x",
                     "render's own error, naming the test field instead of a temporary file", id="RawNotComposition"),
        pytest.param({}, {"xr": {"raw": {**_XR, "kind": "XOther"}}},
                     "spec.tests[0].inputs: composition's compositeTypeRef.kind (XBucket) does not match XR's kind "
                     "(XOther)", "render's checks apply in its order", id="RawWrongKind"),
        pytest.param({}, {"functions": {"raw": [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}]}},
                     'spec.tests[0].inputs: cannot load functions from "spec.tests[0].inputs.functions.raw": '
                     "not a function: Pod/p", "inline Functions are checked by render", id="RawNotFunction"),
        pytest.param({"patches": {"addFields": {"spec[": "x"}}}, {},
                     "spec.tests[0].patches.addFields[spec[]: cannot set field:", "a bad field path names the patch",
                     id="BadAddField"),
        pytest.param({}, {"functionCredentialsPath": "creds.yaml"},
                     "spec.tests[0].inputs.functionCredentialsPath: no such file or directory: {dir}/creds.yaml",
                     "a missing credentials file names the field", id="MissingCredentials"),
    ],
)  # fmt: skip
def test_run_bad_input(
    tmp_path: Path, test: dict[str, object], inputs: dict[str, object], want: str, reason: str
) -> None:
    file = _file(tmp_path, test, **inputs)
    cases = comptest.load([file])
    with pytest.raises(errors.InputError) as exc:
        comptest.run(cases)
    assert str(exc.value).startswith(f"{file}: {want.format(dir=tmp_path)}"), f"{reason}: {exc.value}"
    assert "crossfn-test-" not in str(exc.value), f"{reason}: no temporary path leaks: {exc.value}"


def test_run_bad_input_renders_nothing(tmp_path: Path) -> None:
    """Every case is prepared before any renders: a bad second case stops the run before the first renders."""
    good = _file(tmp_path, {})
    (tmp_path / "bad").mkdir()
    bad = _file(tmp_path / "bad", {}, composition={"path": "nope.yaml"})
    clock_calls: list[float] = []

    def clock() -> float:
        clock_calls.append(0.0)
        return 0.0

    with pytest.raises(errors.InputError, match=r"nope\.yaml"):
        comptest.run(comptest.load([good, bad]), clock=clock)
    assert clock_calls == [], "nothing was rendered"


def test_run_validate(tmp_path: Path) -> None:
    """validate: true checks the XR against patches.xrd; a problem fails the test with render's lines."""
    file = _file(
        tmp_path,
        {"patches": {"xrd": {"path": str(_FNS / "xrd.yaml")}, "addFields": {"spec.bucketRegion": "mars"}}},
        validate=True,
    )
    outcome = _run(file)
    assert outcome.error is not None and not outcome.passed
    assert outcome.error.splitlines() == [
        "cannot validate render: 1 problem",
        "[x] schema validation error example.crossplane.io/v1, Kind=XBucket, example-render : spec.bucketRegion: "
        'Unsupported value: "mars": supported values: "us-east-2", "eu-central-1"',
    ]


@pytest.mark.parametrize(
    ("functions", "reason"),
    [
        pytest.param("functions.yaml", "an in-process function that never answers is cancelled", id="InProcess"),
        pytest.param("functions-runaway.yaml", "a sync in-process function looping in Python is interrupted "
                     "(it ran on render's loop and ignored timeoutSeconds)", id="InProcessRunaway"),
        pytest.param("functions-process.yaml", "a local process that never serves is stopped", id="Process"),
    ],
)  # fmt: skip
def test_run_timeout(tmp_path: Path, functions: str, reason: str) -> None:
    """timeoutSeconds bounds the whole render: a function that never answers fails its test, and the run goes on."""
    file = _file(
        tmp_path,
        {},
        composition={"path": str(_FNS / "composition-sleepy.yaml")},
        functions={"path": str(_FNS / functions)},
        timeoutSeconds=1,
    )
    outcome = _run(file)
    assert outcome.error == "cannot render composite resource: context deadline exceeded", reason


def test_run_remove_fields(tmp_path: Path) -> None:
    """removeFields deletes fields of the XR before the render (a missing field is fine), so expecting one fails."""
    file = _file(
        tmp_path,
        {
            "patches": {"removeFields": ["spec.bucketRegion", "spec.absent[3]", "metadata.labels.x"]},
            **_expect({**_XR_OUT, "spec": {"bucketRegion": "us-east-2"}}),
        },
    )
    outcome = _run(file)
    assert outcome.error is None
    assert outcome.failures == (
        comptest.Failure(
            field="assertions[0].chainsaw.resources[0]",
            summary='no rendered object matches XBucket; closest is XBucket "example-render":',
            details=("spec.bucketRegion: missing",),
        ),
    )


def test_public_exports() -> None:
    """``crossfn.comptest`` exports exactly its documented names, and each exists."""
    public = {n for n in dir(comptest) if n.isidentifier() and not n.startswith("_") and n != "annotations"}
    assert set(comptest.__all__) == public, "no public name outside __all__"
    for name in comptest.__all__:
        assert getattr(comptest, name) is not None


def test_run_no_candidate(tmp_path: Path) -> None:
    """An expectation of a kind nothing rendered lists what was rendered instead."""
    outcome = _run(_file(tmp_path, _expect({"kind": "Secret"}, {"apiVersion": "v1", "kind": "ConfigMap"})))
    assert [f.summary for f in outcome.failures] == [
        'no rendered Secret (rendered: XBucket "example-render", Bucket "storage-bucket", Context)',
        'no rendered v1 ConfigMap (rendered: XBucket "example-render", Bucket "storage-bucket", Context)',
    ]


def test_run_writes_no_files_and_renders_objects(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Render gets the case's objects: no temporary YAML is written for it to read back."""
    import tempfile

    file = _file(
        tmp_path,
        _expect(_bucket(region="eu-central-1")),
        xr={"raw": {**_XR, "spec": {"bucketRegion": "eu-central-1"}}},
        composition={"raw": _COMPOSITION},
    )
    cases = comptest.load([file])

    def refuse(*args: object, **kwargs: object) -> object:
        raise AssertionError("crossfn test wrote a file or rendered from files")

    for name in ("TemporaryDirectory", "mkdtemp", "mkstemp", "NamedTemporaryFile"):
        monkeypatch.setattr(tempfile, name, refuse)
    monkeypatch.setattr(Path, "write_text", refuse)
    monkeypatch.setattr(render, "load", refuse)
    monkeypatch.setattr(render, "render", refuse)
    [outcome] = comptest.run(cases)
    assert outcome.passed, f"{outcome.error} {outcome.failures}"


def test_run_inline_values_reach_render_as_written(tmp_path: Path) -> None:
    """An inline string such as ``1e3`` stays a string: a YAML round trip through files read it back as 1000."""
    xr = {**_XR, "metadata": {"name": "b", "labels": {"flag": "1e3"}}}
    file = _file(tmp_path, _expect({**_XR_OUT, "metadata": {"labels": {"flag": "1e3"}}}), xr={"raw": xr})
    outcome = _run(file)
    assert outcome.passed, f"{outcome.error} {outcome.failures}"


def test_raw_inputs_reach_render_as_written(tmp_path: Path) -> None:
    """A test file is read as Kubernetes reads YAML (plain ``y`` is true), and an inline object reaches render
    with the same values: a quoted ``"y"`` stays a string (PyYAML's writer left it plain, which reads as true)."""
    file = tmp_path / "t.yaml"
    file.write_text(
        f"apiVersion: {comptest.API_VERSION}\nkind: {comptest.KIND}\nmetadata: {{name: t}}\nspec:\n  tests:\n"
        f"  - name: a\n    inputs:\n"
        f'      xr: {{raw: {{apiVersion: example.crossplane.io/v1, kind: XBucket, metadata: {{name: x}}, spec: {{plain: y, quoted: "y"}}}}}}\n'
        f"      composition: {{path: {_XBUCKET / 'composition.yaml'}}}\n"
        f"      functions: {{path: {_XBUCKET / 'functions.yaml'}}}\n"
    )
    (case,) = comptest.load([file])
    prepared = run_module.prepare(case)
    assert isinstance(prepared.inputs, render.Inputs), "a CompositionTest case renders an XR"
    assert prepared.inputs.xr["spec"] == {"plain": True, "quoted": "y"}


_SAME_NAME_FN = """
def compose(req, rsp):
    del req
    rsp.desired.composite.resource.update({{"status": {{"from": "{tag}"}}}})
"""
_SAME_NAME_FUNCTIONS = """
apiVersion: pkg.crossplane.io/v1
kind: Function
metadata:
  name: function-samename
  annotations:
    render.crossplane.io/runtime: InProcess
    render.crossfn.io/runtime-inprocess-object: comptest_samename:compose
spec:
  package: xpkg.crossplane.io/example/function-samename:v0.1.0
"""
_SAME_NAME_COMPOSITION = {
    "apiVersion": "apiextensions.crossplane.io/v1", "kind": "Composition", "metadata": {"name": "samename"},
    "spec": {"compositeTypeRef": {"apiVersion": "example.crossplane.io/v1", "kind": "XBucket"}, "mode": "Pipeline",
             "pipeline": [{"step": "one", "functionRef": {"name": "function-samename"}}]},
}  # fmt: skip


def test_same_named_modules_in_two_directories_each_run(tmp_path: Path) -> None:
    """Two test directories with a function module of the same name: each test runs its own module,
    not whichever was imported first (import_module's cache)."""
    files = []
    for tag in ("a", "b"):
        d = tmp_path / tag
        d.mkdir()
        (d / "comptest_samename.py").write_text(_SAME_NAME_FN.format(tag=tag))
        (d / "functions.yaml").write_text(_SAME_NAME_FUNCTIONS)
        test = _expect({**_XR_OUT, "status": {"from": tag}})
        files.append(_file(d, test, functions={"path": str(d / "functions.yaml")},
                           composition={"raw": _SAME_NAME_COMPOSITION}))  # fmt: skip
    try:
        outcomes = comptest.run(comptest.load(files))
    finally:
        sys.modules.pop("comptest_samename", None)
    assert [(o.passed, o.error, o.failures) for o in outcomes] == [(True, None, ())] * 2
