"""status-transformer: set XR conditions and events from composed resources' conditions, as function-status-transformer.

Input: ``function-status-transformer.fn.crossplane.io/v1beta1``
``StatusTransformation`` with ``statusConditionHooks``. A hook fires when all
its matchers match; a matcher picks resources (observed composed resources
whose name its unanchored regular expressions match; the XR with
``includeCompositeAsResource``, v0.4.0 on; extra resources from function-
extra-resources' context key with ``includeExtraResources``, v0.5.0 on) and
conditions (type; status, reason and a message regular expression, each
optional), combined by ``type`` (``AllResourcesMatchAllConditions`` by
default). A firing hook appends ``setConditions`` (unless a condition of
that type was already set and ``force`` is not true) and ``createEvents``
(results), their messages templated with the groups the message expressions
captured (``_message``).

Every run ends with a ``StatusTransformationSuccess`` condition: ``True``
(``Available``) when nothing failed, else one ``False`` condition per failure
(``InputFailure``, ``MatchFailure``, ``SetConditionFailure``), with
upstream's messages. Releases (``_release``): v0.1.0 to v0.3.0 (no XR or extra-resources
matching), v0.4.x (the XR), v0.5.x (extra resources); the input is decoded
strictly (unknown fields rejected) in all of them.

Upstream iterates Go maps, so which resource's groups an ``Any...`` matcher
captures when several match is random there; here resources are taken in name
order (docs/compatibility.md).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from crossfn import errors
from crossfn.functions import _registry
from crossfn.functions.status_transformer import _input, _message, _release
from crossfn.gocompat import regexp, values
from crossfn.gocompat import template as gotemplate
from crossfn.gocompat import time as gotime
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource

__all__ = ["StatusTransformer", "compose"]

SUCCESS = "StatusTransformationSuccess"
_COMPOSITE_KEY = "function-status-transformer.reserved-keys.composite-resource"
_EXTRA_KEY = "apiextensions.crossplane.io/extra-resources"
_STATUS = {"True": fnv1.STATUS_CONDITION_TRUE, "False": fnv1.STATUS_CONDITION_FALSE}


class _MatchError(Exception):
    pass


@dataclasses.dataclass(frozen=True)
class _Condition:
    type: str
    status: str
    reason: str = ""
    message: str = ""


def _conditions(obj: Mapping[str, Any]) -> list[Mapping[str, Any]] | None:
    """``status.conditions`` as crossplane-runtime decodes it into ConditionedStatus; None when that fails."""
    status = obj.get("status")
    if status is None:
        return []
    if not isinstance(status, Mapping):
        return None
    conds = status.get("conditions")
    if conds is None:
        return []
    if not isinstance(conds, list):
        return None
    for c in conds:
        if c is None:
            continue
        if not isinstance(c, Mapping):
            return None
        for key in ("type", "status", "reason", "message"):
            if c.get(key) is not None and not isinstance(c[key], str):
                return None
        when = c.get("lastTransitionTime")
        if when is not None:
            if not isinstance(when, str):
                return None
            try:
                gotime.parse_rfc3339(when)
            except errors.GoError:
                return None
        gen = c.get("observedGeneration")
        if gen is not None and (isinstance(gen, bool) or not isinstance(gen, int | float)):
            return None
    return [c for c in conds if c is not None]


def get_condition(obj: Mapping[str, Any], ctype: str) -> _Condition:
    """crossplane-runtime's GetCondition: the first condition of ``ctype``, else Unknown."""
    for c in _conditions(obj) or []:
        if c.get("type", "") == ctype:
            return _Condition(ctype, c.get("status") or "", c.get("reason") or "", c.get("message") or "")
    return _Condition(ctype, "Unknown")


def _match(cm: _input.ConditionMatcher, obj: Mapping[str, Any]) -> dict[str, str] | None:
    """The groups one condition matcher captured on ``obj``, or None when it does not match."""
    c = get_condition(obj, cm.type)
    if cm.reason is not None and cm.reason != c.reason:
        return None
    if cm.status is not None and cm.status != c.status:
        return None
    if cm.message is None:
        return {}
    try:
        rx = regexp.compile(cm.message)
    except errors.GoError as exc:
        raise _MatchError(f"cannot compile message regex: {exc}") from exc
    found = rx.find_string_submatch(c.message)
    if not found:
        return None
    names = rx.subexp_names
    return {names[i]: found[i] for i in range(1, len(found))}


def _any_any(cms: list[_input.ConditionMatcher], rs: Mapping[str, Any]) -> dict[str, str] | None:
    for obj in rs.values():
        for cm in cms:
            groups = _match(cm, obj)
            if groups is not None:
                return groups
    return None


