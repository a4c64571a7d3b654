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

__all__ = ["CRD_API_VERSION", "CRD_KIND", "install", "is_established", "manifests", "refusal"]

CRD_API_VERSION = "apiextensions.k8s.io/v1"
CRD_KIND = "CustomResourceDefinition"


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
