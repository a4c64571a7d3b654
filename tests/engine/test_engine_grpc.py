"""The gRPC runner against real servers on ephemeral ports
(upstream core-1.4, core-2.5; core-4.2 function_runner_test.go)."""

import asyncio
import datetime
import re
import socket
from collections.abc import AsyncIterator
from typing import Any

import grpc
import grpc.aio
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from crossfn import engine, errors
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.proto.v1 import run_function_pb2_grpc as fnv1grpc
from crossfn.proto.v1beta1 import run_function_pb2 as fnv1beta1
from crossfn.proto.v1beta1 import run_function_pb2_grpc as fnv1beta1grpc


class V1(fnv1grpc.FunctionRunnerServiceServicer):
    """Echoes the tag back in a Normal result naming the protocol version."""

    def __init__(self) -> None:
        self.block = asyncio.Event()
        self.hang = False

    async def RunFunction(self, req: fnv1.RunFunctionRequest, context: Any) -> fnv1.RunFunctionResponse:
        if req.meta.tag == "abort":
            await context.abort(grpc.StatusCode.INTERNAL, "boom")
        if self.hang:
            await self.block.wait()
        rsp = fnv1.RunFunctionResponse(meta=fnv1.ResponseMeta(tag=req.meta.tag))
        rsp.results.add(severity=fnv1.SEVERITY_NORMAL, message="v1")
        return rsp


class V1Beta1(fnv1beta1grpc.FunctionRunnerServiceServicer):
    async def RunFunction(
        self, req: fnv1beta1.RunFunctionRequest, context: Any
    ) -> fnv1beta1.RunFunctionResponse:
        rsp = fnv1beta1.RunFunctionResponse(meta=fnv1beta1.ResponseMeta(tag=req.meta.tag))
        rsp.results.add(severity=fnv1beta1.SEVERITY_WARNING, message="v1beta1")
        return rsp


async def serve(
    servicer: Any, beta: bool = False, creds: grpc.ServerCredentials | None = None
) -> tuple[grpc.aio.Server, str]:
    server = grpc.aio.server()
    if beta:
        fnv1beta1grpc.add_FunctionRunnerServiceServicer_to_server(servicer, server)
    else:
        fnv1grpc.add_FunctionRunnerServiceServicer_to_server(servicer, server)
    port = server.add_secure_port("localhost:0", creds) if creds else server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server, f"{'localhost' if creds else '127.0.0.1'}:{port}"


@pytest.fixture
async def v1_server() -> AsyncIterator[tuple[V1, str]]:
    servicer = V1()
    server, target = await serve(servicer)
    yield servicer, target
    servicer.block.set()
    await server.stop(None)


class Recorder:
    def __init__(self) -> None:
        self.finished: list[tuple[str, str, str]] = []

    def run_started(self, function: str, target: str, method: str) -> None:
        return None

    def run_finished(
        self, function: str, *, target: str, method: str, code: str, severity: str, seconds: float
    ) -> None:
        self.finished.append((method, code, severity))

    def cache(self, event: str, function: str, amount: float = 1) -> None:
        return None

    def cache_seconds(self, op: str, function: str, seconds: float) -> None:
        return None


async def test_TestRunFunction_SuccessfulRequest(v1_server: tuple[V1, str]) -> None:
    _, target = v1_server
    metrics = Recorder()
    runner = engine.GrpcRunner({"fn": target}, metrics=metrics, timeout=10)
    try:
        rsp = await runner.run_function("fn", fnv1.RunFunctionRequest(meta=fnv1.RequestMeta(tag="hi")))
    finally:
        await runner.aclose()
    assert (rsp.meta.tag, rsp.results[0].message) == ("hi", "v1"), "the v1 response comes back"
    assert metrics.finished == [(engine._grpc.METHOD_V1, "OK", "Normal")], (
        "request metrics carry method, code and severity"
    )


async def test_TestRunFunction_SuccessfulFallbackToBeta() -> None:
    server, target = await serve(V1Beta1(), beta=True)
    metrics = Recorder()
    runner = engine.GrpcRunner({"fn": target}, metrics=metrics, timeout=10)
    try:
        rsp = await runner.run_function("fn", fnv1.RunFunctionRequest(meta=fnv1.RequestMeta(tag="hi")))
    finally:
        await runner.aclose()
        await server.stop(None)
    assert (rsp.meta.tag, rsp.results[0].message) == ("hi", "v1beta1"), (
        "a v1beta1-only server is reached by falling back"
    )
    assert [(m, c) for m, c, _ in metrics.finished] == [
        (engine._grpc.METHOD_V1, "Unimplemented"),
        (engine._grpc.METHOD_V1BETA1, "OK"),
    ], "v1 is always tried first"


