"""The XR reconciler: Crossplane's composite controller around crossfn's engine
(upstream core-2.1 steps 1–14).

One :class:`CompositeReconciler` serves the XRs of one XRD. ``reconcile(key)``
walks upstream core-2.1 in order:

1. get the XR (gone: forget it, done);  2. ``Responsive``;  3. paused;
4. ``crossplane.io/reconcile-requested-at``;  5. deletion: remove the
finalizer (composed resources go with Kubernetes GC through their owner
references);  6. add the finalizer;  7. select the Composition;  8. select
the revision;  9. the ``ValidPipeline`` gate;  10. configure;  11. compose;
12. realtime watches;  13. publish connection details;  14. conditions,
events, requeue.

The engine decides (``engine.compose`` returns what to apply and delete,
``engine.reconcile_status`` the conditions and events); this module does the
I/O: reading the XR and what it composed, GC (upstream core-2.11), ``resourceRefs``
(upstream core-2.12), server-side applies (upstream core-2.13), the status
(upstream core-2.14). Every failure of steps 6–13 is a Warning event with
Crossplane's reason, ``Synced=False`` with the wrapped message, a status write,
then the error raised so the work queue backs off (1 s to 30 s); a ``Conflict`` is
raised as is, which the controller requeues silently. Two failures are a moment's
race when a Composition is applied with its XR (no revision yet; a revision whose
pipeline is not checked yet): they are reported the same way but returned as
a backoff requeue, logged at debug level, and the CompositionRevision watch
reconciles the XR as soon as the revision changes. Wrongly typed
machinery fields are refused with the field's path, never a traceback.

Each XR is read into one view (:class:`~crossfn.controller.runtime._xr.XR`) whose
schema, legacy (machinery under ``spec``) or modern (``spec.crossplane``), is
decided once in the constructor from the XRD. The reconcile, the selection
(``_selection``) and the compose I/O (``_compose_io``) read and write every
field through it; the engine and the API server get its object (``xr.obj``).

The status is written with one server-side apply of the status subresource
(field owner ``apiextensions.crossplane.io/composite``): the functions'
desired status and the conditions together, and only when it differs from
what was read, so a settled XR costs no writes.

Step 13 publishes a legacy XR's connection Secret (``_connection``, upstream controllers-4);
claims are :mod:`crossfn.controller.claim`'s; a reconcile is a span when tracing (``_tracing``).
Every watch event aimed at an XR (its own, its revisions', its dependencies') goes
through the controller's watch circuit breaker (``_circuit``), whose state step 2
reports as ``Responsive``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import logging
import random
from collections.abc import Callable, Mapping
from typing import Any

from crossfn import engine, errors
from crossfn.controller.composite import (
    _circuit,
    _compose_io,
    _connection,
    _echoes,
    _polling,
    _realtime,
    _selection,
)
from crossfn.controller.kube import _api, _json
from crossfn.controller.runtime import _conditions, _controller, _events, _informer, _metrics, _tracing, _xr
from crossfn.engine import _clock
from crossfn.engine import _xr as engine_xr
from crossfn.schemas import xrd as xrd_schemas

__all__ = [
    "ANNOTATION_PAUSED",
    "ANNOTATION_POLL_INTERVAL",
    "ANNOTATION_RECONCILE_REQUESTED",
    "FINALIZER",
    "CompositeReconciler",
    "CompositeSettings",
    "Requeue",
    "requeue_after",
]

_log = logging.getLogger("crossfn.controller.composite")

FINALIZER = "composite.apiextensions.crossplane.io"
EVENT_SOURCE = "defined/compositeresourcedefinition.apiextensions.crossplane.io"
"""The ``source.component`` of an XR's events: the XRD controller that starts the XR controller."""
ANNOTATION_PAUSED = engine_xr.ANNOTATION_PAUSED
ANNOTATION_RECONCILE_REQUESTED = engine_xr.ANNOTATION_RECONCILE_REQUESTED
PAUSED_MESSAGE = engine_xr.PAUSED_MESSAGE
INVALID_MESSAGE = "cannot compose resources: some resources were invalid, check events"
MAX_BACKOFF = 30.0

# Polling lives in _polling; these names are this module's public API too (the manager uses them).
ANNOTATION_POLL_INTERVAL = _polling.ANNOTATION_POLL_INTERVAL
CompositeSettings = _polling.CompositeSettings
Requeue = _polling.Requeue
requeue_after = _polling.requeue_after


