"""env, expandenv, the path functions, urlParse, urlJoin and getHostByName: Sprig's
functions_test.go, functions_linux_test.go, url_test.go and network_test.go cases."""

from __future__ import annotations

from typing import Any

import pytest
from sprigcases import call, func_map

from crossfn import errors
from crossfn.gocompat import gofunc

PATHS = [
    pytest.param("base", "foo/bar", "bar", "TestBase", id="Base"),
    pytest.param("dir", "foo/bar/baz", "foo/bar", "TestDir", id="Dir"),
    pytest.param("isAbs", "/foo", True, "TestIsAbs", id="IsAbs"),
    pytest.param("isAbs", "foo", False, "TestIsAbs: relative", id="IsAbsNot"),
    pytest.param("clean", "/foo/../foo/../bar", "/bar", "TestClean", id="Clean"),
    pytest.param("ext", "/foo/bar/baz.txt", ".txt", "TestExt", id="Ext"),
    pytest.param("base", "a/", "a", "trailing slashes go first", id="BaseTrailing"),
    pytest.param("base", "", ".", "empty is .", id="BaseEmpty"),
    pytest.param("clean", "//a//b/./../c", "/a/c", "Go's Clean keeps one leading slash", id="CleanSlashes"),
    pytest.param("clean", "../../a", "../../a", "leading .. stay in a relative path", id="CleanDotDot"),
    pytest.param("dir", "a", ".", "no directory is .", id="DirNone"),
    pytest.param("ext", "a.b/c", "", "the dot must be in the last element", id="ExtNone"),
]


@pytest.mark.parametrize(("name", "arg", "want", "reason"), PATHS)
def test_paths(name: str, arg: str, want: Any, reason: str) -> None:
    """path's functions, and the os* ones of functions_linux_test.go, which are the same on Linux."""
    assert call(name, arg) == want, reason
    assert call("os" + name[0].upper() + name[1:], arg) == want, reason


EXPANSIONS = [
    pytest.param("Hello $FOO", "Hello bar", "TestExpandEnv", id="Plain"),
    pytest.param("${FOO}x", "barx", "braces", id="Braces"),
    pytest.param("$FOOx", "", "the name runs on", id="LongName"),
    pytest.param("$$ $1 ${#}", "  ", "special names read the environment too", id="Special"),
    pytest.param("cost: $", "cost: $", "a trailing $ stays", id="Trailing"),
    pytest.param("a $- b", "a  b", "a special one-character name", id="Dash"),
    pytest.param("${}x", "x", "bad syntax is eaten", id="EmptyBraces"),
    pytest.param(
        "${FOO", "FOO", "an unclosed brace eats the $ and the {; the rest stays text", id="Unclosed"
    ),
    pytest.param("$ é", "$ é", "$ before a non-name stays", id="NotAName"),
]


@pytest.mark.parametrize(("text", "want", "reason"), EXPANSIONS)
def test_expandenv(text: str, want: str, reason: str) -> None:
    """Go's os.Expand over the injected environment."""
    funcs = func_map(environ={"FOO": "bar"})
    assert funcs["expandenv"](text) == want, reason


def test_env_reads_only_the_injected_environment() -> None:
    """TestEnv with an injected environment; by default none, so a render leaks nothing of its machine."""
    assert func_map(environ={"FOO": "bar"})["env"]("FOO") == "bar"
    assert func_map()["env"]("PATH") == ""
    assert func_map()["expandenv"]("$HOME") == ""


URLS: dict[str, dict[str, str]] = {
    "proto://auth@host:80/path?query#fragment": {
        "fragment": "fragment",
        "host": "host:80",
        "hostname": "host",
        "opaque": "",
        "path": "/path",
        "query": "query",
        "scheme": "proto",
        "userinfo": "auth",
    },
    "proto://host:80/path": {
        "fragment": "",
        "host": "host:80",
        "hostname": "host",
        "opaque": "",
        "path": "/path",
        "query": "",
        "scheme": "proto",
        "userinfo": "",
    },
    "something": {
        "fragment": "",
        "host": "",
        "hostname": "",
        "opaque": "",
        "path": "something",
        "query": "",
        "scheme": "",
        "userinfo": "",
    },
    "proto://user:passwor%20d@host:80/path": {
        "fragment": "",
        "host": "host:80",
        "hostname": "host",
        "opaque": "",
        "path": "/path",
        "query": "",
        "scheme": "proto",
        "userinfo": "user:passwor%20d",
    },
    "proto://host:80/pa%20th?key=val%20ue": {
        "fragment": "",
        "host": "host:80",
        "hostname": "host",
        "opaque": "",
        "path": "/pa th",
        "query": "key=val%20ue",
        "scheme": "proto",
        "userinfo": "",
    },
}


