"""Calling composition functions over gRPC, the way Crossplane does (upstream core-1.4, core-2.5).

Crossplane calls ``apiextensions.fn.proto.v1`` first and, only when the
server answers ``UNIMPLEMENTED``, calls the same bytes on ``v1beta1``: the
two packages are wire-identical, so we serialise once and send the bytes to
either method. Channels are dialled lazily and kept per target; when a
function's target changes the old channel is closed once no function uses it.
Every grpc error is translated into :class:`~crossfn.errors.FunctionRunError`
here, and never escapes.

Like Crossplane, a call waits for a server that is still starting
(``wait_for_ready``); unlike Crossplane, it does not wait its whole deadline
for one that cannot be reached. When a channel has not connected within
``connect_grace`` seconds and its last attempt failed (refused, no such host
or socket, a TLS handshake that failed), the call fails at once naming the
Function, its address and gRPC's reason, in Crossplane's rpc error text
(``docs/compatibility.md``).

Neighbours: ``_inprocess`` is the other transport; ``_stack`` puts the
fetching and caching runners on top of either.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import grpc
import grpc.aio

from crossfn import errors
from crossfn.engine import _metrics
from crossfn.proto import wire
from crossfn.proto.v1 import run_function_pb2 as fnv1

__all__ = ["METHOD_V1", "METHOD_V1BETA1", "GrpcRunner", "TlsConfig", "go_code"]

_log = logging.getLogger("crossfn.engine.grpc")

METHOD_V1 = "/apiextensions.fn.proto.v1.FunctionRunnerService/RunFunction"
METHOD_V1BETA1 = "/apiextensions.fn.proto.v1beta1.FunctionRunnerService/RunFunction"

_SERVICE_CONFIG = json.dumps({"loadBalancingConfig": [{"round_robin": {}}]})

CONNECT_GRACE = 2.0
"""Seconds a channel gets to connect before a failed connection fails the call: gRPC retries a
refused connection after about 1 s, so a server that is just starting gets two attempts."""

_PROBE = "/crossfn.engine.Probe/Unreachable"
"""A method no server has: called without waiting, it answers gRPC's last connection error when
the channel cannot connect, and ``UNIMPLEMENTED``, harmlessly, when it can."""


@dataclasses.dataclass(frozen=True)
class TlsConfig:
    """Client mTLS material, PEM-encoded: Crossplane dials functions with client certificates."""

    ca: bytes
    """Root certificates the function's server certificate must chain to."""
    cert: bytes | None = None
    """The client certificate chain; with ``key``, enables mutual TLS."""
    key: bytes | None = None
    server_name: str | None = None
    """Override the name checked against the server certificate (its SAN)."""


def go_code(code: grpc.StatusCode) -> str:
    """A status code as Go's ``codes.Code.String()`` prints it: ``DEADLINE_EXCEEDED`` -> ``DeadlineExceeded``."""
    return _GO_CODE_EXCEPTIONS.get(code) or "".join(part.capitalize() for part in code.name.split("_"))


_GO_CODE_EXCEPTIONS = {grpc.StatusCode.OK: "OK", grpc.StatusCode.CANCELLED: "Canceled"}
"""Where Go's names are not the CamelCase of Python's: Go spells it ``OK`` and ``Canceled``."""


