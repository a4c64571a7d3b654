"""go-templating: compose resources with Go templates, as function-go-templating does, byte for byte.

Input: ``gotemplating.fn.crossplane.io/v1beta1`` ``GoTemplate`` (:mod:`._input`):
``source`` ``Inline`` (``inline.template``), ``FileSystem`` (every file under
``fileSystem.dirPath``) or ``Environment`` (a key of the pipeline's
environment), optional ``delims`` and ``options``. The template runs on the
whole request as a map (:mod:`._data`) with Go's ``text/template``
(:mod:`crossfn.gocompat.template`, as the Go release that built the function),
Sprig's functions and the function's own (:mod:`._functions`). Its output is
read back as YAML (or JSON) documents (:mod:`._manifests`), each of which is:

* a composed resource, named by its
  ``gotemplating.fn.crossplane.io/composition-resource-name`` annotation
  (required), made ready or not by ``gotemplating.fn.crossplane.io/ready``
  (``True``, ``False``, ``Unspecified``); both annotations are removed;
* the XR (its apiVersion and kind, no name annotation): its ``status`` is merged
  into the desired XR's (mergo's override merge), and from v0.12.0 its ready
  annotation sets the desired XR's readiness;
* a ``meta.gotemplating.fn.crossplane.io/v1alpha1`` object:
  ``CompositeConnectionDetails`` (base64 ``data`` into the XR's connection
  details), ``ExtraResources`` (``requirements``), ``Context`` (``data`` merged
  into the pipeline context), ``ClaimConditions`` (``conditions``), as far as
  the release has them.

Every failure is a Fatal result with upstream's text (``cannot execute
template: template: manifests:3:7: executing "manifests" at <.x.y>: ...``).
:class:`GoTemplating` runs as one upstream release (:mod:`._release`);
:data:`compose` is the newest, and an object per group of releases that behave
alike stands in for the others (``crossfn.functions._releases.go_templating``).

Deliberate differences (docs/compatibility.md): output and work are bounded
(:class:`crossfn.gocompat.template.ExecLimits`); ``randomChoice`` and Sprig's
random functions cannot reproduce Go's random numbers; a release that crashed
on an input (v0.2.x without ``inline`` or ``fileSystem``) reports a Fatal
result instead.
"""

from __future__ import annotations

import base64
import dataclasses
import os
import random
from collections.abc import Mapping
from typing import Any

from crossfn import errors
from crossfn.functions import _files, _gosdk
from crossfn.functions.go_templating import _data, _functions, _input, _manifests
from crossfn.functions.go_templating._release import CURRENT, Release
from crossfn.gocompat import base64 as gobase64
from crossfn.gocompat import fmt, gofunc, sprig
from crossfn.gocompat import jsonstruct as js
from crossfn.gocompat import template as gotemplate
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import fieldpath, resource, response

__all__ = ["GoTemplating", "Release", "compose"]  # and one object per group of releases (v0_11_5, ...)

META_API_VERSION = "meta.gotemplating.fn.crossplane.io/v1alpha1"
READY_ANNOTATION = "gotemplating.fn.crossplane.io/ready"
NAME_ANNOTATION = _functions.NAME_ANNOTATION
_READY = {"True": fnv1.READY_TRUE, "False": fnv1.READY_FALSE, "Unspecified": fnv1.READY_UNSPECIFIED}
_RESERVED_CONDITIONS = frozenset({"Ready", "Synced", "Healthy"})


def _dict(s: Any) -> dict[str, Any]:
    return resource.struct_to_dict(s)


def _string_field(obj: Mapping[str, Any], key: str) -> str:
    v = obj.get(key)
    return v if isinstance(v, str) else ""


def _annotations(obj: Mapping[str, Any]) -> dict[str, str] | None:
    """``GetAnnotations()``: the annotations when they are a map of strings, else None (Go ignores the error)."""
    meta = obj.get("metadata")
    if not isinstance(meta, dict):
        return None
    found = meta.get("annotations")
    if not isinstance(found, dict) or not all(isinstance(v, str) for v in found.values()):
        return None
    return found


