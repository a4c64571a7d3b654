"""apimachinery's field.Error: the one implementation the API server's checks and function-patch-and-transform share."""

from __future__ import annotations

from typing import Any

import pytest

from crossfn.gocompat import field


@pytest.mark.parametrize(
    ("reason", "error", "want"),
    [
        pytest.param(
            "Required prints no value.",
            field.required("spec.a", "a is required"),
            "spec.a: Required value: a is required",
            id="Required",
        ),
        pytest.param(
            "A string value is %q.",
            field.invalid("a", 'x"\u00a0', "bad"),
            'a: Invalid value: "x\\"\\u00a0": bad',
            id="String",
        ),
        pytest.param(
            "A named string type prints as JSON.",
            field.invalid("type", field.Named("x<\u00a0"), "unknown"),
            'type: Invalid value: "x\\u003c\u00a0": unknown',
            id="Named",
        ),
        pytest.param(
            "A float is %v.",
            field.invalid("n", 1234567.5, "big"),
            "n: Invalid value: 1.2345675e+06: big",
            id="Float",
        ),
        pytest.param(
            "A bool is %v.", field.invalid("b", True, "no"), "b: Invalid value: true: no", id="Bool"
        ),
        pytest.param(
            "A list is %#v.",
            field.invalid("l", [1, "a", None], "no"),
            'l: Invalid value: []interface {}{1, "a", interface {}(nil)}: no',
            id="List",
        ),
        pytest.param(
            "Nil prints null.", field.invalid("x", None, "no"), "x: Invalid value: null: no", id="Nil"
        ),
        pytest.param(
            "Forbidden prints no value even when given one.",
            field.Error("x", field.ErrorType.FORBIDDEN, "not allowed", "v"),
            "x: Forbidden: not allowed",
            id="Forbidden",
        ),
    ],
)
def test_error_text(reason: str, error: field.Error, want: str) -> None:
    assert str(error) == want, reason


@pytest.mark.parametrize(
    ("path", "parent", "want"),
    [
        pytest.param("name", "resources[0]", "resources[0].name", id="Child"),
        pytest.param("[2]", "patches", "patches[2]", id="Index"),
        pytest.param("", "combine", "combine", id="Self"),
        pytest.param("name", "", "name", id="NoParent"),
    ],
)
def test_under(path: str, parent: str, want: str) -> None:
    err: Any = field.required(path).under(parent)
    assert err.path == want
