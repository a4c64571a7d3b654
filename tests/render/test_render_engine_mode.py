"""Default render: one reconcile of the XR controller, printed as ``crossplane render xr`` prints it
(upstream core-3.8, core-3.9).

The golden cases are classic render's TestRender cases (``test_render_classic.py``)
rendered in the default mode, so the two golden sets show the differences:
real names, owner references with the synthetic uid, ``Responsive`` and
``Synced``, ``spec.crossplane.resourceRefs``, events as results. The rest are
table tests of each step of upstream core-3.8 and of the CLI's printing.
Regenerate golden files with ``CROSSFN_UPDATE_GOLDEN=1 pytest tests/render``.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml

from crossfn import cli, engine, errors, render
from crossfn.render import _engine_mode

_HERE = Path(__file__).parent
_GOLDEN = _HERE / "golden" / "engine"
_UPDATE = os.environ.get("CROSSFN_UPDATE_GOLDEN") == "1"

_XR: dict[str, Any] = {
    "apiVersion": "nop.example.org/v1alpha1",
    "kind": "XNopResource",
    "metadata": {"name": "test-render"},
    "spec": {"coolField": "I'm cool!"},
}
_COMP_NAME = "xnopresources.nop.example.org"


def _write(tmp: Path, fn: str, *, xr: dict[str, Any] | None = None, pipeline: list[dict[str, Any]] | None = None,
           observed: list[dict[str, Any]] | None = None, xrd: dict[str, Any] | None = None,
           **flags: Any) -> render.Request:  # fmt: skip
    shutil.copy(_HERE / "testdata" / "crossfn_render_testfns.py", tmp / "crossfn_render_testfns.py")
    (tmp / "xr.yaml").write_text(yaml.safe_dump(xr or _XR))
    comp = {
        "apiVersion": "apiextensions.crossplane.io/v1",
        "kind": "Composition",
        "metadata": {"name": _COMP_NAME},
        "spec": {
            "compositeTypeRef": {"apiVersion": "nop.example.org/v1alpha1", "kind": "XNopResource"},
            "mode": "Pipeline",
            "pipeline": [{"step": "test", "functionRef": {"name": "function-test"}}]
            if pipeline is None
            else pipeline,
        },
    }
    (tmp / "composition.yaml").write_text(yaml.safe_dump(comp))
    fn_doc = {
        "apiVersion": "pkg.crossplane.io/v1",
        "kind": "Function",
        "metadata": {
            "name": "function-test",
            "annotations": {
                "render.crossplane.io/runtime": "InProcess",
                "render.crossfn.io/runtime-inprocess-object": f"crossfn_render_testfns:{fn}",
            },
        },
        "spec": {"package": "xpkg.crossplane.io/crossplane-contrib/function-test:v0.1.0"},
    }
    (tmp / "functions.yaml").write_text(yaml.safe_dump(fn_doc))
    if observed is not None:
        (tmp / "observed.yaml").write_text(yaml.safe_dump_all(observed))
        flags["observed_resources"] = tmp / "observed.yaml"
    if xrd is not None:
        (tmp / "xrd.yaml").write_text(yaml.safe_dump(xrd))
        flags["xrd"] = tmp / "xrd.yaml"
    return render.Request(
        composite_resource=tmp / "xr.yaml", composition=tmp / "composition.yaml", functions=tmp / "functions.yaml",
        **flags,
    )  # fmt: skip


def _check_golden(name: str, got: str) -> None:
    path = _GOLDEN / f"{name}.yaml"
    if _UPDATE:
        path.parent.mkdir(exist_ok=True)
        path.write_text(got)
    assert got == path.read_text(), f"output differs from {path}; regenerate with CROSSFN_UPDATE_GOLDEN=1"


@pytest.mark.parametrize(
    ("fn", "flags", "reason"),
    [
        pytest.param("success", {}, "real names, owner refs with the uid, Responsive/Synced/Ready", id="Success"),
        pytest.param("success_ready", {}, "all ready: Available; the function's Ready=False is replaced", id="SuccessReady"),
        pytest.param(
            "success", {"include_function_results": True},
            "-r prints the events: selection, the step's result with its detail, not-ready resources",
            id="SuccessWithResults",
        ),
        pytest.param("success", {"include_full_xr": True}, "-x merges the output XR over the input XR", id="SuccessFullXR"),
        pytest.param("composite_ready_false_with_unready", {}, "FALSE with unready: Creating, no message",
                     id="CompositeReadyFalseWithUnreadyResources"),
        pytest.param("composite_ready_true_with_unready", {}, "TRUE overrides unready resources",
                     id="CompositeReadyTrueWithUnreadyResources"),
        pytest.param("composite_ready_false", {}, "FALSE with all ready: Creating", id="CompositeReadyFalse"),
    ],
)  # fmt: skip
def test_render_golden(tmp_path: Path, fn: str, flags: dict[str, Any], reason: str) -> None:
    got = render.output.yaml_stream(render.render(_write(tmp_path, fn, **flags)))
    _check_golden(fn if not flags else f"{fn}-{'-'.join(flags)}", got)


def test_empty_pipeline(tmp_path: Path) -> None:
    """TestRender/EmptyPipeline (upstream core-3.8): the XR as the reconciler wrote it, and one event."""
    docs = render.render(_write(tmp_path, "success", pipeline=[], include_function_results=True))
    t = _engine_mode.FIXED_TIME
    assert docs == [
        {
            "apiVersion": "nop.example.org/v1alpha1",
            "kind": "XNopResource",
            "metadata": {"name": "test-render"},
            "spec": {"crossplane": {"resourceRefs": []}},
            "status": {
                "conditions": [
                    {
                        "type": "Responsive",
                        "status": "True",
                        "reason": "WatchCircuitClosed",
                        "lastTransitionTime": t,
                    },
                    {
                        "type": "Synced",
                        "status": "True",
                        "reason": "ReconcileSuccess",
                        "lastTransitionTime": t,
                    },
                    {"type": "Ready", "status": "True", "reason": "Available", "lastTransitionTime": t},
                ]
            },
        },
        {
            "apiVersion": "render.crossplane.io/v1beta1",
            "kind": "Result",
            "message": f"Successfully selected composition: {_COMP_NAME}",
            "reason": "SelectComposition",
            "severity": "Normal",
        },
    ]


def test_results_are_events(tmp_path: Path) -> None:
    """upstream core-3.6 engine Result documents: every event, in
    order, with reason and the event type as severity."""
    docs = render.render(_write(tmp_path, "success", include_function_results=True))
    results = [(d["severity"], d["reason"], d["message"]) for d in docs if d["kind"] == "Result"]
    assert results == [
        ("Normal", "SelectComposition", f"Successfully selected composition: {_COMP_NAME}"),
        ("Normal", "ComposeResources", 'Pipeline step "test": Provisioned successfully'),
        ("Normal", "ComposeResources", 'Composed resource "a-cool-resource" is not yet ready'),
        ("Normal", "ComposeResources", 'Composed resource "b-cool-resource" is not yet ready'),
    ]


def test_composed_names_and_owner(tmp_path: Path) -> None:
    """Composed resources get ChildName names from the synthetic uid, sorted by resource name
    (upstream core-2.10, core-3.9)."""
    docs = render.render(_write(tmp_path, "success"))
    uid = _engine_mode.synthetic_uid(_XR)
    composed = docs[1:]
    assert [d["metadata"]["annotations"]["crossplane.io/composition-resource-name"] for d in composed] == [
        "a-cool-resource", "b-cool-resource",
    ]  # fmt: skip
    assert [d["metadata"]["name"] for d in composed] == [
        engine.child_name("test-render-", uid, "a-cool-resource"),
        engine.child_name("test-render-", uid, "b-cool-resource"),
    ]
    assert all(d["metadata"]["ownerReferences"][0]["uid"] == uid for d in composed)
    refs = docs[0]["spec"]["crossplane"]["resourceRefs"]
    assert [r["name"] for r in refs] == [d["metadata"]["name"] for d in reversed(composed)], (
        "sorted by apiVersion"
    )


def test_xr_uid_is_kept(tmp_path: Path) -> None:
    """HEAD keeps an XR's own uid (v2.3.0 always overwrote it)."""
    xr = {**_XR, "metadata": {"name": "test-render", "uid": "75e4a668-035f-4ce8-8c45-f4d3ac850155"}}
    docs = render.render(_write(tmp_path, "success", xr=xr))
    assert docs[1]["metadata"]["ownerReferences"][0]["uid"] == "75e4a668-035f-4ce8-8c45-f4d3ac850155"
    assert "uid" not in docs[0]["metadata"], "the XR printed is the resource-refs patch plus the status"


