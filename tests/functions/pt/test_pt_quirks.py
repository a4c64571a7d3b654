"""The upstream pt-9 quirks through whole runs: matched where
Go returns a result, a clear error where Go crashes."""

from __future__ import annotations

from typing import Any

import pytest
from ptcases import CD, XR, inp, run

RENDER = 'cannot render composed resource "bucket" "FromCompositeFieldPath" patch at index 0: '


def _run_one(
    base: dict[str, Any], patch: dict[str, Any], xr_spec: dict[str, Any], **extra: Any
) -> dict[str, Any]:
    return run(
        {
            "input": inp(resources=[{"name": "bucket", "base": base, "patches": [patch], **extra}]),
            "observed": {"composite": {"resource": {**XR, "spec": xr_spec}}},
        }
    )


@pytest.mark.parametrize(
    ("base", "patch", "xr_spec", "message"),
    [
        pytest.param(
            CD,
            {
                "fromFieldPath": "spec.r",
                "toFieldPath": "spec.r",
                "transforms": [{"type": "map", "map": {"US": "x"}}],
            },
            {"r": "US2"},
            RENDER
            + "transform at index 0 returned error: map transform could not resolve: key US2 is not found in map",
            id="TransformErrorChain",
        ),
        pytest.param(
            CD,
            {"fromFieldPath": "spec.r", "toFieldPath": "spec.l[*].x"},
            {"r": "v"},
            RENDER + "cannot expand ToFieldPath spec.l[*].x",
            id="WildcardWithNoMatchIsFatal",
        ),
        pytest.param(
            {**CD, "spec": {"l": {"*": {"x": 1}}}},
            {"fromFieldPath": "spec.r", "toFieldPath": "spec.l[*].x"},
            {"r": "v"},
            RENDER
            + 'cannot expand wildcards for segments: "spec.l[*].x": "spec.l": cannot expand a wildcard over an object with a field named "*"',
            id="WildcardOverStarKeyDivergence",
        ),
        pytest.param(
            {**CD, "spec": {"a": None}},
            {"fromFieldPath": "spec.r", "toFieldPath": "spec.a.b"},
            {"r": "v"},
            RENDER + "cannot patch to object: spec.a is not an object",
            id="WriteThroughNullFieldFails",
        ),
        pytest.param(
            CD,
            {
                "fromFieldPath": "spec.r",
                "toFieldPath": "spec.r",
                "transforms": [{"type": "convert", "convert": {"toType": "float64"}}],
            },
            {"r": "NaN"},
            RENDER + "cannot marshal value to JSON: json: unsupported value: NaN",
            id="NaNFailsOnWrite",
        ),
    ],
)
def test_fatal_quirks(
    base: dict[str, Any], patch: dict[str, Any], xr_spec: dict[str, Any], message: str
) -> None:
    """Errors Go reports as results, with Go's texts; the star-key case is crossfn's error
    (upstream pt-9 item 9)."""
    got = _run_one(base, patch, xr_spec)
    assert [r["message"] for r in got["results"]] == [message]
    assert got["results"][0]["severity"] == "SEVERITY_FATAL"


def test_match_condition_without_config_uses_crd_default() -> None:
    """upstream pt-9 item 7: Go panics; crossfn checks Ready=True, so a ready observed resource is ready."""
    got = run(
        {
            "input": inp(
                resources=[{"name": "bucket", "base": CD, "readinessChecks": [{"type": "MatchCondition"}]}]
            ),
            "observed": {
                "composite": {"resource": XR},
                "resources": {
                    "bucket": {
                        "resource": {**CD, "status": {"conditions": [{"type": "Ready", "status": "True"}]}}
                    }
                },
            },
        }
    )
    assert got["desired"]["resources"]["bucket"]["ready"] == "READY_TRUE"


def test_required_skip_keeps_earlier_desired_and_drops_ready_flags() -> None:
    """upstream pt-9 items 13 and 14: a Required skip leaves an
    earlier resource as it was; the XR's earlier ready is dropped."""
    got = run(
        {
            "input": inp(
                resources=[
                    {
                        "name": "bucket",
                        "base": CD,
                        "patches": [
                            {
                                "fromFieldPath": "spec.missing",
                                "toFieldPath": "spec.x",
                                "policy": {"fromFieldPath": "Required"},
                            }
                        ],
                    },
                    {"name": "other", "patches": []},
                ]
            ),
            "observed": {"composite": {"resource": XR}},
            "desired": {
                "composite": {"resource": XR, "ready": "READY_TRUE"},
                "resources": {
                    "bucket": {"resource": {**CD, "spec": {"earlier": True}}, "ready": "READY_TRUE"},
                    "other": {"resource": CD, "ready": "READY_TRUE"},
                },
            },
        }
    )
    assert got["desired"]["resources"]["bucket"] == {
        "resource": {**CD, "spec": {"earlier": True}},
        "ready": "READY_TRUE",
    }
    assert got["desired"]["resources"]["other"] == {"resource": CD}
    assert got["desired"]["composite"]["ready"] == "READY_FALSE"
    assert got["results"][0]["severity"] == "SEVERITY_WARNING"


def test_match_integer_on_observed_number_warns() -> None:
    """upstream pt-9 item 1: observed numbers are float64, so
    MatchInteger errors; the result is a Warning and not ready."""
    got = run(
        {
            "input": inp(
                resources=[
                    {
                        "name": "bucket",
                        "base": CD,
                        "readinessChecks": [
                            {"type": "MatchInteger", "fieldPath": "spec.n", "matchInteger": 5}
                        ],
                    }
                ]
            ),
            "observed": {
                "composite": {"resource": XR},
                "resources": {"bucket": {"resource": {**CD, "spec": {"n": 5}}}},
            },
        }
    )
    assert [r["message"] for r in got["results"]] == [
        'cannot check readiness of composed resource "bucket": cannot run readiness check at index 0: spec.n: not a (int64) number'
    ]
    assert "ready" not in got["desired"]["resources"]["bucket"]
