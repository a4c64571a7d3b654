"""Fail fast, name the culprit (issue 25), in the controller: an XR whose Function cannot be reached gets
``Synced=False`` within seconds, naming the step, the Function and its address, and a hint for a TLS mismatch.

The controller here dials functions as Crossplane does, with TLS (client certificates from
``--tls-client-certs-dir``) and the default 60 s call deadline, so a failure that waited for the deadline
would miss the 20 s these tests allow. Each case composes one XR through a Function whose
``crossfn.io/endpoint`` is: a port nobody listens on (refused); ``crossfn function serve --insecure``
(a TLS mismatch); a function that composed the XR and then stopped.
"""

from __future__ import annotations

import contextlib
import pathlib
import sys
from collections.abc import AsyncIterator, Iterator
from typing import Any, Literal

import pytest

from crossfn.controller import _settings
from crossfn.controller import envtest as envtest_module
from crossfn.controller.manager import _manager
from crossfn.controller.runtime import _tls

from .e2e_support import (
    AUTO_READY_PACKAGE,
    CONTROLLER_NAMESPACE,
    FLAVOURS,
    PAT_PACKAGE,
    WIDGET_API,
    WIDGET_CRD,
    Process,
    condition,
    crossfn_serve,
    free_port,
    function,
    namespace,
    wait_for,
)

pytestmark = pytest.mark.cluster

AT_ONCE = 20.0
"""Seconds an XR may take to report the failure: far below the 60 s call deadline it must not wait for."""


@pytest.fixture
def ca() -> _tls.KeyPair:
    """The CA of the controller's client certificate and of a function's server certificate."""
    return _tls.new_ca()


def _certificates(ca: _tls.KeyPair, directory: pathlib.Path, usage: Literal["server", "client"]) -> str:
    """``ca.crt``, ``tls.crt`` and ``tls.key`` in ``directory`` (for ``localhost`` as a server); returns it."""
    pair = _tls.new_certificate(ca, common_name="localhost", dns_names=["localhost"], usage=usage)
    directory.mkdir(exist_ok=True)
    for file, data in (("ca.crt", ca.cert), ("tls.crt", pair.cert), ("tls.key", pair.key)):
        (directory / file).write_bytes(data)
    return str(directory)


@pytest.fixture
async def secure_manager(
    controller_manager: envtest_module.Environment,
    crossplane_crds: list[str],
    kube: Any,
    tmp_path: pathlib.Path,
    ca: _tls.KeyPair,
) -> AsyncIterator[_manager.Manager]:
    """A controller without --insecure-functions: it dials every function with TLS and a client certificate."""
    client_dir = _certificates(ca, tmp_path / "client", "client")
    for obj in (WIDGET_CRD, namespace("e2e-composed"), namespace("e2e-xrs"), namespace(CONTROLLER_NAMESPACE)):
        await kube.apply(obj, field_manager="e2e")
    for name, package in (
        ("function-patch-and-transform", PAT_PACKAGE),
        ("function-auto-ready", AUTO_READY_PACKAGE),
    ):
        await kube.apply(function(name, package), field_manager="e2e", force=True)
    m = _manager.Manager(
        _settings.Settings(
            webhooks=_settings.WebhookSettings(enabled=False),
            cluster=_settings.ClusterSettings(kubeconfig=controller_manager.kubeconfig),
            functions=_settings.FunctionSettings(tls_client_certs_dir=client_dir),
            packages=_settings.PackageSettings(runtime="External"),
            observability=_settings.ObservabilitySettings(
                metrics_address="127.0.0.1:0", health_address="127.0.0.1:0"
            ),
        )
    )
    await m.start()
    try:
        await m.wait_ready()
        yield m
    finally:
        await m.stop()


@contextlib.contextmanager
def _nothing_listening() -> Iterator[str]:
    yield f"127.0.0.1:{free_port()}"


async def _establish(kube: Any) -> None:
    flavour = FLAVOURS[0]
    await kube.apply(flavour.xrd(), field_manager="e2e", force=True)

    async def served() -> bool:
        await kube.list(flavour.xr_api, "XWidget")
        return True

    await wait_for(served, timeout=30, what="the XR kind served")


