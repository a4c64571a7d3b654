"""What the executor holds where Go holds a ``reflect.Value``.

Most values are plain values of :mod:`crossfn.gocompat.values`. Two Go
distinctions are visible in a template's output and errors, so they get a form
of their own:

* :data:`INVALID`, the zero ``reflect.Value``: a missing map key, ``nil`` data.
  It prints ``<no value>``; ``.x`` on it is empty (or, with
  ``missingkey=error``, ``nil data; no entry for key "x"``).
* :class:`Iface`, a value held in an ``interface {}``: what reading a map or a
  list of decoded JSON gives (their element type is ``interface {}``). A nil one
  (``Iface(None)``, a JSON ``null``) is not :data:`INVALID`: ``.x`` on it is
  ``nil pointer evaluating interface {}.x``, and a field of a non-nil one that
  is not a map says ``can't evaluate field x in type interface {}``. A pipeline
  looks inside (Go's ``evalPipeline``), so its result is never an ``Iface``.
* :class:`TypedNil`, a nil map or slice a function returned (``getComposedResource``
  of a resource not observed yet): unlike a nil interface it still has its type,
  so ``.x`` on a nil map is a missing key, not an error, and it prints ``map[]``.
"""

from __future__ import annotations

from typing import Any, Final

from crossfn.gocompat import values

__all__ = ["INVALID", "NIL_IFACE", "Iface", "TypedNil", "elem", "indirect", "indirect_interface", "type_of"]


class _Invalid:
    __slots__ = ()

    def __repr__(self) -> str:
        return "INVALID"


INVALID: Final = _Invalid()
"""The zero ``reflect.Value``."""


class Iface:
    """A value in an ``interface {}``; ``v`` is None for a nil interface."""

    __slots__ = ("v",)

    def __init__(self, v: Any) -> None:
        self.v = v

    def __repr__(self) -> str:
        return f"Iface({self.v!r})"


NIL_IFACE: Final = Iface(None)


class TypedNil:
    """A nil value of a nillable Go type other than ``interface {}`` (``go_type``: ``map[string]interface {}``...)."""

    __slots__ = ("go_type",)

    def __init__(self, go_type: str) -> None:
        self.go_type = go_type

    def __repr__(self) -> str:
        return f"TypedNil({self.go_type!r})"

    @property
    def is_map(self) -> bool:
        return self.go_type.startswith("map[")

    def text(self) -> str:
        """What ``fmt`` prints for it: ``map[]``, ``[]``, ``<nil>``."""
        if self.is_map:
            return "map[]"
        if self.go_type.startswith("[]"):
            return "[]"
        return "<nil>"


_INTERFACE_ELEMS = ("[]interface {}", "map[string]interface {}", "map[interface {}]interface {}")


def elem(container: Any, v: Any) -> Any:
    """An element read out of ``container``: in an interface when the element type is ``interface {}``."""
    if type_of(container) in _INTERFACE_ELEMS:
        return NIL_IFACE if v is None else Iface(v)
    return v


def indirect(v: Any) -> tuple[Any, bool]:
    """Go's ``indirect``: the value inside an interface, and whether that interface is nil."""
    if isinstance(v, Iface):
        return (v, True) if v.v is None else (v.v, False)
    return v, False


def indirect_interface(v: Any) -> Any:
    """Go's ``indirectInterface``: the concrete value, :data:`INVALID` for a nil interface."""
    if isinstance(v, Iface):
        return INVALID if v.v is None else v.v
    return v


def type_of(v: Any) -> str:
    """Go's ``Value.Type().String()``: ``interface {}`` for a value in an interface."""
    if isinstance(v, Iface):
        return "interface {}"
    if isinstance(v, TypedNil):
        return v.go_type
    return values.type_name(v)
