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
``uint64``             :class:`GoUint64`
``float64``            :class:`float`
``uint8`` (a byte)     :class:`Uint8`
``complex128``         :class:`complex`
``<nil>``              ``None``
``[]interface {}``     :class:`list`
``map[string]...``     :class:`dict` with str keys
``[]string``, ``[]int``  :class:`GoSlice` (its element type named)
``map[string]string``  :class:`GoMap` (its element type named)
named types            :class:`GoNamed` subclasses
=====================  ==========================

The last three exist for Go code whose results are not JSON-shaped: Sprig's
``splitList`` returns ``[]string``, ``until`` ``[]int``, ``split``
``map[string]string``, ``rest`` of an empty list a *nil* ``[]interface {}``
(which JSON writes as ``null``, not ``[]``), ``now`` a ``time.Time`` whose
methods a template calls (``now.Year``). A :class:`GoSlice` or :class:`GoMap`
is still a list or dict, so code that only reads elements needs no change;
code that prints a type name or compares types asks :func:`type_name`.

Python's ``1 == 1.0`` must never stand in for Go's type-strict equality; use
:func:`strict_equal`. :class:`GoInt` exists because Go's platform ``int``
appears in upstream unit tests and keeps its own name in messages; values from
a request are never ``GoInt``. Go's ``text/template`` adds three: an integer
constant in a template is an ``int`` (``GoInt``), indexing a string gives a
byte (:class:`Uint8`), ``1i`` is a ``complex128``; and functions a template
calls may return a struct (a :class:`GoNamed`, e.g. a Crossplane ``Condition``),
whose fields the template reads by name.

A Go string is a byte string that may hold invalid UTF-8 (a Join with a
multi-byte separator, a FromBase64 result). Such bytes are carried in Python
strings as lone surrogates U+DC80..U+DCFF, the ``surrogateescape`` convention;
:func:`to_bytes` and :func:`from_bytes` convert.
"""

from __future__ import annotations

import typing
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

if typing.TYPE_CHECKING:
    from crossfn.gocompat.gofunc import Func

__all__ = [
    "AnyKeyMap",
    "GoInt",
    "GoMap",
    "GoNamed",
    "GoSlice",
    "GoUint64",
    "Uint8",
    "a_json_type",
    "deep_copy_json",
    "from_bytes",
    "is_go_int",
    "is_nil",
    "json_type",
    "map_key_order",
    "strict_equal",
    "to_bytes",
    "type_name",
]


class GoInt(int):
    """A value of Go's platform ``int`` type (as opposed to ``int64``, a plain ``int``)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"GoInt({int(self)})"

    def __str__(self) -> str:
        return int.__repr__(self)  # str() and f-strings print the number, as for any int


