"""Go's ``encoding/json``: Marshal, and Unmarshal with Go's error texts.

Go code hashes, compares and prints JSON it produced itself, so the bytes must
be Go's (upstream pt-6.8): compact, object keys sorted by
bytes, ``<``, ``>``, ``&``, U+2028 and U+2029 escaped, one ``\\ufffd`` per
invalid UTF-8 byte, integral floats without a fraction, exponent form only
below 1e-6 or from 1e21 (``1e-7``, ``1e+21``). ``\\b`` and ``\\f`` use the short
escapes, as Go has since 1.22 (function-patch-and-transform is built with Go 1.25).

Decoding first checks the syntax with a byte scanner that reports the first
error as Go's scanner does (``invalid character 'x' after object key``,
``unexpected end of JSON input``), then builds the value without recursion, so
Go's nesting limit of 10000 applies rather than Python's recursion limit.
Numbers decode as float64, as Go's decoder does into ``interface{}``; with
``integers=True`` they decode as the Kubernetes unstructured decoder does, to
int64 when the literal is an integer that fits.
"""

from __future__ import annotations

import json as _stdjson
import math
import re
from collections.abc import Mapping
from typing import Any

from crossfn import errors
from crossfn.gocompat import strconv, values

__all__ = [
    "Struct",
    "marshal",
    "syntax_error",
    "type_error",
    "unmarshal",
    "unmarshal_array",
    "unmarshal_object",
]

_MAX_DEPTH = 10000
_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1


class Struct(dict[str, Any], values.GoNamed):
    """A Go struct built on the fly: its fields, which JSON writes in the order given (a map's are sorted).

    Still a ``dict``, so code that reads it (or writes it as YAML, where sigs.k8s.io/yaml sorts
    every key anyway) needs nothing special.
    """

    __slots__ = ()
    go_type = "struct"

    def go_fields(self) -> Mapping[str, Any]:
        return self


def marshal(v: Any, *, escape_html: bool = True, indent: str | None = None) -> str:
    """Go's ``json.Marshal`` of a value of the Go value model, as text.

    ``escape_html=False`` is an ``Encoder`` with ``SetEscapeHTML(false)`` (``<``, ``>`` and ``&``
    stay as they are; U+2028 and U+2029 are escaped regardless). ``indent`` is
    ``json.MarshalIndent(v, "", indent)``. A nil slice is ``null``; a named type writes what its
    :meth:`~crossfn.gocompat.values.GoNamed.go_json` gives, a struct's fields in their order. A map
    or list that contains itself fails as Go's does (``encountered a cycle via ...``). The walk
    keeps its own stack, so nesting as deep as Go's decoder allows encodes too.
    """
    encoder = _Encoder(escape_html, indent)
    encoder.encode(v)
    return "".join(encoder.out)


