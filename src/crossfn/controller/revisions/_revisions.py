"""Composition revisions: one CompositionRevision per distinct Composition, and its ValidPipeline gate.

An XR never composes from a Composition directly: it composes from a
CompositionRevision, a frozen copy of the Composition's spec with a number
(upstream controllers-3). Two reconcilers keep them, as in Crossplane:

* :class:`CompositionReconciler` (Crossplane's ``revisions/composition``)
  hashes the Composition's labels, annotations and spec; when no revision
  carries that hash it creates ``<composition>-<first 7 of hash>`` numbered
  one above the latest, labelled ``crossplane.io/composition-name`` and
  ``crossplane.io/composition-hash`` and controlled by the Composition (so the
  garbage collector deletes revisions with their Composition). Reverting a
  Composition re-promotes the matching old revision to the newest number.
  Revisions are never garbage-collected otherwise (Crossplane has no limit).
* :class:`RevisionReconciler` (Crossplane's ``revision/compositionrevision``)
  sets ``ValidPipeline`` on each revision: every Function of the pipeline
  whose active FunctionRevision exists must declare the ``composition``
  capability (:func:`crossfn.engine.check_capabilities`). It watches
  FunctionRevisions, so a Function upgraded to a capable package validates the
  revisions that use it. The XR controller refuses to compose from a revision
  without ``ValidPipeline=True`` (upstream core-2.1 step 9).
  Unlike Crossplane, a step whose ``functionRef`` names no Function at all (a
  misspelt name) makes the pipeline invalid too (reason ``MissingFunctions``,
  naming the step and the Function), rather than passing the check and failing
  every XR with ``cannot find an active FunctionRevision``; it watches
  Functions, so creating the Function validates the revision
  (``docs/compatibility.md``).

The pure parts (:func:`composition_hash`, :func:`revision_name`,
:func:`latest_revision`, :func:`new_revision`) are separate so that they can
be tested without an API server.
"""

from __future__ import annotations

import contextlib
import copy
import datetime
import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from crossfn import engine, errors
from crossfn.controller.kube import _api
from crossfn.controller.runtime import _conditions, _controller, _events, _informer
from crossfn.engine import _clock, _metadata
from crossfn.gocompat import yaml_emitter

__all__ = [
    "COMPOSITION_API_VERSION",
    "COMPOSITION_CONTROLLER_NAME",
    "FUNCTION_API_VERSION",
    "FUNCTION_REVISION_API_VERSION",
    "LABEL_COMPOSITION_HASH",
    "LABEL_COMPOSITION_NAME",
    "REVISION_CONTROLLER_NAME",
    "VALID_PIPELINE_MESSAGE",
    "CompositionReconciler",
    "RevisionReconciler",
    "composition_hash",
    "latest_revision",
    "missing_functions",
    "new_revision",
    "pipeline_functions",
    "revision_name",
]

COMPOSITION_API_VERSION = "apiextensions.crossplane.io/v1"
FUNCTION_REVISION_API_VERSION = "pkg.crossplane.io/v1"
FUNCTION_API_VERSION = "pkg.crossplane.io/v1"
LABEL_COMPOSITION_NAME = "crossplane.io/composition-name"
LABEL_COMPOSITION_HASH = "crossplane.io/composition-hash"
LABEL_PACKAGE = "pkg.crossplane.io/package"
COMPOSITION_CONTROLLER_NAME = "revisions/composition.apiextensions.crossplane.io"
"""Crossplane's name of the controller :class:`CompositionReconciler` is
(upstream controllers-3.1): also its events' source."""
REVISION_CONTROLLER_NAME = "revision/compositionrevision.apiextensions.crossplane.io"
"""Crossplane's name of the controller :class:`RevisionReconciler` is
(upstream controllers-3.6): also its events' source."""
VALID_PIPELINE_MESSAGE = "All functions have required composition capability"
"""The Normal ``CheckCapabilities`` event of a revision whose functions all compose."""


