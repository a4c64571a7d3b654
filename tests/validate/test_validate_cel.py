"""x-kubernetes-validations: CEL rules with the API server's texts."""

from __future__ import annotations

import time
from typing import Any

import pytest

from crossfn import validate


def _schema(rules: list[dict[str, Any]], **spec_props: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "spec": {"type": "object", "properties": spec_props, "x-kubernetes-validations": rules},
        },
    }


_INT = {"type": "integer"}
_STR = {"type": "string"}


def _problems(spec: dict[str, Any], schema: dict[str, Any], **kw: Any) -> list[validate.Problem]:
    return validate.validate_object({"apiVersion": "x.io/v1", "kind": "X", "spec": spec}, schema, **kw)


@pytest.mark.parametrize(
    ("reason", "rule", "spec", "want"),
    [
        pytest.param(
            "A true rule passes.", {"rule": "self.min <= self.max"}, {"min": 1, "max": 2}, [], id="Pass"
        ),
        pytest.param(
            "A false rule prints its message with the schema type as the value.",
            {"rule": "self.min <= self.max", "message": "min must not exceed max"},
            {"min": 3, "max": 2},
            ['spec: Invalid value: "object": min must not exceed max'],
            id="Message",
        ),
        pytest.param(
            "Without a message the rule is named.",
            {"rule": "self.min <= self.max"},
            {"min": 3, "max": 2},
            ['spec: Invalid value: "object": failed rule: self.min <= self.max'],
            id="DefaultMessage",
        ),
        pytest.param(
            "messageExpression wins over message.",
            {
                "rule": "self.min <= self.max",
                "message": "static",
                "messageExpression": "'max is ' + string(self.max)",
            },
            {"min": 3, "max": 2},
            ['spec: Invalid value: "object": max is 2'],
            id="MessageExpression",
        ),
        pytest.param(
            "fieldPath extends the path.",
            {"rule": "self.min <= self.max", "message": "too big", "fieldPath": ".min"},
            {"min": 3, "max": 2},
            ['spec.min: Invalid value: "object": too big'],
            id="FieldPath",
        ),
        pytest.param(
            "reason picks the error type.",
            {"rule": "has(self.name)", "message": "name is needed", "reason": "FieldValueRequired"},
            {"min": 1},
            ["spec: Required value: name is needed"],
            id="ReasonRequired",
        ),
        pytest.param(
            "has() tests presence.",
            {"rule": "!has(self.name) || self.name.startsWith('x-')", "message": "bad prefix"},
            {"name": "y-1"},
            ['spec: Invalid value: "object": bad prefix'],
            id="HasMacro",
        ),
        pytest.param(
            "Kubernetes' string extensions are available.",
            {"rule": "self.name.lowerAscii() == self.name", "message": "lower case only"},
            {"name": "ABC"},
            ['spec: Invalid value: "object": lower case only'],
            id="LowerAscii",
        ),
        pytest.param(
            "number fields are doubles in CEL even when written as integers.",
            {"rule": "self.ratio + 0.5 > 1.0", "message": "ratio too small"},
            {"ratio": 0},
            ['spec: Invalid value: "object": ratio too small'],
            id="NumberIsDouble",
        ),
        pytest.param(
            "integer fields are ints in CEL even when written as whole floats.",
            {"rule": "self.min + 1 == 3"},
            {"min": 2.0},
            [],
            id="IntegerIsInt",
        ),
        pytest.param(
            "A whole float past int64 in an integer field stays a double (it raised ValueError: overflow).",
            {"rule": "self.min > 5"},
            {"min": 2.0**63},
            [],
            id="IntegerPastInt64",
        ),
        pytest.param(
            "A runtime error is reported with the rule.",
            {"rule": "self.nothing == 1"},
            {"min": 1},
            ['spec: Invalid value: "object": no such key: nothing evaluating rule: self.nothing == 1'],
            id="RuntimeError",
        ),
        pytest.param(
            "Operands of the wrong types are cel-go's runtime error.",
            {"rule": "self.name + 1 == 2"},
            {"name": "x"},
            ['spec: Invalid value: "object": no such overload evaluating rule: self.name + 1 == 2'],
            id="NoSuchOverload",
        ),
        pytest.param(
            "Division by zero is cel-go's runtime error.",
            {"rule": "self.min / 0 == 1"},
            {"min": 1},
            ['spec: Invalid value: "object": division by zero evaluating rule: self.min / 0 == 1'],
            id="DivisionByZero",
        ),
        pytest.param(
            "A rule that does not compile is an internal error.",
            {"rule": "self.min <="},
            {"min": 1},
            None,
            id="CompileError",
        ),
    ],
)
def test_rules(reason: str, rule: dict[str, Any], spec: dict[str, Any], want: list[str] | None) -> None:
    problems = _problems(spec, _schema([rule], min=_INT, max=_INT, name=_STR, ratio={"type": "number"}))
    assert all(p.origin is validate.Origin.CEL for p in problems), reason
    if want is None:
        assert [p.type for p in problems] == [validate.ErrorType.INTERNAL], reason
        assert "compilation failed" in problems[0].message
        return
    assert [p.message for p in problems] == want, reason