class _Encoder:
    """One Marshal: an explicit stack of open containers, so depth is not bounded by Python's recursion."""

    def __init__(self, escape_html: bool, indent: str | None) -> None:
        self.out: list[str] = []
        self.escape_html = escape_html
        self.indent = indent
        self.open: set[int] = set()  # ids of the maps and lists being written, for cycle detection

    def encode(self, root: Any) -> None:
        # A frame: (the container's id or 0, an iterator of (key or None, value), closing bracket, depth).
        stack: list[tuple[int, Any, str, int]] = []
        pending: list[tuple[str | None, Any]] = [(None, root)]
        depth = 0
        first = True
        while True:
            if pending:
                key, value = pending.pop()
                if not first:
                    self.out.append(",")
                if stack:
                    self._newline(depth)
                if key is not None:
                    self.out.append(_string(key, self.escape_html))
                    self.out.append(": " if self.indent is not None else ":")
                first = False
                opened = self._value(value)
                if opened is not None:
                    ident, items, close = opened
                    stack.append((ident, iter(items), close, depth))
                    depth += 1
                    first = True
                continue
            if not stack:
                return
            ident, items, close, outer = stack[-1]
            item = next(items, None)
            if item is not None:
                pending.append(item)
                continue
            stack.pop()
            self.open.discard(ident)
            if not first:
                self._newline(outer)
            self.out.append(close)
            depth = outer
            first = False

    def _newline(self, depth: int) -> None:
        if self.indent is not None:
            self.out.append("\n" + self.indent * depth)

    def _value(self, v: Any) -> tuple[int, list[tuple[str | None, Any]], str] | None:
        """Write a scalar, or open a container and return its id, its entries and its closing bracket."""
        if isinstance(v, values.GoNamed):
            v = v.go_json()
            if isinstance(v, Mapping):  # a struct's fields, in declaration order
                self.out.append("{")
                return 0, [(str(k), field) for k, field in v.items()], "}"
        if v is None or values.is_nil(v):
            self.out.append("null")
        elif isinstance(v, bool):
            self.out.append("true" if v else "false")
        elif isinstance(v, int):
            self.out.append(str(int(v)))
        elif isinstance(v, float):
            self.out.append(_float(v))
        elif isinstance(v, str):
            self.out.append(_string(v, self.escape_html))
        elif isinstance(v, Mapping | list | tuple):
            return self._container(v)
        else:
            raise errors.GoError(f"json: unsupported type: {values.type_name(v)}")
        return None

    def _container(self, v: Mapping[str, Any] | list[Any] | tuple[Any, ...]) -> tuple[int, list[Any], str]:
        ident = id(v)
        if ident in self.open:
            raise errors.GoError(f"json: unsupported value: encountered a cycle via {values.type_name(v)}")
        self.open.add(ident)
        if isinstance(v, Mapping):
            self.out.append("{")
            keys = sorted(v, key=lambda k: values.to_bytes(str(k)))
            return ident, [(str(k), v[k]) for k in keys], "}"
        self.out.append("[")
        return ident, [(None, item) for item in v], "]"


def _float(f: float) -> str:
    if math.isnan(f) or math.isinf(f):
        raise errors.GoError(f"json: unsupported value: {strconv.format_float(f, 'g', -1)}")
    magnitude = abs(f)
    if magnitude != 0 and (magnitude < 1e-6 or magnitude >= 1e21):
        text = strconv.format_float(f, "e", -1)
        # Go cleans e-07 up to e-7, but leaves e+21 alone.
        if len(text) >= 4 and text[-4] == "e" and text[-3] == "-" and text[-2] == "0":
            text = text[:-2] + text[-1]
        return text
    return strconv.format_float(f, "f", -1)


_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}


def _string(s: str, escape_html: bool = True) -> str:
    out = ['"']
    for ch in s:
        code = ord(ch)
        if ch in _SHORT_ESCAPES:
            out.append(_SHORT_ESCAPES[ch])
        elif code < 0x20 or (escape_html and ch in "<>&") or code in (0x2028, 0x2029):
            out.append(f"\\u{code:04x}")
        elif 0xD800 <= code <= 0xDFFF:
            # An invalid UTF-8 byte (or a stray surrogate): Go writes U+FFFD per byte.
            out.append("\\ufffd")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def unmarshal(data: str, *, integers: bool = False) -> Any:
    """Go's ``json.Unmarshal`` into ``interface{}``; raise :class:`errors.GoError` with Go's text."""
    _check_valid(values.to_bytes(data))
    return _build(_valid_utf8(data), integers)


_TOKEN = re.compile(r'[ \t\n\r]*(?:("(?:[^"\\]|\\.)*")|([-0-9][-+0-9.eE]*)|(true|false|null)|([{}\[\]:,]))')
_LITERALS: dict[str, Any] = {"true": True, "false": False, "null": None}


