"""Sprig's defaults, JSON, reflection and flow-control functions (``defaults.go``, ``reflect.go``).

``empty`` is Sprig's notion of "not set": nil, zero numbers, ``false``, and empty strings,
lists and maps; a struct (a ``time.Time``) never is. JSON is Go's ``encoding/json`` through
:mod:`crossfn.gocompat.json`: keys sorted, ``<``, ``>`` and ``&`` escaped except by
``toRawJson``, numbers read back as float64; the plain forms drop errors (``""`` or nil), the
``must`` forms return them, and ``toRawJson`` panics.
"""

from __future__ import annotations

from typing import Any

from crossfn import errors
from crossfn.gocompat import gofunc, json, values
from crossfn.gocompat.sprig import _profile, _reflect
from crossfn.gocompat.sprig._sources import Sources

__all__ = ["functions"]

F = gofunc.Func
ANY = gofunc.ANY


def default(d: Any, *given: Any) -> Any:
    """Sprig's ``default``: ``d`` when the (first) given value is missing or empty."""
    if not given or _reflect.empty(given[0]):
        return d
    return given[0]


def coalesce(*v: Any) -> Any:
    """The first value that is not empty, else nil."""
    return next((x for x in v if not _reflect.empty(x)), None)


def from_json(v: str) -> Any:
    """``mustFromJson``: Go's ``json.Unmarshal`` into ``interface{}``."""
    return json.unmarshal(v)


def _lenient(fn: Any, fallback: Any) -> Any:
    def call(*args: Any) -> Any:
        try:
            return fn(*args)
        except gofunc.Panic:
            raise
        except errors.GoError:
            return fallback

    return call


def to_raw_json(v: Any) -> str:
    """``mustToRawJson``: JSON without HTML escaping."""
    return json.marshal(v, escape_html=False)


def _to_raw_json_or_panic(v: Any) -> str:
    try:
        return to_raw_json(v)
    except gofunc.Panic:
        raise
    except errors.GoError as exc:
        raise gofunc.Panic(str(exc)) from exc


def _type_is_like(target: str, src: Any) -> bool:
    t = values.type_name(src)
    return t in (target, "*" + target)


def _fail(msg: str) -> str:
    raise errors.GoError(msg)


def functions(profile: _profile.Profile, sources: Sources) -> dict[str, gofunc.Func]:
    """Sprig's defaults, JSON and reflection functions."""
    del profile, sources
    pretty = "  "
    return {
        "default": F(default, (ANY, ANY), ANY, variadic=True),
        "empty": F(_reflect.empty, (ANY,), "bool"),
        "coalesce": F(coalesce, (ANY,), ANY, variadic=True),
        "all": F(lambda *v: all(not _reflect.empty(x) for x in v), (ANY,), "bool", variadic=True),
        "any": F(lambda *v: any(not _reflect.empty(x) for x in v), (ANY,), "bool", variadic=True),
        "fromJson": F(_lenient(from_json, None), ("string",), ANY),
        "mustFromJson": F(from_json, ("string",), ANY, returns_error=True),
        "toJson": F(_lenient(json.marshal, ""), (ANY,), "string"),
        "mustToJson": F(json.marshal, (ANY,), "string", returns_error=True),
        "toPrettyJson": F(_lenient(lambda v: json.marshal(v, indent=pretty), ""), (ANY,), "string"),
        "mustToPrettyJson": F(lambda v: json.marshal(v, indent=pretty), (ANY,), "string", returns_error=True),
        "toRawJson": F(_to_raw_json_or_panic, (ANY,), "string"),
        "mustToRawJson": F(to_raw_json, (ANY,), "string", returns_error=True),
        "ternary": F(lambda vt, vf, v: vt if v else vf, (ANY, ANY, "bool"), ANY),
        "typeOf": F(values.type_name, (ANY,), "string"),
        "typeIs": F(lambda target, src: target == values.type_name(src), ("string", ANY), "bool"),
        "typeIsLike": F(_type_is_like, ("string", ANY), "bool"),
        "kindOf": F(_reflect.kind, (ANY,), "string"),
        "kindIs": F(lambda target, src: target == _reflect.kind(src), ("string", ANY), "bool"),
        "deepEqual": F(_reflect.deep_equal, (ANY, ANY), "bool"),
        "fail": F(_fail, ("string",), "string", returns_error=True),
    }
