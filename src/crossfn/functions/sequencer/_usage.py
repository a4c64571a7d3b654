"""The Usage a deletion-sequenced pair gets: ``by`` (the later resource) uses ``of`` (the earlier one).

Crossplane will not delete ``of`` while the Usage exists, so resources are
deleted in the reverse of their creation order. ``usageVersion: v1`` makes
Crossplane v1's ``apiextensions.crossplane.io/v1beta1`` ``Usage``; anything
else a ``protection.crossplane.io/v1beta1`` ``Usage`` (when ``of`` is
namespaced, in its namespace) or ``ClusterUsage``. Names are
:func:`usage_name`: deterministic, at most 63 characters.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from crossfn.gocompat import strings, values

__all__ = ["is_usage", "usage", "usage_name"]

V1_API = "apiextensions.crossplane.io/v1beta1"
V2_API = "protection.crossplane.io/v1beta1"
_MAX_NAME = 63
_SUFFIX = "dependency"


def usage_name(name: str, suffix: str = _SUFFIX) -> str:
    """``<name>-<6 hex of sha256(name)>-<suffix>``, the name cut (bytes, ending in ``-``) to fit 63."""
    raw = values.to_bytes(name)
    full_suffix = hashlib.sha256(raw).hexdigest()[:6] + "-" + suffix
    if len(raw) + 1 + len(full_suffix) <= _MAX_NAME:
        return f"{name}-{full_suffix}"
    cut = values.from_bytes(raw[: _MAX_NAME - len(full_suffix) - 1])
    if not cut.endswith("-"):
        cut += "-"
    return cut + full_suffix


def _get(obj: Mapping[str, Any], *path: str) -> str:
    cur: Any = obj
    for key in path:
        cur = cur.get(key) if isinstance(cur, Mapping) else None
    return cur if isinstance(cur, str) else ""


def _ref(obj: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": _get(obj, "apiVersion"),
        "kind": _get(obj, "kind"),
        "resourceRef": {"name": _get(obj, "metadata", "name")},
    }


def usage(
    of: Mapping[str, Any], by: Mapping[str, Any], *, replay_deletion: bool, version: str
) -> dict[str, Any]:
    """The Usage object that keeps ``of`` until ``by`` is gone."""
    name = strings.to_lower(
        "-".join(
            (_get(by, "kind"), _get(by, "metadata", "name"), _get(of, "kind"), _get(of, "metadata", "name"))
        )
    )
    meta: dict[str, Any] = {"name": usage_name(name)}
    if version == "v1":
        api, kind = V1_API, "Usage"
    else:
        api, kind = V2_API, "ClusterUsage"
        namespace = _get(of, "metadata", "namespace")
        if namespace:
            kind = "Usage"
            meta["namespace"] = namespace
    return {
        "apiVersion": api,
        "kind": kind,
        "metadata": meta,
        "spec": {"by": _ref(by), "of": _ref(of), "reason": "dependency", "replayDeletion": replay_deletion},
    }


def is_usage(obj: Mapping[str, Any], version: str) -> bool:
    """Whether ``obj`` is a Usage of the kind ``version`` makes (so it never gets a Usage itself)."""
    api, kind = _get(obj, "apiVersion"), _get(obj, "kind")
    if version == "v1":
        return api == V1_API and kind == "Usage"
    return api == V2_API and kind in ("ClusterUsage", "Usage")
