"""The engine's value types: what goes into a pipeline and what comes out of it.

Everything here is a frozen dataclass with no behaviour beyond parsing and
small derived properties, so render, the test harness and a controller can
build inputs and read outputs without touching protobuf. Resources are plain
JSON-like dicts (``dict[str, Any]``), the way they come out of YAML or the
Kubernetes API; connection details and secret data are ``bytes``.

Neighbours: ``_pipeline`` consumes :class:`PipelineStep`, ``_compose``
produces :class:`CompositionResult`; ``_options`` holds the flags that make
the same code behave as Crossplane's controller or as classic render.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import functools
from collections.abc import Mapping
from typing import Any

from crossfn import errors
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource

__all__ = [
    "ComposedResource",
    "CompositeSchema",
    "CompositionResult",
    "Condition",
    "Event",
    "FunctionResult",
    "PipelineRun",
    "PipelineStep",
    "RequiredResource",
    "RequiredSchema",
    "StepCredential",
    "Target",
]

Object = dict[str, Any]
"""A Kubernetes object or fragment as plain JSON-like data."""


class Target(enum.Enum):
    """Where an event or condition goes: the XR, or the XR and its claim (legacy XRs only)."""

    COMPOSITE = "Composite"
    COMPOSITE_AND_CLAIM = "CompositeAndClaim"

    @classmethod
    def from_proto(cls, target: fnv1.Target.ValueType) -> Target:
        """Map a protocol target; anything but COMPOSITE_AND_CLAIM means the XR alone (upstream core-2.9)."""
        if target == fnv1.TARGET_COMPOSITE_AND_CLAIM:
            return cls.COMPOSITE_AND_CLAIM
        return cls.COMPOSITE


class CompositeSchema(enum.Enum):
    """Which XR model the composite follows (upstream core-5.1–core-5.4).

    LEGACY is the v1 model (``spec.resourceRefs``, claims, connection secrets),
    used when the XRD scope is ``LegacyCluster``. MODERN is the v2 model
    (``spec.crossplane.*``, optionally namespaced, no claims, no XR secrets).
    """

    LEGACY = "Legacy"
    MODERN = "Modern"


@dataclasses.dataclass(frozen=True)
class StepCredential:
    """One ``pipeline[].credentials[]`` entry: a Secret whose data the step receives under ``name``."""

    name: str
    source: str = "None"
    """``Secret`` or ``None``; only ``Secret`` entries with a secret name are fetched (upstream core-2.3)."""
    secret_name: str | None = None
    secret_namespace: str = ""


@dataclasses.dataclass(frozen=True)
class RequiredResource:
    """A bootstrap resource requirement of a step (``requirements.requiredResources[]``).

    ``name`` wins over ``match_labels`` (the CRD forbids both); with neither the
    selector matches every resource of the kind. ``match_labels`` distinguishes
    ``None`` (not set) from ``{}`` (set, empty: also all of the kind).
    """

    requirement_name: str
    api_version: str
    kind: str
    name: str | None = None
    match_labels: Mapping[str, str] | None = None
    namespace: str | None = None

    @classmethod
    def from_selector(cls, requirement_name: str, sel: fnv1.ResourceSelector) -> RequiredResource:
        """The requirement a protocol selector stands for (Crossplane's ``ReferenceFromSelector``)."""
        match = sel.WhichOneof("match")
        return cls(
            requirement_name=requirement_name,
            api_version=sel.api_version,
            kind=sel.kind,
            name=sel.match_name if match == "match_name" else None,
            match_labels=dict(sel.match_labels.labels) if match == "match_labels" else None,
            namespace=sel.namespace if sel.HasField("namespace") else None,
        )

    def selector(self) -> fnv1.ResourceSelector:
        """The protocol selector for this requirement (``ToProtobufResourceSelector``, upstream core-4.5)."""
        sel = fnv1.ResourceSelector(api_version=self.api_version, kind=self.kind)
        if self.namespace is not None:
            sel.namespace = self.namespace
        if self.name is not None:
            # Set, even empty: Crossplane tests the pointer, so `name: ""` names nothing (not "all of the kind").
            sel.match_name = self.name
        elif self.match_labels is not None:
            sel.match_labels.SetInParent()
            sel.match_labels.labels.update(self.match_labels)
        return sel


@dataclasses.dataclass(frozen=True)
class RequiredSchema:
    """A bootstrap schema requirement of a step (``requirements.requiredSchemas[]``)."""

    requirement_name: str
    api_version: str
    kind: str


@dataclasses.dataclass(frozen=True)
class PipelineStep:
    """One entry of a Composition's ``spec.pipeline``.

    ``input`` is kept as given (any JSON value) and checked when the request is
    built, because Crossplane reports a non-object input as a step error, not
    as a Composition error. ``has_requirements`` records whether the step had a
    ``requirements`` block at all; classic render creates the required maps only
    then, which the wire cannot show (an empty map and no map encode alike), so
    the engine does not branch on it.
    """

    step: str
    function_ref: str
    input: object = None
    credentials: tuple[StepCredential, ...] = ()
    required_resources: tuple[RequiredResource, ...] = ()
    required_schemas: tuple[RequiredSchema, ...] = ()
    has_requirements: bool = False

    @functools.cached_property
    def input_wire(self) -> bytes:
        """``input`` (an object) as a ``google.protobuf.Struct``'s deterministic wire encoding, converted
        on first use and kept: a step's input is part of its Composition (revision), which never
        changes it, and a controller sends it on every reconcile. Raises what
        :func:`crossfn.sdk.resource.dict_to_struct` raises; a failure is not kept.
        """
        if not isinstance(self.input, Mapping):
            raise TypeError("input must be an object")
        return resource.dict_to_struct(self.input).SerializeToString(deterministic=True)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], *, where: str = "spec.pipeline") -> PipelineStep:
        """Parse one ``spec.pipeline[]`` item of a Composition; ``where`` names it in errors."""
        step = d.get("step")
        if not isinstance(step, str) or not step:
            raise errors.InputError(f"cannot parse pipeline step: {where}.step must be a non-empty string")
        ref = d.get("functionRef")
        fn = ref.get("name") if isinstance(ref, Mapping) else None
        if not isinstance(fn, str) or not fn:
            raise errors.InputError(
                f"cannot parse pipeline step {errors.quote(step)}: {where}.functionRef.name must be a non-empty string"
            )
        creds = tuple(
            _credential(c, f"{where}.credentials[{i}]", step)
            for i, c in enumerate(_list_field(d, "credentials", where, step))
        )
        reqs = d.get("requirements")
        if reqs is not None and not isinstance(reqs, Mapping):
            raise errors.InputError(
                f"cannot parse pipeline step {errors.quote(step)}: {where}.requirements must be an object"
            )
        reqs = reqs or {}
        resources = tuple(
            _required_resource(r, f"{where}.requirements.requiredResources[{i}]", step)
            for i, r in enumerate(_list_field(reqs, "requiredResources", f"{where}.requirements", step))
        )
        schemas = tuple(
            _required_schema(r, f"{where}.requirements.requiredSchemas[{i}]", step)
            for i, r in enumerate(_list_field(reqs, "requiredSchemas", f"{where}.requirements", step))
        )
        return cls(
            step=step,
            function_ref=fn,
            input=d.get("input"),
            credentials=creds,
            required_resources=resources,
            required_schemas=schemas,
            has_requirements="requirements" in d and d["requirements"] is not None,
        )


