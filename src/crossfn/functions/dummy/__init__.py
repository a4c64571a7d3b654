"""dummy: answer with the response the input spells out, as function-dummy.

Input: ``dummy.fn.crossplane.io/v1beta1`` ``Response`` with ``response``, a
``RunFunctionResponse`` in its protobuf JSON form. The function starts the
usual response (desired state and context passed through, a 60 s TTL) and
merges that one over it with protobuf's merge rules: fields that are set
replace, lists (results, conditions) are appended to, map entries (desired
composed resources, connection details, context keys, the top-level keys of a
resource) are replaced whole.

Releases differ in which fields ``response`` may have and how the input is
decoded (:mod:`._proto`):

=================  ==============================================================
release            behaviour
=================  ==============================================================
v0.2.0 to v0.3.0   function-sdk-go v0.1.0: unknown input fields are ignored; the
                   ``v1beta1`` response of November 2023 (no requirements,
                   conditions or output)
v0.4.0, v0.4.1     function-sdk-go of July 2025: unknown input fields are
                   rejected; the ``v1`` response; Fatal results target the XR
=================  ==============================================================
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

from google.protobuf import json_format, struct_pb2

from crossfn import errors
from crossfn.functions import _gosdk
from crossfn.functions.dummy import _proto
from crossfn.gocompat import jsonstruct as js
from crossfn.gocompat import protojson
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource

__all__ = ["Dummy", "compose"]

_INPUT = js.Struct(
    "v1beta1.Response",
    {
        "apiVersion": js.STRING,
        "kind": js.STRING,
        "metadata": js.ANY,
        "response": js.Scalar("any", "runtime.RawExtension"),
    },
)


class Dummy:
    """function-dummy built with one function-sdk-go (``sdk``) and its protocol (``schema``)."""

    def __init__(self, sdk: _gosdk.SDK, schema: protojson.Schema) -> None:
        self.sdk = sdk
        self.schema = schema

    def __call__(self, req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        data: dict[str, Any] = resource.struct_to_dict(req.input, integers=False)
        try:
            inp = self.sdk.get_input(data, _INPUT)
        except errors.FunctionInputError as exc:
            self.sdk.fatal(rsp, f"cannot get Function input from {self.sdk.request_type}: {exc}")
            return
        try:
            overlay = protojson.unmarshal(inp.get("response"), self.schema, "RunFunctionResponse")
        except errors.GoError as exc:
            self.sdk.fatal(rsp, f"cannot unmarshal RunFunctionResponse from {self.sdk.request_type}: {exc}")
            return
        _merge(rsp, overlay)


def _merge(rsp: fnv1.RunFunctionResponse, overlay: Mapping[str, Any]) -> None:
    """``rsp.MergeFrom(overlay)``, with the Struct values (the context, the output, the resources) filled in place.

    protobuf's Python runtime refuses messages nested more than 100 levels, in ``json_format`` and in
    ``MergeFrom``, which a Struct reaches at about 33 levels of JSON; Go's protobuf takes 10,000, and so do the
    requests crossfn decodes (:mod:`crossfn.proto.wire`). So the rest of the response is parsed as protobuf JSON
    and merged, and each Struct value is filled in place: a Struct's merge replaces the top-level keys it has,
    as :func:`~crossfn.sdk.resource.fill_struct` does, and a map entry (a desired resource) is replaced whole by
    the first merge before its resource is filled.
    """
    shallow = dict(overlay)
    structs: list[tuple[Callable[[], struct_pb2.Struct], dict[str, Any]]] = []
    for key in ("context", "output"):
        value = shallow.get(key)
        if isinstance(value, dict):
            del shallow[key]
            structs.append((functools.partial(getattr, rsp, key), value))
    desired = shallow.get("desired")
    if isinstance(desired, dict):
        desired = shallow["desired"] = dict(desired)
        composite = desired.get("composite")
        if isinstance(composite, dict) and isinstance(composite.get("resource"), dict):
            composite = desired["composite"] = dict(composite)
            structs.append((lambda: rsp.desired.composite.resource, composite.pop("resource")))
        resources = desired.get("resources")
        if isinstance(resources, dict):
            resources = desired["resources"] = dict(resources)
            for name, found in resources.items():
                if isinstance(found, dict) and isinstance(found.get("resource"), dict):
                    entry = resources[name] = dict(found)
                    structs.append((functools.partial(_resource_of, rsp, name), entry.pop("resource")))
    rsp.MergeFrom(json_format.ParseDict(shallow, fnv1.RunFunctionResponse()))
    for target, value in structs:
        resource.fill_struct(target(), value)


def _resource_of(rsp: fnv1.RunFunctionResponse, name: str) -> struct_pb2.Struct:
    return rsp.desired.resources[name].resource


compose = Dummy(_gosdk.V0_4_0, _proto.V1)
"""function-dummy v0.4.0 and v0.4.1."""

v0_3_0 = Dummy(_gosdk.V0_1_0, _proto.V1BETA1)
"""function-dummy v0.2.0 to v0.3.0."""
