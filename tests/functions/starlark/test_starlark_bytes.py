"""Connection details and credentials reach Starlark scripts as exact bytes, and go back exact.

Starlark has no bytes type, so a bytes field is a ``{"base64": ...}`` dict in
the script. Every case uses all 256 byte values, which UTF-8 decoding would
mangle, and checks the protobuf response byte for byte after the real round
trip through the sandbox process.
"""

from __future__ import annotations

import base64
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import struct_pb2

from crossfn import cli
from crossfn.functions import starlark
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource, response

ALL_BYTES = bytes(range(256))
ALL_BYTES_B64 = base64.b64encode(ALL_BYTES).decode()
TEXT = "pässwörd €"
PREFIX = "cannot run starlark script: "


@pytest.fixture(scope="module")
def fn() -> Iterator[starlark.Starlark]:
    with starlark.Starlark(workers=1) as f:
        yield f


def _request(*body: str) -> fnv1.RunFunctionRequest:
    """A request whose observed ``db`` and ``aws`` credentials hold every byte value and some UTF-8 text."""
    script = "def main(req):\n" + "".join(f"    {line}\n" for line in body)
    req = fnv1.RunFunctionRequest()
    req.observed.composite.resource.update({"apiVersion": "x/v1", "kind": "XR"})
    db = req.observed.resources["db"]
    db.resource.update({"apiVersion": "x/v1", "kind": "DB"})
    db.connection_details.update({"cert": ALL_BYTES, "password": TEXT.encode()})
    req.credentials["aws"].credential_data.data.update({"key": ALL_BYTES, "token": TEXT.encode()})
    req.credentials["empty"].SetInParent()
    req.input.update({"apiVersion": starlark.API_VERSION, "kind": starlark.KIND, "script": script})
    return req


