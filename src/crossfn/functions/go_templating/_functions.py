"""The template functions function-go-templating adds to Go's and Sprig's (``function_maps.go``).

Each is a :class:`~crossfn.gocompat.gofunc.Func` with the Go signature upstream
declares, so the template engine checks arguments as Go does. Which ones a
release has is :attr:`Release.functions`; Sprig's map comes from
:mod:`crossfn.gocompat.sprig` at the release's Sprig version (without ``env`` and
``expandenv`` from v0.5.0).

Reading a request map (``getComposedResource``, ``getExtraResources``...) is
crossplane-runtime's ``fieldpath.Pave(m).GetValueInto(path, &out)``: the value at
the path, through a JSON round trip, into the result type; anything that fails
(no such field, a value of another type) gives the type's nil.
"""

from __future__ import annotations

import base64
import random
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from crossfn import errors
from crossfn.functions.go_templating._release import Release
from crossfn.gocompat import gofunc, values, yaml_v3
from crossfn.gocompat import jsonstruct as js
from crossfn.gocompat import time as gotime
from crossfn.gocompat.template import Template, TypedNil
from crossfn.sdk import fieldpath

__all__ = ["EXTRA_RESOURCES_KEY", "NAME_ANNOTATION", "function_map"]

NAME_ANNOTATION = "gotemplating.fn.crossplane.io/composition-resource-name"
EXTRA_RESOURCES_KEY = "apiextensions.crossplane.io/extra-resources"
RECURSION_MAX = 1000
"""``include`` of one name nested deeper than this fails (``recursionMaxNums``)."""

_MAP = "map[string]interface {}"
_SLICE = "[]interface {}"


def _get_into(obj: Any, path: str, want: type) -> Any:
    """``GetValueInto(path, &out)`` with ``out`` a map (``want=dict``) or a slice (``want=list``); None when it fails.

    A JSON ``null`` decodes to the nil map or slice without error, which is None too.
    """
    try:
        value = fieldpath.json_round_trip(fieldpath.get_value(obj, path))
    except errors.CrossfnError:
        return None
    return value if isinstance(value, want) else None


def _plain(v: Any) -> Any:
    """A template value as Go's reflection sees it for marshalling: a nil map or slice as an empty one."""
    if isinstance(v, TypedNil):
        return {} if v.is_map else [] if v.go_type.startswith("[]") else None
    return v


# --- the functions --------------------------------------------------------------------------


def _random_choice(rng: random.Random) -> Callable[..., str]:
    def choose(*choices: str) -> str:
        if not choices:
            raise gofunc.Panic("invalid argument to Intn")
        return choices[rng.randrange(len(choices))]

    return choose


def _to_yaml(value: Any) -> str:
    return yaml_v3.marshal(_plain(value))


def _from_yaml(text: str) -> Any:
    return yaml_v3.unmarshal(text)


def _set_resource_name_annotation(name: str) -> str:
    return f"{NAME_ANNOTATION}: {name}"


def _get_composed_resource(r: Release) -> Callable[[Any, str], Any]:
    def get(req: Any, name: str) -> Any:
        path = (
            f"observed.resources[{name}]resource"
            if r.composed_path_brackets
            else f"observed.resources.{name}.resource"
        )
        return _get_into(_plain(req), path, dict)

    return get


def _get_composite_resource(req: Any) -> Any:
    return _get_into(_plain(req), "observed.composite.resource", dict)


def _get_extra_resources(r: Release) -> Callable[[Any, str], Any]:
    def get(req: Any, name: str) -> Any:
        req = _plain(req)
        if r.extra_resources_prefer_required:
            found = _get_into(req, f"requiredResources[{name}].items", list)
            if found is not None or _present(req, f"requiredResources[{name}].items"):
                return found
        return _get_into(req, f"extraResources[{name}].items", list)

    return get


def _present(obj: Any, path: str) -> bool:
    """Whether ``GetValueInto`` succeeds (a present null does, giving a nil slice)."""
    try:
        value = fieldpath.get_value(obj, path)
    except errors.CrossfnError:
        return False
    return value is None


def _get_extra_resources_from_context(req: Any, name: str) -> Any:
    return _get_into(_plain(req), f"context[{EXTRA_RESOURCES_KEY}][{name}].items", list)


