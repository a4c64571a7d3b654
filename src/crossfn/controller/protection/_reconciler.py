"""The Usage controllers: Crossplane's ``protection/usage`` reconciler, one per Usage kind.

A Usage says a resource is in use; the admission webhook (``_webhook``)
refuses to delete a resource labelled ``crossplane.io/in-use: "true"`` while a
Usage of it exists. This reconciler keeps that label and the Usage's own
bookkeeping, in Crossplane's order (``internal/controller/protection/usage``):

1. get the Usage (gone: done); its ``spec.of.apiVersion`` must parse;
2. resolve selectors: a ``resourceSelector`` of ``spec.of`` (then ``spec.by``)
   becomes a ``resourceRef`` to the first matching object (the Usage's
   controller's, with ``matchControllerRef``), written back with an update;
3. **deletion**: a composed Usage (labelled ``crossplane.io/composite``) with
   a ``by`` waits, 30 s at a time, until the using resource is gone; then the
   used resource loses its in-use label unless another Usage holds it; with
   ``replayDeletion``, a deletion the webhook refused
   (``usage.crossplane.io/deletion-attempt-with-policy``) is sent again 2 s
   later, with the same propagation policy; then the finalizer goes;
4. otherwise the finalizer ``usage.apiextensions.crossplane.io``, the
   ``crossplane.io/usage-details`` annotation, the used resource's in-use
   label, and an owner reference from the Usage to the using resource (so the
   Usage goes with it);
5. ``Ready=True``/``Available``; when anything changed, a ``UsageConfigured``
   event and a status update; poll again after ``--poll-interval``.

Each failure is a Warning event with Crossplane's reason and message, raised
for the work queue's backoff; a Conflict requeues silently.
"""

from __future__ import annotations

import asyncio
import copy
import datetime
import logging
from collections.abc import Callable, Mapping
from typing import Any

from crossfn import errors
from crossfn.controller.kube import _api
from crossfn.controller.protection import _usages
from crossfn.controller.runtime import _conditions, _controller, _events, _informer
from crossfn.engine import _clock, _metadata

__all__ = [
    "ANNOTATION_DELETION_ATTEMPT",
    "ANNOTATION_DETAILS",
    "FINALIZER",
    "LABEL_IN_USE",
    "UsageReconciler",
    "controller_name",
]

_log = logging.getLogger("crossfn.controller.protection")

FINALIZER = "usage.apiextensions.crossplane.io"
LABEL_IN_USE = "crossplane.io/in-use"
ANNOTATION_DETAILS = "crossplane.io/usage-details"
ANNOTATION_DELETION_ATTEMPT = "usage.crossplane.io/deletion-attempt-with-policy"
WAIT_SECONDS = 30.0
"""How long a deleting composed Usage waits before it looks at its using resource again."""
REPLAY_DELAY = 2.0
"""How long after a Usage's finalizer goes that a refused deletion of its used resource is replayed."""


def controller_name(type_: tuple[str, str]) -> str:
    """``usage/<kind>.<group>`` in lower case: Crossplane's names for the three Usage controllers."""
    api_version, kind = type_
    return f"usage/{kind.lower()}.{_usages.group_of(api_version)}"


class _Failed(_events.StepFailure):
    """A failed step: Crossplane's reason and message."""