def test_function_sees_the_reconciled_xr(tmp_path: Path) -> None:
    """The observed XR carries what the reconciler set before composing: uid, resourceVersion, label, ref."""
    docs = render.render(_write(tmp_path, "echo_whole_xr"))
    seen = docs[0]["status"]["seen"]
    assert seen["metadata"]["uid"] == _engine_mode.synthetic_uid(_XR)
    assert seen["metadata"]["resourceVersion"] == "999"
    assert seen["metadata"]["labels"] == {"crossplane.io/composite": "test-render"}
    assert seen["spec"]["crossplane"]["compositionRef"] == {"name": _COMP_NAME}


def _owned(name: str, key: str, uid: str | None, **meta: Any) -> dict[str, Any]:
    owners = [{"apiVersion": "nop.example.org/v1alpha1", "kind": "XNopResource", "name": "test-render",
               "uid": uid, "controller": True}] if uid is not None else []  # fmt: skip
    return {
        "apiVersion": "example.org/v1",
        "kind": "Thing",
        "metadata": {"name": name, "annotations": {"crossplane.io/composition-resource-name": key},
                     "ownerReferences": owners, **meta},
    }  # fmt: skip


def test_garbage_collection(tmp_path: Path) -> None:
    """An observed, undesired resource the XR controls is deleted (not printed); one without a controller stays."""
    uid = _engine_mode.synthetic_uid(_XR)
    observed = [_owned("old", "old", uid), _owned("orphan", "orphan", None)]
    req = _write(tmp_path, "success", observed=observed)
    inputs = render.load(req)
    recorded = _reconcile(inputs)
    assert [d["metadata"]["name"] for d in recorded.deleted] == ["old"]
    assert "crossplane.io/composite" not in (recorded.deleted[0]["metadata"].get("labels") or {})
    docs = render.render(req)
    assert "old" not in [d["metadata"]["name"] for d in docs[1:]]


