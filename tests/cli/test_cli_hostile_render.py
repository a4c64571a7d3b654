"""Hostile inputs to ``crossfn render`` (both modes) and ``crossfn function serve`` end in one line, never a traceback.

Each row is an input a user can hand crossfn: a mistyped XR, a Function module
that fails when imported, a function whose response carries odd numbers. The
contract is the CLI's (issue 15): exit status 1, nothing on stdout, exactly one
``crossfn: error:`` line naming the file or object and the field.
"""

from __future__ import annotations

import gc
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from crossfn import cli

_XR: dict[str, Any] = {
    "apiVersion": "nop.example.org/v1alpha1",
    "kind": "XNopResource",
    "metadata": {"name": "hostile"},
    "spec": {"coolField": "x"},
}

_FUNCTIONS = """
import math
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource


def empty(req, rsp):
    return rsp


def _generation(value):
    def compose(req, rsp):
        xr = {"status": {"conditions": [{"type": "A", "status": "True", "reason": "R", "observedGeneration": value}]}}
        rsp.desired.composite.resource.CopyFrom(resource.dict_to_struct(xr))
        return rsp
    return compose


def raises(req, rsp):
    raise RuntimeError("boom")


generation_nan = _generation(math.nan)
generation_inf = _generation(math.inf)
generation_fraction = _generation(1.5)


def _composed(value):
    def compose(req, rsp):
        rsp.desired.resources["bucket"].resource.CopyFrom(
            resource.dict_to_struct({"apiVersion": "v1", "kind": "CD", "spec": {"size": value}})
        )
        return rsp
    return compose


composed_nan = _composed(math.nan)
composed_minus_inf = _composed(-math.inf)
"""

_MODULES = {
    "raises_at_import": "raise ValueError('import boom')\n",
    "syntax_error": "def (\n",
    "exits_at_import": "import sys\nsys.exit(4)\n",
    "runtime_error": "x = 1 / 0\n",
}


def _files(tmp: Path, obj: str, xr: Any = None, flags: tuple[str, ...] = ()) -> list[str]:
    (tmp / "crossfn_hostile_fns.py").write_text(_FUNCTIONS)
    for name, text in _MODULES.items():
        (tmp / f"{name}.py").write_text(text)
    (tmp / "xr.yaml").write_text(xr if isinstance(xr, str) else yaml.safe_dump(_XR if xr is None else xr))
    comp = {
        "apiVersion": "apiextensions.crossplane.io/v1",
        "kind": "Composition",
        "metadata": {"name": "hostile"},
        "spec": {
            "compositeTypeRef": {"apiVersion": _XR["apiVersion"], "kind": _XR["kind"]},
            "mode": "Pipeline",
            "pipeline": [{"step": "s", "functionRef": {"name": "function-hostile"}}],
        },
    }
    (tmp / "composition.yaml").write_text(yaml.safe_dump(comp))
    fn = {
        "apiVersion": "pkg.crossplane.io/v1",
        "kind": "Function",
        "metadata": {
            "name": "function-hostile",
            "annotations": {
                "render.crossplane.io/runtime": "InProcess",
                "render.crossfn.io/runtime-inprocess-object": obj,
            },
        },
        "spec": {"package": "xpkg.crossplane.io/example/function-hostile:v0.1.0"},
    }
    (tmp / "functions.yaml").write_text(yaml.safe_dump(fn))
    return [
        "render",
        str(tmp / "xr.yaml"),
        str(tmp / "composition.yaml"),
        str(tmp / "functions.yaml"),
        *flags,
    ]


@pytest.fixture(autouse=True)
def _forget_modules() -> Any:
    """Each test writes its own modules; a module imported by an earlier test must not be reused."""
    yield
    for name in ["crossfn_hostile_fns", *_MODULES]:
        sys.modules.pop(name, None)


def _one_error_line(capsys: pytest.CaptureFixture[str], status: int) -> str:
    out, err = capsys.readouterr()
    assert "Traceback" not in err, err
    assert (status, out) == (1, ""), err
    lines = [line for line in err.splitlines() if not line.startswith("crossfn: note:")]
    assert len(lines) == 1 and lines[0].startswith("crossfn: error: "), err
    return lines[0]


