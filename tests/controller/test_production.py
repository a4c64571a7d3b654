"""The production parts through the whole controller: packages, claims, connection Secrets, RBAC, metrics.

One :class:`~crossfn.controller.manager._manager.Manager` as ``crossfn controller run``
starts it by default (``--package-runtime=Deployment``, mTLS to functions with
the client certificate it makes itself) plus ``--manage-rbac``, against the
session's envtest; each test drives it only through the API server and its
HTTP endpoints, as a user and Prometheus would.
"""

from __future__ import annotations

import asyncio
import base64
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from typing import Any

import pytest

from crossfn.controller import _settings
from crossfn.controller import envtest as envtest_module
from crossfn.controller.manager import _manager
from crossfn.controller.packages import _functionrevisions

from .e2e_support import (
    AUTO_READY_PACKAGE,
    COMPOSED_NAMESPACE,
    CONTROLLER_NAMESPACE,
    PAT_PACKAGE,
    WIDGET_API,
    WIDGET_CRD,
    Flavour,
    condition,
    function,
    namespace,
    wait_for,
)

pytestmark = pytest.mark.cluster

PKG = "pkg.crossplane.io/v1"
CLAIMS = Flavour("Claims", "apiextensions.crossplane.io/v1", None, "claims.e2e.crossfn.io", "")
CLAIM_NAMESPACE = "e2e-claims"


def settings(env: envtest_module.Environment) -> _settings.Settings:
    return _settings.Settings(
        webhooks=_settings.WebhookSettings(enabled=False),
        cluster=_settings.ClusterSettings(kubeconfig=env.kubeconfig, manage_rbac=True),
        functions=_settings.FunctionSettings(namespace=CONTROLLER_NAMESPACE),
        observability=_settings.ObservabilitySettings(
            metrics_address="127.0.0.1:0", health_address="127.0.0.1:0"
        ),
    )


@pytest.fixture
async def manager(
    controller_manager: envtest_module.Environment, crossplane_crds: list[str], kube: Any
) -> AsyncIterator[_manager.Manager]:
    service_account = {"apiVersion": "v1", "kind": "ServiceAccount",
                       "metadata": {"name": "crossplane", "namespace": CONTROLLER_NAMESPACE}}  # fmt: skip
    for obj in (WIDGET_CRD, namespace(COMPOSED_NAMESPACE), namespace(CLAIM_NAMESPACE),
                namespace(CONTROLLER_NAMESPACE), service_account):  # fmt: skip
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


def _get(port: int, path: str) -> tuple[int, str]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as r:
        return r.status, r.read().decode()


async def test_function_package_runs_as_revision_deployment_service_and_secrets(
    manager: _manager.Manager, kube: Any
) -> None:
    """A Function with an OCI package: revision, Deployment, Service, TLS Secrets and endpoint, by the manager."""
    ns, fn, package = CONTROLLER_NAMESPACE, "e2e-packaged", "xpkg.example.org/acme/function-packaged:v1.2.3"
    await kube.apply(function(fn, package), field_manager="e2e", force=True)
    rev_name = _functionrevisions.revision_name(fn, package)

    async def endpoint() -> str:
        rev = await kube.get(PKG, "FunctionRevision", rev_name)
        return str(((rev or {}).get("status") or {}).get("endpoint") or "")

    assert await wait_for(endpoint, timeout=30, what="the revision's endpoint") == f"dns:///{fn}.{ns}:9443"
    rev = await kube.get(PKG, "FunctionRevision", rev_name)
    assert (
        rev["spec"]["desiredState"] == "Active"
        and rev["metadata"]["labels"]["pkg.crossplane.io/package"] == fn
    )
    deployment = await wait_for(
        lambda: kube.get("apps/v1", "Deployment", rev_name, ns), timeout=30, what="the Deployment"
    )
    assert deployment["spec"]["template"]["spec"]["containers"][0]["image"] == package
    service = await kube.get("v1", "Service", fn, ns)
    assert service["spec"]["ports"][0]["port"] == 9443
    server = await kube.get("v1", "Secret", f"{fn}-tls-server", ns)
    assert all(base64.b64decode(server["data"][k]) for k in ("tls.crt", "tls.key", "ca.crt"))
    for name in ("crossplane-root-ca", "crossplane-tls-client"):
        assert await kube.get("v1", "Secret", name, ns), f"{name}: made at start, as Crossplane's core init"
    assert await kube.get("pkg.crossplane.io/v1beta1", "DeploymentRuntimeConfig", "default")

    async def unhealthy_for_now() -> bool:  # no kubelet: the Deployment never becomes Available
        f = await kube.get(PKG, "Function", fn)
        return condition(f, "Installed").get("status") == "True" and bool(condition(f, "Healthy"))

    await wait_for(unhealthy_for_now, timeout=30, what="the Function's Installed and Healthy conditions")
    await kube.delete(PKG, "Function", fn)


