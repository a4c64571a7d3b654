"""Reaching Functions: routing, the transport (in-process and a real gRPC server), client TLS."""

from __future__ import annotations

import asyncio
import base64
import logging
import pathlib
from collections.abc import AsyncIterator, Mapping
from typing import Any

import grpc
import grpc.aio
import pytest

from crossfn import engine, errors
from crossfn.controller import _settings
from crossfn.controller.packages import _functions
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.proto.v1 import run_function_pb2_grpc as fnv1grpc

from .fake_api import FakeApi


class FakeCache:
    """An informer's read side over a list of objects."""

    def __init__(self, *objects: dict[str, Any]) -> None:
        self.objects = list(objects)

    def get(self, name: str, namespace: str = "") -> dict[str, Any] | None:
        return next((o for o in self.objects if o["metadata"]["name"] == name), None)

    def list(
        self, namespace: str | None = None, labels: Mapping[str, str] | None = None
    ) -> list[dict[str, Any]]:
        want = dict(labels or {})
        return [o for o in self.objects if want.items() <= (o["metadata"].get("labels") or {}).items()]


def function(name: str, package: str, endpoint: str = "") -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if endpoint:
        meta["annotations"] = {_functions.ENDPOINT_ANNOTATION: endpoint}
    return {
        "apiVersion": "pkg.crossplane.io/v1",
        "kind": "Function",
        "metadata": meta,
        "spec": {"package": package},
    }


def revision(name: str, fn: str, state: str = "Active", endpoint: str = "") -> dict[str, Any]:
    return {
        "apiVersion": "pkg.crossplane.io/v1",
        "kind": "FunctionRevision",
        "metadata": {"name": name, "labels": {_functions.LABEL_PACKAGE: fn}},
        "spec": {"desiredState": state},
        "status": {"endpoint": endpoint} if endpoint else {},
    }


ROUTES = [
    pytest.param(
        function("f", "xpkg.upbound.io/crossplane-contrib/function-auto-ready:v0.7.0"),
        _functions.Route("builtin", "auto-ready"),
        "the upstream package at the built-in's version, any registry, runs in-process (render's rule)",
        id="BuiltinTag",
    ),
    pytest.param(
        function("f", "xpkg.crossplane.io/crossplane-contrib/function-auto-ready:v0.2.1"),
        _functions.Route("builtin", "auto-ready@v0.5.2"),
        "an older version runs in-process as that version behaved (render's rule)",
        id="BuiltinEmulated",
    ),
    pytest.param(
        function("f", "xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform:v0.1.3"),
        _functions.Route("package"),
        "a version the built-in does not behave as goes through its FunctionRevision",
        id="BuiltinOtherVersion",
    ),
    pytest.param(
        function("f", "xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform@sha256:abc"),
        _functions.Route("package"),
        "a digest says no version, so the package runs",
        id="BuiltinDigest",
    ),
    pytest.param(
        function("f", "xpkg.crossplane.io/acme/function-go-templating:v1"),
        _functions.Route("package"),
        "any other package goes through its FunctionRevision",
        id="Package",
    ),
    pytest.param(
        function("f", "xpkg.crossplane.io/crossplane-contrib/function-auto-ready:v0.2.1", "127.0.0.1:9443"),
        _functions.Route("endpoint", "127.0.0.1:9443"),
        "the endpoint annotation wins over a built-in package: a developer serves their own build",
        id="AnnotationWins",
    ),
    pytest.param(
        function("f", "acme/function-x:v1", "  "),
        _functions.Route("package"),
        "a blank annotation is no endpoint",
        id="BlankAnnotation",
    ),
    pytest.param(None, _functions.Route("package"), "a missing Function fails the package way", id="Missing"),
    pytest.param(
        function("f", "acme/function-x:v1", "not a host port"),
        _functions.Route(
            "invalid",
            'invalid crossfn.io/endpoint annotation "not a host port": '
            "want HOST:PORT, or a gRPC target such as dns:///HOST:PORT",
        ),
        "a value gRPC cannot dial is refused, naming the annotation, before anything dials it",
        id="InvalidAnnotation",
    ),
]


@pytest.mark.parametrize(("fn", "want", "reason"), ROUTES)
def test_route(fn: dict[str, Any] | None, want: _functions.Route, reason: str) -> None:
    assert _functions.route(fn) == want, reason


