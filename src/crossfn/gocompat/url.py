"""Go's ``net/url``: ``Parse`` into a :class:`URL`, and ``URL.String`` back, with Go's escaping.

Sprig's ``urlParse`` and ``urlJoin`` are these two calls, and templates build links and
connection strings with them, so the split of a URL into scheme, opaque part, userinfo, host,
path, query and fragment, the percent-decoding of each, and the re-escaping of each part on the
way out (``shouldEscape`` per part: a space is ``%20`` in a path, a ``?`` is escaped in a path but
not in a fragment, non-ASCII bytes everywhere) follow Go byte for byte, with Go's error texts
(``parse "x": first path segment in URL cannot contain colon``). Go works on bytes; so does this
module, holding a Go string one byte per character while it works.
"""

from __future__ import annotations

import dataclasses

from crossfn import errors
from crossfn.gocompat import strconv, values

__all__ = ["URL", "Userinfo", "parse"]

_PATH, _PATH_SEGMENT, _HOST, _ZONE, _USER_PASSWORD, _QUERY_COMPONENT, _FRAGMENT = range(1, 8)
_UPPERHEX = "0123456789ABCDEF"


def _bytes(s: str) -> str:
    return values.to_bytes(s).decode("latin-1")


def _go(s: str) -> str:
    return values.from_bytes(s.encode("latin-1"))


@dataclasses.dataclass(frozen=True)
class Userinfo:
    """A URL's ``username[:password]`` (Go's ``*url.Userinfo``); fields hold Go strings."""

    username: str
    password: str = ""
    password_set: bool = False

    def string(self) -> str:
        """``Userinfo.String()``: the escaped ``username[:password]``."""
        text = _escape(_bytes(self.username), _USER_PASSWORD)
        if self.password_set:
            text += ":" + _escape(_bytes(self.password), _USER_PASSWORD)
        return _go(text)


@dataclasses.dataclass
class URL:
    """Go's ``url.URL``: every field a Go string, decoded as Go decodes it."""

    scheme: str = ""
    opaque: str = ""
    user: Userinfo | None = None
    host: str = ""
    path: str = ""
    raw_path: str = ""
    force_query: bool = False
    raw_query: str = ""
    fragment: str = ""
    raw_fragment: str = ""

    def hostname(self) -> str:
        """``URL.Hostname()``: the host without a valid port, IPv6 brackets removed."""
        host = self.host
        colon = host.rfind(":")
        if colon != -1 and _valid_optional_port(host[colon:]):
            host = host[:colon]
        if host.startswith("[") and host.endswith("]"):
            host = host[1:-1]
        return host

    def escaped_path(self) -> str:
        """``URL.EscapedPath()``."""
        raw, path = _bytes(self.raw_path), _bytes(self.path)
        if raw and _valid_encoded(raw, _PATH):
            try:
                if _unescape(raw, _PATH) == path:
                    return self.raw_path
            except errors.GoError:
                pass
        if path == "*":
            return "*"
        return _go(_escape(path, _PATH))

    def escaped_fragment(self) -> str:
        """``URL.EscapedFragment()``."""
        raw, fragment = _bytes(self.raw_fragment), _bytes(self.fragment)
        if raw and _valid_encoded(raw, _FRAGMENT):
            try:
                if _unescape(raw, _FRAGMENT) == fragment:
                    return self.raw_fragment
            except errors.GoError:
                pass
        return _go(_escape(fragment, _FRAGMENT))

    def string(self) -> str:
        """``URL.String()``: the URL reassembled, each part escaped for its place."""
        out: list[str] = []
        if self.scheme:
            out.append(self.scheme + ":")
        if self.opaque:
            out.append(self.opaque)
        else:
            if self.scheme or self.host or self.user is not None:
                if self.host or self.path or self.user is not None:
                    out.append("//")
                if self.user is not None:
                    out.append(self.user.string() + "@")
                if self.host:
                    out.append(_go(_escape(_bytes(self.host), _HOST)))
            path = self.escaped_path()
            if path and path[0] != "/" and self.host:
                out.append("/")
            if not "".join(out) and ":" in path.partition("/")[0]:
                out.append("./")
            out.append(path)
        if self.force_query or self.raw_query:
            out.append("?" + self.raw_query)
        if self.fragment:
            out.append("#" + self.escaped_fragment())
        return "".join(out)


def parse(raw: str) -> URL:
    """Go's ``url.Parse``; raises :class:`~crossfn.errors.GoError` with ``*url.Error``'s text."""
    whole = _bytes(raw)
    rest, _, fragment = whole.partition("#")
    try:
        url = _parse(rest)
    except _URLError as exc:
        raise errors.GoError(f"parse {strconv.quote(_go(rest))}: {exc}") from None
    if not fragment:
        return url
    try:
        decoded = _unescape(fragment, _FRAGMENT)
    except _URLError as exc:
        raise errors.GoError(f"parse {strconv.quote(raw)}: {exc}") from None
    url.fragment = _go(decoded)
    url.raw_fragment = "" if _escape(decoded, _FRAGMENT) == fragment else _go(fragment)
    return url


class _URLError(errors.GoError):
    """An error inside Parse, before ``*url.Error`` wraps it with the operation and the URL."""


