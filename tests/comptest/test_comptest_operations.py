"""OperationTest: ``crossfn test`` asserts an Operation's render like a Composition's.

The fixtures are ``crossfn render op``'s (tests/render/testdata/op); a case renders as
``crossfn render op -o -r -c`` does, so its assertions can match the Operation with its status, the
applied resources, the ``Result`` documents and the ``Context``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from crossfn import comptest, errors

_OP = Path(__file__).resolve().parents[1] / "render" / "testdata" / "op"


def _file(tmp_path: Path, *tests: dict[str, Any], kind: str = "OperationTest") -> Path:
    doc = {
        "apiVersion": comptest.API_VERSION,
        "kind": kind,
        "metadata": {"name": "ops"},
        "spec": {"tests": list(tests)},
    }
    file = tmp_path / "t.yaml"
    file.write_text(json.dumps(doc))
    return file


def _test(
    operation: str = "operation.yaml", expect: tuple[dict[str, Any], ...] = (), **inputs: Any
) -> dict[str, Any]:
    test: dict[str, Any] = {
        "name": operation,
        "inputs": {
            "operation": {"path": str(_OP / operation)},
            "functions": {"path": str(_OP / "functions.yaml")},
            **inputs,
        },
    }
    if expect:
        test["assertions"] = [{"type": "chainsaw", "chainsaw": {"resources": list(expect)}}]
    return test


SUCCEEDED = {
    "apiVersion": "ops.crossplane.io/v1alpha1",
    "kind": "Operation",
    "metadata": {"name": "test-op"},
    "status": {
        "conditions": [  # arrays match whole: every condition, in the order the reconciler set them
            {"type": "Succeeded", "status": "True", "reason": "PipelineSuccess"},
            {"type": "ValidPipeline", "status": "True"},
            {"type": "Synced", "status": "True"},
        ]
    },
}
APPLIED = {"apiVersion": "example.org/v1alpha1", "kind": "AppliedResource", "spec": {"coolField": "applied!"}}


@pytest.mark.parametrize(
    ("test", "failures", "reason"),
    [
        pytest.param(
            _test(expect=(SUCCEEDED, APPLIED)),
            0,
            "the Operation succeeded and applied its resource",
            id="Passes",
        ),
        pytest.param(
            _test(expect=({**APPLIED, "spec": {"coolField": "wrong"}},)),
            1,
            "an applied resource that differs fails",
            id="Mismatch",
        ),
        pytest.param(
            _test(
                "report.yaml",
                (
                    {
                        "kind": "Operation",
                        "status": {
                            "pipeline": [{"step": "report", "output": {"team": "ops", "token": "s3cr3t"}}]
                        },
                    },
                    {
                        "kind": "Result",
                        "severity": "Warning",
                        "message": 'Pipeline step "report": token is old',
                    },
                    {"kind": "Context", "fields": {"example.org/checked": 2}},
                ),
                requiredResources={"path": str(_OP / "required.yaml")},
                functionCredentialsPath=str(_OP / "credentials.yaml"),
                context={"example.org/team": "ops"},
            ),
            0,
            "step outputs, results and the context can be asserted on",
            id="OutputsResultsContext",
        ),
        pytest.param(
            _test(
                "watchoperation.yaml",
                (
                    {
                        "kind": "Operation",
                        "status": {"pipeline": [{"step": "report", "output": {"watched": "node-a"}}]},
                    },
                ),
                watchedResource={"raw": {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-a"}}},
                requiredResources={"path": str(_OP / "required.yaml")},
            ),
            0,
            "a WatchOperation gets the watched resource (crossfn's watchedResource)",
            id="WatchedResource",
        ),
    ],
)
def test_operation_tests(tmp_path: Path, test: dict[str, Any], failures: int, reason: str) -> None:
    [outcome] = comptest.run(comptest.load([_file(tmp_path, test)]))
    assert outcome.error is None, f"{reason}: {outcome.error}"
    assert len(outcome.failures) == failures, reason
    assert outcome.case.full_name == f"ops/{test['name']}"


def test_a_fatal_operation_fails_its_test(tmp_path: Path) -> None:
    [outcome] = comptest.run(comptest.load([_file(tmp_path, _test("fails.yaml"))]))
    assert (
        outcome.error
        == 'cannot render operation: pipeline step "fail" returned a fatal result: cannot reach the cluster'
    )
    assert not outcome.passed


def test_inline_operation_and_functions(tmp_path: Path) -> None:
    """Inline (raw) inputs are named by their field in messages; the Functions run from the test file's directory."""
    (tmp_path / "crossfn_render_opfns.py").write_text((_OP / "crossfn_render_opfns.py").read_text())
    fn = {
        "apiVersion": "pkg.crossplane.io/v1",
        "kind": "Function",
        "metadata": {
            "name": "function-dummy",
            "annotations": {
                "render.crossplane.io/runtime": "InProcess",
                "render.crossfn.io/runtime-inprocess-object": "crossfn_render_opfns:applies",
            },
        },
    }
    op = {
        "apiVersion": "ops.crossplane.io/v1alpha1",
        "kind": "Operation",
        "metadata": {"name": "inline"},
        "spec": {"pipeline": [{"step": "s", "functionRef": {"name": "function-dummy"}}]},
    }
    test = {
        "name": "inline",
        "inputs": {"operation": {"raw": op}, "functions": {"raw": [fn]}},
        "assertions": [{"type": "chainsaw", "chainsaw": {"resources": [APPLIED]}}],
    }
    [outcome] = comptest.run(comptest.load([_file(tmp_path, test)]))
    assert outcome.passed, outcome


