"""A tenant who may create XRs in one namespace, against the whole controller on a real API server
(issue 26): what a Composition fed by that tenant's XR must never make the controller do.

Each case is an attack that worked before: a namespaced XR's desired object naming a namespace to
escape the cluster-scope check (a cluster-admin ClusterRoleBinding, a Namespace), the XR among its
own desired resources (it overwrote its own spec and garbage-collected itself), an XR composing XRs
of its own kind, the platform's ResourceQuota in the tenant's namespace adopted, raised and deleted,
and a kube-system Secret read through required resources. Composed objects come from the built-in
patch-and-transform (in-process), so each Composition is the attack as written.
"""

from __future__ import annotations

import contextlib
import dataclasses
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
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
    function,
    namespace,
    wait_for,
)

pytestmark = pytest.mark.cluster

TENANT = Flavour(
    "Tenancy", "apiextensions.crossplane.io/v2", "Namespaced", "tenancy.e2e.crossfn.io", "tenant-a"
)
RBAC = "rbac.authorization.k8s.io/v1"


def _settings_for(env: envtest_module.Environment, *, adopt: bool = False) -> _settings.Settings:
    return _settings.Settings(
        cluster=_settings.ClusterSettings(kubeconfig=env.kubeconfig),
        reconcile=_settings.ReconcileSettings(adopt_existing=adopt),
        functions=_settings.FunctionSettings(insecure=True, timeout=5.0),
        packages=_settings.PackageSettings(runtime="External"),
        webhooks=_settings.WebhookSettings(enabled=False),  # no usage webhook on :9443
        observability=_settings.ObservabilitySettings(metrics_address="", health_address=""),
    )


@dataclasses.dataclass
class Cluster:
    kube: Any
    env: envtest_module.Environment

    async def controller(self, *, adopt: bool = False) -> _manager.Manager:
        m = _manager.Manager(_settings_for(self.env, adopt=adopt))
        await m.start()
        await m.wait_ready()
        return m


@pytest.fixture
async def cluster(
    controller_manager: envtest_module.Environment, crossplane_crds: list[str], kube: Any
) -> AsyncIterator[Cluster]:
    for obj in (namespace(TENANT.xr_namespace), namespace(CONTROLLER_NAMESPACE)):
        await kube.apply(obj, field_manager="e2e")
    for name, package in (
        ("function-patch-and-transform", PAT_PACKAGE),
        ("function-auto-ready", AUTO_READY_PACKAGE),
    ):
        await kube.apply(function(name, package), field_manager="e2e", force=True)
    await kube.apply(TENANT.xrd(), field_manager="e2e", force=True)

    async def served() -> bool:
        xrd = await kube.get("apiextensions.crossplane.io/v1", "CompositeResourceDefinition", TENANT.xrd_name)
        return condition(xrd, "Established").get("status") == "True"

    m = _manager.Manager(_settings_for(controller_manager))
    await m.start()
    try:
        await wait_for(served, timeout=30, what="the tenancy XRD Established")
    finally:
        await m.stop()
    yield Cluster(kube, controller_manager)


def _composition(name: str, bases: dict[str, dict[str, Any]], patches: dict[str, list[Any]] | None = None,
                 requirements: list[dict[str, Any]] | None = None) -> dict[str, Any]:  # fmt: skip
    step: dict[str, Any] = {
        "step": "compose",
        "functionRef": {"name": "function-patch-and-transform"},
        "input": {
            "apiVersion": "pt.fn.crossplane.io/v1beta1",
            "kind": "Resources",
            "resources": [
                {"name": n, "base": b, "patches": (patches or {}).get(n, [])} for n, b in bases.items()
            ],
        },
    }
    if requirements:
        step["requirements"] = {"requiredResources": requirements}
    return {
        "apiVersion": "apiextensions.crossplane.io/v1",
        "kind": "Composition",
        "metadata": {"name": name},
        "spec": {
            "compositeTypeRef": {"apiVersion": TENANT.xr_api, "kind": "XWidget"},
            "mode": "Pipeline",
            "pipeline": [step],
        },
    }


_TRANSIENT = ("cannot fetch Composition", "cannot select", "selected CompositionRevision")
"""A Composition applied with its XR: no revision yet for a moment."""


async def _synced(kube: Any, name: str, *, status: str) -> dict[str, Any]:
    """The XR's Synced condition once it has ``status`` (past the moment its revision does not exist yet)."""

    async def check() -> dict[str, Any] | None:
        xr = await kube.get(TENANT.xr_api, "XWidget", name, TENANT.xr_namespace)
        c = condition(xr, "Synced")
        if c.get("status") != status or str(c.get("message") or "").startswith(_TRANSIENT):
            return None
        return c

    return await wait_for(check, timeout=30, what=f"XR {name} Synced={status}")


