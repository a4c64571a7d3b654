"""Render's output: YAML exactly as ``crossplane render`` prints it, or JSON for tools.

``crossplane render`` prints each object as ``sigs.k8s.io/yaml`` writes it
(the Kubernetes JSON serializer in YAML mode), after a ``---`` line. The
bytes of one object are :func:`crossfn.gocompat.yaml_emitter.to_yaml`'s, the
one Go-compatible YAML emitter; this module only frames them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from crossfn import errors
from crossfn.gocompat import yaml_emitter

__all__ = ["operation_document", "render_document", "to_json", "yaml_stream"]

_RESULT_API_VERSION = "render.crossplane.io/v1beta1"
_NAME_ANNOTATION = "crossplane.io/composition-resource-name"

Describe = Callable[[int, Mapping[str, Any]], str]
"""What the ``index``-th document of an output is, as the CLI names it when it cannot be printed."""


def _name(doc: Mapping[str, Any]) -> str:
    meta = doc.get("metadata")
    return str(meta.get("name") or "") if isinstance(meta, Mapping) else ""


def _render_side_document(doc: Mapping[str, Any]) -> str | None:
    if doc.get("apiVersion") == _RESULT_API_VERSION and doc.get("kind") in ("Result", "Context"):
        return str(doc["kind"]).lower()
    return None


def render_document(index: int, doc: Mapping[str, Any]) -> str:
    """``crossplane render``'s words for its documents: the XR, composed resources, results, the context."""
    side = _render_side_document(doc)
    if side is not None:
        return side
    if index == 0:
        return f"composite resource {errors.quote(_name(doc))}"
    meta = doc.get("metadata")
    annotations = meta.get("annotations") if isinstance(meta, Mapping) else None
    name = annotations.get(_NAME_ANNOTATION) if isinstance(annotations, Mapping) else None
    return f"composed resource {errors.quote(str(name or ''))}"


def operation_document(index: int, doc: Mapping[str, Any]) -> str:
    """``crossplane render op``'s words for its documents: the Operation, applied resources, results, the context."""
    side = _render_side_document(doc)
    if side is not None:
        return side
    return f"operation {errors.quote(_name(doc))}" if index == 0 else "applied resource"


def yaml_stream(docs: Iterable[Mapping[str, Any] | None], *, describe: Describe = render_document) -> str:
    """Documents as ``crossplane render`` prints them: each after a ``---`` line; ``None`` is Go's nil, ``null``.

    A document holding NaN or an infinity (a function may return one) has no YAML form in Go, whose
    YAML goes through JSON: ``cannot marshal composed resource "bucket" to YAML: json: unsupported
    value: +Inf``, naming the document as ``describe`` does; nothing is printed.
    """
    documents = list(docs)
    for i, doc in enumerate(documents):
        bad = next((v for v in _numbers(doc) if not math.isfinite(v)), None)
        if bad is not None and doc is not None:
            raise errors.CrossfnError(
                f"cannot marshal {describe(i, doc)} to YAML: json: unsupported value: {_word(bad)}"
            )
    return yaml_emitter.to_yaml_stream(documents)


def _word(bad: float) -> str:
    """Go's word for a number JSON cannot hold."""
    return "NaN" if math.isnan(bad) else ("+Inf" if bad > 0 else "-Inf")


def to_json(docs: Iterable[Mapping[str, Any] | None]) -> str:
    """Documents as one JSON array, keys sorted, two-space indent: the ``--output json`` format.

    A NaN or infinite number (a function may return one) has no JSON form: ``cannot marshal
    output to JSON: json: unsupported value: NaN``, as Go's ``json.Marshal`` words it.
    """
    documents = list(docs)
    try:
        return json.dumps(documents, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"
    except ValueError as exc:
        bad = next((v for v in _numbers(documents) if not math.isfinite(v)), math.nan)
        raise errors.CrossfnError(
            f"cannot marshal output to JSON: json: unsupported value: {_word(bad)}"
        ) from exc


def _numbers(value: Any) -> Iterator[float]:
    """Every float in ``value``, depth first."""
    if isinstance(value, Mapping):
        for v in value.values():
            yield from _numbers(v)
    elif isinstance(value, list):
        for v in value:
            yield from _numbers(v)
    elif isinstance(value, float):
        yield value
