"""End to end: the whole controller (``Manager``) against a real API server, GC and functions.

Each test runs a :class:`~crossfn.controller.manager._manager.Manager` in the test's
event loop against the session's envtest (kube-apiserver, etcd and
kube-controller-manager's garbage collector), as ``crossfn controller run``
would, and drives it only through the API server, as a user would with
kubectl. Functions run in-process (built-ins), under ``crossfn function
serve`` and under the official Python SDK's runtime (each in its own
process). The last test runs ``crossfn controller run`` itself and stops it
with SIGTERM.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from typing import Any

import pytest

from crossfn import engine
from crossfn.controller import _settings
from crossfn.controller import envtest as envtest_module
from crossfn.controller.manager import _manager

from .e2e_support import (
    AUTO_READY_PACKAGE,
    COMPOSED_NAMESPACE,
    CONTROLLER_NAMESPACE,
    FLAVOURS,
    PAT_PACKAGE,
    WIDGET_API,
    WIDGET_CRD,
    Flavour,
    Process,
    condition,
    crossfn_serve,
    free_port,
    function,
    namespace,
    official_serve,
    wait_for,
)

pytestmark = pytest.mark.cluster

FUNCTION_TIMEOUT = 3.0
"""Short, so the timeout fault shows quickly; in-process and local functions answer in milliseconds."""
POLL_INTERVAL = 3600.0
"""Longer than any test: no poll ever reconciles an XR, so what the tests see was done by watch events
(the realtime compositions they assert), not by a timer that a loaded machine could race."""


def settings(env: envtest_module.Environment) -> _settings.Settings:
    """A controller whose package Functions are Crossplane's package manager's (``External``): these tests
    write the FunctionRevisions that package manager would (test_packages_e2e runs packages itself)."""
    return _settings.Settings(
        webhooks=_settings.WebhookSettings(enabled=False),
        cluster=_settings.ClusterSettings(kubeconfig=env.kubeconfig),
        functions=_settings.FunctionSettings(insecure=True, timeout=FUNCTION_TIMEOUT),
        packages=_settings.PackageSettings(runtime="External"),
        observability=_settings.ObservabilitySettings(
            metrics_address="127.0.0.1:0", health_address="127.0.0.1:0"
        ),
        reconcile=_settings.ReconcileSettings(poll_interval=POLL_INTERVAL),
    )


@pytest.fixture
async def manager(
    controller_manager: envtest_module.Environment, crossplane_crds: list[str], kube: Any
) -> AsyncIterator[_manager.Manager]:
    """A running controller (CRDs installed at its start), and the shared fixtures the tests need."""
    for obj in (
        WIDGET_CRD,
        namespace(COMPOSED_NAMESPACE),
        namespace("e2e-xrs"),
        namespace(CONTROLLER_NAMESPACE),
    ):
        await kube.apply(obj, field_manager="e2e")
    for name, package in (
        ("function-patch-and-transform", PAT_PACKAGE),
        ("function-auto-ready", AUTO_READY_PACKAGE),
    ):
        await kube.apply(function(name, package), field_manager="e2e", force=True)
    m = _manager.Manager(settings(controller_manager))
    await m.start()
    try:
        await m.wait_ready()
        yield m
    finally:
        await m.stop()


async def establish(kube: Any, flavour: Flavour) -> None:
    """Apply the flavour's XRD and wait until the XR kind is served."""
    await kube.apply(flavour.xrd(), field_manager="e2e", force=True)

    async def served() -> bool:
        xrd = await kube.get(
            "apiextensions.crossplane.io/v1", "CompositeResourceDefinition", flavour.xrd_name
        )
        if condition(xrd, "Established").get("status") != "True":
            return False
        await kube.list(flavour.xr_api, "XWidget")
        return True

    await wait_for(served, timeout=30, what=f"XRD {flavour.xrd_name} Established and its XR kind served")


async def composed(kube: Any, xr: dict[str, Any], ns: str) -> dict[str, dict[str, Any]]:
    """The Widgets the XR composed, by composition resource name."""
    items, _ = await kube.list(
        WIDGET_API, "Widget", ns, labels={"crossplane.io/composite": xr["metadata"]["name"]}
    )
    return {w["metadata"]["annotations"]["crossplane.io/composition-resource-name"]: w for w in items}