def _meta(**fields: Any) -> dict[str, Any]:
    return {**_XR, "metadata": {"name": "hostile", **fields}}


_BAD_XRS = [
    pytest.param(_meta(generation="x"), "metadata.generation must be an integer", id="GenerationString"),
    pytest.param(_meta(generation=1.5), "metadata.generation must be an integer", id="GenerationFraction"),
    pytest.param(_meta(generation=2**64), "metadata.generation must be an integer", id="GenerationOverflowsInt64"),
    pytest.param({**_XR, "status": {"conditions": "x"}}, "status.conditions must be a list of objects",
                 id="ConditionsString"),
    pytest.param({**_XR, "status": {"conditions": [1, None]}}, "status.conditions must be a list of objects",
                 id="ConditionsOfScalars"),
    pytest.param({**_XR, "status": [1]}, "status must be an object", id="StatusList"),
    pytest.param({**_XR, "metadata": None}, "metadata must be an object", id="MetadataNull"),
    pytest.param(_meta(name=5), "metadata.name must be a string", id="NameNotString"),
    pytest.param(_meta(uid=["u"]), "metadata.uid must be a string", id="UidList"),
    pytest.param(_meta(namespace={"a": 1}), "metadata.namespace must be a string", id="NamespaceObject"),
    pytest.param(_meta(annotations={"crossplane.io/paused": True}), "metadata.annotations must map strings to strings",
                 id="PausedAnnotationBool"),
]  # fmt: skip


@pytest.mark.parametrize(
    "flags", [(), ("--classic",), ("-x", "--output", "json")], ids=["engine", "classic", "json"]
)
@pytest.mark.parametrize(("xr", "want"), _BAD_XRS)
def test_mistyped_xr_is_one_line_naming_file_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], xr: dict[str, Any], want: str, flags: tuple[str, ...]
) -> None:
    status = cli.main(_files(tmp_path, "crossfn_hostile_fns:empty", xr, flags))
    line = _one_error_line(capsys, status)
    assert line == f'crossfn: error: cannot load composite resource from "{tmp_path / "xr.yaml"}": {want}'


@pytest.mark.parametrize("flags", [(), ("--classic",)], ids=["engine", "classic"])
@pytest.mark.parametrize(
    ("obj", "want"),
    [
        pytest.param("raises_at_import:f", "importing raises_at_import raised ValueError: import boom", id="Raises"),
        pytest.param("syntax_error:f", "importing syntax_error raised SyntaxError: invalid syntax", id="SyntaxError"),
        pytest.param("exits_at_import:f", "importing exits_at_import raised SystemExit: 4", id="SysExit"),
        pytest.param("runtime_error:f", "importing runtime_error raised ZeroDivisionError: division by zero",
                     id="ZeroDivision"),
    ],
)  # fmt: skip
def test_inprocess_module_failing_at_import(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], obj: str, want: str, flags: tuple[str, ...]
) -> None:
    status = cli.main(_files(tmp_path, obj, flags=flags))
    line = _one_error_line(capsys, status)
    prefix = (
        f'crossfn: error: cannot render composite resource: cannot load in-process Function "function-hostile" '
        f'from "{obj}": {want}'
    )
    assert re.fullmatch(re.escape(prefix) + r" \(at [^()]*\.py:\d+\)", line), line