async def _run(cluster: Cluster, composition: dict[str, Any], *, adopt: bool = False,
               check: Callable[[str, dict[str, Any]], Awaitable[None]]) -> None:  # fmt: skip
    """Apply the Composition and an XR of it under a running controller; ``check(xr_name, synced)``."""
    kube = cluster.kube
    await kube.apply(composition, field_manager="e2e", force=True)
    name = f"x-{uuid.uuid4().hex[:6]}"
    m = await cluster.controller(adopt=adopt)
    try:
        xr = TENANT.xr(name, composition["metadata"]["name"], "small")
        await kube.create(xr)
        await check(name, xr)
    finally:
        try:
            await kube.delete(TENANT.xr_api, "XWidget", name, TENANT.xr_namespace)

            async def gone() -> bool:
                return await kube.get(TENANT.xr_api, "XWidget", name, TENANT.xr_namespace) is None

            await wait_for(gone, timeout=30, what=f"XR {name} deleted")
        finally:
            await m.stop()


_ADMIN_BINDING = {
    "apiVersion": RBAC,
    "kind": "ClusterRoleBinding",
    "metadata": {"namespace": TENANT.xr_namespace},
    "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
    "subjects": [{"kind": "User", "name": "tenant", "apiGroup": "rbac.authorization.k8s.io"}],
}
_NAMESPACE = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"namespace": TENANT.xr_namespace}}


@pytest.mark.parametrize(
    ("base", "kind"),
    [
        pytest.param(_ADMIN_BINDING, "ClusterRoleBinding", id="cluster-admin-binding"),
        pytest.param(_NAMESPACE, "Namespace", id="namespace"),
    ],
)
async def test_a_namespaced_xr_composes_no_cluster_scoped_object_whatever_its_namespace(
    cluster: Cluster, base: dict[str, Any], kind: str
) -> None:
    """metadata.namespace on a cluster-scoped kind no longer skips the scope check (before: the tenant got
    a cluster-admin ClusterRoleBinding, or a new Namespace, both outliving the XR)."""
    target = f"escape-{uuid.uuid4().hex[:6]}"
    body = {**base, "metadata": {**base["metadata"], "name": target}}

    async def check(name: str, xr: dict[str, Any]) -> None:
        synced = await _synced(cluster.kube, name, status="False")
        assert synced["message"] == (
            f'cannot compose resources: cannot apply cluster scoped composed resource "escape" (a {kind} '
            f"named {target}) for a namespaced composite resource."
        )
        api_version = RBAC if kind == "ClusterRoleBinding" else "v1"
        assert await cluster.kube.get(api_version, kind, target) is None

    await _run(cluster, _composition(f"c-{target}", {"escape": body}), check=check)


async def test_an_xr_among_its_own_desired_resources_is_refused(cluster: Cluster) -> None:
    """Before: the XR overwrote its own spec, garbage-collected itself and everything it composed, and
    stayed Terminating."""
    me = {"apiVersion": TENANT.xr_api, "kind": "XWidget", "metadata": {}, "spec": {"size": "huge"}}
    to_name = [
        {"type": "FromCompositeFieldPath", "fromFieldPath": "metadata.name", "toFieldPath": "metadata.name"}
    ]

    async def check(name: str, xr: dict[str, Any]) -> None:
        synced = await _synced(cluster.kube, name, status="False")
        assert synced["message"] == (
            f'cannot compose resources: refusing to compose composed resource "me" (a XWidget named {name}): '
            "it is the composite resource itself"
        )
        got = await cluster.kube.get(TENANT.xr_api, "XWidget", name, TENANT.xr_namespace)
        assert got["spec"]["size"] == "small" and not got["metadata"].get("deletionTimestamp")
        assert not got["metadata"].get("ownerReferences")

    await _run(
        cluster, _composition(f"self-{uuid.uuid4().hex[:6]}", {"me": me}, {"me": to_name}), check=check
    )


async def test_an_xr_composes_no_xr_of_its_own_kind(cluster: Cluster) -> None:
    """An XR composing XRs of its own XRD would compose without end."""
    child = {"apiVersion": TENANT.xr_api, "kind": "XWidget", "metadata": {"name": "child"}, "spec": {}}

    async def check(name: str, xr: dict[str, Any]) -> None:
        synced = await _synced(cluster.kube, name, status="False")
        assert synced["message"] == (
            'cannot compose resources: refusing to compose composed resource "child" (a XWidget named child): '
            "its kind is defined by the composite resource's own CompositeResourceDefinition"
        )
        assert await cluster.kube.get(TENANT.xr_api, "XWidget", "child", TENANT.xr_namespace) is None

    await _run(cluster, _composition(f"child-{uuid.uuid4().hex[:6]}", {"child": child}), check=check)