TARGETS = [
    pytest.param(
        FakeCache(function("f", "acme/function-x:v1", "localhost:1234")),
        FakeCache(revision("f-1", "f", endpoint="dns:///f.crossplane-system:9443")),
        "localhost:1234",
        "",
        "the annotation wins over the revision's endpoint",
        id="Annotation",
    ),
    pytest.param(
        FakeCache(function("f", "acme/function-x:v1")),
        FakeCache(
            revision("f-old", "f", state="Inactive", endpoint="dns:///old:9443"),
            revision("f-new", "f", endpoint="dns:///f.crossplane-system:9443"),
        ),
        "dns:///f.crossplane-system:9443",
        "",
        "the active revision's status.endpoint, as Crossplane's PackagedFunctionRunner",
        id="ActiveRevision",
    ),
    pytest.param(
        FakeCache(function("f", "acme/function-x:v1")),
        FakeCache(revision("f-old", "f", state="Inactive", endpoint="dns:///old:9443")),
        "",
        'cannot get gRPC client connection for Function "f": cannot find an active FunctionRevision '
        "(a FunctionRevision with spec.desiredState: Active)",
        "no active revision: Crossplane's text, wrapped as Crossplane wraps it",
        id="NoActiveRevision",
    ),
    pytest.param(
        FakeCache(function("f", "acme/function-x:v1")),
        FakeCache(revision("f-1", "f")),
        "",
        'cannot get gRPC client connection for Function "f": cannot determine gRPC target: '
        'active FunctionRevision "f-1" has an empty status.endpoint',
        "an active revision the package manager has not given an endpoint yet",
        id="EmptyEndpoint",
    ),
    pytest.param(
        FakeCache(),
        FakeCache(revision("g-1", "g", endpoint="dns:///g:9443")),
        "",
        'cannot get gRPC client connection for Function "f": cannot find an active FunctionRevision '
        "(a FunctionRevision with spec.desiredState: Active)",
        "a Function that does not exist has no revision either; another Function's does not count",
        id="NoFunction",
    ),
]


@pytest.mark.parametrize(("fns", "revs", "want", "error", "reason"), TARGETS)
def test_target(fns: FakeCache, revs: FakeCache, want: str, error: str, reason: str) -> None:
    transport = _functions.FunctionTransport(fns, revs)
    if error:
        with pytest.raises(errors.FunctionRunError) as got:
            transport.target("f")
        assert str(got.value) == error, reason
        return
    assert transport.target("f") == want, reason


class Echo(fnv1grpc.FunctionRunnerServiceServicer):
    """Answers with a Normal result naming what it is."""

    def __init__(self, name: str) -> None:
        self.name = name

    async def RunFunction(self, req: fnv1.RunFunctionRequest, context: Any) -> fnv1.RunFunctionResponse:
        rsp = fnv1.RunFunctionResponse(meta=fnv1.ResponseMeta(tag=req.meta.tag))
        rsp.results.add(severity=fnv1.SEVERITY_NORMAL, message=self.name)
        return rsp


@pytest.fixture
async def servers() -> AsyncIterator[list[str]]:
    """Two echo servers on ephemeral ports, answering "one" and "two"."""
    started, targets = [], []
    for name in ("one", "two"):
        server = grpc.aio.server()
        fnv1grpc.add_FunctionRunnerServiceServicer_to_server(Echo(name), server)
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        started.append(server)
        targets.append(f"127.0.0.1:{port}")
    yield targets
    for server in started:
        await server.stop(None)


async def test_transport_routes_each_call_by_the_current_function(servers: list[str]) -> None:
    fns = FakeCache(function("f", "acme/function-x:v1", servers[0]))
    transport = _functions.FunctionTransport(fns, FakeCache())
    try:
        rsp = await transport.run_function("f", fnv1.RunFunctionRequest())
        assert [r.message for r in rsp.results] == ["one"], "the annotated endpoint is called"
        fns.objects = [function("f", "acme/function-x:v1", servers[1])]
        rsp = await transport.run_function("f", fnv1.RunFunctionRequest())
        assert [r.message for r in rsp.results] == ["two"], "a moved annotation is followed on the next call"
        fns.objects = [function("f", "xpkg.crossplane.io/crossplane-contrib/function-auto-ready:v0.2.1")]
        rsp = await transport.run_function("f", fnv1.RunFunctionRequest())
        assert all(r.message not in ("one", "two") for r in rsp.results), (
            "a built-in package runs in this process once the annotation is gone"
        )
    finally:
        await transport.aclose()


class Recording:
    def __init__(self) -> None:
        self.names: list[tuple[str, str]] = []

    def run_started(self, function: str, target: str, method: str) -> None:
        self.names.append((function, target))

    def run_finished(
        self, function: str, *, target: str, method: str, code: str, severity: str, seconds: float
    ) -> None:
        return None

    def cache(self, event: str, function: str, amount: float = 1) -> None:
        return None

    def cache_seconds(self, op: str, function: str, seconds: float) -> None:
        return None


