"""Decode protocol messages as deep as the objects Kubernetes accepts: :func:`parse`.

upb, protobuf's runtime, refuses messages nested more than 100 deep. A JSON
object level costs three message levels in a ``google.protobuf.Struct`` (the
Struct, its map entry, the Value), so an XR nested about 30 objects deep could
not cross the function protocol, while the Kubernetes API server and go-yaml
accept 10,000 (Go's protobuf decoder allows 10,000 message levels as well).

upb can lift its limit only for the whole process (``SetAllowOversizeProtos``,
which allows 65,535 levels: deep enough to overflow a thread's C stack). So
:func:`parse` keeps the default on, and only when a message fails for its depth
it measures the depth on the wire, with the message's schema and without
recursion, and parses it again with the limit lifted if it is within
:data:`MAX_MESSAGE_DEPTH`. Every parse holds one lock, so no other parse ever
runs while the limit is lifted. Clients (the engine's gRPC runner) and servers
(the SDK's runtime) decode with it.
"""

from __future__ import annotations

import threading
from typing import Any, TypeVar

from google.protobuf import descriptor, message

__all__ = ["MAX_MESSAGE_DEPTH", "DepthError", "message_field", "parse"]

MAX_MESSAGE_DEPTH = 3 * 10_000 + 100
"""Message levels accepted: 10,000 JSON levels (three message levels each) and the envelope around them."""

_M = TypeVar("_M", bound=message.Message)
_LOCK = threading.Lock()

try:  # upb and the C++ runtime have the switch; the pure-Python runtime has no depth limit to lift.
    from google._upb import _message as _runtime

    _set_deep: Any = _runtime.SetAllowOversizeProtos
except ImportError:  # pragma: no cover - depends on the installed protobuf runtime
    _set_deep = None


class DepthError(message.DecodeError):
    """A message nested deeper than :data:`MAX_MESSAGE_DEPTH`."""


def parse(message_type: type[_M], data: bytes) -> _M:
    """``message_type.FromString(data)``, accepting nesting up to :data:`MAX_MESSAGE_DEPTH` (module doc).

    Raises ``google.protobuf.message.DecodeError`` (:class:`DepthError` for
    depth) for bytes that are not such a message.
    """
    with _LOCK:
        try:
            return message_type.FromString(data)
        except message.DecodeError as exc:
            if _set_deep is None or "MaxDepth" not in str(exc):
                raise
        depth = wire_depth(message_type.DESCRIPTOR, data)
        if depth > MAX_MESSAGE_DEPTH:
            raise DepthError(f"message nested deeper than {MAX_MESSAGE_DEPTH} levels")
        _set_deep(True)
        try:
            return message_type.FromString(data)
        finally:
            _set_deep(False)


def message_field(number: int, encoded: bytes) -> bytes:
    """Field ``number`` of a message holding a message (or bytes) whose encoding is ``encoded``, as
    protobuf's encoder writes it: the key, the length, the bytes. A message's encoding is its
    fields' encodings in field-number order, so fields encoded apart can be joined."""
    return _encode_varint((number << 3) | 2) + _encode_varint(len(encoded)) + encoded


def _encode_varint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(data):
            raise message.DecodeError("truncated varint")
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise message.DecodeError("varint too long")


def wire_depth(desc: descriptor.Descriptor, data: bytes) -> int:
    """How deep the message in ``data`` nests (1 for one without sub-messages), walking the wire iteratively.

    Only fields the schema says are messages are entered; the walk stops as soon
    as the depth passes :data:`MAX_MESSAGE_DEPTH`. Malformed bytes raise
    ``DecodeError``.
    """
    stack: list[tuple[descriptor.Descriptor, int]] = [(desc, len(data))]
    pos, deepest = 0, 1
    while stack:
        current, end = stack[-1]
        if pos >= end:
            stack.pop()
            continue
        key, pos = _varint(data, pos)
        number, wire_type = key >> 3, key & 7
        if wire_type == 0:
            _, pos = _varint(data, pos)
        elif wire_type == 1:
            pos += 8
        elif wire_type == 5:
            pos += 4
        elif wire_type == 2:
            length, pos = _varint(data, pos)
            field = current.fields_by_number.get(number)
            if field is not None and field.message_type is not None:
                stack.append((field.message_type, pos + length))
                deepest = max(deepest, len(stack))
                if deepest > MAX_MESSAGE_DEPTH:
                    return deepest
                continue
            pos += length
        else:  # groups (3, 4) are not in this protocol
            raise message.DecodeError(f"unexpected wire type {wire_type}")
        if pos > end:
            raise message.DecodeError("truncated message")
    return deepest