def test_rules_on_items_and_values() -> None:
    item = {
        "type": "object",
        "properties": {"n": _INT},
        "x-kubernetes-validations": [{"rule": "self.n > 0", "message": "positive"}],
    }
    schema = _schema(
        [], l={"type": "array", "items": item}, m={"type": "object", "additionalProperties": item}
    )
    problems = _problems({"l": [{"n": 1}, {"n": 0}], "m": {"a": {"n": -1}}}, schema)
    assert [p.message for p in problems] == [
        'spec.l[1]: Invalid value: "object": positive',
        'spec.m.a: Invalid value: "object": positive',
    ]


def test_rules_see_defaults_and_not_unknown_fields() -> None:
    schema = _schema(
        [{"rule": "self.size == 3 && !has(self.extra)", "message": "defaulted and pruned"}],
        size={"type": "integer", "default": 3},
    )
    problems = _problems({"extra": 1}, schema)
    assert [p.origin for p in problems] == [validate.Origin.SCHEMA], "only the unknown field is reported"


@pytest.mark.parametrize(
    ("reason", "old", "want"),
    [
        pytest.param("Transition rules are skipped without an old object.", None, [], id="NoOld"),
        pytest.param(
            "With an old object, oldSelf is bound.",
            {"apiVersion": "x.io/v1", "kind": "X", "spec": {"min": 5}},
            ['spec.min: Invalid value: "integer": may only grow'],
            id="WithOld",
        ),
        pytest.param(
            "An old object that grew less is fine.",
            {"apiVersion": "x.io/v1", "kind": "X", "spec": {"min": 1}},
            [],
            id="WithOldValid",
        ),
    ],
)
def test_transition_rules(reason: str, old: dict[str, Any] | None, want: list[str]) -> None:
    schema = _schema(
        [],
        min={
            "type": "integer",
            "x-kubernetes-validations": [{"rule": "self >= oldSelf", "message": "may only grow"}],
        },
    )
    problems = _problems({"min": 2}, schema, old=old)
    assert [p.message for p in problems] == want, reason


def test_rule_past_the_cost_limit_stops_validation() -> None:
    """A quadratic rule over 1,000 items ends at once with the API server's cost-limit error;
    no further rule of the object runs (it once took minutes)."""
    quadratic = {"rule": "self.l.all(x, self.l.all(y, x == y || x != y))"}
    later = {"rule": "self.l.size() < 0", "message": "never reached"}
    item = {"type": "object", "properties": {"n": _INT}, "x-kubernetes-validations": [later]}
    schema = _schema([quadratic, later], l={"type": "array", "items": _INT}, o=item)
    start = time.process_time()  # CPU seconds: a loaded machine does not stretch them as it does wall time
    problems = _problems({"l": list(range(1000)), "o": {"n": 1}}, schema)
    assert time.process_time() - start < 5
    assert [p.message for p in problems] == [
        "spec: Invalid value: \"object\": 'operation cancelled: actual cost limit exceeded': no further "
        "validation rules will be run due to call cost exceeds limit for rule: "
        "self.l.all(x, self.l.all(y, x == y || x != y))"
    ]


def test_rule_within_the_cost_limit_runs() -> None:
    """A linear rule over the same list is well under the limit."""
    schema = _schema(
        [{"rule": "self.l.all(x, x >= 0)", "message": "non-negative"}], l={"type": "array", "items": _INT}
    )
    assert _problems({"l": list(range(1000))}, schema) == []