_REQUEST_KEYS = frozenset(
    [
        "meta",
        "observed",
        "desired",
        "input",
        "context",
        "extraResources",
        "credentials",
        "requiredResources",
        "requiredSchemas",
    ]
)


def _get_credential_data(req: Any, name: str) -> Any:
    """The credential's data as ``map[string][]byte`` (``%s`` and Sprig's ``toString`` print a value as text,
    ``%v`` as its bytes, as in Go); nil when the map is no request or has no such data."""
    req = _plain(req)
    if not isinstance(req, Mapping) or not set(req) <= _REQUEST_KEYS:
        return None  # protojson.Unmarshal refuses a map that is not a RunFunctionRequest
    creds = req.get("credentials")
    cred = creds.get(name) if isinstance(creds, Mapping) else None
    source = cred.get("credentialData") if isinstance(cred, Mapping) else None
    if not isinstance(source, Mapping):
        return None
    data = source.get("data")
    out = values.GoMap(elem="[]uint8")
    for key, text in (data or {}).items() if isinstance(data, Mapping) else ():
        try:
            raw = base64.b64decode(str(text), validate=True)
        except ValueError:
            return None
        out[key] = values.GoSlice((values.Uint8(b) for b in raw), elem="uint8")
    return out


# --- getResourceCondition -------------------------------------------------------------------

_CONDITION_FIELDS: dict[str, js.Type] = {
    "type": js.Scalar("string", "v1.ConditionType"),
    "status": js.Scalar("string", "v1.ConditionStatus"),
    "lastTransitionTime": js.ANY,
    "reason": js.Scalar("string", "v1.ConditionReason"),
    "message": js.STRING,
    "observedGeneration": js.ANY,
}


def _conditions(status: Any, r: Release) -> list[dict[str, Any]] | None:
    """``status`` decoded into a ``ConditionedStatus`` (lenient JSON); None when Go's decoding fails."""
    fields = dict(_CONDITION_FIELDS)
    if not r.condition_has_observed_generation:
        del fields["observedGeneration"]
    schema = js.Struct("v1.ConditionedStatus", {"conditions": js.Slice(js.Struct("v1.Condition", fields))})
    if status is None:
        return []
    if not isinstance(status, Mapping):
        return None
    try:
        decoded = js.decode(status, schema, decoder=js.LENIENT)
    except errors.GoError:
        return None
    out: list[dict[str, Any]] = []
    for found in decoded.get("conditions", []) or []:
        c = found or {}
        when = c.get("lastTransitionTime")
        if when is not None:
            if not isinstance(when, str):
                return None
            try:
                gotime.parse("2006-01-02T15:04:05Z07:00", when)
            except errors.GoError:
                return None
        gen = c.get("observedGeneration")
        if gen is not None and not (
            isinstance(gen, int | float) and not isinstance(gen, bool) and float(gen).is_integer()
        ):
            return None
        out.append(c)
    return out


class _ConditionType(str, values.GoNamed):
    """crossplane-runtime's ``ConditionType``, a named string: not a ``string`` to a function's parameter."""

    __slots__ = ()
    go_type: ClassVar[str] = "v1.ConditionType"
    go_kind: ClassVar[str] = "string"


class _ConditionStatus(str, values.GoNamed):
    """``corev1.ConditionStatus``."""

    __slots__ = ()
    go_type: ClassVar[str] = "v1.ConditionStatus"
    go_kind: ClassVar[str] = "string"


class _ConditionReason(str, values.GoNamed):
    """crossplane-runtime's ``ConditionReason``."""

    __slots__ = ()
    go_type: ClassVar[str] = "v1.ConditionReason"
    go_kind: ClassVar[str] = "string"


class _MetaTime(values.GoNamed):
    """``metav1.Time``: a struct embedding ``time.Time``, whose methods (``String``, ``Format``...) it has."""

    __slots__ = ("time",)
    go_type: ClassVar[str] = "v1.Time"

    def __init__(self, t: gotime.Time) -> None:
        self.time = t

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _MetaTime) and self.time == other.time

    __hash__ = None  # type: ignore[assignment]

    def go_fields(self) -> Mapping[str, Any]:
        return {"Time": self.time}

    def go_methods(self) -> Mapping[str, gofunc.Func]:
        return self.time.go_methods()

    def go_string(self) -> str | None:
        return self.time.go_string()

    def go_json(self) -> Any:
        return self.time.in_location(gotime.UTC).format("2006-01-02T15:04:05Z07:00")


