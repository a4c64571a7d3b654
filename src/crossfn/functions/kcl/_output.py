"""What function-kcl does with a program's output: the items, by target, into the desired state and the response.

The output is the program's top-level ``items`` list (or, without one, the
whole output as one item). Each target (``spec.target``) places the items:

* ``Default``: an item of the XR's kind merges its ``status`` into the
  desired XR; an item of ``meta.krm.kcl.dev/v1alpha1`` is a special kind
  (connection details, requirements, conditions, events, context); any other
  item is a desired composed resource, named by its
  ``krm.kcl.dev/composition-resource-name`` annotation or its
  ``metadata.name``, ready per ``krm.kcl.dev/ready``.
* ``Resources``: every item is a desired composed resource, merged (top-level
  keys) over one of the same name.
* ``PatchDesired`` / ``PatchResources``: every item patches the desired
  resource of its name, leaf by leaf (``_set_data``); PatchResources first
  adds ``spec.resources`` as desired resources.
* ``XR``: every item patches the desired XR, leaf by leaf.

:class:`State` holds what the response gets; :func:`process` fills it. The
behaviour of each release span (``crossfn.functions._releases.kcl``) decides
the details. Every error is the text upstream puts after ``cannot process xr
and state with the pipeline output in *v1.RunFunctionResponse:``.
"""

from __future__ import annotations

import base64
import binascii
import copy
import dataclasses
from collections.abc import Mapping
from typing import Any

from crossfn import errors
from crossfn.functions._releases.kcl import Behaviour
from crossfn.functions.kcl import _input
from crossfn.gocompat import fmt, strconv
from crossfn.sdk import fieldpath

__all__ = ["META_API_VERSION", "READY", "RESOURCE_NAME", "Desired", "ProcessError", "State", "process"]

READY = "krm.kcl.dev/ready"
RESOURCE_NAME = "krm.kcl.dev/composition-resource-name"
META_API_VERSION = "meta.krm.kcl.dev/v1alpha1"


class ProcessError(errors.CrossfnError):
    """The output cannot be placed; the message is upstream's, without the step's prefix."""


@dataclasses.dataclass
class Desired:
    """A desired composed resource and its readiness (``Unspecified``, ``True`` or ``False``)."""

    resource: dict[str, Any]
    ready: str = "Unspecified"


@dataclasses.dataclass
class State:
    """The desired state and what else the response gets, as :func:`process` leaves them."""

    oxr: dict[str, Any]
    dxr: dict[str, Any]
    connection_details: dict[str, bytes]
    desired: dict[str, Desired]
    extra_resources: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    """Requirements by name, as ``ResourceSelector`` fields (``api_version``, ``kind``, ``match_name`` or
    ``match_labels``, ``namespace``)."""
    required_resources: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    conditions: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    events: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    context: dict[str, Any] = dataclasses.field(default_factory=dict)


def _annotations(obj: Mapping[str, Any]) -> dict[str, str] | None:
    """``GetAnnotations()``: the annotations when every value is a string, else None (as Go's NestedStringMap)."""
    meta = obj.get("metadata")
    ann = meta.get("annotations") if isinstance(meta, Mapping) else None
    if not isinstance(ann, dict) or not all(isinstance(v, str) for v in ann.values()):
        return None
    return ann


def _remove_annotation(obj: dict[str, Any], key: str) -> None:
    ann = _annotations(obj)
    if ann is not None:
        ann.pop(key, None)


def _name(obj: Mapping[str, Any]) -> str:
    meta = obj.get("metadata")
    name = meta.get("name") if isinstance(meta, Mapping) else None
    return name if isinstance(name, str) else ""


def _str(obj: Mapping[str, Any], key: str) -> str:
    value = obj.get(key)
    return value if isinstance(value, str) else ""


def resource_name(obj: dict[str, Any]) -> str:
    """``GetResourceName``: the composition resource name annotation, else ``metadata.name``; the annotation goes."""
    ann = _annotations(obj)
    name = ann.get(RESOURCE_NAME) if ann is not None else None
    _remove_annotation(obj, RESOURCE_NAME)
    return name if name is not None else _name(obj)


def _ready(obj: dict[str, Any]) -> str | None:
    """The ``krm.kcl.dev/ready`` value (removed from the object), or None without one."""
    ann = _annotations(obj)
    if ann is None or READY not in ann:
        return None
    value = ann[READY]
    if value not in ("True", "False", "Unspecified"):
        raise ProcessError(
            f'invalid function input: invalid "{READY}" annotation value {_go_quote(value)}: '
            "must be True, False, or Unspecified"
        )
    _remove_annotation(obj, READY)
    return value


def _go_quote(s: str) -> str:
    return strconv.quote(s)


def _apply_ready(desired: Mapping[str, Desired]) -> None:
    for d in desired.values():
        value = _ready(d.resource)
        if value is not None:
            d.ready = value