@pytest.mark.parametrize(
    ("test", "want", "reason"),
    [
        pytest.param(
            {"name": "n", "inputs": {"functions": {"raw": []}}},
            r"spec\.tests\[0\]\.inputs\.operation: required",
            "an Operation is required",
            id="NoOperation",
        ),
        pytest.param(
            {"name": "n", "inputs": {"operation": {"raw": {}}, "functions": {"raw": []}, "xr": {"raw": {}}}},
            r'spec\.tests\[0\]\.inputs: unknown field "xr"',
            "an OperationTest has no XR",
            id="UnknownField",
        ),
        pytest.param(
            {"name": "n", "patches": {}, "inputs": {}},
            r'spec\.tests\[0\]: unknown field "patches"',
            "an OperationTest has no patches",
            id="NoPatches",
        ),
    ],
)
def test_load_errors(tmp_path: Path, test: dict[str, Any], want: str, reason: str) -> None:
    with pytest.raises(errors.InputError, match=want):
        comptest.load([_file(tmp_path, test)])


def test_prepare_names_the_field(tmp_path: Path) -> None:
    """A render input problem names the test file and field, as for a CompositionTest."""
    test = _test("operation-not-op.yaml")
    with pytest.raises(errors.InputError) as exc:
        comptest.run(comptest.load([_file(tmp_path, test)]))
    assert (
        str(exc.value) == f"{tmp_path / 't.yaml'}: spec.tests[0].inputs: not an operation type: ConfigMap/v1"
    )


def test_both_kinds_in_one_run(tmp_path: Path) -> None:
    """A directory may hold CompositionTests and OperationTests; both run, in file order."""
    (tmp_path / "a").mkdir()
    _file(tmp_path / "a", _test(expect=(APPLIED,)))
    xbucket = Path(__file__).resolve().parents[2] / "examples" / "xbucket" / "test.yaml"
    outcomes = comptest.run(comptest.load([xbucket, tmp_path]))
    assert [o.passed for o in outcomes] == [True] * len(outcomes) and len(outcomes) > 1
    assert isinstance(outcomes[-1].case, comptest.OperationCase)
