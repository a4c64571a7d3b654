"""The Operations a CronOperation or WatchOperation made: their history, as both controllers read it (upstream ops-4).

Pure decisions over the Operations listed by the parent's label: when the newest was created
(``lastScheduleTime``), when the newest one succeeded (``lastSuccessfulTime``, the ``Succeeded``
transition of those with reason ``PipelineSuccess``), which are running (``PipelineRunning``), what
Operation each is, and which to delete to keep ``successfulHistoryLimit`` (default 3) succeeded and
``failedHistoryLimit`` (default 1) failed ones, newest first; a running one is never deleted.
Also what a new Operation of a CronOperation or WatchOperation looks like (their ``NewOperation``).
"""

from __future__ import annotations

import copy
import datetime
import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from crossfn import engine
from crossfn.engine import _metadata
from crossfn.gocompat import time as gotime

__all__ = [
    "ANNOTATION_WATCHED_PREFIX",
    "API_VERSION",
    "DEFAULT_FAILED_HISTORY",
    "DEFAULT_SUCCESSFUL_HISTORY",
    "LABEL_CRON",
    "LABEL_WATCH",
    "RESOURCE_VERSION_DELETED",
    "cron_operation",
    "garbage",
    "generation_changed",
    "latest_created",
    "latest_succeeded",
    "operation_name",
    "running",
    "watch_operation",
    "with_reason",
]

API_VERSION = "ops.crossplane.io/v1alpha1"
LABEL_CRON = "ops.crossplane.io/cronoperation"
LABEL_WATCH = "ops.crossplane.io/watchoperation"
ANNOTATION_WATCHED_PREFIX = "ops.crossplane.io/watched-resource-"
RESOURCE_VERSION_DELETED = "ops.crossplane.io/synthetic-deleted"
"""The resource version of the stand-in for a watched resource that was deleted."""
DEFAULT_SUCCESSFUL_HISTORY = 3
DEFAULT_FAILED_HISTORY = 1


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, Mapping) else {}


def _time(text: object) -> datetime.datetime | None:
    if not isinstance(text, str) or not text:
        return None
    try:
        return gotime.parse_rfc3339(text)
    except Exception:
        return None


def _succeeded(op: Mapping[str, Any]) -> Mapping[str, Any]:
    status = op.get("status")
    for c in (status.get("conditions") if isinstance(status, Mapping) else None) or ():
        if isinstance(c, Mapping) and c.get("type") == "Succeeded":
            return c
    return {}


def _created(op: Mapping[str, Any]) -> datetime.datetime | None:
    return _time(_meta(op).get("creationTimestamp"))


def latest_created(ops: Iterable[Mapping[str, Any]]) -> datetime.datetime | None:
    """The newest creation time among ``ops`` (``lastScheduleTime``), or ``None``."""
    return max((t for t in map(_created, ops) if t is not None), default=None)


