"""The ``ops.crossplane.io/v1alpha1`` types as ``crossplane render op`` reads and prints them (upstream ops-6).

The CLI decodes its input into Go's typed ``Operation`` (``CronOperation``, ``WatchOperation``) and
prints the rendered Operation from the same type, so what the user sees went through a typed
round trip: unknown keys are gone, empty optional fields too, and required ones are there even
when the input had none (``mode: ""``, ``pipeline: null``, ``status: {}``). These tables describe
those Go structs, field by field, for :func:`crossfn.gocompat.jsonstruct.decode` and
:func:`~crossfn.gocompat.jsonstruct.encode`, which reproduce ``encoding/json``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from crossfn.gocompat import jsonstruct as js

__all__ = ["CRON_OPERATION", "OPERATION", "TYPE_META", "WATCH_OPERATION", "round_trip"]

_STRINGS = js.Map(js.STRING)

TYPE_META = js.Struct(
    "v1.TypeMeta", {"apiVersion": js.STRING, "kind": js.STRING}, omitempty=frozenset({"apiVersion", "kind"})
)

_OWNER_REFERENCE = js.Struct(
    "v1.OwnerReference",
    {
        "apiVersion": js.STRING,
        "kind": js.STRING,
        "name": js.STRING,
        "uid": js.STRING,
        "controller": js.BOOL,
        "blockOwnerDeletion": js.BOOL,
    },
    omitempty=frozenset({"controller", "blockOwnerDeletion"}),
    pointers=frozenset({"controller", "blockOwnerDeletion"}),
)

_MANAGED_FIELDS = js.Struct(
    "v1.ManagedFieldsEntry",
    {
        "manager": js.STRING,
        "operation": js.STRING,
        "apiVersion": js.STRING,
        "time": js.TIME,
        "fieldsType": js.STRING,
        "fieldsV1": js.ANY,
        "subresource": js.STRING,
    },
    omitempty=frozenset(
        {"manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1", "subresource"}
    ),
    pointers=frozenset({"time", "fieldsV1"}),
)

_META_FIELDS: dict[str, js.Type] = {
    "name": js.STRING,
    "generateName": js.STRING,
    "namespace": js.STRING,
    "selfLink": js.STRING,
    "uid": js.STRING,
    "resourceVersion": js.STRING,
    "generation": js.INT64,
    "creationTimestamp": js.TIME,
    "deletionTimestamp": js.TIME,
    "deletionGracePeriodSeconds": js.INT64,
    "labels": _STRINGS,
    "annotations": _STRINGS,
    "ownerReferences": js.Slice(_OWNER_REFERENCE),
    "finalizers": js.Slice(js.STRING),
    "managedFields": js.Slice(_MANAGED_FIELDS),
}

_OBJECT_META = js.Struct(
    "v1.ObjectMeta",
    _META_FIELDS,
    omitempty=frozenset(
        _META_FIELDS
    ),  # every field; creationTimestamp is also omitzero, a struct omitempty keeps
    pointers=frozenset({"deletionTimestamp", "deletionGracePeriodSeconds"}),
    omitzero=frozenset({"creationTimestamp"}),
)

_SECRET_REFERENCE = js.Struct("v2.SecretReference", {"name": js.STRING, "namespace": js.STRING})

_CREDENTIALS = js.Struct(
    "v1alpha1.FunctionCredentials",
    {"name": js.STRING, "source": js.STRING, "secretRef": _SECRET_REFERENCE},
    omitempty=frozenset({"secretRef"}),
    pointers=frozenset({"secretRef"}),
)

_RESOURCE_SELECTOR = js.Struct(
    "v1alpha1.RequiredResourceSelector",
    {
        "requirementName": js.STRING,
        "apiVersion": js.STRING,
        "kind": js.STRING,
        "name": js.STRING,
        "matchLabels": _STRINGS,
        "namespace": js.STRING,
    },
    omitempty=frozenset({"name", "matchLabels", "namespace"}),
    pointers=frozenset({"name", "namespace"}),
)

_SCHEMA_SELECTOR = js.Struct(
    "v1alpha1.RequiredSchemaSelector",
    {"requirementName": js.STRING, "apiVersion": js.STRING, "kind": js.STRING},
)

_REQUIREMENTS = js.Struct(
    "v1alpha1.FunctionRequirements",
    {"requiredResources": js.Slice(_RESOURCE_SELECTOR), "requiredSchemas": js.Slice(_SCHEMA_SELECTOR)},
    omitempty=frozenset({"requiredResources", "requiredSchemas"}),
)

_PIPELINE_STEP = js.Struct(
    "v1alpha1.PipelineStep",
    {
        "step": js.STRING,
        "functionRef": js.Struct("v1alpha1.FunctionReference", {"name": js.STRING}),
        "input": js.ANY,
        "credentials": js.Slice(_CREDENTIALS),
        "requirements": _REQUIREMENTS,
    },
    omitempty=frozenset({"input", "credentials", "requirements"}),
    pointers=frozenset({"input", "requirements"}),
)

_OPERATION_SPEC = js.Struct(
    "v1alpha1.OperationSpec",
    {"mode": js.STRING, "pipeline": js.Slice(_PIPELINE_STEP), "retryLimit": js.INT64},
    omitempty=frozenset({"retryLimit"}),
    pointers=frozenset({"retryLimit"}),
)

_CONDITION = js.Struct(
    "v2.Condition",
    {
        "type": js.STRING,
        "status": js.STRING,
        "lastTransitionTime": js.TIME,
        "reason": js.STRING,
        "message": js.STRING,
        "observedGeneration": js.INT64,
    },
    omitempty=frozenset({"message", "observedGeneration"}),
)

_OPERATION_STATUS = js.Struct(
    "v1alpha1.OperationStatus",
    {
        "conditions": js.Slice(_CONDITION),
        "failures": js.INT64,
        "pipeline": js.Slice(
            js.Struct(
                "v1alpha1.PipelineStepStatus",
                {"step": js.STRING, "output": js.ANY},
                omitempty=frozenset({"output"}),
                pointers=frozenset({"output"}),
            )
        ),
        "appliedResourceRefs": js.Slice(
            js.Struct(
                "v1alpha1.AppliedResourceRef",
                {"apiVersion": js.STRING, "kind": js.STRING, "namespace": js.STRING, "name": js.STRING},
                omitempty=frozenset({"namespace"}),
                pointers=frozenset({"namespace"}),
            )
        ),
    },
    omitempty=frozenset({"conditions", "failures", "pipeline", "appliedResourceRefs"}),
)

_TEMPLATE = js.Struct(
    "v1alpha1.OperationTemplate",
    {"metadata": _OBJECT_META, "spec": _OPERATION_SPEC},
    omitempty=frozenset({"metadata"}),
)

_RUNNING = js.Slice(js.Struct("v1alpha1.RunningOperationRef", {"name": js.STRING}))
_SCHEDULE_STATUS: dict[str, js.Type] = {
    "conditions": js.Slice(_CONDITION),
    "runningOperationRefs": _RUNNING,
    "lastScheduleTime": js.TIME,
    "lastSuccessfulTime": js.TIME,
}
_HISTORY: dict[str, js.Type] = {
    "concurrencyPolicy": js.STRING,
    "successfulHistoryLimit": js.INT32,
    "failedHistoryLimit": js.INT32,
    "operationTemplate": _TEMPLATE,
}
_HISTORY_POINTERS = frozenset({"concurrencyPolicy", "successfulHistoryLimit", "failedHistoryLimit"})


def _object(go: str, spec: js.Struct, status: js.Struct) -> js.Struct:
    return js.Struct(
        go,
        {**TYPE_META.fields, "metadata": _OBJECT_META, "spec": spec, "status": status},
        omitempty=frozenset({"apiVersion", "kind", "metadata", "spec", "status"}),
    )


OPERATION = _object("v1alpha1.Operation", _OPERATION_SPEC, _OPERATION_STATUS)

CRON_OPERATION = _object(
    "v1alpha1.CronOperation",
    js.Struct(
        "v1alpha1.CronOperationSpec",
        {"schedule": js.STRING, "startingDeadlineSeconds": js.INT64, **_HISTORY},
        omitempty=frozenset({"startingDeadlineSeconds"}) | _HISTORY_POINTERS,
        pointers=frozenset({"startingDeadlineSeconds"}) | _HISTORY_POINTERS,
    ),
    js.Struct(
        "v1alpha1.CronOperationStatus",
        _SCHEDULE_STATUS,
        omitempty=frozenset(_SCHEDULE_STATUS),
        pointers=frozenset({"lastScheduleTime", "lastSuccessfulTime"}),
    ),
)

WATCH_OPERATION = _object(
    "v1alpha1.WatchOperation",
    js.Struct(
        "v1alpha1.WatchOperationSpec",
        {
            "watch": js.Struct(
                "v1alpha1.WatchSpec",
                {"apiVersion": js.STRING, "kind": js.STRING, "matchLabels": _STRINGS, "namespace": js.STRING},
                omitempty=frozenset({"matchLabels", "namespace"}),
            ),
            **_HISTORY,
        },
        omitempty=_HISTORY_POINTERS,
        pointers=_HISTORY_POINTERS,
    ),
    js.Struct(
        "v1alpha1.WatchOperationStatus",
        {**_SCHEDULE_STATUS, "watchingResources": js.INT64},
        omitempty=frozenset({*_SCHEDULE_STATUS, "watchingResources"}),
        pointers=frozenset({"lastScheduleTime", "lastSuccessfulTime"}),
    ),
)


def round_trip(obj: Mapping[str, Any], st: js.Struct) -> dict[str, Any]:
    """``obj`` decoded into the Go type ``st`` and marshalled back; a value that does not fit raises GoError."""
    return js.encode(js.decode(obj, st, decoder=js.LENIENT), st)
