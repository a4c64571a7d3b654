"""protobuf-go's ``protojson.Unmarshal``: which JSON a message takes, and the error when it does not.

A Go function that reads a protobuf message from JSON (function-dummy reads a
whole ``RunFunctionResponse`` from its input) accepts exactly the fields its
build's ``.proto`` had, by JSON name (``connectionDetails``) or proto name
(``connection_details``), and fails on anything else with protobuf-go's text.
The messages are described by a :data:`Schema` (one per build, since fields
come and go between releases); :func:`unmarshal` checks a value against it and
returns the value rewritten for crossfn's own messages (``json_format.ParseDict``
takes it): proto field names, each renamed where the build named a field
differently, base64 re-encoded in the standard alphabet and durations spelled
as Python reads them.

The JSON the Go function parses is what ``protojson.Marshal`` made of a
``google.protobuf.Struct``: one line, keys sorted, numbers as Go formats a
float64. Errors give a line and column in that text, ``proto: (line 1:23):
unknown field "foo"``. Two things are not reproduced: protobuf-go writes a
random extra space after some commas, and its ``proto:`` prefix is followed by
a space or a no-break space at random (both on purpose, so nobody depends on
them), so Go's columns can be larger than crossfn's; crossfn counts as if no
space was added and always writes a plain space.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import math
import re
from collections.abc import Mapping
from typing import Any

from crossfn import errors
from crossfn.gocompat import json

__all__ = ["EOF", "Field", "Schema", "unmarshal"]

EOF = errors.GoError("proto: unexpected EOF")
"""What ``protojson.Unmarshal`` says of empty input (a ``RawExtension`` that was null or absent)."""

_MAX_DURATION_SECONDS = 315_576_000_000
_DURATION = re.compile(r"([-+]?)(0|[1-9][0-9]*|(?=\.))(?:\.([0-9]{0,9}))?s")
_INT32 = (-(2**31), 2**31 - 1)


@dataclasses.dataclass(frozen=True)
class Field:
    """One field of a message as a build's ``.proto`` declared it.

    ``kind`` is ``message`` (``type`` names it in the schema), ``enum``
    (``type`` names its values), ``string``, ``bytes``, ``bool``, or one of the
    well-known types ``struct`` (``google.protobuf.Struct``) and ``duration``.
    ``map`` makes it ``map<string, kind>``, ``repeated`` a list. ``oneof``
    names the oneof it belongs to (its full name, as errors print it).
    ``to`` is crossfn's name for the field, when the build called it
    something else.
    """

    name: str
    kind: str
    type: str = ""
    repeated: bool = False
    map: bool = False
    oneof: str = ""
    to: str = ""

    @property
    def json_name(self) -> str:
        head, *rest = self.name.split("_")
        return head + "".join(part[:1].upper() + part[1:] for part in rest)


@dataclasses.dataclass(frozen=True)
class Schema:
    """The messages (name -> fields) and enums (name -> value names) of one build."""

    messages: Mapping[str, tuple[Field, ...]]
    enums: Mapping[str, tuple[str, ...]]


class _FirstError(Exception):
    """The first error: decoding stops there."""


def _string(s: str) -> str:
    """A string as protojson writes it: only ``"``, ``\\`` and control characters escaped."""
    out = ['"']
    for ch in s:
        code = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif code < 0x20:
            short = {"\b": "b", "\f": "f", "\n": "n", "\r": "r", "\t": "t"}.get(ch)
            out.append("\\" + short if short else f"\\u{code:04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _number(v: float) -> str:
    if math.isnan(v) or math.isinf(v):
        return "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")
    return json.marshal(float(v))


def _sorted(keys: Any) -> list[str]:
    return sorted(keys, key=lambda k: k.encode("utf-8", "surrogatepass"))


