"""``crossfn render op``: crossplane render op's output for given inputs (golden files) and its error texts.

What the golden files hold, field by field, is what the upstream command prints (upstream ops-5):
``---`` and the Operation as the render engine last wrote it (the input Operation through Go's typed
``Operation``: unknown keys dropped, ``mode``/``pipeline`` always there, ``resourceVersion: "999"``
from the engine's store; its status: ``Succeeded``, ``ValidPipeline`` and ``Synced`` in the order the
reconciler set them, ``pipeline[].output``, sorted ``appliedResourceRefs``, ``failures``), then each
applied resource as the function returned it (a status's condition times replaced), then ``Result``
documents for ``-r`` (the reconciler's ``RunPipelineStep`` events) and the ``Context`` for ``-c``.
Condition times read 2024-01-01T00:00:00Z (docs/compatibility.md says why the Operation's too).

Regenerate with ``CROSSFN_UPDATE_GOLDEN=1 pytest tests/render/test_render_op.py``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from crossfn import cli

DATA = Path(__file__).parent / "testdata" / "op"
GOLDEN = Path(__file__).parent / "golden" / "op"
_UPDATE = os.environ.get("CROSSFN_UPDATE_GOLDEN") == "1"


def _d(name: str) -> str:
    return str(DATA / name)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(["render", "op", *argv])
    out, err = capsys.readouterr()
    return code, out, err


GOLDEN_CASES = [
    pytest.param(
        (_d("operation.yaml"), _d("functions.yaml")),
        "upstream's fixture: one step applies one resource; the Operation succeeds and references it",
        id="Success",
    ),
    pytest.param(
        (_d("operation.yaml"), _d("functions.yaml"), "-o"),
        "-o prints what the output already holds: the input's spec",
        id="IncludeFullOperation",
    ),
    pytest.param(
        (
            _d("report.yaml"),
            _d("functions.yaml"),
            "-e",
            _d("required.yaml"),
            "--function-credentials",
            _d("credentials.yaml"),
            "--context-values",
            'example.org/team="platform"',
            "-r",
            "-c",
        ),
        "requirements from -e, a credential, seeded and captured context (their steps printed), results, "
        "two applied ConfigMaps in name order with their condition times replaced",
        id="Everything",
    ),
    pytest.param(
        (_d("cronoperation.yaml"), _d("functions.yaml")),
        "a CronOperation renders as its template's Operation, named after it",
        id="CronOperation",
    ),
    pytest.param(
        (
            _d("watchoperation.yaml"),
            _d("functions.yaml"),
            "-w",
            _d("watched.yaml"),
            "-e",
            _d("required.yaml"),
        ),
        "a WatchOperation with -w: the watched resource is every step's ops.crossplane.io/watched-resource",
        id="WatchOperation",
    ),
    pytest.param(
        (_d("done.yaml"), _d("functions.yaml")),
        "a finished Operation never runs: the engine writes nothing, the CLI prints nothing",
        id="AlreadyComplete",
    ),
    pytest.param(
        (_d("exhausted.yaml"), _d("functions.yaml")),
        "at its retry limit the Operation is marked failed, which is no render error",
        id="RetryLimitReached",
    ),
    pytest.param(
        (_d("operation.yaml"), _d("functions.yaml"), "--output", "json"),
        "--output json: the same documents as one JSON array",
        id="JSON",
    ),
]


@pytest.mark.parametrize(("argv", "reason"), GOLDEN_CASES)
def test_golden(
    capsys: pytest.CaptureFixture[str], request: pytest.FixtureRequest, argv: tuple[str, ...], reason: str
) -> None:
    code, out, err = _run(capsys, *argv)
    assert (code, err) == (0, ""), f"{reason}: {err}"
    name = request.node.callspec.id
    golden = GOLDEN / (f"{name}.json" if "--output" in argv else f"{name}.yaml")
    if _UPDATE:
        golden.write_text(out)
    assert out == golden.read_text(), reason


ERRORS = [
    pytest.param(
        ("missing.yaml", _d("functions.yaml")),
        'cannot read operation file "missing.yaml": open missing.yaml: no such file or directory',
        "the Operation file is read first",
        id="MissingOperation",
    ),
    pytest.param(
        (_d("operation-not-op.yaml"), _d("functions.yaml")),
        "not an operation type: ConfigMap/v1",
        "upstream's not-an-operation fixture",
        id="NotAnOperation",
    ),
    pytest.param(
        ("{tmp}/v1beta1.yaml", _d("functions.yaml")),
        "not an operation type: Operation/ops.crossplane.io/v1beta1",
        "only v1alpha1",
        id="WrongVersion",
    ),
    pytest.param(
        ("{tmp}/badtype.yaml", _d("functions.yaml")),
        'cannot unmarshal Operation from "{tmp}/badtype.yaml": error unmarshaling JSON: while decoding JSON: '
        "json: cannot unmarshal string into Go struct field OperationSpec.spec.retryLimit of type int64",
        "Go's typed decode names the field",
        id="WrongFieldType",
    ),
    pytest.param(
        (_d("operation.yaml"), _d("functions.yaml"), "-e", "missing.yaml"),
        'cannot load required resources from "missing.yaml": open missing.yaml: no such file or directory',
        "then each -e",
        id="MissingRequired",
    ),
    pytest.param(
        (_d("operation.yaml"), _d("functions.yaml"), "--required-schemas", "{tmp}/none"),
        'cannot load required schemas from "{tmp}/none": ',
        "then the schemas directory",
        id="MissingSchemas",
    ),
    pytest.param(
        (_d("operation.yaml"), _d("functions.yaml"), "-w", "missing.yaml"),
        'cannot load watched resource from "missing.yaml": open missing.yaml: no such file or directory',
        "then the watched resource",
        id="MissingWatched",
    ),
    pytest.param(
        (_d("operation.yaml"), _d("functions.yaml"), "-w", _d("watched-multi.yaml")),
        "--watched-resource must contain exactly one resource, got 2",
        "upstream's watched-multi fixture",
        id="WatchedNotOne",
    ),
    pytest.param(
        (_d("operation.yaml"), "missing.yaml"),
        'cannot load functions from "missing.yaml": open missing.yaml: no such file or directory',
        "then the Functions",
        id="MissingFunctions",
    ),
    pytest.param(
        (_d("operation.yaml"), _d("functions.yaml"), "-a", "not-a-key-value"),
        'cannot apply function annotation overrides: invalid function annotation format "not-a-key-value", expected key=value',
        "annotations must be key=value",
        id="BadAnnotation",
    ),
    pytest.param(
        (_d("operation.yaml"), _d("functions.yaml"), "--function-credentials", "missing.yaml"),
        'cannot load function credentials from "missing.yaml": open missing.yaml: no such file or directory',
        "then the credentials",
        id="MissingCredentials",
    ),
    pytest.param(
        (_d("operation.yaml"), _d("functions.yaml"), "--context-files", "k=missing.json"),
        'cannot build context data: cannot read context value for key "k": ',
        "then the context files",
        id="MissingContextFile",
    ),
    pytest.param(
        (_d("operation.yaml"), _d("functions.yaml"), "--context-values", "k={"),
        'cannot parse context data: cannot unmarshal context value for key "k": ',
        "then each context value is parsed",
        id="BadContextValue",
    ),
    pytest.param(
        (_d("fails.yaml"), _d("functions.yaml")),
        'cannot render operation: pipeline step "fail" returned a fatal result: cannot reach the cluster',
        "a fatal result fails the render and prints nothing",
        id="Fatal",
    ),
    pytest.param(
        ("{tmp}/unknown.yaml", _d("functions.yaml")),
        'cannot render operation: failed to invoke pipeline step "s": unknown function "function-nope" - is it listed in the render input?',
        "a step naming no Function",
        id="UnknownFunction",
    ),
    pytest.param(
        ("{tmp}/badinput.yaml", _d("functions.yaml")),
        'cannot render operation: cannot unmarshal input for operation pipeline step "be-a-dummy": input must be an object, not a number',
        "an input that is no object",
        id="BadInput",
    ),
    pytest.param(
        ("{tmp}/infinite.yaml", _d("functions.yaml")),
        "cannot marshal applied resource to YAML: json: unsupported value: +Inf",
        "an applied resource holding a number Go cannot write: crossplane render op's text, nothing printed",
        id="AppliedInfinity",
    ),
    pytest.param(
        (_d("operation.yaml"), _d("functions.yaml"), "-a", "render.crossplane.io/runtime=Nonsense"),
        'cannot start function runtimes: cannot get runtime for Function "function-dummy": ',
        "a runtime that cannot be planned",
        id="BadRuntime",
    ),
]

_TMP_FILES = {
    "v1beta1.yaml": "apiVersion: ops.crossplane.io/v1beta1\nkind: Operation\nmetadata:\n  name: x\n",
    "badtype.yaml": "apiVersion: ops.crossplane.io/v1alpha1\nkind: Operation\nspec:\n  retryLimit: three\n",
    "unknown.yaml": (
        "apiVersion: ops.crossplane.io/v1alpha1\nkind: Operation\nmetadata:\n  name: x\nspec:\n  pipeline:\n"
        "  - step: s\n    functionRef:\n      name: function-nope\n"
    ),
    "infinite.yaml": (
        "apiVersion: ops.crossplane.io/v1alpha1\nkind: Operation\nmetadata:\n  name: x\nspec:\n  pipeline:\n"
        "  - step: s\n    functionRef:\n      name: function-infinite\n"
    ),
    "badinput.yaml": (
        "apiVersion: ops.crossplane.io/v1alpha1\nkind: Operation\nmetadata:\n  name: x\nspec:\n  pipeline:\n"
        "  - step: be-a-dummy\n    input: 5\n    functionRef:\n      name: function-dummy\n"
    ),
}


@pytest.mark.parametrize(("argv", "want", "reason"), ERRORS)
def test_errors(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: tuple[str, ...], want: str, reason: str
) -> None:
    """Each input problem in the CLI's order, with its text; one line on stderr, nothing on stdout."""
    for name, text in _TMP_FILES.items():
        (tmp_path / name).write_text(text)
    code, out, err = _run(capsys, *(a.replace("{tmp}", str(tmp_path)) for a in argv))
    assert code == 1, reason
    assert out == "", f"{reason}: no partial output"
    assert err.startswith("crossfn: error: " + want.replace("{tmp}", str(tmp_path))), f"{reason}: {err}"
    assert err.count("\n") == 1, f"{reason}: one line"


