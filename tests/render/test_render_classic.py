"""Classic render conformance: cmd/crank/render TestRender (upstream core-4.10) and upstream core-3.6 output.

Each case writes an XR, a Composition with one step ``test`` and a Function
run in-process by the InProcess runtime (the functions in
``testdata/crossfn_render_testfns.py`` return what the upstream cases mock),
renders it and compares the output with a golden file byte for byte.
Regenerate golden files with ``CROSSFN_UPDATE_GOLDEN=1 pytest tests/render``.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from crossfn import errors, render

_HERE = Path(__file__).parent
_GOLDEN = _HERE / "golden"
_UPDATE = os.environ.get("CROSSFN_UPDATE_GOLDEN") == "1"

_XR: dict[str, Any] = {
    "apiVersion": "nop.example.org/v1alpha1",
    "kind": "XNopResource",
    "metadata": {"name": "test-render"},
    "spec": {"coolField": "I'm cool!"},
}


def _write(tmp: Path, fn: str, *, xr: dict[str, Any] | None = None, step: dict[str, Any] | None = None,
           function_name: str = "function-test", annotations: dict[str, str] | None = None) -> render.Request:  # fmt: skip
    shutil.copy(_HERE / "testdata" / "crossfn_render_testfns.py", tmp / "crossfn_render_testfns.py")
    (tmp / "xr.yaml").write_text(yaml.safe_dump(xr or _XR))
    comp = {
        "apiVersion": "apiextensions.crossplane.io/v1",
        "kind": "Composition",
        "metadata": {"name": "xnopresources.nop.example.org"},
        "spec": {
            "compositeTypeRef": {"apiVersion": "nop.example.org/v1alpha1", "kind": "XNopResource"},
            "mode": "Pipeline",
            "pipeline": [step or {"step": "test", "functionRef": {"name": "function-test"}}],
        },
    }
    (tmp / "composition.yaml").write_text(yaml.safe_dump(comp))
    fn_doc = {
        "apiVersion": "pkg.crossplane.io/v1",
        "kind": "Function",
        "metadata": {
            "name": function_name,
            "annotations": annotations
            or {
                "render.crossplane.io/runtime": "InProcess",
                "render.crossfn.io/runtime-inprocess-object": f"crossfn_render_testfns:{fn}",
            },
        },
        "spec": {"package": "xpkg.crossplane.io/crossplane-contrib/function-test:v0.1.0"},
    }
    (tmp / "functions.yaml").write_text(yaml.safe_dump(fn_doc))
    return render.Request(
        composite_resource=tmp / "xr.yaml",
        composition=tmp / "composition.yaml",
        functions=tmp / "functions.yaml",
    )


def _check_golden(name: str, got: str) -> None:
    path = _GOLDEN / f"{name}.yaml"
    if _UPDATE:
        path.write_text(got)
    assert got == path.read_text(), f"output differs from {path}; regenerate with CROSSFN_UPDATE_GOLDEN=1"


@pytest.mark.parametrize(
    ("fn", "flags", "reason"),
    [
        pytest.param(
            "success",
            {},
            "upstream core-3.6: XR with computed Ready, composed resources sorted by name",
            id="Success",
        ),
        pytest.param(
            "success_ready",
            {},
            "READY_TRUE everywhere replaces the function's Ready=False",
            id="SuccessReady",
        ),
        pytest.param(
            "success", {"include_function_results": True}, "-r adds Result documents", id="SuccessWithResults"
        ),
        pytest.param(
            "success", {"include_full_xr": True}, "-x keeps the input spec and metadata", id="SuccessFullXR"
        ),
        pytest.param(
            "composite_ready_false_with_unready",
            {},
            "FALSE with unready: Creating, no message",
            id="CompositeReadyFalseWithUnreadyResources",
        ),
        pytest.param(
            "composite_ready_true_with_unready",
            {},
            "TRUE overrides unready resources",
            id="CompositeReadyTrueWithUnreadyResources",
        ),
        pytest.param("composite_ready_false", {}, "FALSE with all ready: Creating", id="CompositeReadyFalse"),
        pytest.param(
            "success",
            {},
            "UNSPECIFIED with unready: Creating with the list",
            id="CompositeReadyUnspecifiedWithUnreadyResources",
        ),
        pytest.param(
            "success_ready",
            {},
            "UNSPECIFIED, all ready: Available",
            id="CompositeReadyUnspecifiedNoUnreadyResources",
        ),
    ],
)
def test_render_golden(
    tmp_path: Path, request: pytest.FixtureRequest, fn: str, flags: dict[str, Any], reason: str
) -> None:
    req = _write(tmp_path, fn)
    req = render.Request(**{**req.__dict__, **flags})
    got = render.output.yaml_stream(render.render(req, output=render.CLASSIC))
    _check_golden(request.node.callspec.id, got)


def test_success_with_resources(tmp_path: Path) -> None:
    """SuccessWithResources: the second call gets the extra resource by name; exactly 2 calls."""
    req = _write(tmp_path, "with_resources")
    (tmp_path / "extra.yaml").write_text(
        "apiVersion: test.crossplane.io/v1\nkind: Foo\nmetadata:\n  name: extra-resource\nspec:\n  widgets: 42\n"
        "---\napiVersion: test.crossplane.io/v1\nkind: Foo\nmetadata:\n  name: other\nspec:\n  widgets: 1\n"
    )
    req = render.Request(
        **{**req.__dict__, "required_resources": [tmp_path / "extra.yaml"], "include_context": True}
    )
    docs = render.render(req, output=render.CLASSIC)
    _check_golden("SuccessWithResources", render.output.yaml_stream(docs))
    assert docs[0]["status"]["widgets"] == 42, "the function read the resource it asked for"
    assert docs[-1] == {
        "apiVersion": "render.crossplane.io/v1beta1",
        "kind": "Context",
        "fields": {"calls": 2},
    }, "classic render calls twice: once to ask, once to confirm the requirements are stable"


def test_every_extra_and_required_file_counts(tmp_path: Path) -> None:
    """crossplane/cli#90: every --extra-resources and -e occurrence is honoured, not only the last."""
    req = _write(tmp_path, "with_resources")
    (tmp_path / "a.yaml").write_text(
        "apiVersion: test.crossplane.io/v1\nkind: Foo\nmetadata:\n  name: extra-resource\nspec:\n  widgets: 7\n"
    )
    (tmp_path / "b.yaml").write_text(
        "apiVersion: test.crossplane.io/v1\nkind: Bar\nmetadata:\n  name: unrelated\n"
    )
    req = render.Request(**{**req.__dict__, "extra_resources": [tmp_path / "a.yaml", tmp_path / "b.yaml"]})
    assert render.render(req, output=render.CLASSIC)[0]["status"]["widgets"] == 7, (
        "the first of two --extra-resources files is used"
    )


