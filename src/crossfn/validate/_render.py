"""Validation of a render's inputs and outputs (``crossfn render --validate``).

Render calls :func:`validate_render` after the pipeline ran: the XR against
its XRD, each step's input against its function's input CRD, and every
composed resource against its CRD or built-in kind, with the store render
filled from its ``--xrd``/``-s``/extension flags. Objects whose kind the store
does not know are not validated: render cannot tell a missing CRD from a
kind nobody published, and ``crossfn validate`` is the tool that counts them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from crossfn.schemas import store as schema_store
from crossfn.validate import _object, _problem

__all__ = ["validate_render"]


def validate_render(
    xr: Mapping[str, Any],
    composed: Sequence[Mapping[str, Any]],
    store: schema_store.SchemaStore,
    *,
    inputs: Sequence[tuple[str, Mapping[str, Any]]] = (),
) -> list[_problem.Problem]:
    """Every problem of a render, each labelled with its resource; empty when all known kinds are valid.

    Pass the *input* XR (after ``--xrd`` defaulting): the XR render prints
    holds only what the functions returned, often no ``spec`` at all, which
    its CRD requires.

    ``inputs`` are ``(step name, step input)`` pairs; an input is labelled
    ``step "<name>" input``. Order: the XR, then the inputs in pipeline
    order, then the composed resources in the order given.
    """
    problems: list[_problem.Problem] = []
    labelled: list[tuple[str, Mapping[str, Any]]] = [(_label(xr), xr)]
    labelled += [(f"step {_problem.go_value(step)} input", obj) for step, obj in inputs]
    labelled += [(_label(obj), obj) for obj in composed]
    for label, obj in labelled:
        found = _object.validate_resource(obj, store)
        problems += [dataclasses.replace(p, resource=label) for p in found or ()]
    return problems


def _label(obj: Mapping[str, Any]) -> str:
    return f"{_object.gvk_string(obj)}, {_object.resource_name(obj)}"
