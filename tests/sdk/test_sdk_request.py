"""Tests for crossfn.sdk.request: reading what Crossplane sends."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest

from crossfn import errors
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import request, resource


def _req() -> fnv1.RunFunctionRequest:
    req = fnv1.RunFunctionRequest(
        meta=fnv1.RequestMeta(
            tag="t", capabilities=[fnv1.CAPABILITY_CAPABILITIES, fnv1.CAPABILITY_REQUIRED_SCHEMAS]
        ),
        input=resource.dict_to_struct({"spec": {"count": 2}}),
        context=resource.dict_to_struct({request.ENVIRONMENT_KEY: {"region": "eu"}, "nothing": None}),
    )
    req.observed.composite.resource.CopyFrom(resource.dict_to_struct({"kind": "XR", "spec": {"n": 1}}))
    req.observed.composite.connection_details["password"] = b"\xff\x00"
    req.observed.resources["bucket"].resource.CopyFrom(resource.dict_to_struct({"kind": "Bucket"}))
    req.observed.resources["bucket"].connection_details["key"] = b"k"
    req.desired.composite.resource.CopyFrom(resource.dict_to_struct({"status": {"x": 1}}))
    req.desired.resources["queue"].resource.CopyFrom(resource.dict_to_struct({"kind": "Queue"}))
    req.required_resources["found"].items.add().resource.CopyFrom(
        resource.dict_to_struct({"kind": "A", "n": 1.0})
    )
    req.required_resources["empty"].SetInParent()
    req.required_schemas["xr"].openapi_v3.CopyFrom(resource.dict_to_struct({"type": "object"}))
    req.required_schemas["missing"].SetInParent()
    req.credentials["creds"].credential_data.data["bin"] = b"\x80\x81binary"
    return req


@pytest.mark.parametrize(
    ("reason", "name", "items", "resolved"),
    [
        pytest.param(
            "Resolved and matched: items as dicts, ints kept.",
            "found",
            [{"kind": "A", "n": 1}],
            True,
            id="Found",
        ),
        pytest.param("Resolved, nothing matched: empty but resolved.", "empty", [], True, id="ResolvedEmpty"),
        pytest.param("Not resolved yet: empty and not resolved.", "later", [], False, id="Unresolved"),
    ],
)
def test_required_resources(reason: str, name: str, items: list[dict[str, Any]], resolved: bool) -> None:
    req = _req()
    assert request.get_required_resources(req, name) == items, reason
    assert request.get_required_resource(req, name) == (items[0] if items else None), reason
    assert request.required_resources_resolved(req, name) is resolved, reason
    assert "later" not in req.required_resources, "reading must not insert map entries"


@pytest.mark.parametrize(
    ("reason", "name", "schema", "resolved"),
    [
        pytest.param("Resolved and found.", "xr", {"type": "object"}, True, id="Found"),
        pytest.param(
            "Resolved, kind not found: None but resolved.", "missing", None, True, id="ResolvedMissing"
        ),
        pytest.param("Not resolved yet: None and not resolved.", "later", None, False, id="Unresolved"),
    ],
)
def test_required_schema(reason: str, name: str, schema: dict[str, Any] | None, resolved: bool) -> None:
    req = _req()
    assert request.get_required_schema(req, name) == schema, reason
    assert request.required_schema_resolved(req, name) is resolved, reason


def test_get_required_schemas_lists_every_resolved_schema() -> None:
    assert request.get_required_schemas(_req()) == {"xr": {"type": "object"}, "missing": None}


@pytest.mark.parametrize(
    ("reason", "name", "want"),
    [
        pytest.param(
            "Binary secrets stay bytes.",
            "creds",
            request.Credentials("credential_data", {"bin": b"\x80\x81binary"}),
            id="Binary",
        ),
        pytest.param(
            "Missing credentials are empty, as the official SDK.",
            "nope",
            request.Credentials("data", {}),
            id="Missing",
        ),
    ],
)
def test_get_credentials(reason: str, name: str, want: request.Credentials) -> None:
    assert request.get_credentials(_req(), name) == want, reason


def test_capabilities() -> None:
    req = _req()
    assert request.advertises_capabilities(req)
    assert request.has_capability(req, fnv1.CAPABILITY_REQUIRED_SCHEMAS)
    assert not request.has_capability(req, fnv1.CAPABILITY_CREDENTIALS)
    assert not request.advertises_capabilities(fnv1.RunFunctionRequest())


@pytest.mark.parametrize(
    ("reason", "key", "want"),
    [
        pytest.param(
            "The environment key reads as a dict.",
            request.ENVIRONMENT_KEY,
            ({"region": "eu"}, True),
            id="Environment",
        ),
        pytest.param("A present null is found.", "nothing", (None, True), id="PresentNull"),
        pytest.param("An absent key is not found.", "absent", (None, False), id="Absent"),
    ],
)
def test_get_context_key(reason: str, key: str, want: tuple[Any, bool]) -> None:
    assert request.get_context_key(_req(), key) == want, reason


def test_get_context_key_without_context() -> None:
    assert request.get_context_key(fnv1.RunFunctionRequest(), "k") == (None, False)


class _Spec(pydantic.BaseModel):
    count: int


class _Input(pydantic.BaseModel):
    spec: _Spec


class _Defaults(pydantic.BaseModel):
    size: int = 1


def test_get_input_validates_into_model() -> None:
    assert request.get_input(_req(), _Input) == _Input(spec=_Spec(count=2))


def test_get_input_absent_is_empty() -> None:
    assert request.get_input(fnv1.RunFunctionRequest(), _Defaults) == _Defaults()


def test_get_input_error_names_the_field() -> None:
    req = fnv1.RunFunctionRequest(input=resource.dict_to_struct({"spec": {"count": "many"}}))
    with pytest.raises(
        errors.FunctionInputError,
        match=r"^cannot validate input: spec\.count: Input should be a valid integer",
    ):
        request.get_input(req, _Input)


def test_state_getters() -> None:
    req = _req()
    assert request.get_observed_composite_resource(req) == {"kind": "XR", "spec": {"n": 1}}
    assert request.get_observed_composite_connection_details(req) == {"password": b"\xff\x00"}
    assert request.get_observed_composed_resources(req) == {"bucket": {"kind": "Bucket"}}
    assert request.get_observed_composed_connection_details(req) == {"bucket": {"key": b"k"}}
    assert request.get_desired_composite_resource(req) == {"status": {"x": 1}}
    assert request.get_desired_composed_resources(req) == {"queue": {"kind": "Queue"}}
    assert request.get_observed_composite_resource(fnv1.RunFunctionRequest()) == {}


def test_get_watched_resource() -> None:
    req = fnv1.RunFunctionRequest()
    assert request.get_watched_resource(req) is None
    req.required_resources[request.WATCHED_RESOURCE].items.add().resource.CopyFrom(
        resource.dict_to_struct({"kind": "W"})
    )
    assert request.get_watched_resource(req) == {"kind": "W"}
