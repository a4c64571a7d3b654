"""The transforms of function-patch-and-transform, and their validation.

A patch runs its value through a list of transforms (upstream pt-6); this module
validates one transform (upstream pt-2.13) and resolves a list of them. Values
are in crossfn's Go value model (:mod:`crossfn.gocompat.values`): ``int`` is
Go's int64 and ``float`` is float64, and the transforms tell them apart as Go
does (``%d`` prints one and not the other, ``convert`` dispatches on the type
name). The Go behaviour itself (``fmt``, JSON, quantities, regexps, case
mapping, ``strconv``) lives in :mod:`crossfn.gocompat`; this module only strings
it together with function-patch-and-transform's error texts.

A transform is the decoded input mapping, e.g. ``{"type": "math", "math":
{"type": "Multiply", "multiply": 2}}``. Values that Go keeps as raw JSON (map
values, match results and fallbacks) are decoded by Go's standard decoder, so
their numbers come out as float64 here too.

Divergences from Go (docs/compatibility.md): a negative regexp group makes Go
panic; here it is the ordinary "had no matches for group" error.
"""

from __future__ import annotations

import base64
import hashlib
import math
import zlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from crossfn import errors
from crossfn.functions.patch_and_transform import release
from crossfn.gocompat import base64 as gobase64
from crossfn.gocompat import field as gofield
from crossfn.gocompat import fmt, json, quantity, regexp, strconv, strings, values

__all__ = ["TransformError", "resolve", "validate"]

_TRANSFORM_TYPES = ("map", "match", "math", "string", "convert")
_MATH_FIELDS = {"Multiply": "multiply", "ClampMin": "clampMin", "ClampMax": "clampMax"}
_MATH_DETAILS = {"Multiply": "multiply", "ClampMin": "clamp min", "ClampMax": "clamp max"}
_FORMATS = ("none", "quantity", "json")
_IO_TYPES = ("string", "int", "int64", "bool", "float64", "object", "array")
_INT64_MIN = -(1 << 63)


class TransformError(errors.CrossfnError):
    """A transform in a patch's list could not resolve.

    The message is function-patch-and-transform's whole chain, ready to be
    wrapped by the patch: ``transform at index <k> returned error: <type>
    transform could not resolve: <reason>``.
    """

    def __init__(self, index: int, message: str) -> None:
        self.index = index
        """Which transform of the list failed."""
        self.reason = message
        """The failing transform's own error, without the index prefix."""
        super().__init__(f"transform at index {index} returned error: {message}")


class _ResolveError(Exception):
    """One transform's error text, before the index is known (never escapes)."""


def validate(t: Mapping[str, Any], r: release.Release = release.CURRENT) -> gofield.Error | None:
    """First validation error of one transform (upstream pt-2.13), path relative to the transform."""
    ttype = _text(t.get("type"))
    if ttype not in _TRANSFORM_TYPES:
        return gofield.invalid("type", gofield.Named(ttype), "unknown transform type")
    cfg = t.get(ttype)
    if cfg is None:
        return gofield.required(ttype, f"given transform type {ttype} requires configuration")
    if _later_string_type(ttype, cfg, r):
        return gofield.invalid(
            "string.type", gofield.Named(_text(cfg.get("type"))), "unknown string transform type"
        )
    cfg = _as_release(ttype, cfg, r, validating=True)
    err = _VALIDATORS[ttype](cfg)
    return err.under(ttype) if err is not None else None


def resolve(transforms: Sequence[Mapping[str, Any]], value: Any, r: release.Release = release.CURRENT) -> Any:
    """Apply transforms in order (upstream pt-6.1); raises TransformError with the upstream pt-6.1 message
    chain 'transform at index <k> returned error: <type> transform could not resolve: <inner>'."""
    for index, t in enumerate(transforms):
        try:
            value = _resolve_one(t, value, r)
        except _ResolveError as e:
            raise TransformError(index, str(e)) from e
    return value


_LATER_STRING_TYPES = frozenset({"Join", "Replace"})
"""String transform types added in v0.7.0."""


