"""A client built from the official SDK's generated protos; run in its own process.

Usage: python official_client.py ADDRESS v1|v1beta1

Sends the fully populated request fixture to a crossfn server running
``peer_functions:echo`` and prints JSON: whether the request the server decoded
and the response this side decoded equal the fixtures, as the official classes
see them.
"""

from __future__ import annotations

import base64
import json
import pathlib
import sys

import grpc
from crossplane.function.proto.v1 import run_function_pb2 as fnv1
from crossplane.function.proto.v1 import run_function_pb2_grpc as fnv1grpc
from crossplane.function.proto.v1beta1 import run_function_pb2 as fnv1beta1
from crossplane.function.proto.v1beta1 import run_function_pb2_grpc as fnv1beta1grpc
from google.protobuf import json_format

FIXTURES = pathlib.Path(__file__).parent / "fixtures"


def main() -> None:
    address, version = sys.argv[1], sys.argv[2]
    pb, stub_mod = (fnv1, fnv1grpc) if version == "v1" else (fnv1beta1, fnv1beta1grpc)
    req = json_format.ParseDict(
        json.loads((FIXTURES / "full_request.json").read_text()), pb.RunFunctionRequest()
    )
    want = json_format.ParseDict(
        json.loads((FIXTURES / "full_response.json").read_text()), pb.RunFunctionResponse()
    )
    with grpc.insecure_channel(address) as channel:
        got = stub_mod.FunctionRunnerServiceStub(channel).RunFunction(req, timeout=10)
    seen = pb.RunFunctionRequest.FromString(base64.b64decode(got.context.fields["request"].string_value))
    del got.context.fields["request"]
    print(
        json.dumps(
            {
                "request_equal": seen == req,
                "response_equal": got == want,
                "response": json_format.MessageToDict(got),
            }
        )
    )


if __name__ == "__main__":
    main()