@pytest.mark.parametrize(("url", "parts"), list(URLS.items()), ids=list(range(len(URLS))))
def test_url_parse_and_join(url: str, parts: dict[str, str]) -> None:
    """TestUrlParse and TestUrlJoin: each URL's parts, and back again."""
    assert call("urlParse", url) == parts
    assert call("urlJoin", parts) == url


URL_JOINS = [
    pytest.param(
        {"fragment": "fragment", "host": "host:80", "path": "/path", "query": "query", "scheme": "proto"},
        "proto://host:80/path?query#fragment",
        "TestUrlJoin",
        id="Join",
    ),
    pytest.param(
        {
            "fragment": "fragment",
            "host": "host:80",
            "path": "/path",
            "scheme": "proto",
            "userinfo": "ASDJKJSD",
        },
        "proto://ASDJKJSD@host:80/path#fragment",
        "TestUrlJoin: userinfo",
        id="Userinfo",
    ),
    pytest.param(
        {"path": "a b?c", "fragment": "x y"}, "a%20b%3Fc#x%20y", "a path and fragment escape", id="Escapes"
    ),
    pytest.param({"path": "this:that"}, "./this:that", "a colon in the first segment", id="Colon"),
    pytest.param(
        {"scheme": "mailto", "opaque": "joe@example.com"}, "mailto:joe@example.com", "opaque", id="Opaque"
    ),
    pytest.param({"host": "h", "path": "rel"}, "//h/rel", "a relative path after a host", id="RelativePath"),
]


@pytest.mark.parametrize(("parts", "want", "reason"), URL_JOINS)
def test_url_join(parts: dict[str, Any], want: str, reason: str) -> None:
    assert call("urlJoin", parts) == want, reason


URL_PANICS = [
    pytest.param(
        "urlParse",
        ("http://[::1",),
        "unable to parse url: parse \"http://[::1\": missing ']' in host",
        id="Bracket",
    ),
    pytest.param(
        "urlParse", (":foo",), 'unable to parse url: parse ":foo": missing protocol scheme', id="Scheme"
    ),
    pytest.param("urlParse", ("a:b/c:d",), "<ok>", id="OpaqueIsFine"),
    pytest.param(
        "urlParse",
        ("1a:b",),
        'unable to parse url: parse "1a:b": first path segment in URL cannot contain colon',
        id="Colon",
    ),
    pytest.param(
        "urlParse",
        ("http://h/%zz",),
        'unable to parse url: parse "http://h/%zz": invalid URL escape "%zz"',
        id="Escape",
    ),
    pytest.param(
        "urlParse",
        ("http://h:8x/",),
        'unable to parse url: parse "http://h:8x/": invalid port ":8x" after host',
        id="Port",
    ),
    pytest.param(
        "urlParse",
        ("a\nb",),
        'unable to parse url: parse "a\\nb": net/url: invalid control character in URL',
        id="Control",
    ),
    pytest.param(
        "urlJoin",
        ({"host": 1},),
        "unable to parse host key, must be of type string, but int64 found",
        id="JoinType",
    ),
    pytest.param(
        "urlJoin",
        ({"host": None},),
        "runtime error: invalid memory address or nil pointer dereference",
        id="JoinNil",
    ),
    pytest.param(
        "urlJoin",
        ({"userinfo": "a b"},),
        'unable to parse userinfo in dict: parse "proto://a b@host": net/url: invalid userinfo',
        id="JoinUserinfo",
    ),
]


@pytest.mark.parametrize(("name", "args", "message"), URL_PANICS)
def test_url_panics(name: str, args: tuple[Any, ...], message: str) -> None:
    """Sprig panics where net/url fails, with net/url's error in the text."""
    if message == "<ok>":
        assert call(name, *args)["opaque"] == "b/c:d"
        return
    with pytest.raises(gofunc.Panic) as raised:
        call(name, *args)
    assert str(raised.value) == message


def test_get_host_by_name() -> None:
    """A render does no DNS: without a resolver getHostByName fails naming itself; with one, it picks an address."""
    with pytest.raises(errors.GoError) as raised:
        call("getHostByName", "www.google.com")
    assert "getHostByName" in str(raised.value)
    resolved = func_map(lookup_host=lambda name: ["10.0.0.1", "10.0.0.2"])["getHostByName"]("x")
    assert resolved in ("10.0.0.1", "10.0.0.2")
    with pytest.raises(gofunc.Panic) as empty:
        func_map(lookup_host=lambda name: [])["getHostByName"]("x")
    assert str(empty.value) == "invalid argument to Intn"