def _parse(raw: str) -> URL:
    if any(c < " " or c == "\x7f" for c in raw):
        raise _URLError("net/url: invalid control character in URL")
    url = URL()
    if raw == "*":
        url.path = "*"
        return url
    scheme, rest = _get_scheme(raw)
    url.scheme = _go(scheme.lower())
    if rest.endswith("?") and rest.count("?") == 1:
        url.force_query, rest = True, rest[:-1]
    else:
        rest, _, query = rest.partition("?")
        url.raw_query = _go(query)
    if not rest.startswith("/"):
        if url.scheme:
            url.opaque = _go(rest)
            return url
        if ":" in rest.partition("/")[0]:
            raise _URLError("first path segment in URL cannot contain colon")
    if (url.scheme or not rest.startswith("///")) and rest.startswith("//"):
        authority, slash, path = rest[2:].partition("/")
        rest = slash + path
        url.user, host = _parse_authority(authority)
        url.host = _go(host)
    path = _unescape(rest, _PATH)
    url.path = _go(path)
    url.raw_path = "" if _escape(path, _PATH) == rest else _go(rest)
    return url


def _get_scheme(raw: str) -> tuple[str, str]:
    for i, c in enumerate(raw):
        if "a" <= c <= "z" or "A" <= c <= "Z":
            continue
        if "0" <= c <= "9" or c in "+-.":
            if i == 0:
                return "", raw
            continue
        if c == ":":
            if i == 0:
                raise _URLError("missing protocol scheme")
            return raw[:i], raw[i + 1 :]
        return "", raw
    return "", raw


def _parse_authority(authority: str) -> tuple[Userinfo | None, str]:
    at = authority.rfind("@")
    host = _parse_host(authority[at + 1 :] if at >= 0 else authority)
    if at < 0:
        return None, host
    userinfo = authority[:at]
    if not all(c.isascii() and (c.isalnum() or c in "-._:~!$&'()*+,;=%@") for c in userinfo):
        raise _URLError("net/url: invalid userinfo")
    if ":" not in userinfo:
        return Userinfo(_go(_unescape(userinfo, _USER_PASSWORD))), host
    username, _, password = userinfo.partition(":")
    return (
        Userinfo(_go(_unescape(username, _USER_PASSWORD)), _go(_unescape(password, _USER_PASSWORD)), True),
        host,
    )


def _parse_host(host: str) -> str:
    if host.startswith("["):
        close = host.rfind("]")
        if close < 0:
            raise _URLError("missing ']' in host")
        port = host[close + 1 :]
        if not _valid_optional_port(port):
            raise _URLError(f"invalid port {strconv.quote(_go(port))} after host")
        zone = host[:close].find("%25")
        if zone >= 0:
            return (
                _unescape(host[:zone], _HOST)
                + _unescape(host[zone:close], _ZONE)
                + _unescape(host[close:], _HOST)
            )
    else:
        colon = host.rfind(":")
        if colon != -1 and not _valid_optional_port(host[colon:]):
            raise _URLError(f"invalid port {strconv.quote(_go(host[colon:]))} after host")
    return _unescape(host, _HOST)


def _valid_optional_port(port: str) -> bool:
    return port == "" or (port[0] == ":" and all("0" <= c <= "9" for c in port[1:]))


def _should_escape(c: str, mode: int) -> bool:
    """Go's ``shouldEscape`` for one byte ``c`` in the part ``mode``."""
    if c.isascii() and c.isalnum():
        return False
    if mode in (_HOST, _ZONE) and c in "!$&'()*+,;=:[]<>\"":
        return False
    if c in "-_.~":
        return False
    if c in "$&+,/:;=?@":
        if mode == _PATH:
            return c == "?"
        if mode == _PATH_SEGMENT:
            return c in "/;,?"
        if mode == _USER_PASSWORD:
            return c in "@/?:"
        if mode == _QUERY_COMPONENT:
            return True
        if mode == _FRAGMENT:
            return False
    return not (mode == _FRAGMENT and c in "!()*")


def _escape(s: str, mode: int) -> str:
    """Go's ``escape`` of a byte string."""
    out: list[str] = []
    for c in s:
        if c == " " and mode == _QUERY_COMPONENT:
            out.append("+")
        elif _should_escape(c, mode):
            b = ord(c)
            out.append("%" + _UPPERHEX[b >> 4] + _UPPERHEX[b & 15])
        else:
            out.append(c)
    return "".join(out)


def _ishex(c: str) -> bool:
    return c in "0123456789abcdefABCDEF" and c != ""


def _unescape(s: str, mode: int) -> str:
    """Go's ``unescape`` of a byte string; raises with Go's ``EscapeError``/``InvalidHostError`` text."""
    i = 0
    while i < len(s):
        c = s[i]
        if c == "%":
            if i + 2 >= len(s) or not _ishex(s[i + 1]) or not _ishex(s[i + 2]):
                raise _URLError("invalid URL escape " + strconv.quote(_go(s[i : i + 3])))
            if mode == _HOST and int(s[i + 1], 16) < 8 and s[i : i + 3] != "%25":
                raise _URLError("invalid URL escape " + strconv.quote(_go(s[i : i + 3])))
            if mode == _ZONE:
                v = chr(int(s[i + 1 : i + 3], 16))
                if s[i : i + 3] != "%25" and v != " " and _should_escape(v, _HOST):
                    raise _URLError("invalid URL escape " + strconv.quote(_go(s[i : i + 3])))
            i += 3
            continue
        if mode in (_HOST, _ZONE) and c < "\x80" and _should_escape(c, mode):
            raise _URLError("invalid character " + strconv.quote(c) + " in host name")
        i += 1
    out: list[str] = []
    i = 0
    while i < len(s):
        c = s[i]
        if c == "%":
            out.append(chr(int(s[i + 1 : i + 3], 16)))
            i += 3
            continue
        out.append(" " if c == "+" and mode == _QUERY_COMPONENT else c)
        i += 1
    return "".join(out)


def _valid_encoded(s: str, mode: int) -> bool:
    return all(c in "!$&'()*+,;=:@[]%" or not _should_escape(c, mode) for c in s)