def _later_string_type(ttype: str, cfg: Any, r: release.Release) -> bool:
    """Whether this is a Join or Replace string transform and release ``r`` predates them (v0.7.0)."""
    return (
        ttype == "string"
        and not r.has_join_and_replace
        and isinstance(cfg, Mapping)
        and _text(cfg.get("type")) in _LATER_STRING_TYPES
    )


def _as_release(ttype: str, cfg: Any, r: release.Release, *, validating: bool) -> Any:
    """The transform's configuration as release ``r`` reads it: v0.1.4 defaulted an empty math
    type to Multiply (validating and resolving) and validated an empty string type as Format."""
    if not r.defaults_transform_types or not isinstance(cfg, Mapping) or _text(cfg.get("type")):
        return cfg
    if ttype == "math":
        return {**cfg, "type": "Multiply"}
    if ttype == "string" and validating:
        return {**cfg, "type": "Format"}
    return cfg


def _resolve_one(t: Mapping[str, Any], value: Any, r: release.Release) -> Any:
    ttype = _text(t.get("type"))
    if ttype not in _TRANSFORM_TYPES:
        raise _ResolveError(f"transform type {ttype} is not supported")
    cfg = t.get(ttype)
    if cfg is None:
        raise _ResolveError(f"given transform type {ttype} requires configuration")
    if _later_string_type(ttype, cfg, r):
        raise _ResolveError(
            f"string transform could not resolve: type {_text(cfg.get('type'))} is not supported for string transform type"
        )
    cfg = _as_release(ttype, cfg, r, validating=False)
    try:
        return _RESOLVERS[ttype](cfg, value)
    except _ResolveError as e:
        raise _ResolveError(f"{ttype} transform could not resolve: {e}") from e
    except errors.GoError as e:
        raise _ResolveError(f"{ttype} transform could not resolve: {e}") from e


# Validation. Each validator reports paths relative to its own config object.


def _validate_math(cfg: Mapping[str, Any]) -> gofield.Error | None:
    mtype = _text(cfg.get("type"))
    if not mtype:
        return gofield.required("type", "math transform type is required")
    if mtype not in _MATH_FIELDS:
        return gofield.invalid("type", gofield.Named(mtype), "unknown math transform type")
    field = _MATH_FIELDS[mtype]
    if cfg.get(field) is None:
        detail = f"must specify a value if a {_MATH_DETAILS[mtype]} math transform is specified"
        return gofield.required(field, detail)
    return None


def _validate_map(cfg: Mapping[str, Any]) -> gofield.Error | None:
    if len(cfg) == 0:
        return gofield.required(
            "pairs", "at least one pair must be specified if a map transform is specified"
        )
    return None


def _validate_match(cfg: Mapping[str, Any]) -> gofield.Error | None:
    patterns = cfg.get("patterns") or []
    if len(patterns) == 0:
        detail = "at least one pattern must be specified if a match transform is specified"
        return gofield.required("patterns", detail)
    for i, p in enumerate(patterns):
        err = _validate_pattern(p)
        if err is not None:
            return err.under(f"patterns[{i}]")
    return None


def _validate_pattern(p: Mapping[str, Any]) -> gofield.Error | None:
    ptype = _text(p.get("type"))
    if ptype in ("literal", ""):
        if p.get("literal") is None:
            return gofield.required("literal", "literal pattern type requires a literal")
        return None
    if ptype == "regexp":
        expr = p.get("regexp")
        if expr is None:
            return gofield.required("regexp", "regexp pattern type requires a regexp")
        if not _compiles(_text(expr)):
            return gofield.invalid("regexp", _text(expr), "invalid regexp")
        return None
    return gofield.invalid("type", gofield.Named(ptype), "unknown pattern type")