async def test_rpc_errors_are_translated(v1_server: tuple[V1, str]) -> None:
    _, target = v1_server
    runner = engine.GrpcRunner({"fn": target}, timeout=10)
    try:
        with pytest.raises(errors.FunctionRunError) as exc:
            await runner.run_function("fn", fnv1.RunFunctionRequest(meta=fnv1.RequestMeta(tag="abort")))
    finally:
        await runner.aclose()
    assert str(exc.value) == 'cannot run Function "fn": rpc error: code = Internal desc = boom', (
        "Go's status text"
    )


async def test_per_call_timeout(v1_server: tuple[V1, str]) -> None:
    servicer, target = v1_server
    servicer.hang = True
    runner = engine.GrpcRunner({"fn": target}, timeout=0.2)
    try:
        with pytest.raises(errors.FunctionRunError, match="code = DeadlineExceeded"):
            await runner.run_function("fn", fnv1.RunFunctionRequest())
    finally:
        await runner.aclose()


async def test_unknown_function_has_no_target() -> None:
    runner = engine.GrpcRunner({})
    with pytest.raises(errors.FunctionRunError) as exc:
        await runner.run_function("ghost", fnv1.RunFunctionRequest())
    assert (
        str(exc.value)
        == 'cannot get gRPC client connection for Function "ghost": no gRPC target is known for it'
    )


async def test_TestGetClientConn() -> None:
    targets = {"fn": "127.0.0.1:1", "other": "127.0.0.1:1"}
    runner = engine.GrpcRunner(targets.get)
    first = await runner.channel("fn")
    assert await runner.channel("fn") is first, "ReuseExistingConnection: the same target reuses the channel"
    assert await runner.channel("other") is first, "functions on one target share its channel"
    targets["fn"] = "127.0.0.1:2"
    replaced = await runner.channel("fn")
    assert replaced is not first, "ReplaceExistingConnection: a moved target gets a new channel"
    assert first.get_state() != grpc.ChannelConnectivity.SHUTDOWN, (
        "the old channel stays while another function uses it"
    )
    targets["other"] = "127.0.0.1:2"
    await runner.channel("other")
    assert first.get_state() == grpc.ChannelConnectivity.SHUTDOWN, "the old channel closes once unused"
    await runner.aclose()


async def test_TestGarbageCollectConnectionsNow() -> None:
    runner = engine.GrpcRunner({"keep": "127.0.0.1:1", "gone": "127.0.0.1:2"})
    keep, gone = await runner.channel("keep"), await runner.channel("gone")
    await runner.close_unused(["keep"])
    assert gone.get_state() == grpc.ChannelConnectivity.SHUTDOWN, "FunctionDoesNotExistsGarbageCollect"
    assert keep.get_state() != grpc.ChannelConnectivity.SHUTDOWN, "FunctionStillExistsDoNotGarbageCollect"
    await runner.aclose()


def _cert(
    subject: str,
    key: ec.EllipticCurvePrivateKey,
    issuer: tuple[x509.Name, ec.EllipticCurvePrivateKey] | None,
    *,
    ca: bool = False,
) -> x509.Certificate:
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)])
    issuer_name, issuer_key = issuer or (name, key)
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(issuer_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if not ca:
        builder = builder.add_extension(
            x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False
        )
    return builder.sign(issuer_key, hashes.SHA256())


def _pem(cert: x509.Certificate, key: ec.EllipticCurvePrivateKey) -> tuple[bytes, bytes]:
    return (
        cert.public_bytes(serialization.Encoding.PEM),
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ),
    )


async def test_mtls() -> None:
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = _cert("ca", ca_key, None, ca=True)
    server_key, client_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    server_crt, server_pem_key = _pem(_cert("function", server_key, (ca.subject, ca_key)), server_key)
    client_crt, client_pem_key = _pem(_cert("crossplane", client_key, (ca.subject, ca_key)), client_key)
    ca_pem = ca.public_bytes(serialization.Encoding.PEM)
    creds = grpc.ssl_server_credentials(
        [(server_pem_key, server_crt)], root_certificates=ca_pem, require_client_auth=True
    )
    server, target = await serve(V1(), creds=creds)
    good = engine.GrpcRunner(
        {"fn": target}, tls=engine.TlsConfig(ca=ca_pem, cert=client_crt, key=client_pem_key), timeout=10
    )
    anonymous = engine.GrpcRunner(
        {"fn": target}, tls=engine.TlsConfig(ca=ca_pem), timeout=2, wait_for_ready=False
    )
    try:
        rsp = await good.run_function("fn", fnv1.RunFunctionRequest(meta=fnv1.RequestMeta(tag="tls")))
        assert rsp.meta.tag == "tls", "a client certificate signed by the CA is accepted"
        with pytest.raises(errors.FunctionRunError, match="rpc error: code = Unavailable"):
            await anonymous.run_function("fn", fnv1.RunFunctionRequest())
    finally:
        await good.aclose()
        await anonymous.aclose()
        await server.stop(None)


