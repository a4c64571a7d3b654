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

from typing import Any

from google.protobuf import json_format

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
        rsp.MergeFrom(json_format.ParseDict(overlay, fnv1.RunFunctionResponse()))


compose = Dummy(_gosdk.V0_4_0, _proto.V1)
"""function-dummy v0.4.0 and v0.4.1."""

v0_3_0 = Dummy(_gosdk.V0_1_0, _proto.V1BETA1)
"""function-dummy v0.2.0 to v0.3.0."""