def _yaml_document(value: Any) -> str:
    """A value as sigs.k8s.io/yaml writes it: through JSON, keys sorted; ``null`` for a missing map."""
    if value is None:
        return "null\n"
    return yaml_emitter.to_yaml(json.loads(json.dumps(value)))


def composition_hash(composition: Mapping[str, Any]) -> str:
    """SHA-256 (lowercase hex) of the Composition's labels, annotations and spec, as YAML documents
    (upstream controllers-3.2).

    Only stability matters here: the same labels, annotations and spec give
    the same hash, and so the same revision. (Byte-equality with Crossplane's
    Go hash would only let crossfn recognise revisions Go created; a different
    digest just makes one extra revision.)
    """
    meta = composition.get("metadata") or {}
    text = "".join(
        _yaml_document(v) for v in (meta.get("labels"), meta.get("annotations"), composition.get("spec"))
    )
    return hashlib.sha256(text.encode()).hexdigest()


def revision_name(composition_name: str, hash_: str) -> str:
    """The revision's name: ``<composition>-<first 7 hex chars of the hash>``."""
    return f"{composition_name}-{hash_[:7]}"


def _controller_uid(obj: Mapping[str, Any]) -> str | None:
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or ():
        if ref.get("controller"):
            return str(ref.get("uid") or "")
    return None


def _number(revision: Mapping[str, Any]) -> int:
    try:
        return int((revision.get("spec") or {}).get("revision") or 0)
    except (TypeError, ValueError):
        return 0


def latest_revision(revisions: Iterable[Mapping[str, Any]], composition_uid: str) -> int:
    """The highest revision number among those the Composition controls; 0 when there are none."""
    return max((_number(r) for r in revisions if _controller_uid(r) == composition_uid), default=0)


def _owner_reference(composition: Mapping[str, Any]) -> dict[str, Any]:
    return _metadata.controller_reference(
        composition, api_version=COMPOSITION_API_VERSION, kind="Composition"
    )


def new_revision(composition: Mapping[str, Any], hash_: str, number: int) -> dict[str, Any]:
    """The CompositionRevision for this Composition spec, numbered ``number`` (upstream controllers-3.3).

    The Composition's labels are copied over the two revision labels, so they
    can override them, as in Crossplane.
    """
    meta = composition.get("metadata") or {}
    name = str(meta.get("name") or "")
    labels = {LABEL_COMPOSITION_NAME: name, LABEL_COMPOSITION_HASH: hash_[:63], **(meta.get("labels") or {})}
    metadata: dict[str, Any] = {
        "name": revision_name(name, hash_),
        "labels": labels,
        "ownerReferences": [_owner_reference(composition)],
    }
    if meta.get("annotations"):
        metadata["annotations"] = dict(meta["annotations"])
    spec = copy.deepcopy(dict(composition.get("spec") or {}))
    spec["revision"] = number
    return {
        "apiVersion": COMPOSITION_API_VERSION,
        "kind": "CompositionRevision",
        "metadata": metadata,
        "spec": spec,
    }


class _Failure(_events.StepFailure):
    """A step failed; the Warning event's reason travels with Crossplane's message."""


