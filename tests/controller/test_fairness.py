"""Fairness and limits on a real API server (issue 26, finding 5): one hung Function cannot hold an
XR controller's workers.

150 XRs whose Composition calls a Function that never answers, with the controller's defaults (100
workers) but a function timeout longer than the test: before, they held every worker, and XRs of the
same kind on a healthy Composition waited for the timeout. Now a Function has at most
``--max-concurrent-function-calls`` (25) calls in flight; the others give their worker back after a
second and are retried with backoff. The hung calls never end while the test waits, so the healthy
XRs can become Ready only through that mechanism, however loaded the machine is: the waits' timeouts
only end a failing run.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from crossfn.controller import _settings
from crossfn.controller import envtest as envtest_module
from crossfn.controller.kube import _api
from crossfn.controller.manager import _manager

from .e2e_support import (
    AUTO_READY_PACKAGE,
    CONTROLLER_NAMESPACE,
    PAT_PACKAGE,
    Flavour,
    condition,
    crossfn_serve,
    function,
    namespace,
    wait_for,
)

pytestmark = pytest.mark.cluster

FAIR = Flavour("Fairness", "apiextensions.crossplane.io/v2", "Namespaced", "fair.e2e.crossfn.io", "fair")
HUNG_XRS = 150
HEALTHY_XRS = 5


@dataclasses.dataclass
class HungFunction:
    env: envtest_module.Environment
    release: Callable[[], None]
    """Stop the hung function's server: the calls in flight fail at once, so their XRs can be deleted."""


@pytest.fixture
async def hung_function(
    controller_manager: envtest_module.Environment, crossplane_crds: list[str], kube: Any
) -> AsyncIterator[HungFunction]:
    for obj in (namespace(FAIR.xr_namespace), namespace(CONTROLLER_NAMESPACE)):
        await kube.apply(obj, field_manager="e2e")
    for name, package in (
        ("function-patch-and-transform", PAT_PACKAGE),
        ("function-auto-ready", AUTO_READY_PACKAGE),
    ):
        await kube.apply(function(name, package), field_manager="e2e", force=True)
    # As many calls as come: a server that bounds them (crossfn's refuses past 64) would answer some.
    with contextlib.ExitStack() as stack:
        address = stack.enter_context(crossfn_serve("crossfn_functions:hang", "--max-calls", "1000"))
        await kube.apply(
            function("function-hang", "example.org/hang:v1", address), field_manager="e2e", force=True
        )
        yield HungFunction(controller_manager, stack.close)


def _composition(name: str, *, hang: bool) -> dict[str, Any]:
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}, "data": {"a": "b"}}
    pt = {
        "step": "compose",
        "functionRef": {"name": "function-patch-and-transform"},
        "input": {
            "apiVersion": "pt.fn.crossplane.io/v1beta1",
            "kind": "Resources",
            "resources": [{"name": "cm", "base": cm}],
        },
    }
    last = {"step": "hang", "functionRef": {"name": "function-hang"}} if hang else {
        "step": "auto-ready", "functionRef": {"name": "function-auto-ready"}
    }  # fmt: skip
    return {
        "apiVersion": "apiextensions.crossplane.io/v1",
        "kind": "Composition",
        "metadata": {"name": name},
        "spec": {
            "compositeTypeRef": {"apiVersion": FAIR.xr_api, "kind": "XWidget"},
            "mode": "Pipeline",
            "pipeline": [pt, last],
        },
    }


