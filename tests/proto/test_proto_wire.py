"""crossfn.proto.wire: protocol messages decode as deep as Kubernetes objects nest, and no deeper."""

from __future__ import annotations

import pytest
from google.protobuf import message, struct_pb2

from crossfn.proto import wire
from crossfn.proto.v1 import run_function_pb2 as fnv1


def _field(number: int, payload: bytes) -> bytes:
    """One length-delimited field on the wire."""
    out, length = bytearray([number << 3 | 2]), len(payload)
    while True:
        low, length = length & 0x7F, length >> 7
        out.append(low | (0x80 if length else 0))
        if not length:
            return bytes(out) + payload


def _nested_struct(levels: int) -> bytes:
    """A Struct ``{"a": {"a": ... 1 ...}}`` nested ``levels`` objects deep, built without recursion."""
    data = b""
    for _ in range(levels):
        value = _field(5, data)  # Value.struct_value
        data = _field(1, _field(1, b"a") + _field(2, value))  # Struct.fields entry: key, value
    return data


@pytest.mark.parametrize(
    ("reason", "levels", "ok"),
    [
        pytest.param("upb's own limit (100 messages) already refuses 40 objects.", 40, True, id="Forty"),
        pytest.param("An XR nested 100 objects deep.", 100, True, id="Hundred"),
        pytest.param("10,000 objects: what go-yaml and the Kubernetes API server accept.", 10_000, True,
                     id="KubernetesLimit"),
        pytest.param("Deeper than that is refused with an error, not a crash.", 10_100, False, id="TooDeep"),
        pytest.param("Far deeper is measured without recursion and refused.", 100_000, False, id="FarTooDeep"),
    ],
)  # fmt: skip
def test_parse_accepts_kubernetes_depth(reason: str, levels: int, ok: bool) -> None:
    data = _nested_struct(levels)
    if not ok:
        with pytest.raises(wire.DepthError):
            wire.parse(struct_pb2.Struct, data)
        return
    s = wire.parse(struct_pb2.Struct, data)
    assert s.SerializeToString() == data, reason


def test_parse_leaves_the_default_limit_in_place() -> None:
    wire.parse(struct_pb2.Struct, _nested_struct(100))
    with pytest.raises(message.DecodeError):
        struct_pb2.Struct.FromString(_nested_struct(100))


@pytest.mark.parametrize(
    ("reason", "data"),
    [
        pytest.param("A truncated field.", b"\x0a\x05ab", id="Truncated"),
        pytest.param("A deep message cut short.", _nested_struct(200)[:-3], id="DeepTruncated"),
        pytest.param("A group wire type.", b"\x0b", id="Group"),
    ],
)
def test_parse_refuses_garbage(reason: str, data: bytes) -> None:
    with pytest.raises(message.DecodeError):
        wire.parse(fnv1.RunFunctionResponse, data)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("", id="an empty message: present, zero length"),
        pytest.param("x" * 100, id="a one-byte length"),
        pytest.param("x" * 200, id="a two-byte length"),
        pytest.param("x" * 20_000, id="a three-byte length"),
    ],
)
def test_message_field_is_what_the_encoder_writes(text: str) -> None:
    """A message field encoded apart is the bytes protobuf writes for it in its message."""
    inner = struct_pb2.Struct()
    if text:
        inner.fields["t"].string_value = text
    want = fnv1.RunFunctionRequest(input=inner).SerializeToString()
    assert wire.message_field(4, inner.SerializeToString()) == want


def test_message_field_with_a_two_byte_key() -> None:
    """Field numbers from 16 on take two bytes of key (FileOptions.objc_class_prefix is field 36)."""
    from google.protobuf import descriptor_pb2

    assert (
        wire.message_field(36, b"abc")
        == descriptor_pb2.FileOptions(objc_class_prefix="abc").SerializeToString()
    )
