"""Fuzzing the served built-in functions: hostile RunFunctionRequests never wedge a server.

``crossfn function serve`` runs patch-and-transform, auto-ready and starlark,
each in its own process. Hypothesis sends them malformed bytes and
well-formed requests with deep, huge and mistyped values where user data goes
(the XR, composed resources, the function input, the context). The contract:

* every call ends within its deadline with a response or a clean gRPC status
  (never UNKNOWN, which is an exception escaping the servicer, nor
  UNAVAILABLE, a dead server);
* the server keeps answering health checks, and stays alive;
* its memory stays bounded.

The budget: with ``CI=true`` the ``served-ci`` profile (60 examples per
function, derandomised: about 15 s on 2 CPUs); locally ``served-dev``.
"""

from __future__ import annotations

import base64
import collections
import contextlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.protobuf import json_format
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from crossfn import cli
from crossfn.proto import wire
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource

settings.register_profile(
    "served-ci", max_examples=60, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)  # fmt: skip
settings.register_profile(
    "served-dev", max_examples=80, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)  # fmt: skip
_PROFILE = settings.get_profile("served-ci" if os.environ.get("CI") == "true" else "served-dev")

_METHOD = "/apiextensions.fn.proto.v1.FunctionRunnerService/RunFunction"
_CALL_TIMEOUT = 5
"""The servers' --call-timeout: every call must end by then (plus transport time)."""
_CLEAN = {
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.INTERNAL,  # only for requests gRPC cannot decode: checked below
}
_RECEIVE_LIMIT = 4 << 20
_MAX_RSS_KIB = 1 << 20
"""A served function's memory after fuzzing: under 1 GiB (requests are at most 4 MB)."""


