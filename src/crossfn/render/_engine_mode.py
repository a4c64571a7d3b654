"""Render as today's Crossplane CLI does: one reconcile of the XR controller (upstream core-3.8, core-3.9).

``crossplane render xr`` (crossplane/cli) hands its inputs to the render
engine (``crossplane internal render``), which runs one real XR reconcile
against an in-memory API server and reports what the reconciler wrote. The
output reproduced is that of crossplane/cli main (3d72f93) with the render
engine of crossplane main (2d040d2, after v2.3) (upstream core-0). This
module is that engine and that CLI, on crossfn's own controller contract: the
pipeline, composed names, metadata, owner references, garbage collection,
resource refs, the status and the events all come from
:func:`crossfn.engine.compose` under :meth:`ComposeOptions.controller` and
:func:`crossfn.engine.reconcile_status`, exactly as ``crossfn controller``
uses them. What is render's own is the in-memory world around that reconcile:

1. the schema: Legacy or Modern from the ``--xrd`` (:func:`select_schema`);
2. a deterministic uid when the XR has none (:func:`synthetic_uid`), and
   ``resourceVersion: "999"``;
3. the observed resources checked (:func:`check_observed`) and written to the
   XR's ``resourceRefs`` (:func:`inject_refs`), so the reconciler finds them;
4. the reconcile itself (:func:`reconcile`): ``Responsive``, the pause and
   reconcile-request annotations, the Composition "selected", the
   ``crossplane.io/composite`` label (the controller's steps, from
   :func:`crossfn.engine.admit` and :func:`crossfn.engine.configure`),
   compose, conditions and events;
5. what the fake API server recorded (:class:`Recorded`): the XR as last
   written (the resource-refs patch plus the status: ``{apiVersion, kind,
   metadata{name[,namespace]}, spec...resourceRefs, status}``), the applied
   composed resources, the deleted ones, the events;
6. the CLI's printing (:func:`documents`): every condition time set to
   2024-01-01T00:00:00Z (:func:`normalise_condition_times`), composed resources
   stable-sorted by composition resource name, ``-x`` merged as mergo does
   (:func:`merge_full_xr`), events as ``Result`` documents, the ``Context``.

A fatal result, like any reconcile error, fails the render and prints nothing
on stdout, as the CLI does; the partial output stays on :class:`Recorded`.
"""

from __future__ import annotations

import copy
import dataclasses
import datetime
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from crossfn import engine, errors
from crossfn.render import _contract, _inputs, _load, _sources

__all__ = [
    "CURRENT",
    "CurrentOutput",
    "Recorded",
    "check_observed",
    "documents",
    "inject_refs",
    "merge_full_xr",
    "normalise_condition_times",
    "reconcile",
    "select_schema",
    "synthetic_uid",
]

RESULT_API_VERSION = "render.crossplane.io/v1beta1"
FIXED_TIME = "2024-01-01T00:00:00Z"
"""The CLI replaces every condition's ``lastTransitionTime`` with this time."""

RESOURCE_VERSION = "999"
ANNOTATION_RESOURCE_NAME = "crossplane.io/composition-resource-name"
_XRD_APIS = {"apiextensions.crossplane.io/v1": "v1", "apiextensions.crossplane.io/v2": "v2"}


def _utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return _mapping(obj.get("metadata"))


def _group_version(api_version: str) -> tuple[str, str]:
    group, _, version = api_version.rpartition("/")
    return group, version


# Steps 1–5 of upstream core-3.8: the in-memory world --------------------------------------------------------