async def get_xr(kube: Any, flavour: Flavour, name: str) -> dict[str, Any] | None:
    result: dict[str, Any] | None = await kube.get(flavour.xr_api, "XWidget", name, flavour.xr_namespace)
    return result


async def mark_ready(kube: Any, widget: dict[str, Any]) -> None:
    ready = {
        "type": "Ready",
        "status": "True",
        "reason": "Available",
        "lastTransitionTime": "2026-11-24T00:00:00Z",
    }
    meta = widget["metadata"]
    await kube.patch(
        WIDGET_API,
        "Widget",
        meta["name"],
        meta["namespace"],
        {"status": {"conditions": [ready]}},
        status=True,
    )


@pytest.mark.parametrize("flavour", [pytest.param(f, id=f.id) for f in FLAVOURS])
async def test_xr_lifecycle(manager: _manager.Manager, kube: Any, flavour: Flavour) -> None:
    """Served kind, composed objects with Crossplane's metadata, readiness, spec change, drop, deletion."""
    await establish(kube, flavour)
    comp = flavour.composition(f"e2e-{flavour.id.lower()}", ["a", "b"])
    await kube.apply(comp, field_manager="e2e", force=True)
    await kube.apply(
        flavour.xr("lifecycle", comp["metadata"]["name"], "small"), field_manager="e2e", force=True
    )
    xr = await wait_for(lambda: get_xr(kube, flavour, "lifecycle"), timeout=10, what="the XR")
    ns = flavour.composed_namespace(xr)

    async def both() -> dict[str, dict[str, Any]] | None:
        found = await composed(kube, xr, ns)
        return found if set(found) == {"a", "b"} else None

    widgets = await wait_for(both, timeout=30, what="composed Widgets a and b")
    xr = await get_xr(kube, flavour, "lifecycle") or {}
    uid = xr["metadata"]["uid"]
    for name, w in widgets.items():
        meta = w["metadata"]
        assert meta["name"] == engine.child_name("lifecycle-", uid, name), "Crossplane's deterministic name"
        assert meta["labels"]["crossplane.io/composite"] == "lifecycle"
        owner = [r for r in meta["ownerReferences"] if r.get("controller")]
        assert [(r["kind"], r["name"], r["uid"], r["blockOwnerDeletion"]) for r in owner] == [
            ("XWidget", "lifecycle", uid, True)
        ], "one controller reference: the XR"
        assert w["spec"]["size"] == "small", "patched from the XR's spec"
    assert "composite.apiextensions.crossplane.io" in xr["metadata"]["finalizers"]

    async def creating() -> bool:
        return condition(await get_xr(kube, flavour, "lifecycle"), "Ready").get("reason") == "Creating"

    await wait_for(
        creating, timeout=10, what="XR Ready=False/Creating while its composed resources are not ready"
    )

    for w in widgets.values():
        await mark_ready(kube, w)

    async def xr_ready() -> bool:
        return condition(await get_xr(kube, flavour, "lifecycle"), "Ready").get("status") == "True"

    # The next poll is an hour away (POLL_INTERVAL): only the composed resources' watch can ready the XR.
    await wait_for(xr_ready, timeout=60, what="XR Ready=True through the composed resources' watch")

    await kube.patch(
        flavour.xr_api, "XWidget", "lifecycle", flavour.xr_namespace, {"spec": {"size": "large"}}
    )

    async def resized() -> bool:
        return all(w["spec"].get("size") == "large" for w in (await composed(kube, xr, ns)).values())

    await wait_for(resized, timeout=10, what="the spec change to reach the composed Widgets")

    await kube.apply(flavour.composition(comp["metadata"]["name"], ["a"]), field_manager="e2e", force=True)

    async def dropped() -> bool:
        return set(await composed(kube, xr, ns)) == {"a"}

    await wait_for(dropped, timeout=15, what="Widget b, dropped from the Composition, to be deleted")

    await kube.delete(flavour.xr_api, "XWidget", "lifecycle", flavour.xr_namespace)

    async def xr_gone() -> bool:
        return await get_xr(kube, flavour, "lifecycle") is None

    await wait_for(xr_gone, timeout=10, what="the XR to go (the controller removes its finalizer)")

    async def composed_gone() -> bool:
        return not await composed(kube, xr, ns)

    # kube-controller-manager's garbage collector learns a new owner kind at its
    # next discovery resync (every 30 s), so cascading can take that long.
    await wait_for(composed_gone, timeout=90, what="the garbage collector to delete the composed Widgets")