def _build(text: str, integers: bool) -> Any:
    """Build the value of syntactically valid JSON without recursion (Go allows 10000 levels)."""
    frames: list[list[Any]] = []  # [container, pending object key or None]
    result: Any = None
    for m in _TOKEN.finditer(text):
        string, number, literal, punct = m.groups()
        if punct is not None:
            if punct in "{[":
                frames.append([{} if punct == "{" else [], None])
            elif punct in "}]":
                value = frames.pop()[0]
                result = _attach(frames, value, result)
            continue
        if string is not None:
            value = _valid_utf8(_stdjson.loads(string))
            frame = frames[-1] if frames else None
            if frame is not None and isinstance(frame[0], dict) and frame[1] is None:
                frame[1] = value
                continue
        elif number is not None:
            value = _number(number, integers)
        else:
            value = _LITERALS[literal]
        result = _attach(frames, value, result)
    return result


def _attach(frames: list[list[Any]], value: Any, result: Any) -> Any:
    if not frames:
        return value
    container, key = frames[-1]
    if isinstance(container, dict):
        container[key] = value
        frames[-1][1] = None
    else:
        container.append(value)
    return result


def _number(literal: str, integers: bool) -> int | float:
    """float64, as Go decodes into ``interface{}``; int64 for integer literals with ``integers``."""
    if integers and "." not in literal and "e" not in literal and "E" not in literal:
        n = int(literal)
        if _INT64_MIN <= n <= _INT64_MAX:
            return n
    f = float(literal)
    if math.isinf(f):
        raise errors.GoError(f"json: cannot unmarshal number {literal} into Go value of type float64")
    return f


def unmarshal_object(data: str) -> dict[str, Any] | None:
    """Go's ``json.Unmarshal`` into ``map[string]any``: JSON null gives None (a nil map)."""
    v = unmarshal(data)
    if v is None or isinstance(v, dict):
        return v
    raise type_error(v, "map[string]interface {}")


def unmarshal_array(data: str) -> list[Any] | None:
    """Go's ``json.Unmarshal`` into ``[]any``: JSON null gives None (a nil slice)."""
    v = unmarshal(data)
    if v is None or isinstance(v, list):
        return v
    raise type_error(v, "[]interface {}")


def type_error(v: Any, go_type: str) -> errors.GoError:
    """Go's ``UnmarshalTypeError`` for decoded JSON ``v`` that does not fit ``go_type``."""
    kind = values.json_type(v)
    return errors.GoError(
        f"json: cannot unmarshal {_GO_KINDS.get(kind, kind)} into Go value of type {go_type}"
    )


_GO_KINDS = {"boolean": "bool"}


def _valid_utf8(s: str) -> str:
    """Go replaces each invalid UTF-8 byte of a decoded string with U+FFFD."""
    if not any(0xD800 <= ord(c) <= 0xDFFF for c in s):
        return s
    return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in s)


# The syntax check. It walks bytes, as Go's scanner does, so that the first
# error is found at the same byte and described with Go's words.

_WS = b" \t\n\r"
_DIGITS = b"0123456789"
_HEX = b"0123456789abcdefABCDEF"


class _Scanner:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.i = 0

    def peek(self) -> int | None:
        return self.data[self.i] if self.i < len(self.data) else None

    def skip_ws(self) -> int | None:
        while self.i < len(self.data) and self.data[self.i] in _WS:
            self.i += 1
        return self.peek()

    def fail(self, context: str) -> errors.GoError:
        c = self.peek()
        if c is None:
            return errors.GoError("unexpected end of JSON input")
        return errors.GoError(f"invalid character {_quote_char(c)} {context}")


def _quote_char(c: int) -> str:
    if c == ord("'"):
        return "'\\''"
    if c == ord('"'):
        return "'\"'"
    return "'" + strconv.quote(chr(c))[1:-1] + "'"


def syntax_error(data: str) -> tuple[str, int] | None:
    """Go's ``*json.SyntaxError`` for ``data``, if it is not valid JSON: its text and its ``Offset``
    (the bytes read, the bad one included); None for valid JSON."""
    raw = values.to_bytes(data)
    s = _Scanner(raw)
    try:
        _check_valid(raw, s)
    except errors.GoError as exc:
        return str(exc), min(s.i + 1, len(raw))
    return None


