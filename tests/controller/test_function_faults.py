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
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from crossfn.controller import _settings
from crossfn.controller import envtest as envtest_module
from crossfn.controller.manager import _manager
from crossfn.controller.packages import _package_tls

from .e2e_support import (
    AUTO_READY_PACKAGE,
    CONTROLLER_NAMESPACE,
    FLAVOURS,
    PAT_PACKAGE,
    WIDGET_CRD,
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
async def secure_manager(
    controller_manager: envtest_module.Environment,
    crossplane_crds: list[str],
    kube: Any,
    tmp_path: pathlib.Path,
) -> AsyncIterator[_manager.Manager]:
    """A controller without --insecure-functions: it dials every function with TLS and a client certificate."""
    ca = _package_tls.new_ca()
    client = _package_tls.new_certificate(
        ca, common_name="crossplane", dns_names=["crossplane"], usage="client"
    )
    for file, data in (("ca.crt", ca.cert), ("tls.crt", client.cert), ("tls.key", client.key)):
        (tmp_path / file).write_bytes(data)
    for obj in (WIDGET_CRD, namespace("e2e-composed"), namespace("e2e-xrs"), namespace(CONTROLLER_NAMESPACE)):
        await kube.apply(obj, field_manager="e2e")
    for name, package in (
        ("function-patch-and-transform", PAT_PACKAGE),
        ("function-auto-ready", AUTO_READY_PACKAGE),
    ):
        await kube.apply(function(name, package), field_manager="e2e", force=True)
    m = _manager.Manager(
        _settings.Settings(
            cluster=_settings.ClusterSettings(kubeconfig=controller_manager.kubeconfig),
            functions=_settings.FunctionSettings(tls_client_certs_dir=str(tmp_path)),
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
        pytest.param(_nothing_listening, "connect: connection refused", "nothing listens: refused", id="Refused"),
        pytest.param(lambda: crossfn_serve("crossfn_functions:compose"), "(the function serves without TLS)",
                     "the controller dials TLS, the function serves without: a hint says so", id="TLSMismatch"),
    ],
)  # fmt: skip
async def test_unreachable_function_fails_the_xr_at_once(
    secure_manager: _manager.Manager, kube: Any, server: Any, hint: str, reason: str
) -> None:
    await _establish(kube)
    fn = f"fault-{'refused' if 'refused' in hint else 'tls'}"
    with server() as address:
        await _compose_through(kube, fn, address)

        async def failed() -> dict[str, Any] | None:
            synced = await _synced(kube, fn)
            return synced if synced.get("status") == "False" else None

        synced = await wait_for(failed, timeout=AT_ONCE, what=f"XR {fn} Synced=False ({reason})")
    message = synced.get("message", "")
    for part in (f'cannot run pipeline step "{fn}-step"', f'cannot run Function "{fn}"', address, hint):
        assert part in message, f"{reason}: the condition names {part!r}: {message}"
    assert synced["reason"] == "ReconcileError"
    await kube.delete(FLAVOURS[0].xr_api, "XWidget", fn, FLAVOURS[0].xr_namespace)