async def function_revision(kube: Any, fn: str, endpoint: str) -> None:
    """An active FunctionRevision with an endpoint, as Crossplane's package manager would write it."""
    name = f"{fn}-e2e"
    labels = {"pkg.crossplane.io/package": fn}
    body = {
        "apiVersion": "pkg.crossplane.io/v1",
        "kind": "FunctionRevision",
        "metadata": {"name": name, "labels": labels},
    }
    spec = {"desiredState": "Active", "image": f"xpkg.example.org/e2e/{fn}:v1", "revision": 1}
    await kube.apply({**body, "spec": spec}, field_manager="e2e", force=True)
    await kube.apply({**body, "status": {"endpoint": endpoint}}, field_manager="e2e", force=True, status=True)


async def metrics(m: _manager.Manager) -> str:
    def fetch() -> str:
        with urllib.request.urlopen(f"http://127.0.0.1:{m.metrics_port}/metrics", timeout=5) as r:
            text: str = r.read().decode()
            return text

    return await asyncio.to_thread(fetch)


GRPC_CASES = [
    pytest.param("annotation", "revision", id="CrossfnByAnnotationOfficialByRevision"),
    pytest.param("revision", "annotation", id="CrossfnByRevisionOfficialByAnnotation"),
]


@pytest.mark.parametrize(("crossfn_route", "official_route"), GRPC_CASES)
async def test_functions_over_grpc(
    manager: _manager.Manager, kube: Any, crossfn_route: str, official_route: str
) -> None:
    """Functions in their own processes, reached by annotation or by revision; requirements from the cluster."""
    flavour = FLAVOURS[0]
    await establish(kube, flavour)
    ns = flavour.xr_namespace
    # Names per case, so no case waits for crossfn to retire the revision of the previous case's route.
    crossfn_fn, official_fn = f"e2e-crossfn-by-{crossfn_route}", f"e2e-official-by-{official_route}"
    configmap = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "e2e-input", "namespace": ns}}
    await kube.apply({**configmap, "data": {"value": "from-the-cluster"}}, field_manager="e2e", force=True)
    with crossfn_serve("crossfn_functions:compose") as crossfn_at, official_serve() as official_at:
        for fn, at, route in (
            (crossfn_fn, crossfn_at, crossfn_route),
            (official_fn, official_at, official_route),
        ):
            package = f"xpkg.example.org/e2e/function-{fn}:v1"
            await kube.apply(
                function(fn, package, at if route == "annotation" else ""), field_manager="e2e", force=True
            )
            if route == "revision":
                await function_revision(kube, fn, at)
        steps = [{"step": fn, "functionRef": {"name": fn}} for fn in (crossfn_fn, official_fn)]
        comp = flavour.composition(f"e2e-grpc-{crossfn_route}", ["a"], steps)
        await kube.apply(comp, field_manager="e2e", force=True)
        xr_name = f"grpc-{crossfn_route}"
        await kube.apply(
            flavour.xr(xr_name, comp["metadata"]["name"], "medium"), field_manager="e2e", force=True
        )
        xr = await wait_for(lambda: get_xr(kube, flavour, xr_name), timeout=10, what="the XR")

        async def all_three() -> dict[str, dict[str, Any]] | None:
            found = await composed(kube, xr, ns)
            return found if set(found) == {"a", "crossfn", "official"} else None

        widgets = await wait_for(
            all_three,
            timeout=30,
            what="Widgets from the built-in, crossfn's and the official SDK's functions",
        )
        assert widgets["crossfn"]["spec"] == {
            "size": "medium",
            "input": "from-the-cluster",
            "schemaKnowsSize": True,
        }, "the crossfn function got its required ConfigMap and the Widget schema from the live API server"
        assert widgets["official"]["spec"] == {"size": "medium", "by": "official-sdk"}

        await kube.apply({**configmap, "data": {"value": "changed"}}, field_manager="e2e", force=True)

        async def follows_input() -> bool:
            return bool((await composed(kube, xr, ns))["crossfn"]["spec"]["input"] == "changed")

        await wait_for(
            follows_input, timeout=10, what="a change to the required ConfigMap to reach the composed Widget"
        )

        annotated = crossfn_fn if crossfn_route == "annotation" else official_fn

        async def installed_and_healthy() -> bool:  # the package controller may lag the XR under load
            fn_obj = await kube.get("pkg.crossplane.io/v1", "Function", annotated)
            return all(condition(fn_obj, c).get("status") == "True" for c in ("Installed", "Healthy"))

        await wait_for(
            installed_and_healthy, timeout=30, what="kubectl get functions: INSTALLED True, HEALTHY True"
        )
        revs, _ = await kube.list(
            "pkg.crossplane.io/v1", "FunctionRevision", labels={"pkg.crossplane.io/package": annotated}
        )
        assert [r["status"].get("endpoint") for r in revs] == [
            crossfn_at if annotated == crossfn_fn else official_at
        ]

        async def counted() -> bool:
            text = await metrics(manager)
            return all(f'function_name="{f}"' in text for f in (crossfn_fn, "function-patch-and-transform"))

        await wait_for(counted, timeout=30, what="function calls counted under Crossplane's metric names")
        await kube.delete(flavour.xr_api, "XWidget", xr_name, ns)
        await wait_for(lambda: _gone(kube, flavour, xr_name), timeout=10, what="the XR to be deleted")


