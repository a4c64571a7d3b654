"""Validate an object against an OpenAPI v3 schema with the Kubernetes API server's semantics.

Two passes, in the order ``crossplane beta validate`` reports them:

1. :func:`check_values`: the value validations of kube-openapi as the API
   server runs them for custom resources (types, ``nullable``,
   ``x-kubernetes-int-or-string``, required, enum, formats, pattern, length,
   bounds, items, properties, ``allOf``/``anyOf``/``oneOf``/``not``,
   ``x-kubernetes-list-type`` set/map uniqueness, embedded resources), with
   the API server's error texts;
2. :func:`prune`: the fields structural pruning drops, each
   reported as ``<path>: Invalid value: "<name>": unknown field: "<name>"``.

Objects come from YAML or JSON, so numbers are ``int`` or ``float``; a
whole ``float`` counts as an integer, as Go's JSON decoding into
``interface{}`` gives the validator ``float64`` either way.

``structural`` says whose rules apply to objects without ``properties``: a
CRD's schema (structural: such an object keeps nothing unless it preserves
unknown fields) or a built-in kind's published schema (Go types: such an
object is free-form, e.g. ``RawExtension``).

At a resource's root, and at an ``x-kubernetes-embedded-resource``,
``apiVersion``, ``kind`` and ``metadata`` are always known fields, and
``metadata``'s own fields are never pruned: the API server checks
``ObjectMeta`` with Go code, not with the schema.

Schemas and objects are decoded JSON: nested schemas must be ``dict``s (the
walk tests ``dict``, not ``Mapping``, which is several times faster).
"""

from __future__ import annotations

import base64
import datetime
import ipaddress
import re
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from crossfn import errors
from crossfn.gocompat import regexp, values
from crossfn.validate import _problem

__all__ = ["check_values", "prune", "type_name"]

_Problem = _problem.Problem
_T = _problem.ErrorType
_RESOURCE_FIELDS = ("apiVersion", "kind", "metadata")
_COMBINATORS = frozenset(("allOf", "anyOf", "oneOf", "not"))


def type_name(value: Any) -> str:
    """The JSON type of a decoded value, as kube-openapi names it in errors (whole numbers are ``integer``)."""
    if values.is_go_int(value) or (isinstance(value, float) and value.is_integer()):
        return "integer"
    return values.json_type(value)


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def check_values(value: Any, schema: Mapping[str, Any], path: str, *, root: bool = False) -> list[_Problem]:
    """Every value-validation problem of ``value`` under ``schema`` at ``path``."""
    out: list[_Problem] = []
    _check(value, schema, path, out, root=root)
    return out


def _check(
    value: Any, schema: Mapping[str, Any], path: str, out: list[_Problem], *, root: bool = False
) -> None:
    if not _check_type(value, schema, path, out):
        return
    if value is None:
        return
    if _COMBINATORS.intersection(schema):
        _check_combinators(value, schema, path, out)
    if isinstance(value, str):
        _check_string(value, schema, path, out)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        _check_number(value, schema, path, out)
    elif isinstance(value, list):
        _check_array(value, schema, path, out)
    elif isinstance(value, dict):
        _check_object(
            value, schema, path, out, resource=root or bool(schema.get("x-kubernetes-embedded-resource"))
        )
    enum = schema.get("enum")
    if isinstance(enum, list) and not any(_json_equal(value, e) for e in enum):
        supported = ", ".join(_problem.go_value(str(e) if not isinstance(e, str) else e) for e in enum)
        out.append(_Problem(path, _T.NOT_SUPPORTED, f"supported values: {supported}", value))


def _check_type(value: Any, schema: Mapping[str, Any], path: str, out: list[_Problem]) -> bool:
    """Report a wrong type; returns whether the value's other checks should run."""
    want = schema.get("type")
    got = type_name(value)
    if value is None:
        if schema.get("nullable") or (not want and not schema.get("x-kubernetes-int-or-string")):
            return True
        want = want or "integer,string"
    elif schema.get("x-kubernetes-int-or-string") and not want:
        if got in {"integer", "string"}:
            return True
        want = "integer,string"
    elif not want or want == got or (want == "number" and got == "integer"):
        return True
    shown = "null" if value is None else got
    out.append(
        _Problem(
            path, _T.INVALID, f"{path} in body must be of type {want}: {_problem.go_value(shown)}", shown
        )
    )
    return False