async def test_claim_binds_composes_publishes_and_deletes(manager: _manager.Manager, kube: Any) -> None:
    """A claim through the manager: its XR is made and composed, the connection Secret reaches the claim."""
    xrd = CLAIMS.xrd()
    xrd["spec"]["claimNames"] = {"kind": "Widget", "plural": "widgets"}
    xrd["spec"]["connectionSecretKeys"] = ["size"]
    await kube.apply(xrd, field_manager="e2e", force=True)

    async def offered() -> bool:
        got = await kube.get("apiextensions.crossplane.io/v1", "CompositeResourceDefinition", CLAIMS.xrd_name)
        return condition(got, "Offered").get("status") == "True"

    await wait_for(offered, timeout=30, what="the XRD Offered")
    comp = CLAIMS.composition("e2e-claims", ["a"])
    comp["spec"]["writeConnectionSecretsToNamespace"] = CONTROLLER_NAMESPACE
    comp["spec"]["pipeline"][0]["input"]["resources"][0]["connectionDetails"] = [
        {"name": "size", "type": "FromFieldPath", "fromFieldPath": "spec.size"}
    ]
    await kube.apply(comp, field_manager="e2e", force=True)
    claim = {
        "apiVersion": CLAIMS.xr_api, "kind": "Widget",
        "metadata": {"name": "mine", "namespace": CLAIM_NAMESPACE},
        "spec": {"size": "large", "compositionRef": {"name": "e2e-claims"},
                 "writeConnectionSecretToRef": {"name": "mine-conn"}},
    }  # fmt: skip
    await kube.apply(claim, field_manager="e2e", force=True)

    async def bound() -> dict[str, Any] | None:
        got = await kube.get(CLAIMS.xr_api, "Widget", "mine", CLAIM_NAMESPACE)
        ref = ((got or {}).get("spec") or {}).get("resourceRef") or {}
        return await kube.get(CLAIMS.xr_api, "XWidget", ref["name"]) if ref.get("name") else None

    xr = await wait_for(bound, timeout=30, what="the claim's XR")
    assert xr["metadata"]["labels"]["crossplane.io/claim-name"] == "mine"
    assert xr["spec"]["size"] == "large"

    async def widget() -> dict[str, Any] | None:
        items, _ = await kube.list(
            WIDGET_API,
            "Widget",
            COMPOSED_NAMESPACE,
            labels={"crossplane.io/composite": xr["metadata"]["name"]},
        )
        return items[0] if items else None

    composed = await wait_for(widget, timeout=30, what="the composed Widget")
    ready = {
        "type": "Ready",
        "status": "True",
        "reason": "Available",
        "lastTransitionTime": "2026-11-24T00:00:00Z",
    }
    meta = composed["metadata"]
    await kube.patch(
        WIDGET_API,
        "Widget",
        meta["name"],
        meta["namespace"],
        {"status": {"conditions": [ready]}},
        status=True,
    )

    async def claim_secret() -> dict[str, Any] | None:
        found: dict[str, Any] | None = await kube.get("v1", "Secret", "mine-conn", CLAIM_NAMESPACE)
        return found

    secret = await wait_for(claim_secret, timeout=30, what="the claim's connection Secret")
    assert base64.b64decode(secret["data"]["size"]) == b"large"

    async def claim_ready() -> bool:
        got = await kube.get(CLAIMS.xr_api, "Widget", "mine", CLAIM_NAMESPACE)
        return condition(got, "Ready").get("status") == "True"

    await wait_for(claim_ready, timeout=30, what="the claim Ready")
    await kube.delete(CLAIMS.xr_api, "Widget", "mine", CLAIM_NAMESPACE)

    async def xr_gone() -> bool:
        return await kube.get(CLAIMS.xr_api, "XWidget", xr["metadata"]["name"]) is None

    await wait_for(xr_gone, timeout=30, what="the XR deleted with its claim (Background)")