async def _gone(kube: Any, flavour: Flavour, name: str) -> bool:
    return await get_xr(kube, flavour, name) is None


async def test_function_faults_fail_only_their_xr(manager: _manager.Manager, kube: Any) -> None:
    """An unreachable function and one that times out: Synced=False with the error, a Warning event; others compose."""
    flavour = FLAVOURS[0]
    await establish(kube, flavour)
    ns = flavour.xr_namespace
    with crossfn_serve("crossfn_functions:slow") as slow_at:
        dead_at = f"127.0.0.1:{free_port()}"
        for fn, at in (("e2e-dead", dead_at), ("e2e-slow", slow_at)):
            await kube.apply(
                function(fn, f"xpkg.example.org/e2e/function-{fn}:v1", at), field_manager="e2e", force=True
            )
            comp = flavour.composition(f"e2e-{fn}", ["a"], [{"step": fn, "functionRef": {"name": fn}}])
            await kube.apply(comp, field_manager="e2e", force=True)
            await kube.apply(flavour.xr(fn, comp["metadata"]["name"], "s"), field_manager="e2e", force=True)
        healthy = flavour.composition("e2e-healthy", ["a"])
        await kube.apply(healthy, field_manager="e2e", force=True)
        await kube.apply(flavour.xr("healthy", "e2e-healthy", "s"), field_manager="e2e", force=True)

        # A dead endpoint fails at once, naming its address; a slow one runs into the call's deadline.
        for fn, code in (
            ("e2e-dead", f"Unavailable desc = cannot connect to {dead_at}"),
            ("e2e-slow", "DeadlineExceeded"),
        ):
            want = f'cannot run Function "{fn}": rpc error: code = {code}'

            async def failed(want: str = want, fn: str = fn) -> dict[str, Any] | None:
                synced = condition(await get_xr(kube, flavour, fn), "Synced")
                return (
                    synced if synced.get("status") == "False" and want in synced.get("message", "") else None
                )

            synced = await wait_for(failed, timeout=30, what=f"XR {fn} Synced=False saying: {want}")
            assert synced["reason"] == "ReconcileError"

            async def warned(fn: str = fn) -> list[dict[str, Any]] | None:
                events, _ = await kube.list("v1", "Event", ns)  # written in the background
                found = [e for e in events if e["involvedObject"]["name"] == fn and e["type"] == "Warning"]
                return found or None

            await wait_for(warned, timeout=10, what=f"a Warning event on XR {fn}")

        async def healthy_synced() -> bool:
            return condition(await get_xr(kube, flavour, "healthy"), "Synced").get("status") == "True"

        await wait_for(healthy_synced, timeout=20, what="an XR with working functions to compose meanwhile")
        assert manager.ready, "the controller keeps running"
        for name in ("e2e-dead", "e2e-slow", "healthy"):
            await kube.delete(flavour.xr_api, "XWidget", name, ns)


