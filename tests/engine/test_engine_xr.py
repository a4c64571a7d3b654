"""The XR reconciler's steps around compose, shared by the controller and render's default mode
(upstream core-2.1 steps 2–4, 7, 10)."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from crossfn import engine

NOW = datetime.datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=datetime.UTC)
T = "2026-01-02T03:04:05Z"
RESPONSIVE = {"type": "Responsive", "status": "True", "reason": "WatchCircuitClosed", "lastTransitionTime": T}


def xr(
    annotations: dict[str, str] | None = None, status: dict[str, Any] | None = None, generation: object = None
) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": "x", "uid": "u-1"}
    if annotations is not None:
        meta["annotations"] = annotations
    if generation is not None:
        meta["generation"] = generation
    out: dict[str, Any] = {"apiVersion": "example.org/v1", "kind": "XR", "metadata": meta}
    if status is not None:
        out["status"] = status
    return out


@pytest.mark.parametrize(
    ("obj", "want", "reason"),
    [
        pytest.param(xr(), engine.Admission(conditions=(RESPONSIVE,), events=()), "Responsive only", id="Plain"),
        pytest.param(
            xr({"crossplane.io/paused": "true"}),
            engine.Admission(
                conditions=(RESPONSIVE, {"type": "Synced", "status": "False", "reason": "ReconcilePaused",
                                         "lastTransitionTime": T, "message": engine.PAUSED_MESSAGE}),
                events=(engine.Event("Normal", "ReconciliationPaused", "Reconciliation is paused via the pause annotation"),),
                paused=True,
            ),
            "paused: Synced False and an event, then stop", id="Paused",
        ),
        pytest.param(xr({"crossplane.io/paused": "false"}), engine.Admission(conditions=(RESPONSIVE,), events=()),
                     "only \"true\" pauses", id="PausedFalse"),
        pytest.param(
            xr({"crossplane.io/reconcile-requested-at": "t1"}),
            engine.Admission(conditions=(RESPONSIVE,),
                             events=(engine.Event("Normal", "ReconcileRequestHandled", "Handling reconcile request"),),
                             reconcile_request="t1"),
            "a new request is handled and noted", id="ReconcileRequest",
        ),
        pytest.param(xr({"crossplane.io/reconcile-requested-at": "t1"}, {"lastHandledReconcileAt": "t1"}),
                     engine.Admission(conditions=(RESPONSIVE,), events=()),
                     "a request already handled is not handled again", id="ReconcileRequestHandled"),
        pytest.param(xr(generation=3), engine.Admission(conditions=({**RESPONSIVE, "observedGeneration": 3},), events=()),
                     "conditions carry the generation", id="Generation"),
        pytest.param(xr(generation="3"), engine.Admission(conditions=(RESPONSIVE,), events=()),
                     "a generation that is not a number is none", id="GenerationNotANumber"),
    ],
)  # fmt: skip
def test_admit(obj: dict[str, Any], want: engine.Admission, reason: str) -> None:
    assert engine.admit(obj, now=NOW) == want, reason


def test_selection_event() -> None:
    assert engine.selection_event("c") == engine.Event(
        "Normal", "SelectComposition", "Successfully selected composition: c"
    )


@pytest.mark.parametrize(
    ("metadata", "want", "reason"),
    [
        pytest.param({"name": "x"}, {"crossplane.io/composite": "x"}, "the XR's name", id="NoLabels"),
        pytest.param({"name": "x", "labels": None}, {"crossplane.io/composite": "x"}, "null labels", id="NullLabels"),
        pytest.param({"name": "x", "labels": {"crossplane.io/composite": "y", "a": "b"}},
                     {"crossplane.io/composite": "y", "a": "b"}, "a set label is kept", id="Kept"),
        pytest.param({"name": "x", "labels": {"crossplane.io/composite": ""}}, {"crossplane.io/composite": "x"},
                     "an empty label is set", id="Empty"),
    ],
)  # fmt: skip
def test_label_composite(metadata: dict[str, Any], want: dict[str, str], reason: str) -> None:
    obj = {"metadata": metadata}
    engine.label_composite(obj)
    assert obj["metadata"]["labels"] == want, reason


@pytest.mark.parametrize(
    ("machinery", "spec", "legacy", "want", "reason"),
    [
        pytest.param({}, {"writeConnectionSecretsToNamespace": "ns"}, True,
                     {"writeConnectionSecretToRef": {"name": "u-1", "namespace": "ns"}}, "named after the uid", id="Legacy"),
        pytest.param({"writeConnectionSecretToRef": {"name": "s"}}, {"writeConnectionSecretsToNamespace": "ns"}, True,
                     {"writeConnectionSecretToRef": {"name": "s"}}, "a ref the XR has is kept", id="Kept"),
        pytest.param({}, {}, True, {}, "no namespace in the Composition, no Secret", id="NoNamespace"),
        pytest.param({}, {"writeConnectionSecretsToNamespace": "ns"}, False, {}, "modern XRs get none", id="Modern"),
    ],
)  # fmt: skip
def test_configure_connection_secret(
    machinery: dict[str, Any], spec: dict[str, Any], legacy: bool, want: dict[str, Any], reason: str
) -> None:
    obj = xr()
    engine.configure(obj, machinery, spec, legacy=legacy)
    assert machinery == want, reason
    assert obj["metadata"]["labels"] == {"crossplane.io/composite": "x"}, "the label, whatever the schema"


def test_set_object_condition() -> None:
    obj = xr()
    c = engine.object_condition(obj, "Synced", "True", "ReconcileSuccess", now=NOW)
    assert engine.set_object_condition(obj, c) is True, "a new type changes the object"
    later = engine.object_condition(
        obj, "Synced", "True", "ReconcileSuccess", now=NOW + datetime.timedelta(hours=1)
    )
    assert engine.set_object_condition(obj, later) is False, "an equal condition keeps its old time"
    assert obj["status"]["conditions"] == [c]