def _remove_annotation(obj: dict[str, Any], key: str) -> None:
    """crossplane-runtime's ``meta.RemoveAnnotations``: an emptied map stays, as ``annotations: {}``."""
    annotations = _annotations(obj)
    if annotations is None:
        return
    annotations.pop(key, None)


def _get_into_map(obj: Any, path: str, what: str) -> tuple[dict[str, Any] | None, bool]:
    """``GetValueInto(path, &map)``: the map (None for a JSON null) and whether the path exists.

    Raises :class:`_gosdk.Fatal` with ``<what>: <error>`` when the value is not an object.
    """
    try:
        value = fieldpath.json_round_trip(fieldpath.get_value(obj, path))
    except errors.FieldNotFoundError:
        return None, False
    except errors.CrossfnError as exc:
        raise _gosdk.Fatal(f"{what}: {exc}") from exc
    if value is not None and not isinstance(value, dict):
        raise _gosdk.Fatal(
            f"{what}: cannot unmarshal value from JSON: json: cannot unmarshal {_json_kind(value)} "
            "into Go value of type map[string]interface {}"
        )
    return value, True


def _json_kind(v: Any) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int | float):
        return "number"
    if isinstance(v, str):
        return "string"
    return "array"


def _merge(dst: dict[str, Any], src: Mapping[str, Any]) -> None:
    """``mergo.Merge(&dst, src, mergo.WithOverride)`` on JSON values: maps merge, anything else replaces."""
    for key, s in src.items():
        if isinstance(s, dict):
            d = dst.get(key)
            if isinstance(d, dict):
                _merge(d, s)
                if d:
                    continue
            dst[key] = s
        else:
            dst[key] = s


def _get_into(obj: Any, path: str, schema: js.Type, what: str) -> Any:
    """``GetValueInto(path, &typed)`` decoded leniently into ``schema``; a missing path or a bad value is
    :class:`_gosdk.Fatal` (``<what>: <error>``)."""
    try:
        value = fieldpath.json_round_trip(fieldpath.get_value(obj, path))
    except errors.CrossfnError as exc:
        raise _gosdk.Fatal(f"{what}: {exc}") from exc
    try:
        return js.decode_value(value, schema, decoder=js.LENIENT)
    except errors.GoError as exc:
        raise _gosdk.Fatal(f"{what}: cannot unmarshal value from JSON: {exc}") from exc


_LABELS = js.Map(js.STRING)


def _requirement_schema(r: Release) -> js.Type:
    fields: dict[str, js.Type] = {
        "apiVersion": js.STRING,
        "kind": js.STRING,
        "matchLabels": _LABELS,
        "matchName": js.STRING,
    }
    if r.namespaced_requirements:
        fields["namespace"] = js.STRING
    return js.Map(js.Struct("main.ExtraResourcesRequirement", fields))


def _claim_condition_schema(r: Release) -> js.Type:
    fields: dict[str, js.Type] = {
        "type": js.Scalar("string", "v1.ConditionType"),
        "status": js.Scalar("string", "v1.ConditionStatus"),
        "lastTransitionTime": js.ANY,
        "reason": js.Scalar("string", "v1.ConditionReason"),
        "message": js.STRING,
        "target": js.Scalar("string", "main.CompositionTarget"),
    }
    if r.condition_has_observed_generation:
        fields["observedGeneration"] = js.ANY
    return js.Slice(js.Struct("main.TargetedCondition", fields))


def _selector(req: Mapping[str, Any], r: Release) -> fnv1.ResourceSelector:
    """``ToResourceSelector``: by name when ``matchName`` is set (with its namespace), else by labels."""
    sel = fnv1.ResourceSelector(api_version=str(req.get("apiVersion", "")), kind=str(req.get("kind", "")))
    name = str(req.get("matchName", "") or "")
    if not name:
        sel.match_labels.labels.update({k: str(v) for k, v in (req.get("matchLabels") or {}).items()})
        sel.match_labels.SetInParent()
        return sel
    sel.match_name = name
    namespace = str(req.get("namespace", "") or "")
    if r.namespaced_requirements and namespace:
        sel.namespace = namespace
    return sel