async def test_api_server_restart_is_recovered(
    manager: _manager.Manager, kube: Any, controller_manager: envtest_module.Environment
) -> None:
    """Watches break and requests fail while the API server is down; afterwards a change is still reconciled."""
    flavour = FLAVOURS[0]
    await establish(kube, flavour)
    comp = flavour.composition("e2e-restart", ["a"])
    await kube.apply(comp, field_manager="e2e", force=True)
    await kube.apply(flavour.xr("restart", "e2e-restart", "before"), field_manager="e2e", force=True)
    xr = await wait_for(lambda: get_xr(kube, flavour, "restart"), timeout=10, what="the XR")
    ns = flavour.composed_namespace(xr)

    async def size_is(want: str) -> bool:
        found = await composed(kube, xr, ns)
        return bool(found) and found["a"]["spec"].get("size") == want

    await wait_for(lambda: size_is("before"), timeout=30, what="the composed Widget")
    # A change the controller sees (or is reconciling) just as the API server goes away must not be lost.
    await kube.patch(flavour.xr_api, "XWidget", "restart", flavour.xr_namespace, {"spec": {"size": "during"}})
    await asyncio.to_thread(controller_manager.restart_apiserver)
    await wait_for(lambda: size_is("during"), timeout=60, what="the change made as the API server stopped")
    await wait_for(
        lambda: kube.patch(
            flavour.xr_api, "XWidget", "restart", flavour.xr_namespace, {"spec": {"size": "after"}}
        ),
        timeout=30,
        what="the restarted API server to take a patch",
    )
    await wait_for(
        lambda: size_is("after"), timeout=60, what="the change made after the restart to be reconciled"
    )

    async def resynced() -> bool:
        return manager.unsynced() == []

    # A watch started while the API server was away (realtime compositions) syncs once it lists.
    await wait_for(resynced, timeout=30, what="the same controller, never restarted, to recover its watches")
    await kube.delete(flavour.xr_api, "XWidget", "restart", flavour.xr_namespace)


def _http(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, ""
    except OSError:
        return 0, ""


async def test_controller_run_serves_probes_and_exits_cleanly_on_sigterm(
    controller_manager: envtest_module.Environment, crossplane_crds: list[str], kube: Any
) -> None:
    """``crossfn controller run``: ready on /readyz, metrics, JSON logs, exit 0 on SIGTERM."""
    await kube.apply(namespace(CONTROLLER_NAMESPACE), field_manager="e2e")
    health, metrics_port = free_port(), free_port()
    p = Process(
        [
            sys.executable, "-m", "crossfn", "controller", "run", "--kubeconfig", controller_manager.kubeconfig,
            "--insecure-functions", "--health-address", f"127.0.0.1:{health}",
            "--metrics-address", f"127.0.0.1:{metrics_port}", "--log-format", "json", "--no-enable-webhooks",
        ]
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while (await asyncio.to_thread(_http, f"http://127.0.0.1:{health}/readyz"))[0] != 200:
            assert p.proc.poll() is None, "".join(p.lines)
            assert time.monotonic() < deadline, "never ready: " + "".join(p.lines)
            await asyncio.sleep(0.1)
        assert (await asyncio.to_thread(_http, f"http://127.0.0.1:{health}/healthz"))[0] == 200
        status, text = await asyncio.to_thread(_http, f"http://127.0.0.1:{metrics_port}/metrics")
        assert status == 200 and "controller_runtime_reconcile_total" in text
    finally:
        code = await asyncio.to_thread(p.stop, 120)  # only ends a failing run; the drain's own bound is 30 s
    assert code == 0, "a clean exit on SIGTERM: " + "".join(p.lines[-5:])
    logs = [json.loads(line) for line in p.lines if line.startswith("{")]
    assert logs and all(line.keys() >= {"ts", "level", "logger", "msg"} for line in logs), "JSON log lines"
    assert logs[-1]["msg"] == "controller stopped", "it drained and said so last"


async def test_controller_init_is_idempotent(
    crossplane_crds: list[str], envtest: envtest_module.Environment
) -> None:
    """``crossfn controller init`` again: every CRD is there and unchanged, in kubectl's words."""
    lines = await _manager.install_crds(envtest.kubeconfig)
    assert lines == [
        f"customresourcedefinition.apiextensions.k8s.io/{name} unchanged" for name in crossplane_crds
    ]
