"""Go's JSON decoding into a Go struct: which keys land, and the error text when one does not fit.

Functions written with function-sdk-go read their input with
``request.GetInput``: the input Struct is marshalled to JSON and decoded into
the input type with go-json-experiment (``resource.AsObject``). function-sdk-go
v0.1.0 (and its builds to January 2024) calls its ``json.Unmarshal`` without
options (:data:`V2`); from v0.2.0 (February 2024) on with
``RejectUnknownMembers`` (:data:`STRICT`). The function wraps the error and
shows it to the user, so the texts matter. ``encoding/json`` (:data:`LENIENT`)
is what Go code uses that decodes with it directly or through
``sigs.k8s.io/yaml``: crossplane-runtime's ``fieldpath`` ``GetValueInto``, a
typed round trip of a Kubernetes object.

``encoding/json`` (lenient):

* unknown keys are ignored; a key matches a field by its JSON name exactly,
  else case-insensitively (``Rules`` fills ``rules``); a later duplicate wins;
* ``null`` leaves a field at its zero value;
* a value of the wrong JSON type is an ``UnmarshalTypeError``, reported as
  ``json: cannot unmarshal <string|number|bool|array|object> into Go struct
  field <Struct>.<path> of type <Go type>``, where ``<Struct>`` is the
  innermost struct type being filled and ``<path>`` the JSON names from the
  top (``SequencingRule.rules.sequence``); decoding goes on and the first
  such error is returned.

go-json-experiment with ``RejectUnknownMembers`` (strict), as vendored by
function-sdk-go (2023-10 and 2024-08 builds, one error format):

* a key must be a field's JSON name exactly; any other key is ``json: cannot
  unmarshal Go value of type <Struct>: unknown name "<key>"``;
* a value of the wrong JSON type is ``json: cannot unmarshal JSON
  <string|number|boolean|array|object> into Go value of type <Go type>``;
  a number that is no ``uint64`` adds ``: cannot parse "<number>" as unsigned
  integer: invalid syntax`` (or ``value out of range``), the number as the
  input's JSON spelled it (Go's float formatting: ``-1``, ``1.5``, ``1e+21``);
* decoding stops at the first error. (The library picks "cannot" or "unable
  to" at random per process, on purpose; crossfn always says "cannot".)

go-json-experiment without ``RejectUnknownMembers`` (:data:`V2`), which
function-sdk-go v0.1.0 up to its January 2024 builds call (2023-10 build): as
strict (names matched exactly: ``Rules`` is not ``rules``), but an unknown
key is skipped.

A type is described by :class:`Struct`, :class:`Slice`, :class:`Map` and
:class:`Scalar` (``string``, ``bool``, ``uint64``, ``int64``, ``int32``, ``metav1.Time``,
or a named type over one of them, such as ``resource.Name``); pointers need no
type of their own, since Go reports the pointed-to type. :func:`decode`
returns the value with only the known fields, each under its JSON name, and
``null`` fields left out. A number must be whole and fit its type (``json:
cannot unmarshal number 1.5 into Go struct field ...``); a ``metav1.Time`` is
an RFC 3339 string, kept in UTC to the second as Kubernetes writes it.

:func:`encode` writes a decoded value back as ``encoding/json`` marshals the
struct: a field marked ``omitempty`` is left out when it is empty (``""``, 0,
``false``, an empty list or map, a nil pointer), one marked ``omitzero`` when
it is the zero value, and every other field is written, as its zero value
when it was not set (``""``, 0, ``false``, ``null`` for a nil list, map or
pointer, and the nested struct's own encoding for a struct). This is how a
Kubernetes object comes out of a typed Go round trip: unknown keys dropped,
empty optional fields gone, required ones present (``mode: ""``,
``pipeline: null``).
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Mapping
from typing import Any

from crossfn import errors
from crossfn.gocompat import json
from crossfn.gocompat import time as gotime

__all__ = [
    "ANY",
    "BOOL",
    "INT32",
    "INT64",
    "LENIENT",
    "STRICT",
    "STRING",
    "TIME",
    "UINT64",
    "V2",
    "Map",
    "Scalar",
    "Slice",
    "Struct",
    "Type",
    "decode",
    "decode_value",
    "encode",
]

LENIENT = "encoding/json"
STRICT = "go-json-experiment"
V2 = "go-json-experiment without RejectUnknownMembers"

_MAX_UINT64 = 2**64 - 1


@dataclasses.dataclass(frozen=True)
class Scalar:
    """A Go ``string``, ``bool`` or ``uint64``, or a named type over one (``go`` is how ``%v`` of its type prints)."""

    kind: str
    """``"string"``, ``"bool"``, ``"uint64"``, ``"int64"``, ``"int32"``, ``"time"`` (``metav1.Time``), or
    ``"any"`` (a value kept as it is, such as ``metadata`` or a ``runtime.RawExtension``)."""
    go: str = ""

    @property
    def name(self) -> str:
        return self.go or self.kind


@dataclasses.dataclass(frozen=True)
class Slice:
    elem: Type

    @property
    def name(self) -> str:
        return f"[]{self.elem.name}"


@dataclasses.dataclass(frozen=True)
class Map:
    """A ``map[string]<elem>``."""

    elem: Type

    @property
    def name(self) -> str:
        return f"map[string]{self.elem.name}"


@dataclasses.dataclass(frozen=True)
class Struct:
    """A Go struct: its qualified type name (``v1beta1.Input``) and its fields by JSON name."""

    go: str
    fields: Mapping[str, Type]
    omitempty: frozenset[str] = frozenset()
    """Fields tagged ``omitempty`` (for :func:`encode`)."""
    pointers: frozenset[str] = frozenset()
    """Fields that are pointers: set, even to an empty value, they are written (for :func:`encode`)."""
    omitzero: frozenset[str] = frozenset()
    """Fields tagged ``omitzero``, such as ``metadata.creationTimestamp`` (for :func:`encode`)."""

    @property
    def name(self) -> str:
        return self.go

    @property
    def short(self) -> str:
        """The name without its package, as ``reflect.Type.Name`` gives it in errors."""
        return self.go.rpartition(".")[2]


Type = Scalar | Slice | Map | Struct

STRING = Scalar("string")
BOOL = Scalar("bool")
UINT64 = Scalar("uint64")
INT64 = Scalar("int64")
INT32 = Scalar("int32")
TIME = Scalar("time", "v1.Time")
ANY = Scalar("any", "interface {}")

_INT_RANGES = {"int64": 2**63, "int32": 2**31}
_NUMBERS = frozenset({"uint64", *_INT_RANGES})


class _Stop(Exception):  # noqa: N818 -- a control-flow signal: strict decoding stops at the first error
    """The first strict-mode error: decoding stops."""


@dataclasses.dataclass
class _Context:
    strict: bool
    """go-json-experiment's names and texts (exact names, first error stops); else encoding/json's."""
    reject_unknown: bool
    struct: str = ""
    stack: tuple[str, ...] = ()
    first: errors.GoError | None = None


def _json_kind(v: object, strict: bool) -> str:
    if isinstance(v, bool):
        return "boolean" if strict else "bool"
    if isinstance(v, int | float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def _mismatch(ctx: _Context, v: object, t: Type, cause: str = "") -> None:
    if ctx.first is not None:
        return
    got = _json_kind(v, ctx.strict)
    if ctx.strict:
        ctx.first = errors.GoError(f"json: cannot unmarshal JSON {got} into Go value of type {t.name}{cause}")
        raise _Stop
    if got == "number" and isinstance(t, Scalar) and t.kind in _NUMBERS:
        got = f"number {json.marshal(v)}"  # a number Go cannot store in a number field shows; into another kind, not
    where = f"Go struct field {ctx.struct}.{'.'.join(ctx.stack)}" if ctx.struct or ctx.stack else "Go value"
    ctx.first = errors.GoError(f"json: cannot unmarshal {got} into {where} of type {t.name}")


def _uint64(v: Any, t: Scalar, ctx: _Context) -> int | None:
    """A JSON number as a Go ``uint64``: whole, not negative, below 2**64; else the decoder's error."""
    if isinstance(v, bool) or not isinstance(v, int | float):
        _mismatch(ctx, v, t)
        return None
    if (isinstance(v, float) and not v.is_integer()) or v < 0 or v > _MAX_UINT64:
        text = json.marshal(v)
        # Go reads the digits first: digits only means too big, anything else is no unsigned integer.
        reason = "value out of range" if text.isdigit() else "invalid syntax"
        _mismatch(ctx, v, t, f": cannot parse {errors.quote(text)} as unsigned integer: {reason}")
        return None
    return int(v)


