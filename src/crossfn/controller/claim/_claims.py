"""The claim reconciler: a namespaced claim bound to a cluster-scoped legacy XR
(upstream controllers-2.2–controllers-2.8).

One :class:`ClaimReconciler` serves the claims of one XRD that offers them
(a v1 ``LegacyCluster`` XRD with ``spec.claimNames``); the manager starts it as
controller ``claim/<xrd-name>`` next to the XRD's XR controller. Its
``reconcile(key)`` follows Crossplane's ``claim/reconciler.go``, in order:

1. get the claim (gone: done);  3. paused: ``Synced=False/ReconcilePaused``,
stop;  4. get the XR named by ``spec.resourceRef``;  5. refuse an XR bound to
another claim (a Warning, ``Synced=False``, and no requeue: a human must act);
6. hand an adopted XR's fields to the claim's field manager;  7. deletion
(below);  8. the finalizer;  9–10. sync (``_claim_sync``: create or adopt the
XR, propagate spec one way, status the other);  11. ``Successfully bound
composite resource`` the first time;  12. ``Synced=True`` and the XR's
``claimConditionTypes`` copied over;  13. ``Ready=False/Waiting`` while the XR
is not Ready;  14. the connection Secret (``_connection.propagate``);
15. ``Ready=True/Available``.

**Deletion** follows ``spec.compositeDeletePolicy``: ``Background`` (the
default) deletes the XR and lets the garbage collector finish while the claim
goes at once; ``Foreground`` deletes the XR with foreground propagation and
keeps the claim (and its finalizer) until the XR and everything it composed is
gone. Each failure is a Warning event with Crossplane's reason and
``Synced=False/ReconcileError`` on the claim, then raised for backoff (a
Conflict silently). An XR kind the API server does not serve (its XRD's CRD
missing) is such a failure too, never a crash.

Not here: Crossplane's event annotations (``external-name``,
``composite-name``) and the client-side syncer of ``--enable-ssa-claims=false``.
"""

from __future__ import annotations

import contextvars
import copy
import datetime
import random
from collections.abc import Callable, Mapping
from typing import Any

from crossfn import engine, errors
from crossfn.controller.claim import _claim_sync, _connection
from crossfn.controller.kube import _api
from crossfn.controller.runtime import _conditions, _controller, _events, _informer, _tracing, _xr
from crossfn.engine import _clock
from crossfn.engine import _xr as engine_xr
from crossfn.gocompat import values
from crossfn.schemas import xrd as xrd_schemas

__all__ = [
    "FINALIZER",
    "FOREGROUND_WAIT_SECONDS",
    "ClaimReconciler",
    "check_fields",
]


FINALIZER = "finalizer.apiextensions.crossplane.io"
EVENT_SOURCE = "offered/compositeresourcedefinition.apiextensions.crossplane.io"
"""The ``source.component`` of a claim's events: the XRD controller that starts the claim controller."""
ANNOTATION_EXTERNAL_NAME = "crossplane.io/external-name"

_RECORDER: contextvars.ContextVar[_events.Recorder] = contextvars.ContextVar("claim_recorder")
"""The recorder of the reconcile in progress (a claim's annotations differ per reconcile; workers run
reconciles concurrently, each in its own context)."""
FOREGROUND_WAIT_SECONDS = 2.0
"""Requeue while a Foreground deletion of the XR runs; the XR watch also requeues when it is gone."""
WAITING_MESSAGE = "Claim is waiting for composite resource to become Ready"
PAUSED_MESSAGE = "Reconciliation (including deletion) is paused via the pause annotation"


class _Failure(_events.StepFailure):
    """A failed step: the Warning event's reason travels with Crossplane's message."""


def _fail(reason: str, outer: str, exc: Exception) -> Exception:
    """``exc`` as a step failure, except a Conflict, which requeues silently as it is."""
    if isinstance(exc, _api.Conflict):
        return exc
    failure = _Failure(reason, f"{outer}: {exc}")
    failure.__cause__ = exc
    return failure


