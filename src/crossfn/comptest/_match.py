"""Chainsaw-style partial matching of an expected object against rendered documents.

The rules (kyverno-json assertion trees without expressions, as chainsaw applies them):

* **maps** are partial: every key of the expected map must exist in the actual
  map with a matching value; extra actual keys are ignored;
* **arrays** are not partial: the actual array must have the same length, and
  item ``i`` must match expected item ``i`` (items that are maps match
  partially, as above);
* **scalars** compare equal with their YAML types: ``1.33`` (a number) and
  ``"1.33"`` (a string) differ, as do ``true`` and ``"true"``; ``1`` and ``1.0``
  are the same number (Kubernetes reads YAML through JSON).

An expected object passes when at least one rendered document matches it.
When none does, :func:`closest` picks the candidate to explain the failure
with: same ``apiVersion`` and ``kind``, preferring one with the same name or
``crossplane.io/composition-resource-name`` annotation, then the fewest
mismatches. Each mismatch is one line naming its field path.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from typing import Any

from crossfn.gocompat import values
from crossfn.sdk import fieldpath

__all__ = ["RESOURCE_NAME", "Mismatch", "closest", "describe", "mismatches"]

RESOURCE_NAME = "crossplane.io/composition-resource-name"


@dataclasses.dataclass(frozen=True)
class Mismatch:
    """One field where the actual object differs from the expected one."""

    path: tuple[str | int, ...]
    message: str

    def __str__(self) -> str:
        where = fieldpath.format_segments(self.path) or "(object)"
        return f"{where}: {self.message}"


def _show(value: Any) -> str:
    """A value as the user wrote it in YAML/JSON terms: strings quoted, objects as compact JSON."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def mismatches(expected: Any, actual: Any, path: tuple[str | int, ...] = ()) -> list[Mismatch]:
    """Every field where ``actual`` fails to match ``expected``; empty when it matches."""
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            return [Mismatch(path, f"want an object, got {values.json_type(actual)} {_show(actual)}")]
        out: list[Mismatch] = []
        for key, want in expected.items():
            if key not in actual:
                out.append(Mismatch((*path, key), "missing"))
                continue
            out.extend(mismatches(want, actual[key], (*path, key)))
        return out
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return [Mismatch(path, f"want an array, got {values.json_type(actual)} {_show(actual)}")]
        if len(expected) != len(actual):
            return [Mismatch(path, f"want {len(expected)} items, got {len(actual)}: {_show(actual)}")]
        return [
            m
            for i, (w, a) in enumerate(zip(expected, actual, strict=True))
            for m in mismatches(w, a, (*path, i))
        ]
    if values.json_type(expected) != values.json_type(actual):
        return [
            Mismatch(
                path,
                f"want {_show(expected)} ({values.json_type(expected)}), got {_show(actual)} ({values.json_type(actual)})",
            )
        ]
    if expected != actual:
        return [Mismatch(path, f"want {_show(expected)}, got {_show(actual)}")]
    return []


def _meta(obj: Mapping[str, Any], key: str) -> Any:
    meta = obj.get("metadata")
    return meta.get(key) if isinstance(meta, Mapping) else None


def _resource_name(obj: Mapping[str, Any]) -> Any:
    annotations = _meta(obj, "annotations")
    return annotations.get(RESOURCE_NAME) if isinstance(annotations, Mapping) else None


def describe(obj: Mapping[str, Any]) -> str:
    """A document as the report names it: ``Bucket "storage-bucket"`` (name, else composition resource name)."""
    name = _meta(obj, "name") or _resource_name(obj) or _meta(obj, "generateName")
    kind = str(obj.get("kind", "(no kind)"))
    return f"{kind} {_show(name)}" if name else kind


def closest(
    expected: Mapping[str, Any], docs: Sequence[Mapping[str, Any]]
) -> tuple[Mapping[str, Any], list[Mismatch]] | None:
    """The rendered document that best explains why ``expected`` matched nothing, with its mismatches.

    None when no document has the expected ``apiVersion`` and ``kind``: then
    there is nothing sensible to diff against.
    """
    same_type = [
        d for d in docs
        if all(expected.get(k) in (None, d.get(k)) for k in ("apiVersion", "kind"))
    ]  # fmt: skip
    if not same_type:
        return None
    want_name, want_resource = _meta(expected, "name"), _resource_name(expected)
    named = [
        d for d in same_type
        if (want_name is not None and _meta(d, "name") == want_name)
        or (want_resource is not None and _resource_name(d) == want_resource)
    ]  # fmt: skip
    scored = [(d, mismatches(expected, d)) for d in (named or same_type)]
    return min(scored, key=lambda pair: len(pair[1]))
