"""What a Starlark script sees and what it may return; the predeclared helpers.

Scripts inspect ``req`` and return values into the test through the response's
``context``, so each case checks the real round trip through the sandbox.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from typing import Any

import pytest
from google.protobuf import json_format

from crossfn.functions import starlark
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource, response

UID = "75e4a668-035f-4ce8-8c45-f4d3ac850155"


@pytest.fixture(scope="module")
def fn() -> Iterator[starlark.Starlark]:
    with starlark.Starlark(workers=1) as f:
        yield f


def _request(script: str, **extra: Any) -> fnv1.RunFunctionRequest:
    body: dict[str, Any] = {
        "meta": {"tag": "t1", "capabilities": ["CAPABILITY_CAPABILITIES", "CAPABILITY_REQUIRED_RESOURCES"]},
        "observed": {"composite": {"resource": {"apiVersion": "x/v1", "kind": "XR", "spec": {"count": 2}}}},
        "input": {
            "apiVersion": "starlark.fn.crossfn.io/v1alpha1",
            "kind": "StarlarkScript",
            "script": script,
        },
        **extra,
    }
    return json_format.ParseDict(body, fnv1.RunFunctionRequest())


def _run(fn: starlark.Starlark, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
    rsp = response.to(req)
    fn(req, rsp)
    assert [r.message for r in rsp.results if r.severity == fnv1.SEVERITY_FATAL] == []
    return rsp


def _seen(fn: starlark.Starlark, expr: str, **extra: Any) -> Any:
    """Evaluate ``expr`` inside main(req) and return its value."""
    rsp = _run(fn, _request(f"def main(req):\n    return {{'context': {{'v': {expr}}}}}\n", **extra))
    return resource.struct_to_dict(rsp.context)["v"]


VIEWS = [
    pytest.param(
        "req['desired']['resources']", {}, {}, "desired resources exist on the first step", id="EmptyDesired"
    ),
    pytest.param(
        "req['observed']['resources']",
        {},
        {},
        "observed resources exist with none observed",
        id="EmptyObserved",
    ),
    pytest.param("req['context']", {}, {}, "context is a dict without a context", id="EmptyContext"),
    pytest.param(
        "req['required_resources']", {}, {}, "required resources exist before any fetch", id="EmptyRequired"
    ),
    pytest.param(
        "req['required_schemas']", {}, {}, "required schemas exist before any fetch", id="EmptySchemas"
    ),
    pytest.param(
        "req['credentials']", {}, {}, "credentials exist with none configured", id="EmptyCredentials"
    ),
    pytest.param(
        "req['desired']['composite']",
        {},
        {"resource": {}, "connection_details": {}, "ready": "READY_UNSPECIFIED"},
        "the desired composite has the full Resource shape",
        id="EmptyDesiredComposite",
    ),
    pytest.param(
        "req['observed']['composite']['resource']['spec']['count'] + 1",
        {},
        3,
        "whole numbers are ints, so arithmetic and range() work",
        id="IntegersStayIntegers",
    ),
    pytest.param(
        "req['meta']",
        {},
        {"tag": "t1", "capabilities": ["CAPABILITY_CAPABILITIES", "CAPABILITY_REQUIRED_RESOURCES"]},
        "the tag and capabilities are visible",
        id="Meta",
    ),
    pytest.param(
        "req['input']['kind']",
        {},
        "StarlarkScript",
        "the input itself is visible",
        id="Input",
    ),
    pytest.param(
        "req['observed']['resources']['db']['connection_details']['password']",
        {
            "observed": {
                "composite": {"resource": {}},
                "resources": {"db": {"resource": {}, "connection_details": {"password": "c2VjcmV0"}}},
            }
        },
        {"base64": "c2VjcmV0"},
        "connection details are bytes values, never decoded",
        id="ConnectionDetails",
    ),
    pytest.param(
        "req['required_schemas']['xr']['openapi_v3']['type']",
        {"required_schemas": {"xr": {"openapi_v3": {"type": "object"}}}},
        "object",
        "required schemas carry their OpenAPI document",
        id="Schemas",
    ),
]


@pytest.mark.parametrize(("expr", "extra", "want", "reason"), VIEWS)
def test_request_view(
    fn: starlark.Starlark, expr: str, extra: dict[str, Any], want: Any, reason: str
) -> None:
    assert _seen(fn, expr, **extra) == want, reason


CHILD_NAMES = [
    pytest.param(
        "cool-resource-", UID, "database", "cool-resource-38ce86992a27", id="SuccessPrefixWithHyphen"
    ),
    pytest.param("resource", UID, "database", "resource-38ce86992a27", id="SuccessPrefixWithoutHyphen"),
    pytest.param("", UID, "database", "38ce86992a27", id="SuccessEmptyPrefix"),
    pytest.param("parent-", "uid-123", "database", "parent-5f968d238736", id="SuccessDifferentUID"),
    pytest.param("parent-", UID, "storage", "parent-abcd22a110fe", id="SuccessDifferentChild"),
    pytest.param(
        "very-long-parent-name-" * 3,
        UID,
        "database",
        "very-long-parent-name-very-long-parent-name-very-l-38ce86992a27",
        id="SuccessTruncatedPrefix",
    ),
    pytest.param(
        "very-long-parent-name-without-ending-hyphen" * 2,
        UID,
        "database",
        "very-long-parent-name-without-ending-hyphenvery-lo-38ce86992a27",
        id="SuccessTruncatedNoHyphen",
    ),
]


@pytest.mark.parametrize(("parent", "uid", "child", "want"), CHILD_NAMES)
def test_child_name(fn: starlark.Starlark, parent: str, uid: str, child: str, want: str) -> None:
    """child_name matches Crossplane's TestChildName vectors."""
    assert _seen(fn, f"child_name({parent!r}, {uid!r}, {child!r})") == want