async def test_builtins_run_in_process_under_the_function_name() -> None:
    metrics = Recording()
    pkg = "xpkg.crossplane.io/crossplane-contrib/function-auto-ready:v0.2.1"
    transport = _functions.FunctionTransport(
        FakeCache(function("ready-a", pkg), function("ready-b", pkg)), FakeCache(), metrics=metrics
    )
    await transport.run_function("ready-a", fnv1.RunFunctionRequest())
    await transport.run_function("ready-b", fnv1.RunFunctionRequest())
    assert metrics.names == [("ready-a", "in-process"), ("ready-b", "in-process")], (
        "each Function is labelled by its own name, not the built-in's, as Crossplane labels calls"
    )
    await transport.forget_unused({"ready-b"})
    await transport.aclose()


async def test_what_runs_is_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    """A built-in standing in for a package is never silent: one log line per Function and package."""
    pkg = "xpkg.crossplane.io/crossplane-contrib/function-auto-ready:v0.5.0"
    transport = _functions.FunctionTransport(FakeCache(function("ready", pkg)), FakeCache())
    with caplog.at_level(logging.INFO, logger="crossfn.controller.functions"):
        await transport.run_function("ready", fnv1.RunFunctionRequest())
        await transport.run_function("ready", fnv1.RunFunctionRequest())
    await transport.aclose()
    assert [r.getMessage() for r in caplog.records] == [
        "Function ready: running function-auto-ready v0.5.0 as the built-in auto-ready "
        "(behaves as v0.5.2 and earlier: the Ready condition only)"
    ]


ENDPOINTS = [
    pytest.param("127.0.0.1:9443", None, "an address and a port", id="HostPort"),
    pytest.param("fn.crossplane-system:9443", None, "a DNS name", id="Name"),
    pytest.param("[::1]:9443", None, "IPv6 in brackets", id="IPv6"),
    pytest.param("dns:///fn.crossplane-system:9443", None, "how FunctionRevision endpoints are written", id="Dns"),
    pytest.param("dns://8.8.8.8/fn.example:9443", None, "dns: with an authority", id="DnsAuthority"),
    pytest.param("ipv4:127.0.0.1:9443", None, "gRPC's ipv4: resolver", id="Ipv4"),
    pytest.param("unix:///tmp/fn.sock", None, "a Unix socket", id="Unix"),
    pytest.param(
        "not a host port", "want HOST:PORT, or a gRPC target such as dns:///HOST:PORT", "no port at all", id="Words"
    ),
    pytest.param("localhost", "want HOST:PORT, or a gRPC target such as dns:///HOST:PORT", "no port", id="NoPort"),
    pytest.param(":9443", "want HOST:PORT, or a gRPC target such as dns:///HOST:PORT", "no host", id="NoHost"),
    pytest.param("127.0.0.1:0", "want a port from 1 to 65535, got '0'", "port 0 is no port", id="PortZero"),
    pytest.param("127.0.0.1:65536", "want a port from 1 to 65535, got '65536'", "too high", id="PortHigh"),
    pytest.param("127.0.0.1:http", "want a port from 1 to 65535, got 'http'", "a service name", id="PortName"),
    pytest.param("dns:///fn", "want HOST:PORT, or a gRPC target such as dns:///HOST:PORT", "dns: w/o port", id="DnsNoPort"),
    pytest.param("unix:", "want a socket path after unix:", "no path", id="UnixNoPath"),
]  # fmt: skip


@pytest.mark.parametrize(("endpoint", "want", "reason"), ENDPOINTS)
def test_endpoint_problem(endpoint: str, want: str | None, reason: str) -> None:
    assert _functions.endpoint_problem(endpoint) == want, reason


async def test_an_invalid_annotation_fails_the_call_naming_it() -> None:
    transport = _functions.FunctionTransport(
        FakeCache(function("f", "acme/function-x:v1", "nope")), FakeCache()
    )
    try:
        with pytest.raises(errors.FunctionRunError) as got:
            await transport.run_function("f", fnv1.RunFunctionRequest())
        assert str(got.value) == (
            'cannot get gRPC client connection for Function "f": invalid crossfn.io/endpoint annotation "nope": '
            "want HOST:PORT, or a gRPC target such as dns:///HOST:PORT"
        ), "Crossplane's prefix, then what is wrong with the annotation; nothing was dialled"
    finally:
        await transport.aclose()


async def test_unreachable_endpoint_is_a_function_run_error() -> None:
    fns = FakeCache(function("f", "acme/function-x:v1", "127.0.0.1:1"))
    transport = _functions.FunctionTransport(fns, FakeCache(), timeout=2)
    try:
        with pytest.raises(errors.FunctionRunError) as got:
            await transport.run_function("f", fnv1.RunFunctionRequest())
        assert str(got.value).startswith('cannot run Function "f": rpc error: code = '), (
            "a dead endpoint is Crossplane's rpc error text, never a grpc exception"
        )
        assert str(got.value).endswith(" (target 127.0.0.1:1 from the crossfn.io/endpoint annotation)"), (
            "then where it was dialled, which Crossplane's text never says"
        )
    finally:
        await transport.aclose()


