"""JSON objects as the controller holds them: private copies and a canonical encoding.

An object from the API server (or an informer's cache, or the engine) is plain
JSON: dicts, lists, strings, numbers, booleans and nulls. Copying one through
msgspec's encoder and decoder is about a tenth of ``copy.deepcopy``'s CPU (8 µs
against 80 µs for a composed ConfigMap), and the controller copies every object
a reconcile reads from a cache; a canonical encoding (keys sorted, compact) tells
whether two objects are the same without keeping a copy of either.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

__all__ = ["canonical", "copy"]

_ENCODER = msgspec.json.Encoder()
_SORTED = msgspec.json.Encoder(order="sorted")
_DECODER = msgspec.json.Decoder()


def copy(obj: Mapping[str, Any]) -> dict[str, Any]:
    """A deep copy of the JSON object ``obj`` that shares nothing with it."""
    out: dict[str, Any] = _DECODER.decode(_ENCODER.encode(obj))
    return out


def canonical(obj: object) -> bytes:
    """``obj`` as compact JSON with every object's keys sorted: equal values, equal bytes."""
    return _SORTED.encode(obj)
