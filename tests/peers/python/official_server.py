"""The official SDK's runtime serving an echo function; run in its own process.

Usage: python official_server.py ADDRESS

The servicer answers with the fully populated response fixture plus the
request's bytes as the official classes decoded them, so a crossfn client can
check both directions.
"""

from __future__ import annotations

import base64
import json
import pathlib
import sys

from crossplane.function import runtime
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from crossplane.function.proto.v1 import run_function_pb2_grpc as fnv1grpc
from google.protobuf import json_format

FIXTURES = pathlib.Path(__file__).parent / "fixtures"


class Echo(fnv1grpc.FunctionRunnerServiceServicer):
    """Answer with the full response fixture and the request as decoded."""

    def __init__(self) -> None:
        data = json.loads((FIXTURES / "full_response.json").read_text())
        self.full = json_format.ParseDict(data, fnv1.RunFunctionResponse())

    async def RunFunction(self, req: fnv1.RunFunctionRequest, context: object) -> fnv1.RunFunctionResponse:
        out = fnv1.RunFunctionResponse()
        out.CopyFrom(self.full)
        out.context.fields["request"].string_value = base64.b64encode(req.SerializeToString()).decode()
        return out


if __name__ == "__main__":
    runtime.serve(Echo(), sys.argv[1], creds=None, insecure=True)  # type: ignore[arg-type]  # the SDK's own template passes None