class _Payload:
    """Request bytes with a short repr: a failing example of several MB must still be reported."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def __repr__(self) -> str:
        return f"<{len(self.data)} bytes: {self.data[:200]!r}...>"


class _Served:
    """One ``crossfn function serve`` process and a channel to it."""

    def __init__(self, name: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "crossfn", "function", "serve", name, "--insecure",
             "--address", "127.0.0.1:0", "--call-timeout", str(_CALL_TIMEOUT), "--grace-period", "0"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        assert self.proc.stdout is not None
        port = 0
        for line in self.proc.stdout:
            if '"serving function"' in line:
                port = int(json.loads(line)["port"])
                break
        assert port, f"{name} did not start: {self.proc.poll()}"
        # The server logs every Fatal result's traceback: drain its output so it never blocks.
        threading.Thread(target=collections.deque, args=(self.proc.stdout, 0), daemon=True).start()
        self.channel = grpc.insecure_channel(
            f"127.0.0.1:{port}", options=[("grpc.max_send_message_length", 8 << 20)]
        )
        self.call: grpc.UnaryUnaryMultiCallable[bytes, bytes] = self.channel.unary_unary(_METHOD)
        self.health = health_pb2_grpc.HealthStub(self.channel).Check  # type: ignore[attr-defined]  # typeshed's HealthStub declares no methods

    def send(self, request: _Payload | bytes) -> None:
        """One call: a response or a clean status, in time; then the server still answers health checks."""
        payload = request.data if isinstance(request, _Payload) else request
        try:
            raw = self.call(payload, timeout=_CALL_TIMEOUT + 5)
        except grpc.RpcError as exc:
            code = exc.code()
            assert code in _CLEAN, f"{code}: {exc.details()}"
            if code == grpc.StatusCode.INTERNAL:
                assert exc.details() == "Exception deserializing request!", exc.details()
            if code == grpc.StatusCode.RESOURCE_EXHAUSTED:
                # Only a request over the receive limit; a response over the send limit
                # (a huge error message) must have been a result instead.
                assert len(payload) > _RECEIVE_LIMIT, exc.details()
        else:
            wire.parse(fnv1.RunFunctionResponse, raw)  # as deep as the engine's client accepts
        got = self.health(health_pb2.HealthCheckRequest(), timeout=2)
        assert got.status == health_pb2.HealthCheckResponse.SERVING
        assert self.proc.poll() is None, "the server died"

    def rss_kib(self) -> int:
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def close(self) -> None:
        self.channel.close()
        self.proc.terminate()
        self.proc.wait(timeout=10)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, _Served]]:
    started = {name: _Served(name) for name in ("patch-and-transform", "auto-ready", "starlark")}
    yield started
    for served in started.values():
        assert served.rss_kib() < _MAX_RSS_KIB, "memory grew without bound"
        served.close()


# --- what a hostile user puts where user data goes ---------------------------------------------

_HOSTILE_STRINGS = st.sampled_from(
    ["1e-999999999", "1e4294967297", "9" * 5000, "[" * 9000 + "]" * 9000, '{"a":' * 3000 + "1" + "}" * 3000,
     "\x00\x7f", "%" * 1000 + "d", "x" * 1_000_000, base64.b64encode(b"\xff\xfe").decode(), "-0", "NaN", ""]
)  # fmt: skip
_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**53), 2**53), st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=50), _HOSTILE_STRINGS,
)  # fmt: skip
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=30,
)


def _deep(depth: int) -> Any:
    value: Any = "bottom"
    for _ in range(depth):
        value = {"a": value}
    return value


_DEEP = st.one_of(st.integers(1, 90), st.sampled_from([500, 3_000, 10_001])).map(_deep)
"""Shallow nesting, and nesting past protobuf's default 100 message levels up to and past Kubernetes' 10,000."""

_PATCH_TYPES = st.sampled_from(
    ["FromCompositeFieldPath", "ToCompositeFieldPath", "CombineFromComposite", "FromEnvironmentFieldPath",
     "PatchSet", "Bogus", 1, None]
)  # fmt: skip
_TRANSFORMS = st.lists(
    st.one_of(
        st.fixed_dictionaries({"type": st.just("convert"), "convert": st.fixed_dictionaries(
            {"toType": st.sampled_from(["int64", "float64", "string", "bool", "object", "array", 7]),
             "format": st.sampled_from(["quantity", "json", "none", "bogus"])})}),
        st.fixed_dictionaries({"type": st.just("math"), "math": st.fixed_dictionaries(
            {"type": st.sampled_from(["Multiply", "ClampMin", "ClampMax"]), "multiply": _SCALARS,
             "clampMin": _SCALARS})}),
        st.fixed_dictionaries({"type": st.just("string"), "string": st.fixed_dictionaries(
            {"type": st.sampled_from(["Format", "Convert", "TrimPrefix", "Regexp", "Join"]),
             "fmt": st.text(max_size=20), "convert": st.sampled_from(["FromBase64", "ToJson", "ToSha256", "x"]),
             "regexp": st.fixed_dictionaries({"match": st.text(max_size=20)})})}),
        st.fixed_dictionaries({"type": st.just("map"), "map": st.dictionaries(st.text(max_size=5), _VALUES)}),
        _VALUES,
    ),
    max_size=3,
)  # fmt: skip
_PT_INPUT = st.fixed_dictionaries(
    {"apiVersion": st.just("pt.fn.crossplane.io/v1beta1"), "kind": st.just("Resources"),
     "resources": st.lists(st.fixed_dictionaries(
         {"name": st.text(max_size=5), "base": st.one_of(_VALUES, st.just({"apiVersion": "v1", "kind": "CD"})),
          "patches": st.lists(st.fixed_dictionaries(
              {"type": _PATCH_TYPES, "fromFieldPath": st.sampled_from(["spec.v", "spec", "spec.v[0]", "[", ""]),
               "toFieldPath": st.sampled_from(["spec.out", "metadata.labels", "spec[*].x", "a..b"]),
               "transforms": _TRANSFORMS}), max_size=3)}), max_size=3)}
)  # fmt: skip
_AUTO_READY_INPUT = st.fixed_dictionaries(
    {"apiVersion": st.just("autoready.fn.crossplane.io/v1beta1"), "kind": st.just("Input"),
     "celHealthCheckCustomization": st.dictionaries(
         st.just("example.org_v1_CD"),
         st.sampled_from(["object.spec.l.all(x, object.spec.l.all(y, x != y))", "object.spec.v == 1", "(((", "true",
                          "object.spec.l.map(x, x * x).exists(y, y > 10)", "object.status.conditions[99].type"]))}
)  # fmt: skip
_STARLARK_INPUT = st.fixed_dictionaries(
    {"apiVersion": st.just("starlark.fn.crossfn.io/v1alpha1"), "kind": st.just("StarlarkScript"),
     "script": st.sampled_from([
         "def main(req):\n    return {'ttl': 10000000000000000000000}\n",
         "def main(req):\n    fail('x' * 5000000)\n",
         "def main(req):\n    return req\n",
         "def main(req):\n    return {'desired': req['observed']}\n",
         "def main(req):\n    return {'results': [{'severity': 'SEVERITY_FATAL', 'message': req['observed']}]}\n",
         "def main(req):\n    x = 0\n    for i in range(1000000000):\n        x += i\n    return {}\n",
         "def main(", ""])}
)  # fmt: skip


@contextlib.contextmanager
def _deep_recursion() -> Iterator[None]:
    """The CLI's recursion limit while a deep request is built, and hypothesis' own limit back after."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, cli.RECURSION_LIMIT))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def _request(fn_input: Any, xr_spec: Any, composed: Any, context: Any) -> bytes:
    """A well-formed request with hostile values where user data goes."""
    with _deep_recursion():
        return _build_request(fn_input, xr_spec, composed, context)


