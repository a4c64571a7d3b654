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

Both work on the XR in memory and return the events to emit; the reconciler
persists the refs with one update. Crossplane's machinery sits under ``spec``
for legacy (v1) XRs and under ``spec.crossplane`` for modern (v2) ones; a
:class:`Fields` reads and writes the right place.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping
from typing import Any

from crossfn import errors
from crossfn.controller.kube import _api
from crossfn.controller.runtime import _informer
from crossfn.gocompat import values

__all__ = [
    "COMPOSITION",
    "LABEL_COMPOSITION_NAME",
    "REVISION",
    "Fields",
    "NoRevision",
    "Reader",
    "SelectionEvent",
    "check_composition_fields",
    "check_selection_fields",
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


class Fields:
    """Where an XR keeps Crossplane's machinery: ``spec`` (legacy) or ``spec.crossplane`` (modern)."""

    def __init__(self, *, legacy: bool) -> None:
        self.legacy = legacy

    def machinery(self, xr: dict[str, Any]) -> dict[str, Any]:
        """The machinery map of ``xr``, created when absent (so writes land in place)."""
        spec: dict[str, Any] = xr.setdefault("spec", {})
        if self.legacy:
            return spec
        machinery: dict[str, Any] = spec.setdefault("crossplane", {})
        return machinery

    def peek(self, xr: Mapping[str, Any]) -> Mapping[str, Any]:
        """The machinery map of ``xr`` for reading; never creates anything."""
        spec = xr.get("spec") or {}
        found = spec if self.legacy else spec.get("crossplane") or {}
        return found if isinstance(found, Mapping) else {}

    def ref_name(self, xr: Mapping[str, Any], field: str) -> str | None:
        ref = self.peek(xr).get(field)
        name = ref.get("name") if isinstance(ref, Mapping) else None
        return str(name) if name else None

    def match_labels(self, xr: Mapping[str, Any], field: str) -> dict[str, str] | None:
        sel = self.peek(xr).get(field)
        if not isinstance(sel, Mapping):
            return None
        labels = sel.get("matchLabels")
        return {str(k): str(v) for k, v in labels.items()} if isinstance(labels, Mapping) else {}

    def update_policy(self, xr: Mapping[str, Any]) -> str:
        """``Automatic`` or ``Manual``; unset reads Automatic, the CRD's default."""
        return str(self.peek(xr).get("compositionUpdatePolicy") or "Automatic")


def _object(value: object, where: str) -> Mapping[str, Any]:
    """``value`` when it is an object or unset (``{}``); else a user's mistake naming the field."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise errors.InputError(f"{where} must be an object, not {values.a_json_type(value)}")
    return value


def _machinery(xr: Mapping[str, Any], fields: Fields) -> tuple[Mapping[str, Any], str]:
    spec = _object(xr.get("spec"), "spec")
    if fields.legacy:
        return spec, "spec"
    return _object(spec.get("crossplane"), "spec.crossplane"), "spec.crossplane"


def check_selection_fields(xr: Mapping[str, Any], fields: Fields) -> None:
    """Refuse wrongly typed selection fields, naming the field, before any is read or written.

    The CRDs crossfn makes type these fields, so the API server refuses
    such XRs; an XR kind whose CRD came from elsewhere may still hold them,
    and a field read wrongly (``compositionRef: 5`` read as unset) would pick
    another Composition silently.
    """
    machinery, at = _machinery(xr, fields)
    for field in ("compositionRef", "compositionRevisionRef"):
        name = _object(machinery.get(field), f"{at}.{field}").get("name")
        if name is not None and not isinstance(name, str):
            raise errors.InputError(f"{at}.{field}.name must be a string, not {values.a_json_type(name)}")
    for field in ("compositionSelector", "compositionRevisionSelector"):
        where = f"{at}.{field}.matchLabels"
        labels = _object(_object(machinery.get(field), f"{at}.{field}").get("matchLabels"), where)
        for key, value in labels.items():
            if not isinstance(value, str):
                raise errors.InputError(f"{where}.{key} must be a string, not {values.a_json_type(value)}")
    policy = machinery.get("compositionUpdatePolicy")
    if policy is not None and policy not in ("Automatic", "Manual"):
        shown = errors.quote(policy) if isinstance(policy, str) else values.a_json_type(policy)
        raise errors.InputError(f"{at}.compositionUpdatePolicy must be Automatic or Manual, not {shown}")


def check_composition_fields(xr: Mapping[str, Any], fields: Fields) -> None:
    """Refuse a wrongly typed ``resourceRefs`` (and a legacy XR's Secret and claim refs), naming the field."""
    machinery, at = _machinery(xr, fields)
    refs = machinery.get("resourceRefs")
    if refs is not None:
        if not isinstance(refs, list):
            raise errors.InputError(f"{at}.resourceRefs must be a list, not {values.a_json_type(refs)}")
        for i, ref in enumerate(refs):
            _object(ref, f"{at}.resourceRefs[{i}]")
    if fields.legacy:
        for field in ("writeConnectionSecretToRef", "claimRef"):
            _object(machinery.get(field), f"{at}.{field}")


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


def _set_ref(xr: dict[str, Any], fields: Fields, field: str, name: str) -> None:
    fields.machinery(xr)[field] = {"name": name}


async def select_composition(
    xr: dict[str, Any], xrd: Mapping[str, Any], fields: Fields, reader: Reader, rng: random.Random
) -> list[SelectionEvent]:
    """Set the XR's Composition reference by the selection chain; raise when none fits."""
    events: list[SelectionEvent] = []
    spec = xrd.get("spec") or {}
    enforced = (spec.get("enforcedCompositionRef") or {}).get("name")
    current = fields.ref_name(xr, "compositionRef")
    if enforced:
        if current != enforced:
            _set_ref(xr, fields, "compositionRef", str(enforced))
            events.append(SelectionEvent("CompositionSelection", "Enforced composition has been selected"))
        return events
    default = (spec.get("defaultCompositionRef") or {}).get("name")
    if current is None and fields.match_labels(xr, "compositionSelector") is None and default:
        _set_ref(xr, fields, "compositionRef", str(default))
        events.append(SelectionEvent("CompositionSelection", "Default composition has been selected"))
        return events
    if current is not None:
        return events
    labels = fields.match_labels(xr, "compositionSelector") or {}
    try:
        compositions = await reader.list(COMPOSITION, labels)
    except _api.ApiError as exc:
        raise errors.CrossfnError(f"cannot list Compositions: {exc}") from exc
    candidates = sorted(
        str((c.get("metadata") or {}).get("name") or "")
        for c in compositions
        if ((c.get("spec") or {}).get("compositeTypeRef") or {})
        == {"apiVersion": xr.get("apiVersion"), "kind": xr.get("kind")}
    )
    if not candidates:
        raise errors.CrossfnError("no compatible Compositions found")
    _set_ref(xr, fields, "compositionRef", rng.choice(candidates))
    return events


def default_revision_selector(
    xr: dict[str, Any], xrd: Mapping[str, Any], fields: Fields
) -> list[SelectionEvent]:
    """Copy the XRD's ``defaultCompositionRevisionSelector`` to an XR that has no revision selector."""
    default = (xrd.get("spec") or {}).get("defaultCompositionRevisionSelector")
    if not isinstance(default, Mapping) or fields.match_labels(xr, "compositionRevisionSelector") is not None:
        return []
    fields.machinery(xr)["compositionRevisionSelector"] = {
        "matchLabels": dict(default.get("matchLabels") or {})
    }
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


async def select_revision(
    xr: dict[str, Any], fields: Fields, reader: Reader
) -> tuple[dict[str, Any], list[SelectionEvent]]:
    """The revision the XR uses, its ref set in memory, and the events; raise when there is none."""
    current = fields.ref_name(xr, "compositionRevisionRef")
    policy = fields.update_policy(xr)
    if current is not None and policy == "Manual":
        rev = await reader.get(REVISION, current)
        if rev is None:
            raise errors.CrossfnError(
                f"cannot get CompositionRevision: {_not_found('compositionrevisions', current)}"
            )
        return rev, []
    name = fields.ref_name(xr, "compositionRef") or ""
    composition = await reader.get(COMPOSITION, name)
    if composition is None:
        raise errors.CrossfnError(f"cannot get Composition: {_not_found('compositions', name)}")
    labels = {LABEL_COMPOSITION_NAME: name}
    if policy == "Automatic":
        labels = {**(fields.match_labels(xr, "compositionRevisionSelector") or {}), **labels}
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
    _set_ref(xr, fields, "compositionRevisionRef", latest_name)
    return latest, [SelectionEvent("SelectComposition", f"Selected composition revision: {latest_name}")]
