"""Render's output: YAML exactly as ``crossplane render`` prints it, or JSON for tools.

``crossplane render`` prints each object as ``sigs.k8s.io/yaml`` writes it
(the Kubernetes JSON serializer in YAML mode), after a ``---`` line. The
bytes of one object are :func:`crossfn.gocompat.yaml_emitter.to_yaml`'s, the
one Go-compatible YAML emitter; this module only frames them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from crossfn.gocompat import yaml_emitter

__all__ = ["to_json", "yaml_stream"]


def yaml_stream(docs: Iterable[Mapping[str, Any] | None]) -> str:
    """Documents as ``crossplane render`` prints them: each after a ``---`` line; ``None`` is Go's nil, ``null``."""
    return yaml_emitter.to_yaml_stream(docs)


def to_json(docs: Iterable[Mapping[str, Any] | None]) -> str:
    """Documents as one JSON array, keys sorted, two-space indent: the ``--output json`` format."""
    return json.dumps(list(docs), indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"