def _int(v: object, t: Scalar, ctx: _Context) -> int | None:
    """A whole number that fits ``t``; else Go's error, which quotes the number as JSON wrote it."""
    if isinstance(v, bool) or not isinstance(v, int | float):
        _mismatch(ctx, v, t)
        return None
    bound = _INT_RANGES[t.kind]
    whole = None if isinstance(v, float) and not v.is_integer() else int(v)
    if whole is None or not -bound <= whole < bound:
        _mismatch(ctx, v, t)
        return None
    return whole


def _time(v: object, ctx: _Context) -> str | None:
    """``metav1.Time.UnmarshalJSON``: an RFC 3339 string, written back in UTC to the second."""
    if not isinstance(v, str):
        if ctx.first is None:
            ctx.first = errors.GoError(
                f"json: cannot unmarshal {_json_kind(v, False)} into Go value of type string"
            )
        return None
    try:
        return gotime.format_rfc3339(gotime.parse_rfc3339(v))
    except errors.GoError as exc:
        if ctx.first is None:
            ctx.first = exc
        return None


def _field(st: Struct, key: str, strict: bool) -> str | None:
    if key in st.fields or strict:
        return key if key in st.fields else None
    folded = key.casefold()
    return next((name for name in st.fields if name.casefold() == folded), None)