def _reconcile(inputs: render.Inputs) -> _engine_mode.Recorded:
    import asyncio

    from crossfn.render import _render, _runtimes

    async def run() -> _engine_mode.Recorded:
        started = _runtimes.Started(_runtimes.plan(inputs.functions), cwd=inputs.functions_dir)
        await started.start(asyncio.get_running_loop().time() + 10)
        try:
            return await _engine_mode.reconcile(
                inputs, _render._transport(started, None, unknown=_engine_mode.CURRENT.unknown_function)
            )
        finally:
            await started.stop()

    return asyncio.run(run())


@pytest.mark.parametrize(
    ("observed", "xr", "want", "reason"),
    [
        pytest.param(
            [_owned("a", "a", "someone-else")], _XR,
            "invalid observed resources: observed resource a has a controller ref but is not controlled by the XR",
            "another controller", id="OtherController",
        ),
        pytest.param(
            [_owned("a", "a", None, namespace="other")], {**_XR, "metadata": {"name": "test-render", "namespace": "ns"}},
            "invalid observed resources: observed resource a is not in the same namespace as the XR",
            "a namespaced XR's resources live in its namespace", id="OtherNamespace",
        ),
        pytest.param(
            [_owned("a", "a", "x"), _owned("b", "b", None)], {**_XR, "metadata": {"name": "test-render", "namespace": "ns"}},
            "invalid observed resources: [observed resource a has a controller ref but is not controlled by the XR, "
            "observed resource a is not in the same namespace as the XR, "
            "observed resource b is not in the same namespace as the XR]",
            "every problem, as Kubernetes aggregates errors", id="Aggregated",
        ),
        pytest.param(
            [_owned("a", "a", "x"), _owned("a", "a", "x2")], _XR,
            "invalid observed resources: observed resource a has a controller ref but is not controlled by the XR",
            "the same text twice is said once", id="Deduplicated",
        ),
    ],
)  # fmt: skip
def test_observed_checked(
    tmp_path: Path, observed: list[dict[str, Any]], xr: dict[str, Any], want: str, reason: str
) -> None:
    with pytest.raises(errors.InputError) as info:
        render.render(_write(tmp_path, "success", xr=xr, observed=observed))
    assert str(info.value) == f"cannot render composite resource: {want}", reason