async def test_manage_rbac_renders_the_four_cluster_roles(manager: _manager.Manager, kube: Any) -> None:
    await kube.apply(CLAIMS.xrd(), field_manager="e2e", force=True)
    names = [
        f"crossplane:composite:{CLAIMS.xrd_name}:aggregate-to-{r}"
        for r in ("crossplane", "edit", "view", "browse")
    ]

    async def roles() -> bool:
        found = [await kube.get("rbac.authorization.k8s.io/v1", "ClusterRole", n) for n in names]
        return all(found)

    await wait_for(roles, timeout=30, what="the per-XRD ClusterRoles")


DOCUMENTED_FAMILIES = {
    "controller_runtime_reconcile_total", "controller_runtime_reconcile_time_seconds",
    "controller_runtime_active_workers", "workqueue_depth", "workqueue_adds_total", "workqueue_retries_total",
    "workqueue_queue_duration_seconds", "engine_controllers_started_total", "engine_controllers_stopped_total",
    "engine_watches_started_total", "engine_watches_stopped_total", "function_run_function_request_total",
    "function_run_function_response_total", "function_run_function_seconds", "crossfn_watches",
    "crossfn_watch_synced", "crossfn_watch_lists_total",
}  # fmt: skip
DOCUMENTED_SAMPLES = (
    'controller_runtime_reconcile_total{controller="packages/function.pkg.crossplane.io"',
    'engine_controllers_started_total{controller="defined/compositeresourcedefinition.apiextensions.crossplane.io"}',
    'crossfn_watch_synced{api_version="pkg.crossplane.io/v1",kind="Function"} 1.0',
)


def _missing_metrics(text: str) -> list[str]:
    """The documented families and samples ``text`` lacks (empty once the controllers have done some work)."""
    families = {line.split()[2] for line in text.splitlines() if line.startswith("# TYPE ")}
    return sorted(DOCUMENTED_FAMILIES - families) + [s for s in DOCUMENTED_SAMPLES if s not in text]


async def _scrape_until_documented(port: int, timeout: float) -> str:
    """Poll /metrics until every documented name is there: on a loaded machine the packages
    controller may not have reconciled yet when the test starts, so one scrape would race it."""
    deadline = time.monotonic() + timeout
    while True:
        status, text = await asyncio.to_thread(_get, port, "/metrics")
        assert status == 200
        missing = _missing_metrics(text)
        if not missing:
            return text
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g}s waiting for /metrics; missing: {missing}")
        await asyncio.sleep(0.2)


async def test_metrics_and_probes_answer_with_the_documented_names(manager: _manager.Manager) -> None:
    """Scrape /metrics after some work: every documented family is there; /healthz and /readyz answer."""
    text = await _scrape_until_documented(manager.metrics_port, timeout=60)
    families = {line.split()[2] for line in text.splitlines() if line.startswith("# TYPE ")}
    assert "leader_election_master_status" not in families, "no leader election: no leader metric"
    assert await asyncio.to_thread(_get, manager.health_port, "/healthz") == (200, "ok\n")

    async def ready() -> tuple[int, str] | None:
        # XR, claim and composed kinds of XRDs earlier tests left may have just been added.
        try:
            return await asyncio.to_thread(_get, manager.health_port, "/readyz")
        except urllib.error.HTTPError:
            return None

    assert await wait_for(ready, timeout=30, what="/readyz") == (200, "ok\nleader election: off\n")