def _build_request(fn_input: Any, xr_spec: Any, composed: Any, context: Any) -> bytes:
    xr = {"apiVersion": "example.org/v1", "kind": "XR", "spec": {"v": xr_spec, "l": list(range(1000))}}
    req = fnv1.RunFunctionRequest()
    req.observed.composite.resource.CopyFrom(resource.dict_to_struct(xr))
    req.desired.composite.resource.CopyFrom(resource.dict_to_struct(xr))
    ocd = {"apiVersion": "example.org/v1", "kind": "CD", "spec": {"v": composed, "l": list(range(1000))}}
    req.observed.resources["r"].resource.CopyFrom(resource.dict_to_struct(ocd))
    req.desired.resources["r"].resource.CopyFrom(
        resource.dict_to_struct({"apiVersion": "example.org/v1", "kind": "CD"})
    )
    if isinstance(fn_input, dict):
        req.input.CopyFrom(resource.dict_to_struct(fn_input))
    if isinstance(context, dict):
        req.context.CopyFrom(resource.dict_to_struct(context))
    return req.SerializeToString()


def _requests(fn_input: st.SearchStrategy[Any]) -> st.SearchStrategy[_Payload]:
    hostile = st.one_of(_VALUES, _DEEP, _HOSTILE_STRINGS)
    contexts = st.one_of(st.none(), st.dictionaries(st.sampled_from(
        ["apiextensions.crossplane.io/environment", "x"]), hostile, max_size=2))  # fmt: skip
    return st.builds(_request, st.one_of(fn_input, _VALUES), hostile, hostile, contexts).map(_Payload)


_GARBAGE = st.one_of(
    st.binary(max_size=200),
    st.binary(max_size=50).map(lambda b: b"\x0a\xff\xff\xff\x0f" + b),  # a field claiming 4 GB
    st.just(b"\x12" + b"\x0a\x02" * 60),  # nested tags
)


def _json_request(body: dict[str, Any]) -> bytes:
    return json_format.ParseDict(body, fnv1.RunFunctionRequest()).SerializeToString()


def _pt(value: str, to: str, fmt: str = "none") -> _Payload:
    patch = {
        "type": "FromCompositeFieldPath",
        "fromFieldPath": "spec.v",
        "toFieldPath": "spec.out",
        "transforms": [{"type": "convert", "convert": {"toType": to, "format": fmt}}],
    }
    base = {"apiVersion": "example.org/v1", "kind": "CD"}
    pt_input = {
        "apiVersion": "pt.fn.crossplane.io/v1beta1",
        "kind": "Resources",
        "resources": [{"name": "r", "base": base, "patches": [patch]}],
    }
    return _Payload(_request(pt_input, value, None, None))


def _script(script: str) -> _Payload:
    return _Payload(
        _request(
            {"apiVersion": "starlark.fn.crossfn.io/v1alpha1", "kind": "StarlarkScript", "script": script},
            None,
            None,
            None,
        )
    )


_QUADRATIC = {
    "apiVersion": "autoready.fn.crossplane.io/v1beta1",
    "kind": "Input",
    "celHealthCheckCustomization": {
        "example.org_v1_CD": "object.spec.l.all(x, object.spec.l.all(y, x != y))"
    },
}


# The findings the suite was written for are always tried first (@example).


@_PROFILE
@given(payload=st.one_of(_GARBAGE, _requests(_PT_INPUT)))
@example(payload=_pt("1e-999999999", "float64", "quantity"))
@example(payload=_pt("9" * 5000, "int64"))
@example(payload=_pt("[" * 9000 + "]" * 9000, "array", "json"))
def test_patch_and_transform(servers: dict[str, _Served], payload: _Payload | bytes) -> None:
    servers["patch-and-transform"].send(payload)


@_PROFILE
@given(payload=st.one_of(_GARBAGE, _requests(_AUTO_READY_INPUT)))
@example(payload=_Payload(_request(_QUADRATIC, None, None, None)))
@example(payload=_Payload(_request(None, _deep(9_000), _deep(3_000), None)))  # answered: Kubernetes' depth
@example(payload=_Payload(_request(None, _deep(10_001), None, None)))  # deeper: a clean status
def test_auto_ready(servers: dict[str, _Served], payload: _Payload | bytes) -> None:
    servers["auto-ready"].send(payload)


@_PROFILE
@given(payload=st.one_of(_GARBAGE, _requests(_STARLARK_INPUT)))
@example(payload=_script("def main(req):\n    fail('x' * 5000000)\n"))
@example(payload=_script("def main(req):\n    return {'ttl': 10000000000000000000000}\n"))
def test_starlark(servers: dict[str, _Served], payload: _Payload | bytes) -> None:
    servers["starlark"].send(payload)


@pytest.mark.parametrize("name", ["patch-and-transform", "auto-ready", "starlark"])
def test_huge_request_is_refused_cleanly(servers: dict[str, _Served], name: str) -> None:
    """A request over the 4 MB receive limit is RESOURCE_EXHAUSTED, and the server goes on."""
    payload = _json_request({"input": {"blob": "x" * (5 << 20)}})
    with pytest.raises(grpc.RpcError) as raised:
        servers[name].call(payload, timeout=10)
    assert raised.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    servers[name].send(_json_request({}))