def _run(fn: starlark.Starlark, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
    rsp = response.to(req)
    fn(req, rsp)
    return rsp


def _fatals(rsp: fnv1.RunFunctionResponse) -> list[str]:
    return [r.message for r in rsp.results if r.severity == fnv1.SEVERITY_FATAL]


def _xr_details(fn: starlark.Starlark, value: str) -> dict[str, bytes]:
    """Set the XR connection detail ``k`` to the Starlark expression ``value``; return what the response holds."""
    rsp = _run(
        fn,
        _request(
            "rsp = response_to(req)",
            f"rsp['desired']['composite']['connection_details'] = {{'k': {value}}}",
            "return rsp",
        ),
    )
    assert _fatals(rsp) == []
    return dict(rsp.desired.composite.connection_details)


SEEN = [
    pytest.param(
        "req['observed']['resources']['db']['connection_details']['cert']",
        {"base64": ALL_BYTES_B64},
        "a binary connection detail is a bytes value holding every byte",
        id="ObservedBinaryDetail",
    ),
    pytest.param(
        "text(req['observed']['resources']['db']['connection_details']['password'])",
        TEXT,
        "text() gives back UTF-8 text, non-ASCII included",
        id="ObservedTextDetail",
    ),
    pytest.param(
        "req['credentials']['aws']",
        {
            "credential_data": {
                "data": {
                    "key": {"base64": ALL_BYTES_B64},
                    "token": {"base64": base64.b64encode(TEXT.encode()).decode()},
                }
            }
        },
        "credentials keep protobuf's JSON shape with bytes values",
        id="CredentialsShape",
    ),
    pytest.param(
        "credentials(req, 'aws')['key']",
        {"base64": ALL_BYTES_B64},
        "credentials() returns the data map",
        id="CredentialsHelper",
    ),
    pytest.param(
        "text(credentials(req, 'aws')['token'])",
        TEXT,
        "a text credential reads as text",
        id="CredentialText",
    ),
    pytest.param(
        "credentials(req, 'missing')",
        None,
        "credentials the step lacks are None, not an error",
        id="CredentialsMissing",
    ),
    pytest.param(
        "credentials(req, 'empty')",
        {},
        "credentials without a source have no data",
        id="CredentialsNoSource",
    ),
    pytest.param(
        "text('plain')",
        "plain",
        "text() of a string is the string",
        id="TextOfString",
    ),
    pytest.param(
        f"from_base64('{ALL_BYTES_B64}') == req['observed']['resources']['db']['connection_details']['cert']",
        True,
        "bytes values compare by content",
        id="BytesValuesCompare",
    ),
    pytest.param(
        "len(json.encode(req['credentials'])) > 0",
        True,
        "bytes values are plain data, so json.encode works on the request",
        id="JSONEncodable",
    ),
]


@pytest.mark.parametrize(("expr", "want", "reason"), SEEN)
def test_script_sees(fn: starlark.Starlark, expr: str, want: Any, reason: str) -> None:
    rsp = _run(fn, _request(f"return {{'context': {{'v': {expr}}}}}"))
    assert _fatals(rsp) == [], reason
    assert resource.struct_to_dict(rsp.context)["v"] == want, reason


SET = [
    pytest.param(
        "req['observed']['resources']['db']['connection_details']['cert']",
        ALL_BYTES,
        "an observed binary detail copies to the XR exactly",
        id="CopyObservedDetail",
    ),
    pytest.param(
        "credentials(req, 'aws')['key']",
        ALL_BYTES,
        "a binary credential copies exactly",
        id="CopyCredential",
    ),
    pytest.param(
        f"from_base64('{ALL_BYTES_B64}')",
        ALL_BYTES,
        "from_base64 makes bytes from base64 text, as in a Secret's data",
        id="FromBase64",
    ),
    pytest.param(f"'{TEXT}'", TEXT.encode(), "a string is sent as its UTF-8", id="StringIsUTF8"),
    pytest.param(
        "text(req['observed']['resources']['db']['connection_details']['password']) + '!'",
        (TEXT + "!").encode(),
        "text can be computed with and sent back",
        id="ComputedText",
    ),
    pytest.param("''", b"", "an empty string is an empty value", id="EmptyString"),
    pytest.param("{'base64': ''}", b"", "an empty bytes value is an empty value", id="EmptyBytes"),
]


@pytest.mark.parametrize(("value", "want", "reason"), SET)
def test_script_sets(fn: starlark.Starlark, value: str, want: bytes, reason: str) -> None:
    assert _xr_details(fn, value) == {"k": want}, reason


def test_composed_connection_details(fn: starlark.Starlark) -> None:
    """Composed resources' connection details take bytes values too."""
    rsp = _run(
        fn,
        _request(
            "rsp = response_to(req)",
            "cd = req['observed']['resources']['db']['connection_details']",
            "rsp['desired']['resources']['db'] = {'resource': {'kind': 'DB'}, 'connection_details': cd}",
            "return rsp",
        ),
    )
    assert _fatals(rsp) == []
    assert dict(rsp.desired.resources["db"].connection_details) == {
        "cert": ALL_BYTES,
        "password": TEXT.encode(),
    }


def test_desired_passes_through_exactly(fn: starlark.Starlark) -> None:
    """An earlier step's binary XR connection details survive ``response_to(req)`` unchanged."""
    req = _request("return response_to(req)")
    req.desired.composite.connection_details.update({"cert": ALL_BYTES, "url": b"https://x"})
    rsp = _run(fn, req)
    assert _fatals(rsp) == []
    assert dict(rsp.desired.composite.connection_details) == {"cert": ALL_BYTES, "url": b"https://x"}


FAILS = [
    pytest.param(
        "text(req['observed']['resources']['db']['connection_details']['cert'])",
        "script.star:2:",
        "text: the value is not UTF-8 text (invalid at byte offset 128)",
        "binary data is never silently mangled into text",
        id="TextOfBinary",
    ),
    pytest.param(
        "from_base64('not base64!')",
        "script.star:2:",
        "from_base64: invalid base64:",
        "from_base64 checks its argument",
        id="FromBase64Invalid",
    ),
    pytest.param(
        "text(3)",
        "script.star:2:",
        'text: want a bytes value {"base64": ...} or a string, not int',
        "text names what it wants",
        id="TextOfInt",
    ),
]


@pytest.mark.parametrize(("expr", "where", "message", "reason"), FAILS)
def test_helper_errors(fn: starlark.Starlark, expr: str, where: str, message: str, reason: str) -> None:
    (fatal,) = _fatals(_run(fn, _request(f"return {{'context': {{'v': {expr}}}}}")))
    assert fatal.startswith(PREFIX + where), reason
    assert message in fatal, reason
    assert "HelperError" not in fatal, "the helper's exception class is an implementation detail"


BAD_VALUES = [
    pytest.param(
        "3",
        'desired.composite.connection_details[k] must be a string or a bytes value {"base64": ...}, not int',
        "numbers are neither text nor bytes",
        id="Number",
    ),
    pytest.param(
        "{'base64': 'AP8', 'x': 1}",
        "desired.composite.connection_details[k] must be a string or a bytes "
        'value {"base64": ...}, not a dict with keys base64, x',
        "a bytes value has one key",
        id="ExtraKey",
    ),
    pytest.param(
        "{'base64': 'AP8'}",
        "desired.composite.connection_details[k]: base64: invalid base64:",
        "a hand-written bytes value is checked",
        id="BadPadding",
    ),
]


@pytest.mark.parametrize(("value", "message", "reason"), BAD_VALUES)
def test_bad_connection_detail(fn: starlark.Starlark, value: str, message: str, reason: str) -> None:
    rsp = _run(
        fn,
        _request(
            "rsp = response_to(req)",
            f"rsp['desired']['composite']['connection_details'] = {{'k': {value}}}",
            "return rsp",
        ),
    )
    (fatal,) = _fatals(rsp)
    assert fatal.startswith(PREFIX + message), (reason, fatal)


DOCS = Path(__file__).parents[3] / "docs" / "functions.md"


def _docs_example() -> str:
    """The Python block under the Starlark section's "Bytes" heading in docs/functions.md."""
    found = re.search(r"^### Bytes.*?^```python\n(.*?)^```", DOCS.read_text(), re.MULTILINE | re.DOTALL)
    assert found, "docs/functions.md lost its Bytes example"
    return found.group(1)


def test_docs_example(fn: starlark.Starlark) -> None:
    """The script in docs/functions.md (Bytes section) does what the docs say."""
    req = fnv1.RunFunctionRequest()
    req.observed.resources["db"].connection_details.update(
        {"ca.der": ALL_BYTES, "endpoint": b"db.example:5432", "username": b"admin"}
    )
    req.credentials["db-admin"].credential_data.data["token"] = ALL_BYTES[::-1]
    req.input.update({"apiVersion": starlark.API_VERSION, "kind": starlark.KIND, "script": _docs_example()})
    rsp = _run(fn, req)
    assert _fatals(rsp) == []
    assert dict(rsp.desired.composite.connection_details) == {
        "ca.der": ALL_BYTES,
        "endpoint": b"db.example:5432",
        "url": b"postgres://admin@db.example:5432",
        "token": ALL_BYTES[::-1],
    }


def _deep(depth: int) -> struct_pb2.Value:
    """``{"a": {"a": ... "x"}}`` ``depth`` objects deep, built without recursion."""
    value = struct_pb2.Value()
    cur = value
    for _ in range(depth):
        cur = cur.struct_value.fields["a"]
    cur.string_value = "x"
    return value


@pytest.mark.parametrize("depth", [60, 1_000, 10_000], ids=["60", "1000", "10000"])
def test_a_script_passes_values_as_deep_as_kubernetes_accepts(fn: starlark.Starlark, depth: int) -> None:
    """XR fields nested up to 10,000 deep (docs/security.md) reach a script and come back intact: before,
    the sandbox failed from 60 to 1,000 levels. A script reads the shallow fields as always; what it
    copies is put back whole."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, cli.RECURSION_LIMIT))  # as `crossfn` runs
    try:
        req = _request(
            "rsp = response_to(req)",
            "xr = req['observed']['composite']['resource']",
            "rsp['desired']['resources']['copy'] = {'resource': {'apiVersion': 'x/v1', 'kind': xr['kind'],"
            " 'spec': xr['spec']}}",
            "return rsp",
        )
        req.observed.composite.resource.fields["spec"].CopyFrom(_deep(depth))
        rsp = _run(fn, req)
        assert _fatals(rsp) == []
        copied = rsp.desired.resources["copy"].resource
        assert copied.fields["kind"].string_value == "XR"
        assert copied.fields["spec"] == req.observed.composite.resource.fields["spec"]
    finally:
        sys.setrecursionlimit(limit)
