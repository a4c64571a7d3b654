"""runtime.serve takes both call shapes: crossfn's ``serve(fn, config)`` and the official SDK's
``serve(function, address, *, creds, insecure, options=None)``; ``load_credentials(None)`` is ``None``."""

from __future__ import annotations

import importlib.util
import json
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from crossfn import errors
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.proto.v1 import run_function_pb2_grpc as fnv1grpc
from crossfn.sdk import resource, runtime, settings


def _peer_certs() -> Any:
    path = Path(__file__).parents[1] / "peers" / "python" / "peer_certs.py"
    spec = importlib.util.spec_from_file_location("peer_certs", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_FUNCTION = """
from crossfn.proto.v1 import run_function_pb2_grpc as grpcv1
from crossfn.sdk import response


def compose(req, rsp):
    response.normal(rsp, "compose " + req.meta.tag)


class Runner(grpcv1.FunctionRunnerServiceServicer):
    async def RunFunction(self, req, _):
        rsp = response.to(req)
        response.normal(rsp, "servicer " + req.meta.tag)
        return rsp
"""

_SHAPES = {
    "OfficialInsecure": 'runtime.serve(fn.Runner(), "127.0.0.1:0", creds=None, insecure=True)',
    "OfficialKeywords": 'runtime.serve(function=fn.compose, address="127.0.0.1:0", creds=None, insecure=True)',
    "OfficialMTLS": 'runtime.serve(fn.Runner(), "127.0.0.1:0", creds=runtime.load_credentials(sys.argv[1]), '
    "insecure=False)",
    "OfficialOptions": 'runtime.serve(fn.compose, "127.0.0.1:0", creds=None, insecure=True, '
    'options=[("grpc.max_receive_message_length", 4096)])',
    "CrossfnConfig": "runtime.serve(fn.compose, settings.ServerSettings("
    'listen=settings.ListenSettings(address="127.0.0.1:0", insecure=True)))',
    "CrossfnConfigKeyword": "runtime.serve(fn.Runner(), config=settings.ServerSettings("
    'listen=settings.ListenSettings(address="127.0.0.1:0", insecure=True)))',
    "PackageServeOfficial": 'crossfn.sdk.serve(fn.compose, "127.0.0.1:0", creds=None, insecure=True)',
    "PackageServeCrossfn": "crossfn.sdk.serve(fn.Runner(), settings.ServerSettings("
    'listen=settings.ListenSettings(address="127.0.0.1:0", insecure=True)))',
}


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    peer_certs = _peer_certs()
    ca = peer_certs.Authority("crossplane-root")
    return peer_certs.write_server_dir(ca, tmp_path_factory.mktemp("tls")), ca


@pytest.fixture
def served(tmp_path: Path, certs: tuple[Path, Any]) -> Iterator[Any]:
    procs: list[subprocess.Popen[str]] = []

    def start(call: str) -> tuple[subprocess.Popen[str], int]:
        (tmp_path / "fn.py").write_text(textwrap.dedent(_FUNCTION))
        script = (
            f"import sys\nimport crossfn.sdk\nfrom crossfn.sdk import runtime, settings\nimport fn\n{call}\n"
        )
        proc = subprocess.Popen(
            [sys.executable, "-c", script, str(certs[0])],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        procs.append(proc)
        assert proc.stdout is not None
        for line in proc.stdout:
            if '"serving function"' in line:
                return proc, int(json.loads(line)["port"])
        raise AssertionError(f"the function did not start: {proc.wait()}")

    yield start
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()


def _channel(shape: str, port: int, ca: Any) -> grpc.Channel:
    if shape != "OfficialMTLS":
        return grpc.insecure_channel(f"127.0.0.1:{port}")
    crt, key = ca.issue("crossplane")
    creds = grpc.ssl_channel_credentials(root_certificates=ca.pem, private_key=key, certificate_chain=crt)
    return grpc.secure_channel(f"127.0.0.1:{port}", creds)


@pytest.mark.slow
@pytest.mark.parametrize("shape", list(_SHAPES))
def test_serve_call_shapes(served: Any, certs: tuple[Path, Any], shape: str) -> None:
    """Every shape serves the function; SIGTERM ends it cleanly."""
    proc, port = served(_SHAPES[shape])
    kind = "compose" if "fn.compose" in _SHAPES[shape] else "servicer"
    with _channel(shape, port, certs[1]) as channel:
        stub = fnv1grpc.FunctionRunnerServiceStub(channel)
        rsp = stub.RunFunction(fnv1.RunFunctionRequest(meta=fnv1.RequestMeta(tag="t")), timeout=30)
        assert [r.message for r in rsp.results] == [f"{kind} t"], shape
        if shape == "OfficialOptions":
            big = fnv1.RunFunctionRequest(input=resource.dict_to_struct({"x": "y" * 8192}))
            with pytest.raises(grpc.RpcError) as err:
                stub.RunFunction(big, timeout=30)
            assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, "options reach the gRPC server"
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0, shape


@pytest.mark.parametrize(
    ("reason", "args", "kwargs", "error", "match"),
    [
        pytest.param("The official shape needs creds or insecure, as upstream (ValueError).",
                     ("127.0.0.1:0",), {"creds": None, "insecure": False}, ValueError, "no credentials",
                     id="NoCredentials"),
        pytest.param("Official keywords do not go with ServerSettings.",
                     (settings.ServerSettings(),), {"insecure": True}, TypeError, "go with an address",
                     id="SettingsWithInsecure"),
        pytest.param("Neither do options.", (), {"options": [], "config": settings.ServerSettings()},
                     TypeError, "go with an address", id="ConfigWithOptions"),
        pytest.param("An address and ServerSettings together are refused.",
                     ("127.0.0.1:0",), {"insecure": True, "config": settings.ServerSettings()}, TypeError,
                     "not both", id="AddressAndConfig"),
        pytest.param("ServerSettings given twice.", (settings.ServerSettings(),),
                     {"config": settings.ServerSettings()}, TypeError, "twice", id="ConfigTwice"),
        pytest.param("An address that is not a string failed inside gRPC (AttributeError: no encode).",
                     (9443,), {"insecure": True}, TypeError, "address must be a 'host:port' string, not int",
                     id="AddressInt"),
        pytest.param("A list address was taken for no address at all: the complaint was about credentials.",
                     (["127.0.0.1:0"],), {"creds": None, "insecure": False}, TypeError,
                     "address must be a 'host:port' string, not list", id="AddressList"),
        pytest.param("Credentials of the wrong type failed inside gRPC's Cython (AttributeError).",
                     ("127.0.0.1:0",), {"creds": "tls", "insecure": False}, TypeError,
                     "creds must be grpc.ServerCredentials", id="CredsString"),
        pytest.param("Options that are not pairs failed in a dict update (ValueError), after the server was made.",
                     ("127.0.0.1:0",), {"insecure": True, "options": "abc"}, TypeError,
                     "options must be a list of", id="OptionsString"),
        pytest.param("Neither are bare values.", ("127.0.0.1:0",), {"insecure": True, "options": [1, 2]}, TypeError,
                     "options must be a list of", id="OptionsNotPairs"),
    ],
)  # fmt: skip
def test_serve_refuses_before_serving(
    reason: str, args: tuple[Any, ...], kwargs: dict[str, Any], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        runtime.serve(lambda req, rsp: None, *args, **kwargs)


def test_load_credentials_none_is_none() -> None:
    assert runtime.load_credentials(None) is None


def test_load_credentials_names_the_missing_file(tmp_path: Path) -> None:
    with pytest.raises(errors.InputError, match=r"cannot read .*tls\.crt"):
        runtime.load_credentials(str(tmp_path))


BOUNDS = {"grpc.server_handshake_timeout_ms": 10_000, "grpc.max_allowed_incoming_connections": 512}
"""A handshake finished within 10 s, at most 512 connections (gRPC's defaults: 120 s, no limit)."""


@pytest.mark.parametrize(
    ("reason", "grpc_settings", "want"),
    [
        pytest.param("crossfn's defaults.", settings.GrpcSettings(),
                     {"grpc.max_receive_message_length": 4 << 20, "grpc.max_send_message_length": 4 << 20,
                      "grpc.so_reuseport": 0, **BOUNDS}, id="Defaults"),
        pytest.param("Official options replace crossfn's of the same name and add the others.",
                     settings.GrpcSettings(extra_options=(("grpc.max_receive_message_length", 5 << 20),
                                                          ("grpc.keepalive_time_ms", 1000))),
                     {"grpc.max_receive_message_length": 5 << 20, "grpc.max_send_message_length": 4 << 20,
                      "grpc.so_reuseport": 0, "grpc.keepalive_time_ms": 1000, **BOUNDS}, id="Extra"),
        pytest.param("Handshakes and connections are bounded as set.",
                     settings.GrpcSettings(handshake_timeout_seconds=2.5, max_connections=64),
                     {"grpc.max_receive_message_length": 4 << 20, "grpc.max_send_message_length": 4 << 20,
                      "grpc.so_reuseport": 0, "grpc.server_handshake_timeout_ms": 2500,
                      "grpc.max_allowed_incoming_connections": 64}, id="Bounds"),
    ],
)  # fmt: skip
def test_grpc_options(reason: str, grpc_settings: settings.GrpcSettings, want: dict[str, Any]) -> None:
    assert dict(grpc_settings.options(reuse_port=False)) == want, reason