def _validate_string(cfg: Mapping[str, Any]) -> gofield.Error | None:
    stype = _text(cfg.get("type"))
    if not stype:
        return gofield.required("type", "string transform type is required")
    required = {
        "Format": ("fmt", "format transform requires a format"),
        "Convert": ("convert", "convert transform requires a conversion type"),
        "TrimPrefix": ("trim", "trim transform requires a trim value"),
        "TrimSuffix": ("trim", "trim transform requires a trim value"),
        "Regexp": ("regexp", "regexp transform requires a regexp"),
        "Join": ("join", "join transform requires a join"),
        "Replace": ("replace", "replace transform requires a replace"),
    }
    if stype not in required:
        return gofield.invalid("type", gofield.Named(stype), "unknown string transform type")
    field, detail = required[stype]
    sub = cfg.get(field)
    if sub is None:
        return gofield.required(field, detail)
    if stype == "Regexp":
        match = _text(sub.get("match"))
        if not match:
            return gofield.required("regexp.match", "regexp transform requires a match")
        if not _compiles(match):
            return gofield.invalid("regexp.match", match, "invalid regexp")
    if stype == "Replace" and not _text(sub.get("search")):
        return gofield.required("replace.search", "replace transform requires a search")
    return None


def _validate_convert(cfg: Mapping[str, Any]) -> gofield.Error | None:
    fmt_ = cfg.get("format")
    if fmt_ is not None and _text(fmt_) not in _FORMATS:
        return gofield.invalid("format", gofield.Named(_text(fmt_)), "invalid format")
    to = _text(cfg.get("toType"))
    if to not in _IO_TYPES:
        return gofield.invalid("toType", gofield.Named(to), "invalid type")
    return None


def _compiles(expr: str) -> bool:
    try:
        regexp.compile(expr)
    except errors.GoError:
        return False
    return True


# map and match.


def _resolve_map(cfg: Mapping[str, Any], value: Any) -> Any:
    if not isinstance(value, str):
        raise _ResolveError(f"type {values.type_name(value)} is not supported for map transform")
    if value not in cfg:
        raise _ResolveError(f"key {value} is not found in map")
    raw = cfg[value]
    if raw is None:
        # Go keeps a JSON null as empty raw bytes, which then fail to decode.
        raise _ResolveError(f"value for key {value} is not valid JSON: unexpected end of JSON input")
    return _decoded(raw)


def _resolve_match(cfg: Mapping[str, Any], value: Any) -> Any:
    for i, p in enumerate(cfg.get("patterns") or []):
        try:
            matched = _matches(p, value)
        except (_ResolveError, errors.GoError) as e:
            raise _ResolveError(f"cannot match pattern at index {i}: {e}") from e
        if matched:
            return _decoded(p.get("result"))
    fallback = cfg.get("fallbackValue")
    if cfg.get("fallbackTo") == "Input":
        if fallback is not None:
            raise _ResolveError("cannot set both a fallback value and the fallback to input flag")
        return value
    return _decoded(fallback)


def _matches(p: Mapping[str, Any], value: Any) -> bool:
    ptype = _text(p.get("type"))
    if ptype == "literal":
        literal = p.get("literal")
        if literal is None:
            raise _ResolveError("literal is required by type literal")
        if not isinstance(value, str):
            raise _ResolveError(f"unsupported input type '{values.type_name(value)}'")
        return bool(value == literal)
    if ptype == "regexp":
        expr = p.get("regexp")
        if expr is None:
            raise _ResolveError("regexp is required by type regexp")
        try:
            compiled = regexp.compile(_text(expr))
        except errors.GoError as e:
            raise _ResolveError(f"cannot compile regexp: {e}") from e
        if not isinstance(value, str):
            name = "null" if value is None else values.type_name(value)
            raise _ResolveError(f"unsupported input type '{name}'")
        return compiled.match_string(value)
    raise _ResolveError(f"unsupported pattern type '{ptype}'")


def _decoded(raw: Any) -> Any:
    """A raw JSON value as Go's standard decoder returns it: every number is float64."""
    if isinstance(raw, bool) or raw is None or isinstance(raw, str):
        return raw
    if isinstance(raw, int | float):
        return float(raw)
    if isinstance(raw, Mapping):
        return {str(k): _decoded(v) for k, v in raw.items()}
    if isinstance(raw, list | tuple):
        return [_decoded(v) for v in raw]
    return raw


# math.