def _value(v: Any, t: Type, ctx: _Context) -> Any:
    if v is None:
        return None
    if isinstance(t, Scalar) and t.kind == "any":
        return v
    if isinstance(t, Scalar):
        if t.kind == "uint64":
            return _uint64(v, t, ctx)
        if t.kind in _INT_RANGES:
            return _int(v, t, ctx)
        if t.kind == "time":
            return _time(v, ctx)
        ok = isinstance(v, bool) if t.kind == "bool" else isinstance(v, str)
        if ok:
            return v
        _mismatch(ctx, v, t)
        return None
    if isinstance(t, Slice):
        if not isinstance(v, list):
            _mismatch(ctx, v, t)
            return None
        return [_value(item, t.elem, ctx) for item in v]
    if not isinstance(v, Mapping):
        _mismatch(ctx, v, t)
        return None
    if isinstance(t, Map):
        return {k: _value(item, t.elem, ctx) for k, item in v.items()}
    return _struct(v, t, ctx)


def _struct(v: Mapping[str, Any], st: Struct, ctx: _Context) -> dict[str, Any]:
    out: dict[str, Any] = {}
    outer_struct, outer_stack = ctx.struct, ctx.stack
    for key, item in v.items():
        name = _field(st, key, ctx.strict)
        if name is None:
            if ctx.reject_unknown:
                ctx.first = errors.GoError(
                    f"json: cannot unmarshal Go value of type {st.go}: unknown name {json.marshal(key)}"
                )
                raise _Stop
            continue
        ctx.struct, ctx.stack = st.short, (*outer_stack, name)
        decoded = _value(item, st.fields[name], ctx)
        if decoded is None:
            out.pop(name, None)
        else:
            out[name] = decoded
    ctx.struct, ctx.stack = outer_struct, outer_stack
    return out


def decode(v: Mapping[str, Any], st: Struct, *, decoder: str) -> dict[str, Any]:
    """Decode the JSON object ``v`` into ``st`` with ``decoder`` (:data:`LENIENT`, :data:`STRICT` or :data:`V2`).

    Returns the known, non-null fields; raises :class:`~crossfn.errors.GoError`
    with the decoder's text for the first error.
    """
    ctx = _Context(strict=decoder in (STRICT, V2), reject_unknown=decoder == STRICT)
    with contextlib.suppress(_Stop):
        out = _struct(v, st, ctx)
    if ctx.first is not None:
        raise ctx.first
    return out


def decode_value(v: Any, t: Type, *, decoder: str) -> Any:
    """Decode the JSON value ``v`` into a Go value of type ``t`` (not only a struct), as :func:`decode` does.

    A mismatch at the top is ``json: cannot unmarshal number into Go value of type map[string]interface {}``.
    """
    ctx = _Context(strict=decoder in (STRICT, V2), reject_unknown=decoder == STRICT)
    out = None
    with contextlib.suppress(_Stop):
        out = _value(v, t, ctx)
    if ctx.first is not None:
        raise ctx.first
    return out


def _zero(t: Type) -> Any:
    """What ``encoding/json`` writes for an unset field of type ``t`` that is written."""
    if isinstance(t, Struct):
        return encode({}, t)
    if isinstance(t, Scalar):
        return {"string": "", "bool": False, "int64": 0, "int32": 0}.get(t.kind)
    return None  # a nil list, map, pointer, interface, and a zero metav1.Time (its MarshalJSON writes null)


def _empty(value: Any) -> bool:
    """Go's ``omitempty`` test on a decoded value: ``""``, 0, ``false``, an empty list or map."""
    return value is False or value in ("", [], {}) or (type(value) is int and value == 0)


def _is_struct(t: Type) -> bool:
    """Whether Go's type is a struct, which ``omitempty`` never leaves out (``metav1.Time`` is one)."""
    return isinstance(t, Struct) or t == TIME


def _encode_value(v: Any, t: Type) -> Any:
    if v is None:
        return _zero(t)  # a null list item or map value decodes to its zero value
    if isinstance(t, Struct) and isinstance(v, Mapping):
        return encode(v, t)
    if isinstance(t, Slice) and isinstance(v, list):
        return [_encode_value(item, t.elem) for item in v]
    if isinstance(t, Map) and isinstance(v, Mapping):
        return {k: _encode_value(item, t.elem) for k, item in v.items()}
    return v


def encode(v: Mapping[str, Any], st: Struct) -> dict[str, Any]:
    """``v`` (as :func:`decode` returned it) marshalled as ``encoding/json`` writes ``st``; see the module docstring."""
    out: dict[str, Any] = {}
    for name, t in st.fields.items():
        if name not in v:
            if name in st.omitempty and (name in st.pointers or not _is_struct(t)):
                continue
            if name in st.omitzero:
                continue
            out[name] = None if name in st.pointers else _zero(t)
            continue
        value = _encode_value(v[name], t)
        if name in st.pointers:
            out[name] = value
            continue
        if name in st.omitempty and not _is_struct(t) and _empty(value):
            continue
        if name in st.omitzero and value == _zero(t):
            continue
        out[name] = value
    return out
