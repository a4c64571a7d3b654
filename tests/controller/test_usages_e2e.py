"""Usages against a real API server that calls the controller's webhook (Crossplane's ``protection``).

A running controller serves the usage webhook over TLS on 127.0.0.1 and
registers it with ``clientConfig.url`` and its CA, so the envtest
kube-apiserver calls it on every DELETE of an object labelled in use. The
Usage controllers label what Usages protect; the API server then refuses to
delete it with Crossplane's message, until the Usage is gone.
"""

from __future__ import annotations

import base64
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest

from crossfn.controller import _settings
from crossfn.controller import envtest as envtest_module
from crossfn.controller.kube import _api
from crossfn.controller.manager import _manager

from .e2e_support import CONTROLLER_NAMESPACE, condition, free_port, namespace, wait_for

pytestmark = pytest.mark.cluster

P = "protection.crossplane.io/v1beta1"
WEBHOOK_CONFIG = ("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", "crossplane-no-usages")


def settings(env: envtest_module.Environment, port: int) -> _settings.Settings:
    return _settings.Settings(
        cluster=_settings.ClusterSettings(kubeconfig=env.kubeconfig),
        reconcile=_settings.ReconcileSettings(poll_interval=5.0),
        functions=_settings.FunctionSettings(insecure=True),
        packages=_settings.PackageSettings(runtime="External"),
        observability=_settings.ObservabilitySettings(
            metrics_address="127.0.0.1:0", health_address="127.0.0.1:0"
        ),
        webhooks=_settings.WebhookSettings(address=f"127.0.0.1:{port}", url=f"https://127.0.0.1:{port}"),
    )


@pytest.fixture
async def ns(kube: Any) -> str:
    name = f"usage-{uuid.uuid4().hex[:6]}"
    await kube.apply(namespace(name), field_manager="e2e")
    return name


@pytest.fixture
async def manager(
    controller_manager: envtest_module.Environment, crossplane_crds: list[str], kube: Any
) -> AsyncIterator[_manager.Manager]:
    await kube.apply(namespace(CONTROLLER_NAMESPACE), field_manager="e2e")
    m = _manager.Manager(settings(controller_manager, free_port()))
    await m.start()
    try:
        await m.wait_ready()
        yield m
    finally:
        await m.stop()


def configmap(name: str, ns: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": ns}}


def secret(name: str, ns: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name, "namespace": ns}}


def usage(name: str, ns: str, of: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": P,
        "kind": "Usage",
        "metadata": {"name": name, "namespace": ns},
        "spec": {"of": {"apiVersion": "v1", "kind": "ConfigMap", "resourceRef": {"name": of}}, **spec},
    }


async def in_use(kube: Any, name: str, ns: str) -> dict[str, Any]:
    async def labelled() -> dict[str, Any] | None:
        found = await kube.get("v1", "ConfigMap", name, ns)
        return (
            found
            if ((found or {}).get("metadata", {}).get("labels") or {}).get("crossplane.io/in-use")
            else None
        )

    got: dict[str, Any] = await wait_for(labelled, timeout=30, what=f"ConfigMap {ns}/{name} labelled in use")
    return got


async def ready(kube: Any, kind: str, name: str, ns: str = "") -> dict[str, Any]:
    async def check() -> dict[str, Any] | None:
        found = await kube.get(P, kind, name, ns)
        return found if condition(found, "Ready").get("status") == "True" else None

    got: dict[str, Any] = await wait_for(check, timeout=30, what=f"{kind} {name} Ready")
    return got


async def gone(kube: Any, api_version: str, kind: str, name: str, ns: str) -> None:
    async def check() -> bool:
        return await kube.get(api_version, kind, name, ns) is None

    await wait_for(check, timeout=60, what=f"{kind} {ns}/{name} deleted")


DENIED = 'admission webhook "nousages.protection.crossplane.io" denied the request: '