def _quota(name: str, pods: str, annotations: dict[str, str] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": TENANT.xr_namespace}
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": meta, "spec": {"hard": {"pods": pods}}}


@pytest.mark.parametrize(
    ("annotations", "adopt", "adopted"),
    [
        pytest.param(None, False, False, id="not-adopted-by-default"),
        pytest.param({"crossfn.io/adoptable": "true"}, False, True, id="adoptable-annotation"),
        pytest.param(None, True, True, id="adopt-existing-resources-flag"),
    ],
)
async def test_an_existing_object_the_xr_did_not_create_is_not_adopted(
    cluster: Cluster, annotations: dict[str, str] | None, adopt: bool, adopted: bool
) -> None:
    """The platform's ResourceQuota in the tenant's namespace: before, the XR adopted it, raised it and
    deleted it with itself. Now only with the opt-in (the object's annotation, or the flag)."""
    kube = cluster.kube
    quota = f"platform-{uuid.uuid4().hex[:6]}"
    await kube.create(_quota(quota, "10", annotations))
    desired = _quota(quota, "1000")
    try:

        async def check(name: str, xr: dict[str, Any]) -> None:
            if not adopted:
                synced = await _synced(kube, name, status="False")
                assert synced["message"] == (
                    f'cannot compose resources: refusing to adopt existing composed resource "quota" (a '
                    f"ResourceQuota named {quota}): the composite resource did not create it (annotate it "
                    'crossfn.io/adoptable: "true" to let it be adopted)'
                )
                got = await kube.get("v1", "ResourceQuota", quota, TENANT.xr_namespace)
                assert got["spec"]["hard"]["pods"] == "10" and not got["metadata"].get("ownerReferences")
                return
            await _synced(kube, name, status="True")
            got = await kube.get("v1", "ResourceQuota", quota, TENANT.xr_namespace)
            assert got["spec"]["hard"]["pods"] in ("1000", "1k")  # the API server canonicalises quantities
            assert [r["name"] for r in got["metadata"]["ownerReferences"]] == [name]

        await _run(cluster, _composition(f"quota-{quota}", {"quota": desired}), adopt=adopt, check=check)
        if not adopted:
            got = await kube.get("v1", "ResourceQuota", quota, TENANT.xr_namespace)
            assert got is not None, "the platform's quota outlives the XR"
    finally:
        with contextlib.suppress(_api.NotFound):
            await kube.delete("v1", "ResourceQuota", quota, TENANT.xr_namespace)


async def test_required_resources_are_read_in_the_xrs_namespace_only(cluster: Cluster) -> None:
    """A Composition whose selector names another namespace cannot make the controller read a kube-system
    Secret for a tenant's XR (before: it read it, and the pipeline could copy it to the tenant)."""
    kube = cluster.kube
    secret = f"platform-{uuid.uuid4().hex[:6]}"
    await kube.apply(namespace("kube-system"), field_manager="e2e")
    await kube.create(
        {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": secret, "namespace": "kube-system"},
         "data": {"token": "c2VjcmV0"}}
    )  # fmt: skip
    requirement = {"requirementName": "stolen", "apiVersion": "v1", "kind": "Secret", "name": secret,
                   "namespace": "kube-system"}  # fmt: skip
    widget = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}, "data": {"a": "b"}}
    try:

        async def check(name: str, xr: dict[str, Any]) -> None:
            synced = await _synced(kube, name, status="False")
            assert synced["message"].endswith(
                'cannot read Secret objects in namespace "kube-system": a composite resource in namespace '
                '"tenant-a" may require namespaced resources of its own namespace only'
            ), synced["message"]

        await _run(
            cluster,
            _composition(f"req-{secret}", {"cm": widget}, requirements=[requirement]),
            check=check,
        )
    finally:
        await kube.delete("v1", "Secret", secret, "kube-system")


async def test_a_namespaced_xr_composes_in_its_own_namespace_only(cluster: Cluster) -> None:
    """A desired object naming another namespace is composed in the XR's (Crossplane's NamespaceOverridden
    warning): nothing lands in kube-system."""
    name = f"moved-{uuid.uuid4().hex[:6]}"
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "kube-system"}}

    async def check(xr_name: str, xr: dict[str, Any]) -> None:
        await _synced(cluster.kube, xr_name, status="True")
        assert await cluster.kube.get("v1", "ConfigMap", name, "kube-system") is None
        moved = await cluster.kube.get("v1", "ConfigMap", name, TENANT.xr_namespace)
        assert moved is not None and moved["metadata"]["ownerReferences"][0]["name"] == xr_name

    await cluster.kube.apply(namespace("kube-system"), field_manager="e2e")
    await _run(cluster, _composition(f"ns-{name}", {"cm": cm}), check=check)
