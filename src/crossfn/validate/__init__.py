"""Validation of Kubernetes objects with the API server's semantics, and ``crossfn validate``.

Public API (everything else is internal):

* :func:`validate_object` (object, schema) and :func:`validate_resource`
  (object, :class:`crossfn.schemas.store.SchemaStore`) return a list of
  :class:`Problem`, each printing as the API server prints a field error
  (``spec.forProvider.region: Required value``);
* :func:`validate_render` is render's ``--validate``: the XR, the step inputs
  and the composed resources, problems labelled by resource;
* :func:`run` is ``crossfn validate EXTENSIONS RESOURCES``: load, validate,
  and format a report like ``crossplane beta validate``'s.

This package sits beside render, above :mod:`crossfn.schemas`.
"""

from __future__ import annotations

from crossfn import extras as _extras
from crossfn.validate._command import Outcome, Report, run
from crossfn.validate._object import validate_object, validate_resource
from crossfn.validate._problem import ErrorType, Origin, Problem
from crossfn.validate._render import validate_render

_extras.require("validate", "crossfn.validate")  # without the extra: one line naming it

__all__ = [
    "ErrorType",
    "Origin",
    "Outcome",
    "Problem",
    "Report",
    "run",
    "validate_object",
    "validate_render",
    "validate_resource",
]
