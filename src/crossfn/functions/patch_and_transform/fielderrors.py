"""Validation errors shaped like Kubernetes' ``field.Error``.

function-patch-and-transform reports an invalid input as ``<path>: <type>:
<detail>``, exactly as ``k8s.io/apimachinery/pkg/util/validation/field`` prints
it (spec/patch-and-transform.md §2.13):

* ``<path>: Required value: <detail>``
* ``<path>: Invalid value: <value>: <detail>``

A path is built from the inside out: each validator reports paths relative to
what it validates, and its caller prefixes them with :meth:`FieldError.under`.
Children join with ``.``, indexes render as ``[i]`` and keys as ``[key]``.
The ``value`` text is rendered by the caller, because Go renders a plain string
with ``%q`` but a named string type as JSON.
"""

from __future__ import annotations

import dataclasses
from typing import Literal

__all__ = ["FieldError", "invalid", "required"]


@dataclasses.dataclass(frozen=True)
class FieldError:
    """One validation error at one field path."""

    path: str
    """The field path, relative to the object being validated."""
    kind: Literal["Required", "Invalid"]
    """Which ``field.ErrorType`` this is."""
    detail: str
    """The human explanation, Go's ``Detail``."""
    value: str | None = None
    """For Invalid errors, the offending value already rendered as Go prints it."""

    def under(self, parent: str) -> FieldError:
        """Return this error with ``parent`` prefixed to its path."""
        if not parent:
            return self
        if not self.path:
            return dataclasses.replace(self, path=parent)
        sep = "" if self.path.startswith("[") else "."
        return dataclasses.replace(self, path=f"{parent}{sep}{self.path}")

    def __str__(self) -> str:
        if self.kind == "Required":
            return f"{self.path}: Required value: {self.detail}"
        return f"{self.path}: Invalid value: {self.value}: {self.detail}"


def required(path: str, detail: str) -> FieldError:
    """A ``field.Required`` error."""
    return FieldError(path, "Required", detail)


def invalid(path: str, value: str, detail: str) -> FieldError:
    """A ``field.Invalid`` error; ``value`` is the already-rendered value text."""
    return FieldError(path, "Invalid", detail, value)