class _Failure(_events.StepFailure):
    """A failed step 6–13: the event reason, and the message ``Synced`` shows.

    ``transient`` marks the states a moment's race explains (a Composition
    applied with its XR: no revision yet, its pipeline not checked yet).
    They are reported on the XR like any failure, but retried with backoff
    as a result rather than raised, so they log at debug level, not as errors;
    the revision watch usually reconciles the XR again first.
    """

    def __init__(self, reason: str, message: str, *, transient: bool = False) -> None:
        super().__init__(reason, message)
        self.transient = transient


class _StatusRejected(errors.CrossfnError):
    """The API server refused the status write."""

    def __init__(self, error: _api.ApiError) -> None:
        super().__init__(f"cannot update composite resource status: {error}")
        self.error = error


@dataclasses.dataclass
class _Changes:
    """What steps 6–10 changed in memory: the XR before, the first step that changed it, its events."""

    before: bytes
    first: tuple[str, str] | None = None
    """The reason and message prefix if the update fails: the first step that changed the XR."""
    events: list[_selection.SelectionEvent] = dataclasses.field(default_factory=list)

    def note(self, reason: str, outer: str) -> None:
        self.first = self.first or (reason, outer)


def _wrap(reason: str, outer: str, exc: Exception, *, transient: bool = False) -> Exception:
    """``exc`` as a step failure, except a Conflict, which requeues silently as it is."""
    if isinstance(exc, _api.Conflict):
        return exc
    failure = _Failure(reason, f"{outer}: {exc}", transient=transient)
    failure.__cause__ = exc
    return failure