class _Names:
    """The duplicate-name rule of a release span."""

    def __init__(self, mode: str, desired: Mapping[str, Desired]) -> None:
        self._mode = mode
        self._desired = desired
        self._seen: dict[str, str] = {}

    def check(self, name: str, obj: Mapping[str, Any]) -> None:
        kind_name = f"{_str(obj, 'kind')}/{_name(obj)}"
        if self._mode == "checker" and name in self._seen:
            raise ProcessError(
                f"multiple composed resources with name {_go_quote(name)} returned: {self._seen[name]} and "
                f'{kind_name}. Set different metadata.name or metadata.annotations."{RESOURCE_NAME}" to '
                "distinguish them."
            )
        taken = name in self._desired if self._mode == "desired" else name in self._seen
        if self._mode in ("desired", "output") and taken:
            raise ProcessError(
                f"duplicate resource names {name} found, when returning multiple resources, you need to set "
                f'different metadata.name or matadata.annotations."{RESOURCE_NAME}" to distinguish between '
                "different resources in the composition functions."
            )
        self._seen[name] = kind_name


def process(state: State, items: list[dict[str, Any]], inp: _input.Input, behaviour: Behaviour) -> None:
    """Place ``items`` (the program's output) into ``state`` per ``inp.target``; raises :class:`ProcessError`."""
    if inp.target == "XR":
        for item in items:
            _set_data(item, "", state.dxr, xr=True, behaviour=behaviour, wrap="cannot set data on xr")
        return
    if inp.target in ("PatchDesired", "PatchResources"):
        if inp.target == "PatchResources":
            for r in inp.resources:
                state.desired[r.name] = Desired(copy.deepcopy(r.base or {}))
        _patch(state, items, behaviour)
    elif inp.target == "Resources":
        _resources(state, items, behaviour)
    else:
        _default(state, items, behaviour)
        return
    if behaviour.ready_all_targets:
        _apply_ready(state.desired)


def _patch(state: State, items: list[dict[str, Any]], behaviour: Behaviour) -> None:
    matches: list[tuple[Desired, dict[str, Any]]] = []
    for item in items:
        found = state.desired.get(resource_name(item))
        if found is not None:
            matches.append((found, item))
    if len(matches) != len(items):
        raise ProcessError(f"failed to match all resources, found {len(matches)} / {len(items)} patches")
    for d, item in matches:
        _set_data(item, "", d.resource, xr=False, behaviour=behaviour,
                  wrap="cannot set data existing desired composed object")  # fmt: skip


def _resources(state: State, items: list[dict[str, Any]], behaviour: Behaviour) -> None:
    names = _Names("checker" if behaviour.duplicates == "checker" else "none", state.desired)
    for item in items:
        name = resource_name(item)
        names.check(name, item)
        have = state.desired.get(name)
        body = {**have.resource, **item} if have is not None else item
        state.desired[name] = Desired(body)


def _default(state: State, items: list[dict[str, Any]], behaviour: Behaviour) -> None:
    names = _Names(behaviour.duplicates, state.desired)
    xr_gvk = (_str(state.oxr, "apiVersion"), _str(state.oxr, "kind"))
    for item in items:
        if (_str(item, "apiVersion"), _str(item, "kind")) == xr_gvk:
            _merge_status(state.dxr, item)
            continue
        if _str(item, "apiVersion") == META_API_VERSION:
            _meta(state, item, behaviour)
            continue
        ready = _ready(item)
        name = resource_name(item)
        names.check(name, item)
        state.desired[name] = Desired(item, ready or "Unspecified")


def _merge_status(dxr: dict[str, Any], item: Mapping[str, Any]) -> None:
    """Merge the item's ``status`` over the desired XR's, as ``mergo.Merge(..., WithOverride)``."""
    _object_at(dxr, "status", "cannot get desired composite status")
    src = _object_at(item, "status", "cannot get templated composite status")
    try:
        fieldpath.merge_value(dxr, "status", src, fieldpath.MergeOptions())
    except errors.FieldPathError as exc:
        raise ProcessError(f"cannot set desired composite status: {exc}") from exc


def _object_at(obj: Mapping[str, Any], key: str, what: str) -> dict[str, Any]:
    value = obj.get(key, {})
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ProcessError(
            f"{what}: json: cannot unmarshal {_json_kind(value)} into Go value of type map[string]interface {{}}"
        )
    return value