def _check_valid(data: bytes, s: _Scanner | None = None) -> None:
    s = s or _Scanner(data)
    stack: list[int] = []  # open containers: ord("{") or ord("[")
    while True:
        _scan_value_start(s, stack)
        # After a complete value: close containers or move to the next element.
        while True:
            c = s.skip_ws()
            if not stack:
                if c is not None:
                    raise s.fail("after top-level value")
                return
            top = stack[-1]
            if top == ord("{"):
                if c == ord(","):
                    s.i += 1
                    _scan_key(s)
                    break
                if c == ord("}"):
                    s.i += 1
                    stack.pop()
                    continue
                raise s.fail("after object key:value pair")
            if c == ord(","):
                s.i += 1
                break
            if c == ord("]"):
                s.i += 1
                stack.pop()
                continue
            raise s.fail("after array element")


def _scan_value_start(s: _Scanner, stack: list[int]) -> None:
    """Scan one value; containers are opened on ``stack`` and left for the caller to close."""
    while True:
        c = s.skip_ws()
        if c == ord("{") or c == ord("["):
            if len(stack) >= _MAX_DEPTH:
                raise s.fail("exceeded max depth")
            s.i += 1
            closing = ord("}") if c == ord("{") else ord("]")
            if s.skip_ws() == closing:
                s.i += 1
                return
            stack.append(c)
            if c == ord("{"):
                _scan_key(s)
            continue
        _scan_scalar(s, c)
        return


def _scan_key(s: _Scanner) -> None:
    if s.skip_ws() != ord('"'):
        raise s.fail("looking for beginning of object key string")
    _scan_string(s)
    if s.skip_ws() != ord(":"):
        raise s.fail("after object key")
    s.i += 1


def _scan_scalar(s: _Scanner, c: int | None) -> None:
    if c == ord('"'):
        _scan_string(s)
    elif c == ord("-") or (c is not None and c in _DIGITS):
        _scan_number(s)
    elif c in (ord("t"), ord("f"), ord("n")):
        word = {ord("t"): b"true", ord("f"): b"false", ord("n"): b"null"}[c]
        s.i += 1
        for expected in word[1:]:
            if s.peek() != expected:
                raise s.fail(f"in literal {word.decode()} (expecting {_quote_char(expected)})")
            s.i += 1
    else:
        raise s.fail("looking for beginning of value")


def _scan_string(s: _Scanner) -> None:
    s.i += 1  # the opening quote
    while True:
        c = s.peek()
        if c is None:
            raise s.fail("")
        s.i += 1
        if c == ord('"'):
            return
        if c < 0x20:
            s.i -= 1
            raise s.fail("in string literal")
        if c == ord("\\"):
            e = s.peek()
            if e == ord("u"):
                s.i += 1
                for _ in range(4):
                    h = s.peek()
                    if h is None or h not in _HEX:
                        raise s.fail("in \\u hexadecimal character escape")
                    s.i += 1
            elif e is not None and e in b'"\\/bfnrt':
                s.i += 1
            else:
                raise s.fail("in string escape code")


def _scan_number(s: _Scanner) -> None:
    if s.peek() == ord("-"):
        s.i += 1
        c = s.peek()
        if c is None or c not in _DIGITS:
            raise s.fail("in numeric literal")
    if s.peek() == ord("0"):
        s.i += 1
    else:
        _digits(s)
    if s.peek() == ord("."):
        s.i += 1
        c = s.peek()
        if c is None or c not in _DIGITS:
            raise s.fail("after decimal point in numeric literal")
        _digits(s)
    if s.peek() in (ord("e"), ord("E")):
        s.i += 1
        if s.peek() in (ord("+"), ord("-")):
            s.i += 1
        c = s.peek()
        if c is None or c not in _DIGITS:
            raise s.fail("in exponent of numeric literal")
        _digits(s)


def _digits(s: _Scanner) -> None:
    while (c := s.peek()) is not None and c in _DIGITS:
        s.i += 1