class CompositionReconciler:
    """Keeps one CompositionRevision per distinct Composition spec (Crossplane's ``revisions/composition``)."""

    def __init__(
        self, api: _api.Api, informers: _informer.InformerFactory, recorder: _events.Recorder
    ) -> None:
        self._api = api
        self._informers = informers
        self._recorder = recorder

    def watch(self, enqueue: Callable[[str], None]) -> None:
        """Enqueue a Composition when it changes, and when one of its revisions changes."""

        def on_composition(event_type: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
            enqueue(str((obj.get("metadata") or {}).get("name") or ""))

        def on_revision(event_type: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
            name = ((obj.get("metadata") or {}).get("labels") or {}).get(LABEL_COMPOSITION_NAME)
            if name:
                enqueue(str(name))

        self._informers.informer(COMPOSITION_API_VERSION, "Composition").add_handler(on_composition)
        self._informers.informer(COMPOSITION_API_VERSION, "CompositionRevision").add_handler(on_revision)

    async def reconcile(self, key: str) -> _controller.Result:
        """Create, adopt or re-number the revision of the Composition named ``key``."""
        _, name = _controller.split_key(key)
        composition = await self._api.get(COMPOSITION_API_VERSION, "Composition", name)
        if composition is None or (composition.get("metadata") or {}).get("deletionTimestamp"):
            return _controller.Result()
        try:
            await self._reconcile(composition)
        except _Failure as failure:
            await self._recorder.event(composition, "Warning", failure.reason, str(failure))
            raise
        return _controller.Result()

    async def _reconcile(self, composition: dict[str, Any]) -> None:
        name = composition["metadata"]["name"]
        uid = str(composition["metadata"].get("uid") or "")
        hash_ = composition_hash(composition)
        try:
            revisions, _ = await self._api.list(
                COMPOSITION_API_VERSION, "CompositionRevision", labels={LABEL_COMPOSITION_NAME: name}
            )
        except _api.ApiError as e:
            raise _Failure("CreateRevision", f"cannot list CompositionRevisions: {e}") from e
        latest = latest_revision(revisions, uid)
        matched = False
        for listed in revisions:
            rev = await self._adopt(composition, listed)
            if ((rev["metadata"].get("labels") or {}).get(LABEL_COMPOSITION_HASH)) != hash_[:63]:
                continue
            matched = True
            if _number(rev) != latest:
                # The Composition was reverted to this spec: it becomes the newest revision again.
                rev["spec"]["revision"] = latest + 1
                try:
                    await self._api.update(rev)
                except _api.Conflict:
                    raise
                except _api.ApiError as e:
                    raise _Failure("UpdateRevision", f"cannot update CompositionRevision spec: {e}") from e
        if matched:
            return
        try:
            await self._api.create(new_revision(composition, hash_, latest + 1))
        except _api.Conflict:
            raise
        except _api.ApiError as e:
            raise _Failure("CreateRevision", f"cannot create CompositionRevision: {e}") from e
        await self._recorder.event(composition, "Normal", "CreateRevision", "Created new revision")

    async def _adopt(self, composition: Mapping[str, Any], rev: dict[str, Any]) -> dict[str, Any]:
        """Take control of a revision that has no controller (for example after a backup and restore)."""
        if _controller_uid(rev) is not None:
            return rev
        rev["metadata"]["ownerReferences"] = [
            *(rev["metadata"].get("ownerReferences") or []),
            _owner_reference(composition),
        ]
        try:
            return await self._api.update(rev)
        except _api.Conflict:
            raise
        except _api.ApiError as e:
            raise _Failure("UpdateRevision", f"cannot own CompositionRevision: {e}") from e


def missing_functions(revision: Mapping[str, Any], functions: Iterable[str]) -> str | None:
    """Which pipeline steps name a Function that does not exist (``functions`` are those that do), or ``None``."""
    present = set(functions)
    missing = []
    for step in (revision.get("spec") or {}).get("pipeline") or ():
        name = str(((step or {}).get("functionRef") or {}).get("name") or "")
        if name and name not in present:
            missing.append(
                f"pipeline step {errors.quote(str((step or {}).get('step') or ''))} names "
                f"Function {errors.quote(name)}, which does not exist"
            )
    return "; ".join(missing) or None


def pipeline_functions(revision: Mapping[str, Any]) -> list[str]:
    """The names of the Functions a revision's pipeline runs, in step order, without repeats."""
    names: list[str] = []
    for step in (revision.get("spec") or {}).get("pipeline") or ():
        name = str(((step or {}).get("functionRef") or {}).get("name") or "")
        if name and name not in names:
            names.append(name)
    return names


class RevisionReconciler:
    """Sets ``ValidPipeline`` on CompositionRevisions from their Functions' active revisions."""

    def __init__(
        self,
        api: _api.Api,
        informers: _informer.InformerFactory,
        recorder: _events.Recorder,
        *,
        clock: Callable[[], datetime.datetime] = _clock.utcnow,
    ) -> None:
        self._api = api
        self._informers = informers
        self._recorder = recorder
        self._clock = clock

    def watch(self, enqueue: Callable[[str], None]) -> None:
        """Enqueue a revision when it changes, and every revision using a Function whose revision changes."""
        revisions = self._informers.informer(COMPOSITION_API_VERSION, "CompositionRevision")

        def on_revision(event_type: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
            enqueue(str((obj.get("metadata") or {}).get("name") or ""))

        def enqueue_users(function: str) -> None:
            for rev in revisions.list():
                if function in pipeline_functions(rev):
                    enqueue(str(rev["metadata"]["name"]))

        def on_function_revision(event_type: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
            function = ((obj.get("metadata") or {}).get("labels") or {}).get(LABEL_PACKAGE)
            if function:
                enqueue_users(str(function))

        def on_function(event_type: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
            if event_type in ("ADDED", "DELETED"):  # a Function's existence is all the check reads of it
                enqueue_users(str((obj.get("metadata") or {}).get("name") or ""))

        revisions.add_handler(on_revision)
        self._informers.informer(FUNCTION_REVISION_API_VERSION, "FunctionRevision").add_handler(
            on_function_revision
        )
        self._informers.informer(FUNCTION_API_VERSION, "Function").add_handler(on_function)

    async def reconcile(self, key: str) -> _controller.Result:
        """Check the capabilities of the pipeline of the revision named ``key`` and set ``ValidPipeline``."""
        _, name = _controller.split_key(key)
        rev = await self._api.get(COMPOSITION_API_VERSION, "CompositionRevision", name)
        if rev is None:
            return _controller.Result()
        function_revisions = await self._list(rev, "FunctionRevision")
        functions = [
            str((f.get("metadata") or {}).get("name") or "") for f in await self._list(rev, "Function")
        ]
        now = self._clock()
        missing = missing_functions(rev, functions)
        try:
            engine.check_capabilities(function_revisions, pipeline_functions(rev), ["composition"])
        except errors.InputError as e:
            await self._recorder.event(rev, "Warning", "CheckCapabilities", str(e))
            valid = _conditions.condition(
                rev, "ValidPipeline", "False", "MissingCapabilities", now=now, message=str(e)
            )
        else:
            if missing is not None:
                await self._recorder.event(rev, "Warning", "CheckCapabilities", missing)
                valid = _conditions.condition(
                    rev, "ValidPipeline", "False", "MissingFunctions", now=now, message=missing
                )
            else:
                await self._recorder.event(rev, "Normal", "CheckCapabilities", VALID_PIPELINE_MESSAGE)
                valid = _conditions.condition(rev, "ValidPipeline", "True", "ValidPipeline", now=now)
        changed = _conditions.set_condition(
            rev, _conditions.condition(rev, "Synced", "True", "ReconcileSuccess", now=now)
        )
        changed = _conditions.set_condition(rev, valid) or changed
        if changed:
            patch = {"status": {"conditions": rev["status"]["conditions"]}}
            with contextlib.suppress(_api.NotFound):  # Deleted meanwhile, with its Composition.
                await self._api.patch(
                    COMPOSITION_API_VERSION, "CompositionRevision", name, "", patch, status=True
                )
        return _controller.Result()

    async def _list(self, rev: Mapping[str, Any], kind: str) -> list[dict[str, Any]]:
        """Every Function or FunctionRevision; none when the kind is not installed."""
        try:
            objects, _ = await self._api.list(FUNCTION_API_VERSION, kind)
        except _api.NoKindMatch:
            return []
        except _api.ApiError as e:
            message = f"cannot list {kind}s: {e}"
            await self._recorder.event(rev, "Warning", "CheckCapabilities", message)
            raise _api.ApiError(message, status=e.status, reason=e.reason) from e
        return objects