def test_odd_condition_generation_in_desired_xr_status(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A condition whose observedGeneration is not an integer does not decode as Go's Condition: printed as is."""
    status = cli.main(_files(tmp_path, "crossfn_hostile_fns:generation_fraction"))
    out, err = capsys.readouterr()
    assert (status, "Traceback" in err) == (0, False), err
    xr = yaml.safe_load(out.split("\n---\n")[0])
    first = xr["status"]["conditions"][0]
    assert set(first) == {"type", "status", "reason", "observedGeneration"}, "no time written: left alone"


@pytest.mark.parametrize(
    ("obj", "want"),
    [
        pytest.param(
            "raises_at_import:f", "importing raises_at_import raised ValueError: import boom", id="Raises"
        ),
        pytest.param("exits_at_import:f", "importing exits_at_import raised SystemExit: 4", id="SysExit"),
    ],
)
def test_serve_module_failing_at_import(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, obj: str, want: str
) -> None:
    _files(tmp_path, obj)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    status = cli.main(["function", "serve", "--insecure", "--address", "127.0.0.1:0", obj])
    line = _one_error_line(capsys, status)
    prefix = f'crossfn: error: cannot load function "{obj}": {want}'
    assert re.fullmatch(re.escape(prefix) + r" \(at [^()]*\.py:\d+\)", line), line


@pytest.mark.parametrize(
    ("flags", "traceback"),
    [pytest.param((), False, id="Quiet"), pytest.param(("--verbose",), True, id="Verbose")],
)
def test_inprocess_function_that_raises_is_one_line(
    tmp_path: Path, flags: tuple[str, ...], traceback: bool
) -> None:
    """The error line names the exception; its traceback (the SDK's log of it) is printed only with --verbose.

    In a subprocess: pytest's log capture would hide what Python's last-resort log handler prints.
    """
    argv = _files(tmp_path, "crossfn_hostile_fns:raises", flags=flags)
    proc = subprocess.run(
        [sys.executable, "-m", "crossfn", *argv], capture_output=True, text=True, check=False
    )
    assert (proc.returncode, proc.stdout) == (1, "")
    assert ("Traceback" in proc.stderr) is traceback, proc.stderr
    assert proc.stderr.splitlines()[-1] == (
        'crossfn: error: cannot render composite resource: cannot compose resources: pipeline step "s" '
        "returned a fatal result: RuntimeError: boom"
    )
    if not traceback:
        assert proc.stderr.count("\n") == 1, proc.stderr


def test_timeout_that_interrupts_an_inprocess_function_leaves_no_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--timeout 0`` interrupts the in-process worker thread as it starts: no half-made event loop is left
    whose ``__del__`` prints "Exception ignored ... Traceback" (it did in most of these runs)."""
    unraisable: list[str] = []
    monkeypatch.setattr(
        sys, "unraisablehook", lambda u: unraisable.append(f"{u.exc_type.__name__}: {u.exc_value}")
    )
    argv = _files(tmp_path, "crossfn_hostile_fns:empty", flags=("--timeout", "0"))
    for _ in range(10):
        status = cli.main(argv)
        assert _one_error_line(capsys, status).endswith("context deadline exceeded")
    gc.collect()
    assert unraisable == []


def test_composition_test_of_a_function_that_raises_prints_no_traceback(tmp_path: Path) -> None:
    """``crossfn test`` reports the failing case with the exception; the SDK's traceback stays out of stderr."""
    _files(tmp_path, "crossfn_hostile_fns:raises")
    inputs = {"composition": {"path": "composition.yaml"}, "functions": {"path": "functions.yaml"}}
    test = {
        "apiVersion": "test.crossplane.io/v1alpha1",
        "kind": "CompositionTest",
        "metadata": {"name": "t"},
        "spec": {"tests": [{
            "name": "raises",
            "inputs": {"xr": {"path": "xr.yaml"}, **inputs},
            "assertions": [{"type": "chainsaw", "chainsaw": {"resources": [{"apiVersion": "v1", "kind": "X"}]}}],
        }]},
    }  # fmt: skip
    (tmp_path / "test.yaml").write_text(yaml.safe_dump(test))
    proc = subprocess.run(
        [sys.executable, "-m", "crossfn", "test", "-q", str(tmp_path / "test.yaml")],
        capture_output=True, text=True, check=False, cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    assert "RuntimeError: boom" in proc.stdout
    assert proc.stderr == "", proc.stderr


def _observed(**meta: Any) -> dict[str, Any]:
    annotations = {"crossplane.io/composition-resource-name": "a"}
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "o", "annotations": annotations, **meta},
    }