def test_render_op_is_not_render(capsys: pytest.CaptureFixture[str]) -> None:
    """``render op`` has its own flags: -o is --include-full-operation, not render's --observed-resources."""
    code, out, _ = _run(capsys, _d("operation.yaml"), _d("functions.yaml"), "-o")
    assert code == 0 and out.startswith("---\napiVersion: ops.crossplane.io/v1alpha1\n")
    with pytest.raises(SystemExit):
        cli.main(["render", "op", _d("operation.yaml")])
    assert "FUNCTIONS" in capsys.readouterr().err, "FUNCTIONS is required"


def test_operation_render_is_crossplanes_other_spelling(capsys: pytest.CaptureFixture[str]) -> None:
    """``crossplane operation render`` runs as ``crossfn render op``."""
    argv = (_d("operation.yaml"), _d("functions.yaml"), "-r")
    want = _run(capsys, *argv)
    assert cli.main(["operation", "render", *argv]) == 0
    out, err = capsys.readouterr()
    assert (0, out, err) == want


def test_engine_flags_are_accepted_and_explained(capsys: pytest.CaptureFixture[str]) -> None:
    """crossplane render op shares render xr's engine flags: accepted, ignored, explained on stderr."""
    code, out, err = _run(
        capsys, _d("operation.yaml"), _d("functions.yaml"), "--crossplane-version", "v2.2.4"
    )
    assert code == 0 and out == (GOLDEN / "Success.yaml").read_text()
    assert err == (
        "crossfn: note: --crossplane-version is ignored: it chooses the version of the Crossplane image to render "
        "with; crossfn renders in-process\n"
    )