def _check_combinators(value: Any, schema: Mapping[str, Any], path: str, out: list[_Problem]) -> None:
    for sub in schema.get("allOf") or ():
        if isinstance(sub, dict):
            _check(value, sub, path, out)
    any_of = [s for s in schema.get("anyOf") or () if isinstance(s, dict)]
    if any_of and not any(not check_values(value, s, path) for s in any_of):
        out.append(
            _Problem(path, _T.INVALID, f"{path} in body must validate at least one schema (anyOf)", value)
        )
    one_of = [s for s in schema.get("oneOf") or () if isinstance(s, dict)]
    if one_of and sum(1 for s in one_of if not check_values(value, s, path)) != 1:
        out.append(
            _Problem(path, _T.INVALID, f"{path} in body must validate one and only one schema (oneOf)", value)
        )
    not_ = schema.get("not")
    if isinstance(not_, dict) and not check_values(value, not_, path):
        out.append(_Problem(path, _T.INVALID, f"{path} in body must not validate the schema (not)", value))


def _pattern_failure(pattern: str, value: str) -> str:
    """kube-openapi's ``validate.Pattern``: what the error quotes, or ``""`` when ``value`` matches."""
    try:
        compiled = regexp.compile(pattern)
    except errors.GoError as exc:
        return f"{pattern}, but pattern is invalid: {exc}"
    return "" if compiled.match_string(value) else pattern


def _check_string(value: str, schema: Mapping[str, Any], path: str, out: list[_Problem]) -> None:
    length = len(value)
    max_length = schema.get("maxLength")
    if isinstance(max_length, int) and length > max_length:
        out.append(_Problem(path, _T.TOO_LONG, f"may not be more than {max_length} bytes", value))
    min_length = schema.get("minLength")
    if isinstance(min_length, int) and length < min_length:
        out.append(
            _Problem(path, _T.INVALID, f"{path} in body should be at least {min_length} chars long", value)
        )
    pattern = schema.get("pattern")
    if isinstance(pattern, str) and (failed := _pattern_failure(pattern, value)):
        out.append(_Problem(path, _T.INVALID, f"{path} in body should match '{failed}'", value))
    fmt = schema.get("format")
    check = _FORMATS.get(fmt) if isinstance(fmt, str) else None
    if check is not None and not check(value):
        out.append(
            _Problem(
                path, _T.INVALID, f"{path} in body must be of type {fmt}: {_problem.go_value(value)}", value
            )
        )


def _check_number(value: float, schema: Mapping[str, Any], path: str, out: list[_Problem]) -> None:
    minimum = schema.get("minimum")
    if isinstance(minimum, (int, float)):
        if schema.get("exclusiveMinimum") is True and value <= minimum:
            out.append(
                _Problem(path, _T.INVALID, f"{path} in body should be greater than {_num(minimum)}", value)
            )
        elif value < minimum:
            detail = f"{path} in body should be greater than or equal to {_num(minimum)}"
            out.append(_Problem(path, _T.INVALID, detail, value))
    maximum = schema.get("maximum")
    if isinstance(maximum, (int, float)):
        if schema.get("exclusiveMaximum") is True and value >= maximum:
            out.append(
                _Problem(path, _T.INVALID, f"{path} in body should be less than {_num(maximum)}", value)
            )
        elif value > maximum:
            detail = f"{path} in body should be less than or equal to {_num(maximum)}"
            out.append(_Problem(path, _T.INVALID, detail, value))
    multiple = schema.get("multipleOf")
    if isinstance(multiple, (int, float)) and multiple > 0 and (value / multiple) % 1 != 0:
        out.append(
            _Problem(path, _T.INVALID, f"{path} in body should be a multiple of {_num(multiple)}", value)
        )


