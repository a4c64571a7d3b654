"""Sprig's OS, path, URL and network functions: ``env``, ``expandenv``, ``base``..., ``urlParse``,
``urlJoin``, ``getHostByName``.

``env`` and ``expandenv`` read :attr:`Sources.environ`, empty by default: a render must not copy
the environment of the machine it runs on into manifests (function-go-templating itself drops both
functions from v0.5.0). ``getHostByName`` resolves through :attr:`Sources.lookup_host`; with none,
the default, it fails naming itself, since a render does no DNS lookups. The ``os*`` path
functions are ``path/filepath``'s, which on Linux, where functions run, are ``path``'s.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from crossfn import errors
from crossfn.gocompat import gofunc, path, url
from crossfn.gocompat.sprig import _profile, _reflect
from crossfn.gocompat.sprig._sources import Sources

__all__ = ["expand", "functions"]

F = gofunc.Func
MAP = "map[string]interface {}"
_SPECIAL = frozenset("*#$@!?-0123456789")


def _is_alnum(c: str) -> bool:
    return c == "_" or ("0" <= c <= "9") or ("a" <= c <= "z") or ("A" <= c <= "Z")


def _shell_name(s: str) -> tuple[str, int]:
    """Go's ``getShellName``: the variable name after ``$`` and how many bytes it took."""
    if s[0] == "{":
        if len(s) > 2 and s[1] in _SPECIAL and s[2] == "}":
            return s[1:2], 3
        close = s.find("}", 1)
        if close == 1:
            return "", 2  # bad syntax: "${}" is eaten
        if close > 1:
            return s[1:close], close + 1
        return "", 1  # bad syntax: "${" is eaten
    if s[0] in _SPECIAL:
        return s[0], 1
    i = 0
    while i < len(s) and _is_alnum(s[i]):
        i += 1
    return s[:i], i


def expand(s: str, mapping: Callable[[str], str]) -> str:
    """Go's ``os.Expand``: ``$var`` and ``${var}`` replaced by ``mapping(var)``."""
    out: list[str] = []
    i = j = 0
    while j < len(s):
        if s[j] == "$" and j + 1 < len(s):
            out.append(s[i:j])
            name, width = _shell_name(s[j + 1 :])
            if name == "" and width == 0:
                out.append("$")
            elif name:
                out.append(mapping(name))
            j += width
            i = j + 1
        j += 1
    if not out:
        return s
    return "".join(out) + s[i:]


def _url_parse(text: str) -> dict[str, Any]:
    """Sprig's ``urlParse``: the parts of a URL; one that does not parse panics."""
    try:
        u = url.parse(text)
    except errors.GoError as exc:
        raise gofunc.Panic(f"unable to parse url: {exc}") from None
    return {
        "scheme": u.scheme,
        "host": u.host,
        "hostname": u.hostname(),
        "path": u.path,
        "query": u.raw_query,
        "opaque": u.opaque,
        "fragment": u.fragment,
        "userinfo": u.user.string() if u.user is not None else "",
    }


def _dict_string(d: Mapping[str, Any], key: str) -> str:
    """Sprig's ``dictGetOrEmpty``: a string value, ``""`` when absent; another kind panics."""
    if key not in d:
        return ""
    value = d[key]
    kind = _reflect.type_kind(value)
    if not isinstance(value, str):
        raise gofunc.Panic(f"unable to parse {key} key, must be of type string, but {kind} found")
    return value


def _url_join(d: Mapping[str, Any] | None) -> str:
    """Sprig's ``urlJoin``: a URL from ``urlParse``'s parts."""
    d = d or {}
    u = url.URL(
        scheme=_dict_string(d, "scheme"),
        host=_dict_string(d, "host"),
        path=_dict_string(d, "path"),
        raw_query=_dict_string(d, "query"),
        opaque=_dict_string(d, "opaque"),
        fragment=_dict_string(d, "fragment"),
    )
    userinfo = _dict_string(d, "userinfo")
    if userinfo:
        try:
            u.user = url.parse(f"proto://{userinfo}@host").user
        except errors.GoError as exc:
            raise gofunc.Panic(f"unable to parse userinfo in dict: {exc}") from None
    return u.string()


def _host_by_name(sources: Sources) -> Callable[[str], str]:
    def get_host_by_name(name: str) -> str:
        if sources.lookup_host is None:
            raise errors.GoError("getHostByName is not available in crossfn: a render does no DNS lookups")
        try:
            addresses = sources.lookup_host(name)
        except OSError:
            addresses = []
        if not addresses:
            raise gofunc.Panic("invalid argument to Intn")
        return addresses[sources.rand.randrange(len(addresses))]

    return get_host_by_name


def functions(profile: _profile.Profile, sources: Sources) -> dict[str, gofunc.Func]:
    """Sprig's OS, path, URL and network functions."""
    del profile
    environ = sources.environ
    s1 = ("string",)
    table = {
        "env": F(lambda name: environ.get(name, ""), s1, "string"),
        "expandenv": F(lambda s: expand(s, lambda name: environ.get(name, "")), s1, "string"),
        "getHostByName": F(_host_by_name(sources), s1, "string"),
        "urlParse": F(_url_parse, s1, MAP),
        "urlJoin": F(_url_join, (MAP,), "string"),
    }
    for name, fn, returns in (
        ("base", path.base, "string"),
        ("dir", path.dir, "string"),
        ("clean", path.clean, "string"),
        ("ext", path.ext, "string"),
        ("isAbs", path.is_abs, "bool"),
    ):
        table[name] = F(fn, s1, returns)
        table["os" + name[0].upper() + name[1:]] = F(fn, s1, returns)
    return table
