"""crossfn functions the peer tests serve with ``crossfn function serve peer_functions:NAME``."""

from __future__ import annotations

import base64
import json
import os
import pathlib

from google.protobuf import json_format

from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import response

FIXTURES = pathlib.Path(__file__).parent / "fixtures"


def full_response() -> fnv1.RunFunctionResponse:
    """The fully populated response every peer compares against."""
    data = json.loads((FIXTURES / "full_response.json").read_text())
    return json_format.ParseDict(data, fnv1.RunFunctionResponse())


_FULL = full_response()


def echo(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> fnv1.RunFunctionResponse:
    """Answer with the full response, plus the request's bytes as this side decoded them."""
    out = fnv1.RunFunctionResponse()
    out.CopyFrom(_FULL)
    out.context.fields["request"].string_value = base64.b64encode(req.SerializeToString()).decode()
    return out


def pid(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    """Say which process answered."""
    response.normal(rsp, str(os.getpid()))


def raises(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    """Fail the way buggy function code does."""
    raise RuntimeError("kaput")


async def apid(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    """Say which process answered, from an async function (served by the asyncio server)."""
    response.normal(rsp, str(os.getpid()))