def _resolve_math(cfg: Mapping[str, Any], value: Any) -> Any:
    err = _validate_math(cfg)
    if err is not None:
        raise _ResolveError(str(err))
    if not (values.is_go_int(value) or isinstance(value, float)):
        raise _ResolveError(
            f"input is required to be a number for math transformer, got {values.type_name(value)}"
        )
    mtype = _text(cfg.get("type"))
    operand = _int64(cfg[_MATH_FIELDS[mtype]])
    if mtype == "Multiply":
        if isinstance(value, float):
            return value * float(operand)
        return _wrap_int64(int(value) * operand)
    truncated = _float_to_int64(value) if isinstance(value, float) else int(value)
    if mtype == "ClampMin" and truncated < operand:
        return operand
    if mtype == "ClampMax" and truncated > operand:
        return operand
    return value


def _int64(v: Any) -> int:
    """An int64 field of the input (the decoder may hand over an integral float)."""
    return int(v)


def _wrap_int64(n: int) -> int:
    """Go's two's-complement int64 overflow."""
    return ((n - _INT64_MIN) % (1 << 64)) + _INT64_MIN


def _float_to_int64(f: float) -> int:
    """Go's ``int64(f)`` on amd64: truncation, and the minimum int64 when out of range."""
    if math.isnan(f) or not -(2.0**63) <= f < 2.0**63:
        return _INT64_MIN
    return int(f)


# string.


def _resolve_string(cfg: Mapping[str, Any], value: Any) -> str:
    stype = _text(cfg.get("type"))
    field = {
        "Format": "fmt",
        "Convert": "convert",
        "TrimPrefix": "trim",
        "TrimSuffix": "trim",
        "Regexp": "regexp",
        "Join": "join",
        "Replace": "replace",
    }.get(stype)
    if field is None:
        raise _ResolveError(f"type {stype} is not supported for string transform type")
    sub = cfg.get(field)
    if sub is None:
        raise _ResolveError(f"string transform of type {stype} {field} is not set")
    if stype == "Format":
        return fmt.sprintf(_text(sub), value)
    if stype == "Convert":
        return _string_convert(_text(sub), value)
    if stype == "TrimPrefix":
        return values.from_bytes(values.to_bytes(fmt.sprint(value)).removeprefix(values.to_bytes(_text(sub))))
    if stype == "TrimSuffix":
        return values.from_bytes(values.to_bytes(fmt.sprint(value)).removesuffix(values.to_bytes(_text(sub))))
    if stype == "Regexp":
        return _string_regexp(sub, value)
    if stype == "Join":
        return _string_join(sub, value)
    return fmt.sprint(value).replace(_text(sub.get("search")), _text(sub.get("replace")))


def _string_convert(kind: str, value: Any) -> str:
    text = fmt.sprint(value)
    if kind == "ToUpper":
        return strings.to_upper(text)
    if kind == "ToLower":
        return strings.to_lower(text)
    if kind == "ToJson":
        try:
            return json.marshal(value)
        except errors.GoError as e:
            raise _ResolveError(f"cannot marshal to JSON: {e}") from e
    if kind == "ToBase64":
        return base64.b64encode(values.to_bytes(text)).decode("ascii")
    if kind == "FromBase64":
        try:
            return values.from_bytes(gobase64.std_decode(text))
        except errors.GoError as e:
            raise _ResolveError(f"string is not valid base64: {e}") from e
    hashes: dict[str, Callable[[bytes], str]] = {
        "ToSha1": lambda b: hashlib.sha1(b, usedforsecurity=False).hexdigest(),
        "ToSha256": lambda b: hashlib.sha256(b).hexdigest(),
        "ToSha512": lambda b: hashlib.sha512(b).hexdigest(),
        "ToAdler32": lambda b: str(zlib.adler32(b)),
    }
    if kind not in hashes:
        raise _ResolveError(f"type {kind} is not supported for string convert")
    try:
        data = values.to_bytes(value) if isinstance(value, str) else values.to_bytes(json.marshal(value))
    except errors.GoError as e:
        context = "unable to generate Adler checksum" if kind == "ToAdler32" else "cannot generate hash"
        raise _ResolveError(f"{context}: cannot marshal to JSON: {e}") from e
    return hashes[kind](data)


