"""Tests for crossfn.sdk.testing and the crossfn_function pytest fixture."""

from __future__ import annotations

import pathlib

import pytest

from crossfn import errors
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import request, response, testing
from crossfn.sdk.pytest_plugin import FunctionTester

_REQUEST = """
meta: {tag: t1}
observed:
  composite:
    resource: {apiVersion: example.org/v1, kind: XR, spec: {count: 2}}
input: {name: web}
"""


def _compose(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    xr = request.get_observed_composite_resource(req)
    for i in range(xr["spec"]["count"]):
        response.set_desired_composed_resource(rsp, f"r{i}", {"kind": "Bucket", "spec": {"index": i}})
    response.normal(rsp, "done")


_WANT = """
meta: {tag: t1, ttl: 60s}
desired:
  resources:
    r0: {resource: {kind: Bucket, spec: {index: 0}}}
    r1: {resource: {kind: Bucket, spec: {index: 1}}}
results:
- {severity: SEVERITY_NORMAL, message: done}
"""


def test_yaml_request_run_and_compare() -> None:
    rsp = testing.run(_compose, testing.request_from_yaml(_REQUEST))
    testing.assert_response(rsp, _WANT)


async def test_arun_inside_a_loop() -> None:
    rsp = await testing.arun(_compose, testing.request_from_yaml(_REQUEST))
    testing.assert_response(rsp, _WANT)


def test_request_from_file(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "req.yaml"
    path.write_text(_REQUEST)
    assert testing.request_from_yaml(path).meta.tag == "t1"


def test_mismatch_shows_a_readable_diff() -> None:
    rsp = testing.run(_compose, testing.request_from_yaml(_REQUEST))
    with pytest.raises(AssertionError) as info:
        testing.assert_response(rsp, _WANT.replace("index: 1", "index: 7"))
    text = str(info.value)
    assert "-want +got" in text
    assert "-          index: 7" in text and "+          index: 1" in text


def test_ignore_paths() -> None:
    rsp = testing.run(_compose, testing.request_from_yaml(_REQUEST))
    assert testing.diff(_WANT.replace("60s", "5s"), rsp, ignore=["meta.ttl"]) == ""


@pytest.mark.parametrize(
    ("reason", "text", "message"),
    [
        pytest.param(
            "An unknown field is named.", "bogus: 1", "cannot parse RunFunctionRequest", id="UnknownField"
        ),
        pytest.param("Not a mapping.", "- 1", "want a mapping, got list", id="NotMapping"),
        pytest.param("Broken YAML.", "a: [", "cannot read request YAML", id="BadYAML"),
    ],
)
def test_request_from_yaml_errors(reason: str, text: str, message: str) -> None:
    with pytest.raises(errors.InputError, match=message):
        testing.request_from_yaml(text)


def test_yaml_is_read_as_kubernetes_reads_it() -> None:
    """Request and expectation YAML go through go-yaml v2's rules: a plain ``y`` is true, ``22:00`` a string."""
    req = testing.request_from_yaml("input: {enabled: y, at: 22:00}\n")
    assert testing.to_dict(req)["input"] == {"enabled": True, "at": "22:00"}
    assert testing.to_dict("desired: {composite: {resource: {spec: {on: n}}}}") == {
        "desired": {"composite": {"resource": {"spec": {"true": False}}}}
    }


def test_build_request_from_dicts() -> None:
    req = testing.build_request(
        tag="x",
        observed_composite={"kind": "XR"},
        observed_resources={"a": {"kind": "A"}},
        desired_resources={"b": {"kind": "B"}},
        input={"k": 1},
        context={request.ENVIRONMENT_KEY: {"e": 1}},
        required_resources={"none": [], "one": [{"kind": "C"}]},
        required_schemas={"missing": None, "xr": {"type": "object"}},
        credentials={"c": {"k": b"\x00"}},
        capabilities=[fnv1.CAPABILITY_CAPABILITIES],
    )
    assert (
        request.required_resources_resolved(req, "none") and request.get_required_resources(req, "none") == []
    )
    assert request.get_required_resource(req, "one") == {"kind": "C"}
    assert request.get_required_schemas(req) == {"missing": None, "xr": {"type": "object"}}
    assert request.get_credentials(req, "c").data == {"k": b"\x00"}
    assert request.get_context_key(req, request.ENVIRONMENT_KEY) == ({"e": 1}, True)
    assert request.advertises_capabilities(req)
    assert testing.to_dict(req)["desired"] == {"resources": {"b": {"resource": {"kind": "B"}}}}


def test_fixture(crossfn_function: FunctionTester) -> None:
    rsp = crossfn_function.run(_compose, crossfn_function.request(observed_composite={"spec": {"count": 1}}))
    crossfn_function.assert_response(
        rsp,
        {"desired": {"resources": {"r0": {"resource": {"kind": "Bucket", "spec": {"index": 0}}}}}},
        ignore=["meta", "results"],
    )
