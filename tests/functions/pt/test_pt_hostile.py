"""Hostile XR values: every failure patch-and-transform meets is a Fatal result naming the patch, in bounded time."""

from __future__ import annotations

import base64
import contextlib
import inspect
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest
from ptcases import CD, XR, fatal, inp, run

from crossfn import cli

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
        f"{PATCH}transform at index 0 returned error: convert transform could not resolve: strconv.ParseInt: "
        f'parsing "{"9" * 5000}": value out of range',
        id="BigIntToInt64",
    ),
    pytest.param(
        "A JSON string nested deeper than Go's decoder allows (10,000) is Go's error, whatever the stack.",
        "[" * 10_001 + "]" * 10_001,
        [_convert("array", "json")],
        f"{PATCH}transform at index 0 returned error: convert transform could not resolve: "
        "invalid character '[' exceeded max depth",
        id="JSONPastGoDepth",
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
    """``1e-999999999`` as a quantity is 1n, computed at once (it ran for hours and ignored --timeout).

    Measured in CPU seconds, which a loaded machine does not stretch as it does wall time.
    """
    start = time.process_time()
    rsp = run(_request("1e-999999999", [_convert("float64", "quantity")]))
    assert time.process_time() - start < 1
    assert rsp["desired"]["resources"]["r"]["resource"]["spec"] == {"out": 1e-9}


@contextlib.contextmanager
def _recursion_limit(limit: int) -> Iterator[None]:
    """The result depends on the interpreter's stack: the CLI raises the limit (cli.RECURSION_LIMIT)."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(limit)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def test_deep_json_converts_as_go_does() -> None:
    """Under the CLI's recursion limit a JSON string nested 10,000 deep (Go's limit) becomes an array."""
    with _recursion_limit(max(sys.getrecursionlimit(), cli.RECURSION_LIMIT)):
        rsp = run(_request("[" * 10_000 + "]" * 10_000, [_convert("array", "json")]))
        assert "results" not in rsp
        out = rsp["desired"]["resources"]["r"]["resource"]["spec"]["out"]
        depth = 1
        while out:
            out, depth = out[0], depth + 1
        assert depth == 10_000


def test_deep_json_past_the_stack_is_a_fatal_result() -> None:
    """On a smaller stack (Python's default limit) the copy cannot recurse: a Fatal result, not RecursionError."""
    with _recursion_limit(1_000 + len(inspect.stack(0))):
        rsp = run(_request("[" * 9_000 + "]" * 9_000, [_convert("array", "json")]))
    assert rsp["results"] == [fatal(f"{PATCH}value is nested too deeply")]