class _Condition(values.GoNamed):
    """crossplane-runtime's ``Condition`` (``ObservedGeneration`` from its v1.16, function-go-templating v0.9.0)."""

    __slots__ = ("fields",)
    go_type: ClassVar[str] = "v1.Condition"

    def __init__(self, fields: Mapping[str, Any]) -> None:
        self.fields = dict(fields)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Condition) and values.strict_equal(self.fields, other.fields)

    __hash__ = None  # type: ignore[assignment]

    def go_fields(self) -> Mapping[str, Any]:
        return self.fields


_ZERO_TIME = gotime.unix(-62135596800)
"""Go's zero ``time.Time``: January 1 of year 1, UTC."""


def _condition(c: Mapping[str, Any], r: Release) -> _Condition:
    when = c.get("lastTransitionTime")
    # metav1.Time reads RFC 3339 and keeps it in Local, which is UTC in the function's container.
    t = (
        _ZERO_TIME
        if when is None
        else gotime.parse("2006-01-02T15:04:05Z07:00", when).in_location(gotime.LOCAL)
    )
    fields: dict[str, Any] = {
        "Type": _ConditionType(c.get("type", "")),
        "Status": _ConditionStatus(c.get("status", "")),
        "LastTransitionTime": _MetaTime(t),
        "Reason": _ConditionReason(c.get("reason", "")),
        "Message": str(c.get("message", "")),
    }
    if r.condition_has_observed_generation:
        fields["ObservedGeneration"] = int(c.get("observedGeneration") or 0)
    return _Condition(fields)


def _get_resource_condition(r: Release) -> Callable[[str, Any], _Condition]:
    def get(ct: str, res: Any) -> _Condition:
        res = _plain(res)
        paths = ["resource.status", "status"] if r.condition_reads_status else ["resource.status"]
        conditions: list[dict[str, Any]] = []
        for path in paths:
            try:
                status = fieldpath.json_round_trip(fieldpath.get_value(res, path))
            except errors.CrossfnError:
                continue
            found = _conditions(status, r)
            if found is not None:
                conditions = found
                break
        for c in conditions:
            if c.get("type", "") == ct:
                return _condition(c, r)
        return _condition({"type": ct, "status": "Unknown"}, r)

    return get


# --- the map ----------------------------------------------------------------------------------


def _include(tmpl: Template) -> Callable[[str, Any], str]:
    included: dict[str, int] = {}

    def include(name: str, data: Any) -> str:
        depth = included.get(name)
        if depth is not None and depth > RECURSION_MAX:
            raise errors.GoError(
                f"rendering template has a nested reference name: {name}: unable to execute template"
            )
        included[name] = (depth or 0) + 1
        try:
            return tmpl.execute_template(name, data)
        finally:
            included[name] -= 1

    return include


def function_map(r: Release, tmpl: Template, rng: random.Random) -> dict[str, gofunc.Func]:
    """The functions release ``r`` adds to template ``tmpl`` (Sprig's last, as upstream adds them)."""
    cond = "v1.Condition"
    all_funcs: dict[str, gofunc.Func] = {
        "randomChoice": gofunc.Func(_random_choice(rng), ("string",), "string", variadic=True),
        "toYaml": gofunc.Func(_to_yaml, (gofunc.ANY,), "string", returns_error=True),
        "fromYaml": gofunc.Func(_from_yaml, ("string",), gofunc.ANY, returns_error=True),
        "getResourceCondition": gofunc.Func(_get_resource_condition(r), ("string", _MAP), cond),
        "setResourceNameAnnotation": gofunc.Func(_set_resource_name_annotation, ("string",), "string"),
        "include": gofunc.Func(_include(tmpl), ("string", gofunc.ANY), "string", returns_error=True),
        "getComposedResource": gofunc.Func(_get_composed_resource(r), (_MAP, "string"), _MAP),
        "getCompositeResource": gofunc.Func(_get_composite_resource, (_MAP,), _MAP),
        "getExtraResources": gofunc.Func(_get_extra_resources(r), (_MAP, "string"), _SLICE),
        "getExtraResourcesFromContext": gofunc.Func(
            _get_extra_resources_from_context, (_MAP, "string"), _SLICE
        ),
        "getCredentialData": gofunc.Func(_get_credential_data, (_MAP, "string"), "map[string][]uint8"),
    }
    return {name: all_funcs[name] for name in r.functions}
