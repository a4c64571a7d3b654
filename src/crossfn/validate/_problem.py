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
from typing import Any

from crossfn.gocompat import field

__all__ = ["ErrorType", "Origin", "Problem", "go_value"]

ErrorType = field.ErrorType

_INT64 = 2**63


class Origin(enum.Enum):
    """Which check found a problem; ``crossplane beta validate`` labels its lines by it."""

    SCHEMA = "schema"
    CEL = "CEL"


@dataclasses.dataclass(frozen=True)
class Problem(field.Error):
    """One field error of one object.

    ``path`` is the field path (``spec.items[0].name``; ``""`` for the object
    itself, printed as Go prints a nil path, ``<nil>``). ``value`` is the bad
    value, or :data:`Problem.OMIT` when the error prints none. ``resource``
    names the object when problems of several objects are listed together
    (``group/version, Kind=Kind, name``); ``str()`` then leads with it.
    """

    origin: Origin = Origin.SCHEMA
    resource: str = ""

    OMIT = field.OMIT

    def value_text(self) -> str:
        return go_value(self.value)

    @property
    def message(self) -> str:
        """The API server's text: ``<path>: <type>[: <value>][: <detail>]``."""
        return f"{self.path or '<nil>'}: {self.body}"

    def __str__(self) -> str:
        return f"{self.resource} : {self.message}" if self.resource else self.message

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready form for ``--output json``."""
        out: dict[str, Any] = {"path": self.path, "type": self.type.value, "origin": self.origin.value}
        if self.detail:
            out["detail"] = self.detail
        if self.value is not field.OMIT:
            out["value"] = self.value
        out["message"] = self.message
        if self.resource:
            out["resource"] = self.resource
        return out


def go_value(value: Any) -> str:
    """Print ``value`` as apimachinery's field errors do (``%q``, ``%v`` or ``%#v``).

    The API server decodes a whole number that fits an ``int64`` as one
    (``3.0`` in YAML is ``int64(3)`` to it); any other number is a ``float64``.
    """
    return field.bad_value(_as_decoded(value))


def _as_decoded(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer() and -_INT64 <= value < _INT64:
        return int(value)
    if isinstance(value, list):
        return [_as_decoded(v) for v in value]
    if isinstance(value, dict):
        return {k: _as_decoded(v) for k, v in value.items()}
    return value
