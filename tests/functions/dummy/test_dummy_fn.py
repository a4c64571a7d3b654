"""dummy: upstream's fn_test.go case, re-expressed, the merge rules, and one case per release difference."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import pytest

from crossfn import cli, errors
from crossfn.functions import dummy
from crossfn.functions.dummy import _proto
from crossfn.gocompat import protojson
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import testing

V04 = dummy.compose
V03 = dummy.v0_3_0
XR = {"apiVersion": "example.org/v1", "kind": "XR"}


def _input(response: Any = None, **more: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"apiVersion": "dummy.fn.crossplane.io/v1beta1", "kind": "Response", **more}
    if response is not None:
        body["response"] = response
    return body


def _run(fn: dummy.Dummy, inp: dict[str, Any], **request: Any) -> dict[str, Any]:
    req = testing.build_request(tag="hello", input=inp, **request)
    return testing.to_dict(testing.run(fn, req))


def test_response_is_returned() -> None:
    """ResponseIsReturned (v0.4.1's fn_test.go): the input's response is merged over the desired state."""
    inp = {
        "apiVersion": "dummy.fn.crossplane.io",
        "kind": "Results",
        "response": {
            "desired": {"composite": {"resource": {"spec": {"widgets": 8}}}},
            "results": [{"severity": "SEVERITY_NORMAL", "message": "hi!"}],
            "output": {"cool": True},
        },
    }
    got = _run(V04, inp, desired_composite=XR)
    assert got == {
        "meta": {"tag": "hello", "ttl": "60s"},
        "desired": {
            "composite": {"resource": {"apiVersion": "example.org/v1", "kind": "XR", "spec": {"widgets": 8}}}
        },
        "results": [{"severity": "SEVERITY_NORMAL", "message": "hi!"}],
        "output": {"cool": True},
    }


MERGES = [
    pytest.param(
        {"desired": {"resources": {"a": {"resource": {"spec": {"y": 2}}, "ready": "READY_TRUE"}}}},
        {"desired_resources": {"a": {"spec": {"x": 1}, "kind": "K"}, "b": {"kind": "B"}}},
        {
            "resources": {
                "a": {"resource": {"spec": {"y": 2}}, "ready": "READY_TRUE"},
                "b": {"resource": {"kind": "B"}},
            }
        },
        "a desired resource in the response replaces the one passed in whole; others stay",
        id="ResourceReplaced",
    ),
    pytest.param(
        {
            "desired": {
                "composite": {"resource": {"status": {"n": 1}}, "connectionDetails": {"very": "secret"}}
            }
        },
        {"desired_composite": {**XR, "status": {"m": 2}}},
        {
            "composite": {
                "resource": {**XR, "status": {"n": 1}},
                "connectionDetails": {"very": "secreg=="},
            }
        },
        "a resource's top-level keys are replaced, not merged; connection details are base64, 'secret' decodes as Go's lenient base64 does (4 bytes)",
        id="TopLevelKeys",
    ),
]


@pytest.mark.parametrize(("response", "request_kw", "want", "reason"), MERGES)
def test_merge(
    response: dict[str, Any], request_kw: dict[str, Any], want: dict[str, Any], reason: str
) -> None:
    assert _run(V04, _input(response), **request_kw)["desired"] == want, reason


def _deep(depth: int) -> Any:
    value: Any = "bottom"
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.fixture
def command_recursion_limit() -> Iterator[None]:
    """The recursion limit every crossfn command runs with (``crossfn function serve``, the controller)."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, cli.RECURSION_LIMIT))
    yield
    sys.setrecursionlimit(old)


@pytest.mark.usefixtures("command_recursion_limit")
@pytest.mark.parametrize("depth", [40, 500], ids=["PastProtobufsPythonLimit", "Deep"])
def test_a_deep_response_merges(depth: int) -> None:
    """Values nested past the 100 message levels protobuf's Python runtime takes in json_format and MergeFrom
    (about 33 JSON levels) merge as shallow ones: Go's protobuf takes 10,000 levels. (They raised ParseError.)"""
    deep = _deep(depth)
    response = {"context": {"d": deep}, "output": {"o": deep},
                "desired": {"resources": {"a": {"resource": {"spec": deep}, "ready": "READY_TRUE"}}}}  # fmt: skip
    got = _run(
        V04, _input(response), desired_resources={"a": {"kind": "A"}, "b": {"kind": "B"}}, context={"k": 1}
    )
    assert "results" not in got
    assert got["context"] == {"k": 1, "d": deep}, "other context keys stay"
    assert got["output"] == {"o": deep}
    assert got["desired"]["resources"] == {"a": {"resource": {"spec": deep}, "ready": "READY_TRUE"},
                                           "b": {"resource": {"kind": "B"}}}, "the entry is replaced whole"  # fmt: skip


def test_results_append_and_ttl() -> None:
    """Results are appended, a TTL of 0s leaves the default (proto merge skips zero scalars), a set one replaces."""
    got = _run(V04, _input({"meta": {"ttl": "0s"}, "results": [{"severity": 3, "message": "x"}]}))
    assert got["meta"] == {"tag": "hello", "ttl": "60s"}
    assert got["results"] == [{"severity": "SEVERITY_NORMAL", "message": "x"}]
    assert _run(V04, _input({"meta": {"ttl": "5s", "tag": "t"}}))["meta"] == {"tag": "t", "ttl": "5s"}


def test_requirements_resources_are_extra_resources() -> None:
    """v0.4.x's protocol named the requirements' first field ``resources``: on the wire, extra resources."""
    sel = {"apiVersion": "v1", "kind": "ConfigMap", "matchName": "c", "namespace": "ns"}
    got = _run(V04, _input({"requirements": {"resources": {"cm": sel}}}))
    assert got["requirements"] == {"extraResources": {"cm": sel}}


WRAP_V1 = (
    "cannot get Function input from *v1.RunFunctionRequest: cannot get function input *v1beta1.Response from "
)
WRAP_V1 += "*v1.RunFunctionRequest: cannot unmarshal JSON from *structpb.Struct into *v1beta1.Response: "
PROTO_V1 = "cannot unmarshal RunFunctionResponse from *v1.RunFunctionRequest: proto: "
PROTO_V1BETA1 = "cannot unmarshal RunFunctionResponse from *v1beta1.RunFunctionRequest: proto: "

# (function, input, the Fatal result or "" for none, why)
DIFFERENCES = [
    (
        V03,
        _input({"output": {"a": 1}}),
        PROTO_V1BETA1 + '(line 1:2): unknown field "output"',
        "v1beta1 has no output",
    ),
    (
        V03,
        _input({"conditions": []}),
        PROTO_V1BETA1 + '(line 1:2): unknown field "conditions"',
        "nor conditions",
    ),
    (
        V03,
        _input({"requirements": {}}),
        PROTO_V1BETA1 + '(line 1:2): unknown field "requirements"',
        "nor requirements",
    ),
    (
        V03,
        _input({"results": [{"severity": "SEVERITY_NORMAL", "message": "m", "reason": "R"}]}),
        PROTO_V1BETA1 + '(line 1:28): unknown field "reason"',
        "nor a result's reason",
    ),
    (V04, _input({"output": {"a": 1}}), "", "v1 has output"),
    (
        V04,
        _input({"requirements": {"extraResources": {}}}),
        PROTO_V1 + '(line 1:18): unknown field "extraResources"',
        "July 2025's protocol called that field resources",
    ),
    (
        V04,
        _input({"requirements": {"schemas": {}}}),
        PROTO_V1 + '(line 1:18): unknown field "schemas"',
        "no schemas yet",
    ),
    (V03, _input({}, bogus=1), "", "function-sdk-go v0.1.0 ignores unknown input fields"),
    (
        V03,
        _input(Response={"results": []}),
        PROTO_V1BETA1 + "unexpected EOF",
        "and matches names exactly (go-json-experiment): Response is unknown, skipped, so no response",
    ),
    (
        V04,
        _input({}, bogus=1),
        WRAP_V1 + 'json: cannot unmarshal Go value of type v1beta1.Response: unknown name "bogus"',
        "later builds reject them",
    ),
    (V03, _input(), PROTO_V1BETA1 + "unexpected EOF", "no response at all: an empty RawExtension"),
    (
        V04,
        _input(),
        "cannot unmarshal RunFunctionResponse from *v1.RunFunctionRequest: proto: unexpected EOF",
        "likewise",
    ),
    (
        V04,
        _input("x"),
        PROTO_V1 + 'syntax error (line 1:1): unexpected token "x"',
        "a response that is not an object",
    ),
    (
        V04,
        _input({"desired": {"resources": {"a": {"ready": "BAD"}}}}),
        PROTO_V1 + '(line 1:39): invalid value for enum type: "BAD"',
        "an enum takes its value names",
    ),
    (
        V04,
        _input({"results": [{"message": 5}]}),
        PROTO_V1 + "(line 1:24): invalid value for string type: 5",
        "a string field takes strings",
    ),
    (
        V04,
        _input({"meta": {"ttl": "5"}}),
        PROTO_V1 + '(line 1:16): invalid google.protobuf.Duration value "5"',
        "a duration needs its unit",
    ),
    (
        V04,
        _input({"desired": {"composite": {"connectionDetails": {"k": "$$"}}}}),
        PROTO_V1 + '(line 1:51): invalid value for bytes type: "$$"',
        "connection details are base64",
    ),
    (
        V04,
        _input({"requirements": {"resources": {"r": {"matchName": "a", "matchLabels": {"labels": {}}}}}}),
        PROTO_V1
        + '(line 1:64): error parsing "matchName", oneof apiextensions.fn.proto.v1.ResourceSelector.match is already set',
        "a selector matches by name or by labels",
    ),
    (
        V04,
        _input({"desired": {"composite": {"connection_details": {}, "connectionDetails": {}}}}),
        PROTO_V1 + '(line 1:49): duplicate field "connection_details"',
        "the JSON and the proto name are one field",
    ),
]


@pytest.mark.parametrize(
    ("fn", "inp", "want", "reason"), DIFFERENCES, ids=[f"{i}" for i in range(len(DIFFERENCES))]
)
def test_release_differences(fn: dummy.Dummy, inp: dict[str, Any], want: str, reason: str) -> None:
    rsp = testing.run(fn, testing.build_request(input=inp))
    fatals = [(r.message, r.HasField("target")) for r in rsp.results if r.severity == fnv1.SEVERITY_FATAL]
    assert fatals == ([(want, fn.sdk.targets)] if want else []), reason


def test_example_response() -> None:
    """The README's input: status merged onto the XR, a composed resource READY_TRUE, a Normal result."""
    response = {
        "desired": {
            "composite": {"resource": {"status": {"widgets": 200}}, "connectionDetails": {"very": "secret"}},
            "resources": {
                "cool-resource": {
                    "resource": {"apiVersion": "example.org/v1", "kind": "Composed", "spec": {}},
                    "ready": "READY_TRUE",
                }
            },
        },
        "results": [{"severity": "SEVERITY_NORMAL", "message": "I did the thing!"}],
    }
    for fn in (V03, V04):
        got = _run(fn, _input(response), desired_composite=XR)
        assert got["desired"]["resources"]["cool-resource"]["ready"] == "READY_TRUE"
        assert got["desired"]["composite"]["resource"] == {**XR, "status": {"widgets": 200}}
        assert got["results"] == [{"severity": "SEVERITY_NORMAL", "message": "I did the thing!"}]


def test_positions_count_runes() -> None:
    """Columns count characters of the JSON text, escapes as protojson writes them (quotes, control characters)."""
    schema = _proto.V1
    with pytest.raises(errors.GoError, match=r'^proto: \(line 1:26\): unknown field "zz"$'):
        protojson.unmarshal({"context": {"é\n": 'a"'}, "zz": 1}, schema, "RunFunctionResponse")