async def test_closed_channel_is_redialled(v1_server: tuple[V1, str]) -> None:
    _, target = v1_server
    runner = engine.GrpcRunner({"fn": target}, timeout=10)
    ch = await runner.channel("fn")
    await ch.close()
    rsp = await runner.run_function("fn", fnv1.RunFunctionRequest(meta=fnv1.RequestMeta(tag="again")))
    assert rsp.meta.tag == "again", "a channel closed elsewhere is dialled again"
    assert await runner.channel("fn") is not ch, "the closed channel is replaced"
    await runner.aclose()


@pytest.mark.parametrize(
    ("code", "want"),
    [
        pytest.param(grpc.StatusCode.OK, "OK", id="OK"),
        pytest.param(grpc.StatusCode.CANCELLED, "Canceled", id="Canceled"),
        pytest.param(grpc.StatusCode.DEADLINE_EXCEEDED, "DeadlineExceeded", id="DeadlineExceeded"),
        pytest.param(grpc.StatusCode.UNIMPLEMENTED, "Unimplemented", id="Unimplemented"),
        pytest.param(grpc.StatusCode.RESOURCE_EXHAUSTED, "ResourceExhausted", id="ResourceExhausted"),
    ],
)
def test_go_code_names(code: grpc.StatusCode, want: str) -> None:
    assert engine._grpc.go_code(code) == want, "status codes read as Go prints them"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _tls_material() -> tuple[bytes, grpc.ServerCredentials]:
    """A CA's PEM and server credentials for ``localhost`` signed by it."""
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = _cert("ca", ca_key, None, ca=True)
    server_key = ec.generate_private_key(ec.SECP256R1())
    crt, key = _pem(_cert("function", server_key, (ca.subject, ca_key)), server_key)
    return ca.public_bytes(serialization.Encoding.PEM), grpc.ssl_server_credentials([(key, crt)])


@pytest.mark.parametrize(
    ("server", "client_tls", "want"),
    [
        pytest.param(
            "none",
            False,
            r"Connection refused$",
            id="refused",
        ),
        pytest.param(
            "unix",
            False,
            r"No such file or directory$",
            id="no-such-socket",
        ),
        pytest.param(
            "insecure",
            True,
            r"WRONG_VERSION_NUMBER.* \(the function serves without TLS\)$",
            id="tls-client-insecure-server",
        ),
        pytest.param(
            "tls",
            False,
            r"Socket closed \(the function closed the connection: dialled without TLS, it must serve with --insecure\)$",
            id="insecure-client-tls-server",
        ),
    ],
)
async def test_an_unreachable_function_fails_at_once_naming_function_and_address(
    tmp_path: Any, server: str, client_tls: bool, want: str
) -> None:
    """Refused, no socket, a TLS mismatch: the call fails with gRPC's reason, not after its 60 s deadline."""
    ca_pem, server_creds = _tls_material()
    srv: grpc.aio.Server | None = None
    if server == "none":
        target = f"127.0.0.1:{_free_port()}"
    elif server == "unix":
        target = f"unix:{tmp_path}/function.sock"
    else:
        srv, target = await serve(V1(), creds=server_creds if server == "tls" else None)
    runner = engine.GrpcRunner(
        {"fn": target}, tls=engine.TlsConfig(ca=ca_pem) if client_tls else None, timeout=60, connect_grace=0.2
    )
    try:
        with pytest.raises(errors.FunctionRunError) as exc:
            await runner.run_function("fn", fnv1.RunFunctionRequest())
    finally:
        await runner.aclose()
        if srv is not None:
            await srv.stop(None)
    message = str(exc.value)
    assert message.startswith(
        f'cannot run Function "fn": rpc error: code = Unavailable desc = cannot connect to {target}: '
    ), message
    assert re.search(want, message), message


async def test_a_server_that_starts_within_the_grace_period_is_called() -> None:
    """Crossplane's wait_for_ready: a function still starting when the call begins is waited for."""
    port = _free_port()
    runner = engine.GrpcRunner({"fn": f"127.0.0.1:{port}"}, timeout=60, connect_grace=30)
    call = asyncio.ensure_future(
        runner.run_function("fn", fnv1.RunFunctionRequest(meta=fnv1.RequestMeta(tag="late")))
    )
    await asyncio.sleep(0.3)
    server = grpc.aio.server()
    fnv1grpc.add_FunctionRunnerServiceServicer_to_server(V1(), server)
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    try:
        rsp = await call
    finally:
        await runner.aclose()
        await server.stop(None)
    assert rsp.meta.tag == "late", "the call reaches the server that came up after it began"