def select_schema(xrd: Mapping[str, Any] | None, xr: Mapping[str, Any]) -> engine.CompositeSchema:
    """Legacy or Modern, as the render engine picks it from the ``--xrd`` (upstream core-3.8 step 1).

    No XRD: Modern. A ``v1`` XRD whose scope is absent or ``LegacyCluster``,
    or a ``v2`` XRD with scope ``LegacyCluster``: Legacy. The XRD must define
    the XR's group and kind.
    """
    if xrd is None:
        return engine.CompositeSchema.MODERN
    api = _XRD_APIS.get(str(xrd.get("apiVersion") or ""))
    if api is None:
        raise errors.InputError(
            f"unknown CompositeResourceDefinition apiVersion {errors.quote(str(xrd.get('apiVersion') or ''))}"
        )
    spec = _mapping(xrd.get("spec"))
    group = str(spec.get("group") or "")
    names = _mapping(spec.get("names"))
    kind = str(names.get("kind") or "")
    xr_group, _ = _group_version(str(xr.get("apiVersion") or ""))
    xr_kind = str(xr.get("kind") or "")
    if (group, kind) != (xr_group, xr_kind):
        raise errors.InputError(
            f"CompositeResourceDefinition {errors.quote(str(_meta(xrd).get('name') or ''))} "
            f"(composite Group={group} Kind={kind}) does not match the input XR's Group={xr_group} Kind={xr_kind}"
        )
    scope = str(spec.get("scope") or "")
    legacy = scope == "LegacyCluster" or (api == "v1" and not scope)
    return engine.CompositeSchema.LEGACY if legacy else engine.CompositeSchema.MODERN


def synthetic_uid(xr: Mapping[str, Any]) -> str:
    """The uid the engine gives an XR without one (upstream core-3.8 step 2).

    Go's ``uuid.NewSHA1(uuid.Nil, gvk.String()+"\\x00"+namespace+"\\x00"+name)``,
    where ``gvk.String()`` reads ``group/version, Kind=Kind``: a version 5 UUID
    in the nil namespace, so the same XR always gets the same uid, and with it
    the same composed names.
    """
    group, version = _group_version(str(xr.get("apiVersion") or ""))
    meta = _meta(xr)
    gvk = f"{group}/{version}, Kind={xr.get('kind') or ''}"
    name = f"{gvk}\x00{meta.get('namespace') or ''}\x00{meta.get('name') or ''}"
    return str(uuid.uuid5(uuid.UUID(int=0), name))


def _aggregate(messages: Sequence[str]) -> str:
    """Kubernetes' aggregate error text: one message as is, several distinct ones as ``[a, b]``."""
    distinct = list(dict.fromkeys(messages))
    return distinct[0] if len(distinct) == 1 else "[" + ", ".join(distinct) + "]"


def check_observed(xr: Mapping[str, Any], observed: Sequence[Mapping[str, Any]]) -> None:
    """Refuse observed resources the XR cannot have composed (upstream core-3.8 step 4), naming every problem.

    A controller reference must carry the XR's uid, and a namespaced XR's
    resources must be in its namespace. The text is the engine's:
    ``invalid observed resources: [observed resource <name> ..., ...]``.
    """
    uid = str(_meta(xr).get("uid") or "")
    xr_ns = str(_meta(xr).get("namespace") or "")
    problems = []
    for obj in observed:
        name = str(_meta(obj).get("name") or "")
        owners = _meta(obj).get("ownerReferences")
        for ref in owners if isinstance(owners, list) else []:
            if isinstance(ref, Mapping) and ref.get("controller") and str(ref.get("uid") or "") != uid:
                problems.append(
                    f"observed resource {name} has a controller ref but is not controlled by the XR"
                )
                break
        if xr_ns and str(_meta(obj).get("namespace") or "") != xr_ns:
            problems.append(f"observed resource {name} is not in the same namespace as the XR")
    if problems:
        raise errors.InputError(f"invalid observed resources: {_aggregate(problems)}")


def _refs_path(schema: engine.CompositeSchema) -> tuple[str, ...]:
    return (
        ("spec", "resourceRefs")
        if schema is engine.CompositeSchema.LEGACY
        else ("spec", "crossplane", "resourceRefs")
    )


def _machinery(xr: dict[str, Any], schema: engine.CompositeSchema) -> dict[str, Any]:
    """Where the XR keeps Crossplane's fields: ``spec`` (legacy) or ``spec.crossplane``."""
    node = xr
    keys = ("spec",) if schema is engine.CompositeSchema.LEGACY else ("spec", "crossplane")
    for key in keys:
        if not isinstance(node.get(key), dict):
            node[key] = {}
        node = node[key]
    return node


