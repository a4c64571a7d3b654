"""Go's net/url and path in Python: Go's url_test.go and path_test.go cases."""

from __future__ import annotations

import pytest

from crossfn import errors
from crossfn.gocompat import path, url

PARSES = [
    pytest.param(
        "http://www.google.com",
        {"scheme": "http", "host": "www.google.com"},
        "http://www.google.com",
        id="NoPath",
    ),
    pytest.param(
        "http://www.google.com/",
        {"scheme": "http", "host": "www.google.com", "path": "/"},
        "http://www.google.com/",
        id="Slash",
    ),
    pytest.param(
        "http://www.google.com/file%20one%26two",
        {
            "scheme": "http",
            "host": "www.google.com",
            "path": "/file one&two",
            "raw_path": "/file%20one%26two",
        },
        "http://www.google.com/file%20one%26two",
        id="EscapedPath",
    ),
    pytest.param(
        "mailto:/webmaster@golang.org",
        {"scheme": "mailto", "path": "/webmaster@golang.org"},
        "mailto:///webmaster@golang.org",
        id="MailtoPath",
    ),
    pytest.param(
        "mailto:webmaster@golang.org",
        {"scheme": "mailto", "opaque": "webmaster@golang.org"},
        "mailto:webmaster@golang.org",
        id="MailtoOpaque",
    ),
    pytest.param(
        "/foo?query=http://bad",
        {"path": "/foo", "raw_query": "query=http://bad"},
        "/foo?query=http://bad",
        id="QueryURL",
    ),
    pytest.param("//foo", {"host": "foo"}, "//foo", id="NetPath"),
    pytest.param(
        "http://[fe80::1%25en0]/",
        {"scheme": "http", "host": "[fe80::1%en0]", "path": "/"},
        "http://[fe80::1%25en0]/",
        id="Zone",
    ),
    pytest.param(
        "http://www.google.com/?",
        {"scheme": "http", "host": "www.google.com", "path": "/", "force_query": True},
        "http://www.google.com/?",
        id="ForceQuery",
    ),
    pytest.param(
        "http://www.google.com/?q=go+language#foo%26bar",
        {
            "scheme": "http",
            "host": "www.google.com",
            "path": "/",
            "raw_query": "q=go+language",
            "fragment": "foo&bar",
            "raw_fragment": "foo%26bar",
        },
        "http://www.google.com/?q=go+language#foo%26bar",
        id="EscapedFragment",
    ),
    pytest.param("HTTP://x/", {"scheme": "http", "host": "x", "path": "/"}, "http://x/", id="SchemeLowered"),
    pytest.param("*", {"path": "*"}, "*", id="Star"),
]


@pytest.mark.parametrize(("raw", "fields", "back"), PARSES)
def test_parse_and_string(raw: str, fields: dict[str, object], back: str) -> None:
    """Go's urltests: the parts Parse gives, and what String gives back."""
    u = url.parse(raw)
    for name, want in fields.items():
        assert getattr(u, name) == want, name
    assert u.string() == back


def test_userinfo() -> None:
    """Userinfo unescapes on the way in and escapes on the way out; the last @ ends it."""
    u = url.parse("http://%3Fam:pa%3Fsword@google.com")
    assert u.user == url.Userinfo("?am", "pa?sword", True)
    assert u.string() == "http://%3Fam:pa%3Fsword@google.com"
    assert url.parse("http://j@ne:password@google.com").user == url.Userinfo("j@ne", "password", True)
    assert url.parse("http://j%40ne@google.com").user == url.Userinfo("j@ne")


def test_hostname() -> None:
    """Hostname drops a valid port and IPv6 brackets."""
    assert url.parse("http://[::1]:80/").hostname() == "::1"
    assert url.parse("http://host:80/").hostname() == "host"
    assert url.URL(host="h:x").hostname() == "h:x"


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        pytest.param("http://[::1", "parse \"http://[::1\": missing ']' in host", id="Bracket"),
        pytest.param(
            "http://a b.com/", 'parse "http://a b.com/": invalid character " " in host name', id="HostSpace"
        ),
        pytest.param("http://host/%z", 'parse "http://host/%z": invalid URL escape "%z"', id="ShortEscape"),
        pytest.param(
            "http://%41:8080/", 'parse "http://%41:8080/": invalid URL escape "%41"', id="HostEscape"
        ),
        pytest.param("x#%zz", 'parse "x#%zz": invalid URL escape "%zz"', id="Fragment"),
        pytest.param("http://x@y@z:a/", 'parse "http://x@y@z:a/": invalid port ":a" after host', id="Port"),
        pytest.param("http://a^b@c/", 'parse "http://a^b@c/": net/url: invalid userinfo', id="Userinfo"),
    ],
)
def test_parse_errors(raw: str, message: str) -> None:
    with pytest.raises(errors.GoError) as raised:
        url.parse(raw)
    assert str(raised.value) == message


CLEAN = [
    ("", "."), ("abc", "abc"), ("abc/def", "abc/def"), (".", "."), ("..", ".."), ("../..", "../.."),
    ("../../abc", "../../abc"), ("/abc", "/abc"), ("/", "/"), ("abc/", "abc"), ("./", "."), ("../", ".."),
    ("/abc/", "/abc"), ("abc//def//ghi", "abc/def/ghi"), ("//abc", "/abc"), ("///abc", "/abc"), ("//abc//", "/abc"),
    ("abc/./def", "abc/def"), ("/./abc/def", "/abc/def"), ("abc/.", "abc"), ("abc/def/ghi/../jkl", "abc/def/jkl"),
    ("abc/def/../ghi/../jkl", "abc/jkl"), ("abc/def/..", "abc"), ("abc/def/../..", "."), ("/abc/def/../..", "/"),
    ("abc/def/../../..", ".."), ("/abc/def/../../..", "/"), ("abc/def/../../../ghi/jkl/../../../mno", "../../mno"),
    ("abc/./../def", "def"), ("abc//./../def", "def"), ("abc/../../././../def", "../../def"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "want"), CLEAN, ids=[c[0] or "empty" for c in CLEAN])
def test_clean(text: str, want: str) -> None:
    """Go's path_test.go cleantests."""
    assert path.clean(text) == want


@pytest.mark.parametrize(
    ("text", "base", "directory", "ext"),
    [
        pytest.param("", ".", ".", "", id="Empty"),
        pytest.param("/", "/", "/", "", id="Root"),
        pytest.param("a/b.c/", "b.c", "a/b.c", "", id="Trailing"),
        pytest.param("/a/b", "b", "/a", "", id="Absolute"),
        pytest.param("a.tar.gz", "a.tar.gz", ".", ".gz", id="Ext"),
    ],
)
def test_base_dir_ext(text: str, base: str, directory: str, ext: str) -> None:
    """Go's basetests, dirtests and exttests."""
    assert (path.base(text), path.dir(text), path.ext(text)) == (base, directory, ext)