def _num(n: float) -> str:
    return _problem.go_value(n)


def _check_array(value: list[Any], schema: Mapping[str, Any], path: str, out: list[_Problem]) -> None:
    max_items = schema.get("maxItems")
    if isinstance(max_items, int) and len(value) > max_items:
        out.append(_Problem(path, _T.TOO_MANY, f"must have at most {max_items} items", len(value)))
    min_items = schema.get("minItems")
    if isinstance(min_items, int) and len(value) < min_items:
        out.append(
            _Problem(path, _T.INVALID, f"{path} in body should have at least {min_items} items", value)
        )
    if schema.get("uniqueItems") is True and _has_duplicates(value):
        out.append(_Problem(path, _T.INVALID, f"{path} in body shouldn't contain duplicates", value))
    items = schema.get("items")
    if isinstance(items, dict):
        for i, item in enumerate(value):
            _check(item, items, f"{path}[{i}]", out)
    list_type = schema.get("x-kubernetes-list-type")
    if list_type == "set":
        seen: list[Any] = []
        for i, item in enumerate(value):
            if any(_json_equal(item, s) for s in seen):
                out.append(_Problem(f"{path}[{i}]", _T.DUPLICATE, value=item))
            seen.append(item)
    elif list_type == "map":
        keys = [k for k in schema.get("x-kubernetes-list-map-keys") or () if isinstance(k, str)]
        seen_keys: list[dict[str, Any]] = []
        for i, item in enumerate(value):
            if not isinstance(item, dict):
                continue
            key = {k: item[k] for k in keys if k in item}
            if any(_json_equal(key, s) for s in seen_keys):
                out.append(_Problem(f"{path}[{i}]", _T.DUPLICATE, value=key))
            seen_keys.append(key)


def _check_object(
    value: dict[str, Any], schema: Mapping[str, Any], path: str, out: list[_Problem], *, resource: bool
) -> None:
    if resource and schema.get("x-kubernetes-embedded-resource"):
        for field in ("apiVersion", "kind"):
            if not value.get(field):
                out.append(_Problem(_join(path, field), _T.REQUIRED, "must not be empty"))
    for name in schema.get("required") or ():
        if isinstance(name, str) and name not in value:
            out.append(_Problem(_join(path, name), _T.REQUIRED))
    max_props = schema.get("maxProperties")
    if isinstance(max_props, int) and len(value) > max_props:
        out.append(_Problem(path, _T.TOO_MANY, f"must have at most {max_props} items", len(value)))
    min_props = schema.get("minProperties")
    if isinstance(min_props, int) and len(value) < min_props:
        detail = f"{path} in body should have at least {min_props} properties"
        out.append(_Problem(path, _T.INVALID, detail, value))
    properties = schema.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    extra = schema.get("additionalProperties")
    for name, item in value.items():
        prop = properties.get(name)
        if isinstance(prop, dict):
            _check(item, prop, _join(path, name), out)
        elif isinstance(extra, dict):
            _check(item, extra, _join(path, name), out)


def prune(
    value: Any, schema: Mapping[str, Any], path: str, *, structural: bool, root: bool = True
) -> list[tuple[str, str]]:
    """Drop, in place, the fields the API server's pruning would drop; return their paths and names in document
    order (the name, not the path's last part: a name may hold a dot, ``1.5``)."""
    dropped: list[tuple[str, str]] = []
    _prune(value, schema, path, dropped, structural=structural, resource=root)
    return dropped


