"""Request tags (upstream core-2.4, core-4.6 TestTag)."""

from crossfn.engine import _tag
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource


def _req() -> fnv1.RunFunctionRequest:
    req = fnv1.RunFunctionRequest()
    req.observed.composite.resource.CopyFrom(
        resource.dict_to_struct({"apiVersion": "example.org/v1", "kind": "Test"})
    )
    return req


def test_TestTag_NilRequest() -> None:
    assert _tag.tag(_req()) == "60e065117e1992fb17c3c5ef2a50de370eeec23fbd380836d31ad388bbe4e082", (
        "Crossplane's golden tag"
    )


def test_tag_ignores_meta() -> None:
    req = _req()
    req.meta.tag = "something"
    req.meta.capabilities.append(fnv1.CAPABILITY_CONDITIONS)
    assert _tag.tag(req) == _tag.tag(_req()), "meta is never part of the hash"
    assert req.meta.tag == "something", "computing a tag does not modify the request"


def test_tag_is_independent_of_map_order() -> None:
    a, b = fnv1.RunFunctionRequest(), fnv1.RunFunctionRequest()
    a.context.CopyFrom(resource.dict_to_struct({"x": 1, "y": 2}))
    b.context.CopyFrom(resource.dict_to_struct({"y": 2, "x": 1}))
    assert _tag.tag(a) == _tag.tag(b), "deterministic encoding sorts Struct keys"