def with_reason(reason: str, ops: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The Operations whose ``Succeeded`` condition has ``reason``."""
    return [op for op in ops if _succeeded(op).get("reason") == reason]


def latest_succeeded(ops: Iterable[Mapping[str, Any]]) -> datetime.datetime | None:
    """The newest ``Succeeded`` transition of the ones that succeeded (``lastSuccessfulTime``), or ``None``."""
    times = (_time(_succeeded(op).get("lastTransitionTime")) for op in with_reason("PipelineSuccess", ops))
    return max((t for t in times if t is not None), default=None)


def running(ops: Iterable[Mapping[str, Any]]) -> list[str]:
    """The names of the Operations still running (``PipelineRunning``), in list order."""
    return [str(_meta(op).get("name") or "") for op in with_reason("PipelineRunning", ops)]


def garbage(
    ops: Sequence[Mapping[str, Any]], keep_succeeded: int, keep_failed: int
) -> list[Mapping[str, Any]]:
    """What to delete to keep the newest ``keep_succeeded`` succeeded and ``keep_failed`` failed Operations.

    Newest first by creation time; a running Operation (``Succeeded`` Unknown, or none yet) is kept.
    """
    oldest = datetime.datetime.min.replace(tzinfo=datetime.UTC)
    newest_first = sorted(ops, key=lambda op: _created(op) or oldest, reverse=True)
    kept = {"True": 0, "False": 0}
    limits = {"True": keep_succeeded, "False": keep_failed}
    out = []
    for op in newest_first:
        status = str(_succeeded(op).get("status") or "")
        if status not in kept:
            continue
        if kept[status] < limits[status]:
            kept[status] += 1
            continue
        out.append(op)
    return out


def _template(parent: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A deep copy of the parent's ``spec.operationTemplate``'s metadata and spec."""
    spec = parent.get("spec")
    template = spec.get("operationTemplate") if isinstance(spec, Mapping) else None
    template = template if isinstance(template, Mapping) else {}
    metadata = template.get("metadata")
    op_spec = template.get("spec")
    return (
        copy.deepcopy(dict(metadata)) if isinstance(metadata, Mapping) else {},
        copy.deepcopy(dict(op_spec)) if isinstance(op_spec, Mapping) else {},
    )


def _operation(
    parent: Mapping[str, Any],
    *,
    kind: str,
    label: str,
    name: str,
    metadata: dict[str, Any],
    spec: dict[str, Any],
) -> dict[str, Any]:
    metadata["name"] = name
    labels = metadata.get("labels")
    metadata["labels"] = {
        **(labels if isinstance(labels, dict) else {}),
        label: str(_meta(parent).get("name") or ""),
    }
    owner = _metadata.controller_reference(parent, api_version=API_VERSION, kind=kind)
    owner.update({"apiVersion": API_VERSION, "kind": kind})
    refs = [r for r in metadata.get("ownerReferences") or [] if r.get("uid") != owner["uid"]]
    metadata["ownerReferences"] = [*refs, owner]
    return {"apiVersion": API_VERSION, "kind": "Operation", "metadata": metadata, "spec": spec}


def cron_operation(cron: Mapping[str, Any], scheduled: datetime.datetime) -> dict[str, Any]:
    """The Operation a CronOperation makes for the time it was scheduled (Crossplane's ``NewOperation``).

    Its template's metadata and spec, named ``<cronoperation>-<scheduled time in Unix seconds>``,
    labelled ``ops.crossplane.io/cronoperation`` and controlled by the CronOperation.
    """
    metadata, spec = _template(cron)
    name = f"{_meta(cron).get('name') or ''}-{int(scheduled.timestamp())}"
    return _operation(cron, kind="CronOperation", label=LABEL_CRON, name=name, metadata=metadata, spec=spec)


def _gvk_string(obj: Mapping[str, Any]) -> str:
    """apimachinery's ``GroupVersionKind.String()``: ``group/version, Kind=kind`` (``/v1, Kind=...`` for core)."""
    api_version = str(obj.get("apiVersion") or "")
    group, _, version = api_version.rpartition("/") if "/" in api_version else ("", "", api_version)
    return f"{group}/{version}, Kind={obj.get('kind') or ''}"


def operation_name(watch: Mapping[str, Any], watched: Mapping[str, Any]) -> str:
    """The name of the Operation a WatchOperation makes for one version of a watched resource.

    ``<watchoperation>-`` and the first 7 hex digits of the SHA-256 of the resource's
    ``gvk/namespace/name/uid/resourceVersion`` (and ``/deletion time`` for a deleted one), so each
    change makes one Operation, however often it is seen.
    """
    meta = _meta(watched)
    text = "/".join(
        [
            _gvk_string(watched),
            str(meta.get("namespace") or ""),
            str(meta.get("name") or ""),
            str(meta.get("uid") or ""),
            str(meta.get("resourceVersion") or ""),
        ]
    )
    deleted = _time(meta.get("deletionTimestamp"))
    if deleted is not None:
        text += "/" + gotime.format_rfc3339(deleted)
    return f"{_meta(watch).get('name') or ''}-{hashlib.sha256(text.encode()).hexdigest()[:7]}"


def watch_operation(watch: Mapping[str, Any], watched: Mapping[str, Any], name: str) -> dict[str, Any]:
    """The Operation a WatchOperation makes for ``watched`` (Crossplane's watched ``NewOperation``).

    Its template with the watched resource added to every step's requirements
    (:func:`crossfn.engine.inject_watched`), labelled ``ops.crossplane.io/watchoperation``,
    annotated with the watched resource's apiVersion, kind, name, namespace and resourceVersion,
    and controlled by the WatchOperation.
    """
    metadata, spec = _template(watch)
    engine.inject_watched(spec, watched)
    meta = _meta(watched)
    annotations = {
        f"{ANNOTATION_WATCHED_PREFIX}apiversion": str(watched.get("apiVersion") or ""),
        f"{ANNOTATION_WATCHED_PREFIX}kind": str(watched.get("kind") or ""),
        f"{ANNOTATION_WATCHED_PREFIX}name": str(meta.get("name") or ""),
        f"{ANNOTATION_WATCHED_PREFIX}resourceversion": str(meta.get("resourceVersion") or ""),
    }
    if meta.get("namespace"):
        annotations[f"{ANNOTATION_WATCHED_PREFIX}namespace"] = str(meta["namespace"])
    existing = metadata.get("annotations")
    metadata["annotations"] = {**(existing if isinstance(existing, dict) else {}), **annotations}
    return _operation(
        watch, kind="WatchOperation", label=LABEL_WATCH, name=name, metadata=metadata, spec=spec
    )


def generation_changed(event_type: str, obj: Mapping[str, Any], old: Mapping[str, Any] | None) -> bool:
    """controller-runtime's ``GenerationChangedPredicate``: creates and deletes pass, an update only with a new generation."""
    if event_type != "MODIFIED" or old is None:
        return True
    return _meta(obj).get("generation") != _meta(old).get("generation")