class _Decoder:
    """One pass over the value, writing its JSON text as protojson would, to know where each token starts."""

    def __init__(self, schema: Schema) -> None:
        self.schema = schema
        self.col = 1

    # --- the JSON text, for positions -----------------------------------------------------------

    def _raw(self, v: Any) -> str:
        """The token that starts value ``v``: ``{``, ``[``, or the whole scalar."""
        if isinstance(v, Mapping):
            return "{"
        if isinstance(v, list):
            return "["
        return self._text(v)

    def _text(self, v: Any) -> str:
        if v is None:
            return "null"
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int | float):
            return _number(v)
        if isinstance(v, str):
            return _string(v)
        if isinstance(v, list):
            return "[" + ",".join(self._text(x) for x in v) + "]"
        return "{" + ",".join(f"{_string(k)}:{self._text(v[k])}" for k in _sorted(v)) + "}"

    def _skip(self, v: Any) -> None:
        self.col += len(self._text(v))

    def _fail(self, what: str) -> _FirstError:
        return _FirstError(f"proto: (line 1:{self.col}): {what}")

    def _unexpected(self, v: Any) -> _FirstError:
        return _FirstError(f"proto: syntax error (line 1:{self.col}): unexpected token {self._raw(v)}")

    # --- decoding -------------------------------------------------------------------------------

    def message(self, v: Any, name: str) -> dict[str, Any]:
        if not isinstance(v, Mapping):
            raise self._unexpected(v)
        fields = self.schema.messages[name]
        by_name = {f.json_name: f for f in fields} | {f.name: f for f in fields}
        out: dict[str, Any] = {}
        seen: set[str] = set()
        oneofs: set[str] = set()
        self.col += 1
        for i, key in enumerate(_sorted(v)):
            self.col += 1 if i else 0
            f = by_name.get(key)
            if f is None:
                raise self._fail(f"unknown field {_string(key)}")
            if f.name in seen:
                raise self._fail(f"duplicate field {_string(key)}")
            seen.add(f.name)
            if f.oneof and v[key] is not None and not f.map and not f.repeated:
                if f.oneof in oneofs:
                    raise self._fail(f"error parsing {_string(key)}, oneof {f.oneof} is already set")
                oneofs.add(f.oneof)
            self.col += len(_string(key)) + 1
            if v[key] is None:
                self.col += 4
                continue
            out[f.to or f.name] = self._field(v[key], f)
        self.col += 1
        return out

    def _field(self, v: Any, f: Field) -> Any:
        if f.map:
            if not isinstance(v, Mapping):
                raise self._unexpected(v)
            out: dict[str, Any] = {}
            self.col += 1
            for i, key in enumerate(_sorted(v)):
                self.col += (1 if i else 0) + len(_string(key)) + 1
                out[key] = self._single(v[key], f)
            self.col += 1
            return out
        if f.repeated:
            if not isinstance(v, list):
                raise self._unexpected(v)
            items = []
            self.col += 1
            for i, item in enumerate(v):
                self.col += 1 if i else 0
                items.append(self._single(item, f))
            self.col += 1
            return items
        return self._single(v, f)

    def _single(self, v: Any, f: Field) -> Any:
        if f.kind == "message":
            return self.message(v, f.type)
        if f.kind == "struct":
            if not isinstance(v, Mapping):
                raise self._unexpected(v)
            self._skip(v)
            return v
        if f.kind == "duration":
            return self._duration(v)
        ok, out = self._scalar(v, f)
        if not ok:
            raise self._fail(f"invalid value for {f.kind} type: {self._raw(v)}")
        self._skip(v)
        return out

    def _scalar(self, v: Any, f: Field) -> tuple[bool, Any]:
        if f.kind == "string":
            return isinstance(v, str), v
        if f.kind == "bool":
            return isinstance(v, bool), v
        if f.kind == "bytes":
            decoded = _bytes(v) if isinstance(v, str) else None
            return decoded is not None, None if decoded is None else base64.b64encode(decoded).decode()
        # An enum: a value's name, or any int32.
        if isinstance(v, str):
            return v in self.schema.enums[f.type], v
        if isinstance(v, int | float) and not isinstance(v, bool) and float(v).is_integer():
            n = int(v)
            return _INT32[0] <= n <= _INT32[1], n
        return False, None

    def _duration(self, v: Any) -> str:
        if not isinstance(v, str):
            raise self._unexpected(v)
        m = _DURATION.fullmatch(v)
        if m is None:
            raise self._fail(f"invalid google.protobuf.Duration value {_string(v)}")
        seconds = int(m[2] or "0")
        if seconds > _MAX_DURATION_SECONDS:
            raise self._fail(f"google.protobuf.Duration value out of range: {_string(v)}")
        self._skip(v)
        sign = "-" if m[1] == "-" and (seconds or (m[3] or "").strip("0")) else ""
        return f"{sign}{seconds}.{(m[3] or '').ljust(9, '0')}s"


def _bytes(s: str) -> bytes | None:
    """protojson's base64: standard, or URL-safe when ``-`` or ``_`` appear; padded when the length says so."""
    url = "-" in s or "_" in s
    alphabet = r"A-Za-z0-9\-_" if url else r"A-Za-z0-9+/"
    body = s.replace("\r", "").replace("\n", "")
    if len(s) % 4 == 0:
        ok = re.fullmatch(f"[{alphabet}]*(?:[{alphabet}]{{2}}==|[{alphabet}]{{3}}=)?", body) is not None
        ok = ok and len(body) % 4 == 0
    else:
        ok = re.fullmatch(f"[{alphabet}]*", body) is not None and len(body) % 4 != 1
    if not ok:
        return None
    padded = body + "=" * (-len(body) % 4)
    try:
        return base64.urlsafe_b64decode(padded) if url else base64.b64decode(padded)
    except binascii.Error:
        return None


def unmarshal(v: Any, schema: Schema, message: str) -> dict[str, Any]:
    """Check JSON value ``v`` as message ``message`` of ``schema``; return it ready for ``json_format.ParseDict``.

    Raises :class:`~crossfn.errors.GoError` with protobuf-go's text for the
    first problem. ``v`` is the decoded JSON (``None`` for an absent value:
    :data:`EOF`).
    """
    if v is None:
        raise EOF
    try:
        return _Decoder(schema).message(v, message)
    except _FirstError as exc:
        raise errors.GoError(str(exc)) from None