@pytest.mark.parametrize("flags", [(), ("--classic",)], ids=["engine", "classic"])
@pytest.mark.parametrize(
    ("observed", "want"),
    [
        pytest.param([_observed(ownerReferences=[{"controller": "yes", "uid": "u"}])],
                     "document 1: metadata.ownerReferences[0].controller must be a boolean",
                     id="ControllerString"),  # was: "has a controller ref but is not controlled by the XR"
        pytest.param([_observed(), _observed(ownerReferences=[{"uid": 5}])],
                     "document 2: metadata.ownerReferences[0].uid must be a string", id="UidInt"),
        pytest.param([_observed(ownerReferences=[1, None])], "document 1: metadata.ownerReferences must be a list of objects",
                     id="RefsNotObjects"),  # was: "has a controller ref ..." or a compose-time text without the file
        pytest.param([_observed(labels={"a": 1})], "document 1: metadata.labels must map strings to strings",
                     id="LabelInt"),
        pytest.param([_observed(generation="x")], "document 1: metadata.generation must be an integer",
                     id="GenerationString"),
    ],
)  # fmt: skip
def test_mistyped_observed_resource_is_one_line_naming_file_document_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], observed: list[Any], want: str, flags: tuple[str, ...]
) -> None:
    argv = _files(tmp_path, "crossfn_hostile_fns:empty", flags=flags)
    (tmp_path / "observed.yaml").write_text(yaml.safe_dump_all(observed))
    status = cli.main([*argv, "-o", str(tmp_path / "observed.yaml")])
    line = _one_error_line(capsys, status)
    assert (
        line
        == f'crossfn: error: cannot load observed composed resources from "{tmp_path / "observed.yaml"}": {want}'
    )


@pytest.mark.parametrize("flags", [("-x",), ("--classic", "-x")], ids=["engine", "classic"])
@pytest.mark.parametrize(
    ("fn", "word"),
    [("generation_nan", "NaN"), ("generation_inf", "+Inf"), ("composed_minus_inf", "-Inf")],
)
def test_json_output_of_a_number_json_cannot_hold_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fn: str, word: str, flags: tuple[str, ...]
) -> None:
    """``--output json`` of a function's NaN or infinity raised ValueError from json.dumps."""
    status = cli.main(_files(tmp_path, f"crossfn_hostile_fns:{fn}", flags=(*flags, "--output", "json")))
    line = _one_error_line(capsys, status)
    assert line == f"crossfn: error: cannot marshal output to JSON: json: unsupported value: {word}"


@pytest.mark.parametrize(("value", "word"), [(".nan", "NaN"), (".inf", "+Inf"), ("-.inf", "-Inf")])
def test_an_xr_file_holding_a_number_json_cannot_hold_fails_to_load(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str, word: str
) -> None:
    """An XR file's NaN or infinity fails to load, as sigs.k8s.io/yaml's YAML -> JSON round trip does."""
    xr = (
        "apiVersion: nop.example.org/v1alpha1\nkind: XNopResource\nmetadata: {name: t}\nspec: {a: "
        + value
        + "}\n"
    )
    status = cli.main(_files(tmp_path, "crossfn_hostile_fns:empty", xr, ("--output", "json")))
    path = tmp_path / "xr.yaml"
    assert _one_error_line(capsys, status) == (
        f'crossfn: error: cannot load composite resource from "{path}": cannot parse YAML in {path}: '
        f"line 4 column 11: error converting YAML to JSON: json: unsupported value: {word}"
    )


@pytest.mark.parametrize("flags", [(), ("--classic",)], ids=["current", "classic"])
@pytest.mark.parametrize(
    ("fn", "want"),
    [
        pytest.param("generation_nan", 'composite resource "hostile" to YAML: json: unsupported value: NaN',
                     id="XRStatusNaN"),
        pytest.param("generation_inf", 'composite resource "hostile" to YAML: json: unsupported value: +Inf',
                     id="XRStatusInf"),
        pytest.param("composed_nan", 'composed resource "bucket" to YAML: json: unsupported value: NaN',
                     id="ComposedNaN"),
        pytest.param("composed_minus_inf", 'composed resource "bucket" to YAML: json: unsupported value: -Inf',
                     id="ComposedMinusInf"),
    ],
)  # fmt: skip
def test_a_number_yaml_cannot_hold_is_one_line_naming_the_document(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fn: str, want: str, flags: tuple[str, ...]
) -> None:
    """A function's NaN or infinity has no YAML form in Go (its YAML goes through JSON): crossplane render's
    ``cannot marshal ... to YAML`` line, and nothing printed (upstream printed the documents before it)."""
    status = cli.main(_files(tmp_path, f"crossfn_hostile_fns:{fn}", flags=flags))
    assert _one_error_line(capsys, status) == f"crossfn: error: cannot marshal {want}"
