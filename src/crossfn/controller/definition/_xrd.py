"""The XRD controller: from a CompositeResourceDefinition to a served XR kind and a running XR controller.

Crossplane runs two controllers on every XRD (upstream controllers-1 and
controllers-2.1): *defined* generates the
XR's CRD and starts the XR controller;
*offered* generates the claim's CRD of a legacy XRD with ``spec.claimNames``
and starts the claim controller. :class:`XrdReconciler` does both in one
reconcile, in Crossplane's order, with Crossplane's finalizers, conditions,
events and texts; what differs between the two is one :class:`_Role` value, so
the flow is written once. The injected :class:`XrControllers` starts and stops
the XR controller and, for an XRD that offers a claim, the claim controller.

Reconcile, in order: render the CRD(s) with :mod:`crossfn.schemas.xrd` (before
the deletion check, as Crossplane); on deletion, delete the claims, then the
XRs, stop the XR controller, delete the CRDs and drop the finalizers;
otherwise refuse an XRD that cannot be served as written
(:func:`crossfn.schemas.xrd.check_xrd`: not exactly one referenceable version,
a spec schema that is not an object), add the finalizers, server-side apply
each CRD (controlled by the XRD), wait until it is Established, (re)start the
XR controller through the injected :class:`XrControllers`, and set
``Established`` (and ``Offered``).

Every failure (a schema that does not parse or cannot be served, a CRD the API
server rejects or whose names it refuses, an existing CRD the XRD does not control
(owned by something else or by nothing: crossfn adopts no CRD), a kind of one of
Kubernetes' own API groups or of a group-version served by something other than
CRDs (:func:`~crossfn.controller.crds._crds.foreign_kind`), an XR controller that
does not start) becomes a Warning event and
``Synced=False/ReconcileError`` on the XRD, naming the field or condition at
fault, and is raised so that the queue backs off (1 s doubling to 30 s): a bad
XRD never stops the controller nor affects another XRD. Waiting (for a CRD to
be established, for XRs to be deleted) requeues after 1, 2, 4 ... 30 s.

The XRD itself is read from the API server, not from the informer cache: the
finalizer update and the status patch then build on its latest version. The
informers only trigger reconciles (:meth:`XrdReconciler.watch`).
"""

from __future__ import annotations

import copy
import dataclasses
import datetime
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from crossfn import errors
from crossfn.controller.crds import _crds
from crossfn.controller.kube import _api
from crossfn.controller.runtime import _conditions, _controller, _events, _informer
from crossfn.engine import _clock, _metadata
from crossfn.schemas import xrd as xrd_schemas

__all__ = [
    "CONTROLLER_NAME",
    "FINALIZER_DEFINED",
    "FINALIZER_OFFERED",
    "XRD_API_VERSION",
    "XRD_KIND",
    "XrControllers",
    "XrdReconciler",
]

XRD_API_VERSION = "apiextensions.crossplane.io/v1"
"""The XRD version the controller reads: the storage version, which holds every field of v1 and v2."""
XRD_KIND = "CompositeResourceDefinition"
FINALIZER_DEFINED = "defined.apiextensions.crossplane.io"
FINALIZER_OFFERED = "offered.apiextensions.crossplane.io"
FIELD_MANAGER = _api.FIELD_MANAGER

CONTROLLER_NAME = "defined/compositeresourcedefinition.apiextensions.crossplane.io"
"""Crossplane's name of this controller
(upstream controllers-1.1): the manager's name for it and its events' source."""

WAIT_SECONDS = 1.0
"""The first requeue while a CRD is being established or XRs are being deleted; each next one doubles,"""
WAIT_MAX_SECONDS = 30.0
"""up to this. (The CRD watch also requeues when a CRD changes, e.g. becomes Established.)"""
_MAX_DOUBLINGS = 10


class XrControllers(Protocol):
    """Starts, updates and stops the XR controller of each XRD (the manager implements it)."""

    async def start(self, xrd: dict[str, Any]) -> None:
        """Start the XR controller for ``xrd``, or update a running one.

        Called on every reconcile of an established XRD (as Crossplane's
        idempotent ``Start``), so it must be cheap when nothing changed.
        """
        ...

    async def stop(self, xrd_name: str) -> None:
        """Stop the XR controller of the XRD so named; a no-op when none runs."""
        ...