class ClaimReconciler:
    """Reconciles the claims of one XRD; keys are ``namespace/name``.

    Wired like :class:`~crossfn.controller.composite._composite.CompositeReconciler`:
    ``set_enqueue`` (the claim controller's), ``start`` (watch claims, and XRs
    to enqueue the claim their ``spec.claimRef`` names), ``set_xrd`` (a changed
    XRD, e.g. a new enforced Composition), ``stop``.
    """

    def __init__(
        self,
        api: _api.Api,
        informers: _informer.Informers | None,
        recorder: _events.Recorder,
        *,
        xrd: Mapping[str, Any],
        clock: Callable[[], datetime.datetime] = _clock.utcnow,
        rng: random.Random | None = None,
        tracer: _tracing.ReconcileTracer | None = None,
    ) -> None:
        self._api = api
        self._informers = informers
        self._clock = clock
        self._rng = rng or random.Random()
        self._tracer = tracer
        self.xrd: Mapping[str, Any] = xrd
        self.xr_api_version, self.xr_kind = xrd_schemas.composite_type(xrd)
        # Crossplane's claim controller records its events as controller claim/<xrd-name>.
        # Crossplane's claim controller records through the offered controller's recorder, annotated
        # with its own name; each reconcile adds the claim's external name and bound XR (_reconcile_key).
        self._recorder = _events.with_annotations(
            _events.for_controller(recorder, EVENT_SOURCE), {"controller": f"claim/{self._xrd_name}"}
        )
        self.api_version, self.kind = xrd_schemas.claim_type(xrd)
        self._enqueue: Callable[[str], None] = _drop
        self._started = False

    # Wiring ------------------------------------------------------------------------------------

    def set_enqueue(self, enqueue: Callable[[str], None]) -> None:
        self._enqueue = enqueue

    def set_xrd(self, xrd: Mapping[str, Any]) -> None:
        """Take a changed XRD (its enforced Composition, connection keys) without a restart."""
        self.xrd = xrd

    def start(self) -> None:
        """Watch the claim kind (enqueue itself) and the XR kind (enqueue the claim it names)."""
        if self._informers is None or self._started:
            return
        self._started = True
        self._informers.informer(self.api_version, self.kind).add_handler(self._claim_changed)
        self._informers.informer(self.xr_api_version, self.xr_kind).add_handler(self._xr_changed)

    def stop(self) -> None:
        self._enqueue = _drop
        if not self._started or self._informers is None:
            return
        running = set(self._informers.kinds())
        for kind, handler in (((self.api_version, self.kind), self._claim_changed),
                              ((self.xr_api_version, self.xr_kind), self._xr_changed)):  # fmt: skip
            if kind in running:
                self._informers.informer(*kind).remove_handler(handler)
        self._started = False

    def _claim_changed(self, event_type: str, claim: dict[str, Any], old: dict[str, Any] | None) -> None:
        self._enqueue(_controller.key_of(claim))

    def _xr_changed(self, event_type: str, xr: dict[str, Any], old: dict[str, Any] | None) -> None:
        """Both the old and the new claimRef (``EnqueueRequestForClaim``)."""
        for obj in (old, xr):
            ref = _claim_ref(obj)
            if ref.get("name") and ref.get("namespace"):
                self._enqueue(f"{ref['namespace']}/{ref['name']}")

    @property
    def _xrd_name(self) -> str:
        return str((self.xrd.get("metadata") or {}).get("name") or "")

    # Reconcile ---------------------------------------------------------------------------------

    async def reconcile(self, key: str) -> _controller.Result:
        """Reconcile the claim ``key`` (module docstring), in a span when tracing."""
        tracer = self._tracer or _tracing.default_tracer()
        with tracer.reconcile(controller=f"claim/{self._xrd_name}", key=key, kind=self.kind):
            return await self._reconcile_key(key)

    async def _reconcile_key(self, key: str) -> _controller.Result:
        namespace, name = _controller.split_key(key)
        try:
            claim = await self._api.get(self.api_version, self.kind, name, namespace)
        except _api.ApiError as exc:
            raise errors.CrossfnError(f"cannot get composite resource claim: {exc}") from exc
        if claim is None:
            return _controller.Result()
        read = copy.deepcopy(claim.get("status") or {})
        claim.setdefault("status", {})
        annotations = (claim.get("metadata") or {}).get("annotations") or {}
        if annotations.get(engine_xr.ANNOTATION_PAUSED) == "true":
            await self._event(claim, "Normal", "ReconciliationPaused", PAUSED_MESSAGE)
            self._mark(claim, "Synced", "False", "ReconcilePaused", PAUSED_MESSAGE)
            await self._write_status(claim, read)
            return _controller.Result()
        # Every later event carries the claim's external name, and the XR it was bound to when read.
        extra = {"external-name": str(annotations.get(ANNOTATION_EXTERNAL_NAME) or "")}
        spec = claim.get("spec")
        ref = spec.get("resourceRef") if isinstance(spec, Mapping) else None
        bound = ref.get("name") if isinstance(ref, Mapping) else None
        if bound:
            extra["composite-name"] = str(bound)
        token = _RECORDER.set(_events.with_annotations(self._recorder, extra))
        try:
            return await self._reconcile(claim, read)
        except _Failure as failure:
            await self._event(claim, "Warning", failure.reason, str(failure))
            self._mark(claim, "Synced", "False", "ReconcileError", str(failure))
            await self._write_status(claim, read)
            raise
        finally:
            _RECORDER.reset(token)

    async def _reconcile(self, claim: dict[str, Any], read: dict[str, Any]) -> _controller.Result:
        """Steps 4–15."""
        try:
            check_fields(claim)
        except errors.CrossfnError as exc:
            raise _fail(
                "BindCompositeResource", "cannot bind and sync claim with composite resource", exc
            ) from exc
        xr = await self._bound(claim)
        foreign = _foreign_claim(xr, claim)
        if foreign is not None:
            xr_name, other = foreign
            message = (
                f"refusing to operate on composite resource {errors.quote(xr_name)} "
                f"that is not bound to this claim: bound to claim {errors.quote(other)}"
            )
            await self._event(claim, "Warning", "BindCompositeResource", message)
            self._mark(claim, "Synced", "False", "ReconcileError", message)
            await self._write_status(claim, read)
            return _controller.Result()  # a human must act: no requeue
        if xr is not None:
            try:
                await _claim_sync.upgrade_managed_fields(self._api, xr)
            except _api.ApiError as exc:
                raise _fail("BindCompositeResource",
                            "cannot upgrade composite resource's managed fields from client-side to server-side apply",
                            exc) from exc  # fmt: skip
        if (claim.get("metadata") or {}).get("deletionTimestamp"):
            return await self._delete(claim, xr, read)
        await self._add_finalizer(claim)
        was_bound = xr is not None and _bound_to(xr, claim)
        try:
            xr = await _claim_sync.sync(
                self._api, claim, xr, api_version=self.xr_api_version, kind=self.xr_kind,
                enforced=bool((self.xrd.get("spec") or {}).get("enforcedCompositionRef")), rng=self._rng,
            )  # fmt: skip
        except errors.CrossfnError as exc:
            raise _fail(
                "BindCompositeResource", "cannot bind and sync claim with composite resource", exc
            ) from exc
        if not was_bound and _bound_to(xr, claim):
            await self._event(
                claim, "Normal", "BindCompositeResource", "Successfully bound composite resource"
            )
        self._mark(claim, "Synced", "True", "ReconcileSuccess")
        self._pass_conditions(claim, xr)
        if _conditions.get_condition(xr, "Ready").get("status") != "True":
            await self._event(claim, "Normal", "BindCompositeResource", "Composite resource is not yet ready")
            self._mark(claim, "Ready", "False", "Waiting", WAITING_MESSAGE)
            await self._write_status(claim, read)
            return _controller.Result()
        try:
            propagated = await _connection.propagate(self._api, claim, xr)
        except errors.CrossfnError as exc:
            raise _fail(
                "PropagateConnectionSecret",
                "cannot propagate connection details from composite resource",
                exc,
            ) from exc
        if propagated:
            claim["status"].setdefault("connectionDetails", {})["lastPublishedTime"] = _conditions.timestamp(
                self._clock()
            )
            await self._event(claim, "Normal", "PropagateConnectionSecret",
                              "Successfully propagated connection details from composite resource")  # fmt: skip
        self._mark(claim, "Ready", "True", "Available")
        await self._write_status(claim, read)
        return _controller.Result()

    async def _bound(self, claim: Mapping[str, Any]) -> dict[str, Any] | None:
        """Step 4: the XR ``spec.resourceRef`` names, or ``None`` (none named, or not there yet)."""
        name = ((claim.get("spec") or {}).get("resourceRef") or {}).get("name")
        if not name:
            return None
        try:
            return await self._api.get(self.xr_api_version, self.xr_kind, str(name))
        except _api.ApiError as exc:
            raise _fail("BindCompositeResource", "cannot get bound composite resource", exc) from exc

    def _pass_conditions(self, claim: dict[str, Any], xr: Mapping[str, Any]) -> None:
        """Step 12: the XR's ``claimConditionTypes`` onto the claim, at the claim's generation."""
        generation = int((claim.get("metadata") or {}).get("generation") or 0)
        composite = _composite(xr)
        for type_ in composite.claim_condition_types:
            c = composite.condition(type_)
            if not c.get("reason"):
                continue  # the XR has no such condition (yet): nothing a claim could show
            if generation:
                c["observedGeneration"] = generation
            else:
                c.pop("observedGeneration", None)
            _conditions.set_condition(claim, c)

    async def _delete(
        self, claim: dict[str, Any], xr: Mapping[str, Any] | None, read: dict[str, Any]
    ) -> _controller.Result:
        """upstream controllers-2.6: delete the XR by ``compositeDeletePolicy``, then release the claim."""
        self._mark(claim, "Ready", "False", "Deleting")
        if xr is not None:
            composite = _composite(xr)
            foreground = (claim.get("spec") or {}).get("compositeDeletePolicy") == "Foreground"
            if foreground and composite.deleting:
                await self._write_status(claim, read)
                return _controller.Result(requeue_after=FOREGROUND_WAIT_SECONDS)
            try:
                await self._api.delete(
                    self.xr_api_version, self.xr_kind, composite.name,
                    propagation="Foreground" if foreground else None,
                )  # fmt: skip
            except _api.NotFound:
                pass
            except _api.ApiError as exc:
                raise _fail("DeleteCompositeResource", "cannot delete bound composite resource", exc) from exc
            if foreground:
                await self._write_status(claim, read)
                return _controller.Result(requeue_after=FOREGROUND_WAIT_SECONDS)
        await self._event(
            claim, "Normal", "DeleteCompositeResource", "Successfully deleted composite resource"
        )
        try:
            await self._set_finalizer(claim, present=False)
        except _api.ApiError as exc:
            raise _fail("DeleteCompositeResource", "cannot remove finalizer from claim", exc) from exc
        self._mark(claim, "Synced", "True", "ReconcileSuccess")
        await self._write_status(claim, read)
        return _controller.Result()

    async def _add_finalizer(self, claim: dict[str, Any]) -> None:
        try:
            await self._set_finalizer(claim, present=True)
        except _api.ApiError as exc:
            raise _fail("BindCompositeResource", "cannot add finalizer to claim", exc) from exc

    async def _set_finalizer(self, claim: dict[str, Any], *, present: bool) -> None:
        """Add or remove the finalizer with a full update (the claim is refreshed in place); a no-op when already so."""
        meta = claim.setdefault("metadata", {})
        finalizers = list(meta.get("finalizers") or [])
        if (FINALIZER in finalizers) == present:
            return
        meta["finalizers"] = (
            [*finalizers, FINALIZER] if present else [f for f in finalizers if f != FINALIZER]
        )
        try:
            _claim_sync.keep_status(claim, await self._api.update(claim))
        except _api.NotFound:
            if present:
                raise

    # Small I/O helpers -------------------------------------------------------------------------

    def _mark(self, claim: dict[str, Any], type_: str, status: str, reason: str, message: str = "") -> None:
        _conditions.set_condition(
            claim, _conditions.condition(claim, type_, status, reason, now=self._clock(), message=message)
        )

    async def _event(self, claim: Mapping[str, Any], type_: str, reason: str, message: str) -> None:
        await _RECORDER.get(self._recorder).event(claim, type_, reason, message)

    async def _write_status(self, claim: dict[str, Any], read: Mapping[str, Any]) -> None:
        """Update the status subresource when it changed (``cannot update claim status``)."""
        if (claim.get("status") or {}) == read:
            return
        try:
            await self._api.update(claim, status=True)
        except _api.NotFound:
            return  # deleted meanwhile (the finalizer was the last thing holding it)
        except _api.Conflict:
            raise
        except _api.ApiError as exc:
            raise errors.CrossfnError(f"cannot update claim status: {exc}") from exc


