"""Plain scalars resolve as go-yaml v2 resolves them through sigs.k8s.io/yaml (resolve.go), keys alike.

Each row is what Kubernetes sees for ``v: <text>``: go-yaml v2's value, then,
for ``as_json``, the value after sigs.k8s.io/yaml's YAML -> JSON and the
API machinery's JSON decode (whole numbers in int64 are int64, others float64).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import pytest

from crossfn import errors
from crossfn.gocompat import yaml_emitter, yaml_loader

_NAN = float("nan")


@dataclasses.dataclass(frozen=True)
class _Refused:
    """The YAML -> JSON round trip fails: json.Marshal cannot hold this float."""

    value: str


# text, go-yaml v2's value, the value after the JSON round trip
_CASES = [
    # booleans: every spelling in resolve.go's table, and nothing else
    *[(t, True, True) for t in ("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON")],
    *[(t, False, False) for t in ("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF")],
    *[(t, t, t) for t in ("yES", "tRUE", "oN", "nO", "t", "f", "ye", "yess")],
    # null
    *[(t, None, None) for t in ("~", "null", "Null", "NULL")],
    ("nULL", "nULL", "nULL"),
    # integers: Go's ParseInt(s, 0, 64) after removing every underscore, then ParseUint
    ("0", 0, 0), ("-0", 0, 0), ("+7", 7, 7), ("-12", -12, -12), ("1_000", 1000, 1000), ("1__0_", 10, 10),
    ("0x1F", 31, 31), ("0X1f", 31, 31), ("-0x1F", -31, -31), ("+0x1F", 31, 31),
    ("0o17", 15, 15), ("0O17", 15, 15), ("-0o17", -15, -15), ("017", 15, 15), ("010", 8, 8), ("00", 0, 0),
    ("0b101", 5, 5), ("0B101", 5, 5), ("-0b101", -5, -5),
    ("9223372036854775807", 2**63 - 1, 2**63 - 1), ("-9223372036854775808", -(2**63), -(2**63)),
    ("9223372036854775808", 2**63, 9.223372036854775808e18),
    ("12345678901234567890", 12345678901234567890, 1.2345678901234567e19),
    ("18446744073709551615", 2**64 - 1, 1.8446744073709552e19),
    ("0xFFFFFFFFFFFFFFFF", 2**64 - 1, 1.8446744073709552e19),
    # floats: a yamlStyleFloat that ParseFloat takes; a leading dot goes straight to ParseFloat
    ("08", 8.0, 8), ("09.5", 9.5, 9.5), ("1.5", 1.5, 1.5), ("1.", 1.0, 1), ("+.5", 0.5, 0.5), ("-.5", -0.5, -0.5),
    (".5", 0.5, 0.5), ("1e3", 1000.0, 1000), ("1E3", 1000.0, 1000), ("5e-324", 5e-324, 5e-324),
    ("1_000.5", 1000.5, 1000.5), ("6.8523015e+5", 685230.15, 685230.15), (".5e1", 5.0, 5),
    ("-9223372036854775809", -9.223372036854775809e18, -(2**63)),  # the float rounds to int64's minimum
    ("18446744073709551616", 1.8446744073709552e19, 1.8446744073709552e19),
    # a NaN or an infinity: json.Marshal refuses it in the round trip (sigs.k8s.io/yaml's error)
    (".inf", math.inf, _Refused("+Inf")), (".Inf", math.inf, _Refused("+Inf")), ("+.INF", math.inf, _Refused("+Inf")),
    ("-.inf", -math.inf, _Refused("-Inf")), (".nan", _NAN, _Refused("NaN")), (".NaN", _NAN, _Refused("NaN")),
    # strings: no base 60, no timestamps (Kubernetes keeps them as text), nothing ParseFloat refuses
    ("22:00", "22:00", "22:00"), ("1:30", "1:30", "1:30"), ("1:30.5", "1:30.5", "1:30.5"),
    ("2024-01-01", "2024-01-01", "2024-01-01"), ("2024-01-01T00:00:00Z", "2024-01-01T00:00:00Z", "2024-01-01T00:00:00Z"),
    ("1e400", "1e400", "1e400"), (".5e400", ".5e400", ".5e400"), ("0x", "0x", "0x"), ("0b2", "0b2", "0b2"),
    ("0o8", "0o8", "0o8"), ("0x1p3", "0x1p3", "0x1p3"), ("0x" + "F" * 17, "0x" + "F" * 17, "0x" + "F" * 17),
    ("+", "+", "+"), ("-a", "-a", "-a"), (".", ".", "."), ("._5", "._5", "._5"), ("_1", "_1", "_1"),
    ("1e", "1e", "1e"), ("inf", "inf", "inf"), ("+inf", "+inf", "+inf"), ("nan", "nan", "nan"),
    (".inF", ".inF", ".inF"), ("1.2.3", "1.2.3", "1.2.3"), ("<<", "<<", "<<"), ("=", "=", "="),
]  # fmt: skip


def _same(got: Any, want: Any) -> bool:
    if isinstance(want, float) and math.isnan(want):
        return isinstance(got, float) and math.isnan(got)
    return type(got) is type(want) and got == want


@pytest.mark.parametrize(("text", "go", "json"), [pytest.param(*c, id=repr(c[0])) for c in _CASES])
def test_plain_scalars_resolve_as_go_yaml_v2(text: str, go: Any, json: Any) -> None:
    for loaded in (
        yaml_loader.load_all(f"v: {text}\n")[0]["v"],
        yaml_loader._load_nodes(f"v: {text}\n")[0]["v"],
    ):
        assert _same(loaded, go), f"go-yaml v2 reads {text!r} as {go!r}, got {loaded!r}"
    if isinstance(json, _Refused):
        want = f"line 1 column 4: error converting YAML to JSON: json: unsupported value: {json.value}"
        with pytest.raises(errors.InputError) as exc:
            yaml_loader.load_all(f"v: {text}\n", as_json=True)
        assert str(exc.value) == want
        return
    loaded = yaml_loader.load_all(f"v: {text}\n", as_json=True)[0]["v"]
    assert _same(loaded, json), f"after the JSON round trip {text!r} is {json!r}, got {loaded!r}"


@pytest.mark.parametrize(("text", "go", "json"), [pytest.param(*c, id=repr(c[0])) for c in _CASES])
def test_emitter_quotes_exactly_what_would_not_read_back_as_a_string(text: str, go: Any, json: Any) -> None:
    """The emitter's quoting uses the same rules: a string that reads back as itself is plain.

    Except what go-yaml quotes for other parsers: timestamps (go-yaml resolves
    them, Kubernetes then keeps the text) and YAML 1.1 base-60 numbers.
    """
    quoted = yaml_emitter.needs_quotes(text)
    if not (isinstance(go, str) and go == text):
        assert quoted, f"{text!r} reads as {go!r} and must be quoted"
    elif text in ("2024-01-01", "2024-01-01T00:00:00Z", "22:00", "1:30", "1:30.5"):
        assert quoted, f"go-yaml quotes {text!r} for other parsers"
    else:
        assert not quoted, f"{text!r} reads back as a string and needs no quotes"


@pytest.mark.parametrize(
    ("text", "want", "reason"),
    [
        pytest.param("&k .nan: 1\nb: *k\n", "line 2 column 4: error converting YAML to JSON: json: unsupported value: NaN",
                     "a key's NaN is the string .nan; aliased as a value it is the float", id="AliasOfKey"),
        pytest.param("a: !!float .inf\n", "error converting YAML to JSON: json: unsupported value: +Inf",
                     "an explicit tag (PyYAML's full loader) is refused too", id="ExplicitTag"),
        pytest.param("- 1\n- [2, .nan]\n", "line 2 column 7: error converting YAML to JSON: json: unsupported value: NaN",
                     "nested in lists", id="Nested"),
        pytest.param(".inf\n", "line 1 column 1: error converting YAML to JSON: json: unsupported value: +Inf",
                     "a document that is one", id="Document"),
    ],
)  # fmt: skip
def test_round_trip_refuses_non_finite_floats(text: str, want: str, reason: str) -> None:
    """sigs.k8s.io/yaml's json.Marshal cannot hold NaN or an infinity; the plain load keeps go-yaml's value."""
    with pytest.raises(errors.InputError) as exc:
        yaml_loader.load_all(text, as_json=True)
    assert str(exc.value) == want, reason
    assert yaml_loader.load_all(text), reason


def test_round_trip_keeps_a_nan_key_as_text() -> None:
    assert yaml_loader.load_all(".nan: 1\n-.inf: 2\n", as_json=True) == [{".nan": 1, "-.inf": 2}]