def test_fatal_prints_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A fatal result fails the render: no stdout, one error line, exit status 1 (as crossplane render xr)."""
    req = _write(tmp_path, "fatal")
    argv = ["render", str(req.composite_resource), str(req.composition), str(req.functions), "-r"]
    assert cli.main(argv) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        "crossfn: error: cannot render composite resource: cannot compose resources: "
        'pipeline step "test" returned a fatal result: oh no\n'
    )


def test_partial_output_after_fatal(tmp_path: Path) -> None:
    """The reconcile's partial output (events, requirements) stays available to Python callers."""
    recorded = _reconcile(render.load(_write(tmp_path, "fatal")))
    assert isinstance(recorded.error, errors.CrossfnError)
    assert recorded.result is not None and recorded.result.fatal is not None
    assert [e.reason for e in recorded.events] == ["SelectComposition", "ComposeResources"]
    assert recorded.composed == []


def test_paused(tmp_path: Path) -> None:
    xr = {**_XR, "metadata": {"name": "test-render", "annotations": {"crossplane.io/paused": "true"}}}
    docs = render.render(_write(tmp_path, "success", xr=xr, include_function_results=True))
    assert [c["type"] for c in docs[0]["status"]["conditions"]] == ["Responsive", "Synced"]
    assert docs[0]["status"]["conditions"][1]["reason"] == "ReconcilePaused"
    assert docs[-1]["reason"] == "ReconciliationPaused"
    assert len(docs) == 2, "nothing composed"


def test_legacy_xrd(tmp_path: Path) -> None:
    """A v1 XRD without a scope makes the XR Legacy: refs at spec.resourceRefs (upstream core-3.8 step 1)."""
    xrd = {
        "apiVersion": "apiextensions.crossplane.io/v1",
        "kind": "CompositeResourceDefinition",
        "metadata": {"name": "xnopresources.nop.example.org"},
        "spec": {
            "group": "nop.example.org",
            "names": {"kind": "XNopResource", "plural": "xnopresources"},
            "versions": [{"name": "v1alpha1", "served": True, "referenceable": True,
                          "schema": {"openAPIV3Schema": {"type": "object"}}}],
        },
    }  # fmt: skip
    docs = render.render(_write(tmp_path, "success", xrd=xrd))
    assert [r["name"] for r in docs[0]["spec"]["resourceRefs"]] == [
        d["metadata"]["name"] for d in reversed(docs[1:])
    ]
    assert "crossplane" not in docs[0]["spec"]


