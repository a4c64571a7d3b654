"""The watch circuit breaker, poll intervals and the function response cache, end to end.

A running controller composes XRs with a function served in this test's
event loop (``crossfn.io/endpoint``) that composes one ConfigMap and counts
its calls. On the session's envtest:

* a composed ConfigMap that flaps opens its XR's circuit: ``Responsive=False``
  with Crossplane's message naming it, and ``circuit_breaker_*`` in ``/metrics``;
* ``crossplane.io/poll-interval: 0s`` is ignored (Crossplane's
  ``GetPollInterval``): the XR polls at ``--poll-interval``, not every second;
* with ``--enable-function-response-cache`` an unchanged request is answered
  from the cache directory, counted as a hit.
"""

from __future__ import annotations

import asyncio
import itertools
import urllib.request
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from crossfn.controller import _settings
from crossfn.controller import envtest as envtest_module
from crossfn.controller.manager import _manager
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource, runtime, settings

from .e2e_support import CONTROLLER_NAMESPACE, condition, namespace, wait_for

pytestmark = pytest.mark.cluster

GROUP = "watch.e2e.crossfn.io"
XR_API = f"{GROUP}/v1"
NS = "e2e-watch"
CONTROLLER = f"composite/xflaps.{GROUP}"
CALLS = itertools.count(1)
calls: list[int] = [0]

XRD = {
    "apiVersion": "apiextensions.crossplane.io/v2",
    "kind": "CompositeResourceDefinition",
    "metadata": {"name": f"xflaps.{GROUP}"},
    "spec": {
        "group": GROUP,
        "names": {"kind": "XFlap", "plural": "xflaps"},
        "scope": "Namespaced",
        "versions": [{"name": "v1", "served": True, "referenceable": True}],
    },
}