class GoUint64(int):
    """A value of Go's ``uint64`` (``semver.Version.Major()`` returns one); never negative."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"GoUint64({int(self)})"

    def __str__(self) -> str:
        return int.__repr__(self)


class GoSlice(list[Any]):
    """A Go slice whose type is not ``[]interface {}`` (``[]string``, ``[]int``, ``[][]interface {}``),
    or a nil slice of any element type.

    ``elem`` is the element type's Go name. A nil slice (``nil=True``) is empty, prints ``[]`` with
    ``%v`` like an empty one, but is ``null`` in JSON, ``[]T(nil)`` with ``%#v``, and not
    ``reflect.DeepEqual`` to an empty slice. Treat values as immutable: build a new one rather
    than appending to a nil slice.
    """

    __slots__ = ("elem", "nil")

    def __init__(self, items: Iterable[Any] = (), *, elem: str = "interface {}", nil: bool = False) -> None:
        super().__init__(items)
        self.elem = elem
        self.nil = nil and not self

    def __repr__(self) -> str:
        if self.nil:
            return f"GoSlice(nil, elem={self.elem!r})"
        return f"GoSlice({list(self)!r}, elem={self.elem!r})"


class GoMap(dict[str, Any]):
    """A Go map with string keys whose element type is not ``interface {}`` (``map[string]string``)."""

    __slots__ = ("elem",)

    def __init__(self, items: Mapping[str, Any] | Iterable[tuple[str, Any]] = (), *, elem: str) -> None:
        super().__init__(items)
        self.elem = elem

    def __repr__(self) -> str:
        return f"GoMap({dict(self)!r}, elem={self.elem!r})"


class GoNamed:
    """A value of a named Go type the built-in Python types cannot stand for.

    A struct (``time.Time``, Sprig's ``certificate``), a pointer to one (``*semver.Version``) or a
    named integer (``time.Month``, ``time.Duration``, which subclass :class:`int` too). Subclasses
    set ``go_type`` (what ``%T`` prints) and ``go_kind`` (the ``reflect.Kind`` name: ``struct``,
    ``ptr``, ``int``, ``int64``). What a template can do with the value goes through four hooks:

    * :meth:`go_methods`: the exported methods a template may call (``.Year``, ``.Format "..."``),
      bound to the value, as :class:`~crossfn.gocompat.gofunc.Func`; a value's method set, or a
      pointer's, which includes its value's;
    * :meth:`go_fields`: the exported struct fields in declaration order (``.Cert``);
    * :meth:`go_string`: the ``String()`` result when the type is a ``fmt.Stringer``, which
      ``%v`` and ``%s`` print (``None`` when it is not);
    * :meth:`go_json`: what ``encoding/json`` writes for it.

    Subclasses define ``__eq__`` as ``reflect.DeepEqual`` does for the type.
    """

    __slots__ = ()

    go_type: ClassVar[str] = ""
    go_kind: ClassVar[str] = "struct"

    def go_methods(self) -> Mapping[str, Func]:
        """The exported methods callable on this value, bound to it, by Go name."""
        return {}

    def go_fields(self) -> Mapping[str, Any]:
        """The exported fields of a struct (or of the struct a pointer points to), in declaration order."""
        return {}

    def go_string(self) -> str | None:
        """``String()`` when the type implements ``fmt.Stringer``, else None (``%v`` prints the fields)."""
        return None

    def go_json(self) -> Any:
        """The value ``json.Marshal`` writes in this one's place.

        A ``MarshalJSON``/``MarshalText`` result as a model value (a string for ``time.Time``), or
        by default the exported fields as a mapping, which JSON writes in their declaration order.
        May raise :class:`~crossfn.errors.GoError` with the marshaler's error.
        """
        return self.go_fields()


def is_nil(v: object) -> bool:
    """Whether ``v`` is Go's nil: the nil interface (None) or a nil slice."""
    return v is None or (isinstance(v, GoSlice) and v.nil)


class AnyKeyMap(dict[Any, Any]):
    """A Go ``map[interface {}]interface {}``: what yaml.v3 reads a mapping with a non-string key as (``1: a``).

    Keys are model values (:class:`GoInt`, float, bool, str, None). Python holds ``1``, ``1.0`` and
    ``True`` equal, so such keys collapse into one, where Go keeps them apart.
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return f"AnyKeyMap({dict(self)!r})"


def map_key_order(key: Any) -> tuple[int, Any]:
    """The order Go's ``fmtsort`` gives map keys (``%v`` of a map, ``range``): strings by their bytes,
    numbers by value, false before true; keys of different types, in a ``map[interface {}]``, by kind."""
    if key is None:
        return 0, 0
    if isinstance(key, bool):
        return 1, int(key)
    if isinstance(key, int | float):
        return 2, key
    if isinstance(key, str):
        return 3, to_bytes(key)
    return 4, repr(key)


class Uint8(int):
    """A Go ``uint8`` (``byte``): what indexing a string gives."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"Uint8({int(self)})"


def is_go_int(v: object) -> bool:
    """Whether ``v`` is a Go integer (``int`` or ``int64``); Python bools are not."""
    return isinstance(v, int) and not isinstance(v, bool)


def type_name(v: object) -> str:
    """The name Go's ``%T`` prints for the dynamic type of ``v``."""
    if v is None:
        return "<nil>"
    if isinstance(v, GoNamed):
        return v.go_type
    if isinstance(v, GoSlice):
        return "[]" + v.elem
    if isinstance(v, GoMap):
        return "map[string]" + v.elem
    if isinstance(v, AnyKeyMap):
        return "map[interface {}]interface {}"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, GoInt):
        return "int"
    if isinstance(v, Uint8):
        return "uint8"
    if isinstance(v, GoUint64):
        return "uint64"
    if isinstance(v, int):
        return "int64"
    if isinstance(v, float):
        return "float64"
    if isinstance(v, str):
        return "string"
    if isinstance(v, complex):
        return "complex128"
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
    "uint64": "number",
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
    if type_name(a) != type_name(b) or is_nil(a) != is_nil(b):
        return False
    if isinstance(a, GoNamed):
        return bool(a == b)
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
