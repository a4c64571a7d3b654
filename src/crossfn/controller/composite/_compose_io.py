"""The I/O around one compose (upstream core-2.2): observe, run the engine, GC, refs, apply.

``engine.compose`` decides and touches nothing; :meth:`ComposeIO.compose`
does what it decided, in upstream core-2.2's order:

1. observe the composed resources the XR's ``resourceRefs`` name (the
   informer cache when the kind is watched, else or on a miss the API server;
   gone ones are skipped) with their connection details (upstream core-2.16);
2. run the pipeline (``engine.compose``; a fatal result stops here);
3. garbage-collect what is no longer desired (upstream core-2.11): strip the composite and
   claim labels with an update, then delete in the foreground with a UID
   precondition, NotFound ignored either way;
4. server-side apply ``resourceRefs`` before anything is created (upstream core-2.12), so
   a crash never leaves a composed resource the XR cannot find;
5. server-side apply each composed resource, forcing ownership, as the XR's
   own field owner (upstream core-2.13). A 422 Invalid marks that resource unsynced with a
   Warning event and carries on; any other error aborts.

An apply the API server would make a no-op is not sent (:class:`Applied`):
the desired object is the one this controller last applied, with the same
field owner, and the informer's cache still holds exactly the
``resourceVersion`` that apply returned, so nobody has changed the object
since. A forced apply of the same configuration by the same owner to an
unchanged object changes nothing; skipping it halves the writes of an XR
that settles (the reconcile that sees its resources ready composes them
again). A kind that is not watched is always applied: nothing would tell a
change.

A legacy revision (``mode: Resources``, or ``spec.resources`` without a mode,
which Crossplane v1's CRD defaulted to ``Resources``) is composed as
``crossfn convert pipeline-composition`` converts it, its patch-and-transform
step (and, for ``spec.environment``, its environment-configs step) run by the
built-ins in this process (:func:`_legacy_steps`), as Crossplane v1 ran native
patch-and-transform and environments, and as render runs them; it is logged
once per revision.

The XR's status (upstream core-2.14) is written by the reconciler together with its
conditions. Failures raise :class:`ComposeFailed` with the text the XR's
``Synced`` condition and Warning event will carry after ``cannot compose
resources: ``; a Conflict is raised as is, for a silent requeue.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import dataclasses
import datetime
import functools
import hashlib
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

from crossfn import engine, errors, functions
from crossfn.controller.composite import _echoes, _realtime, _selection, _sources
from crossfn.controller.kube import _api, _json
from crossfn.controller.runtime import _events, _informer, _xr
from crossfn.engine import _metadata
from crossfn.functions.patch_and_transform import convert
from crossfn.gocompat import values

__all__ = ["LABEL_COMPOSITE", "Applied", "ComposeFailed", "ComposeIO", "Outcome", "digest"]

_log = logging.getLogger("crossfn.controller.compose")

LABEL_COMPOSITE = _metadata.LABEL_COMPOSITE

SYNC_WAIT = 10.0
"""Seconds a read waits for a kind's informer to load its first list before it reads live instead."""


class ComposeFailed(errors.CrossfnError):
    """Compose failed: ``error`` (for ``cannot compose resources: …``) and the partial result, if any."""

    def __init__(
        self, error: errors.CrossfnError, result: engine.CompositionResult | None, *, invalid: bool = False
    ) -> None:
        super().__init__(str(error))
        self.error = error
        self.result = result
        self.invalid = invalid
        """The API server rejected an object as Invalid: the condition points at the event instead."""


@dataclasses.dataclass(frozen=True)
class Outcome:
    """A successful compose: the engine's result, what was not applied, what the XR depends on."""

    result: engine.CompositionResult
    unsynced: tuple[str, ...]
    dependencies: tuple[dict[str, Any], ...]
    required: tuple[_realtime.Selector, ...]


def _resource_name(obj: Mapping[str, Any]) -> str:
    return str(
        ((obj.get("metadata") or {}).get("annotations") or {}).get(_metadata.ANNOTATION_RESOURCE_NAME) or ""
    )