async def _compose_through(kube: Any, fn: str, endpoint: str) -> None:
    """A Function at ``endpoint``, a Composition with a step ``<fn>-step`` calling it, and an XR ``fn``."""
    flavour = FLAVOURS[0]
    await kube.apply(function(fn, f"xpkg.example.org/e2e/{fn}:v1", endpoint), field_manager="e2e", force=True)
    comp = flavour.composition(fn, ["a"], [{"step": f"{fn}-step", "functionRef": {"name": fn}}])
    await kube.apply(comp, field_manager="e2e", force=True)
    await kube.apply(flavour.xr(fn, fn, "s"), field_manager="e2e", force=True)


async def _synced(kube: Any, name: str) -> dict[str, Any]:
    flavour = FLAVOURS[0]
    return condition(await kube.get(flavour.xr_api, "XWidget", name, flavour.xr_namespace), "Synced")


@pytest.mark.parametrize(
    ("server", "hint", "reason"),
    [
        pytest.param(_nothing_listening, "Connection refused", "nothing listens: refused", id="Refused"),
        pytest.param(lambda: crossfn_serve("crossfn_functions:compose"), "(the function serves without TLS)",
                     "the controller dials TLS, the function serves without: a hint says so", id="TLSMismatch"),
    ],
)  # fmt: skip
async def test_unreachable_function_fails_the_xr_at_once(
    secure_manager: _manager.Manager, kube: Any, server: Any, hint: str, reason: str
) -> None:
    await _establish(kube)
    fn = f"fault-{'refused' if 'refused' in hint.lower() else 'tls'}"
    with server() as address:
        await _compose_through(kube, fn, address)

        async def failed() -> dict[str, Any] | None:
            synced = await _synced(kube, fn)
            calling = f'cannot run Function "{fn}"' in synced.get("message", "")
            return synced if synced.get("status") == "False" and calling else None  # not the revision's wait

        synced = await wait_for(failed, timeout=AT_ONCE, what=f"XR {fn} Synced=False ({reason})")
    message = synced.get("message", "")
    for part in (
        f'cannot run Composition pipeline step "{fn}-step"',
        f'cannot run Function "{fn}"',
        address,
        hint,
    ):
        assert part in message, f"{reason}: the condition names {part!r}: {message}"
    assert synced["reason"] == "ReconcileError"
    await kube.delete(FLAVOURS[0].xr_api, "XWidget", fn, FLAVOURS[0].xr_namespace)


@contextlib.contextmanager
def _tls_serve(certs: str) -> Iterator[tuple[Process, str]]:
    """``crossfn function serve`` with mTLS on a loopback port; yields it and its ``localhost:PORT`` address."""
    port = free_port()
    p = Process(
        [sys.executable, "-m", "crossfn", "function", "serve", "crossfn_functions:compose",
         "--tls-server-certs-dir", certs, "--address", f"127.0.0.1:{port}"],
        env={"INSECURE": "", "WORKERS": "", "E2E_WIDGET_API": WIDGET_API},
    )  # fmt: skip
    try:
        p.wait_serving(f"127.0.0.1:{port}")
        yield p, f"localhost:{port}"
    finally:
        p.stop()


async def test_a_function_that_stopped_fails_the_next_reconcile_at_once(
    secure_manager: _manager.Manager, kube: Any, tmp_path: pathlib.Path, ca: _tls.KeyPair
) -> None:
    """A function that composed the XR over mTLS, then stopped: the XR's next reconcile (its spec changed) fails
    within seconds, naming the Function and its address, on a channel that had been connected."""
    await _establish(kube)
    flavour, fn = FLAVOURS[0], "fault-stopped"
    with _tls_serve(_certificates(ca, tmp_path / "server", "server")) as (server, address):
        await _compose_through(kube, fn, address)

        async def composed() -> dict[str, Any] | None:
            synced = await _synced(kube, fn)
            return synced if synced.get("status") == "True" else None

        await wait_for(composed, timeout=60, what=f"XR {fn} composed through its function over mTLS")
        server.stop()
        await kube.patch(flavour.xr_api, "XWidget", fn, flavour.xr_namespace, {"spec": {"size": "m"}})

        async def failed() -> dict[str, Any] | None:
            synced = await _synced(kube, fn)
            calling = f'cannot run Function "{fn}"' in synced.get("message", "")
            return synced if synced.get("status") == "False" and calling else None

        synced = await wait_for(
            failed, timeout=AT_ONCE, what=f"XR {fn} Synced=False once its function stopped"
        )
    message = synced["message"]
    for part in (f'cannot run Composition pipeline step "{fn}-step"', "code = Unavailable", address):
        assert part in message, f"the condition names {part!r}: {message}"
    await kube.delete(flavour.xr_api, "XWidget", fn, flavour.xr_namespace)