def _string_regexp(cfg: Mapping[str, Any], value: Any) -> str:
    match = _text(cfg.get("match"))
    try:
        compiled = regexp.compile(match)
    except errors.GoError as e:
        raise _ResolveError(f"could not compile regexp: {e}") from e
    group = _int64(cfg.get("group") or 0)
    groups = compiled.find_string_submatch(fmt.sprint(value))
    # Go panics on a negative group; here it is a "no match" like a too-large one.
    if groups is None or group < 0 or group >= len(groups):
        raise _ResolveError(f"regexp {strconv.quote(match)} had no matches for group {group}")
    return groups[group]


def _string_join(cfg: Mapping[str, Any], value: Any) -> str:
    if not isinstance(value, list | tuple):
        raise _ResolveError("could not parse input array")
    separator = values.to_bytes(_text(cfg.get("separator")))
    joined = b"".join(values.to_bytes(fmt.sprint(v)) + separator for v in value)
    if separator and joined:
        # Go drops one byte, not one separator: a multi-byte separator leaves a
        # partial (invalid UTF-8) tail, kept here as it is in Go.
        joined = joined[:-1]
    return values.from_bytes(joined)


# convert.


def _resolve_convert(cfg: Mapping[str, Any], value: Any) -> Any:
    err = _validate_convert(cfg)
    if err is not None:
        raise _ResolveError(str(err))
    source = values.type_name(value)
    if source not in ("string", "bool", "int", "int64", "float64"):
        raise _ResolveError(f"invalid input type {source}")
    target = _text(cfg.get("toType"))
    target = "int64" if target == "int" else target
    if (source if source != "int" else "int64") == target:
        return value
    format_ = _text(cfg.get("format")) if cfg.get("format") is not None else "none"
    convert = _CONVERSIONS.get((source if source != "int" else "int64", target, format_))
    if convert is None:
        raise _ResolveError(f"conversion from {source} to {target} is not supported with format {format_}")
    return convert(value)


def _quantity_to_float(s: str) -> float:
    return quantity.parse(s).approximate_float()


_CONVERSIONS: dict[tuple[str, str, str], Callable[[Any], Any]] = {
    ("string", "int64", "none"): strconv.parse_int,
    ("string", "bool", "none"): strconv.parse_bool,
    ("string", "float64", "none"): strconv.parse_float,
    ("string", "float64", "quantity"): _quantity_to_float,
    ("string", "object", "json"): json.unmarshal_object,
    ("string", "array", "json"): json.unmarshal_array,
    ("int64", "string", "none"): lambda i: str(int(i)),
    ("int64", "bool", "none"): lambda i: int(i) == 1,
    ("int64", "float64", "none"): lambda i: float(int(i)),
    ("bool", "string", "none"): lambda b: "true" if b else "false",
    ("bool", "int64", "none"): lambda b: 1 if b else 0,
    ("bool", "float64", "none"): lambda b: 1.0 if b else 0.0,
    ("float64", "string", "none"): lambda f: strconv.format_float(f, "f", -1),
    ("float64", "int64", "none"): _float_to_int64,
    ("float64", "bool", "none"): lambda f: f == 1.0,
}


_VALIDATORS: dict[str, Callable[[Mapping[str, Any]], gofield.Error | None]] = {
    "math": _validate_math,
    "map": _validate_map,
    "match": _validate_match,
    "string": _validate_string,
    "convert": _validate_convert,
}
_RESOLVERS: dict[str, Callable[[Mapping[str, Any], Any], Any]] = {
    "math": _resolve_math,
    "map": _resolve_map,
    "match": _resolve_match,
    "string": _resolve_string,
    "convert": _resolve_convert,
}


# Rendering of input values inside messages.


def _text(v: Any) -> str:
    """A string field of the input; absent is Go's zero value, the empty string."""
    if v is None:
        return ""
    return v if isinstance(v, str) else str(v)