def check_fields(claim: Mapping[str, Any]) -> None:
    """Refuse a claim whose fields the reconciler reads have the wrong type, naming the field.

    The claim CRDs crossfn makes type them, so the API server refuses such
    claims; a claim kind whose CRD came from elsewhere may still hold them.
    """
    spec = claim.get("spec")
    if spec is None:
        return
    if not isinstance(spec, Mapping):
        raise errors.InputError(f"spec must be an object, not {values.a_json_type(spec)}")
    for field in ("resourceRef", "writeConnectionSecretToRef"):
        ref = spec.get(field)
        if ref is None:
            continue
        if not isinstance(ref, Mapping):
            raise errors.InputError(f"spec.{field} must be an object, not {values.a_json_type(ref)}")
        name = ref.get("name")
        if name is not None and not isinstance(name, str):
            raise errors.InputError(f"spec.{field}.name must be a string, not {values.a_json_type(name)}")
    policy = spec.get("compositeDeletePolicy")
    if policy is not None and policy not in ("Background", "Foreground"):
        shown = errors.quote(policy) if isinstance(policy, str) else values.a_json_type(policy)
        raise errors.InputError(f"spec.compositeDeletePolicy must be Background or Foreground, not {shown}")


def _composite(xr: Mapping[str, Any]) -> _xr.XR:
    """The view of a claimed XR: always legacy, as only LegacyCluster XRDs offer claims."""
    return _xr.XR(dict(xr), engine.CompositeSchema.LEGACY)


def _claim_ref(xr: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """An XR's claim reference; ``{}`` when it has none, or not an object."""
    return (_composite(xr).claim_ref if xr is not None else None) or {}


def _bound_to(xr: Mapping[str, Any], claim: Mapping[str, Any]) -> bool:
    """Whether the XR's claim reference is exactly this claim."""
    return _composite(xr).claim_ref == _claim_sync.reference(claim, namespace=True)


def _foreign_claim(xr: Mapping[str, Any] | None, claim: Mapping[str, Any]) -> tuple[str, str] | None:
    """The XR's name and the other claim it is bound to, or ``None`` (unbound XRs may be adopted)."""
    if xr is None:
        return None
    ref = _claim_ref(xr)
    if not ref or _bound_to(xr, claim):
        return None
    return _composite(xr).name, str(ref.get("name") or "")


def _drop(key: str) -> None:
    """The default ``enqueue``: no controller attached yet."""