def _any_all(cms: list[_input.ConditionMatcher], rs: Mapping[str, Any]) -> dict[str, str] | None:
    captured: dict[str, str] = {}  # sic: groups of resources that fell short are kept, as upstream
    for obj in rs.values():
        matched = 0
        for cm in cms:
            groups = _match(cm, obj)
            if groups is None:
                break
            matched += 1
            captured.update(groups)
        if matched == len(cms):
            return captured
    return None


def _all_any(cms: list[_input.ConditionMatcher], rs: Mapping[str, Any]) -> dict[str, str] | None:
    captured: dict[str, str] = {}
    for obj in rs.values():
        matched = 0
        for cm in cms:
            groups = _match(cm, obj)
            if groups is None:
                continue
            matched += 1
            captured.update(groups)
        if matched == 0:
            return None
    return captured


def _all_all(cms: list[_input.ConditionMatcher], rs: Mapping[str, Any]) -> dict[str, str] | None:
    captured: dict[str, str] = {}
    for obj in rs.values():
        for cm in cms:
            groups = _match(cm, obj)
            if groups is None:
                return None
            captured.update(groups)
    return captured


_MODES = {
    "AnyResourceMatchesAnyCondition": _any_any,
    "AnyResourceMatchesAllConditions": _any_all,
    "AllResourcesMatchAnyCondition": _all_any,
}