def _list_field(d: Mapping[str, Any], key: str, where: str, step: str) -> list[Any]:
    """``d[key]`` as a list; absent or null is empty, any other type is the user's mistake, named."""
    v = d.get(key)
    if v is None:
        return []
    if not isinstance(v, list):
        raise errors.InputError(
            f"cannot parse pipeline step {errors.quote(step)}: {where}.{key} must be a list"
        )
    return v


def _str_field(d: Mapping[str, Any], key: str, where: str, step: str, *, required: bool = True) -> str | None:
    v = d.get(key)
    if v is None and not required:
        return None
    if not isinstance(v, str) or (required and not v):
        raise errors.InputError(
            f"cannot parse pipeline step {errors.quote(step)}: {where}.{key} must be a non-empty string"
        )
    return v


def _credential(c: object, where: str, step: str) -> StepCredential:
    if not isinstance(c, Mapping):
        raise errors.InputError(f"cannot parse pipeline step {errors.quote(step)}: {where} must be an object")
    name = _str_field(c, "name", where, step) or ""
    source = _str_field(c, "source", where, step, required=False) or "None"
    ref = c.get("secretRef")
    if ref is None:
        return StepCredential(name=name, source=source)
    if not isinstance(ref, Mapping):
        raise errors.InputError(
            f"cannot parse pipeline step {errors.quote(step)}: {where}.secretRef must be an object"
        )
    return StepCredential(
        name=name,
        source=source,
        secret_name=_str_field(ref, "name", f"{where}.secretRef", step),
        secret_namespace=_str_field(ref, "namespace", f"{where}.secretRef", step, required=False) or "",
    )