async def test_a_hung_function_does_not_starve_the_other_xrs_of_its_kind(
    hung_function: Any, kube: Any
) -> None:
    env = hung_function.env
    m = _manager.Manager(
        _settings.Settings(
            cluster=_settings.ClusterSettings(kubeconfig=env.kubeconfig),
            # The default 25 calls a Function; no hung call times out while the test runs.
            functions=_settings.FunctionSettings(insecure=True, timeout=3600.0),
            packages=_settings.PackageSettings(runtime="External"),
            webhooks=_settings.WebhookSettings(enabled=False),  # no usage webhook on :9443
            observability=_settings.ObservabilitySettings(metrics_address="", health_address=""),
        )
    )
    suffix = uuid.uuid4().hex[:6]
    hung, healthy = f"hung-{suffix}", f"healthy-{suffix}"
    names = [f"h{i}-{suffix}" for i in range(HUNG_XRS)]
    good = [f"ok{i}-{suffix}" for i in range(HEALTHY_XRS)]
    await m.start()
    try:
        await kube.apply(FAIR.xrd(), field_manager="e2e", force=True)

        async def served() -> bool:
            xrd = await kube.get(
                "apiextensions.crossplane.io/v1", "CompositeResourceDefinition", FAIR.xrd_name
            )
            return condition(xrd, "Established").get("status") == "True"

        await wait_for(served, timeout=30, what="the XRD Established")
        for c in (_composition(hung, hang=True), _composition(healthy, hang=False)):
            await kube.apply(c, field_manager="e2e", force=True)
        await asyncio.sleep(1)  # the revisions' ValidPipeline
        for i in range(0, HUNG_XRS, 15):
            await asyncio.gather(*(kube.create(FAIR.xr(n, hung, "s")) for n in names[i : i + 15]))

        async def workers_taken() -> bool:
            """As many hung XRs as the controller has workers are being composed (their finalizer is on)."""
            items, _ = await kube.list(FAIR.xr_api, "XWidget", FAIR.xr_namespace)
            started = sum(
                1 for x in items if x["metadata"]["name"] in names and x["metadata"].get("finalizers")
            )
            return started >= 100

        await wait_for(workers_taken, timeout=120, what="100 hung XRs being composed")
        await asyncio.gather(*(kube.create(FAIR.xr(n, healthy, "s")) for n in good))

        async def ready() -> bool:
            for n in good:
                xr = await kube.get(FAIR.xr_api, "XWidget", n, FAIR.xr_namespace)
                if condition(xr, "Ready").get("status") != "True":
                    return False
            return True

        await wait_for(ready, timeout=300, what="the healthy XRs Ready while 150 others hang")
        items, _ = await kube.list(FAIR.xr_api, "XWidget", FAIR.xr_namespace)
        refused = [
            x for x in items
            if x["metadata"]["name"] in names and "calls to it are in flight" in condition(x, "Synced").get("message", "")
        ]  # fmt: skip
        assert refused, "hung XRs beyond the Function's 25 slots are refused, not queued on workers"
    finally:
        hung_function.release()
        for n in names + good:
            with contextlib.suppress(_api.NotFound):
                await kube.delete(FAIR.xr_api, "XWidget", n, FAIR.xr_namespace)

        async def gone() -> bool:
            items, _ = await kube.list(FAIR.xr_api, "XWidget", FAIR.xr_namespace)
            return not items

        try:
            await wait_for(gone, timeout=60, what="the XRs deleted")
        finally:
            await m.stop()


async def test_an_xr_that_warns_in_a_loop_makes_few_events(hung_function: Any, kube: Any) -> None:
    """A function returning a timestamped warning while its XR loops (each status write reconciles it
    again): before, 3,102 Events in 60 s; now client-go's correlator holds them to at most 10 objects
    (10 distinct messages combine into one) and 25 writes, then one per 5 minutes. The assertions count
    loops and Events, not seconds: the wait for 60 loops ends only a failing run, and stays under the
    correlator's 5 minutes so that no refilled token can add a write."""
    env = hung_function.env
    suffix = uuid.uuid4().hex[:6]
    composition = f"noisy-{suffix}"
    name = f"noisy-{suffix}"
    with crossfn_serve("crossfn_functions:noisy") as address:
        await kube.apply(
            function("function-noisy", "example.org/noisy:v1", address), field_manager="e2e", force=True
        )
        m = _manager.Manager(
            _settings.Settings(
                cluster=_settings.ClusterSettings(kubeconfig=env.kubeconfig),
                functions=_settings.FunctionSettings(insecure=True),
                packages=_settings.PackageSettings(runtime="External"),
                webhooks=_settings.WebhookSettings(enabled=False),  # no usage webhook on :9443
                observability=_settings.ObservabilitySettings(metrics_address="", health_address=""),
                # The loop's own status writes would open the watch circuit breaker (as Crossplane's
                # does, test_watch_parity_e2e) and slow the loop; this test is about its Events.
                reconcile=_settings.ReconcileSettings(circuit_breaker_burst=1e9),
            )
        )
        await m.start()
        try:
            await kube.apply(FAIR.xrd(), field_manager="e2e", force=True)
            noisy = {
                "apiVersion": "apiextensions.crossplane.io/v1",
                "kind": "Composition",
                "metadata": {"name": composition},
                "spec": {
                    "compositeTypeRef": {"apiVersion": FAIR.xr_api, "kind": "XWidget"},
                    "mode": "Pipeline",
                    "pipeline": [{"step": "noisy", "functionRef": {"name": "function-noisy"}}],
                },
            }
            await kube.apply(noisy, field_manager="e2e", force=True)
            await asyncio.sleep(1)
            await kube.create(FAIR.xr(name, composition, "s"))

            seen: set[str] = set()

            async def looped() -> bool:
                """The XR has been composed (and warned about) at least 60 times: 60 stamps seen."""
                xr = await kube.get(FAIR.xr_api, "XWidget", name, FAIR.xr_namespace)
                stamp = ((xr or {}).get("status") or {}).get("seen")
                if stamp:
                    seen.add(stamp)
                return len(seen) >= 60

            await wait_for(looped, timeout=240, what="the XR composed 60 times")
            items, _ = await kube.list("v1", "Event", FAIR.xr_namespace)
            mine = [
                e
                for e in items
                if e["involvedObject"].get("name") == name and e["reason"] == "ComposeResources"
            ]
            assert 0 < len(mine) <= 10, [e["message"] for e in mine]
            assert sum(int(e.get("count") or 1) for e in mine) <= 25
            assert any(e["message"].startswith("(combined from similar events): ") for e in mine)
        finally:
            with contextlib.suppress(_api.NotFound):
                await kube.delete(FAIR.xr_api, "XWidget", name, FAIR.xr_namespace)
            await m.stop()