def _xrd(
    api: str, scope: str | None, group: str = "nop.example.org", kind: str = "XNopResource"
) -> dict[str, Any]:
    spec: dict[str, Any] = {"group": group, "names": {"kind": kind}}
    if scope is not None:
        spec["scope"] = scope
    return {"apiVersion": f"apiextensions.crossplane.io/{api}", "metadata": {"name": "x"}, "spec": spec}


@pytest.mark.parametrize(
    ("xrd", "want"),
    [
        pytest.param(None, "Modern", id="NoXRD"),
        pytest.param(_xrd("v1", None), "Legacy", id="V1DefaultScope"),
        pytest.param(_xrd("v1", "LegacyCluster"), "Legacy", id="V1LegacyCluster"),
        pytest.param(_xrd("v1", "Cluster"), "Modern", id="V1Cluster"),
        pytest.param(_xrd("v1", "Namespaced"), "Modern", id="V1Namespaced"),
        pytest.param(_xrd("v2", None), "Modern", id="V2DefaultScope"),
        pytest.param(_xrd("v2", "LegacyCluster"), "Legacy", id="V2LegacyCluster"),
        pytest.param(_xrd("v2", "Cluster"), "Modern", id="V2Cluster"),
        pytest.param(_xrd("v2", "Namespaced"), "Modern", id="V2Namespaced"),
    ],
)
def test_select_schema(xrd: dict[str, Any] | None, want: str) -> None:
    assert _engine_mode.select_schema(xrd, _XR).value == want


@pytest.mark.parametrize(
    ("xrd", "want"),
    [
        pytest.param(
            _xrd("v2", None, group="other.org"),
            'CompositeResourceDefinition "x" (composite Group=other.org Kind=XNopResource) does not match '
            "the input XR's Group=nop.example.org Kind=XNopResource",
            id="GroupMismatch",
        ),
        pytest.param(
            _xrd("v2", None, kind="XOther"),
            'CompositeResourceDefinition "x" (composite Group=nop.example.org Kind=XOther) does not match '
            "the input XR's Group=nop.example.org Kind=XNopResource",
            id="KindMismatch",
        ),
        pytest.param(
            {**_xrd("v2", None), "apiVersion": "apiextensions.crossplane.io/v3"},
            'unknown CompositeResourceDefinition apiVersion "apiextensions.crossplane.io/v3"',
            id="UnknownAPIVersion",
        ),
    ],
)
def test_select_schema_errors(xrd: dict[str, Any], want: str) -> None:
    with pytest.raises(errors.InputError) as info:
        _engine_mode.select_schema(xrd, _XR)
    assert str(info.value) == want


def _go_new_sha1(data: bytes) -> str:
    """Go's uuid.NewSHA1(uuid.Nil, data), step by step: SHA-1 of the nil space and data, version 5, RFC variant."""
    b = bytearray(hashlib.sha1(bytes(16) + data).digest()[:16])
    b[6] = (b[6] & 0x0F) | 0x50
    b[8] = (b[8] & 0x3F) | 0x80
    return str(uuid.UUID(bytes=bytes(b)))


@pytest.mark.parametrize(
    ("xr", "data"),
    [
        pytest.param(_XR, b"nop.example.org/v1alpha1, Kind=XNopResource\x00\x00test-render", id="Cluster"),
        pytest.param(
            {"apiVersion": "example.org/v1", "kind": "XApp", "metadata": {"name": "web", "namespace": "team"}},
            b"example.org/v1, Kind=XApp\x00team\x00web", id="Namespaced",
        ),
        pytest.param({"apiVersion": "v1", "kind": "X", "metadata": {"name": "n"}}, b"/v1, Kind=X\x00\x00n", id="CoreGroup"),
    ],
)  # fmt: skip
def test_synthetic_uid(xr: dict[str, Any], data: bytes) -> None:
    assert _engine_mode.synthetic_uid(xr) == _go_new_sha1(data)


