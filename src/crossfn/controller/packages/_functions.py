"""Reaching Functions from the controller: in-process built-ins, annotated endpoints, package revisions.

Crossplane calls a Function at its active FunctionRevision's ``status.endpoint``
over mTLS (upstream controllers-5.7). crossfn does that too, and adds two routes, decided per call
from the Function object in the informer cache (:func:`route`):

=================  =========================================================
``crossfn.io/``    the annotation's ``HOST:PORT``, over gRPC: a function a
``endpoint``       developer runs locally (``crossfn function serve``, or
                   any SDK's server). It wins over the others.
built-in package   ``spec.package`` is an upstream package, at a version, that
                   a crossfn built-in stands in for (any registry; the same
                   rule as ``crossfn render``, :func:`crossfn.functions.resolve`):
                   called in this process, no gRPC, no Deployment.
installed package  ``spec.package`` is a release whose PyPI package
                   ``crossfn function install`` installed where this
                   controller looks (:mod:`crossfn.functions.installs`, as
                   render): run as this process's child on a loopback port,
                   started on first call, insecure; no Deployment.
any other package  the active FunctionRevision's ``status.endpoint``, which
                   ``_packages`` and ``_package_runtime`` write with
                   ``--package-runtime=Deployment``, and Crossplane's
                   package manager with ``External``.
=================  =========================================================

:class:`FunctionTransport` is the transport the runner stack wraps: an
:class:`crossfn.engine.RoutingRunner` whose routes are read per call. It is built
once, in :func:`build_runner`, so gRPC channels (and in-process function
objects) live for the controller's lifetime, and a Function whose endpoint
moves is re-dialled on the next call. The FunctionRevisions that make the
built-in and annotated routes look installed (``kubectl get functions``, the
``ValidPipeline`` gate) are kept by ``_functionrevisions``.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import datetime
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from crossfn import engine, errors, functions
from crossfn.controller import _settings
from crossfn.controller.kube import _api
from crossfn.controller.runtime import _informer
from crossfn.functions import installs
from crossfn.proto.v1 import run_function_pb2 as fnv1

__all__ = [
    "CALL_SLOT_WAIT",
    "ENDPOINT_ANNOTATION",
    "LABEL_PACKAGE",
    "FunctionTransport",
    "Route",
    "build_runner",
    "endpoint_problem",
    "load_tls",
    "route",
]

_log = logging.getLogger("crossfn.controller.functions")

ENDPOINT_ANNOTATION = "crossfn.io/endpoint"
"""Call this Function at ``HOST:PORT`` (local development), whatever its package."""

LABEL_PACKAGE = "pkg.crossplane.io/package"
"""The label that ties a FunctionRevision to its Function (upstream controllers-5.1)."""

CALL_SLOT_WAIT = 1.0
"""Seconds a call waits for one of its Function's slots (``max_calls``) before it fails: long enough
for a busy Function that answers (25 slots of 40 ms calls serve 600 a second), short enough that a
Function that never answers cannot make every worker of a controller wait on it."""


class CallSlots:
    """At most ``max_calls`` calls in flight per Function name; a call waits ``wait`` seconds for a slot."""

    def __init__(self, max_calls: int, wait: float = CALL_SLOT_WAIT) -> None:
        if max_calls < 1:
            raise errors.InputError(f"want at least one call per Function, got {max_calls}")
        self.max_calls = max_calls
        self._wait = wait
        self._slots: dict[str, asyncio.Semaphore] = {}

    async def acquire(self, name: str) -> asyncio.Semaphore:
        """Take a slot of Function ``name`` (release it on the semaphore returned), or fail after the wait."""
        slots = self._slots.get(name)
        if slots is None:
            slots = self._slots[name] = asyncio.Semaphore(self.max_calls)
        try:
            async with asyncio.timeout(self._wait):
                await slots.acquire()
        except TimeoutError:
            raise errors.FunctionRunError(
                f"cannot run Function {errors.quote(name)}: {self.max_calls} calls to it are in flight and "
                f"none ended within {self._wait:g}s (--max-concurrent-function-calls); the composite "
                "resource is retried"
            ) from None
        return slots

    def forget(self, names: set[str]) -> None:
        """Drop the slots of Functions not in ``names`` (deleted ones; a call still in flight
        releases the slot it holds)."""
        for name in [n for n in self._slots if n not in names]:
            del self._slots[name]


@dataclasses.dataclass(frozen=True)
class Route:
    """How one Function is reached: ``endpoint`` (``target`` is HOST:PORT), ``builtin``
    (``target`` is the built-in, a :attr:`crossfn.functions.Decision.builtin`), ``installed``
    (``target`` is the install's directory), ``package`` (its FunctionRevision), or
    ``invalid`` (a bad endpoint annotation; ``target`` says what is wrong with it)."""

    kind: Literal["endpoint", "builtin", "installed", "package", "invalid"]
    target: str = ""


_SCHEMES = ("dns:", "ipv4:", "ipv6:")
"""gRPC's name-resolver prefixes that take ``HOST:PORT`` (``dns:///h:p``, ``dns://authority/h:p``)."""


def endpoint_problem(endpoint: str) -> str | None:
    """What is wrong with a ``crossfn.io/endpoint`` value, or ``None`` when gRPC can dial it.

    ``HOST:PORT`` (``[IPv6]:PORT`` too), the same after ``dns:``, ``ipv4:`` or
    ``ipv6:`` (as FunctionRevision endpoints are written), or ``unix:PATH``.
    Checked before any dial: a bad value would otherwise surface a minute later
    as a DeadlineExceeded on every XR that uses the Function.
    """
    address = endpoint
    if endpoint.startswith("unix:"):
        return None if endpoint.removeprefix("unix:").strip("/") else "want a socket path after unix:"
    for scheme in _SCHEMES:
        if endpoint.startswith(scheme):
            rest = endpoint.removeprefix(scheme)
            address = rest.removeprefix("//").partition("/")[2] if rest.startswith("//") else rest
    host, sep, port = address.rpartition(":")
    if not sep or not host.strip("[]") or any(c.isspace() or c in "/@?#" for c in host):
        return "want HOST:PORT, or a gRPC target such as dns:///HOST:PORT"
    if not port.isdigit() or not 1 <= int(port) <= 65535:
        return f"want a port from 1 to 65535, got {port!r}"
    return None


def route(fn: Mapping[str, Any] | None) -> Route:
    """The route of a Function object; a missing Function goes the package way (and fails there)."""
    if fn is None:
        return Route("package")
    annotations = (fn.get("metadata") or {}).get("annotations") or {}
    endpoint = str(annotations.get(ENDPOINT_ANNOTATION) or "").strip()
    if endpoint:
        problem = endpoint_problem(endpoint)
        if problem is not None:
            return Route(
                "invalid", f"invalid {ENDPOINT_ANNOTATION} annotation {errors.quote(endpoint)}: {problem}"
            )
        return Route("endpoint", endpoint)
    package = str((fn.get("spec") or {}).get("package") or "")
    decision = functions.resolve(package)
    if decision is not None and decision.builtin is not None:
        return Route("builtin", decision.builtin)
    found = installs.find(package) if decision is None else None
    if found is not None:
        return Route("installed", str(found.path))
    return Route("package")


class FunctionTransport:
    """The transport under the runner stack: routes each call by the Function's current object.

    ``functions`` and ``revisions`` are the informer caches of Functions and
    FunctionRevisions; routing reads them on every call (a dict lookup), so an
    annotation added, a package changed or an endpoint written takes effect on
    the next call without a restart.

    Built-ins run here, in the controller's pod, where its service account
    token lives, so they read only beneath ``filesystem_root`` (nothing without
    one), and their KCL programs and Python scripts run in sandbox processes the
    kernel confines (:class:`crossfn.functions.FileAccess`): a Composition cannot
    make the controller read its own files into composed resources.
    """

    def __init__(
        self,
        functions_cache: _informer.Reader,
        revisions_cache: _informer.Reader,
        *,
        tls: engine.TlsConfig | None = None,
        timeout: float = 60.0,
        metrics: engine.Metrics | None = None,
        filesystem_root: str | None = None,
        max_calls: int = 25,
    ) -> None:
        self._files = functions.FileAccess.beneath(filesystem_root)
        self._functions = functions_cache
        self._slots = CallSlots(max_calls)
        self._revisions = revisions_cache
        self._metrics = metrics
        self._grpc = engine.GrpcRunner(self.target, tls=tls, timeout=timeout, metrics=metrics)
        self._local_targets: dict[str, str] = {}
        self._local = engine.GrpcRunner(self._local_targets.get, timeout=timeout, metrics=metrics)
        self._servers: dict[str, installs.Server] = {}
        self._inprocess: dict[str, tuple[str, engine.InProcessRunner]] = {}
        self._objects: dict[str, object] = {}
        self._said: set[tuple[str, str]] = set()
        self._routing = engine.RoutingRunner(self._runner)

    def _say_what_runs(self, name: str, fn: Mapping[str, Any] | None) -> None:
        """Log once per Function and package whether a built-in stands in for it: never a silent substitution."""
        package = str(((fn or {}).get("spec") or {}).get("package") or "")
        if (name, package) in self._said:
            return
        self._said.add((name, package))
        decision = functions.resolve(package)
        if decision is not None and decision.line:
            _log.info("Function %s: %s", name, decision.line)
        found = installs.find(package) if decision is None else None
        if found is not None:
            _log.info("Function %s: %s", name, found.line())

    def target(self, name: str) -> str:
        """The gRPC target of Function ``name``, with Crossplane's errors when there is none
        (upstream controllers-5.7)."""
        r = route(self._functions.get(name))
        if r.kind == "endpoint":
            return r.target
        if r.kind == "invalid":
            raise errors.FunctionRunError(
                f"cannot get gRPC client connection for Function {errors.quote(name)}: {r.target}"
            )
        try:
            revisions = self._revisions.list(labels={LABEL_PACKAGE: name})
            return engine.active_endpoint(revisions, name)
        except errors.FunctionRunError as exc:
            raise errors.FunctionRunError(
                f"cannot get gRPC client connection for Function {errors.quote(name)}: {exc}"
            ) from exc

    def _builtin(self, name: str, short: str) -> engine.InProcessRunner:
        """The in-process runner of Function ``name`` running built-in ``short``, made on first use.

        One runner per Function name, so metrics and errors name the Function
        as the user wrote it; the function object itself is loaded once per
        built-in and shared.
        """
        known = self._inprocess.get(name)
        if known is not None and known[0] == short:
            return known[1]
        obj = self._objects.get(short)
        if obj is None:
            obj = self._objects[short] = functions.load(short, files=self._files)
        runner = engine.InProcessRunner({name: obj}, metrics=self._metrics)
        self._inprocess[name] = (short, runner)
        return runner

    def _runner(self, name: str) -> engine.FunctionRunner:
        """The route of Function ``name`` as a runner: its built-in in this process, else gRPC."""
        fn = self._functions.get(name)
        r = route(fn)
        if r.kind in ("builtin", "installed", "package"):
            self._say_what_runs(name, fn)
        if r.kind == "builtin":
            return self._builtin(name, r.target)
        if r.kind == "installed":
            return engine.runner_from(lambda n, req: self._installed(n, req, r, fn))
        return engine.runner_from(lambda n, req: self._remote(n, req, r))

    async def _installed(
        self, name: str, req: fnv1.RunFunctionRequest, r: Route, fn: Mapping[str, Any] | None
    ) -> fnv1.RunFunctionResponse:
        """Call the install at ``r.target`` in its own process, started (once per install) on first call."""
        server = self._servers.get(r.target)
        if server is None:
            found = installs.find(str(((fn or {}).get("spec") or {}).get("package") or ""))
            if found is None or str(found.path) != r.target:
                raise errors.FunctionRunError(
                    f"cannot run Function {errors.quote(name)}: its install in {r.target} has gone"
                )
            server = self._servers[r.target] = installs.Server(found)
        try:
            self._local_targets[name] = await server.target()
        except errors.FunctionRunError as exc:
            raise errors.FunctionRunError(f"cannot start Function {errors.quote(name)}: {exc}") from exc
        return await self._local.run_function(name, req)

    async def _remote(self, name: str, req: fnv1.RunFunctionRequest, r: Route) -> fnv1.RunFunctionResponse:
        # Resolving the target first: when there is none, nothing is dialled and the
        # error already says why; a call that fails after dialling says where it went.
        await self._grpc.channel(name)
        slots = await self._slots.acquire(name)
        try:
            return await self._grpc.run_function(name, req)
        except errors.FunctionRunError as exc:
            raise errors.FunctionRunError(f"{exc} ({self._dialled(name, r)})") from exc
        finally:
            slots.release()

    async def run_function(self, name: str, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
        return await self._routing.run_function(name, req)

    def _dialled(self, name: str, r: Route) -> str:
        """Where a failed call went, appended to Crossplane's text, which never says (a wrong port, a typo)."""
        if r.kind == "endpoint":
            return f"target {r.target} from the {ENDPOINT_ANNOTATION} annotation"
        try:
            return f"target {self.target(name)} from the active FunctionRevision"
        except errors.FunctionRunError:
            return "its active FunctionRevision has since gone"

    async def forget_unused(self, names: set[str]) -> None:
        """Close channels and drop in-process runners of Functions not in ``names`` (Crossplane's
        connection GC, every 10 minutes there)."""
        for name in [n for n in self._inprocess if n not in names]:
            del self._inprocess[name]
        self._slots.forget(names)
        await self._grpc.close_unused(names)

    async def aclose(self) -> None:
        """Close every gRPC channel and stop every install's process."""
        await self._grpc.aclose()
        await self._local.aclose()
        for server in self._servers.values():
            await server.stop()
        self._servers.clear()


def build_runner(
    transport: FunctionTransport,
    sources: engine.Sources,
    *,
    metrics: engine.Metrics | None = None,
    cache: engine.ResponseStore | None = None,
    cache_max_ttl: datetime.timedelta | None = None,
) -> engine.FunctionRunner:
    """The runner every XR reconcile uses: ``transport`` under the requirements loop, and the response
    cache over both when ``cache`` is given.

    Built once per controller (the engine's stack, in Crossplane's order): the
    requirements loop fetches from ``sources`` (the API server); the cache, off
    by default as in Crossplane (``--enable-function-response-cache``), stores
    final responses, so it sits outside the loop. There is no pipeline inspector.
    """
    return engine.build_runner(
        transport, sources=sources, options=engine.ComposeOptions.controller(), metrics=metrics,
        cache=cache, cache_max_ttl=cache_max_ttl,
    )  # fmt: skip


_TLS_KEYS = ("ca.crt", "tls.crt", "tls.key")


async def load_tls(api: _api.Api, settings: _settings.FunctionSettings) -> engine.TlsConfig | None:
    """The client mTLS material for calling functions, or ``None`` with ``insecure``.

    Read from ``tls_client_certs_dir`` when set, else from the Secret
    ``namespace/tls_client_secret_name``: Crossplane's client certificate,
    signed by the CA every function package's server certificate is signed by
    (upstream controllers-5.5). A failure is fatal at start, as in Crossplane:
    ``cannot load client TLS certificates: …``.
    """
    if settings.insecure:
        return None
    try:
        if settings.tls_client_certs_dir:
            material = _read_dir(Path(settings.tls_client_certs_dir))
        else:
            material = await _read_secret(api, settings.namespace, settings.tls_client_secret_name)
    except (errors.CrossfnError, OSError) as exc:
        raise errors.InputError(
            f"cannot load client TLS certificates: {exc} (or pass --insecure-functions to call functions without TLS)"
        ) from exc
    return engine.TlsConfig(ca=material["ca.crt"], cert=material["tls.crt"], key=material["tls.key"])


def _read_dir(directory: Path) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for key in _TLS_KEYS:
        data = (directory / key).read_bytes()
        if not data:
            raise errors.InputError(f"{directory / key} is empty")
        out[key] = data
    return out


async def _read_secret(api: _api.Api, namespace: str, name: str) -> dict[str, bytes]:
    where = f"Secret {errors.quote(f'{namespace}/{name}')}"
    secret = await api.get("v1", "Secret", name, namespace)
    if secret is None:
        raise errors.InputError(f"{where} not found")
    data = secret.get("data") or {}
    out: dict[str, bytes] = {}
    for key in _TLS_KEYS:
        raw = base64.b64decode(str(data.get(key) or ""))
        if not raw:
            raise errors.InputError(f"{where} has no {key}")
        out[key] = raw
    return out