def _describe(obj: Mapping[str, Any]) -> str:
    """``(a <Kind> named <name>)``, as Crossplane's composer names an object in errors."""
    return f"(a {obj.get('kind', '')} named {(obj.get('metadata') or {}).get('name', '')})"


def digest(obj: Mapping[str, Any]) -> bytes:
    """A hash of ``obj`` over a canonical (key-sorted, compact) JSON encoding."""
    return hashlib.blake2b(_json.canonical(obj), digest_size=16).digest()


_Ident = tuple[str, str, str, str, str]
"""apiVersion, kind, namespace, name, field owner."""


def _ident(obj: Mapping[str, Any], owner: str) -> _Ident:
    meta = obj.get("metadata") or {}
    names = (obj.get("apiVersion"), obj.get("kind"), meta.get("namespace"), meta.get("name"))
    api_version, kind, namespace, name = (str(n or "") for n in names)
    return api_version, kind, namespace, name, owner


class Applied:
    """What the last successful apply of each composed resource sent and got back, per XR.

    Memory is bounded by the live XRs: each compose replaces its XR's entries
    with those of the objects it desires now, and :meth:`forget` drops an XR
    that is gone or deleted.
    """

    def __init__(self) -> None:
        self._by_xr: dict[str, dict[_Ident, tuple[bytes, str]]] = {}

    def __len__(self) -> int:
        return sum(len(entries) for entries in self._by_xr.values())

    def entries(self, xr_key: str) -> dict[_Ident, tuple[bytes, str]]:
        """The XR's remembered applies (the digest sent, the resourceVersion returned)."""
        return self._by_xr.get(xr_key, {})

    def replace(self, xr_key: str, entries: dict[_Ident, tuple[bytes, str]]) -> None:
        if entries:
            self._by_xr[xr_key] = entries
        else:
            self._by_xr.pop(xr_key, None)

    def forget(self, xr_key: str) -> None:
        self._by_xr.pop(xr_key, None)


_PARSED_REVISIONS = 64
"""Revisions whose parsed steps are kept at most; more live revisions are parsed again now and then."""

ANNOTATION_ADOPTABLE = "crossfn.io/adoptable"
"""On an existing object, ``"true"``: an XR whose Composition desires it may take it over (import)."""


def _group_kind(obj: Mapping[str, Any]) -> tuple[str, str]:
    api_version = str(obj.get("apiVersion") or "")
    return (api_version.rpartition("/")[0], str(obj.get("kind") or ""))


