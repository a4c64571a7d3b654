"""The Operation controller: each Operation reconciled once to completion, on the API server (upstream ops-1).

The reconcile itself is the engine's (:func:`crossfn.engine.reconcile_operation`, which ``crossfn
render op`` runs too); this module is its I/O: the Operation read live, its status written with an
update (so a stale copy fails with a Conflict and is retried), every desired resource server-side
applied with the field owner ``ops.crossplane.io/operation/<uid>`` and ownership forced, the
``operation`` capability read from the Functions' active FunctionRevisions, and the events recorded
on the Operation. A failure is returned to the work queue, which retries with backoff until the
Operation succeeds, fails for good, or reaches ``spec.retryLimit``. As Crossplane's controller, it
watches Operations only for a new generation (a status write does not wake it), and gives a
reconcile two minutes.
"""

from __future__ import annotations

import asyncio
import datetime
from collections.abc import Callable, Sequence
from typing import Any

from crossfn import engine, errors
from crossfn.controller.kube import _api
from crossfn.controller.ops import _lifecycle
from crossfn.controller.runtime import _controller, _events, _informer
from crossfn.engine import _clock

__all__ = ["CONTROLLER_NAME", "RECONCILE_TIMEOUT", "OperationReconciler"]

CONTROLLER_NAME = "ops/operation.ops.crossplane.io"
"""Crossplane's name of the Operation controller: also its events' source."""
RECONCILE_TIMEOUT = 120.0
"""Seconds one reconcile may take (Crossplane's two minutes)."""


class _ApiStore:
    """The engine's ``OperationStore`` on the API server."""

    def __init__(self, api: _api.Api) -> None:
        self._api = api

    async def update_status(self, op: dict[str, Any]) -> None:
        updated = await self._api.update(op, status=True)
        op["metadata"] = updated.get("metadata", op.get("metadata"))

    async def apply(self, obj: dict[str, Any], *, field_owner: str) -> None:
        await self._api.apply(obj, field_manager=field_owner, force=True)


class OperationReconciler:
    """Reconciles Operations (see the module docstring)."""

    def __init__(
        self,
        api: _api.Api,
        operations: _informer.Feed,
        revisions: _informer.Reader,
        recorder: _events.Recorder,
        *,
        runner: engine.FunctionRunner,
        sources: engine.Sources,
        clock: Callable[[], datetime.datetime] = _clock.utcnow,
        timeout: float = RECONCILE_TIMEOUT,
    ) -> None:
        """``runner`` is the shared stack (requirements loop included); ``revisions`` is the FunctionRevision cache."""
        self._api = api
        self._operations = operations
        self._revisions = revisions
        self._recorder = recorder
        self._runner = runner
        self._sources = sources
        self._clock = clock
        self._timeout = timeout

    def watch(self, enqueue: Callable[[str], None]) -> None:
        """Reconcile an Operation when it is created or its spec changes."""

        def on_operation(event_type: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
            if _lifecycle.generation_changed(event_type, obj, old):
                enqueue(_controller.key_of(obj))

        self._operations.add_handler(on_operation)

    async def _check_capabilities(self, functions: Sequence[str]) -> None:
        """Every Function's active revision must list the ``operation`` capability (Crossplane's
        ``RevisionCapabilityChecker``); one without an active revision is not checked."""
        engine.check_capabilities(self._revisions.list(), functions, [engine.CAPABILITY_OPERATION])

    async def reconcile(self, key: str) -> _controller.Result:
        _, name = _controller.split_key(key)
        op = await self._api.get(_lifecycle.API_VERSION, "Operation", name)
        if op is None:
            return _controller.Result()
        try:
            async with asyncio.timeout(self._timeout):
                outcome = await engine.reconcile_operation(
                    op, self._runner, store=_ApiStore(self._api), sources=self._sources,
                    check_capabilities=self._check_capabilities, clock=self._clock,
                )  # fmt: skip
        except TimeoutError as exc:
            raise errors.CrossfnError(
                f"cannot reconcile Operation {errors.quote(name)}: context deadline exceeded"
            ) from exc
        for event in outcome.events:
            await self._recorder.event(op, event.type, event.reason, event.message)
        if outcome.error is not None:
            raise outcome.error
        return _controller.Result()
