"""Conformance: ready_test.go ``TestIsReady`` (upstream pt-10.4) and the condition decoding rules of
upstream pt-7.4."""

from __future__ import annotations

from typing import Any

import pytest
from ptcases import inp

from crossfn import errors
from crossfn.functions.patch_and_transform import input as ptinput
from crossfn.functions.patch_and_transform import readiness


def _checks(*checks: dict[str, Any]) -> tuple[ptinput.ReadinessCheck, ...]:
    return (
        ptinput.decode(inp(resources=[{"name": "t", "readinessChecks": list(checks)}]))
        .resources[0]
        .readiness_checks
    )


def _ready(status: str) -> dict[str, Any]:
    return {"status": {"conditions": [{"type": "Ready", "status": status, "reason": "Available"}]}}


PARSE_ERR = (
    "cannot run readiness check at index 0: cannot parse path \"metadata..uid\": unexpected '.' at position 9"
)
UID = {"metadata": {"uid": "olala"}}


@pytest.mark.parametrize(
    ("obj", "checks", "want", "error"),
    [
        pytest.param(_ready("True"), [], True, None, id="NoCustomCheckReady"),
        pytest.param(_ready("False"), [], False, None, id="NoCustomCheckNotReady"),
        pytest.param(
            _ready("True"),
            [{"type": "MatchCondition", "matchCondition": {"type": "Ready", "status": "True"}}],
            True,
            None,
            id="MatchConditionReady",
        ),
        pytest.param(
            _ready("False"),
            [{"type": "MatchCondition", "matchCondition": {"type": "Ready", "status": "True"}}],
            False,
            None,
            id="MatchConditionNotReady",
        ),
        pytest.param({}, [{"type": "None"}], True, None, id="ExplictNone"),
        pytest.param(
            {}, [{"type": "NonEmpty", "fieldPath": "metadata..uid"}], None, PARSE_ERR, id="NonEmptyErr"
        ),
        pytest.param(
            {}, [{"type": "NonEmpty", "fieldPath": "metadata.uid"}], False, None, id="NonEmptyFalse"
        ),
        pytest.param(UID, [{"type": "NonEmpty", "fieldPath": "metadata.uid"}], True, None, id="NonEmptyTrue"),
        pytest.param(
            {},
            [{"type": "MatchString", "fieldPath": "metadata..uid", "matchString": "cool"}],
            None,
            PARSE_ERR,
            id="MatchStringErr",
        ),
        pytest.param(
            {},
            [{"type": "MatchString", "fieldPath": "metadata.uid", "matchString": "olala"}],
            False,
            None,
            id="MatchStringFalse",
        ),
        pytest.param(
            UID,
            [{"type": "MatchString", "fieldPath": "metadata.uid", "matchString": "olala"}],
            True,
            None,
            id="MatchStringTrue",
        ),
        pytest.param(
            {},
            [{"type": "MatchInteger", "fieldPath": "metadata..uid", "matchInteger": 42}],
            None,
            PARSE_ERR,
            id="MatchIntegerErr",
        ),
        pytest.param(
            {"spec": {"someNum": 6}},
            [{"type": "MatchInteger", "fieldPath": "spec.someNum", "matchInteger": 5}],
            False,
            None,
            id="MatchIntegerFalse",
        ),
        pytest.param(
            {"spec": {"someNum": 5}},
            [{"type": "MatchInteger", "fieldPath": "spec.someNum", "matchInteger": 5}],
            True,
            None,
            id="MatchIntegerTrue",
        ),
        pytest.param(
            {"spec": {}},
            [{"type": "MatchTrue", "fieldPath": "spec.someBool"}],
            False,
            None,
            id="MatchTrueMissing",
        ),
        pytest.param(
            {"spec": {"someBool": True}},
            [{"type": "MatchTrue", "fieldPath": "spec.someBool"}],
            True,
            None,
            id="MatchTrueReady",
        ),
        pytest.param(
            {"spec": {"someBool": False}},
            [{"type": "MatchTrue", "fieldPath": "spec.someBool"}],
            False,
            None,
            id="MatchTrueNotReady",
        ),
        pytest.param(
            {"spec": {}},
            [{"type": "MatchFalse", "fieldPath": "spec.someBool"}],
            False,
            None,
            id="MatchFalseMissing",
        ),
        pytest.param(
            {"spec": {"someBool": False}},
            [{"type": "MatchFalse", "fieldPath": "spec.someBool"}],
            True,
            None,
            id="MatchFalseReady",
        ),
        pytest.param(
            {"spec": {"someBool": True}},
            [{"type": "MatchFalse", "fieldPath": "spec.someBool"}],
            False,
            None,
            id="MatchFalseNotReady",
        ),
        pytest.param(
            {},
            [{"type": "Olala"}],
            None,
            'cannot run readiness check at index 0: invalid: type: Invalid value: "Olala": unknown readiness check type',
            id="UnknownType",
        ),
    ],
)
def test_is_ready(
    obj: dict[str, Any], checks: list[dict[str, Any]], want: bool | None, error: str | None
) -> None:
    """TestIsReady (the MatchInteger cases use a true int64, as the Go test does)."""
    if error is None:
        assert readiness.is_ready(obj, _checks(*checks)) is want
        return
    with pytest.raises(errors.CrossfnError) as e:
        readiness.is_ready(obj, _checks(*checks))
    assert str(e.value) == error


@pytest.mark.parametrize(
    ("obj", "checks", "want", "error"),
    [
        pytest.param(
            {"spec": {"someNum": 5.0}},
            [{"type": "MatchInteger", "fieldPath": "spec.someNum", "matchInteger": 5}],
            None,
            "cannot run readiness check at index 0: spec.someNum: not a (int64) number",
            id="MatchIntegerOnRequestFloatErrors",
        ),
        pytest.param(
            {"status": {}},
            [{"type": "MatchCondition", "matchCondition": {"type": "Synced", "status": "Unknown"}}],
            True,
            None,
            id="AbsentConditionIsUnknown",
        ),
        pytest.param(
            {},
            [{"type": "MatchCondition", "matchCondition": {"type": "Synced", "status": "Unknown"}}],
            False,
            None,
            id="NoStatusIsEmptyCondition",
        ),
        pytest.param(
            {
                "status": {
                    "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "yesterday"}]
                }
            },
            [],
            False,
            None,
            id="BadTransitionTimeFailsDecode",
        ),
        pytest.param(
            _ready("True"),
            [{"type": "MatchCondition"}],
            True,
            None,
            id="MissingMatchConditionDefaultsToReadyTrue",
        ),
        pytest.param(
            {"a": 1},
            [{"type": "NonEmpty", "fieldPath": "a"}, {"type": "MatchTrue", "fieldPath": "a"}],
            None,
            "cannot run readiness check at index 1: a: not a bool",
            id="SecondCheckErrorNamesIndex",
        ),
    ],
)
def test_is_ready_runtime_rules(
    obj: dict[str, Any], checks: list[dict[str, Any]], want: bool | None, error: str | None
) -> None:
    """upstream pt-7.4 rules beyond the upstream table; the missing-matchCondition case is our
    upstream pt-9 item 7 divergence."""
    if error is None:
        assert readiness.is_ready(obj, _checks(*checks)) is want
        return
    with pytest.raises(errors.CrossfnError) as e:
        readiness.is_ready(obj, _checks(*checks))
    assert str(e.value) == error