class ComposeIO:
    """Reads and writes for composing one XR; shared by all XRs of a controller.

    ``own_kinds`` are the (group, kind) pairs the XR's XRD defines (its XRs and
    claims): never composed (:meth:`_check_ownership`). ``adopt_existing``
    (``--adopt-existing-resources``) takes over existing objects as Crossplane
    does; without it only objects annotated :data:`ANNOTATION_ADOPTABLE` are.
    ``echoes`` is told of every write (``_echoes``). ``watch(kinds)`` (the realtime watches'
    ``ensure``) watches kinds whose objects are read before any XR has composed them (:meth:`_existing`).
    """

    def __init__(
        self,
        api: _api.Api,
        informers: _informer.Informers | None,
        *,
        own_kinds: frozenset[tuple[str, str]] = frozenset(),
        adopt_existing: bool = False,
        echoes: _echoes.Echoes | None = None,
        watch: Callable[[Iterable[tuple[str, str]]], None] | None = None,
    ) -> None:
        self._api = api
        self._informers = informers
        self._watch = watch
        self._own_kinds = own_kinds
        self._adopt_existing = adopt_existing
        self._echoes = echoes or _echoes.Echoes(informers)
        self.applied = Applied()
        self.skipped = 0
        """Composed applies not sent because the server would have made them no-ops (module docstring)."""
        self._legacy_logged: set[str] = set()
        """Legacy revisions already logged: once each, not on every reconcile."""
        self._parsed: dict[int, tuple[Mapping[str, Any], list[engine.PipelineStep], bool]] = {}
        """Revision objects (by ``id``, holding them) and their steps, and whether they are legacy: :meth:`_pipeline`."""

    def forget(self, xr_key: str) -> None:
        """Drop what was remembered of the XR ``xr_key``'s applies (it is gone or being deleted)."""
        self.applied.forget(xr_key)

    async def get(self, api_version: str, kind: str, name: str, namespace: str) -> dict[str, Any] | None:
        """An object from the cache when its kind is watched, else (or on a miss) live; a copy."""
        found = await self._read(api_version, kind, name, namespace)
        return _json.copy(found) if found is not None else None

    async def _read(self, api_version: str, kind: str, name: str, namespace: str) -> Mapping[str, Any] | None:
        """As :meth:`get`, but a cached object as the cache holds it: only to read, never to change.

        An informer replaces the objects it caches and never changes one, so what this returns stays
        as it was; the engine and the ownership check only read it. Not copying what a reconcile
        observes (ten ConfigMaps with their ``managedFields`` here) saves most of the cost of reading.
        """
        cache = _informer.watched(self._informers, api_version, kind)
        if cache is not None:
            found = cache.get(name, namespace)
            if found is not None:
                return found
        return await self._api.get(api_version, kind, name, namespace)

    async def _existing(
        self, api_version: str, kind: str, name: str, namespace: str
    ) -> Mapping[str, Any] | None:
        """As :meth:`_read`, but a watched kind's cache is the answer, a miss included.

        With realtime compositions a kind not watched yet is watched now and its first list awaited
        (at most :data:`SYNC_WAIT`), as controller-runtime's cached client, which Crossplane reads
        composed resources through, starts an informer on a kind's first read and blocks until it
        has synced: the first XRs composing a kind do not each read it live while its informer
        starts (a GET per composed resource). A kind whose list fails or is slower is read live.
        """
        cache = self._informers.running(api_version, kind) if self._informers is not None else None
        if cache is None and self._watch is not None and self._informers is not None:
            self._watch(((api_version, kind),))
            cache = self._informers.running(api_version, kind)
        if cache is not None and (cache.synced or await cache.synced_within(SYNC_WAIT)):
            return cache.get(name, namespace)
        return await self._api.get(api_version, kind, name, namespace)

    async def compose(
        self,
        xr: _xr.XR,
        rev: Mapping[str, Any],
        runner: engine.FunctionRunner,
        *,
        sources: engine.Sources,
        clock: Callable[[], datetime.datetime],
        seed: Mapping[str, Any],
        recorder: _events.Recorder,
        tracer: engine.Tracer | None = None,
    ) -> Outcome:
        """Compose ``xr`` with revision ``rev`` and apply the outcome (module docstring)."""
        steps, legacy = self._pipeline(rev)
        if legacy:
            runner = _with_builtins(runner, sources)
        try:
            xr.check_composition_fields()
        except errors.CrossfnError as exc:
            raise ComposeFailed(exc, None) from exc
        observed = await self._observe(xr)
        xr_details = await self._details(xr.obj, composed=False) if xr.legacy else {}
        name = str(
            ((rev.get("metadata") or {}).get("labels") or {}).get(_selection.LABEL_COMPOSITION_NAME) or ""
        )
        try:
            with _sources.confined_to(xr.namespace):
                result = await engine.compose(
                    xr.obj, steps, runner, observed=observed, xr_connection_details=xr_details,
                    sources=sources, options=engine.ComposeOptions.controller(xr.schema), clock=clock,
                    composition_name=name, seed=seed, tracer=tracer,
                )  # fmt: skip
        except _api.Conflict:
            raise
        except errors.CrossfnError as exc:
            raise ComposeFailed(exc, None, invalid=isinstance(exc, _api.Invalid)) from exc
        except Exception as exc:  # a crossfn bug: still reported on the XR, and logged with its traceback
            _log.exception("unexpected error composing %s", xr.name)
            raise ComposeFailed(errors.CrossfnError(f"{type(exc).__name__}: {exc}"), None) from exc
        if result.fatal is not None:
            raise ComposeFailed(result.fatal, result)
        try:
            await self._check_ownership(xr, result, observed)
        except _api.Conflict:
            raise
        except errors.CrossfnError as exc:
            raise ComposeFailed(exc, result) from exc
        try:
            await self._collect(result.garbage)
            await self._write_refs(xr, result)
            unsynced = await self._apply(xr, result, recorder)
        except _api.Conflict:
            raise
        except errors.CrossfnError as exc:
            raise ComposeFailed(exc, result, invalid=isinstance(exc.__cause__, _api.Invalid)) from exc
        required = [
            _realtime.Selector.from_proto(rr.selector()) for s in steps for rr in s.required_resources
        ]
        for reqs in result.pipeline.requirements.values():
            for group in (reqs.resources, reqs.extra_resources):
                required += [_realtime.Selector.from_proto(sel) for sel in group.values()]
        return Outcome(
            result=result,
            unsynced=tuple(unsynced),
            dependencies=tuple(c.resource for c in result.composed),
            required=tuple(required),
        )

    def _pipeline(self, rev: Mapping[str, Any]) -> tuple[list[engine.PipelineStep], bool]:
        """The revision's pipeline steps, and whether it is a legacy one, parsed once per revision object.

        Revisions are read from the informers' cache, which replaces the objects it holds and never
        changes one, so a revision object's steps stay what they were parsed as, and a step keeps its
        input converted for the next reconcile (``PipelineStep.input_wire``); a revision read anew (a
        new object) is parsed anew. A revision that fails to parse is not kept: it fails every time.
        """
        known = self._parsed.get(id(rev))
        if known is not None and known[0] is rev:
            return known[1], known[2]
        legacy = _legacy_steps(rev, self._legacy_logged)
        steps, is_legacy = (legacy[0], True) if legacy is not None else (self._steps(rev), False)
        if len(self._parsed) >= _PARSED_REVISIONS:
            self._parsed.clear()
        self._parsed[id(rev)] = (rev, steps, is_legacy)
        return steps, is_legacy

    @staticmethod
    def _steps(rev: Mapping[str, Any]) -> list[engine.PipelineStep]:
        spec = rev.get("spec") or {}
        mode = spec.get("mode") or "Pipeline"
        if mode != "Pipeline":
            raise ComposeFailed(
                errors.InputError(f"unsupported composition mode {errors.quote(str(mode))}"), None
            )
        pipeline = spec.get("pipeline") or []
        if not isinstance(pipeline, list):
            raise ComposeFailed(
                errors.InputError(f"spec.pipeline must be a list, not {values.a_json_type(pipeline)}"), None
            )
        try:
            return [
                engine.PipelineStep.from_dict(s, where=f"spec.pipeline[{i}]") for i, s in enumerate(pipeline)
            ]
        except errors.CrossfnError as exc:
            raise ComposeFailed(exc, None) from exc

    async def _observe(self, xr: _xr.XR) -> list[engine.ObservedResource]:
        """upstream core-2.2 step 1: the objects the XR's refs name, with their connection details."""
        xr_ns = xr.namespace
        refs = [r for r in xr.resource_refs if isinstance(r, Mapping) and r.get("name")]

        async def one(ref: Mapping[str, Any]) -> engine.ObservedResource | None:
            ns = xr_ns or str(ref.get("namespace") or "")
            try:
                obj = await self._read(
                    str(ref.get("apiVersion") or ""), str(ref.get("kind") or ""), str(ref["name"]), ns
                )
            except _api.NoKindMatch:
                return None
            except _api.ApiError as exc:
                raise ComposeFailed(
                    errors.CrossfnError(
                        f"cannot get existing composed resources: cannot get composed resource: {exc}"
                    ),
                    None,
                ) from exc
            if obj is None:
                return None
            details = await self._details(obj, composed=True)
            return engine.ObservedResource(obj, details)

        found = await asyncio.gather(*(one(r) for r in refs))
        return [o for o in found if o is not None]

    async def _details(self, obj: Mapping[str, Any], *, composed: bool) -> dict[str, bytes]:
        """The data of the Secret ``obj`` (a composed resource, or the XR) writes its connection details
        to; NotFound is empty (upstream core-2.16)."""
        ref = engine.secret_ref(obj)
        if ref is None:
            return {}
        namespace, name = ref
        try:
            secret = await self._api.get("v1", "Secret", name, namespace)
            data = (secret or {}).get("data") or {}
            return {str(k): base64.b64decode(str(v), validate=True) for k, v in data.items()}
        except (_api.ApiError, binascii.Error, ValueError) as exc:
            what = (
                f"composed resource {errors.quote(_resource_name(obj))}" if composed else "composite resource"
            )
            text = f"cannot fetch connection details for {what} {_describe(obj)}: cannot get connection secret: {exc}"
            raise ComposeFailed(errors.CrossfnError(text), None) from exc

    async def _check_ownership(
        self, xr: _xr.XR, result: engine.CompositionResult, observed: list[engine.ObservedResource]
    ) -> None:
        """Refuse, before any write, a composed resource the XR may not own (docs/security.md):

        * the XR itself (it would overwrite its own spec, then garbage-collect itself);
        * an object of a kind the XR's XRD defines (an XR composing XRs of its own kind has no end);
        * an existing object the XR does not control: one controlled by another owner,
          or by no one unless adoption is allowed (``--adopt-existing-resources``, or the
          object annotated ``crossfn.io/adoptable: "true"``), so a Composition cannot take
          over, change and later delete what someone else made (a namespace's ResourceQuota).

        What the XR already controls (observed through its refs) costs nothing; any other
        desired object is read once: from the informer cache when its kind is watched (a miss there
        is an object that does not exist, as controller-runtime's cached reads have it; with realtime
        compositions the first read of a kind starts its watch, :meth:`_existing`), else from the
        API server. The check races with whoever creates the object meanwhile, live read or not (an
        object made between the read and the apply is not seen either way); the cache widens that
        window to the watch's delay, and spares the API server a GET (a 404) for every object an XR
        creates.
        """
        uid = str((xr.obj.get("metadata") or {}).get("uid") or "")
        mine = {
            (*_group_kind(o.resource), str(o.resource["metadata"].get("namespace") or ""),
             str(o.resource["metadata"].get("name") or ""))
            for o in observed
            if str((_controller_ref(o.resource) or {}).get("uid") or "") == uid
        }  # fmt: skip
        xr_ident = (*_group_kind(xr.obj), xr.namespace, xr.name)
        for c in result.composed:
            meta = c.resource.get("metadata") or {}
            group, kind = _group_kind(c.resource)
            ident = (group, kind, str(meta.get("namespace") or ""), str(meta.get("name") or ""))
            what = f"composed resource {errors.quote(c.name)} {_describe(c.resource)}"
            if ident[:2] == xr_ident[:2] and ident[3] == xr_ident[3] and ident[2] in ("", xr_ident[2]):
                raise errors.CrossfnError(f"refusing to compose {what}: it is the composite resource itself")
            if (group, kind) in self._own_kinds:
                raise errors.CrossfnError(
                    f"refusing to compose {what}: its kind is defined by the composite resource's own "
                    "CompositeResourceDefinition"
                )
            if ident in mine:
                continue
            try:
                existing = await self._existing(
                    str(c.resource.get("apiVersion") or ""), kind, ident[3], ident[2]
                )
            except _api.NoKindMatch:
                continue  # not served: its apply says so
            except _api.ApiError as exc:
                raise errors.CrossfnError(f"cannot get existing {what}: {exc}") from exc
            if existing is None:
                continue
            ref = _controller_ref(existing)
            if ref is not None and str(ref.get("uid") or "") == uid:
                continue
            if ref is not None:
                raise errors.CrossfnError(
                    f"refusing to adopt existing {what}: it is controlled by {ref.get('kind', '')} "
                    f"{errors.quote(str(ref.get('name') or ''))}"
                )
            annotations = (existing.get("metadata") or {}).get("annotations") or {}
            if not self._adopt_existing and annotations.get(ANNOTATION_ADOPTABLE) != "true":
                raise errors.CrossfnError(
                    f"refusing to adopt existing {what}: the composite resource did not create it "
                    f'(annotate it {ANNOTATION_ADOPTABLE}: "true" to let it be adopted)'
                )

    async def _collect(self, garbage: tuple[dict[str, Any], ...]) -> None:
        """upstream core-2.11: strip labels with an update, then
        delete in the foreground, for each unwanted object."""
        outer = "cannot garbage collect composed resources that are no longer desired"
        for obj in garbage:
            meta = obj.get("metadata") or {}
            api_version, kind = str(obj.get("apiVersion") or ""), str(obj.get("kind") or "")
            name, what = errors.quote(_resource_name(obj)), _describe(obj)
            await _unless_gone(
                self._api.update(obj),
                f"{outer}: cannot cleanup composed resource labels of resource {name} {what}",
            )
            await _unless_gone(
                self._api.delete(
                    api_version, kind, str(meta.get("name") or ""), str(meta.get("namespace") or ""),
                    propagation="Foreground", uid=str(meta.get("uid") or "") or None,
                ),
                f"{outer}: cannot delete composed resource {name} {what}",
            )  # fmt: skip

    async def _write_refs(self, xr: _xr.XR, result: engine.CompositionResult) -> None:
        """upstream core-2.12: the refs, applied before any composed resource (skipped when already there)."""
        refs = list(result.resource_refs)
        if xr.resource_refs == refs:
            return
        try:
            written = await self._api.apply(
                result.resource_refs_patch, field_manager=engine.FIELD_OWNER_COMPOSITE, force=True
            )
        except _api.Conflict:
            raise
        except _api.ApiError as exc:
            raise errors.CrossfnError(f"cannot update composed resource references: {exc}") from exc
        self._echoes.wrote(xr.key, written)
        xr.set_resource_refs(refs)

    async def _apply(
        self, xr: _xr.XR, result: engine.CompositionResult, recorder: _events.Recorder
    ) -> list[str]:
        """upstream core-2.13: apply each composed resource;
        Invalid ones are reported and returned, not fatal.

        An apply that would be a no-op is skipped (module docstring).
        """
        owner = engine.composed_field_owner(xr.obj)
        last = self.applied.entries(xr.key)
        now: dict[_Ident, tuple[bytes, str]] = {}
        unsynced: list[str] = []
        try:
            for c in result.composed:
                ident, sent = _ident(c.resource, owner), digest(c.resource)
                if self._unchanged(ident, sent, last.get(ident)):
                    self.skipped += 1
                    now[ident] = last[ident]
                    continue
                try:
                    applied = await self._api.apply(c.resource, field_manager=owner, force=True)
                except _api.Invalid as exc:
                    unsynced.append(c.name)
                    message = f"cannot apply composed resource {errors.quote(c.name)}: {exc}"
                    await recorder.event(xr.obj, "Warning", "ComposeResources", message)
                    continue
                except _api.Conflict:
                    raise
                except _api.ApiError as exc:
                    raise errors.CrossfnError(
                        f"cannot apply composed resource {errors.quote(c.name)}: {exc}"
                    ) from exc
                self._echoes.wrote(xr.key, applied)
                version = str((applied.get("metadata") or {}).get("resourceVersion") or "")
                if version:
                    now[ident] = (sent, version)
        finally:
            self.applied.replace(xr.key, now)
        return unsynced

    def _unchanged(self, ident: _Ident, sent: bytes, last: tuple[bytes, str] | None) -> bool:
        """Whether ``sent`` is what was last applied and the cache still holds what that apply returned."""
        if last is None or last[0] != sent:
            return False
        api_version, kind, namespace, name, _ = ident
        cache = _informer.watched(self._informers, api_version, kind)
        if cache is None:
            return False
        current = cache.get(name, namespace)
        return (
            current is not None
            and str((current.get("metadata") or {}).get("resourceVersion") or "") == last[1]
        )


