"""Hostile XR values: every failure patch-and-transform meets is a Fatal result naming the patch, in bounded time."""

from __future__ import annotations

import base64
import sys
import time
from typing import Any

import pytest
from ptcases import CD, XR, fatal, inp, run

FROM_BASE64 = {"type": "string", "string": {"type": "Convert", "convert": "FromBase64"}}
PATCH = 'cannot render composed resource "r" "FromCompositeFieldPath" patch at index 0: '


def _convert(to: str, fmt: str | None = None) -> dict[str, Any]:
    return {"type": "convert", "convert": {"toType": to, **({"format": fmt} if fmt else {})}}


def _request(value: Any, transforms: list[dict[str, Any]]) -> dict[str, Any]:
    patch = {"type": "FromCompositeFieldPath", "fromFieldPath": "spec.v", "toFieldPath": "spec.out"}
    return {
        "input": inp(resources=[{"name": "r", "base": CD, "patches": [{**patch, "transforms": transforms}]}]),
        "observed": {"composite": {"resource": {**XR, "spec": {"v": value}}}},
        "desired": {"composite": {"resource": XR}},
    }


FATAL = [
    pytest.param(
        "A 5,000-digit string converted to int64 is Go's range error (it escaped as Python's ValueError).",
        "9" * 5000,
        [_convert("int64")],
        f'{PATCH}transform at index 0 returned error: convert transform could not resolve: strconv.ParseInt: '
        f'parsing "{"9" * 5000}": value out of range',
        id="BigIntToInt64",
    ),
    pytest.param(
        "A JSON string nested past Go's 10,000 levels is Go's decode error, whatever Python's recursion limit.",
        "[" * 100_000 + "]" * 100_000,
        [_convert("array", "json")],
        f"{PATCH}transform at index 0 returned error: convert transform could not resolve: "
        "invalid character '[' exceeded max depth",
        id="DeeperThanGo",
    ),
    pytest.param(
        "Non-UTF-8 bytes quoted in an error become U+FFFD (they escaped as UnicodeEncodeError).",
        base64.b64encode(b"\xff\xfeabc").decode(),
        [FROM_BASE64, {"type": "map", "map": {"a": "b"}}],
        f"{PATCH}transform at index 1 returned error: map transform could not resolve: "
        "key \ufffd\ufffdabc is not found in map",
        id="NonUTF8InError",
    ),
    pytest.param(
        "A quantity with an exponent past int32 is Kubernetes' suffix error.",
        "1e4294967297",
        [_convert("float64", "quantity")],
        f"{PATCH}transform at index 0 returned error: convert transform could not resolve: "
        "unable to parse quantity's suffix",
        id="QuantityExponentPastInt32",
    ),
]


@pytest.mark.parametrize(("reason", "value", "transforms", "message"), FATAL)
def test_hostile_value_is_a_fatal_result(
    reason: str, value: Any, transforms: list[dict[str, Any]], message: str
) -> None:
    rsp = run(_request(value, transforms))
    assert rsp["results"] == [fatal(message)], reason


def test_sub_nano_quantity_answers_at_once() -> None:
    """``1e-999999999`` as a quantity is 1n, computed at once (it ran for hours and ignored --timeout)."""
    start = time.monotonic()
    rsp = run(_request("1e-999999999", [_convert("float64", "quantity")]))
    assert time.monotonic() - start < 1
    assert rsp["desired"]["resources"]["r"]["resource"]["spec"] == {"out": 1e-9}


def test_deep_json_within_go_limit_is_a_fatal_result_not_a_recursion_error() -> None:
    """Nested 9,000 deep (Go allows 10,000) but past the interpreter's stack: a Fatal result naming the
    patch (it escaped as RecursionError). The limit is pinned because the CLI raises it process-wide."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        rsp = run(_request("[" * 9000 + "]" * 9000, [_convert("array", "json")]))
    finally:
        sys.setrecursionlimit(limit)
    assert rsp["results"] == [fatal(f"{PATCH}value is nested too deeply")]
