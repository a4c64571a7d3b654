"""A validation problem, formatted as the Kubernetes API server formats a field error.

The API server reports ``<field path>: <error type>[: <value>][: <detail>]``,
for example ``spec.forProvider.region: Required value`` or
``spec.replicas: Invalid value: "three": spec.replicas in body must be of type
integer: "three"`` (apimachinery's ``field.Error``). The value is printed as Go
prints it: strings quoted with ``%q``, numbers and booleans bare, ``null``
for nil, and lists and maps in Go's ``%#v`` syntax.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import math
from typing import Any

from crossfn import errors

__all__ = ["ErrorType", "Origin", "Problem", "go_value"]


class ErrorType(enum.Enum):
    """apimachinery's ``field.ErrorType``, valued by the text it prints."""

    REQUIRED = "Required value"
    INVALID = "Invalid value"
    NOT_SUPPORTED = "Unsupported value"
    DUPLICATE = "Duplicate value"
    FORBIDDEN = "Forbidden"
    TOO_LONG = "Too long"
    TOO_MANY = "Too many"
    INTERNAL = "Internal error"


class Origin(enum.Enum):
    """Which check found a problem; ``crossplane beta validate`` labels its lines by it."""

    SCHEMA = "schema"
    CEL = "CEL"


# Types whose field errors print without the bad value (apimachinery's ErrorBody).
_NO_VALUE = {ErrorType.REQUIRED, ErrorType.FORBIDDEN, ErrorType.TOO_LONG, ErrorType.INTERNAL}
_OMIT = object()


@dataclasses.dataclass(frozen=True)
class Problem:
    """One field error of one object.

    ``path`` is the field path (``spec.items[0].name``; ``""`` for the object
    itself, printed as Go prints a nil path, ``<nil>``). ``value`` is the bad
    value, or :data:`Problem.OMIT` when the error prints none. ``resource``
    names the object when problems of several objects are listed together
    (``group/version, Kind=Kind, name``); ``str()`` then leads with it.
    """

    path: str
    type: ErrorType
    detail: str = ""
    value: Any = _OMIT
    origin: Origin = Origin.SCHEMA
    resource: str = ""

    OMIT = _OMIT

    @property
    def message(self) -> str:
        """The API server's text: ``<path>: <type>[: <value>][: <detail>]``."""
        return f"{self.path or '<nil>'}: {self.body}"

    @property
    def body(self) -> str:
        """The text after the path (apimachinery's ``ErrorBody``)."""
        text = self.type.value
        if self.type not in _NO_VALUE and self.value is not _OMIT:
            text = f"{text}: {go_value(self.value)}"
        if self.detail:
            text = f"{text}: {self.detail}"
        return text

    def __str__(self) -> str:
        return f"{self.resource} : {self.message}" if self.resource else self.message

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready form for ``--output json``."""
        out: dict[str, Any] = {"path": self.path, "type": self.type.value, "origin": self.origin.value}
        if self.detail:
            out["detail"] = self.detail
        if self.value is not _OMIT:
            out["value"] = self.value
        out["message"] = self.message
        if self.resource:
            out["resource"] = self.resource
        return out


def go_value(value: Any) -> str:
    """Print ``value`` as apimachinery's field errors do (``%q``, ``%v`` or ``%#v``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _go_float(value)
    if isinstance(value, str):
        return errors.quote(value)
    return _go_syntax(value)


def _go_float(f: float) -> str:
    """Go's ``%v`` of a float64: shortest digits, exponent form below 1e-4 and from 1e21.

    Python's ``repr`` has the same shortest digits and exponent spelling
    (``1e-05``, ``1e+21``); it only switches to exponents earlier (1e16),
    where every float is whole and printed as an integer here.
    """
    if math.isinf(f):
        return "+Inf" if f > 0 else "-Inf"
    if math.isnan(f):
        return "NaN"
    if f.is_integer() and abs(f) < 1e21:
        return str(int(f))
    return repr(f)


def _go_syntax(value: Any) -> str:
    """Go's ``%#v`` of a decoded JSON list or map (``[]interface {}{...}``, ``map[string]interface {}{...}``)."""
    if isinstance(value, list):
        return "[]interface {}{" + ", ".join(_go_element(v) for v in value) + "}"
    if isinstance(value, dict):
        items = ", ".join(f"{errors.quote(str(k))}:{_go_element(v)}" for k, v in sorted(value.items()))
        return "map[string]interface {}{" + items + "}"
    return errors.quote(json.dumps(value, default=str))


def _go_element(value: Any) -> str:
    """An element inside ``%#v``: typed scalars as Go writes them inside an interface slice or map."""
    if value is None:
        return "interface {}(nil)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"{value}"
    if isinstance(value, float):
        return _go_float(value)
    if isinstance(value, str):
        return errors.quote(value)
    return _go_syntax(value)
