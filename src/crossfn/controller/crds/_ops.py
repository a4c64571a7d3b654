"""The kinds of ``ops.crossplane.io``: Operations, CronOperations and WatchOperations (v1alpha1).

An Operation runs a function pipeline once; a CronOperation makes one on a
schedule, a WatchOperation whenever a watched resource changes. Their
pipeline types are Crossplane's own copy of a Composition's
(``apis/ops/v1alpha1``): the same fields, but a credential carries no CEL rule.
crossfn installs these CRDs; the controllers that run Operations are
``crossfn.controller.ops``'s.
"""

from __future__ import annotations

from crossfn.controller.crds import _apiextensions, _core
from crossfn.controller.crds._kind import Column, Kind, Version
from crossfn.controller.crds._types import (
    Array,
    Embedded,
    Integer,
    Map,
    Obj,
    Rule,
    String,
    Struct,
    Unstructured,
)

__all__ = ["KINDS"]


class FunctionCredentials(Struct):
    name = String(required=True)
    source = String(required=True, enum=["None", "Secret"])
    secretRef = Obj(_apiextensions.SecretReference)


class PipelineStep(Struct):
    step = String(required=True)
    functionRef = Obj(_apiextensions.FunctionReference, required=True)
    input = Embedded()
    credentials = Array(FunctionCredentials, list_type="map", map_keys=["name"])
    requirements = Obj(_apiextensions.FunctionRequirements)


class OperationSpec(Struct):
    mode = String(required=True, default="Pipeline", enum=["Pipeline"])
    pipeline = Array(
        PipelineStep, required=True, list_type="map", map_keys=["step"], min_items=1, max_items=99
    )
    retryLimit = Integer(format="int64")


class PipelineStepStatus(Struct):
    step = String(required=True)
    output = Unstructured()


class AppliedResourceRef(Struct):
    apiVersion = String(required=True)
    kind = String(required=True)
    namespace = String()
    name = String(required=True)


class OperationStatus(Struct):
    conditions = _core.conditions()
    failures = Integer(format="int64")
    pipeline = Array(PipelineStepStatus)
    appliedResourceRefs = Array(AppliedResourceRef)


class Operation(_core.Root):
    spec = Obj(OperationSpec)
    status = Obj(OperationStatus)


class OperationTemplate(Struct):
    metadata = Obj(_core.ObjectMeta)
    spec = Obj(OperationSpec, required=True)


class RunningOperationRef(Struct):
    name = String(required=True)


class _ScheduledSpec(Struct):
    """What CronOperations and WatchOperations share: the template, concurrency and history."""

    operationTemplate = Obj(OperationTemplate, required=True)
    concurrencyPolicy = String(default="Allow", enum=["Allow", "Forbid", "Replace"])
    successfulHistoryLimit = Integer(format="int32", default=3)
    failedHistoryLimit = Integer(format="int32", default=1)


class CronOperationSpec(_ScheduledSpec):
    schedule = String(required=True)
    startingDeadlineSeconds = Integer(format="int64")


class CronOperationStatus(Struct):
    conditions = _core.conditions()
    runningOperationRefs = Array(RunningOperationRef)
    lastScheduleTime = String(format="date-time")
    lastSuccessfulTime = String(format="date-time")


class CronOperation(_core.Root):
    spec = Obj(CronOperationSpec)
    status = Obj(CronOperationStatus)


class WatchSpec(Struct):
    apiVersion = String(required=True, validations=[Rule("self == oldSelf", "apiVersion is immutable")])
    kind = String(required=True, validations=[Rule("self == oldSelf", "kind is immutable")])
    matchLabels = Map(String())
    namespace = String()


class WatchOperationSpec(_ScheduledSpec):
    watch = Obj(WatchSpec, required=True)


class WatchOperationStatus(CronOperationStatus):
    watchingResources = Integer(format="int64")


class WatchOperation(_core.Root):
    spec = Obj(WatchOperationSpec)
    status = Obj(WatchOperationStatus)


_SYNCED = Column("SYNCED", ".status.conditions[?(@.type=='Synced')].status")
_LAST = (
    Column("LAST SCHEDULE", ".status.lastScheduleTime", "date"),
    Column("LAST SUCCESS", ".status.lastSuccessfulTime", "date"),
)

KINDS = (
    Kind(
        "ops.crossplane.io",
        "CronOperation",
        short_names=("cronops",),
        versions=(
            Version(
                "v1alpha1",
                CronOperation,
                storage=True,
                columns=(
                    Column("SCHEDULE", ".spec.schedule"),
                    _SYNCED,
                    Column("SCHEDULING", ".status.conditions[?(@.type=='Scheduling')].status"),
                    *_LAST,
                ),
            ),
        ),
    ),
    Kind(
        "ops.crossplane.io",
        "Operation",
        short_names=("ops",),
        versions=(
            Version(
                "v1alpha1",
                Operation,
                storage=True,
                columns=(_SYNCED, Column("SUCCEEDED", ".status.conditions[?(@.type=='Succeeded')].status")),
            ),
        ),
    ),
    Kind(
        "ops.crossplane.io",
        "WatchOperation",
        short_names=("watchops",),
        versions=(
            Version(
                "v1alpha1",
                WatchOperation,
                storage=True,
                columns=(
                    Column("KIND", ".spec.watch.kind"),
                    Column("COUNT", ".status.watchingResources", "integer"),
                    _SYNCED,
                    Column("WATCHING", ".status.conditions[?(@.type=='Watching')].status"),
                    *_LAST,
                ),
            ),
        ),
    ),
)