def test_synthetic_uid_vector() -> None:
    xr = {"apiVersion": "example.org/v1alpha1", "kind": "XBucket", "metadata": {"name": "my-bucket"}}
    assert _engine_mode.synthetic_uid(xr) == "f70ef0ce-2b73-5b7b-a497-0ba62f7c6f04"


@pytest.mark.parametrize(
    ("xr", "observed", "schema", "want"),
    [
        pytest.param(
            {"metadata": {"name": "x"}, "spec": {"crossplane": {"resourceRefs": [{"name": "stale"}]}}},
            [{"apiVersion": "a/v1", "kind": "K", "metadata": {"name": "n", "namespace": "ns"}}], "Modern",
            {"metadata": {"name": "x"}, "spec": {"crossplane": {"resourceRefs": [
                {"apiVersion": "a/v1", "kind": "K", "name": "n", "namespace": "ns"}]}}},
            id="ClusterXRReplacesRefsWithNamespace",
        ),
        pytest.param(
            {"metadata": {"name": "x", "namespace": "ns"}},
            [{"apiVersion": "a/v1", "kind": "K", "metadata": {"name": "n", "namespace": "ns"}}], "Modern",
            {"metadata": {"name": "x", "namespace": "ns"}, "spec": {"crossplane": {"resourceRefs": [
                {"apiVersion": "a/v1", "kind": "K", "name": "n"}]}}},
            id="NamespacedXRRefsHaveNoNamespace",
        ),
        pytest.param(
            {"metadata": {"name": "x"}}, [{"apiVersion": "a/v1", "kind": "K", "metadata": {"name": "n"}}], "Legacy",
            {"metadata": {"name": "x"}, "spec": {"resourceRefs": [{"apiVersion": "a/v1", "kind": "K", "name": "n"}]}},
            id="Legacy",
        ),
        pytest.param(
            {"metadata": {"name": "x"}, "spec": {"crossplane": {"resourceRefs": [{"name": "kept"}]}}}, [], "Modern",
            {"metadata": {"name": "x"}, "spec": {"crossplane": {"resourceRefs": [{"name": "kept"}]}}},
            id="NothingObservedKeepsRefs",
        ),
    ],
)  # fmt: skip
def test_inject_refs(
    xr: dict[str, Any], observed: list[dict[str, Any]], schema: str, want: dict[str, Any]
) -> None:
    _engine_mode.inject_refs(xr, observed, engine.CompositeSchema(schema))
    assert xr == want


_T = _engine_mode.FIXED_TIME


@pytest.mark.parametrize(
    ("obj", "want", "reason"),
    [
        pytest.param(
            {"status": {"conditions": [{"type": "A", "status": "True", "reason": "R", "message": "",
                                        "lastTransitionTime": "2026-11-26T03:00:00Z", "extra": 1}]}},
            {"status": {"conditions": [{"type": "A", "status": "True", "reason": "R", "lastTransitionTime": _T}]}},
            "the time is fixed; unknown keys and an empty message are dropped, as Go's typed Condition",
            id="Typed",
        ),
        pytest.param(
            {"status": {"conditions": [{"type": "A", "status": "True"}]}},
            {"status": {"conditions": [{"type": "A", "status": "True", "reason": "", "lastTransitionTime": _T}]}},
            "a condition without a time or reason gets both", id="Missing",
        ),
        pytest.param(
            {"status": {"conditions": [{"type": "A", "status": "True", "reason": "R", "observedGeneration": 3,
                                        "lastTransitionTime": "2026-11-26T03:00:00Z"}]}},
            {"status": {"conditions": [{"type": "A", "status": "True", "reason": "R", "observedGeneration": 3,
                                        "lastTransitionTime": _T}]}},
            "the observed generation stays", id="Generation",
        ),
        pytest.param({"status": {"phase": "x"}}, {"status": {"phase": "x", "conditions": None}},
                     "a status without conditions gets Go's nil list", id="NoConditions"),
        pytest.param({"spec": {}}, {"spec": {}}, "no status: untouched", id="NoStatus"),
        pytest.param(
            {"status": {"conditions": [{"type": 1}]}}, {"status": {"conditions": [{"type": 1}]}},
            "conditions that do not decode are left alone", id="Undecodable",
        ),
        pytest.param(
            {"status": {"conditions": [{"type": "A", "lastTransitionTime": "yesterday"}]}},
            {"status": {"conditions": [{"type": "A", "lastTransitionTime": "yesterday"}]}},
            "a time metav1.Time cannot parse is left alone", id="BadTime",
        ),
    ],
)  # fmt: skip
def test_normalise_condition_times(obj: dict[str, Any], want: dict[str, Any], reason: str) -> None:
    _engine_mode.normalise_condition_times(obj)
    assert obj == want, reason


