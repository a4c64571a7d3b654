import dataclasses
import unittest

from function import fn
from google.protobuf import duration_pb2 as durationpb
from google.protobuf import json_format
from google.protobuf import struct_pb2 as structpb

from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import logging, resource


def xr(name: str) -> fnv1.Resource:
    return fnv1.Resource(
        resource=resource.dict_to_struct(
            {
                "apiVersion": "example.crossplane.io/v1",
                "kind": "XR",
                "metadata": {"name": name},
                "spec": {"region": "us-west-2"},
            }
        )
    )


def bucket(version: str) -> fnv1.Resource:
    return fnv1.Resource(
        resource=resource.dict_to_struct(
            {
                "apiVersion": f"s3.aws.upbound.io/{version}",
                "kind": "Bucket",
                "spec": {"forProvider": {"region": "us-west-2"}},
            }
        )
    )


def replica(name: str) -> fnv1.Resource:
    return fnv1.Resource(
        resource=resource.dict_to_struct(
            {
                "apiVersion": "s3.aws.upbound.io/v1beta2",
                "kind": "Bucket",
                "metadata": {"name": name},
                "spec": {"forProvider": {"region": "us-west-2"}},
            }
        )
    )


class TestFunctionRunner(unittest.IsolatedAsyncioTestCase):
    def setUp(self) -> None:
        # Allow larger diffs, since we diff large strings of JSON.
        self.maxDiff = 2000

        logging.configure(level=logging.Level.DISABLED)

    async def test_run_function(self) -> None:
        @dataclasses.dataclass
        class TestCase:
            reason: str
            req: fnv1.RunFunctionRequest
            want: fnv1.RunFunctionResponse

        cases = [
            TestCase(
                reason="The function should compose a bucket and a replica named after the XR.",
                req=fnv1.RunFunctionRequest(
                    input=resource.dict_to_struct({"version": "v1beta2"}),
                    observed=fnv1.State(composite=xr("my-xr")),
                ),
                want=fnv1.RunFunctionResponse(
                    meta=fnv1.ResponseMeta(ttl=durationpb.Duration(seconds=60)),
                    desired=fnv1.State(
                        resources={"bucket": bucket("v1beta2"), "replica": replica("my-xrreplica62580")},
                    ),
                    conditions=[
                        fnv1.Condition(
                            type="BucketReady", status=fnv1.STATUS_CONDITION_UNKNOWN, reason="Observed"
                        )
                    ],
                    results=[
                        fnv1.Result(
                            severity=fnv1.SEVERITY_NORMAL,
                            message="I was run with input v1beta2!",
                        )
                    ],
                    context=structpb.Struct(),
                ),
            ),
            TestCase(
                reason="The tag, desired XR and context pass through; a long XR name is cut to fit.",
                req=fnv1.RunFunctionRequest(
                    meta=fnv1.RequestMeta(tag="hello"),
                    input=resource.dict_to_struct({"version": "v1"}),
                    observed=fnv1.State(
                        composite=xr("a-very-long-composite-resource-name-that-goes-on-and-on-forever"),
                        resources={
                            "bucket": fnv1.Resource(
                                resource=resource.dict_to_struct(
                                    {"status": {"conditions": [{"type": "Ready", "status": "True"}]}}
                                )
                            )
                        },
                    ),
                    desired=fnv1.State(
                        composite=fnv1.Resource(resource=resource.dict_to_struct({"status": {"ok": True}}))
                    ),
                    context=resource.dict_to_struct({"from": "earlier step"}),
                ),
                want=fnv1.RunFunctionResponse(
                    meta=fnv1.ResponseMeta(tag="hello", ttl=durationpb.Duration(seconds=60)),
                    desired=fnv1.State(
                        composite=fnv1.Resource(resource=resource.dict_to_struct({"status": {"ok": True}})),
                        resources={
                            "bucket": bucket("v1"),
                            "replica": replica(
                                "a-very-long-composite-resource-name-that-goes-on-and-on-f72836"
                            ),
                        },
                    ),
                    conditions=[
                        fnv1.Condition(
                            type="BucketReady", status=fnv1.STATUS_CONDITION_TRUE, reason="Observed"
                        )
                    ],
                    results=[
                        fnv1.Result(
                            severity=fnv1.SEVERITY_NORMAL,
                            message="I was run with input v1!",
                        )
                    ],
                    context=resource.dict_to_struct({"from": "earlier step"}),
                ),
            ),
        ]

        runner = fn.FunctionRunner()

        for case in cases:
            got = await runner.RunFunction(case.req, None)
            self.assertEqual(
                json_format.MessageToDict(case.want),
                json_format.MessageToDict(got),
                "-want, +got: " + case.reason,
            )


if __name__ == "__main__":
    unittest.main()
