"""Install or upgrade Crossplane's API types (the CRDs in ``crds/``) on an API server.

The controller needs Crossplane's own kinds before it can reconcile anything:
CompositeResourceDefinition, Composition, CompositionRevision, Function and
FunctionRevision. Their definitions ship as package data (``crds/*.yaml``),
written to be schema-compatible with Crossplane's so that a user's existing
YAML applies unchanged and a cluster that already runs Crossplane is not
disturbed by field renames. The Operation kinds (Operation, CronOperation,
WatchOperation) are Crossplane's own CRDs, unchanged; they are installed
whether or not ``--enable-operations`` runs their controllers, as Crossplane's
chart installs them.

:func:`install` is what ``crossfn controller init`` runs and what ``crossfn
controller run`` runs at start: each CRD is server-side applied with the
``crossfn`` field manager (so a second run, or an upgrade, changes only what
changed), then waited for until the API server reports it ``Established``,
because until then its kind cannot be served or watched.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from importlib import resources
from typing import Any

from crossfn import errors
from crossfn.controller.kube import _api
from crossfn.gocompat import yaml_loader

__all__ = [
    "CRD_API_VERSION",
    "CRD_KIND",
    "foreign_kind",
    "install",
    "is_established",
    "manifests",
    "refusal",
    "reserved_group",
]

CRD_API_VERSION = "apiextensions.k8s.io/v1"
CRD_KIND = "CustomResourceDefinition"
API_SERVICE_API_VERSION = "apiregistration.k8s.io/v1"
_AUTOMANAGED = "kube-aggregator.kubernetes.io/automanaged"
"""The label the API server puts on APIServices it registers itself: ``"true"`` for a CRD's
group-version, ``onstart`` for a built-in one."""


def reserved_group(group: str) -> bool:
    """Whether ``group`` is one of Kubernetes' own (``k8s.io``, ``kubernetes.io`` and their subdomains).

    The API server takes a CRD in such a group only with the
    ``api-approved.kubernetes.io`` annotation, which an XRD can put in its
    ``spec.metadata``; the objects of those groups (ClusterRoleBindings, ...)
    are never an XRD's to define, list or delete.
    """
    group = group.lower()
    return any(group == g or group.endswith(f".{g}") for g in ("k8s.io", "kubernetes.io"))


async def foreign_kind(api: _api.Api, crd: Mapping[str, Any]) -> str:
    """Why the rendered ``crd`` must not be applied because its kind is not CRDs' to serve; ``""`` when it may.

    Refused: a group of Kubernetes' own (:func:`reserved_group`), and any version of
    the group that the API server already serves other than from CRDs: a built-in
    API or an aggregated API server, whose APIService the API server did not make
    for a CRD. Read live on every call: a cached answer could be stale both ways.
    """
    spec = crd.get("spec") or {}
    group, kind = str(spec.get("group") or ""), str((spec.get("names") or {}).get("kind") or "")
    if reserved_group(group):
        return (
            f"refusing to define kind {kind}.{group}: the API group {group} is Kubernetes' own "
            "(an XRD defines kinds of its own group only)"
        )
    for version in spec.get("versions") or ():
        name = f"{(version or {}).get('name', '')}.{group}"
        service = await api.get(API_SERVICE_API_VERSION, "APIService", name)
        labels = ((service or {}).get("metadata") or {}).get("labels") or {}
        if service is not None and labels.get(_AUTOMANAGED) != "true":
            return (
                f"refusing to define kind {kind}.{group}: {group}/{version.get('name', '')} is already "
                f"served by APIService {name}, not by CustomResourceDefinitions"
            )
    return ""


def manifests() -> list[dict[str, Any]]:
    """The CRDs crossfn installs, read from package data, in file-name order."""
    root = resources.files("crossfn.controller") / "crds"
    out = []
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".yaml"):
            out.extend(yaml_loader.load_all(entry.read_text(encoding="utf-8"), as_json=True)[:1])
    return out


def is_established(crd: Mapping[str, Any] | None) -> bool:
    """Whether the API server serves the CRD: its ``Established`` condition is True."""
    return _condition(crd, "Established")[0] == "True"


def refusal(crd: Mapping[str, Any] | None) -> str:
    """Why the API server will not establish the CRD however long one waits; ``""`` while it still may.

    That is the case when its names are refused (``NamesAccepted=False``, for
    example ``ListKindConflict`` because another CRD of the group already uses
    the list kind): the text gives that condition's reason and message, and the
    ``Established`` condition's when it is False too, e.g.
    ``NamesAccepted=False (ListKindConflict): "XBucketList" is already in use;
    Established=False (NotAccepted): not all names are accepted``.
    """
    names = _condition(crd, "NamesAccepted")
    if names[0] != "False":
        return ""
    parts = [_describe("NamesAccepted", names)]
    established = _condition(crd, "Established")
    if established[0] == "False":
        parts.append(_describe("Established", established))
    return "; ".join(parts)


def _describe(type_: str, condition: tuple[str, str, str]) -> str:
    status, reason, message = condition
    text = f"{type_}={status}" + (f" ({reason})" if reason else "")
    return f"{text}: {message}" if message else text


def _condition(crd: Mapping[str, Any] | None, type_: str) -> tuple[str, str, str]:
    """The status, reason and message of a CRD condition; ``("Unknown", "", "")`` when absent."""
    for c in ((crd or {}).get("status") or {}).get("conditions") or ():
        if isinstance(c, Mapping) and c.get("type") == type_:
            return str(c.get("status") or "Unknown"), str(c.get("reason") or ""), str(c.get("message") or "")
    return "Unknown", "", ""


async def install(
    api: _api.Api,
    *,
    timeout: float = 60.0,
    poll: float = 0.1,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> list[str]:
    """Create or upgrade crossfn's CRDs and wait until all are Established; return their names.

    Idempotent: applying unchanged CRDs again changes nothing. Raises
    :class:`~crossfn.controller.kube._api.ApiError` (``cannot install
    CustomResourceDefinition <name>: <cause>``) when the API server refuses one,
    and :class:`~crossfn.errors.CrossfnError` when one is not Established within
    ``timeout`` seconds or its names are not accepted (for example a
    conflicting CRD already holds them).
    """
    names = []
    for crd in manifests():
        name = str(crd["metadata"]["name"])
        try:
            await api.apply(crd, field_manager=_api.FIELD_MANAGER, force=True)
        except _api.ApiError as e:
            raise errors.wrap(e, f"cannot install {CRD_KIND} {name}") from e
        names.append(name)
    for name in names:
        await _wait_established(api, name, timeout=timeout, poll=poll, sleep=sleep)
    return names


async def _wait_established(
    api: _api.Api, name: str, *, timeout: float, poll: float, sleep: Callable[[float], Awaitable[None]]
) -> None:
    """Poll the CRD until it is Established; fail early when its names are refused."""
    # Counting polls rather than reading a clock keeps the wait testable without time.
    for _ in range(max(1, int(timeout / poll))):
        crd = await api.get(CRD_API_VERSION, CRD_KIND, name)
        if is_established(crd):
            return
        refused = refusal(crd)
        if refused:
            raise errors.CrossfnError(f"cannot install {CRD_KIND} {name}: {refused}")
        await sleep(poll)
    raise errors.CrossfnError(f"cannot install {CRD_KIND} {name}: not established after {timeout:g}s")