@dataclasses.dataclass(frozen=True)
class _Role:
    """What differs between defining an XR kind and offering its claim (Crossplane's two controllers)."""

    noun: str
    finalizer: str
    condition: str
    ready_reason: str
    terminating_reason: str
    establish_event: str
    terminate_event: str
    type_field: str
    render: Callable[[Mapping[str, Any]], dict[str, Any] | None]
    type_of: Callable[[Mapping[str, Any]], tuple[str, str]]
    controls_xr: bool
    delete_error: str


_DEFINED = _Role(
    noun="composite resource",
    finalizer=FINALIZER_DEFINED,
    condition="Established",
    ready_reason="WatchingCompositeResource",
    terminating_reason="TerminatingCompositeResource",
    establish_event="EstablishComposite",
    terminate_event="TerminateComposite",
    type_field="compositeResourceType",
    render=xrd_schemas.crd_from_xrd,
    type_of=xrd_schemas.composite_type,
    controls_xr=True,
    delete_error="cannot delete defined composite resources",
)
_OFFERED = _Role(
    noun="composite resource claim",
    finalizer=FINALIZER_OFFERED,
    condition="Offered",
    ready_reason="WatchingCompositeResourceClaim",
    terminating_reason="TerminatingCompositeResourceClaim",
    establish_event="OfferClaim",
    terminate_event="RedactClaim",
    type_field="compositeResourceClaimType",
    render=xrd_schemas.claim_crd_from_xrd,
    type_of=xrd_schemas.claim_type,
    controls_xr=False,
    delete_error="cannot delete defined composite resource claim",
)


class _Failure(_events.StepFailure):
    """A step failed: the Warning event's reason travels with Crossplane's message."""


