"""Which Composition and which CompositionRevision an XR uses (upstream core-2.1 steps 7–8,
upstream controllers-1.6, controllers-3.6).

The decisions, in Crossplane's order:

1. **Composition.** The XRD's ``enforcedCompositionRef`` always wins. Else,
   when the XR names neither a Composition nor a selector, the XRD's
   ``defaultCompositionRef``. Else, when the XR still names none, a random
   Composition whose ``compositeTypeRef`` is the XR's apiVersion and kind and
   whose labels match the XR's ``compositionSelector`` (no selector: any).
2. **Revision.** With ``compositionUpdatePolicy: Manual`` and a revision
   already referenced, exactly that revision. Otherwise the highest
   ``spec.revision`` among the revisions labelled with the Composition's name
   (and the XR's ``compositionRevisionSelector`` labels under the Automatic
   policy) that the Composition controls.

Both work on the XR in memory, through its view (:class:`~crossfn.controller.runtime._xr.XR`,
which knows whether the refs live under ``spec`` or ``spec.crossplane``), and
return the events to emit; the reconciler persists the refs with one update.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping
from typing import Any

from crossfn import errors
from crossfn.controller.kube import _api
from crossfn.controller.runtime import _informer, _xr

__all__ = [
    "COMPOSITION",
    "LABEL_COMPOSITION_NAME",
    "REVISION",
    "NoRevision",
    "Reader",
    "SelectionEvent",
    "latest_revision",
    "select_composition",
    "select_revision",
]

COMPOSITION = ("apiextensions.crossplane.io/v1", "Composition")
REVISION = ("apiextensions.crossplane.io/v1", "CompositionRevision")
LABEL_COMPOSITION_NAME = "crossplane.io/composition-name"


class NoRevision(errors.CrossfnError):
    """The Composition has no revision the XR may use, which is usually a moment's race.

    A Composition applied together with its XR has no revision until the
    revision controller makes one; the XR controller's revision watch
    reconciles the XR again as soon as it appears.
    """


@dataclasses.dataclass(frozen=True)
class SelectionEvent:
    """A Normal event the selection produced."""

    reason: str
    message: str


class Reader:
    """Reads Compositions and revisions from the shared informers, or live when there are none."""

    def __init__(self, api: _api.Api, informers: _informer.Informers | None) -> None:
        self._api = api
        self._informers = informers

    async def list(
        self, kind: tuple[str, str], labels: Mapping[str, str] | None = None
    ) -> list[dict[str, Any]]:
        if self._informers is not None:
            cache = self._informers.informer(*kind)
            if not cache.synced:
                await cache.wait_synced()
            return cache.list(None, labels)
        items, _ = await self._api.list(*kind, labels=labels)
        return items

    async def get(self, kind: tuple[str, str], name: str) -> dict[str, Any] | None:
        if self._informers is not None:
            cache = self._informers.informer(*kind)
            if not cache.synced:
                await cache.wait_synced()
            found = cache.get(name)
            if found is not None:
                return found
        return await self._api.get(*kind, name)


def _not_found(resource: str, name: str) -> str:
    """client-go's NotFound text, which Crossplane's wrapped errors end with."""
    return f"{resource}.apiextensions.crossplane.io {errors.quote(name)} not found"


async def select_composition(
    xr: _xr.XR, xrd: Mapping[str, Any], reader: Reader, rng: random.Random
) -> list[SelectionEvent]:
    """Set the XR's Composition reference by the selection chain; raise when none fits."""
    events: list[SelectionEvent] = []
    spec = xrd.get("spec") or {}
    enforced = (spec.get("enforcedCompositionRef") or {}).get("name")
    current = xr.composition_ref
    if enforced:
        if current != enforced:
            xr.set_composition_ref(str(enforced))
            events.append(SelectionEvent("CompositionSelection", "Enforced composition has been selected"))
        return events
    default = (spec.get("defaultCompositionRef") or {}).get("name")
    if current is None and xr.composition_selector is None and default:
        xr.set_composition_ref(str(default))
        events.append(SelectionEvent("CompositionSelection", "Default composition has been selected"))
        return events
    if current is not None:
        return events
    labels = xr.composition_selector or {}
    try:
        compositions = await reader.list(COMPOSITION, labels)
    except _api.ApiError as exc:
        raise errors.CrossfnError(f"cannot list Compositions: {exc}") from exc
    candidates = sorted(
        str((c.get("metadata") or {}).get("name") or "")
        for c in compositions
        if ((c.get("spec") or {}).get("compositeTypeRef") or {})
        == {"apiVersion": xr.api_version, "kind": xr.kind}
    )
    if not candidates:
        raise errors.CrossfnError("no compatible Compositions found")
    xr.set_composition_ref(rng.choice(candidates))
    return events


def default_revision_selector(xr: _xr.XR, xrd: Mapping[str, Any]) -> list[SelectionEvent]:
    """Copy the XRD's ``defaultCompositionRevisionSelector`` to an XR that has no revision selector."""
    default = (xrd.get("spec") or {}).get("defaultCompositionRevisionSelector")
    if not isinstance(default, Mapping) or xr.composition_revision_selector is not None:
        return []
    xr.set_composition_revision_selector(default.get("matchLabels") or {})
    return [SelectionEvent("CompositionSelection", "Default revision selector has been selected")]


def _controlled_by(obj: Mapping[str, Any], uid: str) -> bool:
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or []:
        if isinstance(ref, Mapping) and ref.get("controller") and ref.get("uid") == uid:
            return True
    return False


def latest_revision(composition: Mapping[str, Any], revisions: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The highest-numbered revision the Composition controls (Crossplane's ``LatestRevision``)."""
    uid = str((composition.get("metadata") or {}).get("uid") or "")
    latest: dict[str, Any] | None = None
    for rev in revisions:
        if not _controlled_by(rev, uid):
            continue
        number = int((rev.get("spec") or {}).get("revision") or 0)
        if latest is None or number > int((latest.get("spec") or {}).get("revision") or 0):
            latest = rev
    return latest


async def select_revision(xr: _xr.XR, reader: Reader) -> tuple[dict[str, Any], list[SelectionEvent]]:
    """The revision the XR uses, its ref set in memory, and the events; raise when there is none."""
    current = xr.composition_revision_ref
    policy = xr.composition_update_policy
    if current is not None and policy == "Manual":
        rev = await reader.get(REVISION, current)
        if rev is None:
            raise errors.CrossfnError(
                f"cannot get CompositionRevision: {_not_found('compositionrevisions', current)}"
            )
        return rev, []
    name = xr.composition_ref or ""
    composition = await reader.get(COMPOSITION, name)
    if composition is None:
        raise errors.CrossfnError(f"cannot get Composition: {_not_found('compositions', name)}")
    labels = {LABEL_COMPOSITION_NAME: name}
    if policy == "Automatic":
        labels = {**(xr.composition_revision_selector or {}), **labels}
    try:
        revisions = await reader.list(REVISION, labels)
    except _api.ApiError as exc:
        raise errors.CrossfnError(
            f"cannot fetch composition revision: cannot list CompositionRevisions: {exc}"
        ) from exc
    latest = latest_revision(composition, revisions)
    if latest is None:
        raise NoRevision("no compatible CompositionRevisions found")
    latest_name = str(latest["metadata"]["name"])
    if current == latest_name:
        return latest, []
    xr.set_composition_revision_ref(latest_name)
    return latest, [SelectionEvent("SelectComposition", f"Selected composition revision: {latest_name}")]
