"""go-templating reaches every surface: the controller's transport (in-process), ``crossfn function serve
go-templating``, and render in both modes, each choosing the release the package pins."""

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

PACKAGE = "xpkg.crossplane.io/crossplane-contrib/function-go-templating"
TEMPLATE = (
    "apiVersion: example.org/v1\nkind: CD\nmetadata:\n  name: {{ .observed.composite.resource.metadata.name }}-cd\n"
    "  annotations:\n    gotemplating.fn.crossplane.io/composition-resource-name: cd\n"
    "{{ range 2 }}---\n{{ end }}"
)
INPUT = {
    "apiVersion": "gotemplating.fn.crossplane.io/v1beta1",
    "kind": "GoTemplate",
    "source": "Inline",
    "inline": {"template": TEMPLATE},
}


def _request() -> fnv1.RunFunctionRequest:
    return json_format.ParseDict(
        {
            "input": INPUT,
            "observed": {
                "composite": {
                    "resource": {"apiVersion": "example.org/v1", "kind": "XR", "metadata": {"name": "xr"}}
                }
            },
        },
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


def _function(package: str) -> dict[str, Any]:
    return {
        "apiVersion": "pkg.crossplane.io/v1",
        "kind": "Function",
        "metadata": {"name": "f"},
        "spec": {"package": package},
    }


# (pinned tag, built-in key, what the response holds): v0.11.1 on is built with Go 1.24 (range over an integer)
VERSIONS = [
    ("v0.12.2", "go-templating", '"xr-cd"'),
    ("v0.11.2", "go-templating@v0.11.1", '"xr-cd"'),
    ("v0.10.1", "go-templating@v0.9.0", "range can't iterate over 2"),
]


@pytest.mark.parametrize(("tag", "key", "want"), VERSIONS)
async def test_controller_runs_it_in_process(tag: str, key: str, want: str) -> None:
    """The controller's transport picks the built-in by the same rule as render, and runs it in-process."""
    fn = _function(f"{PACKAGE}:{tag}")
    assert _functions.route(fn) == _functions.Route("builtin", key)
    transport = _functions.FunctionTransport(_Cache(fn), _Cache())
    try:
        rsp = await transport.run_function("f", _request())
    finally:
        await transport.aclose()
    assert want in json_format.MessageToJson(rsp)


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
def test_function_serve() -> None:
    """``crossfn function serve go-templating`` serves the newest release over gRPC."""
    assert functions.BUILTINS["go-templating"] == "crossfn.functions.go_templating:compose"
    with _served("go-templating") as address, grpc.insecure_channel(address) as channel:
        grpc.channel_ready_future(channel).result(timeout=60)
        stub = fnv1grpc.FunctionRunnerServiceStub(channel)
        deadline = time.monotonic() + 30
        while True:
            try:
                rsp = stub.RunFunction(_request(), timeout=30)
                break
            except grpc.RpcError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
    assert (
        rsp.desired.resources["cd"].resource.fields["metadata"].struct_value.fields["name"].string_value
        == "xr-cd"
    )


def _write(tmp: pathlib.Path, package: str) -> list[str]:
    xr = {"apiVersion": "example.org/v1", "kind": "XR", "metadata": {"name": "xr"}, "spec": {}}
    comp = {
        "apiVersion": "apiextensions.crossplane.io/v1",
        "kind": "Composition",
        "metadata": {"name": "c"},
        "spec": {
            "compositeTypeRef": {"apiVersion": "example.org/v1", "kind": "XR"},
            "mode": "Pipeline",
            "pipeline": [{"step": "s", "functionRef": {"name": "f"}, "input": INPUT}],
        },
    }
    paths = []
    for name, doc in (("xr.yaml", xr), ("composition.yaml", comp), ("functions.yaml", _function(package))):
        (tmp / name).write_text(yaml.safe_dump(doc))
        paths.append(str(tmp / name))
    return paths


@pytest.mark.parametrize("mode", [[], ["--classic"]], ids=["Default", "Classic"])
def test_render(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], mode: list[str]) -> None:
    paths = _write(tmp_path, f"{PACKAGE}:v0.12.2")
    assert cli.main(["render", *paths, *mode]) == 0
    captured = capsys.readouterr()
    assert "running function-go-templating v0.12.2 as the built-in go-templating" in captured.err
    names = [d["metadata"]["name"] for d in yaml.safe_load_all(captured.out) if d and d["kind"] == "CD"]
    assert names == ["xr-cd"]


def test_render_names_the_release_it_cannot_run(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A release newer than crossfn knows runs the package (here: no Docker, so render says so)."""
    paths = _write(tmp_path, f"{PACKAGE}:v0.13.0")
    assert cli.main(["render", *paths]) == 1
    err = capsys.readouterr().err
    assert "not running function-go-templating v0.13.0 as the built-in go-templating" in err