def inject_refs(
    xr: dict[str, Any], observed: Sequence[Mapping[str, Any]], schema: engine.CompositeSchema
) -> None:
    """Point the XR's resource refs at the observed resources, replacing any it had
    (upstream core-3.8 step 5).

    With nothing observed the XR keeps its refs. A namespaced XR's refs carry
    no namespace (its schema has none).
    """
    if not observed:
        return
    namespaced = bool(_meta(xr).get("namespace"))
    refs = []
    for obj in observed:
        meta = _meta(obj)
        ref = {
            "apiVersion": str(obj.get("apiVersion") or ""),
            "kind": str(obj.get("kind") or ""),
            "name": str(meta.get("name") or ""),
        }
        if meta.get("namespace") and not namespaced:
            ref["namespace"] = str(meta["namespace"])
        if any(ref.values()):
            refs.append(ref)
    _machinery(xr, schema)[_refs_path(schema)[-1]] = refs


# Step 8: the reconcile -------------------------------------------------------------------------


@dataclasses.dataclass
class Recorded:
    """What the in-memory API server saw during the reconcile (upstream core-3.8 step 9)."""

    composite: dict[str, Any]
    """The XR as the reconciler last wrote it."""
    composed: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    """Composed resources, as applied."""
    deleted: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    """Observed resources garbage collected."""
    events: list[engine.Event] = dataclasses.field(default_factory=list)
    """Every event the reconciler recorded, on the XR or its claim, in order."""
    required_resources: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    """Every required-resources fetch, as the protojson ``ResourceSelector`` (bootstrap ones too)."""
    required_schemas: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    """Every required-schema fetch, as the protojson ``SchemaSelector``."""
    result: engine.CompositionResult | None = None
    """The compose result: context, results, requirements (also after a fatal result)."""
    error: errors.CrossfnError | None = None
    """Why the reconcile failed; the other fields are the partial output."""


def _store(
    inputs: _inputs.Inputs, xr: Mapping[str, Any], observed: Sequence[Mapping[str, Any]]
) -> list[Mapping[str, Any]]:
    """The in-memory API server's objects: the XR, the observed, required and credential objects
    (upstream core-3.8 step 7)."""
    return [xr, *observed, *inputs.required, *inputs.extra, *inputs.credentials]


def _secret_details(obj: Mapping[str, Any], store: Sequence[Mapping[str, Any]]) -> dict[str, bytes]:
    """Connection details from the Secret ``obj``'s ``writeConnectionSecretToRef`` names, if the store holds
    it (upstream core-2.16)."""
    ref = _sources.secret_ref(obj)
    if ref is None:
        return {}
    for s in store:
        meta = _meta(s)
        if (s.get("apiVersion"), s.get("kind")) == ("v1", "Secret") and (
            str(meta.get("namespace") or ""),
            str(meta.get("name") or ""),
        ) == ref:
            return _load.secret_data(s, f"Secret {ref[0]}/{ref[1]}")
    return {}