def _json_kind(v: object) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int | float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def _meta(state: State, item: Mapping[str, Any], behaviour: Behaviour) -> None:
    kind = _str(item, "kind")
    if kind not in behaviour.meta_kinds():
        wanted = (
            "CompositeConnectionDetails or ExtraResources"
            if behaviour.extra_resources
            else "CompositeConnectionDetails"
        )
        raise ProcessError(
            f'invalid kind {_go_quote(kind)} for apiVersion "{META_API_VERSION}" - must be {wanted}'
        )
    if kind == "CompositeConnectionDetails":
        data = item.get("data")
        if isinstance(data, dict) and all(isinstance(v, str) for v in data.values()):
            for k, v in data.items():
                state.connection_details[k] = _lenient_b64(v)
    elif kind in ("ExtraResources", "RequiredResources"):
        _requirements(state, item, kind, behaviour)
    elif kind == "Conditions":
        state.conditions = _list_at(item, "conditions", "cannot get condition resources")
    elif kind == "Events":
        state.events = _list_at(item, "events", "cannot get event resources")
    else:  # Context
        data = item.get("data")
        if data is not None and not isinstance(data, dict):
            raise ProcessError(
                f"cannot get context resource: json: cannot unmarshal {_json_kind(data)} into Go value of type "
                "map[string]interface {}"
            )
        state.context.update(data or {})


def _lenient_b64(text: str) -> bytes:
    """Go's ``base64.StdEncoding.DecodeString`` with its error ignored: the bytes decoded before a bad one."""
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        good = b""
        for i in range(0, len(text) - len(text) % 4, 4):
            try:
                good += base64.b64decode(text[i : i + 4], validate=True)
            except (binascii.Error, ValueError):
                break
        return good


def _list_at(item: Mapping[str, Any], key: str, what: str) -> list[dict[str, Any]]:
    value = item.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise ProcessError(f"{what}: json: cannot unmarshal {_json_kind(value)} into the {key} list")
    return value


def _requirements(state: State, item: Mapping[str, Any], kind: str, behaviour: Behaviour) -> None:
    extra = kind == "ExtraResources"
    label = "extra" if extra else "required"
    reqs = item.get("requirements")
    if reqs is not None and not isinstance(reqs, dict):
        raise ProcessError(
            f"cannot get {label} resources requirements: json: cannot unmarshal {_json_kind(reqs)} into Go value of "
            f"type resource.{'Extra' if extra else 'Required'}ResourcesRequirements"
        )
    into = state.extra_resources if extra else state.required_resources
    for key, req in (reqs or {}).items():
        if key in into:
            raise ProcessError(f"duplicate {label} resource key {_go_quote(key)}")
        into[key] = _selector(req if isinstance(req, dict) else {}, extra=extra, behaviour=behaviour)


def _selector(req: Mapping[str, Any], *, extra: bool, behaviour: Behaviour) -> dict[str, Any]:
    """``ToResourceSelector``: a name selects by name, else the labels (none: match every resource)."""
    out: dict[str, Any] = {"api_version": _str(req, "apiVersion"), "kind": _str(req, "kind")}
    namespace = _str(req, "matchNamespace" if extra else "namespace")
    if namespace and (behaviour.extra_namespace or not extra):
        out["namespace"] = namespace
    name = _str(req, "matchName" if extra else "name")
    if name:
        out["match_name"] = name
    else:
        labels = req.get("matchLabels")
        out["match_labels"] = {str(k): str(v) for k, v in labels.items()} if isinstance(labels, dict) else {}
    return out


def _set_data(
    data: Any, path: str, obj: dict[str, Any], *, xr: bool, behaviour: Behaviour, wrap: str
) -> None:
    """``SetData``: write every leaf of ``data`` at its field path into ``obj`` (upstream's path building)."""
    if isinstance(data, dict):
        wrapped = path.endswith((".metadata.annotations", ".metadata.labels"))
        for key, value in data.items():
            _set_data(
                value,
                f"{path}[{key}]" if wrapped else f"{path}.{key}",
                obj,
                xr=xr,
                behaviour=behaviour,
                wrap=wrap,
            )
        return
    if isinstance(data, list):
        for i, value in enumerate(data):
            _set_data(value, f"{path}[{i}]", obj, xr=xr, behaviour=behaviour, wrap=wrap)
        return
    path = path.removeprefix(".")
    if not xr and path in ("apiVersion", "kind", "metadata.name"):
        return
    try:
        fieldpath.get_value(obj, path)
    except errors.FieldNotFoundError as exc:
        if not behaviour.missing_elements_unset and "no such field" not in str(exc):
            raise ProcessError(f"{wrap}: getting {path}:{_go_s(data)} in xr failed: {exc}") from exc
    except errors.FieldPathError as exc:
        raise ProcessError(f"{wrap}: getting {path}:{_go_s(data)} in xr failed: {exc}") from exc
    try:
        fieldpath.set_value(obj, path, data)
    except errors.FieldPathError as exc:
        raise ProcessError(f"{wrap}: setting {path}:{_go_s(data)} in dxr failed: {exc}") from exc


def _go_s(value: object) -> str:
    """Go's ``%s`` of a JSON leaf (yaml.v2 decodes integers as Go ``int``)."""
    return fmt.sprintf("%s", value).replace("int64=", "int=")
