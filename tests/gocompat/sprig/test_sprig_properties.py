"""Property tests: any arguments of a function's declared Go types give a value, a Go error or a Go
panic (which the template engine reports with the template's position), never a Python exception."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sprigcases import func_map

from crossfn import errors
from crossfn.gocompat import gofunc, values
from crossfn.gocompat import time as gotime

FUNCS = func_map()

SLOW = {
    # Key generation and scrypt take from tenths of a second to seconds per call; their inputs are
    # tested with tables (test_sprig_crypto.py).
    "bcrypt", "htpasswd", "derivePassword", "genPrivateKey", "genCA", "genCAWithKey", "genSelfSignedCert",
    "genSelfSignedCertWithKey", "genSignedCert", "genSignedCertWithKey", "buildCustomCert",
}  # fmt: skip
SIZED = {
    # A count that sizes the output: Go allocates what it is asked for, so keep it small here.
    "repeat", "indent", "nindent", "until", "untilStep", "seq", "randAlpha", "randAlphaNum", "randAscii",
    "randNumeric", "randBytes", "chunk", "mustChunk", "wrap", "wrapWith", "round",
}  # fmt: skip

# A Go string: any text, with invalid UTF-8 bytes carried as lone surrogates U+DC80..U+DCFF.
GO_STRINGS = st.text(
    alphabet=st.one_of(
        st.characters(codec="utf-8"), st.characters(min_codepoint=0xDC80, max_codepoint=0xDCFF)
    ),
    max_size=40,
)
INT64 = st.integers(min_value=-(1 << 63), max_value=(1 << 63) - 1)
SMALL = st.integers(min_value=-40, max_value=40)
FLOATS = st.floats(allow_nan=True, allow_infinity=True)
TIMES = st.builds(
    gotime.Time,
    st.integers(min_value=-(10**12), max_value=10**12),
    st.integers(min_value=0, max_value=10**9 - 1),
    st.sampled_from([gotime.UTC, gotime.LOCAL, gotime.load_location("Asia/Kolkata")]),
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    SMALL.map(values.GoInt),
    INT64,
    FLOATS,
    GO_STRINGS,
    TIMES,
    st.just(FUNCS["semver"]("1.2.3-rc.1")),
)
ANY_VALUE = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.dictionaries(GO_STRINGS, inner, max_size=5),
        st.lists(GO_STRINGS, max_size=5).map(lambda items: values.GoSlice(items, elem="string")),
    ),
    max_leaves=12,
)


def _strategy(go_type: str, sized: bool) -> st.SearchStrategy[Any]:
    if go_type == "string":
        return GO_STRINGS
    if go_type == "int":
        return (SMALL if sized else st.one_of(SMALL, INT64)).map(values.GoInt)
    if go_type == "int64":
        return INT64
    if go_type == "uint32":
        return st.integers(min_value=0, max_value=(1 << 32) - 1)
    if go_type == "float64":
        return FLOATS
    if go_type == "bool":
        return st.booleans()
    if go_type == "time.Time":
        return TIMES
    if go_type == "[]interface {}":
        return st.one_of(st.none(), st.lists(ANY_VALUE, max_size=5))
    if go_type == "map[string]interface {}":
        return st.one_of(st.none(), st.dictionaries(GO_STRINGS, ANY_VALUE, max_size=5))
    return ANY_VALUE


def _arguments(data: st.DataObject, name: str, func: gofunc.Func) -> list[Any]:
    sized = name in SIZED
    fixed = func.params[:-1] if func.variadic else func.params
    args = [data.draw(_strategy(t, sized), label=t) for t in fixed]
    if func.variadic:
        args += data.draw(st.lists(_strategy(func.params[-1], sized), max_size=4), label="variadic")
    return args


@pytest.mark.parametrize("name", sorted(set(FUNCS) - SLOW))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_no_python_exception(name: str, data: st.DataObject) -> None:
    """Whatever well-typed arguments, the call ends as Go's would: a value, an error or a panic."""
    func = FUNCS[name]
    args = _arguments(data, name, func)
    with contextlib.suppress(errors.GoError):
        func(*args)


@settings(max_examples=200, deadline=None)
@given(GO_STRINGS, GO_STRINGS)
def test_string_functions_return_strings(text: str, other: str) -> None:
    """The pure string functions return a Go string for any strings, and never raise."""
    for name in ("upper", "lower", "title", "untitle", "trim", "nospace", "initials", "swapcase", "snakecase", "camelcase", "kebabcase", "b64enc", "b32enc", "b64dec", "b32dec", "sha256sum", "regexQuoteMeta"):  # fmt: skip
        assert isinstance(FUNCS[name](text), str)
    for name in ("trimAll", "trimPrefix", "trimSuffix", "replace"):
        args = (other, text) if name != "replace" else (other, "-", text)
        assert isinstance(FUNCS[name](*args), str)
    assert FUNCS["b64dec"](FUNCS["b64enc"](text)) == values.from_bytes(values.to_bytes(text))
    assert FUNCS["join"](other, FUNCS["splitList"](other, text)) == text if other else True


@settings(max_examples=200, deadline=None)
@given(st.lists(ANY_VALUE, max_size=6))
def test_list_functions_keep_elements(items: list[Any]) -> None:
    """first, last, reverse, rest and initial agree with each other on any list."""
    if not items:
        assert FUNCS["first"](items) is None
        return
    assert FUNCS["first"](items) is items[0]
    assert FUNCS["last"](items) is items[-1]
    assert all(a is b for a, b in zip(FUNCS["reverse"](FUNCS["reverse"](items)), items, strict=True))
    assert len(FUNCS["rest"](items)) == len(FUNCS["initial"](items)) == len(items) - 1
