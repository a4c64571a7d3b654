"""``crossfn render --validate``: check what went into and came out of a render against its schemas.

Crossplane's render checks nothing; ``crossplane beta validate`` checks the
output afterwards, but cannot see the XR render started from or the steps'
inputs. A :class:`Validator` (``crossfn.validate.validate_render``) checks all three:

* the input XR (after ``--xrd`` defaulting) against its XRD;
* each step's input against its function's input CRD, when one is known;
* each composed resource against its CRD or built-in Kubernetes kind.

Schemas come from ``--xrd``, the ``-s`` documents and the ``--crds`` CRDs and
XRDs; built-in Kubernetes kinds are always known. Kinds without a schema are
not checked. The problems are reported one line each, as ``crossfn validate``
prints them (without its file positions: the objects are in memory).

Render and validate are sibling layers, so render does not import the
validator: its caller (the CLI) hands it in.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from crossfn import errors
from crossfn.render import _inputs

if TYPE_CHECKING:
    from crossfn.schemas import store as schema_store

__all__ = ["Problem", "Validator", "check"]


class Problem(Protocol):
    """A validation problem as render reports it: ``str()`` names the resource, path and error."""

    @property
    def origin(self) -> enum.Enum:
        """Which check found it; its value ``CEL`` or ``schema`` labels the line."""


class Validator(Protocol):
    """``crossfn.validate.validate_render``'s signature."""

    def __call__(
        self,
        xr: Mapping[str, Any],
        composed: Sequence[Mapping[str, Any]],
        store: schema_store.SchemaStore,
        *,
        inputs: Sequence[tuple[str, Mapping[str, Any]]] = (),
    ) -> Sequence[Problem]: ...


def _step_inputs(comp: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    spec = comp.get("spec")
    pipeline = spec.get("pipeline") if isinstance(spec, Mapping) else None
    out: list[tuple[str, Mapping[str, Any]]] = []
    for step in pipeline if isinstance(pipeline, list) else ():
        if isinstance(step, Mapping) and isinstance(step.get("input"), Mapping):
            out.append((str(step.get("step", "")), step["input"]))
    return out


def check(inputs: _inputs.Inputs, composed: Sequence[Mapping[str, Any]], validator: Validator) -> None:
    """Raise :class:`~crossfn.errors.InputError` listing every problem, one per line; return when all is valid."""
    from crossfn.schemas import store  # noqa: PLC0415 -- only --validate needs it; keep startup fast

    schemas = store.SchemaStore()
    extensions = [inputs.xrd_document] if inputs.xrd_document is not None else []
    for doc in [*extensions, *inputs.schema_documents, *inputs.crd_documents]:
        schemas.add(doc)
    problems = validator(inputs.xr, composed, schemas, inputs=_step_inputs(inputs.composition))
    if not problems:
        return
    lines = [f"[x] {p.origin.value} validation error {p}" for p in problems]
    count = f"{len(problems)} problem" + ("" if len(problems) == 1 else "s")
    raise errors.InputError("\n".join([f"cannot validate render: {count}", *lines]))