@pytest.mark.parametrize(
    ("into", "src", "want"),
    [
        pytest.param({"spec": {"a": 1, "b": 2}}, {"spec": {"b": 3}}, {"spec": {"a": 1, "b": 3}}, id="MapsMerge"),
        pytest.param({"spec": {"l": [1, 2]}}, {"spec": {"l": []}}, {"spec": {"l": []}}, id="ListsReplace"),
        pytest.param({"spec": {"s": "x"}}, {"spec": {"s": None}}, {"spec": {"s": None}}, id="NullOverrides"),
        pytest.param({"spec": "x"}, {"spec": {"a": 1}}, {"spec": {"a": 1}}, id="MapReplacesScalar"),
        pytest.param({"metadata": {"uid": "u"}}, {"status": {"c": 1}}, {"metadata": {"uid": "u"}, "status": {"c": 1}},
                     id="NewKeys"),
    ],
)  # fmt: skip
def test_merge_full_xr(into: dict[str, Any], src: dict[str, Any], want: dict[str, Any]) -> None:
    assert _engine_mode.merge_full_xr(into, src) == want


def test_context_is_captured(tmp_path: Path) -> None:
    """-c prints the final context, as the CLI's capture step records it."""
    req = _write(tmp_path, "echo_context", context_values=[("k", '{"a": 1}')], include_context=True)
    docs = render.render(req)
    assert docs[-1] == {
        "apiVersion": "render.crossplane.io/v1beta1",
        "kind": "Context",
        "fields": {"k": {"a": 1}},
    }


def test_classic_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--classic prints classic render's output, byte for byte its golden file."""
    req = _write(tmp_path, "success")
    argv = ["render", str(req.composite_resource), str(req.composition), str(req.functions), "--classic"]
    assert cli.main(argv) == 0
    assert capsys.readouterr().out == (_HERE / "golden" / "Success.yaml").read_text()


def test_observed_details_from_stored_secrets(tmp_path: Path) -> None:
    """An observed resource's connection Secret may be any Secret the engine stores, a credential too
    (upstream core-2.16, core-3.8 step 7)."""
    thing = _owned("db", "db", None)
    thing["spec"] = {"writeConnectionSecretToRef": {"name": "db-conn", "namespace": "crossplane-system"}}
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "db-conn", "namespace": "crossplane-system"},
              "data": {"password": "czNjcjN0"}}  # fmt: skip
    (tmp_path / "creds.yaml").write_text(yaml.safe_dump(secret))
    req = _write(
        tmp_path, "echo_observed_details", observed=[thing], function_credentials=tmp_path / "creds.yaml"
    )
    docs = render.render(req)
    assert docs[0]["status"]["details"] == {"db": {"password": "s3cr3t"}}


def test_required_resources_recorded_after_fatal(tmp_path: Path) -> None:
    """upstream core-3.8: every fetch is recorded as its selector, and the record survives a fatal result
    (exit code 3's purpose)."""
    step = {"step": "test", "functionRef": {"name": "function-test"},
            "requirements": {"requiredResources": [{"requirementName": "cm", "apiVersion": "v1", "kind": "ConfigMap",
                                                    "name": "settings", "namespace": "default"}]}}  # fmt: skip
    recorded = _reconcile(render.load(_write(tmp_path, "fatal", pipeline=[step])))
    assert recorded.error is not None
    assert recorded.required_resources == [
        {"apiVersion": "v1", "kind": "ConfigMap", "matchName": "settings", "namespace": "default"}
    ]


