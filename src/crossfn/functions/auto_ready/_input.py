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
from collections.abc import Mapping
from typing import Any

from crossfn import errors
from crossfn.gocompat import time as gotime

__all__ = ["Input", "parse"]


@dataclasses.dataclass(frozen=True)
class Input:
    """The decoded input; ``ttl`` is None when the input does not set it."""

    ttl: datetime.timedelta | None = None
    cel_inline: dict[str, str] | None = None
    cel_from: str | None = None


def _ttl(text: str) -> datetime.timedelta:
    """The input's ``ttl``: Go's ``time.ParseDuration`` after trimming blanks.

    A bad value keeps the one text auto-ready has always given and
    docs/compatibility.md shows, ``time: invalid duration "<value>"``, rather
    than Go's finer ones (unknown unit, missing unit).
    """
    try:
        return datetime.timedelta(seconds=gotime.parse_duration(text.strip()))
    except errors.GoError as exc:
        raise errors.FunctionInputError(
            f"invalid input: ttl: time: invalid duration {errors.quote(text)}"
        ) from exc


def parse(data: Mapping[str, Any] | None) -> Input:
    """Decode the step input; raise FunctionInputError naming the field at fault."""
    if not data:
        return Input()
    ttl_raw = data.get("ttl")
    ttl = None
    if ttl_raw is not None:
        if not isinstance(ttl_raw, str):
            raise errors.FunctionInputError("invalid input: ttl: must be a duration string such as 1m0s")
        ttl = _ttl(ttl_raw)
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
