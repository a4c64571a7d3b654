"""function-sdk-go as a Go function's release vendored it: what the user sees of the SDK.

Functions written in Go read their input with ``request.GetInput`` and fail
with ``response.Fatal``; both changed between SDK releases, and the texts reach
users. Four things tell the releases apart:

=============  ==============  =======================  ==============================================
SDK            protocol        input decoding           ``GetInput``'s wrapper; ``Fatal``'s target
=============  ==============  =======================  ==============================================
v0.1.0         v1beta1         go-json-experiment,      ``cannot get Function input %T from %T, into,
(2023-11) to   (``*v1beta1.``  unknown fields skipped   req`` (the verbs are literal: a bug); no target
2024-01 builds ``Run...``)
v0.2.0         v1beta1         rejects unknown fields   as above
v0.4.0 and on  v1              rejects unknown fields   ``cannot get function input *<type> from
                                                        *v1.RunFunctionRequest``; ``TARGET_COMPOSITE``
=============  ==============  =======================  ==============================================

Below the wrapper comes ``cannot unmarshal JSON from *structpb.Struct into
*<type>: <decoder error>`` (:mod:`crossfn.gocompat.jsonstruct`). Each built-in
names the SDK its release vendored (one :class:`SDK`) and writes its Fatal
results and input errors through it: its code raises :class:`Fatal` where
upstream's returns ``response.Fatal``, and :meth:`SDK.run` writes the result.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from crossfn import errors
from crossfn.gocompat import jsonstruct
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import response

__all__ = ["SDK", "V0_1_0", "V0_2_0", "V0_4_0", "Fatal"]


class Fatal(Exception):  # noqa: N818 -- a control-flow signal carrying the Fatal result's text, not an error of ours
    """Stop the function with one Fatal result (the message is upstream's)."""


@dataclasses.dataclass(frozen=True)
class SDK:
    """One function-sdk-go release line (see the module table)."""

    proto: str
    """``v1beta1`` or ``v1``: the package of the request's Go type, as ``%T`` prints it."""
    decoder: str
    """The :mod:`~crossfn.gocompat.jsonstruct` decoder ``GetInput`` uses."""
    targets: bool
    """Whether ``response.Fatal`` (and Warning, Normal) target the composite."""

    @property
    def request_type(self) -> str:
        """``%T`` of the request: ``*v1beta1.RunFunctionRequest`` or ``*v1.RunFunctionRequest``."""
        return f"*{self.proto}.RunFunctionRequest"

    def get_input(self, data: Mapping[str, Any], into: jsonstruct.Struct) -> dict[str, Any]:
        """``request.GetInput``: decode the input into ``into``; raise with the SDK's whole wrapped text."""
        try:
            return jsonstruct.decode(data, into, decoder=self.decoder)
        except errors.GoError as exc:
            if self.proto == "v1":
                wrapper = f"cannot get function input *{into.go} from {self.request_type}"
            else:
                wrapper = "cannot get Function input %T from %T, into, req"
            raise errors.FunctionInputError(
                f"{wrapper}: cannot unmarshal JSON from *structpb.Struct into *{into.go}: {exc}"
            ) from exc

    def fatal(self, rsp: fnv1.RunFunctionResponse, message: str) -> None:
        """``response.Fatal``: a Fatal result, targeting the composite from v0.4.0 on."""
        response.fatal(rsp, message, target=fnv1.TARGET_COMPOSITE if self.targets else None)

    def run(
        self,
        body: Callable[[fnv1.RunFunctionRequest, fnv1.RunFunctionResponse], None],
        req: fnv1.RunFunctionRequest,
        rsp: fnv1.RunFunctionResponse,
    ) -> None:
        """``RunFunction``: run ``body``; a :class:`Fatal` it raises becomes :meth:`fatal` with its text."""
        try:
            body(req, rsp)
        except Fatal as exc:
            self.fatal(rsp, str(exc))


V0_1_0 = SDK(proto="v1beta1", decoder=jsonstruct.V2, targets=False)
"""function-sdk-go v0.1.0 and its builds up to January 2024 (``v0.2.0-rc.0.0.20240123...``)."""

V0_2_0 = SDK(proto="v1beta1", decoder=jsonstruct.STRICT, targets=False)
"""function-sdk-go v0.2.0 (February 2024)."""

V0_4_0 = SDK(proto="v1", decoder=jsonstruct.STRICT, targets=True)
"""function-sdk-go v0.4.0 (December 2024) and every later release up to v0.7."""