def test_required_resources_recorded(tmp_path: Path) -> None:
    """with_resources asks for a Foo by name; one fetch answers it (the second call only confirms)."""
    (tmp_path / "extra.yaml").write_text(
        "apiVersion: test.crossplane.io/v1\nkind: Foo\nmetadata:\n  name: extra-resource\nspec:\n  widgets: 42\n"
    )
    req = _write(tmp_path, "with_resources", required_resources=[tmp_path / "extra.yaml"])
    recorded = _reconcile(render.load(req))
    assert recorded.composite["status"]["widgets"] == 42
    assert recorded.required_resources == [
        {"apiVersion": "test.crossplane.io/v1", "kind": "Foo", "matchName": "extra-resource"}
    ]


def test_unknown_function(tmp_path: Path) -> None:
    """A step naming a Function the file lacks fails with the engine runner's text."""
    req = _write(tmp_path, "success", pipeline=[{"step": "test", "functionRef": {"name": "function-other"}}])
    with pytest.raises(errors.CrossfnError) as info:
        render.render(req)
    assert str(info.value) == (
        'cannot render composite resource: cannot compose resources: cannot run Composition pipeline step "test": '
        'unknown function "function-other" - is it listed in the render input?'
    )


def test_namespace_overridden(tmp_path: Path) -> None:
    """A namespaced XR's resource asked for elsewhere is composed in the XR's namespace, with a warning
    (upstream core-2.10 step 4)."""
    xr = {**_XR, "metadata": {"name": "test-render", "namespace": "team"}}
    docs = render.render(_write(tmp_path, "elsewhere_for_claim", xr=xr, include_function_results=True))
    assert docs[1]["metadata"]["namespace"] == "team"
    results = [(d["severity"], d["reason"], d["message"]) for d in docs if d["kind"] == "Result"]
    assert results == [
        ("Normal", "SelectComposition", f"Successfully selected composition: {_COMP_NAME}"),
        ("Warning", "Look", 'Pipeline step "test": look'),
        ("Warning", "NamespaceOverridden",
         'cannot create composed resource "a" in namespace "elsewhere", using XR namespace "team" instead'),
        ("Normal", "ComposeResources", 'Composed resource "a" is not yet ready'),
    ]  # fmt: skip


def test_legacy_claim_gets_its_copy(tmp_path: Path) -> None:
    """A legacy XR with a claim: a CompositeAndClaim result is recorded for the claim (bare) and the XR
    (upstream core-2.9)."""
    xr = {**_XR, "spec": {"claimRef": {"apiVersion": "nop.example.org/v1alpha1", "kind": "NopResource",
                                       "name": "claim", "namespace": "team"}},
          "metadata": {"name": "test-render", "labels": {"crossplane.io/claim-name": "claim",
                                                          "crossplane.io/claim-namespace": "team"}}}  # fmt: skip
    xrd = {**_xrd("v1", None), "kind": "CompositeResourceDefinition"}
    xrd["spec"]["versions"] = [{"name": "v1alpha1", "served": True, "referenceable": True,
                                "schema": {"openAPIV3Schema": {"type": "object"}}}]  # fmt: skip
    xrd["spec"]["names"]["plural"] = "xnopresources"
    docs = render.render(
        _write(tmp_path, "elsewhere_for_claim", xr=xr, xrd=xrd, include_function_results=True)
    )
    messages = [d["message"] for d in docs if d["kind"] == "Result" and d["reason"] == "Look"]
    assert messages == ["look", 'Pipeline step "test": look']
    assert docs[1]["metadata"]["labels"]["crossplane.io/claim-name"] == "claim"