class CompositeReconciler:
    """Reconciles the XRs of one XRD; keys are ``namespace/name`` or ``name``.

    ``informers`` (shared) serve Compositions, revisions and the caches the
    engine reads; with realtime on, the reconciler adds handlers for every
    kind its XRs depend on and calls :attr:`enqueue` (the XR controller's) on
    a change. ``runner`` is the function runner stack, built once.
    """

    def __init__(
        self,
        api: _api.Api,
        informers: _informer.Informers | None,
        recorder: _events.Recorder,
        runner: engine.FunctionRunner,
        sources: engine.Sources,
        *,
        xrd: Mapping[str, Any],
        settings: CompositeSettings | None = None,
        clock: Callable[[], datetime.datetime] = _clock.utcnow,
        enqueue: Callable[[str], None] | None = None,
        rng: random.Random | None = None,
        tracer: _tracing.ReconcileTracer | None = None,
        metrics: _metrics.Metrics | None = None,
        breaker: _circuit.Breaker | None = None,
    ) -> None:
        """``tracer`` defaults to :func:`_tracing.default_tracer`, asked once per reconcile; ``metrics``
        counts the watches this controller starts and stops (``engine_watches_*``) and what its circuit
        breaker decides; ``breaker`` replaces the one built from ``settings.circuit`` (tests)."""
        self._api = api
        self._informers = informers
        self._runner = runner
        self._sources = sources
        self._settings = settings or CompositeSettings()
        self._clock = clock
        self._rng = rng or random.Random()
        self._tracer = tracer
        self.xrd: Mapping[str, Any] = xrd
        self.api_version, self.kind = xrd_schemas.composite_type(xrd)
        # Crossplane's XR controller records through the defined controller's recorder, annotated
        # with its own name (definition/reconciler.go): filters key on both.
        self._recorder = _events.with_annotations(
            _events.for_controller(recorder, EVENT_SOURCE), {"controller": self.controller_name}
        )
        # The one place the XR's schema is decided: every XR of this controller is read through it.
        self._schema = _xr.XR.schema_for(xrd, self._settings.schema)
        self._reader = _selection.Reader(api, informers)
        own = {(self.api_version, self.kind)}
        if xrd_schemas.offers_claim(xrd):
            own.add(xrd_schemas.claim_type(xrd))
        self._echoes = _echoes.Echoes(informers)
        namespaced = xrd_schemas.scope_of(xrd) == "Namespaced"
        self._deps = _realtime.Dependencies(self.api_version, self.kind, namespaced=namespaced)
        self._metrics: _metrics.Metrics = metrics or _metrics.NoMetrics()
        self._breaker = breaker or _circuit.Breaker(
            self.controller_name, self._settings.circuit, metrics=self._metrics
        )
        self._watches: _realtime.Watches | None = None
        if informers is not None and self._settings.realtime:
            self._watches = _realtime.Watches(
                informers, self._deps, enqueue or _drop, controller=self.controller_name,
                metrics=self._metrics, admit=self._breaker.filter, heard=self._echoes.heard,
            )  # fmt: skip
        self._io = _compose_io.ComposeIO(
            api, informers, own_kinds=frozenset((av.rpartition("/")[0], k) for av, k in own),
            adopt_existing=self._settings.adopt_existing, echoes=self._echoes,
            watch=self._watches.ensure if self._watches is not None else None,
        )  # fmt: skip
        self._enqueue = enqueue or _drop
        self._backoff: dict[str, int] = {}
        self._started = False
        self._gc: asyncio.Task[None] | None = None

    # Wiring ------------------------------------------------------------------------------------

    def set_enqueue(self, enqueue: Callable[[str], None]) -> None:
        """Route watch events to the XR controller (built after this reconciler)."""
        self._enqueue = enqueue
        if self._watches is not None:
            self._watches.enqueue = enqueue

    def set_xrd(self, xrd: Mapping[str, Any]) -> None:
        """Take a changed XRD (its default or enforced Composition) without a restart."""
        self.xrd = xrd

    @property
    def controller_name(self) -> str:
        """``composite/<xrd>``, Crossplane's name for this controller."""
        return f"composite/{self.xrd_name}"

    def start(self) -> None:
        """Watch this controller's XRs, and CompositionRevisions so Automatic XRs move at once
        (upstream controllers-3.6); with realtime on, collect unneeded watches every minute."""
        if self._informers is not None and not self._started:
            self._started = True
            self._informers.informer(self.api_version, self.kind).add_handler(self._xr_changed)
            self._informers.informer(*_selection.REVISION).add_handler(self._revision_changed)
            self._metrics.watch_started(self.controller_name, "CompositionRevision")
            if self._watches is not None:
                self._gc = asyncio.get_running_loop().create_task(
                    self._collect_every(self._settings.watch_gc_interval),
                    name=f"watch-gc-{self.controller_name}",
                )

    def stop(self) -> None:
        """Stop reacting to the shared informers' events (the XRD is gone, or the manager stops)."""
        self._enqueue = _drop
        if self._gc is not None:
            self._gc.cancel()
            self._gc = None
        if self._watches is not None:
            self._watches.close()
        if self._started and self._informers is not None:
            running = set(self._informers.kinds())
            if (self.api_version, self.kind) in running:
                self._informers.informer(self.api_version, self.kind).remove_handler(self._xr_changed)
            if _selection.REVISION in running:
                self._informers.informer(*_selection.REVISION).remove_handler(self._revision_changed)
            self._metrics.watch_stopped(self.controller_name, "CompositionRevision")
        self._started = False

    def dependency_kinds(self) -> set[tuple[str, str]]:
        """The kinds watched for this controller's XRs."""
        return self._watches.kinds() if self._watches is not None else set()

    def collect_watches(self) -> list[tuple[str, str]]:
        """Stop the watches of kinds no XR of this controller depends on any more; the kinds stopped."""
        if self._watches is None:
            return []
        return self._watches.collect(self._deps.kinds())

    async def _collect_every(self, interval: float) -> None:
        """Crossplane's watch garbage collector: every ``interval`` seconds, while the controller runs."""
        while True:
            await asyncio.sleep(interval)
            try:
                self.collect_watches()
            except Exception:  # a side concern: log it, try again next time
                _log.exception("cannot collect the watches of %s", self.controller_name)

    def _xr_changed(self, event_type: str, xr: dict[str, Any], old: dict[str, Any] | None) -> None:
        """Any change to one of this controller's XRs reconciles it, through the circuit breaker and
        once per round of its own writes (``_echoes``); an XR being deleted starts a fresh bucket
        (Crossplane's ``NewSelfDeleteResetMapFunc``)."""
        key = _controller.key_of(xr)
        if (xr.get("metadata") or {}).get("deletionTimestamp"):
            self._breaker.reset(key)
        held = self._echoes.heard(key, xr)  # noted even when the breaker drops it
        keys = self._breaker.filter(xr, [key])
        if old is not None:  # an update maps both objects, as controller-runtime's handler does
            keys += self._breaker.filter(old, [key])
        if keys and not held:
            self._enqueue(key)

    def _revision_changed(self, event_type: str, rev: dict[str, Any], old: dict[str, Any] | None) -> None:
        """A CompositionRevision reconciles the Automatic XRs of its Composition (upstream controllers-3.6)."""
        keys = set(self._breaker.filter(rev, self._xrs_of(rev)))
        if old is not None:
            keys.update(self._breaker.filter(old, self._xrs_of(old)))
        for key in sorted(keys):
            self._enqueue(key)

    def _xrs_of(self, rev: Mapping[str, Any]) -> list[str]:
        """The keys of the XRs of this controller that follow the revision's Composition automatically."""
        composition = ((rev.get("metadata") or {}).get("labels") or {}).get(_selection.LABEL_COMPOSITION_NAME)
        ref = (rev.get("spec") or {}).get("compositeTypeRef") or {}
        if (
            not composition
            or ref != {"apiVersion": self.api_version, "kind": self.kind}
            or self._informers is None
        ):
            return []
        out = []
        for obj in self._informers.informer(self.api_version, self.kind).list():
            xr = _xr.XR(obj, self._schema)
            if xr.composition_update_policy != "Manual" and xr.composition_ref == composition:
                out.append(xr.key)
        return out

    # Reconcile ---------------------------------------------------------------------------------

    async def reconcile(self, key: str) -> _controller.Result:
        """Reconcile the XR ``key`` (upstream core-2.1 steps 1–14, in order), in a span when tracing.

        Its own writes coming back through the watches reconcile it once more, in one go
        once they all have (``_echoes``), or not at all when none needs it.
        """
        tracer = self._tracer or _tracing.default_tracer()
        self._echoes.begin(key)
        try:
            with tracer.reconcile(controller=f"composite/{self.xrd_name}", key=key, kind=self.kind):
                result = await self._reconcile_key(key, tracer.steps)
        except asyncio.CancelledError:
            self._echoes.forget(key)
            raise
        except BaseException:
            await self._settle(key)
            raise
        await self._settle(key)
        return result

    async def _settle(self, key: str) -> None:
        if await self._echoes.settle(key):
            self._enqueue(key)

    @property
    def xrd_name(self) -> str:
        return str((self.xrd.get("metadata") or {}).get("name") or "")

    async def _reconcile_key(self, key: str, steps: engine.Tracer) -> _controller.Result:
        namespace, name = _controller.split_key(key)
        try:
            obj = await self._io.get(self.api_version, self.kind, name, namespace)
        except _api.ApiError as exc:
            raise errors.CrossfnError(f"cannot get composite resource: {exc}") from exc
        if obj is None:
            self._forget(key)
            return _controller.Result()
        xr = _xr.XR(obj, self._schema)
        read = _json.copy(obj.get("status") or {})
        circuit = self._breaker.state(key)
        admission = engine.admit(
            xr.obj, now=self._clock(), circuit_open=circuit.triggered_by if circuit.open else None
        )
        for e in admission.events:
            await self._event(xr, e.type, e.reason, e.message)
        for c in admission.conditions:
            xr.set_condition(c)
        if admission.paused:
            await self._write_status(xr, xr.status, read)
            return _controller.Result()
        if admission.reconcile_request is not None:
            xr.status["lastHandledReconcileAt"] = admission.reconcile_request
        if xr.deleting:
            return await self._delete(key, xr, read)
        try:
            return await self._reconcile(key, xr, read, steps)
        except _Failure as failure:
            await self._event(xr, "Warning", failure.reason, str(failure))
            self._mark(xr, "Synced", "False", "ReconcileError", str(failure))
            await self._write_status(xr, xr.status, read)
            if not failure.transient:
                raise
            _log.debug("waiting to compose %s: %s", key, failure, extra={"key": key})
            return _controller.Result(requeue_after=self._next_backoff(key))

    async def _delete(self, key: str, xr: _xr.XR, read: dict[str, Any]) -> _controller.Result:
        """Step 5: ``Ready=False/Deleting``, remove the finalizer, ``Synced=True``."""
        self._mark(xr, "Ready", "False", "Deleting")
        try:
            await self._remove_finalizer(xr)
        except _api.Conflict:
            raise
        except _api.ApiError as exc:
            message = f"cannot remove composite resource finalizer: {exc}"
            await self._event(xr, "Warning", "DeleteCompositeResource", message)
            self._mark(xr, "Synced", "False", "ReconcileError", message)
            await self._write_status(xr, xr.status, read)
            raise _Failure("DeleteCompositeResource", message) from exc
        self._forget(key)
        self._mark(xr, "Synced", "True", "ReconcileSuccess")
        await self._write_status(xr, xr.status, read)
        return _controller.Result()

    def _forget(self, key: str) -> None:
        """The XR ``key`` is gone or being deleted: drop what is remembered about it."""
        self._deps.forget(key)
        self._echoes.forget(key)
        self._io.forget(key)
        self._backoff.pop(key, None)

    async def _reconcile(
        self, key: str, xr: _xr.XR, read: dict[str, Any], steps: engine.Tracer
    ) -> _controller.Result:
        """Steps 6–14; the finalizer (step 6) is written with the selection's update (:meth:`_select`)."""
        xr, rev = await self._select(xr)
        try:
            outcome = await self._io.compose(
                xr, rev, self._runner, sources=self._sources, clock=self._clock,
                seed=self._deps.requirements(key), recorder=self._recorder, tracer=steps,
            )  # fmt: skip
        except _compose_io.ComposeFailed as failed:
            await self._compose_failed(xr, read, failed)
            raise failed.error from failed
        if self._watches is not None:
            self._watches.ensure(
                self._deps.record(
                    key, outcome.dependencies, outcome.required, outcome.result.pipeline.requirements
                )
            )
        await self._publish(xr, outcome.result)
        status = engine.reconcile_status(
            xr.obj, outcome.result, now=self._clock(), unsynced=outcome.unsynced, legacy=xr.legacy
        )
        await self._emit(xr, status.events)
        try:
            await self._write_status(xr, self._final_status(xr, outcome.result.composite, status), read)
        except _StatusRejected as rejected:
            # The functions' desired status does not fit the XR's schema (a wrong type, a field
            # it does not declare): report it with the conditions alone, as Crossplane's compose
            # fails with this text (upstream core-2.14).
            error = errors.CrossfnError(f"cannot apply composite resource status: {rejected.error}")
            invalid = isinstance(rejected.error, _api.Invalid)
            await self._compose_failed(
                xr, read, _compose_io.ComposeFailed(error, outcome.result, invalid=invalid)
            )
            raise error from rejected
        return self._requeue(key, xr, outcome)

    async def _publish(self, xr: _xr.XR, result: engine.CompositionResult) -> None:
        """Step 13: a legacy XR's connection Secret (upstream controllers-4); modern XRs publish nothing."""
        if not xr.legacy:
            return
        keys = [str(k) for k in (self.xrd.get("spec") or {}).get("connectionSecretKeys") or ()]
        try:
            published = await _connection.publish(self._api, xr.obj, result.connection_details, keys)
        except errors.CrossfnError as exc:
            raise _wrap("PublishConnectionSecret", "cannot publish connection details", exc) from exc
        if published:
            xr.set_connection_details_published(_conditions.timestamp(self._clock()))
            await self._event(
                xr, "Normal", "PublishConnectionSecret", "Successfully published connection details"
            )

    async def _emit(self, xr: _xr.XR, events: tuple[engine.Event, ...]) -> None:
        await _events.record_pipeline_events(self._recorder, xr, events)

    def _requeue(self, key: str, xr: _xr.XR, outcome: _compose_io.Outcome) -> _controller.Result:
        waiting = bool(outcome.unsynced) or any(not c.ready for c in outcome.result.composed)
        ttl = outcome.result.ttl.total_seconds()
        decision = _polling.requeue_after(self._settings, xr.obj, ttl=ttl, waiting=waiting, rng=self._rng)
        if decision.backoff:
            return _controller.Result(requeue_after=self._next_backoff(key))
        self._backoff.pop(key, None)
        return _controller.Result(requeue_after=decision.after)

    def _next_backoff(self, key: str) -> float:
        """The key's next delay: 1 s doubling to 30 s, as the work queue's rate limiter."""
        tries = self._backoff.get(key, 0)
        self._backoff[key] = tries + 1
        return min(MAX_BACKOFF, 2.0**tries)

    async def _select(self, xr: _xr.XR) -> tuple[_xr.XR, dict[str, Any]]:
        """Steps 6–10: finalizer, Composition, revision, the ValidPipeline gate, configure; one update.

        Crossplane updates the XR to add its finalizer, then again as soon as a
        ref is chosen; here the finalizer, the refs, the label and a defaulted
        Secret ref go in one update at the end, or before any failure of these
        steps is reported, so the finalizer and a chosen ref are kept either
        way. A failed update reads as the first step that changed the XR. The
        selection's events follow the update, so a conflict records none.
        """
        changes = _Changes(before=_identity_and_spec(xr))
        if xr.add_finalizer(FINALIZER):
            changes.first = ("InitializeCompositeResource", "cannot add composite resource finalizer")
        try:
            rev = await self._choose(xr, changes)
        except _Failure:
            # Keep the finalizer and the chosen refs even so, as Crossplane updates the XR at once.
            try:
                await self._persist(xr, changes)
            except errors.CrossfnError as exc:
                _log.debug("cannot keep the finalizer or selection of %s: %s", xr.name, exc)
            await self._selection_events(xr, changes)
            raise
        xr = await self._persist(xr, changes)
        await self._selection_events(xr, changes)
        return xr, rev

    async def _choose(self, xr: _xr.XR, changes: _Changes) -> dict[str, Any]:
        """Steps 7–10 on ``xr`` in memory; the revision chosen. Notes the events and the first change."""
        try:
            xr.check_selection_fields()
        except errors.CrossfnError as exc:
            raise _wrap("SelectComposition", "cannot select Composition", exc) from exc
        original = xr.composition_ref
        try:
            changes.events += await _selection.select_composition(xr, self.xrd, self._reader, self._rng)
        except errors.CrossfnError as exc:
            raise _wrap("SelectComposition", "cannot select Composition", exc) from exc
        selected = xr.composition_ref
        if selected is not None and selected != original:
            event = engine.selection_event(selected)
            changes.events.append(_selection.SelectionEvent(event.reason, event.message))
            changes.note("SelectComposition", "cannot select Composition: cannot update composite resource")
        changes.events += _selection.default_revision_selector(xr, self.xrd)
        try:
            rev, rev_events = await _selection.select_revision(xr, self._reader)
        except errors.CrossfnError as exc:
            transient = isinstance(exc, _selection.NoRevision)
            raise _wrap("ComposeResources", "cannot fetch Composition", exc, transient=transient) from exc
        if rev_events:
            changes.note("ComposeResources", "cannot fetch Composition: cannot update composite resource")
        changes.events += rev_events
        self._gate(rev)
        try:
            self._configure(xr, rev)
        except errors.CrossfnError as exc:
            raise _wrap("ComposeResources", "cannot configure composite resource", exc) from exc
        return rev

    async def _selection_events(self, xr: _xr.XR, changes: _Changes) -> None:
        for e in changes.events:
            await self._event(xr, "Normal", e.reason, e.message)
        changes.events = []

    @staticmethod
    def _gate(rev: Mapping[str, Any]) -> None:
        """Step 9: compose only with a revision whose pipeline is known to be valid."""
        valid = _conditions.get_condition(rev, "ValidPipeline")
        if valid.get("status") != "True":
            raise _Failure(
                "ComposeResources",
                f"selected CompositionRevision {rev['metadata']['name']} does not have a valid function pipeline: "
                f"{valid.get('message') or 'pipeline status unknown'}",
                transient=valid.get("status")
                == "Unknown",  # not checked yet: the revision watch wakes the XR
            )

    async def _persist(self, xr: _xr.XR, changes: _Changes) -> _xr.XR:
        """Update the XR when steps 6–10 changed it; errors read as the first step that did."""
        if _identity_and_spec(xr) == changes.before:
            return xr
        default = (
            "ComposeResources",
            "cannot configure composite resource: cannot update composite resource",
        )
        reason, outer = changes.first or default
        try:
            updated = await self._api.update(xr.obj)
        except _api.ApiError as exc:
            raise _wrap(reason, outer, exc) from exc
        self._echoes.wrote(xr.key, updated)
        return self._keep_status(updated, xr)

    def _configure(self, xr: _xr.XR, rev: Mapping[str, Any]) -> None:
        """Step 10: the ``crossplane.io/composite`` label; a legacy XR's default connection Secret.

        Every XR, modern ones too, refuses a revision whose ``compositeTypeRef``
        is another kind. Crossplane checks only legacy XRs (its configurator
        returns early for modern ones) and composes a v2 XR with whatever
        Composition it names; see docs/compatibility.md.
        """
        engine.label_composite(xr.obj)
        spec = rev.get("spec") or {}
        if (spec.get("compositeTypeRef") or {}) != {"apiVersion": xr.api_version, "kind": xr.kind}:
            raise errors.CrossfnError("referenced composition is not compatible with this composite resource")
        if xr.legacy:
            engine.default_connection_secret(xr.obj, xr.machinery(), spec)

    async def _compose_failed(
        self, xr: _xr.XR, read: dict[str, Any], failed: _compose_io.ComposeFailed
    ) -> None:
        """upstream core-2.17 on a compose error: the partial run's
        events and conditions, ``Synced=False``, status."""
        status = engine.reconcile_status(
            xr.obj, failed.result, now=self._clock(), error=failed.error, legacy=xr.legacy
        )
        conditions = list(status.conditions)
        if failed.invalid:
            # API servers' Invalid messages are unstable; the condition points at the event instead.
            conditions = [
                {**c, "message": INVALID_MESSAGE} if c.get("type") == "Synced" else c for c in conditions
            ]
        await self._emit(xr, status.events)
        new = _json.copy(xr.status)
        new["conditions"] = conditions
        if xr.legacy and status.claim_condition_types:
            new["claimConditionTypes"] = list(status.claim_condition_types)
        await self._write_status(xr, new, read)

    @staticmethod
    def _final_status(
        xr: _xr.XR, composite: Mapping[str, Any], status: engine.ReconcileStatus
    ) -> dict[str, Any]:
        """The functions' desired status with the reconciler's conditions and bookkeeping."""
        out = _json.copy(composite.get("status") or {})
        current = xr.status
        out["conditions"] = list(status.conditions)
        for kept in ("lastHandledReconcileAt", "connectionDetails"):
            if kept in current:
                out[kept] = current[kept]
        if xr.legacy and status.claim_condition_types:
            out["claimConditionTypes"] = list(status.claim_condition_types)
        return out

    # Small I/O helpers -------------------------------------------------------------------------

    def _mark(self, xr: _xr.XR, type_: str, status: str, reason: str, message: str = "") -> None:
        xr.set_condition(
            _conditions.condition(xr.obj, type_, status, reason, now=self._clock(), message=message)
        )

    async def _event(self, xr: _xr.XR, type_: str, reason: str, message: str) -> None:
        await self._recorder.event(xr.obj, type_, reason, message)

    @staticmethod
    def _keep_status(updated: dict[str, Any], xr: _xr.XR) -> _xr.XR:
        """An updated XR, with the status this reconcile is building kept in memory."""
        updated["status"] = xr.obj.get("status") or {}
        return xr.renew(updated)

    async def _remove_finalizer(self, xr: _xr.XR) -> _xr.XR:
        """Step 5: remove the finalizer with an update; a no-op when it is not there, or the XR is gone."""
        if not xr.remove_finalizer(FINALIZER):
            return xr
        try:
            return self._keep_status(await self._api.update(xr.obj), xr)
        except _api.NotFound:
            return xr

    async def _write_status(self, xr: _xr.XR, status: dict[str, Any], read: Mapping[str, Any]) -> None:
        """Server-side apply the status subresource, only when it changed (upstream core-2.14, core-2.17)."""
        if status == read:
            return
        patch: dict[str, Any] = {
            "apiVersion": xr.api_version,
            "kind": xr.kind,
            "metadata": {"name": xr.name},
            "status": status,
        }
        if xr.namespace:
            patch["metadata"]["namespace"] = xr.namespace
        try:
            written = await self._api.apply(
                patch, field_manager=engine.FIELD_OWNER_COMPOSITE, force=True, status=True
            )
        except _api.NotFound:
            return  # deleted meanwhile: there is nothing left to report on
        except _api.Conflict:
            raise
        except _api.ApiError as exc:
            raise _StatusRejected(exc) from exc
        self._echoes.wrote(xr.key, written, again=not _echoes.only_system_conditions(read, status))


def _identity_and_spec(xr: _xr.XR) -> bytes:
    """What an update of the XR would change (its metadata and spec), encoded, to tell whether to send one."""
    return _json.canonical({k: xr.obj.get(k) for k in ("metadata", "spec")})


def _drop(key: str) -> None:
    """The default ``enqueue``: no controller attached yet."""
