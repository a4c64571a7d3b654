"""The optional step input of auto-ready: ``autoready.fn.crossplane.io/v1beta1`` ``Input``.

Fields (all optional): ``ttl`` (a Go duration, default ``1m0s``),
``celHealthCheckCustomization`` (inline map ``<group>_<version>_<kind>`` ->
CEL) and ``celHealthCheckCustomizationFrom`` (a dot/bracket path into the
context where more such rules live). Unknown fields are ignored, as Go's JSON
decoding ignores them; a known field of the wrong type is an error.
"""

from __future__ import annotations

import dataclasses
import datetime
import re
from collections.abc import Mapping
from typing import Any

from crossfn import errors

__all__ = ["Input", "parse", "parse_duration"]


@dataclasses.dataclass(frozen=True)
class Input:
    """The decoded input; ``ttl`` is None when the input does not set it."""

    ttl: datetime.timedelta | None = None
    cel_inline: dict[str, str] | None = None
    cel_from: str | None = None


_UNITS = {
    "ns": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,  # Go accepts the micro sign (U+00B5)
    "μs": 1e-6,  # and the Greek mu (U+03BC)
    "ms": 1e-3,
    "s": 1.0,
    "m": 60.0,
    "h": 3600.0,
}
_DURATION_PART = re.compile(r"(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)")


def parse_duration(text: str) -> datetime.timedelta:
    """Parse a Go ``time.Duration`` string (``1m0s``, ``1.5h``, ``300ms``, ``0``)."""
    s = text.strip()
    sign = -1.0 if s.startswith("-") else 1.0
    s = s.lstrip("+-")
    if s == "0":
        return datetime.timedelta(0)
    pos, seconds = 0, 0.0
    while pos < len(s):
        m = _DURATION_PART.match(s, pos)
        if m is None:
            raise ValueError(f"time: invalid duration {errors.quote(text)}")
        seconds += float(m.group(1)) * _UNITS[m.group(2)]
        pos = m.end()
    if pos == 0:
        raise ValueError(f"time: invalid duration {errors.quote(text)}")
    return datetime.timedelta(seconds=sign * seconds)


def parse(data: Mapping[str, Any] | None) -> Input:
    """Decode the step input; raise FunctionInputError naming the field at fault."""
    if not data:
        return Input()
    ttl_raw = data.get("ttl")
    ttl = None
    if ttl_raw is not None:
        if not isinstance(ttl_raw, str):
            raise errors.FunctionInputError("invalid input: ttl: must be a duration string such as 1m0s")
        try:
            ttl = parse_duration(ttl_raw)
        except ValueError as exc:
            raise errors.FunctionInputError(f"invalid input: ttl: {exc}") from exc
    inline = data.get("celHealthCheckCustomization")
    if inline is not None and (
        not isinstance(inline, Mapping) or not all(isinstance(v, str) for v in inline.values())
    ):
        raise errors.FunctionInputError(
            "invalid input: celHealthCheckCustomization: must map <group>_<version>_<kind> to a CEL string"
        )
    cel_from = data.get("celHealthCheckCustomizationFrom")
    if cel_from is not None and not isinstance(cel_from, str):
        raise errors.FunctionInputError("invalid input: celHealthCheckCustomizationFrom: must be a string")
    return Input(ttl=ttl, cel_inline=None if inline is None else dict(inline), cel_from=cel_from)
