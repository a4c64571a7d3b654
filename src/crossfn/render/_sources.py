"""The engine's sources, backed by the documents render loaded from files.

Crossplane's classic render answers requirements with a ``FilteringFetcher``
over the ``--extra-resources``/``--required-resources`` documents and a
``FilteringSchemaFetcher`` over the ``-s`` OpenAPI documents (upstream core-3.5). The
engine owns the selector semantics (exact apiVersion and kind, namespace
ignored, sorted by name, first name match, label match, all of the kind);
resources come from the engine's ``InMemoryResources``; the class here gets
Secrets, as the engine's ``CredentialsSource`` protocol asks.

Observed connection details are render's own addition (crossplane/cli#73):
an observed composed resource gets connection details from

* the annotation ``render.crossfn.io/connection-details``, a YAML or JSON map
  of plain-text values, removed before the resource is sent to functions; or
* a companion ``v1`` Secret in the same ``-o`` input, found the way
  Crossplane finds it (upstream core-2.16): the resource's
  ``spec.writeConnectionSecretToRef`` name, in the resource's namespace or
  else the ref's. Such Secrets are not observed composed resources
  themselves unless they carry the composition-resource-name annotation.

The annotation's keys win over the Secret's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from crossfn import errors
from crossfn.gocompat import values
from crossfn.render import _load

__all__ = ["CONNECTION_DETAILS_ANNOTATION", "DocumentSecrets", "observed_with_details", "secret_ref"]

CONNECTION_DETAILS_ANNOTATION = "render.crossfn.io/connection-details"
_RESOURCE_NAME = "crossplane.io/composition-resource-name"


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return _load.object_at(obj, "metadata")


class DocumentSecrets:
    """A ``CredentialsSource`` over ``--function-credentials`` Secrets, matched by name *and* namespace."""

    def __init__(self, secrets: Sequence[Mapping[str, Any]]) -> None:
        self._secrets = list(secrets)

    async def secret(self, namespace: str, name: str) -> Mapping[str, bytes] | None:
        for s in self._secrets:
            meta = _meta(s)
            if meta.get("name") == name and (meta.get("namespace") or "") == namespace:
                return _load.secret_data(s, f"Secret {namespace}/{name}")
        return None


def _annotation_details(obj: dict[str, Any], where: str) -> dict[str, bytes]:
    annotations = _meta(obj).get("annotations")
    if not isinstance(annotations, Mapping) or CONNECTION_DETAILS_ANNOTATION not in annotations:
        return {}
    text = annotations[CONNECTION_DETAILS_ANNOTATION]
    try:
        value = _load.parse_value(str(text))
    except errors.InputError as exc:
        raise errors.InputError(f"{where}: annotation {CONNECTION_DETAILS_ANNOTATION}: {exc}") from exc
    if not isinstance(value, Mapping):
        raise errors.InputError(
            f"{where}: annotation {CONNECTION_DETAILS_ANNOTATION} must be a map of strings"
        )
    del obj["metadata"]["annotations"][CONNECTION_DETAILS_ANNOTATION]
    if not obj["metadata"]["annotations"]:
        del obj["metadata"]["annotations"]
    return {str(k): (v if isinstance(v, str) else _json_text(v)).encode() for k, v in value.items()}


def _json_text(v: object) -> str:
    return json.dumps(v, separators=(",", ":"))


def secret_ref(obj: Mapping[str, Any]) -> tuple[str, str] | None:
    """``(namespace, name)`` of the Secret ``obj`` writes its connection details to, or ``None``."""
    spec = obj.get("spec")
    ref = spec.get("writeConnectionSecretToRef") if isinstance(spec, Mapping) else None
    if not isinstance(ref, Mapping) or not ref.get("name"):
        return None
    namespace = _meta(obj).get("namespace") or ref.get("namespace") or ""
    return str(namespace), str(ref["name"])


def observed_with_details(docs: Sequence[Mapping[str, Any]]) -> list[tuple[dict[str, Any], dict[str, bytes]]]:
    """Split ``-o`` documents into observed composed resources, each with its connection details."""
    secrets: dict[tuple[str, str], Mapping[str, Any]] = {}
    for d in docs:
        if d.get("apiVersion") == "v1" and d.get("kind") == "Secret":
            secrets[(str(_meta(d).get("namespace") or ""), str(_meta(d).get("name") or ""))] = d
    referenced = {ref for d in docs if (ref := secret_ref(d)) is not None}
    out: list[tuple[dict[str, Any], dict[str, bytes]]] = []
    for d in docs:
        meta = _meta(d)
        key = (str(meta.get("namespace") or ""), str(meta.get("name") or ""))
        annotations = _load.object_at(meta, "annotations")
        if key in secrets and secrets[key] is d and key in referenced and _RESOURCE_NAME not in annotations:
            continue
        obj = values.deep_copy_json(d)
        where = f"observed {obj.get('kind', '')} {errors.quote(str(meta.get('name') or ''))}"
        details: dict[str, bytes] = {}
        ref = secret_ref(obj)
        if ref is not None and ref in secrets:
            details.update(_load.secret_data(secrets[ref], f"Secret {ref[0]}/{ref[1]}"))
        details.update(_annotation_details(obj, where))
        out.append((obj, details))
    return out