class _RecordingResources:
    """A resource source that notes each fetch as the selector asked for (the engine's recording fetcher)."""

    def __init__(self, source: engine.ResourceSource, record: list[dict[str, Any]]) -> None:
        self._source = source
        self._record = record

    async def get(self, api_version: str, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        selector: dict[str, Any] = {"apiVersion": api_version, "kind": kind, "matchName": name}
        if namespace:
            selector["namespace"] = namespace
        self._record.append(selector)
        return await self._source.get(api_version, kind, namespace, name)

    async def list(
        self, api_version: str, kind: str, namespace: str | None, labels: Mapping[str, str] | None
    ) -> list[dict[str, Any]]:
        selector: dict[str, Any] = {"apiVersion": api_version, "kind": kind}
        if labels is not None:
            selector["matchLabels"] = {"labels": dict(labels)} if labels else {}
        if namespace is not None:
            selector["namespace"] = namespace
        self._record.append(selector)
        return await self._source.list(api_version, kind, namespace, labels)


class _RecordingSchemas:
    """A schema source that notes each fetch."""

    def __init__(self, source: engine.SchemaSource, record: list[dict[str, Any]]) -> None:
        self._source = source
        self._record = record

    async def schema(self, api_version: str, kind: str) -> dict[str, Any] | None:
        self._record.append({"apiVersion": api_version, "kind": kind})
        return await self._source.schema(api_version, kind)


def _schema_source(inputs: _inputs.Inputs) -> engine.SchemaSource:
    if not inputs.schema_documents and not inputs.crd_documents:
        return engine.NoSchemas()
    from crossfn.schemas import store  # noqa: PLC0415 -- only -s and --crds need it; keep startup fast

    schemas = store.SchemaStore(builtins=False)
    for doc in [*inputs.schema_documents, *inputs.crd_documents]:
        schemas.add(doc)
    return schemas


def _select(
    xr: dict[str, Any], comp_name: str, schema: engine.CompositeSchema, events: list[engine.Event]
) -> None:
    """The engine's fixed selector names the Composition; a changed ref is an event
    (upstream core-2.1 step 7)."""
    machinery = _machinery(xr, schema)
    wanted = {"name": comp_name}
    if machinery.get("compositionRef") != wanted:
        machinery["compositionRef"] = wanted
        events.append(engine.selection_event(comp_name))


def _claim_copies(xr: Mapping[str, Any], events: Sequence[engine.Event], legacy: bool) -> list[engine.Event]:
    """The events as recorded: a legacy XR's claim gets its copy (bare message) before the XR's."""
    claim = _mapping(xr.get("spec")).get("claimRef") if legacy else None
    has_claim = isinstance(claim, Mapping) and bool(claim.get("name"))
    out = []
    for e in events:
        if has_claim and e.target is engine.Target.COMPOSITE_AND_CLAIM:
            out.append(engine.Event(e.type, e.reason, e.message))
        out.append(engine.Event(e.type, e.reason, e.xr_message))
    return out


def _prepare(
    inputs: _inputs.Inputs,
) -> tuple[dict[str, Any], engine.CompositeSchema, list[tuple[dict[str, Any], dict[str, bytes]]]]:
    """upstream core-3.8 steps 1–5: the XR as stored (schema, uid,
    resourceVersion, refs) and the observed resources."""
    xr = copy.deepcopy(inputs.xr)
    schema = select_schema(inputs.xrd_document, xr)
    if not isinstance(xr.get("metadata"), dict):
        xr["metadata"] = {}
    if not xr["metadata"].get("uid"):
        xr["metadata"]["uid"] = synthetic_uid(xr)
    xr["metadata"]["resourceVersion"] = RESOURCE_VERSION
    observed = [(o, d) for o, d in _sources.observed_with_details(inputs.observed) if _meta(o).get("name")]
    check_observed(xr, [o for o, _ in observed])
    inject_refs(xr, [o for o, _ in observed], schema)
    if not isinstance(xr.get("status"), dict):
        xr["status"] = {}
    return xr, schema, observed


def _written(
    result: engine.CompositionResult, status: engine.ReconcileStatus, *, legacy: bool
) -> dict[str, Any]:
    """The XR as last written: the resource-refs patch replaced the stored XR, the status writes put the status on it."""
    desired_status = copy.deepcopy(dict(result.composite.get("status") or {}))
    desired_status["conditions"] = list(status.conditions)
    if legacy and status.claim_condition_types:
        desired_status["claimConditionTypes"] = list(status.claim_condition_types)
    written = copy.deepcopy(dict(result.resource_refs_patch))
    written["status"] = desired_status
    return written


async def reconcile(
    inputs: _inputs.Inputs,
    transport: engine.FunctionRunner,
    *,
    clock: Callable[[], datetime.datetime] = _utcnow,
) -> Recorded:
    """One reconcile of the XR in ``inputs`` through ``transport`` (upstream core-3.8 steps 1–9)."""
    xr, schema, observed = _prepare(inputs)
    legacy = schema is engine.CompositeSchema.LEGACY
    # The controller's steps 2–4, 7 and 10, from the engine (crossfn controller runs the same ones).
    admission = engine.admit(xr, now=clock())
    for c in admission.conditions:
        engine.set_object_condition(xr, c)
    events = list(admission.events)
    if admission.paused:
        return Recorded(composite=xr, events=events)
    comp_name = str(_meta(inputs.composition).get("name") or "")
    _select(xr, comp_name, schema, events)
    engine.configure(xr, _machinery(xr, schema), _mapping(inputs.composition.get("spec")), legacy=legacy)

    store = _store(inputs, xr, [o for o, _ in observed])
    fetched: list[dict[str, Any]] = []
    fetched_schemas: list[dict[str, Any]] = []
    sources = engine.Sources(
        resources=_RecordingResources(engine.InMemoryResources(store), fetched),
        schemas=_RecordingSchemas(_schema_source(inputs), fetched_schemas),
        credentials=_sources.DocumentSecrets(inputs.credentials),
    )
    # Crossplane composes in Go map order, which no two runs share; in name order, output and events are stable.
    options = dataclasses.replace(engine.ComposeOptions.controller(schema), sort_composed=True)
    # Observed resources without details from -o get them as the engine's observer does: from a
    # Secret the in-memory API server holds; so does a legacy XR.
    try:
        result = await engine.compose(
            xr, _inputs.pipeline_steps(inputs.composition), engine.build_runner(transport, sources=sources, options=options),
            observed=[engine.ObservedResource(resource=o, connection_details=d or _secret_details(o, store)) for o, d in observed],
            xr_connection_details=_secret_details(xr, store) if legacy else {}, context=inputs.context,
            sources=sources, options=options, clock=clock, composition_name=comp_name,
        )  # fmt: skip
    except errors.CrossfnError as exc:
        failed = errors.wrap(exc, "cannot compose resources")
        events.append(engine.Event("Warning", "ComposeResources", str(failed)))
        return Recorded(
            composite=xr, events=_claim_copies(xr, events, legacy), error=failed,
            required_resources=fetched, required_schemas=fetched_schemas,
        )  # fmt: skip
    if result.fatal is not None:
        status = engine.reconcile_status(xr, result, now=clock(), legacy=legacy)
        xr["status"]["conditions"] = list(status.conditions)
        error = errors.CrossfnError(f"cannot compose resources: {result.fatal}")
        return Recorded(
            composite=xr, events=_claim_copies(xr, [*events, *status.events], legacy), result=result, error=error,
            required_resources=fetched, required_schemas=fetched_schemas,
        )  # fmt: skip
    conditions = (result.composite.get("status") or {}).get("conditions") or []
    status = engine.reconcile_status(
        {**xr, "status": {"conditions": conditions}}, result, now=clock(), legacy=legacy
    )
    return Recorded(
        composite=_written(result, status, legacy=legacy),
        composed=[copy.deepcopy(dict(c.resource)) for c in result.composed],
        deleted=[copy.deepcopy(g) for g in result.garbage],
        events=_claim_copies(xr, [*events, *status.events], legacy),
        required_resources=fetched,
        required_schemas=fetched_schemas,
        result=result,
    )


# Step 9 and upstream core-3.9: what the CLI prints ----------------------------------------------------------

_CONDITION_STRINGS = ("type", "status", "reason", "message")


def _typed_condition(c: object) -> dict[str, Any] | None:
    """A condition as Go's typed ``Condition`` reads and writes it, or ``None`` if it does not decode."""
    if not isinstance(c, Mapping):
        return None
    out: dict[str, Any] = {}
    for key in _CONDITION_STRINGS:
        value = c.get(key)
        if value is None:
            value = ""
        if not isinstance(value, str):
            return None
        if value or key != "message":
            out[key] = value
    generation = c.get("observedGeneration")
    if generation is not None:
        if isinstance(generation, bool) or not isinstance(generation, int | float):
            return None
        if isinstance(generation, float) and not generation.is_integer():  # NaN and infinity too
            return None
        if generation:
            out["observedGeneration"] = int(generation)
    time = c.get("lastTransitionTime")
    if time is not None and not (isinstance(time, str) and _rfc3339(time)):
        return None
    out["lastTransitionTime"] = FIXED_TIME
    return out


def _rfc3339(text: str) -> bool:
    """Whether ``metav1.Time`` parses ``text`` (RFC 3339)."""
    try:
        datetime.datetime.fromisoformat(text)
    except ValueError:
        return False
    return "T" in text


def normalise_condition_times(obj: dict[str, Any]) -> None:
    """The CLI's ``ReplaceConditionTimestamps``, in place.

    When ``status`` decodes as Go's ``ConditionedStatus``, its conditions are
    written back as typed conditions (unknown keys dropped, an empty message
    omitted) with ``lastTransitionTime`` 2024-01-01T00:00:00Z; a status
    without conditions gets ``conditions: null``, as the Go code writes a nil
    list. Anything that does not decode is left alone.
    """
    status = obj.get("status")
    if not isinstance(status, dict):
        return
    conditions = status.get("conditions")
    if conditions is None:
        status["conditions"] = None
        return
    if not isinstance(conditions, list):
        return
    typed = [_typed_condition(c) for c in conditions]
    if any(t is None for t in typed):
        return
    status["conditions"] = typed


def merge_full_xr(into: dict[str, Any], src: Mapping[str, Any]) -> dict[str, Any]:
    """``-x``: merge the rendered XR over the input XR as ``mergo.Merge(..., WithOverride)`` does, in place.

    Maps merge key by key, recursively; lists and scalars (``null`` too) from
    the rendered XR replace the input's.
    """
    for key, value in src.items():
        have = into.get(key)
        if isinstance(value, Mapping) and isinstance(have, dict):
            merge_full_xr(have, value)
        else:
            into[key] = copy.deepcopy(value)
    return into


def _resource_name(obj: Mapping[str, Any]) -> str:
    annotations = _meta(obj).get("annotations")
    return str(annotations.get(ANNOTATION_RESOURCE_NAME) or "") if isinstance(annotations, Mapping) else ""


def documents(inputs: _inputs.Inputs, include: _contract.Include, recorded: Recorded) -> list[Any]:
    """The documents ``crossplane render xr`` prints, in order (upstream core-3.6, core-3.9)."""
    xr = copy.deepcopy(recorded.composite)
    if include.full_xr:
        xr = merge_full_xr(copy.deepcopy(inputs.xr), xr)
    normalise_condition_times(xr)
    composed = [copy.deepcopy(c) for c in recorded.composed]
    for c in composed:
        normalise_condition_times(c)
    composed.sort(key=_resource_name)
    docs: list[Any] = [xr, *composed]
    if include.function_results:
        docs.extend(
            {
                "apiVersion": RESULT_API_VERSION,
                "kind": "Result",
                "message": e.message,
                "reason": e.reason,
                "severity": e.type,
            }
            for e in recorded.events
        )
    context = recorded.result.pipeline.context if recorded.result is not None else None
    if include.context and context is not None:
        docs.append({"apiVersion": RESULT_API_VERSION, "kind": "Context", "fields": context})
    return docs


class CurrentOutput:
    """Today's ``crossplane render xr`` (upstream core-3.8, core-3.9): render's default output contract."""

    def unknown_function(self, name: str) -> Exception:
        # The render engine's runner (upstream core-3.8), which knows the Functions the CLI handed it.
        return errors.FunctionRunError(
            f"unknown function {errors.quote(name)} - is it listed in the render input?"
        )

    async def render(
        self, inputs: _inputs.Inputs, transport: engine.FunctionRunner, include: _contract.Include
    ) -> _contract.Rendered:
        recorded = await reconcile(inputs, transport)
        if recorded.error is not None:
            raise recorded.error
        return _contract.Rendered(documents=documents(inputs, include, recorded), composed=recorded.composed)


CURRENT = CurrentOutput()