class GrpcRunner:
    """Runs functions on gRPC servers, found by function name through ``targets``.

    ``targets`` maps a function name to ``host:port`` (a mapping, or a callable
    returning ``None`` for unknown names, so the address can change between
    calls). ``tls`` ``None`` dials insecurely, as ``crossplane render`` does.
    ``timeout`` bounds each call in seconds. ``wait_for_ready`` waits for a
    starting server instead of failing fast, as Crossplane does, but only
    ``connect_grace`` seconds for one whose connection attempts fail.
    """

    def __init__(
        self,
        targets: Mapping[str, str] | Callable[[str], str | None],
        *,
        tls: TlsConfig | None = None,
        timeout: float = 60.0,
        wait_for_ready: bool = True,
        connect_grace: float = CONNECT_GRACE,
        metrics: _metrics.Metrics | None = None,
    ) -> None:
        self._targets = targets
        self._tls = tls
        self._timeout = timeout
        self._wait = wait_for_ready
        self._connect_grace = connect_grace
        self._metrics = _metrics.guarded(metrics)
        self._channels: dict[str, grpc.aio.Channel] = {}
        self._function_target: dict[str, str] = {}

    def _target(self, name: str) -> str | None:
        if callable(self._targets):
            return self._targets(name)
        return self._targets.get(name)

    async def channel(self, name: str) -> grpc.aio.Channel:
        """The channel for function ``name``, dialled on first use and re-dialled when its target moves."""
        target = self._target(name)
        if not target:
            raise errors.FunctionRunError(
                f"cannot get gRPC client connection for Function {errors.quote(name)}: no gRPC target is known for it"
            )
        old = self._function_target.get(name)
        self._function_target[name] = target
        if old is not None and old != target:
            await self._close_if_unused(old)
        ch = self._channels.get(target)
        if ch is None or ch.get_state() == grpc.ChannelConnectivity.SHUTDOWN:
            ch = self._dial(target)
            self._channels[target] = ch
        return ch

    def _dial(self, target: str) -> grpc.aio.Channel:
        options: list[tuple[str, Any]] = [("grpc.service_config", _SERVICE_CONFIG)]
        if self._tls is None:
            return grpc.aio.insecure_channel(target, options=options)
        creds = grpc.ssl_channel_credentials(
            root_certificates=self._tls.ca, private_key=self._tls.key, certificate_chain=self._tls.cert
        )
        if self._tls.server_name:
            options.append(("grpc.ssl_target_name_override", self._tls.server_name))
        return grpc.aio.secure_channel(target, creds, options=options)

    async def _close_if_unused(self, target: str) -> None:
        if target in self._function_target.values():
            return
        ch = self._channels.pop(target, None)
        if ch is not None:
            await ch.close()

    async def close_unused(self, functions: Iterable[str]) -> None:
        """Forget and close connections of functions not in ``functions`` (Crossplane's connection GC)."""
        keep = set(functions)
        for name in [n for n in self._function_target if n not in keep]:
            target = self._function_target.pop(name)
            await self._close_if_unused(target)

    async def aclose(self) -> None:
        """Close every channel."""
        channels, self._channels = self._channels, {}
        self._function_target.clear()
        for ch in channels.values():
            await ch.close()

    async def run_function(self, name: str, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
        ch = await self.channel(name)
        target = self._function_target[name]
        data = req.SerializeToString()
        try:
            await self._reachable(ch, name, target)
            try:
                return await self._call(ch, name, target, METHOD_V1, data)
            except grpc.aio.AioRpcError as exc:
                if exc.code() != grpc.StatusCode.UNIMPLEMENTED:
                    raise _translate(name, exc) from exc
            try:
                return await self._call(ch, name, target, METHOD_V1BETA1, data)
            except grpc.aio.AioRpcError as exc:
                raise _translate(name, exc) from exc
        except (grpc.aio.UsageError, grpc.RpcError) as exc:  # e.g. a channel closed under the call
            raise errors.FunctionRunError(f"cannot run Function {errors.quote(name)}: {exc}") from exc

    async def _reachable(self, ch: grpc.aio.Channel, name: str, target: str) -> None:
        """Return once ``ch`` is connected or still connecting; raise when its connection attempts fail.

        A channel that is not ready after the grace period and whose last attempt
        failed (``TRANSIENT_FAILURE``) cannot be reached: a probe call that does not
        wait fetches gRPC's reason, and the call fails with it. A channel still
        connecting (a slow handshake) is left to the call and its deadline.
        """
        if not self._wait or ch.get_state(try_to_connect=True) == grpc.ChannelConnectivity.READY:
            return  # without wait_for_ready the call itself fails at once with the reason
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(ch.channel_ready(), min(self._connect_grace, self._timeout))
            return
        if ch.get_state() != grpc.ChannelConnectivity.TRANSIENT_FAILURE:
            return
        try:
            probe: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = ch.unary_unary(_PROBE)
            await probe(b"", timeout=min(self._connect_grace, self._timeout), wait_for_ready=False)
        except grpc.aio.AioRpcError as exc:
            if exc.code() == grpc.StatusCode.UNAVAILABLE:
                raise _unreachable(name, target, exc.details() or "", tls=self._tls is not None) from exc
        # Anything else came from a server: it is reachable now.

    async def _call(
        self, ch: grpc.aio.Channel, name: str, target: str, method: str, data: bytes
    ) -> fnv1.RunFunctionResponse:
        """One unary call of raw bytes, with the upstream core-2.5 request/response metrics around it.

        Both protocol versions decode as v1: the wire format is identical.
        """
        self._metrics.run_started(name, target, method)
        start = time.perf_counter()
        try:
            call: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = ch.unary_unary(method)
            raw = await call(data, timeout=self._timeout, wait_for_ready=self._wait)
        except grpc.aio.AioRpcError as exc:
            self._metrics.run_finished(
                name,
                target=target,
                method=method,
                code=go_code(exc.code()),
                severity="",
                seconds=time.perf_counter() - start,
            )
            raise
        try:
            rsp = wire.parse(fnv1.RunFunctionResponse, raw)
        except Exception as exc:  # protobuf's DecodeError differs between runtimes; translate any
            raise errors.FunctionRunError(
                f"cannot run Function {errors.quote(name)}: cannot decode RunFunctionResponse: {exc}"
            ) from exc
        severity = _metrics.result_severity([r.severity for r in rsp.results])
        self._metrics.run_finished(
            name,
            target=target,
            method=method,
            code="OK",
            severity=severity,
            seconds=time.perf_counter() - start,
        )
        return rsp


def _unreachable(name: str, target: str, details: str, *, tls: bool) -> errors.FunctionRunError:
    """Crossplane's rpc error text, its ``desc`` naming the address:
    ``cannot run Function "x": rpc error: code = Unavailable desc = cannot connect to <target>: ...``,
    with a hint for a TLS mismatch."""
    hint = ""
    if tls and "WRONG_VERSION_NUMBER" in details:
        hint = " (the function serves without TLS)"
    elif not tls and "Socket closed" in details:
        hint = " (the function closed the connection: dialled without TLS, it must serve with --insecure)"
    return errors.FunctionRunError(
        f"cannot run Function {errors.quote(name)}: rpc error: code = Unavailable desc = "
        f"cannot connect to {target}: {details}{hint}"
    )


def _translate(name: str, exc: grpc.aio.AioRpcError) -> errors.FunctionRunError:
    """Crossplane's text for a failed call: ``cannot run Function "x": rpc error: code = … desc = …``."""
    return errors.FunctionRunError(
        f"cannot run Function {errors.quote(name)}: rpc error: code = {go_code(exc.code())} desc = {exc.details()}"
    )
