"""environment-configs, extra-resources, dummy and cel-filter in ``crossfn test`` and served by ``crossfn function serve``.

``testdata/builtins`` is one pipeline of all four: the environment and a
ConfigMap decide whether cel-filter keeps the bucket function-dummy composes.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from crossfn import cli
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.proto.v1 import run_function_pb2_grpc as fnv1grpc
from crossfn.sdk import resource, testing

TESTDATA = Path(__file__).parent / "testdata" / "builtins"


def test_crossfn_test_runs_the_pipeline(capsys: pytest.CaptureFixture[str]) -> None:
    """The first test passes; the second asks for the bucket cel-filter removed, so it fails, naming it."""
    assert cli.main(["test", str(TESTDATA / "test.yaml")]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        "PASS builtins/The bucket is composed when the environment enables it",
        "FAIL builtins/The bucket is filtered out when the environment disables it",
        '    assertions[0].chainsaw.resources[0]: no rendered s3.aws.upbound.io/v1beta1 Bucket "bucket" '
        '(rendered: XStorage "storage", Table "table", Context)',
        "1 passed, 1 failed",
    ]
    for name in ("environment-configs v0.7.1", "extra-resources v0.3.0", "dummy v0.4.1", "cel-filter v0.2.0"):
        assert err.count(f"running function-{name} as the built-in") == 1, "crossfn test says each line once"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextlib.contextmanager
def _serve(name: str) -> Iterator[str]:
    """``crossfn function serve <name>`` on a free port; the address once it logs that it serves."""
    address = f"127.0.0.1:{_free_port()}"
    env = {**os.environ, "TLS_SERVER_CERTS_DIR": "", "INSECURE": "", "WORKERS": ""}
    proc = subprocess.Popen(
        [sys.executable, "-m", "crossfn", "function", "serve", name, "--address", address, "--insecure"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        seen = []
        for line in proc.stdout:
            seen.append(line)
            if "serving function" in line:
                break
        else:
            raise AssertionError(f"crossfn function serve {name} stopped: {''.join(seen)}")
        yield address
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        if proc.stdout is not None:
            proc.stdout.close()


def _call(address: str, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
    with grpc.insecure_channel(address) as channel:
        grpc.channel_ready_future(channel).result(timeout=30)
        rsp: fnv1.RunFunctionResponse = fnv1grpc.FunctionRunnerServiceStub(channel).RunFunction(
            req, timeout=30
        )
        return rsp


def _with_required(
    req: fnv1.RunFunctionRequest, name: str, items: list[dict[str, Any]]
) -> fnv1.RunFunctionRequest:
    req.required_resources[name].SetInParent()
    for item in items:
        resource.fill_struct(req.required_resources[name].items.add().resource, item)
    return req


CONFIG = {
    "apiVersion": "apiextensions.crossplane.io/v1beta1",
    "kind": "EnvironmentConfig",
    "metadata": {"name": "c"},
}
SERVED = [
    pytest.param(
        "environment-configs",
        _with_required(
            testing.build_request(
                input={"spec": {"environmentConfigs": [{"type": "Reference", "ref": {"name": "c"}}]}}
            ),
            "environment-config-0",
            [{**CONFIG, "data": {"k": "v"}}],
        ),
        {
            "context": {
                "apiextensions.crossplane.io/environment": {
                    "apiVersion": "internal.crossplane.io/v1alpha1",
                    "kind": "Environment",
                    "k": "v",
                }
            }
        },
        id="environment-configs",
    ),
    pytest.param(
        "extra-resources",
        _with_required(
            testing.build_request(
                input={
                    "spec": {
                        "extraResources": [
                            {
                                "kind": "EnvironmentConfig",
                                "apiVersion": CONFIG["apiVersion"],
                                "into": "e",
                                "ref": {"name": "c"},
                            }
                        ]
                    }
                }
            ),
            "e",
            [CONFIG],
        ),
        {"context": {"apiextensions.crossplane.io/extra-resources": {"e": [CONFIG]}}},
        id="extra-resources",
    ),
    pytest.param(
        "dummy",
        testing.build_request(
            input={"response": {"desired": {"composite": {"resource": {"status": {"n": 1}}}}}}
        ),
        {"desired": {"composite": {"resource": {"status": {"n": 1}}}}},
        id="dummy",
    ),
    pytest.param(
        "cel-filter",
        testing.build_request(
            input={"filters": [{"name": "b", "expression": "false"}]}, desired_resources={"a": {}, "b": {}}
        ),
        {"desired": {"resources": {"a": {"resource": {}}}}},
        id="cel-filter",
    ),
]


@pytest.mark.parametrize(("name", "req", "want"), SERVED)
def test_function_serve(name: str, req: fnv1.RunFunctionRequest, want: dict[str, Any]) -> None:
    """``crossfn function serve <name>`` serves the newest release's behaviour over gRPC."""
    with _serve(name) as address:
        got = testing.to_dict(_call(address, req))
    for key, value in want.items():
        assert got[key] == value, key
    assert not got.get("results"), got.get("results")