def compose(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    """One ConfigMap, ready; the response may be cached for a minute."""
    calls[0] = next(CALLS)
    resource.update(
        rsp.desired.resources["cm"], {"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "b"}}
    )
    rsp.desired.resources["cm"].ready = fnv1.READY_TRUE
    rsp.meta.ttl.seconds = 60


def base_settings(env: envtest_module.Environment, **reconcile: Any) -> _settings.Settings:
    return _settings.Settings(
        cluster=_settings.ClusterSettings(kubeconfig=env.kubeconfig),
        reconcile=_settings.ReconcileSettings(**reconcile),
        functions=_settings.FunctionSettings(insecure=True),
        packages=_settings.PackageSettings(runtime="External"),
        observability=_settings.ObservabilitySettings(metrics_address="127.0.0.1:0", health_address=""),
        webhooks=_settings.WebhookSettings(enabled=False),
    )


@pytest.fixture
async def function(kube: Any, crossplane_crds: list[str]) -> AsyncIterator[None]:
    server = runtime.FunctionServer(
        compose, settings.ServerSettings(listen=settings.ListenSettings(address="127.0.0.1:0", insecure=True))
    )
    port = await server.start()
    fn = {
        "apiVersion": "pkg.crossplane.io/v1",
        "kind": "Function",
        "metadata": {"name": "function-flap", "annotations": {"crossfn.io/endpoint": f"127.0.0.1:{port}"}},
        "spec": {"package": "xpkg.crossplane.io/crossfn-e2e/function-flap:v0.1.0"},
    }
    try:
        await kube.apply(fn, field_manager="e2e", force=True)
        for obj in (namespace(NS), namespace(CONTROLLER_NAMESPACE)):
            await kube.apply(obj, field_manager="e2e")
        yield
    finally:
        await server.stop(0)


async def running(s: _settings.Settings, kube: Any) -> _manager.Manager:
    m = _manager.Manager(s)
    await m.start()
    await m.wait_ready()
    await kube.apply(XRD, field_manager="e2e", force=True)

    async def established() -> bool:
        xrd = await kube.get(
            "apiextensions.crossplane.io/v1", "CompositeResourceDefinition", f"xflaps.{GROUP}"
        )
        return condition(xrd, "Established").get("status") == "True"

    await wait_for(established, timeout=60, what="the XRD established")
    return m


async def xr(kube: Any, annotations: dict[str, str] | None = None) -> dict[str, Any]:
    name = f"flap-{uuid.uuid4().hex[:6]}"
    composition = {
        "apiVersion": "apiextensions.crossplane.io/v1",
        "kind": "Composition",
        "metadata": {"name": name},
        "spec": {
            "compositeTypeRef": {"apiVersion": XR_API, "kind": "XFlap"},
            "mode": "Pipeline",
            "pipeline": [{"step": "compose", "functionRef": {"name": "function-flap"}}],
        },
    }
    await kube.apply(composition, field_manager="e2e", force=True)
    meta: dict[str, Any] = {"name": name, "namespace": NS, "annotations": annotations or {}}
    obj = {
        "apiVersion": XR_API,
        "kind": "XFlap",
        "metadata": meta,
        "spec": {"crossplane": {"compositionRef": {"name": name}}},
    }
    await kube.apply(obj, field_manager="e2e", force=True)

    async def ready() -> dict[str, Any] | None:
        found = await kube.get(XR_API, "XFlap", name, NS)
        return found if condition(found, "Ready").get("status") == "True" else None

    found: dict[str, Any] = await wait_for(ready, timeout=60, what=f"XR {name} Ready")
    return found


async def metrics(m: _manager.Manager) -> str:
    def fetch() -> str:
        with urllib.request.urlopen(f"http://127.0.0.1:{m.metrics_port}/metrics", timeout=5) as r:
            text: str = r.read().decode()
            return text

    return await asyncio.to_thread(fetch)


def sample(text: str, name: str, **labels: str) -> float:
    """The value of one sample of ``/metrics``; 0 when absent."""
    want = ",".join(f'{k}="{v}"' for k, v in labels.items())
    for line in text.splitlines():
        if line.startswith(f"{name}{{") and all(f'{k}="{v}"' in line for k, v in labels.items()):
            return float(line.rsplit(" ", 1)[1])
        if not labels and line.startswith(f"{name} "):
            return float(line.rsplit(" ", 1)[1])
    assert want is not None
    return 0.0


def reconciles(text: str) -> float:
    """Reconciles of the XR controller so far, whatever their result (a requeue after a poll is one)."""
    results = ("success", "error", "requeue", "requeue_after")
    return sum(
        sample(text, "controller_runtime_reconcile_total", controller=CONTROLLER, result=r) for r in results
    )


async def test_a_flapping_composed_resource_opens_the_circuit(
    controller_manager: envtest_module.Environment, kube: Any, function: None
) -> None:
    m = await running(
        base_settings(controller_manager, circuit_breaker_burst=40, circuit_breaker_refill_rate=0.01), kube
    )
    try:
        made = await xr(kube)
        name = made["metadata"]["name"]
        items, _ = await kube.list("v1", "ConfigMap", NS, labels={"crossplane.io/composite": name})
        [cm] = items
        for i in range(40):  # another writer fights over the composed ConfigMap: two tokens an update
            await kube.patch(
                "v1", "ConfigMap", cm["metadata"]["name"], NS, {"metadata": {"labels": {"flap": str(i)}}}
            )

        async def unresponsive() -> dict[str, Any] | None:
            found = await kube.get(XR_API, "XFlap", name, NS)
            return found if condition(found, "Responsive").get("status") == "False" else None

        found = await wait_for(unresponsive, timeout=60, what="the XR Responsive=False")
        responsive = condition(found, "Responsive")
        assert responsive["reason"] == "WatchCircuitOpen"
        assert responsive["message"] == (
            f"Too many watch events from ConfigMap/{cm['metadata']['name']} ({NS}). Allowing events periodically."
        )
        text = await metrics(m)
        assert sample(text, "circuit_breaker_opens_total", controller=CONTROLLER) >= 1
        assert sample(text, "circuit_breaker_events_total", controller=CONTROLLER, result="Dropped") >= 1
        assert sample(text, "circuit_breaker_events_total", controller=CONTROLLER, result="Allowed") >= 40
        assert sample(text, "engine_watches_started_total", controller=CONTROLLER, type="Dependency") >= 1
        assert (
            sample(text, "engine_watches_started_total", controller=CONTROLLER, type="CompositionRevision")
            >= 1
        )
    finally:
        await m.stop()


async def test_a_zero_poll_interval_is_ignored(
    controller_manager: envtest_module.Environment, kube: Any, function: None
) -> None:
    """``crossplane.io/poll-interval: 0s`` is no interval: the XR polls every ``--poll-interval`` (1 m), not
    every ``--min-poll-interval`` (1 s)."""
    m = await running(base_settings(controller_manager, realtime=False, poll_interval=60.0), kube)
    try:
        await xr(kube, {"crossplane.io/poll-interval": "0s"})
        await asyncio.sleep(2.0)  # settle: the status write's own event
        before = reconciles(await metrics(m))
        await asyncio.sleep(4.0)
        after = reconciles(await metrics(m))
        assert after - before <= 1, (
            f"{after - before:g} reconciles in 4 s: the 0s annotation was taken as a floor"
        )
    finally:
        await m.stop()


async def test_the_function_response_cache(
    controller_manager: envtest_module.Environment, kube: Any, function: None, tmp_path: Path
) -> None:
    """``--enable-function-response-cache``: an unchanged request (the XR polled) is a cache hit, written where
    ``--xfn-cache-dir`` says, in Crossplane's layout."""
    s = base_settings(controller_manager, realtime=False, poll_interval=0.5)
    s = _settings.Settings(
        cluster=s.cluster, reconcile=s.reconcile, packages=s.packages, observability=s.observability,
        webhooks=s.webhooks,
        functions=_settings.FunctionSettings(insecure=True, response_cache=True, cache_dir=str(tmp_path)),
    )  # fmt: skip
    m = await running(s, kube)
    try:
        await xr(kube, {"e2e/ttl": "60s"})

        async def hit() -> bool:
            return (
                sample(
                    await metrics(m),
                    "function_run_function_response_cache_hits_total",
                    function_name="function-flap",
                )
                >= 1
            )

        await wait_for(hit, timeout=60, what="a response cache hit")
        assert any((tmp_path / "function-flap").iterdir()), "cached on disk, under the function's name"
        seen, hits = calls[0], sample(await metrics(m), "function_run_function_response_cache_hits_total",
                                      function_name="function-flap")  # fmt: skip
        await asyncio.sleep(3.0)
        more = sample(
            await metrics(m), "function_run_function_response_cache_hits_total", function_name="function-flap"
        )
        assert more - hits >= 2, "polled every 0.5 s: unchanged requests keep hitting the cache"
        assert calls[0] - seen < more - hits, (
            "the function is called less often than it is answered from the cache"
        )
    finally:
        await m.stop()