def _required_resource(r: object, where: str, step: str) -> RequiredResource:
    if not isinstance(r, Mapping):
        raise errors.InputError(f"cannot parse pipeline step {errors.quote(step)}: {where} must be an object")
    labels = r.get("matchLabels")
    if labels is not None and not (
        isinstance(labels, Mapping) and all(isinstance(v, str) for v in labels.values())
    ):
        raise errors.InputError(
            f"cannot parse pipeline step {errors.quote(step)}: {where}.matchLabels must map strings to strings"
        )
    return RequiredResource(
        requirement_name=_str_field(r, "requirementName", where, step) or "",
        api_version=_str_field(r, "apiVersion", where, step) or "",
        kind=_str_field(r, "kind", where, step) or "",
        name=_str_field(r, "name", where, step, required=False),
        match_labels=dict(labels) if labels is not None else None,
        namespace=_str_field(r, "namespace", where, step, required=False),
    )


def _required_schema(r: object, where: str, step: str) -> RequiredSchema:
    if not isinstance(r, Mapping):
        raise errors.InputError(f"cannot parse pipeline step {errors.quote(step)}: {where} must be an object")
    return RequiredSchema(
        requirement_name=_str_field(r, "requirementName", where, step) or "",
        api_version=_str_field(r, "apiVersion", where, step) or "",
        kind=_str_field(r, "kind", where, step) or "",
    )


@dataclasses.dataclass(frozen=True)
class Event:
    """An event for the XR (and, for legacy XRs, its claim), as Crossplane's ``TargetedEvent``.

    ``detail`` is ``Pipeline step "<step>"`` for function results and empty for
    engine events; :attr:`xr_message` is what the XR's event says.
    """

    type: str
    """``Normal`` or ``Warning``."""
    reason: str
    message: str
    target: Target = Target.COMPOSITE
    detail: str = ""

    @property
    def xr_message(self) -> str:
        """The message as shown on the XR: ``<detail>: <message>`` when there is a detail."""
        return f"{self.detail}: {self.message}" if self.detail else self.message


@dataclasses.dataclass(frozen=True)
class Condition:
    """A status condition, shaped as Kubernetes shows it (``status`` is ``True``/``False``/``Unknown``)."""

    type: str
    status: str
    reason: str
    message: str = ""
    last_transition_time: datetime.datetime | None = None
    target: Target = Target.COMPOSITE

    def to_dict(self) -> Object:
        """The condition as it appears in ``status.conditions`` (empty message omitted)."""
        out: Object = {"type": self.type, "status": self.status, "reason": self.reason}
        if self.message:
            out["message"] = self.message
        if self.last_transition_time is not None:
            ts = self.last_transition_time.astimezone(datetime.UTC).replace(microsecond=0)
            out["lastTransitionTime"] = ts.strftime("%Y-%m-%dT%H:%M:%SZ")
        return out