def _extra_resources(context: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """function-extra-resources' objects from the context, each with its ``into`` key."""
    if _EXTRA_KEY not in context:
        return []
    found = context[_EXTRA_KEY]
    if not isinstance(found, Mapping):
        raise _MatchError(f"unexpected extra-resources type: {values.type_name(found)}")
    out: list[tuple[str, Mapping[str, Any]]] = []
    for into, items in found.items():
        if not isinstance(items, list):
            raise _MatchError(f"unexpected extra-resources value type for {into}: {values.type_name(items)}")
        for i, item in enumerate(items):
            if not isinstance(item, Mapping):
                raise _MatchError(
                    f"unexpected extra-resources value type for {into} [{i}]: {values.type_name(item)}"
                )
            out.append((into, item))
    return out


def _extra_key(into: str, obj: Mapping[str, Any]) -> str:
    api = obj.get("apiVersion") if isinstance(obj.get("apiVersion"), str) else ""
    group = str(api).rpartition("/")[0] if "/" in str(api) else ""
    found = obj.get("metadata")
    meta: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    kind = obj.get("kind") if isinstance(obj.get("kind"), str) else ""
    ns, name = meta.get("namespace"), meta.get("name")
    parts = [
        "extra-resource",
        into,
        group,
        str(kind),
        ns if isinstance(ns, str) else "",
        name if isinstance(name, str) else "",
    ]
    return ".".join(parts)


class StatusTransformer:
    """function-status-transformer as release ``release`` (``v0.5.1``, the built-in, by default)."""

    def __init__(self, release: str = "v0.5.1") -> None:
        version = _registry.parse_version(release)
        if version is None:
            raise ValueError(f"not a release tag: {release!r}")
        self._release = _release.Release(version)
        self._composite = self._release.matches_composite
        self._extra = self._release.matches_extra_resources

    def __call__(self, req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        try:
            inp = _input.decode(req, self._release)
        except errors.FunctionInputError as exc:
            _condition_false(rsp, "InputFailure", str(exc))
            return
        xr = resource.struct_to_dict(req.observed.composite.resource, integers=False)
        observed = {
            k: resource.struct_to_dict(v.resource, integers=False) for k, v in req.observed.resources.items()
        }
        context = resource.struct_to_dict(req.context, integers=False)
        errored = False
        set_types: set[str] = set()
        extra: list[tuple[str, Mapping[str, Any]]] | None = None
        for hi, hook in enumerate(inp.hooks):
            groups: dict[str, str] = {}
            all_matched = False
            for mi, m in enumerate(hook.matchers):
                if self._extra and m.include_extra and extra is None:
                    try:
                        extra = _extra_resources(context)
                    except _MatchError as exc:
                        _condition_false(rsp, "InputFailure", f"cannot load extra-resources: {exc}")
                        return
                try:
                    got = self._match_resources(m, observed, xr, extra or [])
                except _MatchError as exc:
                    _condition_false(
                        rsp,
                        "MatchFailure",
                        f"cannot match resources, statusConditionHookIndex: {hi}, matchConditionIndex: {mi}: {exc}",
                    )
                    errored, got = True, None
                if got is None:
                    all_matched = False
                    break
                all_matched = True
                groups.update(got)
            if not all_matched:
                continue
            errored = self._set_conditions(rsp, hi, hook, groups, set_types) or errored
            errored = self._create_events(rsp, hi, hook, groups) or errored
        if not errored:
            rsp.conditions.add(
                type=SUCCESS,
                status=fnv1.STATUS_CONDITION_TRUE,
                reason="Available",
                target=fnv1.TARGET_COMPOSITE,
            )

    def _match_resources(
        self,
        m: _input.Matcher,
        observed: Mapping[str, Mapping[str, Any]],
        xr: Mapping[str, Any],
        extra: list[tuple[str, Mapping[str, Any]]],
    ) -> dict[str, str] | None:
        rs: dict[str, Mapping[str, Any]] = {}
        for i, rm in enumerate(m.resources):
            try:
                rx = regexp.compile(rm)
            except errors.GoError as exc:
                raise _MatchError(f"cannot compile resource key regex, resourcesIndex: {i}: {exc}") from exc
            rs.update({k: v for k, v in observed.items() if rx.match_string(k)})
            if self._extra and m.include_extra:
                for into, obj in extra:
                    key = _extra_key(into, obj)
                    if rx.match_string(key):
                        rs[key] = obj
        if self._composite and m.include_composite:
            rs[_COMPOSITE_KEY] = xr
        if not rs or not m.conditions:
            return None
        mode = _MODES.get(m.type or "", _all_all)
        return mode(list(m.conditions), dict(sorted(rs.items())))

    def _set_conditions(
        self,
        rsp: fnv1.RunFunctionResponse,
        hi: int,
        hook: _input.Hook,
        groups: Mapping[str, str],
        set_types: set[str],
    ) -> bool:
        errored = False
        for si, sc in enumerate(hook.set_conditions):
            if sc.type in set_types and not sc.force:
                continue
            try:
                message = _templated(sc.message, groups, self._release.go)
            except errors.GoError as exc:
                _condition_false(
                    rsp,
                    "SetConditionFailure",
                    f"cannot set condition, statusConditionHookIndex: {hi}, setConditionIndex: {si}: {exc}",
                )
                errored = True
                continue
            c = rsp.conditions.add(
                type=sc.type,
                status=_STATUS.get(sc.status, fnv1.STATUS_CONDITION_UNKNOWN),
                reason=sc.reason,
                target=_target(sc.target),
            )
            if message is not None:
                c.message = message
            set_types.add(sc.type)
        return errored

    def _create_events(
        self, rsp: fnv1.RunFunctionResponse, hi: int, hook: _input.Hook, groups: Mapping[str, str]
    ) -> bool:
        errored = False
        for ei, ev in enumerate(hook.events):
            where = f"cannot create event, statusConditionHookIndex: {hi}, createEventIndex: {ei}"
            kind = "Normal" if ev.type is None else ev.type
            if kind not in ("Normal", "Warning"):
                _condition_false(
                    rsp,
                    "SetConditionFailure",
                    f"{where}: invalid type {kind}, must be one of [Normal, Warning]",
                )
                errored = True
                continue
            try:
                message = _templated(ev.message, groups, self._release.go) or ""
            except errors.GoError as exc:
                _condition_false(rsp, "SetConditionFailure", f"{where}: {exc}")
                errored = True
                continue
            r = rsp.results.add(
                severity=fnv1.SEVERITY_NORMAL if kind == "Normal" else fnv1.SEVERITY_WARNING,
                message=message,
                target=_target(ev.target),
            )
            if ev.reason is not None:
                r.reason = ev.reason
        return errored


def _templated(message: str | None, groups: Mapping[str, str], go: gotemplate.GoRelease) -> str | None:
    if message is None or not groups:
        return message
    return _message.render(message, groups, go)


def _target(t: str | None) -> fnv1.Target.ValueType:
    return fnv1.TARGET_COMPOSITE_AND_CLAIM if t == "CompositeAndClaim" else fnv1.TARGET_COMPOSITE


def _condition_false(rsp: fnv1.RunFunctionResponse, reason: str, message: str) -> None:
    rsp.conditions.add(
        type=SUCCESS,
        status=fnv1.STATUS_CONDITION_FALSE,
        reason=reason,
        message=message,
        target=fnv1.TARGET_COMPOSITE,
    )


compose = StatusTransformer()
"""function-status-transformer v0.5.0 and v0.5.1."""

v0_4_1 = StatusTransformer("v0.4.1")
"""v0.4.1: the XR can be matched, extra resources cannot."""

v0_4_0 = StatusTransformer("v0.4.0")
"""v0.4.0: as v0.4.1, built with Go 1.23."""

v0_3_0 = StatusTransformer("v0.3.0")
"""v0.2.0 to v0.3.0: composed resources only."""

v0_1_0 = StatusTransformer("v0.1.0")
"""v0.1.0: as v0.3.0, built with Go 1.21."""