class UsageReconciler:
    """Reconciles the Usages of one kind (:data:`~._usages.KINDS`); keys are ``namespace/name`` or ``name``."""

    def __init__(
        self,
        api: _api.Api,
        usages: _informer.Feed,
        recorder: _events.Recorder,
        finder: _usages.Finder,
        *,
        type_: tuple[str, str],
        poll_interval: float = 60.0,
        clock: Callable[[], datetime.datetime] = _clock.utcnow,
        replay_delay: float = REPLAY_DELAY,
    ) -> None:
        """``usages`` is the kind's informer; ``poll_interval`` is ``--poll-interval``, as Crossplane's."""
        self._api = api
        self._usages = usages
        self._recorder = recorder
        self._finder = finder
        self.type_ = type_
        self._poll = poll_interval
        self._clock = clock
        self._replay_delay = replay_delay
        self._replays: set[asyncio.Task[None]] = set()

    def watch(self, enqueue: Callable[[str], None]) -> None:
        """Reconcile a Usage whenever it changes."""
        self._usages.add_handler(lambda event_type, obj, old: enqueue(_controller.key_of(obj)))

    async def reconcile(self, key: str) -> _controller.Result:
        namespace, name = _controller.split_key(key)
        obj = self._usages.get(name, namespace) or await self._api.get(*self.type_, name, namespace)
        if obj is None:
            return _controller.Result()
        usage = _usages.Usage(copy.deepcopy(obj))
        try:
            return await self._reconcile(usage)
        except _Failed as failure:
            await self._recorder.event(usage.obj, "Warning", failure.reason, str(failure))
            raise

    async def _reconcile(self, usage: _usages.Usage) -> _controller.Result:
        of = usage.of
        if of.api_version.count("/") > 1:
            raise errors.CrossfnError(
                f"cannot parse APIVersion: unexpected GroupVersion string: {of.api_version}"
            )
        before = copy.deepcopy(usage.obj)
        await self._step("ResolveSelectors", "cannot resolve selectors", self._resolve_selectors(usage))
        of = usage.of
        if usage.meta.get("deletionTimestamp"):
            return await self._delete(usage)
        await self._step("AddFinalizer", "cannot add finalizer", self._add_finalizer(usage))
        details = _usages.details(usage)
        if (usage.meta.get("annotations") or {}).get(ANNOTATION_DETAILS) != details:
            usage.meta.setdefault("annotations", {})[ANNOTATION_DETAILS] = details
            await self._step(
                "AddDetailsToUsage",
                "cannot update usage resource with details annotation",
                self._update(usage),
            )
        used = await self._step(
            "GetUsedResource", "cannot get used",
            self._api.read(of.api_version, of.kind, of.name, usage.of_namespace()),
        )  # fmt: skip
        if (used.get("metadata", {}).get("labels") or {}).get(LABEL_IN_USE) != "true":
            used.setdefault("metadata", {}).setdefault("labels", {})[LABEL_IN_USE] = "true"
            await self._step(
                "AddInUseLabel", "cannot add in use label to the used resource", self._api.update(used)
            )
        by = usage.by
        if by is not None:
            using = await self._step(
                "GetUsingResource",
                "cannot get using",
                self._api.read(by.api_version, by.kind, by.name, usage.namespace),
            )
            await self._own(usage, using)
        _conditions.set_condition(
            usage.obj, _conditions.condition(usage.obj, "Ready", "True", "Available", now=self._clock())
        )
        if usage.obj != before:
            await self._recorder.event(
                usage.obj, "Normal", "UsageConfigured", "Usage configured successfully."
            )
            await self._api.update(usage.obj, status=True)
        return _controller.Result(requeue_after=self._poll or None)

    async def _step(self, reason: str, doing: str, call: Any) -> Any:
        """Await ``call``; an API error is Crossplane's Warning ``<doing>: <error>``, a Conflict a silent requeue."""
        try:
            return await call
        except _api.Conflict:
            raise
        except errors.CrossfnError as exc:
            raise _Failed(reason, f"{doing}: {exc}") from exc

    async def _update(self, usage: _usages.Usage) -> None:
        updated = await self._api.update(usage.obj)
        usage.obj["metadata"] = updated.get("metadata") or usage.meta

    async def _add_finalizer(self, usage: _usages.Usage) -> None:
        finalizers = usage.meta.setdefault("finalizers", [])
        if FINALIZER not in finalizers:
            finalizers.append(FINALIZER)
            await self._update(usage)

    async def _own(self, usage: _usages.Usage, using: Mapping[str, Any]) -> None:
        """An owner reference from the Usage to the using resource, so the Usage goes with it."""
        meta = using.get("metadata") or {}
        owners = usage.meta.setdefault("ownerReferences", [])
        if any(o.get("uid") == meta.get("uid") for o in owners if isinstance(o, Mapping)):
            return
        owners.append(
            {
                "apiVersion": using.get("apiVersion"),
                "kind": using.get("kind"),
                "name": meta.get("name"),
                "uid": meta.get("uid"),
            }
        )
        await self._step(
            "AddOwnerRefToUsage", "cannot update usage resource with owner ref", self._update(usage)
        )

    # Selectors ----------------------------------------------------------------------------------

    async def _resolve_selectors(self, usage: _usages.Usage) -> None:
        """``spec.of`` then ``spec.by``: a selector without a resolved name becomes a ``resourceRef``."""
        for field in ("of", "by"):
            ref = usage.of if field == "of" else usage.by
            if ref is None or ref.name:
                continue
            try:
                name, namespace = await self._select(usage, ref)
            except errors.CrossfnError as exc:
                raise errors.CrossfnError(
                    f'cannot resolve selector at "spec.{field}.resourceSelector": {exc}'
                ) from exc
            usage.set_ref(field, name, namespace)
            try:
                await self._update(usage)
            except _api.ApiError as exc:
                raise errors.wrap(exc, "cannot update usage after resolving selector") from exc

    async def _select(self, usage: _usages.Usage, ref: _usages.Ref) -> tuple[str, str | None]:
        if ref.match_labels is None:
            raise errors.CrossfnError("no selector defined for resolving")
        namespace = ref.selector_namespace or usage.namespace
        try:
            if not await self._api.is_namespaced(ref.api_version, ref.kind):
                namespace = ""
            items, _ = await self._api.list(
                ref.api_version, ref.kind, namespace or None, labels=ref.match_labels
            )
        except _api.ApiError as exc:
            raise errors.wrap(exc, "cannot list resources matching labels") from exc
        labels = _go_map(ref.match_labels)
        if not items:
            raise errors.CrossfnError(f"no {errors.quote(ref.kind)} found matching labels: {labels}")
        for item in sorted(items, key=_controller.key_of):
            if ref.match_controller_ref and not _same_controller(item, usage.obj):
                continue
            found_ns = str((item.get("metadata") or {}).get("namespace") or "")
            return str(item["metadata"]["name"]), (found_ns if found_ns != usage.namespace else None)
        raise errors.CrossfnError(
            f"no {errors.quote(ref.kind)} found matching labels: {labels} and with same controller reference"
        )

    # Deletion -----------------------------------------------------------------------------------

    async def _delete(self, usage: _usages.Usage) -> _controller.Result:
        of, by = usage.of, usage.by
        composed = (usage.meta.get("labels") or {}).get(_metadata.LABEL_COMPOSITE)
        if by is not None and composed:
            using = await self._step(
                "GetUsingResource",
                "cannot get using",
                self._api.get(by.api_version, by.kind, by.name, usage.namespace),
            )
            if using is not None:
                message = (
                    f"Waiting for the using resource (which is a {errors.quote(by.kind)} named "
                    f"{errors.quote(by.name)}) to be deleted."
                )
                await self._recorder.event(usage.obj, "Normal", "WaitingUsingDeleted", message)
                return _controller.Result(requeue_after=WAIT_SECONDS)
        used = await self._step(
            "GetUsedResource",
            "cannot get used",
            self._api.get(of.api_version, of.kind, of.name, usage.of_namespace()),
        )
        if used is not None:
            others = self._finder.find(used)
            if len(others) < 2:
                labels = used.get("metadata", {}).get("labels") or {}
                if LABEL_IN_USE in labels:
                    del labels[LABEL_IN_USE]
                    await self._step(
                        "RemoveInUseLabel",
                        "cannot remove in use label from the used resource",
                        self._api.update(used),
                    )
        if usage.replay_deletion and used is not None:
            policy = ((used.get("metadata") or {}).get("annotations") or {}).get(ANNOTATION_DELETION_ATTEMPT)
            if policy:
                self._replay(used, str(policy))
        finalizers = usage.meta.get("finalizers") or []
        if FINALIZER in finalizers:
            finalizers.remove(FINALIZER)
            await self._step("RemoveFinalizer", "cannot remove finalizer", self._update(usage))
        return _controller.Result()

    def _replay(self, used: Mapping[str, Any], policy: str) -> None:
        """Delete the used resource again, ``REPLAY_DELAY`` seconds from now, as the refused request asked."""
        meta = used.get("metadata") or {}
        target = (
            str(used.get("apiVersion")),
            str(used.get("kind")),
            str(meta.get("name")),
            str(meta.get("namespace") or ""),
        )

        async def replay() -> None:
            await asyncio.sleep(self._replay_delay)
            _log.info(
                "replaying deletion of the used resource",
                extra={"kind": target[1], "name": target[2], "policy": policy},
            )
            try:
                await self._api.delete(*target, propagation=policy)  # type: ignore[arg-type]  # the webhook wrote one of the three
            except _api.ApiError as exc:
                _log.info("cannot replay deletion of the used resource %s %s: %s", target[1], target[2], exc)

        task = asyncio.get_running_loop().create_task(replay(), name=f"replay-deletion-{target[2]}")
        self._replays.add(task)
        task.add_done_callback(self._replays.discard)


def _same_controller(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether both objects have a controller and it is the same one (crossplane-runtime's ``HaveSameController``)."""
    ua, ub = _controller_uid(a), _controller_uid(b)
    return ua is not None and ua == ub


def _controller_uid(obj: Mapping[str, Any]) -> str | None:
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or ():
        if isinstance(ref, Mapping) and ref.get("controller"):
            return str(ref.get("uid") or "")
    return None


def _go_map(labels: Mapping[str, str]) -> str:
    """A ``map[string]string`` as Go's ``%q`` prints it: ``map["a":"b" "c":"d"]``, keys sorted."""
    return "map[" + " ".join(f"{errors.quote(k)}:{errors.quote(v)}" for k, v in sorted(labels.items())) + "]"
