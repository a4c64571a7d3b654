"""Shared data and functions for the text/template tests: Go's exec_test.go fixtures, in the value model."""

from __future__ import annotations

from typing import Any

import pytest

from crossfn import errors
from crossfn.gocompat import fmt, gofunc, values
from crossfn.gocompat.template import GoRelease, Template

G = values.GoInt


def _die() -> bool:
    raise gofunc.Panic("die")


def _do_panic() -> str:
    raise gofunc.Panic("custom panic string")


FUNCS: dict[str, gofunc.Func] = {
    "add": gofunc.Func(lambda *a: G(sum(a)), ("int",), returns="int", variadic=True),
    "dddArg": gofunc.Func(
        lambda a, *b: fmt.sprintln(a, list(b)), ("int", "string"), returns="string", variadic=True
    ),
    "die": gofunc.Func(_die, (), returns="bool"),
    "doPanic": gofunc.Func(_do_panic, (), returns="string"),
    "echo": gofunc.Func(lambda a: a, (gofunc.ANY,)),
    "makemap": gofunc.Func(
        lambda *a: dict(zip(a[::2], a[1::2], strict=True)),
        ("string",),
        returns="map[string]string",
        variadic=True,
    ),
    "mapOfThree": gofunc.Func(lambda: {"three": G(3)}, ()),
    "oneArg": gofunc.Func(lambda a: "oneArg=" + a, ("string",), returns="string"),
    "returnInt": gofunc.Func(lambda: G(7), (), returns="int"),
    "twoArgs": gofunc.Func(lambda a, b: "twoArgs=" + a + b, ("string", "string"), returns="string"),
    "typeOf": gofunc.Func(lambda a: fmt.sprintf("%T", a), (gofunc.ANY,), returns="string"),
    "valueString": gofunc.Func(lambda a: "value is ignored", ("string",), returns="string"),
    "zeroArgs": gofunc.Func(lambda: "zeroArgs", (), returns="string"),
}
"""The functions of Go's testExecute, with Go's signatures."""

T: dict[str, Any] = {
    "True": True,
    "I": G(17),
    "X": "x",
    "S": "xyz",
    "FloatZero": 0.0,
    "ComplexZero": 0j,
    "U": {"V": "v"},
    "SI": [G(3), G(4), G(5)],
    "SIEmpty": [],
    "SB": [True, False],
    "AI": [G(3), G(4), G(5)],
    "MSI": {"one": G(1), "two": G(2), "three": G(3)},
    "MSIone": {"one": G(1)},
    "MSIEmpty": {},
    "MXI": {"one": G(1)},
    "SMSI": [{"one": G(1), "two": G(2)}, {"eleven": G(11), "twelve": G(12)}],
    "Empty0": None,
    "Empty1": G(3),
    "Empty2": "empty2",
    "Empty3": [G(7), G(8)],
    "Empty4": {"V": "UinEmpty"},
}
"""Go's tVal as a map of the value model: fields become keys, slices and maps hold interfaces."""


def run(text: str, data: Any = T, *, go: str = "1.25", options: tuple[str, ...] = ()) -> str:
    """The output, or ``ERROR: <Go's message>``."""
    try:
        t = Template("t", release=GoRelease(go)).funcs(FUNCS).option(*options).parse(text)
        return t.execute(data)
    except errors.GoError as exc:
        return f"ERROR: {exc}"


def case(name: str, text: str, want: str, reason: str, data: Any = T) -> Any:
    return pytest.param(text, data, want, reason, id=name)