@pytest.mark.parametrize(
    "failure",
    [
        pytest.param(
            'cannot run Function "f": rpc error: code = Unavailable desc = down', id="CrossplaneText"
        ),
        pytest.param("the channel closed under the call", id="OtherText"),
    ],
)
async def test_where_a_dialled_call_went_does_not_depend_on_its_wording(
    monkeypatch: pytest.MonkeyPatch, failure: str
) -> None:
    """Any failure after the target resolved says where the call went, whatever its text says."""
    transport = _functions.FunctionTransport(
        FakeCache(function("f", "acme/function-x:v1", "127.0.0.1:1")), FakeCache()
    )

    async def fail(name: str, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
        raise errors.FunctionRunError(failure)

    monkeypatch.setattr(transport._grpc, "run_function", fail)
    try:
        with pytest.raises(errors.FunctionRunError) as got:
            await transport.run_function("f", fnv1.RunFunctionRequest())
        assert str(got.value) == f"{failure} (target 127.0.0.1:1 from the crossfn.io/endpoint annotation)"
    finally:
        await transport.aclose()


def _secret(data: dict[str, bytes]) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "crossplane-tls-client", "namespace": "crossplane-system"},
        "data": {k: base64.b64encode(v).decode() for k, v in data.items()},
    }


FULL = {"ca.crt": b"CA", "tls.crt": b"CERT", "tls.key": b"KEY"}

TLS = [
    pytest.param(
        _settings.FunctionSettings(insecure=True), [], None, "", "insecure dials without TLS", id="Insecure"
    ),
    pytest.param(
        _settings.FunctionSettings(),
        [_secret(FULL)],
        engine.TlsConfig(ca=b"CA", cert=b"CERT", key=b"KEY"),
        "",
        "the client certificate Secret, as Crossplane's core init writes it",
        id="Secret",
    ),
    pytest.param(
        _settings.FunctionSettings(),
        [],
        None,
        'cannot load client TLS certificates: Secret "crossplane-system/crossplane-tls-client" not found '
        "(or pass --insecure-functions to call functions without TLS)",
        "no Secret is fatal at start, as in Crossplane, and says how to go without",
        id="NoSecret",
    ),
    pytest.param(
        _settings.FunctionSettings(),
        [_secret({"ca.crt": b"CA", "tls.crt": b"CERT"})],
        None,
        'cannot load client TLS certificates: Secret "crossplane-system/crossplane-tls-client" has no tls.key '
        "(or pass --insecure-functions to call functions without TLS)",
        "every key is needed",
        id="MissingKey",
    ),
]


@pytest.mark.parametrize(("settings", "objects", "want", "error", "reason"), TLS)
async def test_load_tls(
    settings: _settings.FunctionSettings,
    objects: list[dict[str, Any]],
    want: engine.TlsConfig | None,
    error: str,
    reason: str,
) -> None:
    api = FakeApi()
    for obj in objects:
        api.put(obj)
    if error:
        with pytest.raises(errors.InputError) as got:
            await _functions.load_tls(api, settings)
        assert str(got.value) == error, reason
        return
    assert await _functions.load_tls(api, settings) == want, reason


async def test_load_tls_from_a_directory(tmp_path: pathlib.Path) -> None:
    for key, value in FULL.items():
        (tmp_path / key).write_bytes(value)
    got = await _functions.load_tls(FakeApi(), _settings.FunctionSettings(tls_client_certs_dir=str(tmp_path)))
    assert got == engine.TlsConfig(ca=b"CA", cert=b"CERT", key=b"KEY"), "the mounted directory is read first"


async def test_call_slots_bound_the_calls_to_one_function() -> None:
    """Two slots: a third call waits, then fails naming the Function and the limit; other Functions are
    not affected; a released slot serves the next call."""
    slots = _functions.CallSlots(2, wait=0.05)
    held = [await slots.acquire("hung"), await slots.acquire("hung")]
    with pytest.raises(errors.FunctionRunError) as info:
        await slots.acquire("hung")
    assert str(info.value) == (
        'cannot run Function "hung": 2 calls to it are in flight and none ended within 0.05s '
        "(--max-concurrent-function-calls); the composite resource is retried"
    )
    (await slots.acquire("healthy")).release()
    waiting = asyncio.ensure_future(slots.acquire("hung"))
    await asyncio.sleep(0)
    held[0].release()
    (await waiting).release()
    slots.forget({"healthy"})
    fresh = [await slots.acquire("hung"), await slots.acquire("hung")]
    assert len(fresh) == 2, "a deleted Function's slots are forgotten"


def test_call_slots_want_one_at_least() -> None:
    with pytest.raises(errors.InputError):
        _functions.CallSlots(0)