def test_namespaced_xr_propagates_to_composed(tmp_path: Path) -> None:
    xr = {**_XR, "metadata": {"name": "test-render", "namespace": "test-namespace"}}
    req = _write(tmp_path, "namespaced", xr=xr)
    docs = render.render(req, output=render.CLASSIC)
    _check_golden("NamespacedXRPropagatesToComposed", render.output.yaml_stream(docs))
    assert docs[1]["metadata"]["namespace"] == "test-namespace"
    assert docs[1]["metadata"]["generateName"] == "test-render-"


def test_yaml_and_json_contexts(tmp_path: Path) -> None:
    """SuccessWithYAMLAndJSONContexts: both arrive parsed as maps; values override files."""
    req = _write(tmp_path, "echo_context")
    (tmp_path / "ctx.json").write_text('{"from": "file"}')
    req = render.Request(
        **{
            **req.__dict__,
            "context_files": [("file-key", str(tmp_path / "ctx.json")), ("over", str(tmp_path / "ctx.json"))],
            "context_values": [("yaml-key", "a: 1\nb: [x]"), ("json-key", '{"c": true}'), ("over", "plain")],
            "include_function_results": True,
            "include_context": True,
        }
    )
    docs = render.render(req, output=render.CLASSIC)
    results = [d["message"] for d in docs if d["kind"] == "Result"]
    assert results == ["file-key: dict", "json-key: dict", "over: str", "yaml-key: dict"]
    assert docs[-1]["fields"]["yaml-key"] == {"a": 1, "b": ["x"]}


@pytest.mark.parametrize(
    ("fn", "change", "want", "reason"),
    [
        pytest.param(
            "success",
            {"context_values": [("k", "{")]},
            'cannot render composite resource: cannot unmarshal YAML/JSON for context key "k"',
            "a broken JSON value: parsed inside Render, so a render error",
            id="InvalidContextValue",
        ),
        pytest.param(
            "success",
            {"context_values": [("k", "a:\n b: 1\n  c: 2")]},
            'cannot unmarshal YAML/JSON for context key "k"',
            "badly indented YAML",
            id="InvalidYAMLContextValue",
        ),
        pytest.param(
            "fatal",
            {},
            'cannot render composite resource: pipeline step "test" returned a fatal result: oh no',
            "a fatal result fails the render",
            id="FatalResult",
        ),
    ],
)
def test_render_errors(tmp_path: Path, fn: str, change: dict[str, Any], want: str, reason: str) -> None:
    req = _write(tmp_path, fn)
    req = render.Request(**{**req.__dict__, **change})
    with pytest.raises(errors.CrossfnError) as info:
        render.render(req, output=render.CLASSIC)
    assert want in str(info.value), reason


def test_invalid_input(tmp_path: Path) -> None:
    req = _write(
        tmp_path, "success", step={"step": "test", "functionRef": {"name": "function-test"}, "input": "{"}
    )
    with pytest.raises(
        errors.CrossfnError, match='cannot unmarshal input for Composition pipeline step "test"'
    ):
        render.render(req, output=render.CLASSIC)


def test_unknown_runtime(tmp_path: Path) -> None:
    req = _write(tmp_path, "success", annotations={"render.crossplane.io/runtime": "wat"})
    with pytest.raises(errors.InputError) as info:
        render.render(req, output=render.CLASSIC)
    assert str(info.value) == (
        'cannot render composite resource: cannot get runtime for Function "function-test": '
        'unsupported "render.crossplane.io/runtime" annotation value "wat" (unknown runtime)'
    )


def test_unknown_function(tmp_path: Path) -> None:
    req = _write(tmp_path, "success", function_name="function-other")
    with pytest.raises(errors.CrossfnError) as info:
        render.render(req, output=render.CLASSIC)
    assert str(info.value) == (
        'cannot render composite resource: cannot run pipeline step "test": '
        'unknown Function "function-test" - does it exist in your Functions file?'
    )


async def test_render_async_in_a_running_loop(tmp_path: Path) -> None:
    """Callers with their own event loop use render_async; the output is the same."""
    req = _write(tmp_path, "success")
    docs = await render.render_async(req, output=render.CLASSIC)
    assert render.output.yaml_stream(docs) == (_GOLDEN / "Success.yaml").read_text()
