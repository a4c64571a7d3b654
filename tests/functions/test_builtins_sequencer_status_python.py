"""sequencer, status-transformer and python reach every surface: resolve, the controller's transport,
``crossfn function serve <name>``, render (both modes), ``crossfn test``, and ``--no-exec``."""

from __future__ import annotations

import contextlib
import pathlib
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from typing import Any

import grpc
import pytest
import yaml
from google.protobuf import json_format

from crossfn import cli, functions
from crossfn.controller.packages import _functions
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.proto.v1 import run_function_pb2_grpc as fnv1grpc

SEQ = "xpkg.crossplane.io/crossplane-contrib/function-sequencer:v0.6.0"
ST = "xpkg.crossplane.io/crossplane-contrib/function-status-transformer:v0.5.1"
PY = "xpkg.crossplane.io/crossplane-contrib/function-python:v0.4.0"

SEQ_INPUT = {
    "apiVersion": "sequencer.fn.crossplane.io/v1beta1",
    "kind": "Input",
    "rules": [{"sequence": ["a", "b"]}],
}
ST_INPUT = {
    "apiVersion": "function-status-transformer.fn.crossplane.io/v1beta1",
    "kind": "StatusTransformation",
}
PY_INPUT = {
    "apiVersion": "python.fn.crossplane.io/v1beta1",
    "kind": "Script",
    "script": "def compose(req, rsp):\n    rsp.desired.resources['b'].resource.update({'kind': 'B'})\n",
}

# (package, built-in key, step input, a check of the response, short name served)
CASES = [
    pytest.param(SEQ, "sequencer", SEQ_INPUT, "Delaying creation", id="Sequencer"),
    pytest.param(ST, "status-transformer", ST_INPUT, "StatusTransformationSuccess", id="StatusTransformer"),
    pytest.param(PY, "python", PY_INPUT, '"b"', id="Python"),
]


def _request(inp: Mapping[str, Any]) -> fnv1.RunFunctionRequest:
    return json_format.ParseDict(
        {"input": inp, "desired": {"resources": {"b": {"resource": {"kind": "B"}}}}},
        fnv1.RunFunctionRequest(),
    )


class _Cache:
    def __init__(self, *objects: dict[str, Any]) -> None:
        self.objects = list(objects)

    def get(self, name: str, namespace: str = "") -> dict[str, Any] | None:
        return next((o for o in self.objects if o["metadata"]["name"] == name), None)

    def list(
        self, namespace: str | None = None, labels: Mapping[str, str] | None = None
    ) -> list[dict[str, Any]]:
        return []


def _text(rsp: fnv1.RunFunctionResponse) -> str:
    return json_format.MessageToJson(rsp)


@pytest.mark.parametrize(("package", "key", "inp", "want"), CASES)
async def test_controller_transport_runs_the_builtin(
    package: str, key: str, inp: dict[str, Any], want: str
) -> None:
    fn = {
        "apiVersion": "pkg.crossplane.io/v1",
        "kind": "Function",
        "metadata": {"name": "f"},
        "spec": {"package": package},
    }
    assert _functions.route(fn) == _functions.Route("builtin", key)
    transport = _functions.FunctionTransport(_Cache(fn), _Cache())
    try:
        rsp = await transport.run_function("f", _request(inp))
    finally:
        await transport.aclose()
    assert want in _text(rsp)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextlib.contextmanager
