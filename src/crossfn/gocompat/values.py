"""The Go runtime value model that crossfn's Go emulation works on.

Go code such as function-patch-and-transform handles JSON-shaped values of a
handful of dynamic types, and its output depends on which type it holds: ``%d``
prints an ``int64`` but not a ``float64``, ``convert`` picks its conversion by
type name, and error texts quote the type (``type float64 is not supported``).
crossfn maps them onto Python values one to one (upstream pt-4):

=====================  ==========================
Go                     Python
=====================  ==========================
``string``             :class:`str`
``bool``               :class:`bool`
``int64``              :class:`int`
``int``                :class:`GoInt`
``float64``            :class:`float`
``<nil>``              ``None``
``[]interface {}``     :class:`list`
``map[string]...``     :class:`dict` with str keys
``uint8`` (a byte)     :class:`Uint8`
``complex128``         :class:`complex`
a struct               :class:`Struct`
=====================  ==========================

Python's ``1 == 1.0`` must never stand in for Go's type-strict equality; use
:func:`strict_equal`. :class:`GoInt` exists because Go's platform ``int``
appears in upstream unit tests and keeps its own name in messages; values from
a request are never ``GoInt``. Go's ``text/template`` adds three: an integer
constant in a template is an ``int`` (``GoInt``), indexing a string gives a
byte (:class:`Uint8`), ``1i`` is a ``complex128``; and functions a template
calls may return a struct (:class:`Struct`, e.g. a Crossplane ``Condition``),
whose fields the template reads by name.

A Go string is a byte string that may hold invalid UTF-8 (a Join with a
multi-byte separator, a FromBase64 result). Such bytes are carried in Python
strings as lone surrogates U+DC80..U+DCFF, the ``surrogateescape`` convention;
:func:`to_bytes` and :func:`from_bytes` convert.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = [
    "GoInt",
    "Struct",
    "Uint8",
    "a_json_type",
    "deep_copy_json",
    "from_bytes",
    "is_go_int",
    "json_type",
    "strict_equal",
    "to_bytes",
    "type_name",
]


class GoInt(int):
    """A value of Go's platform ``int`` type (as opposed to ``int64``, a plain ``int``)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"GoInt({int(self)})"


class Uint8(int):
    """A Go ``uint8`` (``byte``): what indexing a string gives."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"Uint8({int(self)})"


class Struct:
    """A Go struct value: its type's name as ``%T`` prints it, and its exported fields in order.

    ``string`` is what the type's ``String()`` method returns when it has one
    (``fmt`` prints that instead of the fields, as Go's does for a
    ``fmt.Stringer``); None when it has none.
    """

    __slots__ = ("fields", "go_type", "string")

    def __init__(self, go_type: str, fields: Mapping[str, Any], *, string: str | None = None) -> None:
        self.go_type = go_type
        self.fields = dict(fields)
        self.string = string

    def __repr__(self) -> str:
        return f"Struct({self.go_type!r}, {self.fields!r})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Struct)
            and self.go_type == other.go_type
            and self.fields.keys() == other.fields.keys()
            and all(strict_equal(v, other.fields[k]) for k, v in self.fields.items())
        )

    __hash__ = None  # type: ignore[assignment]  # mutable fields: equality only, as a Go struct with maps


def is_go_int(v: object) -> bool:
    """Whether ``v`` is a Go integer (``int`` or ``int64``); Python bools are not."""
    return isinstance(v, int) and not isinstance(v, bool)


def type_name(v: object) -> str:
    """The name Go's ``%T`` prints for the dynamic type of ``v``."""
    if v is None:
        return "<nil>"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, GoInt):
        return "int"
    if isinstance(v, Uint8):
        return "uint8"
    if isinstance(v, int):
        return "int64"
    if isinstance(v, float):
        return "float64"
    if isinstance(v, str):
        return "string"
    if isinstance(v, complex):
        return "complex128"
    if isinstance(v, Struct):
        return v.go_type
    if isinstance(v, Mapping):
        return "map[string]interface {}"
    if isinstance(v, list | tuple):
        return "[]interface {}"
    return type(v).__name__


def json_type(v: object) -> str:
    """The JSON type of a decoded value, for messages: ``null``, ``boolean``, ``number``, ``string``,
    ``array`` or ``object`` (a value JSON cannot hold gives its Python type's name)."""
    name = type_name(v)
    return _JSON_TYPES.get(name, name)


_JSON_TYPES = {
    "<nil>": "null",
    "bool": "boolean",
    "int": "number",
    "int64": "number",
    "float64": "number",
    "string": "string",
    "map[string]interface {}": "object",
    "[]interface {}": "array",
}


def a_json_type(v: object) -> str:
    """:func:`json_type` with its article, for ``must be an object, not a string``; ``null`` has none."""
    name = json_type(v)
    if v is None:
        return name
    return f"an {name}" if name[0] in "aeiou" else f"a {name}"


def deep_copy_json(value: Any) -> Any:
    """A copy of decoded JSON (maps, lists, scalars), as apimachinery's ``runtime.DeepCopyJSONValue``.

    Maps come back as dicts. Several times faster than ``copy.deepcopy``.
    """
    if isinstance(value, Mapping):
        return {k: deep_copy_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [deep_copy_json(v) for v in value]
    return value


def strict_equal(a: Any, b: Any) -> bool:
    """Go's ``reflect.DeepEqual`` on values of this model: types must match too."""
    if type_name(a) != type_name(b):
        return False
    if isinstance(a, Mapping):
        return a.keys() == b.keys() and all(strict_equal(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(strict_equal(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def to_bytes(s: str) -> bytes:
    """The bytes of a Go string, restoring invalid UTF-8 carried as lone surrogates.

    A surrogate outside the escape range cannot come from Go; it encodes as
    U+FFFD, which is what Go makes of a surrogate code point.
    """
    try:
        return s.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return "".join(_fix_surrogate(c) for c in s).encode("utf-8", "surrogateescape")


def _fix_surrogate(c: str) -> str:
    return "\ufffd" if "\ud800" <= c < "\udc80" or "\udd00" <= c <= "\udfff" else c


def from_bytes(b: bytes) -> str:
    """A Go string from raw bytes; invalid UTF-8 is kept as lone surrogates."""
    return b.decode("utf-8", "surrogateescape")
