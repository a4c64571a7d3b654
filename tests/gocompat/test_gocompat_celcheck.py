"""gocompat.celcheck: cel-go's result type and check errors; gocompat.cel: cel-go's heterogeneous equality."""

from __future__ import annotations

from typing import Any

import pytest

from crossfn.gocompat import cel, celcheck

DECLS = celcheck.Declarations(
    variables={"m": "pkg.Msg", "s": "map(string, dyn)", "n": "int"},
    messages={
        "pkg.Msg": {
            "inner": "pkg.Msg",
            "items": "map(string, pkg.Msg)",
            "count": "int",
            "data": "map(string, bytes)",
        }
    },
)

# (expression, cel-go's type, why)
TYPES = [
    ("m.count == 1", "bool", "a comparison"),
    ("s.a.b", "dyn", "anything selected from a Struct"),
    ("m.inner.count", "int", "a message field's type"),
    ("m.items['x']", "pkg.Msg", "a map's value type"),
    ("m.data['x']", "bytes", "bytes values"),
    ("m", "pkg.Msg", "the message by its full name"),
    ("size(s)", "int", "a function's result"),
    ("[1, 2]", "list(int)", "a list literal"),
    ("{'a': 1}", "map(string, int)", "a map literal"),
    ("[1, 'a']", "list(dyn)", "mixed elements"),
    ("n + 1", "int", "arithmetic keeps the operands' type"),
    ("s.x + 1", "int", "a dyn operand takes the other's"),
    ("true ? 1 : 2", "int", "a ternary of one type"),
    ("true ? 1 : 'a'", "dyn", "otherwise dyn"),
    ("m.items.exists(k, k == 'a')", "bool", "a macro"),
    ("m.items.map(k, 1)", "list(int)", "map gives a list of its expression's type"),
    ("has(s.a)", "bool", "has()"),
    ("!n", "bool", "negation"),
    ("-n", "int", "minus"),
    ("'a'.startsWith('b')", "bool", "a member function"),
]


@pytest.mark.parametrize(("expression", "want", "why"), TYPES, ids=[t[0] for t in TYPES])
def test_types(expression: str, want: str, why: str) -> None:
    env = cel.environment()
    assert celcheck.check(expression, env.compile(expression), DECLS) == want, why


ERRORS = [
    ("m.nope", "ERROR: <input>:1:2: undefined field 'nope'\n | m.nope\n | .^", "at the dot"),
    (
        "x",
        "ERROR: <input>:1:1: undeclared reference to 'x' (in container '')\n | x\n | ^",
        "an unknown variable",
    ),
    (
        "frob(1)",
        "ERROR: <input>:1:5: undeclared reference to 'frob' (in container '')\n | frob(1)\n | ....^",
        "an unknown function, at its parenthesis",
    ),
    (
        "n.x",
        "ERROR: <input>:1:2: type 'int' does not support field selection\n | n.x\n | .^",
        "select on a scalar",
    ),
    (
        "m['inner']",
        "ERROR: <input>:1:2: found no matching overload for '_[_]' applied to '(pkg.Msg, string)'\n | m['inner']\n | .^",
        "index a message",
    ),
    (
        "x || m.no",
        "ERROR: <input>:1:1: undeclared reference to 'x' (in container '')\n | x || m.no\n | ^\n"
        "ERROR: <input>:1:7: undefined field 'no'\n | x || m.no\n | ......^",
        "every error, by position",
    ),
    (
        "1 == 1 &&\n 'é' == nope",
        "ERROR: <input>:2:9: undeclared reference to 'nope' (in container '')\n |  'é' == nope\n | ..．.....^",
        "the line and column of a later line; a wide character gets a wide dot",
    ),
]


@pytest.mark.parametrize(("expression", "want", "why"), ERRORS, ids=[e[2] for e in ERRORS])
def test_errors(expression: str, want: str, why: str) -> None:
    env = cel.environment()
    with pytest.raises(celcheck.CheckError) as info:
        celcheck.check(expression, env.compile(expression), DECLS)
    assert str(info.value) == want, why


EQUALITY = [
    ("x == 1", True, "a double equals the int of its value"),
    ("x == 1u", True, "and the uint"),
    ("x != 1", False, "!= negates"),
    ("x == 'a'", False, "different kinds are unequal, not an error"),
    ("[x, 2] == [1, 2.0]", True, "lists element by element"),
    ("{'a': x} == {'a': 1}", True, "maps key by key"),
    ("1 in [x]", True, "in uses the same equality"),
    ("1 in {1.0: 'a'}", True, "map keys too"),
    ("true == 1", False, "a bool is no number"),
    ("b'a' == 'a'", False, "bytes are not a string"),
]


@pytest.mark.parametrize(("expression", "want", "why"), EQUALITY, ids=[e[0] for e in EQUALITY])
def test_go_equality(expression: str, want: bool, why: str) -> None:
    env = cel.environment()
    activation: dict[str, Any] = {"x": cel.value(1.0)}
    got = env.program(env.compile(expression), functions=cel.go_equality()).evaluate(activation)
    assert bool(got) is want, why


def test_value_takes_bytes() -> None:
    t = cel.module().celtypes
    assert cel.value({"k": b"\x00"}) == t.MapType({t.StringType("k"): t.BytesType(b"\x00")})
