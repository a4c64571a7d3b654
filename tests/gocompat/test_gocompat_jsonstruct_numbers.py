"""gocompat.jsonstruct: ``uint64`` fields and go-json-experiment without RejectUnknownMembers (``V2``)."""

from __future__ import annotations

from typing import Any

import pytest

from crossfn import errors
from crossfn.gocompat import jsonstruct as js

SELECTOR = js.Struct("v1beta1.Selector", {"maxMatch": js.UINT64, "name": js.STRING})

# (value, decoder, decoded or the error text, why)
CASES = [
    ({"maxMatch": 2.0}, js.STRICT, {"maxMatch": 2}, "a whole double is a uint64"),
    ({"maxMatch": 0}, js.STRICT, {"maxMatch": 0}, "zero"),
    (
        {"maxMatch": -1.0},
        js.STRICT,
        'json: cannot unmarshal JSON number into Go value of type uint64: cannot parse "-1" as unsigned integer: invalid syntax',
        "negative: Go's digits-only parse fails",
    ),
    (
        {"maxMatch": 1.5},
        js.V2,
        'json: cannot unmarshal JSON number into Go value of type uint64: cannot parse "1.5" as unsigned integer: invalid syntax',
        "a fraction, the number as Go formats a float64",
    ),
    (
        {"maxMatch": 1e21},
        js.STRICT,
        'json: cannot unmarshal JSON number into Go value of type uint64: cannot parse "1e+21" as unsigned integer: invalid syntax',
        "an exponent",
    ),
    (
        {"maxMatch": 2.0**64},
        js.STRICT,
        "json: cannot unmarshal JSON number into Go value of type uint64: cannot parse "
        '"18446744073709552000" as unsigned integer: value out of range',
        "digits only, too big",
    ),
    (
        {"maxMatch": "2"},
        js.STRICT,
        "json: cannot unmarshal JSON string into Go value of type uint64",
        "a string",
    ),
    (
        {"maxMatch": -1.0},
        js.LENIENT,
        "json: cannot unmarshal number -1 into Go struct field Selector.maxMatch of type uint64",
        "encoding/json names the field and the number",
    ),
    ({"maxMatch": None}, js.STRICT, {}, "null leaves the pointer nil"),
    ({"other": 1, "name": "n"}, js.V2, {"name": "n"}, "V2 skips an unknown name"),
    (
        {"Name": "n"},
        js.V2,
        {},
        "V2 matches names exactly (a case-folded name is unknown, so skipped)",
    ),
    (
        {"other": 1},
        js.STRICT,
        'json: cannot unmarshal Go value of type v1beta1.Selector: unknown name "other"',
        "strict rejects it",
    ),
    (
        {"name": True},
        js.V2,
        "json: cannot unmarshal JSON boolean into Go value of type string",
        "V2 words type errors as strict does",
    ),
]


@pytest.mark.parametrize(("value", "decoder", "want", "why"), CASES, ids=[c[3] for c in CASES])
def test_decode(value: dict[str, Any], decoder: str, want: dict[str, Any] | str, why: str) -> None:
    if isinstance(want, str):
        with pytest.raises(errors.GoError) as info:
            js.decode(value, SELECTOR, decoder=decoder)
        assert str(info.value) == want, why
        return
    assert js.decode(value, SELECTOR, decoder=decoder) == want, why


def test_named_any() -> None:
    """A ``Scalar("any", <name>)`` keeps any value, as ``ANY`` does (an ``extv1.JSON``, a ``RawExtension``)."""
    st = js.Struct("T", {"data": js.Map(js.Scalar("any", "v1.JSON"))})
    assert js.decode({"data": {"a": [1, {"b": None}]}}, st, decoder=js.STRICT) == {
        "data": {"a": [1, {"b": None}]}
    }