def _prune(
    value: Any,
    schema: Mapping[str, Any],
    path: str,
    dropped: list[tuple[str, str]],
    *,
    structural: bool,
    resource: bool,
) -> None:
    if isinstance(value, list):
        items = schema.get("items")
        if isinstance(items, dict):
            for i, item in enumerate(value):
                _prune(item, items, f"{path}[{i}]", dropped, structural=structural, resource=False)
        return
    if not isinstance(value, dict):
        return
    resource = resource or bool(schema.get("x-kubernetes-embedded-resource"))
    properties = _properties(schema)
    extra = schema.get("additionalProperties")
    keep_unknown = (
        bool(schema.get("x-kubernetes-preserve-unknown-fields"))
        or extra is True
        or (not structural and not properties and extra is None)
    )
    for name in list(value):
        sub = properties.get(name)
        if resource and name in _RESOURCE_FIELDS:
            if name != "metadata" and isinstance(sub, dict):
                _prune(value[name], sub, _join(path, name), dropped, structural=structural, resource=False)
            continue
        if not isinstance(sub, dict):
            sub = extra if isinstance(extra, dict) else None
        if sub is not None:
            _prune(value[name], sub, _join(path, name), dropped, structural=structural, resource=False)
        elif not keep_unknown:
            dropped.append((_join(path, name), name))
            del value[name]


def _properties(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """The properties a schema declares, including through ``allOf`` wrappers of published schemas."""
    props = schema.get("properties")
    merged: dict[str, Any] = dict(props) if isinstance(props, dict) else {}
    for sub in schema.get("allOf") or ():
        if isinstance(sub, dict):
            for name, prop in _properties(sub).items():
                merged.setdefault(name, prop)
    return merged


def _json_equal(a: Any, b: Any) -> bool:
    """Equality of decoded JSON values: ``1 == 1.0``, but ``True != 1``."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b, strict=True))
    return (
        bool(type(a) is type(b) or (isinstance(a, (int, float)) and isinstance(b, (int, float)))) and a == b
    )


def _has_duplicates(items: list[Any]) -> bool:
    return any(_json_equal(items[i], items[j]) for i in range(len(items)) for j in range(i))


_DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")
_DURATION = re.compile(r"^(-?(\d+(\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h))+$|^0$")
_MAC = re.compile(r"^([0-9A-Fa-f]{2}[:-]){5}([0-9A-Fa-f]{2})$")
_HOSTNAME = re.compile(
    r"^([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*\.?$"
)
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+$")
_URI = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:[^\s]*$")


def _ok(check: Callable[[str], object]) -> Callable[[str], bool]:
    def run(value: str) -> bool:
        try:
            check(value)
        except ValueError:
            return False
        return True

    return run


def _date_time(value: str) -> bool:
    if not _DATE_TIME.match(value):
        return False
    try:
        datetime.datetime.fromisoformat(value.replace("z", "Z").replace("t", "T"))
    except ValueError:
        return False
    return True


def _uuid(version: int | None) -> Callable[[str], bool]:
    def run(value: str) -> bool:
        try:
            parsed = uuid.UUID(value)
        except ValueError:
            return False
        return len(value) == 36 and (version is None or parsed.version == version)

    return run


def _byte(value: str) -> bool:
    try:
        base64.b64decode(value, validate=True)
    except ValueError:
        return False
    return True


# The formats the API server checks for custom resources (kube-openapi's strfmt
# registry); any other format, int32 and int64 included, is not checked.
_FORMATS: dict[str, Callable[[str], bool]] = {
    "date-time": _date_time,
    "datetime": _date_time,
    "date": _ok(datetime.date.fromisoformat),
    "duration": lambda v: bool(_DURATION.match(v)),
    "byte": _byte,
    "uuid": _uuid(None),
    "uuid3": _uuid(3),
    "uuid4": _uuid(4),
    "uuid5": _uuid(5),
    "ipv4": _ok(ipaddress.IPv4Address),
    "ipv6": _ok(ipaddress.IPv6Address),
    "cidr": _ok(lambda v: ipaddress.ip_network(v, strict=False)),
    "mac": lambda v: bool(_MAC.match(v)),
    "hostname": lambda v: len(v) <= 253 and bool(_HOSTNAME.match(v)),
    "email": lambda v: bool(_EMAIL.match(v)),
    "uri": lambda v: bool(_URI.match(v)),
}