@dataclasses.dataclass(frozen=True)
class FunctionResult:
    """A non-fatal result a step returned, kept with its step (classic render's Result document)."""

    step: str
    severity: fnv1.Severity.ValueType
    message: str
    reason: str = ""
    target: Target = Target.COMPOSITE

    @property
    def severity_name(self) -> str:
        """The enum name, e.g. ``SEVERITY_NORMAL``, as classic render prints it."""
        return (
            fnv1.Severity.Name(self.severity)
            if self.severity in fnv1.Severity.values()
            else "SEVERITY_UNSPECIFIED"
        )


@dataclasses.dataclass(frozen=True)
class PipelineRun:
    """What running the pipeline produced, before composed resources are worked out.

    On a fatal result ``fatal`` is set and the rest holds what was gathered up
    to and including the fatal step: its conditions, the events of results
    before the fatal one, the requirements of every step that returned some.
    ``desired`` and ``context`` are ``None`` when the last step left them absent.
    """

    desired: fnv1.State | None
    context: Object | None
    events: tuple[Event, ...]
    conditions: tuple[Condition, ...]
    results: tuple[FunctionResult, ...]
    requirements: Mapping[str, fnv1.Requirements]
    ttl: datetime.timedelta
    trace_id: str
    fatal: errors.PipelineFatalError | None = None


@dataclasses.dataclass(frozen=True)
class ComposedResource:
    """A desired composed resource, ready for the caller to apply.

    ``name`` is the composition resource name (the key in ``desired.resources``),
    ``resource`` the full object with metadata rendered. ``ready`` is true only
    when the function said READY_TRUE (upstream core-2.15).
    """

    name: str
    resource: Object
    ready: bool


@dataclasses.dataclass(frozen=True)
class CompositionResult:
    """Everything the caller must do after a compose, and what to report.

    The engine applies and deletes nothing: ``composed`` is what to apply,
    ``garbage`` the observed resources to delete (labels already stripped, as
    Crossplane updates them before deleting), ``resource_refs`` what to write
    to the XR first, ``composite`` the XR (controller: the status patch;
    classic render: the whole output XR). When ``pipeline.fatal`` is set the
    composition part is empty; call :meth:`raise_for_fatal` to turn it into
    the :class:`~crossfn.errors.PipelineFatalError`.
    """

    pipeline: PipelineRun
    composite: Object
    composed: tuple[ComposedResource, ...] = ()
    garbage: tuple[Object, ...] = ()
    resource_refs: tuple[Object, ...] = ()
    resource_refs_patch: Object = dataclasses.field(default_factory=dict)
    """The XR object to server-side apply before any composed resource is created (upstream core-2.12):
    identity plus the refs under ``spec.crossplane.resourceRefs`` (legacy: ``spec.resourceRefs``)."""
    ready_condition: Condition | None = None
    connection_details: Mapping[str, bytes] = dataclasses.field(default_factory=dict)
    events: tuple[Event, ...] = ()
    connection_secret: Object | None = None
    """The Secret a legacy XR publishes, with all its details, else ``None``. To honour the
    XRD's ``connectionSecretKeys`` call :func:`crossfn.engine.connection_secret` with them."""

    @property
    def fatal(self) -> errors.PipelineFatalError | None:
        """The fatal-result error, if a step returned one."""
        return self.pipeline.fatal

    @property
    def ttl(self) -> datetime.timedelta:
        """The minimum non-zero TTL the steps returned; zero means none did."""
        return self.pipeline.ttl

    def raise_for_fatal(self) -> None:
        """Raise the :class:`~crossfn.errors.PipelineFatalError` if a step returned a fatal result."""
        if self.pipeline.fatal is not None:
            raise self.pipeline.fatal