async def test_a_used_resource_cannot_be_deleted_until_its_usage_goes(
    manager: _manager.Manager, kube: Any, ns: str
) -> None:
    """The Usage labels the ConfigMap, is owned by its user and Ready; the API server, calling our webhook,
    refuses the ConfigMap's deletion with Crossplane's message; the user's deletion takes the Usage with it
    (garbage collection), and then the ConfigMap may go."""
    await kube.apply(configmap("db", ns), field_manager="e2e")
    await kube.apply(secret("app", ns), field_manager="e2e")
    await kube.apply(
        usage("u", ns, "db", by={"apiVersion": "v1", "kind": "Secret", "resourceRef": {"name": "app"}}),
        field_manager="e2e",
    )
    await in_use(kube, "db", ns)
    u = await ready(kube, "Usage", "u", ns)
    assert u["metadata"]["annotations"]["crossplane.io/usage-details"] == "Secret/app uses ConfigMap/db"
    assert [o["kind"] for o in u["metadata"]["ownerReferences"]] == ["Secret"]
    with pytest.raises(_api.ApiError) as refused:
        await kube.delete("v1", "ConfigMap", "db", ns)
    assert str(refused.value) == (
        f'{DENIED}This resource is in-use by 1 usage(s), including the *v1beta1.Usage "u" (in namespace "{ns}") '
        "by resource Secret/app."
    )
    assert refused.value.status == 409
    cm = await kube.get("v1", "ConfigMap", "db", ns)
    assert cm["metadata"]["annotations"]["usage.crossplane.io/deletion-attempt-with-policy"] == "Background"
    await kube.delete("v1", "Secret", "app", ns)
    await gone(kube, P, "Usage", "u", ns)

    async def released() -> bool:
        found = await kube.get("v1", "ConfigMap", "db", ns)
        return "crossplane.io/in-use" not in ((found or {}).get("metadata", {}).get("labels") or {})

    await wait_for(released, timeout=30, what="the in-use label removed")
    await kube.delete("v1", "ConfigMap", "db", ns)


async def test_replayed_deletion_and_a_cluster_usage(manager: _manager.Manager, kube: Any, ns: str) -> None:
    """A deletion refused while a Usage with replayDeletion held it happens once the Usage goes; a
    ClusterUsage with a reason protects an object too, named so in the message."""
    await kube.apply(configmap("cache", ns), field_manager="e2e")
    await kube.apply(
        usage("keep", ns, "cache", reason="warm cache", replayDeletion=True), field_manager="e2e"
    )
    await in_use(kube, "cache", ns)
    await ready(kube, "Usage", "keep", ns)
    with pytest.raises(
        _api.ApiError, match=r'including the \*v1beta1.Usage "keep" .* with reason: "warm cache"'
    ):
        await kube.delete("v1", "ConfigMap", "cache", ns, propagation="Foreground")
    await kube.delete(P, "Usage", "keep", ns)
    await gone(kube, "v1", "ConfigMap", "cache", ns)  # replayed by the controller, 2 s after the Usage went

    cluster_usage = {
        "apiVersion": P,
        "kind": "ClusterUsage",
        "metadata": {"name": f"protect-{ns}"},
        "spec": {
            "of": {"apiVersion": "v1", "kind": "Namespace", "resourceRef": {"name": ns}},
            "reason": "in use",
        },
    }
    await kube.apply(cluster_usage, field_manager="e2e")
    await ready(kube, "ClusterUsage", f"protect-{ns}")
    with pytest.raises(_api.ApiError) as refused:
        await kube.delete("v1", "Namespace", ns)
    assert str(refused.value) == (
        f'{DENIED}This resource is in-use by 1 usage(s), including the *v1beta1.ClusterUsage "protect-{ns}" '
        'with reason: "in use".'
    )
    await kube.delete(P, "ClusterUsage", f"protect-{ns}")
    await gone(kube, P, "ClusterUsage", f"protect-{ns}", "")


async def test_controller_init_registers_the_webhook(
    controller_manager: envtest_module.Environment, crossplane_crds: list[str], kube: Any
) -> None:
    """``crossfn controller init`` makes the serving certificate and registers Crossplane's configuration,
    calling the Service, with the CA that signed it; a second init changes nothing."""
    await kube.apply(namespace(CONTROLLER_NAMESPACE), field_manager="e2e")
    s = _settings.Settings(cluster=_settings.ClusterSettings(kubeconfig=controller_manager.kubeconfig))
    lines = await _manager.initialize(s)
    assert lines[-1].startswith(
        "validatingwebhookconfiguration.admissionregistration.k8s.io/crossplane-no-usages "
    )
    config = await kube.get(*WEBHOOK_CONFIG)
    [hook] = config["webhooks"]
    assert hook["clientConfig"]["service"] == {
        "name": "crossplane-webhooks", "namespace": CONTROLLER_NAMESPACE, "path": "/validate-no-usages", "port": 9443,
    }  # fmt: skip
    ca = await kube.get("v1", "Secret", "crossplane-root-ca", CONTROLLER_NAMESPACE)
    assert hook["clientConfig"]["caBundle"] == ca["data"]["tls.crt"], (
        "the CA that signs the serving certificate"
    )
    server = await kube.get("v1", "Secret", "crossplane-tls-server", CONTROLLER_NAMESPACE)
    assert base64.b64decode(server["data"]["tls.crt"]).startswith(b"-----BEGIN CERTIFICATE-----")
    again = await _manager.initialize(s)
    assert (
        again[-1]
        == "validatingwebhookconfiguration.admissionregistration.k8s.io/crossplane-no-usages unchanged"
    )
    await kube.delete(*WEBHOOK_CONFIG)  # the next controller registers its own
