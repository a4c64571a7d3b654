"""crossfn's server and protocol against real peers, each in its own process.

The official client and server run as subprocesses (``official_client.py``,
``official_server.py``) so that each peer is exactly the official stack, and
crossfn's server runs as ``crossfn function serve`` (``peer_functions.py``).
(The two packages can share a process: ``test_official_sdk_in_crossfn.py``.)
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import pathlib
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import grpc
import peer_certs
import pytest
from google.protobuf import json_format
from grpc_health.v1 import health_pb2, health_pb2_grpc

from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.proto.v1 import run_function_pb2_grpc as fnv1grpc
from crossfn.proto.v1beta1 import run_function_pb2 as fnv1beta1
from crossfn.proto.v1beta1 import run_function_pb2_grpc as fnv1beta1grpc

pytestmark = pytest.mark.peer

HERE = pathlib.Path(__file__).parent
FIXTURES = HERE / "fixtures"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class _Process:
    """A subprocess whose stderr lines are collected by a thread, stopped with SIGTERM."""

    def __init__(self, args: list[str], env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            args,
            cwd=HERE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **(env or {})},
        )
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line)

    def wait_for(self, text: str, count: int = 1, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while sum(text in line for line in self.lines) < count:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"{text!r} not seen {count} times; stderr:\n{''.join(self.lines)}")
            time.sleep(0.02)

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        status = self.proc.wait(timeout=20)
        self._reader.join(5)
        assert self.proc.stderr is not None
        self.proc.stderr.close()
        return status


@contextlib.contextmanager
def _crossfn_serve(function: str, *flags: str, workers: int = 1) -> Iterator[tuple[str, _Process]]:
    port = _free_port()
    address = f"127.0.0.1:{port}"
    p = _Process(
        [sys.executable, "-m", "crossfn", "function", "serve", function, "--address", address, *flags],
        # The environment must not decide what the flags test.
        env={"TLS_SERVER_CERTS_DIR": "", "INSECURE": "", "WORKERS": ""},
    )
    try:
        p.wait_for("serving function", count=workers)
        yield address, p
    finally:
        p.stop()


def _call(
    address: str, tag: str = "", credentials: grpc.ChannelCredentials | None = None
) -> fnv1.RunFunctionResponse:
    """One call on a fresh channel (so a fresh connection)."""
    channel = grpc.secure_channel(address, credentials) if credentials else grpc.insecure_channel(address)
    with channel:
        rsp: fnv1.RunFunctionResponse = fnv1grpc.FunctionRunnerServiceStub(channel).RunFunction(
            fnv1.RunFunctionRequest(meta=fnv1.RequestMeta(tag=tag)), timeout=10
        )
        return rsp


@pytest.mark.parametrize("version", [pytest.param("v1", id="V1"), pytest.param("v1beta1", id="V1beta1")])
def test_official_client_round_trips_every_field(version: str) -> None:
    with _crossfn_serve("peer_functions:echo", "--insecure") as (address, _):
        out = subprocess.run(
            [sys.executable, str(HERE / "official_client.py"), address, version],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
    got = json.loads(out.stdout)
    assert got["request_equal"], (
        "the request the crossfn server decoded differs from what the official client sent"
    )
    assert got["response_equal"], f"the official client decoded a different response: {got['response']}"


@pytest.mark.parametrize(
    ("pb", "stub"),
    [pytest.param(fnv1, fnv1grpc, id="V1"), pytest.param(fnv1beta1, fnv1beta1grpc, id="V1beta1")],
)
def test_official_server_round_trips_every_field(pb: Any, stub: Any) -> None:
    port = _free_port()
    server = _Process([sys.executable, str(HERE / "official_server.py"), f"127.0.0.1:{port}"])
    req = json_format.ParseDict(
        json.loads((FIXTURES / "full_request.json").read_text()), pb.RunFunctionRequest()
    )
    want = json_format.ParseDict(
        json.loads((FIXTURES / "full_response.json").read_text()), pb.RunFunctionResponse()
    )
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            grpc.channel_ready_future(channel).result(timeout=30)
            got = stub.FunctionRunnerServiceStub(channel).RunFunction(req, timeout=10)
    finally:
        server.stop()
    seen = pb.RunFunctionRequest.FromString(base64.b64decode(got.context.fields["request"].string_value))
    del got.context.fields["request"]
    assert seen == req, "the official server decoded a different request"
    assert got == want, "crossfn decoded a different response from the official server"


def test_raising_function_gives_fatal_and_health_serves() -> None:
    with _crossfn_serve("peer_functions:raises", "--insecure") as (address, p):
        rsp = _call(address)
        with grpc.insecure_channel(address) as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            health = stub.Check(health_pb2.HealthCheckRequest(), timeout=10)  # type: ignore[attr-defined]  # typeshed's HealthStub declares no methods
    assert [(r.severity, r.message) for r in rsp.results] == [(fnv1.SEVERITY_FATAL, "RuntimeError: kaput")]
    assert health.status == health_pb2.HealthCheckResponse.SERVING
    assert any("Traceback" in line or "kaput" in line for line in p.lines), "the traceback goes to the log"


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    ca, wrong = peer_certs.Authority("crossplane-root"), peer_certs.Authority("someone-else")
    certs = peer_certs.write_server_dir(ca, tmp_path_factory.mktemp("tls"))
    return {"ca": ca, "wrong": wrong, "dir": certs}


def _client_credentials(pki: dict[str, object], signer: str | None) -> grpc.ChannelCredentials:
    ca = pki["ca"]
    assert isinstance(ca, peer_certs.Authority)
    if signer is None:
        return grpc.ssl_channel_credentials(root_certificates=ca.pem)
    authority = pki[signer]
    assert isinstance(authority, peer_certs.Authority)
    crt, key = authority.issue("crossplane")
    return grpc.ssl_channel_credentials(root_certificates=ca.pem, private_key=key, certificate_chain=crt)


@pytest.mark.parametrize(
    ("reason", "signer", "works"),
    [
        pytest.param("A client certificate signed by ca.crt is accepted.", "ca", True, id="RightCertificate"),
        pytest.param("A client without a certificate is refused.", None, False, id="NoClientCertificate"),
        pytest.param("A client certificate from another CA is refused.", "wrong", False, id="WrongCA"),
    ],
)
def test_mtls(pki: dict[str, object], reason: str, signer: str | None, works: bool) -> None:
    with _crossfn_serve("peer_functions:pid", "--tls-certs-dir", str(pki["dir"])) as (address, _):
        try:
            rsp = _call(address, credentials=_client_credentials(pki, signer))
        except grpc.RpcError as exc:
            assert not works, f"{reason} Got {exc.code()}: {exc.details()}"
            assert exc.code() == grpc.StatusCode.UNAVAILABLE, reason
        else:
            assert works, reason
            assert rsp.results[0].severity == fnv1.SEVERITY_NORMAL


def test_insecure_wins_over_certificates(pki: dict[str, object]) -> None:
    with _crossfn_serve("peer_functions:pid", "--tls-certs-dir", str(pki["dir"]), "--insecure") as (
        address,
        _,
    ):
        ok = sum(_call(address).results[0].severity == fnv1.SEVERITY_NORMAL for _ in range(20))
    assert ok == 20, "every plaintext call must succeed: only the insecure listener may be open"


def _metric(text: str, name: str) -> float:
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith(name))


@pytest.mark.parametrize("workers", [pytest.param(1, id="OneWorker"), pytest.param(2, id="TwoWorkers")])
def test_metrics_count_calls(workers: int) -> None:
    metrics = f"127.0.0.1:{_free_port()}"
    flags = ["--insecure", "--metrics-address", metrics, "--workers", str(workers)]
    with _crossfn_serve("peer_functions:pid", *flags, workers=workers) as (address, _):
        for _ in range(5):
            _call(address)
        _call(address, tag="x")
        with urllib.request.urlopen(f"http://{metrics}/metrics", timeout=10) as page:
            text = page.read().decode()
    count = _metric(text, 'crossfn_function_requests_total{outcome="success",version="v1"}')
    assert count == 6, text


_ENGINES = [
    pytest.param("peer_functions:pid", "threads", id="SyncThreads"),
    pytest.param("peer_functions:apid", "asyncio", id="AsyncAsyncio"),
]


@pytest.mark.parametrize(("function", "engine"), _ENGINES)
def test_two_workers_share_the_port(function: str, engine: str) -> None:
    with _crossfn_serve(function, "--insecure", "--workers", "2", workers=2) as (address, p):
        pids = {_call(address).results[0].message for _ in range(40)}
    assert len(pids) == 2, f"calls on 40 connections reached {pids}"
    assert sum(f'"engine": "{engine}"' in line for line in p.lines) == 2
    assert p.proc.returncode == 0, "SIGTERM stops every worker cleanly"


@pytest.mark.parametrize(("function", "engine"), _ENGINES)
def test_sigterm_stops_gracefully(function: str, engine: str) -> None:
    with _crossfn_serve(function, "--insecure") as (address, p):
        assert _call(address).results[0].severity == fnv1.SEVERITY_NORMAL
    assert p.proc.returncode == 0, "it stopped by itself on SIGTERM (stop() fails a server that does not)"
    assert any(f'"engine": "{engine}"' in line for line in p.lines)


def test_builtin_short_name_is_served() -> None:
    with _crossfn_serve("auto-ready", "--insecure") as (address, _):
        rsp = _call(address, tag="builtin")
    assert rsp.meta.tag == "builtin"
    assert all(r.severity != fnv1.SEVERITY_FATAL for r in rsp.results), rsp.results