HELPERS = """
def main(req):
    rsp = response_to(req)
    rsp["desired"]["resources"]["a"] = {"resource": {"apiVersion": "v1", "kind": "ConfigMap"}}
    rsp["desired"]["resources"]["b"] = {"resource": {"apiVersion": "v1", "kind": "ConfigMap"}, "ready": False}
    set_ready(rsp, "a")
    normal(rsp, "hello", reason = "Greeting")
    warning(rsp, "careful", target = "TARGET_COMPOSITE_AND_CLAIM")
    set_condition(rsp, "RobotsReady", "True", "Available", message = "all here")
    require_resources(rsp, "cfg", "v1", "ConfigMap", match_name = "settings", namespace = "ns")
    require_resources(rsp, "all", "v1", "Secret", match_labels = {"app": "x"})
    rsp["ttl"] = "90s"
    return rsp
"""


def test_response_helpers(fn: starlark.Starlark) -> None:
    """Results, conditions, readiness, requirements and TTL land in the protobuf response."""
    rsp = _run(fn, _request(HELPERS))
    assert rsp.desired.resources["a"].ready == fnv1.READY_TRUE
    assert rsp.desired.resources["b"].ready == fnv1.READY_FALSE
    assert [(r.severity, r.message, r.reason, r.target) for r in rsp.results] == [
        (fnv1.SEVERITY_NORMAL, "hello", "Greeting", fnv1.TARGET_UNSPECIFIED),
        (fnv1.SEVERITY_WARNING, "careful", "", fnv1.TARGET_COMPOSITE_AND_CLAIM),
    ]
    (cond,) = rsp.conditions
    assert (cond.type, cond.status, cond.reason, cond.message) == (
        "RobotsReady",
        fnv1.STATUS_CONDITION_TRUE,
        "Available",
        "all here",
    )
    cfg = rsp.requirements.resources["cfg"]
    assert (cfg.api_version, cfg.kind, cfg.match_name, cfg.namespace) == ("v1", "ConfigMap", "settings", "ns")
    assert dict(rsp.requirements.resources["all"].match_labels.labels) == {"app": "x"}
    assert rsp.meta.ttl.ToTimedelta() == datetime.timedelta(seconds=90)


REQUIRED = [
    pytest.param({}, None, "not resolved yet: None, so the script can ask and wait", id="Unresolved"),
    pytest.param(
        {"required_resources": {"cfg": {}}},
        [],
        "resolved, nothing matched: an empty list",
        id="ResolvedEmpty",
    ),
    pytest.param(
        {"required_resources": {"cfg": {"items": [{"resource": {"kind": "ConfigMap", "data": {"a": "b"}}}]}}},
        [{"kind": "ConfigMap", "data": {"a": "b"}}],
        "resolved: the resources themselves",
        id="Resolved",
    ),
    pytest.param(
        {"extra_resources": {"cfg": {"items": [{"resource": {"kind": "Old"}}]}}},
        [{"kind": "Old"}],
        "the deprecated extra_resources field is read too",
        id="ExtraResources",
    ),
]


@pytest.mark.parametrize(("extra", "want", "reason"), REQUIRED)
def test_required_resources(fn: starlark.Starlark, extra: dict[str, Any], want: Any, reason: str) -> None:
    assert _seen(fn, "required_resources(req, 'cfg')", **extra) == want, reason


def test_missing_desired_and_context_pass_through(fn: starlark.Starlark) -> None:
    """A dict without desired or context keeps the request's, as the protocol requires."""
    req = _request(
        "def main(req):\n    return {'results': []}\n",
        desired={"resources": {"keep": {"resource": {"kind": "K"}}}},
        context={"k": "v"},
    )
    rsp = _run(fn, req)
    assert rsp.desired == req.desired
    assert rsp.context == req.context


def test_returned_desired_replaces(fn: starlark.Starlark) -> None:
    """A returned desired state is the whole desired state: resources left out are gone."""
    req = _request(
        "def main(req):\n    return {'desired': {'resources': {}}}\n",
        desired={"resources": {"drop": {"resource": {"kind": "K"}}}},
    )
    assert dict(_run(fn, req).desired.resources) == {}


def test_connection_details_round_trip(fn: starlark.Starlark) -> None:
    """String connection details go back as bytes."""
    rsp = _run(
        fn,
        _request(
            "def main(req):\n    rsp = response_to(req)\n"
            "    rsp['desired']['composite']['connection_details'] = {'url': 'https://x'}\n    return rsp\n"
        ),
    )
    assert dict(rsp.desired.composite.connection_details) == {"url": b"https://x"}
