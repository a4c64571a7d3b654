"""apimachinery's ``field.Error`` (``k8s.io/apimachinery/pkg/util/validation/field/errors.go``).

A field error prints ``<path>: <type>[: <value>][: <detail>]``:
``spec.forProvider.region: Required value``, ``spec.replicas: Invalid value:
"three": must be an integer``. The API server (``crossfn validate``) and
function-patch-and-transform (its input validation) both report this way.

``ErrorBody`` prints the bad value by its Go type: ``%v`` for booleans and
numbers, ``%q`` for strings, ``%#v`` for lists and maps, and no value at all
for the types that carry none (Required, Forbidden, Too long, Internal). A
value of a Go *named* string type (``type TransformType string``) is not a
``string`` to Go's type switch; the apimachinery version that
function-patch-and-transform builds with prints it as JSON. Wrap such values in
:class:`Named`.

A path is built from the inside out: a validator reports paths relative to what
it validates, and its caller prefixes them with :meth:`Error.under`.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any

from crossfn.gocompat import fmt, json

__all__ = ["OMIT", "Error", "ErrorType", "Named", "bad_value", "invalid", "required"]


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


# Types whose errors print without the bad value (ErrorBody's first cases).
_NO_VALUE = frozenset({ErrorType.REQUIRED, ErrorType.FORBIDDEN, ErrorType.TOO_LONG, ErrorType.INTERNAL})

OMIT: Any = object()
"""The bad value of an error that has none to print."""


class Named(str):
    """A value of a Go named string type; a field error prints it as JSON."""

    __slots__ = ()


def bad_value(value: Any) -> str:
    """How ``ErrorBody`` prints a bad value: ``%v``, ``%q``, ``%#v``, or JSON for :class:`Named`."""
    if value is None:
        return "null"
    if isinstance(value, Named):
        return json.marshal(str(value))
    if isinstance(value, str):
        return fmt.sprintf("%q", value)
    if isinstance(value, bool | int | float):
        return fmt.sprintf("%v", value)
    return fmt.sprintf("%#v", value)


@dataclasses.dataclass(frozen=True)
class Error:
    """One error at one field path (``path`` is relative to what was validated)."""

    path: str
    type: ErrorType
    detail: str = ""
    value: Any = OMIT

    def under(self, parent: str) -> Error:
        """This error with ``parent`` prefixed to its path (``[i]`` and ``[key]`` join without a dot)."""
        if not parent:
            return self
        if not self.path:
            return dataclasses.replace(self, path=parent)
        sep = "" if self.path.startswith("[") else "."
        return dataclasses.replace(self, path=f"{parent}{sep}{self.path}")

    def value_text(self) -> str:
        """The bad value as the error prints it."""
        return bad_value(self.value)

    @property
    def body(self) -> str:
        """The text after the path (``ErrorBody``)."""
        text = self.type.value
        if self.type not in _NO_VALUE and self.value is not OMIT:
            text = f"{text}: {self.value_text()}"
        if self.detail:
            text = f"{text}: {self.detail}"
        return text

    def __str__(self) -> str:
        return f"{self.path}: {self.body}"


def required(path: str, detail: str = "") -> Error:
    """``field.Required``."""
    return Error(path, ErrorType.REQUIRED, detail)


def invalid(path: str, value: Any, detail: str) -> Error:
    """``field.Invalid``."""
    return Error(path, ErrorType.INVALID, detail, value)