def _controller_ref(obj: Mapping[str, Any]) -> Mapping[str, Any] | None:
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or ():
        if isinstance(ref, Mapping) and ref.get("controller"):
            return ref
    return None


async def _unless_gone(call: Awaitable[object], failure: str) -> None:
    """Await an API call on an object that may already be gone (NotFound is fine); a Conflict
    is retried by the caller; any other API error becomes ``<failure>: <cause>``."""
    try:
        await call
    except _api.NotFound:
        return
    except _api.Conflict:
        raise
    except _api.ApiError as exc:
        raise errors.CrossfnError(f"{failure}: {exc}") from exc


_NATIVE_PT = "crossfn-native-patch-and-transform"
_NATIVE_ENV = "crossfn-native-environment-configs"
_NATIVE = {_NATIVE_PT: "patch-and-transform", _NATIVE_ENV: "environment-configs"}
"""The names a legacy revision's converted steps call, and the built-ins they are, whatever Functions are installed."""


def _legacy_steps(rev: Mapping[str, Any], logged: set[str]) -> tuple[list[engine.PipelineStep], str] | None:
    """The steps of a legacy revision converted to a Pipeline, and its name; None for any other revision.

    The first time a revision is seen (not in ``logged``) the conversion is logged.
    """
    spec = rev.get("spec")
    if not isinstance(spec, Mapping):
        return None
    mode = spec.get("mode") if "mode" in spec else ("Resources" if "resources" in spec else None)
    if mode != "Resources":
        return None
    name = str((rev.get("metadata") or {}).get("name") or "")
    composition = {"apiVersion": "apiextensions.crossplane.io/v1", "kind": "Composition", "spec": spec}
    try:
        converted = convert.to_pipeline(
            dict(composition), function_name=_NATIVE_PT, environment_function_name=_NATIVE_ENV
        )
    except errors.CrossfnError as exc:
        raise ComposeFailed(
            errors.InputError(f"cannot convert legacy composition to a pipeline: {exc}"), None
        ) from exc
    assert converted is not None, "a Resources composition is always converted"
    if name not in logged:
        logged.add(name)
        how = (
            "mode: Resources"
            if "mode" in spec
            else "spec.resources and no spec.mode (Crossplane v1's default)"
        )
        steps = converted["spec"]["pipeline"]
        uses_env = any(
            isinstance(s, Mapping) and (s.get("functionRef") or {}).get("name") == _NATIVE_ENV for s in steps
        )
        _log.info(
            "CompositionRevision %s uses %s; composing it as a Pipeline with the built-in "
            "function-patch-and-transform%s (as crossfn convert pipeline-composition converts it)",
            name,
            how,
            " and function-environment-configs" if uses_env else "",
        )
    return ComposeIO._steps(converted), name


def _with_builtins(runner: engine.FunctionRunner, sources: engine.Sources) -> engine.FunctionRunner:
    """``runner``, except that the converted steps' functions are the built-ins (:data:`_NATIVE`), under
    the requirements loop of their own (environment-configs asks for EnvironmentConfigs)."""
    native = engine.build_runner(
        _native_runner(), sources=sources, options=engine.ComposeOptions.controller()
    )
    return engine.RoutingRunner(lambda name: native if name in _NATIVE else runner)


@functools.cache
def _native_runner() -> engine.InProcessRunner:
    return engine.InProcessRunner({name: functions.load(builtin) for name, builtin in _NATIVE.items()})