class XrdReconciler:
    """Reconciles one XRD per key (its name); see the module docstring for the flow."""

    def __init__(
        self,
        api: _api.Api,
        informers: _informer.InformerFactory,
        recorder: _events.Recorder,
        xr_controllers: XrControllers,
        *,
        clock: Callable[[], datetime.datetime] = _clock.utcnow,
    ) -> None:
        self._api = api
        self._informers = informers
        self._recorder = recorder
        self._xr = xr_controllers
        self._clock = clock
        self._waits: dict[str, int] = {}

    def watch(self, enqueue: Callable[[str], None]) -> None:
        """Enqueue an XRD when it changes, and when a CRD it controls changes (e.g. becomes Established)."""

        def on_xrd(event_type: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
            enqueue(str((obj.get("metadata") or {}).get("name") or ""))

        def on_crd(event_type: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
            categories = ((obj.get("spec") or {}).get("names") or {}).get("categories") or ()
            if "composite" not in categories and "claim" not in categories:
                return
            for ref in (obj.get("metadata") or {}).get("ownerReferences") or ():
                if ref.get("controller") and ref.get("kind") == XRD_KIND:
                    enqueue(str(ref.get("name") or ""))

        self._informers.informer(XRD_API_VERSION, XRD_KIND).add_handler(on_xrd)
        self._informers.informer(_crds.CRD_API_VERSION, _crds.CRD_KIND).add_handler(on_crd)

    async def reconcile(self, key: str) -> _controller.Result:
        """Bring the XRD named ``key`` to its desired state; raise to be requeued with backoff."""
        _, name = _controller.split_key(key)
        xrd = await self._api.get(XRD_API_VERSION, XRD_KIND, name)
        if xrd is None:
            self._waits.pop(name, None)
            await self._xr.stop(name)
            return _controller.Result()
        original = copy.deepcopy(xrd.get("status") or {})
        waiting = False
        try:
            waiting = await self._reconcile(xrd, original)
        except _Failure as failure:
            await self._recorder.event(xrd, "Warning", failure.reason, str(failure))
            await self._write_status(name, xrd, original, synced_error=str(failure))
            raise
        finally:
            if not waiting:  # Done or failed (the queue's backoff takes over): the next wait starts at 1 s.
                self._waits.pop(name, None)
        return self._wait(name) if waiting else _controller.Result()

    def _wait(self, name: str) -> _controller.Result:
        """Requeue a waiting XRD after 1 s, then 2, 4, ... up to 30 s: Crossplane's rate-limited requeue."""
        attempt = self._waits.get(name, 0)
        self._waits[name] = attempt + 1
        delay = WAIT_SECONDS * 2 ** min(attempt, _MAX_DOUBLINGS)
        return _controller.Result(requeue_after=min(WAIT_MAX_SECONDS, delay))

    async def _reconcile(self, xrd: dict[str, Any], original: Mapping[str, Any]) -> bool:
        """One pass of the flow; return True when it must wait (and be requeued), False when done."""
        crds: dict[str, dict[str, Any]] = {}
        for role in (_DEFINED, _OFFERED) if xrd_schemas.offers_claim(xrd) else (_DEFINED,):
            try:
                crd = role.render(xrd)
            except errors.InputError as e:
                raise _Failure("RenderCRD", f"cannot render {role.noun} CustomResourceDefinition: {e}") from e
            if crd is not None:
                crds[role.noun] = crd
        if (xrd.get("metadata") or {}).get("deletionTimestamp"):
            return await self._delete(xrd, crds, original)
        try:
            # After the deletion check: an XRD refused here can still be deleted.
            xrd_schemas.check_xrd(xrd)
        except errors.InputError as e:
            raise _Failure("RenderCRD", f"cannot render {_DEFINED.noun} CustomResourceDefinition: {e}") from e
        roles = [r for r in (_DEFINED, _OFFERED) if r.noun in crds]
        for role in roles:
            xrd = await self._add_finalizer(xrd, role)
        observed = _conditions.get_condition(xrd, "Established")
        for role in roles:
            if not await self._apply_crd(xrd, role, crds[role.noun]):
                return True
        await self._start(xrd, observed)
        for role in roles:
            api_version, kind = role.type_of(xrd)
            xrd.setdefault("status", {}).setdefault("controllers", {})[role.type_field] = {
                "apiVersion": api_version,
                "kind": kind,
            }
            _conditions.set_condition(
                xrd, _conditions.condition(xrd, role.condition, "True", role.ready_reason, now=self._clock())
            )
        await self._write_status(xrd["metadata"]["name"], xrd, original)
        return False

    async def _add_finalizer(self, xrd: dict[str, Any], role: _Role) -> dict[str, Any]:
        """Add the role's finalizer with a full update (a conflict requeues), as Crossplane's APIFinalizer."""
        finalizers = list((xrd.get("metadata") or {}).get("finalizers") or [])
        if role.finalizer in finalizers:
            return xrd
        xrd["metadata"]["finalizers"] = [*finalizers, role.finalizer]
        try:
            return await self._api.update(xrd)
        except _api.Conflict:
            raise
        except _api.ApiError as e:
            raise _Failure(role.establish_event, f"cannot add {role.noun} finalizer: {e}") from e

    async def _apply_crd(self, xrd: dict[str, Any], role: _Role, crd: dict[str, Any]) -> bool:
        """Apply the role's CRD, controlled by the XRD; return whether it is Established.

        A CRD whose names the API server refuses will never be: that is a
        failure naming the CRD's conditions, not a wait.
        """
        name = crd["metadata"]["name"]
        prefix = f"cannot apply rendered {role.noun} CustomResourceDefinition"
        existing = await self._api.get(_crds.CRD_API_VERSION, _crds.CRD_KIND, name)
        uid = str(xrd["metadata"].get("uid") or "")
        if existing is not None and _controller_uid(existing) != uid:
            # Crossplane takes over a CRD no one controls; crossfn adopts nothing (docs/security.md).
            raise _Failure(
                role.establish_event, f'{prefix}: existing object is not controlled by UID "{uid}"'
            )
        foreign = await _crds.foreign_kind(self._api, crd)
        if foreign:
            raise _Failure(role.establish_event, f"{prefix}: {foreign}")
        try:
            applied = await self._api.apply(_with_metadata(crd, xrd), field_manager=FIELD_MANAGER, force=True)
        except _api.ApiError as e:
            raise _Failure(role.establish_event, f"{prefix}: {e}") from e
        before = (existing or {}).get("metadata", {}).get("resourceVersion")
        if applied.get("metadata", {}).get("resourceVersion") != before:
            await self._recorder.event(
                xrd, "Normal", role.establish_event, f"Applied {role.noun} CustomResourceDefinition: {name}"
            )
        if _crds.is_established(applied):
            return True
        refused = _crds.refusal(applied)
        if refused:
            raise _Failure(
                role.establish_event,
                f"cannot establish {role.noun} CustomResourceDefinition {errors.quote(name)}: {refused}",
            )
        await self._recorder.event(
            xrd,
            "Normal",
            role.establish_event,
            f"waiting for {role.noun} CustomResourceDefinition to be established",
        )
        return False

    async def _start(self, xrd: dict[str, Any], observed: Mapping[str, Any]) -> None:
        """Restart the XR controller when the XRD's spec changed since it started, else (re)start it."""
        generation = int(xrd["metadata"].get("generation") or 0)
        seen = int(observed.get("observedGeneration") or 0)
        name = xrd["metadata"]["name"]
        if observed.get("reason") == _DEFINED.ready_reason and seen and seen != generation:
            await self._recorder.event(
                xrd,
                "Normal",
                "RestartComposite",
                "XRD specification changed; restarting controller to apply updates",
            )
            try:
                await self._xr.stop(name)
            except errors.CrossfnError as e:
                raise _Failure("RestartComposite", f"cannot stop composite resource controller: {e}") from e
        try:
            await self._xr.start(xrd)
        except errors.CrossfnError as e:
            raise _Failure("EstablishComposite", f"cannot start composite resource controller: {e}") from e

    async def _delete(
        self, xrd: dict[str, Any], crds: Mapping[str, dict[str, Any]], original: Mapping[str, Any]
    ) -> bool:
        """Delete claims, then XRs, then the CRDs; drop each finalizer when its part is gone
        (upstream controllers-1.4, controllers-2.1)."""
        finalizers = (xrd.get("metadata") or {}).get("finalizers") or ()
        for role in (_OFFERED, _DEFINED):
            if role.finalizer not in finalizers:
                continue
            _conditions.set_condition(
                xrd,
                _conditions.condition(
                    xrd, role.condition, "False", role.terminating_reason, now=self._clock()
                ),
            )
            await self._write_status(xrd["metadata"]["name"], xrd, original)
            crd = crds.get(role.noun)
            if crd is not None and not await self._delete_crd(xrd, role, crd["metadata"]["name"]):
                return True
            if role.controls_xr:
                await self._xr.stop(xrd["metadata"]["name"])
            xrd = await self._remove_finalizer(xrd, role)
        return False

    async def _delete_crd(self, xrd: dict[str, Any], role: _Role, name: str) -> bool:
        """Delete the role's objects, then its CRD; return True once the CRD is gone (or not ours)."""
        try:
            crd = await self._api.get(_crds.CRD_API_VERSION, _crds.CRD_KIND, name)
        except _api.ApiError as e:
            raise _Failure(
                role.terminate_event, f"cannot get {role.noun} CustomResourceDefinition: {e}"
            ) from e
        if crd is None or _controller_uid(crd) != xrd["metadata"].get("uid"):
            return True
        if (crd.get("metadata") or {}).get("deletionTimestamp"):
            return False  # Deleted on an earlier pass; the API server is removing it.
        api_version, kind = role.type_of(xrd)
        try:
            # Objects of a Kubernetes group are never this XRD's to delete, whatever serves them.
            group = str((crd.get("spec") or {}).get("group") or "")
            remaining = [] if _crds.reserved_group(group) else (await self._api.list(api_version, kind))[0]
        except (_api.NoKindMatch, _api.NotFound):
            remaining = []
        except _api.ApiError as e:
            raise _Failure(role.terminate_event, f"cannot list defined {role.noun}s: {e}") from e
        if remaining:
            for obj in remaining:
                meta = obj.get("metadata") or {}
                try:
                    await self._api.delete(
                        api_version, kind, meta.get("name", ""), meta.get("namespace") or ""
                    )
                except _api.NotFound:
                    continue
                except _api.ApiError as e:
                    raise _Failure(role.terminate_event, f"{role.delete_error}: {e}") from e
            await self._recorder.event(
                xrd, "Normal", role.terminate_event, f"waiting for defined {role.noun}s to be deleted"
            )
            return False
        if role.controls_xr:
            # The XR controller must stop before its CRD disappears.
            await self._xr.stop(xrd["metadata"]["name"])
        try:
            await self._api.delete(_crds.CRD_API_VERSION, _crds.CRD_KIND, name)
        except _api.NotFound:
            pass
        except _api.Forbidden:
            # deploy/ grants no delete on CRDs (it would allow deleting any kind): the CRD is
            # controlled by this XRD, so the garbage collector deletes it once the XRD is gone.
            await self._recorder.event(
                xrd, "Normal", role.terminate_event,
                f"Leaving {role.noun} CustomResourceDefinition {name} to the garbage collector",
            )  # fmt: skip
            return True
        except _api.ApiError as e:
            raise _Failure(
                role.terminate_event, f"cannot delete {role.noun} CustomResourceDefinition: {e}"
            ) from e
        await self._recorder.event(
            xrd, "Normal", role.terminate_event, f"Deleted {role.noun} CustomResourceDefinition: {name}"
        )
        return False

    async def _remove_finalizer(self, xrd: dict[str, Any], role: _Role) -> dict[str, Any]:
        current = await self._api.get(XRD_API_VERSION, XRD_KIND, xrd["metadata"]["name"])
        if current is None:
            return xrd
        current["metadata"]["finalizers"] = [
            f for f in current["metadata"].get("finalizers") or () if f != role.finalizer
        ]
        try:
            return await self._api.update(current)
        except _api.NotFound:
            return xrd
        except _api.Conflict:
            raise
        except _api.ApiError as e:
            raise _Failure(role.terminate_event, f"cannot remove {role.noun} finalizer: {e}") from e

    async def _write_status(
        self, name: str, xrd: dict[str, Any], original: Mapping[str, Any], *, synced_error: str = ""
    ) -> None:
        """Write conditions and ``status.controllers`` (when they differ from ``original``) with a merge patch.

        ``Synced`` is crossfn's addition to Crossplane's XRD conditions: it carries
        the last reconcile error, so a bad XRD says what is wrong in ``kubectl describe``.
        """
        if synced_error:
            synced = _conditions.condition(
                xrd, "Synced", "False", "ReconcileError", now=self._clock(), message=synced_error
            )
        else:
            synced = _conditions.condition(xrd, "Synced", "True", "ReconcileSuccess", now=self._clock())
        _conditions.set_condition(xrd, synced)
        status = xrd.get("status") or {}
        patch: dict[str, Any] = {"status": {"conditions": status.get("conditions") or []}}
        if status.get("controllers"):
            patch["status"]["controllers"] = status["controllers"]
        if all(original.get(k) == v for k, v in patch["status"].items()):
            return  # Nothing changed since the XRD was read: spare the API server a write.
        try:
            await self._api.patch(XRD_API_VERSION, XRD_KIND, name, "", patch, status=True)
        except _api.NotFound:
            return


def _controller_uid(obj: Mapping[str, Any] | None) -> str | None:
    """The uid of the object's controller owner, or None when it has none."""
    for ref in ((obj or {}).get("metadata") or {}).get("ownerReferences") or ():
        if ref.get("controller"):
            return str(ref.get("uid") or "")
    return None


def _with_metadata(crd: dict[str, Any], xrd: Mapping[str, Any]) -> dict[str, Any]:
    """The CRD with Crossplane's metadata: the XRD as controller, its labels, ``spec.metadata``'s extras.

    Labels are the XRD's own plus ``spec.metadata.labels``; annotations only
    ``spec.metadata.annotations`` (Crossplane does not copy the XRD's annotations).
    """
    meta = xrd.get("metadata") or {}
    extra = (xrd.get("spec") or {}).get("metadata") or {}
    out = {**crd, "metadata": dict(crd["metadata"])}
    labels = {**(meta.get("labels") or {}), **(extra.get("labels") or {})}
    if labels:
        out["metadata"]["labels"] = labels
    if extra.get("annotations"):
        out["metadata"]["annotations"] = dict(extra["annotations"])
    out["metadata"]["ownerReferences"] = [
        _metadata.controller_reference(xrd, api_version=XRD_API_VERSION, kind=XRD_KIND)
    ]
    return out
