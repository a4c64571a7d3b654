"""Render's output: YAML exactly as ``crossplane render`` prints it, or JSON for tools.

``crossplane render`` prints each object as ``sigs.k8s.io/yaml`` writes it
(the Kubernetes JSON serializer in YAML mode), after a ``---`` line. The
bytes of one object are :func:`crossfn.gocompat.yaml_emitter.to_yaml`'s, the
one Go-compatible YAML emitter; this module only frames them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from crossfn import errors
from crossfn.gocompat import yaml_emitter

__all__ = ["to_json", "yaml_stream"]


def yaml_stream(docs: Iterable[Mapping[str, Any] | None]) -> str:
    """Documents as ``crossplane render`` prints them: each after a ``---`` line; ``None`` is Go's nil, ``null``."""
    return yaml_emitter.to_yaml_stream(docs)


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
        word = "NaN" if math.isnan(bad) else ("+Inf" if bad > 0 else "-Inf")
        raise errors.CrossfnError(f"cannot marshal output to JSON: json: unsupported value: {word}") from exc


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