def _served(name: str) -> Iterator[str]:
    address = f"127.0.0.1:{_free_port()}"
    proc = subprocess.Popen(
        [sys.executable, "-m", "crossfn", "function", "serve", name, "--insecure", "--address", address],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield address
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.mark.slow
@pytest.mark.parametrize(("package", "key", "inp", "want"), CASES)
def test_function_serve(package: str, key: str, inp: dict[str, Any], want: str) -> None:
    with _served(key) as address, grpc.insecure_channel(address) as channel:
        grpc.channel_ready_future(channel).result(timeout=60)
        stub = fnv1grpc.FunctionRunnerServiceStub(channel)
        deadline = time.monotonic() + 30
        while True:
            try:
                rsp = stub.RunFunction(_request(inp), timeout=30)
                break
            except grpc.RpcError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
    assert want in _text(rsp)


def _write(tmp: pathlib.Path, package: str, inp: dict[str, Any]) -> list[str]:
    xr = {"apiVersion": "example.org/v1", "kind": "XR", "metadata": {"name": "xr"}, "spec": {}}
    comp = {
        "apiVersion": "apiextensions.crossplane.io/v1",
        "kind": "Composition",
        "metadata": {"name": "c"},
        "spec": {
            "compositeTypeRef": {"apiVersion": "example.org/v1", "kind": "XR"},
            "mode": "Pipeline",
            "pipeline": [{"step": "s", "functionRef": {"name": "f"}, "input": inp}],
        },
    }
    fn = {
        "apiVersion": "pkg.crossplane.io/v1",
        "kind": "Function",
        "metadata": {"name": "f"},
        "spec": {"package": package},
    }
    paths = []
    for name, doc in (("xr.yaml", xr), ("composition.yaml", comp), ("functions.yaml", fn)):
        (tmp / name).write_text(yaml.safe_dump(doc))
        paths.append(str(tmp / name))
    return paths


@pytest.mark.parametrize("mode", [[], ["--classic"]], ids=["Default", "Classic"])
@pytest.mark.parametrize(("package", "key", "inp", "want"), CASES)
def test_render(
    *,
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
    mode: list[str],
    package: str,
    key: str,
    inp: dict[str, Any],
    want: str,
) -> None:
    paths = _write(tmp_path, package, inp)
    assert cli.main(["render", *paths, "-r", *mode]) == 0
    captured = capsys.readouterr()
    assert f"as the built-in {key}" in captured.err


@pytest.mark.parametrize(("package", "key", "inp", "want"), CASES)
def test_crossfn_test(tmp_path: pathlib.Path, package: str, key: str, inp: dict[str, Any], want: str) -> None:
    _write(tmp_path, package, inp)
    test = {
        "apiVersion": "test.crossplane.io/v1alpha1",
        "kind": "CompositionTest",
        "metadata": {"name": "t"},
        "spec": {
            "tests": [
                {
                    "name": "renders",
                    "inputs": {
                        "xr": {"path": "xr.yaml"},
                        "composition": {"path": "composition.yaml"},
                        "functions": {"path": "functions.yaml"},
                    },
                    "assertions": [
                        {
                            "type": "chainsaw",
                            "chainsaw": {
                                "resources": [
                                    {"apiVersion": "example.org/v1", "kind": "XR", "metadata": {"name": "xr"}}
                                ]
                            },
                        }
                    ],
                }
            ]
        },
    }
    (tmp_path / "test.yaml").write_text(yaml.safe_dump(test))
    assert cli.main(["test", str(tmp_path / "test.yaml")]) == 0


def test_no_exec_refuses_python_only(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A Python script is code crossfn does not ship; the Go-function built-ins are not."""
    for package, inp in ((SEQ, SEQ_INPUT), (ST, ST_INPUT)):
        assert cli.main(["render", *_write(tmp_path, package, inp), "--no-exec"]) == 0
    capsys.readouterr()
    assert cli.main(["render", *_write(tmp_path, PY, PY_INPUT), "--no-exec"]) == 1
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1] == (
        'crossfn: error: Function "f" would run code crossfn does not ship, which --no-exec refuses: '
        "the built-in python runs the Python script its input gives"
    )


RESOLVE = [
    ("xpkg.upbound.io/crossplane-contrib/function-sequencer:v0.1.1", "sequencer@v0.1.2"),
    ("xpkg.crossplane.io/crossplane-contrib/function-sequencer:v0.2.3", "sequencer@v0.3.0"),
    ("xpkg.crossplane.io/crossplane-contrib/function-sequencer:v0.7.0", None),
    ("xpkg.crossplane.io/crossplane-contrib/function-status-transformer:v0.2.0", "status-transformer@v0.3.0"),
    ("xpkg.crossplane.io/crossplane-contrib/function-status-transformer:v0.1.0", "status-transformer@v0.1.0"),
    ("xpkg.crossplane.io/crossplane-contrib/function-status-transformer:v0.4.0", "status-transformer@v0.4.0"),
    ("xpkg.crossplane.io/crossplane-contrib/function-status-transformer:v0.4.1", "status-transformer@v0.4.1"),
    ("xpkg.crossplane.io/crossplane-contrib/function-python:v0.2.0", "python@v0.3.0"),
    ("xpkg.crossplane.io/crossplane-contrib/function-python:v0.1.0", "python@v0.1.0"),
    ("xpkg.crossplane.io/crossplane-contrib/function-python:v0.6.0", None),
    ("function-sequencer", "sequencer"),
    ("function-status-transformer", "status-transformer"),
]


@pytest.mark.parametrize(("package", "key"), RESOLVE)
def test_resolve(package: str, key: str | None) -> None:
    decision = functions.resolve(package)
    assert decision is not None and decision.builtin == key
    if key is not None:
        assert callable(functions.load(key))