@dataclasses.dataclass
class _State:
    """What one run builds up before it writes the response."""

    xr: dict[str, Any]
    xr_connection: dict[str, bytes]
    xr_ready: fnv1.Ready.ValueType
    composed: dict[str, tuple[dict[str, Any], fnv1.Ready.ValueType]]
    extra: dict[str, fnv1.ResourceSelector]
    resources: dict[str, fnv1.ResourceSelector]


class GoTemplating:
    """function-go-templating as release ``release`` behaves; call it as ``compose(req, rsp)``.

    ``rng`` draws ``randomChoice``'s (and Sprig's) random choices, seeded from the clock by default as
    upstream's are; ``default_source`` is the directory v0.12.0 reads when the input names no source
    (by default the ``FUNCTION_GO_TEMPLATING_DEFAULT_SOURCE`` environment variable, as upstream's flag).
    ``files`` bounds what a FileSystem source reads (the controller's); ``None`` reads what the process can.
    """

    def __init__(
        self,
        release: Release = CURRENT,
        *,
        rng: random.Random | None = None,
        default_source: str | None = None,
        limits: gotemplate.ExecLimits | None = None,
        files: _files.FileAccess | None = None,
    ) -> None:
        self.release = release
        self._rng = rng
        self._default_source = default_source
        self._limits = limits
        self._files = files
        self._sprig: dict[str, gofunc.Func] | None = None

    def with_file_access(self, files: _files.FileAccess) -> GoTemplating:
        """The same function reading only what ``files`` allows (how the controller runs it)."""
        return GoTemplating(
            self.release, rng=self._rng, default_source=self._default_source, limits=self._limits, files=files
        )

    def __call__(self, req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        """Render the input's templates on ``req`` into ``rsp``'s desired state, results and context."""
        target = fnv1.TARGET_COMPOSITE if self.release.results_target_composite else None
        try:
            self._run(req, rsp)
        except _gosdk.Fatal as exc:
            response.fatal(rsp, str(exc), target=target)
        except errors.FunctionInputError as exc:
            response.fatal(rsp, str(exc), target=target)

    # --- the steps of RunFunction -----------------------------------------------------------

    def _template(self, req: fnv1.RunFunctionRequest) -> gotemplate.Template:
        r = self.release
        inp = _input.decode(req, r)
        if r.has_v0_12_input:
            default = self._default_source
            if default is None:
                default = os.environ.get(_input.DEFAULT_SOURCE_ENV, "")
            inp = _input.with_default_source(inp, default)
        try:
            text = _input.template_text(inp, r, _dict(req.context), self._files)
        except _input.InputPanic as exc:
            raise _gosdk.Fatal(
                f"function-go-templating {r.tag} crashes on this input ({exc}): "
                "panic: runtime error: invalid memory address or nil pointer dereference"
            ) from exc
        except errors.GoError as exc:
            raise _gosdk.Fatal(f"invalid function input: {exc}") from exc
        tmpl = gotemplate.Template("manifests", release=r.go, limits=self._limits)
        delims = inp.delims or {}
        if r.has_delims and "left" in delims and "right" in delims:
            tmpl.delims(str(delims["left"]), str(delims["right"]))
        rng = self._rng or random.Random()
        tmpl.funcs(_functions.function_map(r, tmpl, rng))
        if self._sprig is None:
            self._sprig = _sprig(r, self._rng or random.SystemRandom())
        tmpl.funcs(self._sprig)
        try:
            tmpl.parse(text)
        except errors.GoError as exc:
            raise _gosdk.Fatal(f"invalid function input: cannot parse the provided templates: {exc}") from exc
        if inp.options is not None:
            try:
                tmpl.option(*inp.options)
            except gotemplate.OptionError as exc:
                raise _gosdk.Fatal(
                    f"cannot apply template options: panic occurred while applying template options: {exc}"
                ) from exc
        return tmpl

    def _run(self, req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        r = self.release
        tmpl = self._template(req)
        data = _data.request_map(req, r)
        try:
            text = tmpl.execute(data)
        except errors.GoError as exc:
            raise _gosdk.Fatal(f"cannot execute template: {exc}") from exc
        objs = []
        try:
            for obj in _manifests.decode(text, r):
                if r.checks_annotations:
                    problem = _manifests.annotation_error(obj)
                    if problem is not None:
                        raise _gosdk.Fatal(_annotation_message(obj, problem))
                objs.append(obj)
        except errors.GoError as exc:
            raise _gosdk.Fatal(f"cannot decode manifest: {exc}") from exc
        state = _State(
            xr=_dict(req.desired.composite.resource),
            xr_connection=dict(req.desired.composite.connection_details),
            xr_ready=fnv1.READY_UNSPECIFIED,
            composed={name: (_dict(d.resource), d.ready) for name, d in req.desired.resources.items()},
            extra={},
            resources={},
        )
        observed_xr = _dict(req.observed.composite.resource)
        context = _Context(req)
        for obj in objs:
            self._apply(obj, state, observed_xr, context, rsp)
        _write(rsp, state, r)
        if r.resources_to_context:
            context.add_resources(req, rsp)

    def _apply(
        self,
        obj: dict[str, Any],
        state: _State,
        observed_xr: Mapping[str, Any],
        context: _Context,
        rsp: fnv1.RunFunctionResponse,
    ) -> None:
        """One rendered object (the loop body of RunFunction)."""
        r = self.release
        api_version, kind = _string_field(obj, "apiVersion"), _string_field(obj, "kind")
        is_meta = api_version == META_API_VERSION
        ready: fnv1.Ready.ValueType | None = None
        if r.ready_for_xr and not is_meta:
            ready = _ready(obj)
        annotations = _annotations(obj) or {}
        named = NAME_ANNOTATION in annotations
        is_xr = api_version == _string_field(observed_xr, "apiVersion") and kind == _string_field(
            observed_xr, "kind"
        )
        if is_xr and not (r.named_xr_is_composed and named):
            self._xr_status(obj, state)
            if ready is not None:
                state.xr_ready = ready
            return
        if is_meta:
            self._meta(obj, kind, state, context, rsp)
            return
        if not r.ready_for_xr:
            ready = _ready(obj)
        name = annotations.get(NAME_ANNOTATION)
        _remove_annotation(obj, NAME_ANNOTATION)
        if name is None:
            raise _gosdk.Fatal(f'"{kind}" template is missing required "{NAME_ANNOTATION}" annotation')
        state.composed[name] = (obj, ready if ready is not None else fnv1.READY_UNSPECIFIED)

    def _xr_status(self, obj: dict[str, Any], state: _State) -> None:
        dst, dst_exists = _get_into_map(state.xr, "status", "cannot get desired composite status")
        src, src_exists = _get_into_map(obj, "status", "cannot get templated composite status")
        if self.release.status_only_when_present and not (dst_exists or src_exists):
            return
        # Go starts both as empty maps; a JSON null found at the path makes one nil.
        if dst_exists and dst is None and src_exists and src is None:
            state.xr["status"] = None  # two nil maps: mergo leaves the nil map, which JSON writes as null
            return
        merged = dst if dst is not None else {}
        _merge(merged, src or {})
        state.xr["status"] = merged

    def _meta(
        self,
        obj: dict[str, Any],
        kind: str,
        state: _State,
        context: _Context,
        rsp: fnv1.RunFunctionResponse,
    ) -> None:
        r = self.release
        if kind not in r.meta_kinds:
            raise _gosdk.Fatal(
                f'invalid kind "{kind}" for apiVersion "{META_API_VERSION}" - {r.invalid_kind_hint}'
            )
        if kind == "CompositeConnectionDetails":
            data = obj.get("data")
            if isinstance(data, dict) and all(isinstance(v, str) for v in data.values()):
                for k, v in data.items():
                    state.xr_connection[k] = gobase64.std_decode_prefix(v)
        elif kind == "ClaimConditions":
            conditions = _get_into(
                obj, "conditions", _claim_condition_schema(r), "cannot get Conditions from input"
            )
            _claim_conditions(conditions or [], rsp)
        elif kind == "Context":
            found = _get_into(obj, "data", js.Map(js.ANY), "cannot get Contexts from input")
            context.merge(found or {}, rsp)
        else:
            reqs = _get_into(
                obj, "requirements", _requirement_schema(r), "cannot get extra resources requirements"
            )
            for key, found_req in (reqs or {}).items():
                v = found_req or {}
                if key in state.extra:
                    raise _gosdk.Fatal(f'duplicate extra resource key "{key}"')
                if r.namespaced_requirements:
                    state.resources[key] = _selector(v, r)
                    if not v.get("namespace"):
                        state.extra[key] = _selector(v, r)
                else:
                    state.extra[key] = _selector(v, r)


def _ready(obj: dict[str, Any]) -> fnv1.Ready.ValueType | None:
    """The ready annotation's state (removed from the object); None without one."""
    annotations = _annotations(obj)
    if annotations is None or READY_ANNOTATION not in annotations:
        return None
    value = annotations[READY_ANNOTATION]
    if value not in _READY:
        raise _gosdk.Fatal(
            f'invalid function input: invalid "{READY_ANNOTATION}" annotation value "{value}": '
            "must be True, False, or Unspecified"
        )
    _remove_annotation(obj, READY_ANNOTATION)
    return _READY[value]


def _annotation_message(obj: Mapping[str, Any], problem: str) -> str:
    api_version, kind = _string_field(obj, "apiVersion"), _string_field(obj, "kind")
    group, version = _group_version(api_version)
    meta = obj.get("metadata")
    found = meta.get("annotations") if isinstance(meta, dict) else None
    name = found.get(NAME_ANNOTATION) if isinstance(found, dict) else None
    return f"invalid annotations in resource '{group}/{version}, Kind={kind} resource-name={fmt.sprint(name)}': {problem}"


def _group_version(api_version: str) -> tuple[str, str]:
    """``schema.ParseGroupVersion`` (an unparseable one is empty)."""
    if not api_version:
        return "", ""
    parts = api_version.split("/")
    if len(parts) == 1:
        return "", api_version
    if len(parts) == 2:
        return parts[0], parts[1]
    return "", ""


def _claim_conditions(conditions: list[Any], rsp: fnv1.RunFunctionResponse) -> None:
    for found in conditions:
        c = found or {}
        ctype = str(c.get("type", ""))
        if ctype in _RESERVED_CONDITIONS:
            raise _gosdk.Fatal(f"cannot set ClaimCondition type: {ctype} is a reserved Crossplane Condition")
        status = {"True": fnv1.STATUS_CONDITION_TRUE, "False": fnv1.STATUS_CONDITION_FALSE}.get(
            str(c.get("status", "")), fnv1.STATUS_CONDITION_UNKNOWN
        )
        target = (
            fnv1.TARGET_COMPOSITE_AND_CLAIM
            if c.get("target") == "CompositeAndClaim"
            else fnv1.TARGET_COMPOSITE
        )
        out = rsp.conditions.add(type=ctype, status=status, reason=str(c.get("reason", "")), target=target)
        message = str(c.get("message", "") or "")
        if message:
            out.message = message


class _Context:
    """The response's context as upstream changes it: ``rsp.Context`` *is* the request's when there is one,
    so a later step (another Context document, the extra resources) sees earlier changes."""

    def __init__(self, req: fnv1.RunFunctionRequest) -> None:
        self.shared = req.HasField("context")
        self.view: dict[str, Any] = _dict(req.context) if self.shared else {}

    def merge(self, data: Mapping[str, Any], rsp: fnv1.RunFunctionResponse) -> None:
        merged = {k: fieldpath.json_round_trip(v) for k, v in self.view.items()}
        if data:
            _merge(merged, data)
        for key, value in merged.items():
            self.set(rsp, key, value)

    def set(self, rsp: fnv1.RunFunctionResponse, key: str, value: Any) -> None:
        response.set_context_key(rsp, key, value)
        if self.shared:
            self.view[key] = value

    def add_resources(self, req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        """v0.12.0: the request's extra, then required, resources under the extra-resources key, merged
        (top-level keys) over what the context had there."""
        for found in (req.extra_resources, req.required_resources):
            if not found:
                continue
            incoming = {name: _resources_json(rs) for name, rs in found.items()}
            existing = self.view.get(_functions.EXTRA_RESOURCES_KEY)
            merged = {**existing, **incoming} if isinstance(existing, dict) else incoming
            self.set(rsp, _functions.EXTRA_RESOURCES_KEY, merged)


def _resources_json(rs: fnv1.Resources) -> dict[str, Any]:
    """``encoding/json`` of a ``*fnv1.Resources`` (its fields' JSON tags: ``items``, ``connection_details``)."""
    if not rs.items:
        return {}
    items = []
    for item in rs.items:
        out: dict[str, Any] = {}
        if item.HasField("resource"):
            out["resource"] = _dict(item.resource)
        if item.connection_details:
            out["connection_details"] = {k: _b64(v) for k, v in item.connection_details.items()}
        if item.ready:
            out["ready"] = int(item.ready)
        items.append(out)
    return {"items": items}


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _write(rsp: fnv1.RunFunctionResponse, state: _State, r: Release) -> None:
    """``SetDesiredComposedResources``, ``SetDesiredCompositeResource``, then the requirements."""
    rsp.desired.ClearField("resources")
    for name, (obj, ready) in state.composed.items():
        out = rsp.desired.resources[name]
        out.resource.SetInParent()
        out.resource.CopyFrom(resource.dict_to_struct(obj))
        out.ready = ready
    xr = rsp.desired.composite
    xr.Clear()
    xr.resource.SetInParent()
    xr.resource.CopyFrom(resource.dict_to_struct(state.xr))
    for k, v in state.xr_connection.items():
        xr.connection_details[k] = v
    if r.has_required_resources:
        xr.ready = state.xr_ready
    if state.extra or state.resources:
        for key, sel in state.extra.items():
            rsp.requirements.extra_resources[key].CopyFrom(sel)
        for key, sel in state.resources.items():
            rsp.requirements.resources[key].CopyFrom(sel)


def _sprig(r: Release, rng: random.Random) -> dict[str, gofunc.Func]:
    """Sprig's functions at the release's Sprig and semver versions (without ``env`` and ``expandenv`` from
    v0.5.0; before, they read an empty environment, as the function's container has none of the user's)."""
    funcs = sprig.txt_func_map(r.sprig, semver=r.semver, sources=sprig.Sources(rand=rng))
    if r.removes_sprig_env:
        del funcs["env"], funcs["expandenv"]
    return funcs


def _at(tag: str) -> GoTemplating:
    major, minor, patch = (int(p) for p in tag[1:].split("."))
    return GoTemplating(Release((major, minor, patch)))


compose = GoTemplating()
"""The newest release (v0.12.2); v0.12.0 and v0.12.1 behave alike."""

v0_11_5 = _at("v0.11.5")
"""v0.11.5 to v0.11.9: built with Go 1.25 (comparison errors name the types)."""
v0_11_1 = _at("v0.11.1")
"""v0.11.1 to v0.11.4: built with Go 1.24 (``range`` over an integer)."""
v0_11_0 = _at("v0.11.0")
"""v0.11.0: the Environment source, getExtraResources, getCredentialData (Go 1.23)."""
v0_9_0 = _at("v0.9.0")
"""v0.9.0 to v0.10.1: protocol v1, ClaimConditions, Go 1.23 (``{{else with}}``)."""
v0_8_0 = _at("v0.8.0")
v0_7_0 = _at("v0.7.0")
v0_6_0 = _at("v0.6.0")
v0_5_0 = _at("v0.5.0")
v0_4_1 = _at("v0.4.1")
v0_4_0 = _at("v0.4.0")
v0_3_0 = _at("v0.3.0")
v0_2_2 = _at("v0.2.2")
v0_2_0 = _at("v0.2.0")
"""v0.2.0 and v0.2.1."""
