"""crossfn beside Crossplane: on an API server that already serves Crossplane's own 21 CRDs.

A control plane of its own (a cluster where Crossplane ran first) gets
Crossplane's CRDs as Crossplane ships them (testdata/crossplane-crds, with
their descriptions). Then ``crossfn controller init`` and ``crossfn controller
run`` must keep every one of them as it is (not narrowed, not replaced: same
resourceVersion, same schema) and compose with them: v2.3's fields that an
older crossfn CRD dropped (bootstrap ``requiredSchemas``, a required resource
with neither name nor labels, a Function's ``commonAnnotations``, an XRD
version's ``subresources.scale``) are served and used.
"""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from crossfn.controller import _settings
from crossfn.controller import envtest as envtest_module
from crossfn.controller.crds import _crds
from crossfn.controller.kube import _kube
from crossfn.controller.manager import _manager
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource, runtime, settings

from .e2e_support import condition, namespace, wait_for
from .test_crds import upstream_crds

pytestmark = pytest.mark.cluster

CRD = ("apiextensions.k8s.io/v1", "CustomResourceDefinition")
GROUP = "beside.e2e.crossfn.io"
NS = "beside"


@pytest.fixture(scope="module")
def cluster() -> Iterator[envtest_module.Environment]:
    """A control plane of this module's own: Crossplane's CRDs must be the first installed."""
    env = envtest_module.Environment()
    env.start()
    try:
        yield env
    finally:
        env.stop()


@pytest.fixture
async def kube(cluster: envtest_module.Environment) -> AsyncIterator[Any]:
    api = _kube.KubeApi.from_kubeconfig(cluster.kubeconfig)
    try:
        yield api
    finally:
        await api.close()


async def install_crossplanes_crds(kube: Any) -> dict[str, dict[str, Any]]:
    """Create Crossplane's CRDs (as its ``core init`` does), wait until served; the CRDs as served."""
    for crd in upstream_crds().values():
        if await kube.get(*CRD, crd["metadata"]["name"]) is None:
            await kube.create(crd)
    served: dict[str, dict[str, Any]] = {}
    for crd in upstream_crds().values():
        name = crd["metadata"]["name"]

        async def established(name: str = name) -> dict[str, Any] | None:
            found = await kube.get(*CRD, name)
            return found if _crds.is_established(found) else None

        served[name] = await wait_for(established, timeout=60, what=f"CRD {name} established")
    return served


async def assert_untouched(kube: Any, before: dict[str, dict[str, Any]]) -> None:
    for name, crd in before.items():
        now = await kube.get(*CRD, name)
        assert now["metadata"]["resourceVersion"] == crd["metadata"]["resourceVersion"], f"{name} was written"
        assert now["spec"] == crd["spec"], f"{name} changed (narrowed, or its descriptions dropped)"
        assert (
            "labels" not in now["metadata"] or "app.kubernetes.io/managed-by" not in now["metadata"]["labels"]
        )


def compose(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    """One ConfigMap holding what the step was given: the EnvironmentConfigs' names, whether the schema came."""
    envs = sorted(
        resource.struct_to_dict(i.resource)["metadata"]["name"] for i in req.required_resources["envs"].items
    )
    has_schema = req.required_schemas["deployment"].HasField("openapi_v3")
    cm = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "data": {"envs": ",".join(envs), "schema": str(has_schema)},
    }
    resource.update(rsp.desired.resources["cm"], cm)
    rsp.desired.resources["cm"].ready = fnv1.READY_TRUE


XRD = {
    "apiVersion": "apiextensions.crossplane.io/v2",
    "kind": "CompositeResourceDefinition",
    "metadata": {"name": f"xapps.{GROUP}"},
    "spec": {
        "group": GROUP,
        "names": {"kind": "XApp", "plural": "xapps"},
        "scope": "Namespaced",
        "versions": [
            {
                "name": "v1",
                "served": True,
                "referenceable": True,
                "subresources": {
                    "scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}
                },
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "properties": {
                            "spec": {"type": "object", "properties": {"replicas": {"type": "integer"}}},
                            "status": {"type": "object", "properties": {"replicas": {"type": "integer"}}},
                        },
                    }
                },
            }
        ],
    },
}

COMPOSITION = {
    "apiVersion": "apiextensions.crossplane.io/v1",
    "kind": "Composition",
    "metadata": {"name": "xapps"},
    "spec": {
        "compositeTypeRef": {"apiVersion": f"{GROUP}/v1", "kind": "XApp"},
        "mode": "Pipeline",
        "pipeline": [
            {
                "step": "compose",
                "functionRef": {"name": "function-beside"},
                "requirements": {
                    "requiredResources": [
                        {
                            "requirementName": "envs",
                            "apiVersion": "apiextensions.crossplane.io/v1beta1",
                            "kind": "EnvironmentConfig",
                        }
                    ],
                    "requiredSchemas": [
                        {"requirementName": "deployment", "apiVersion": "apps/v1", "kind": "Deployment"}
                    ],
                },
            }
        ],
    },
}


async def test_crossfn_keeps_crossplanes_crds_and_composes_with_them(
    cluster: envtest_module.Environment, kube: Any
) -> None:
    before = await install_crossplanes_crds(kube)
    lines = await _manager.install_crds(cluster.kubeconfig)
    assert sorted(lines) == sorted(
        f"customresourcedefinition.apiextensions.k8s.io/{n} unchanged" for n in before
    ), "init: Crossplane's CRDs serve exactly crossfn's schemas, so there is nothing to do"
    await assert_untouched(kube, before)

    server = runtime.FunctionServer(
        compose, settings.ServerSettings(listen=settings.ListenSettings(address="127.0.0.1:0", insecure=True))
    )
    port = await server.start()
    s = _settings.Settings(
        cluster=_settings.ClusterSettings(kubeconfig=cluster.kubeconfig),
        functions=_settings.FunctionSettings(insecure=True),
        packages=_settings.PackageSettings(runtime="External"),
        observability=_settings.ObservabilitySettings(metrics_address="", health_address=""),
        webhooks=_settings.WebhookSettings(enabled=False),
    )
    m = _manager.Manager(s)
    await m.start()
    try:
        await m.wait_ready()
        await assert_untouched(kube, before)
        fn = {
            "apiVersion": "pkg.crossplane.io/v1",
            "kind": "Function",
            "metadata": {
                "name": "function-beside",
                "annotations": {"crossfn.io/endpoint": f"127.0.0.1:{port}"},
            },
            "spec": {
                "package": "xpkg.crossplane.io/crossfn-e2e/function-beside:v0.1.0",
                "commonAnnotations": {"team": "a"},
            },
        }
        await kube.apply(fn, field_manager="e2e", force=True)
        stored = await kube.get("pkg.crossplane.io/v1", "Function", "function-beside")
        assert stored["spec"]["commonAnnotations"] == {"team": "a"}, "v2.3's field is served, not pruned"
        await kube.apply(namespace(NS), field_manager="e2e")
        for name in ("a", "b"):
            env = {"apiVersion": "apiextensions.crossplane.io/v1beta1", "kind": "EnvironmentConfig",
                   "metadata": {"name": name}, "data": {"k": name}}  # fmt: skip
            await kube.apply(env, field_manager="e2e", force=True)
        await kube.apply(XRD, field_manager="e2e", force=True)

        async def xr_served() -> bool:
            xrd = await kube.get(
                "apiextensions.crossplane.io/v1", "CompositeResourceDefinition", f"xapps.{GROUP}"
            )
            return condition(xrd, "Established").get("status") == "True"

        await wait_for(xr_served, timeout=60, what="the XRD established")
        xr_crd = await kube.get(*CRD, f"xapps.{GROUP}")
        assert xr_crd["spec"]["versions"][0]["subresources"]["scale"]["specReplicasPath"] == ".spec.replicas"
        await kube.apply(copy.deepcopy(COMPOSITION), field_manager="e2e", force=True)
        xr = {"apiVersion": f"{GROUP}/v1", "kind": "XApp", "metadata": {"name": "app", "namespace": NS},
              "spec": {"replicas": 1, "crossplane": {"compositionRef": {"name": "xapps"}}}}  # fmt: skip
        await kube.apply(xr, field_manager="e2e", force=True)

        async def ready() -> dict[str, Any] | None:
            found = await kube.get(f"{GROUP}/v1", "XApp", "app", NS)
            return found if condition(found, "Ready").get("status") == "True" else None

        await wait_for(ready, timeout=60, what="the XR Ready")
        items, _ = await kube.list("v1", "ConfigMap", NS, labels={"crossplane.io/composite": "app"})
        [cm] = items
        assert cm["data"] == {"envs": "a,b", "schema": "True"}, (
            "a selector with neither name nor labels got every EnvironmentConfig; the bootstrap schema came"
        )
        await assert_untouched(kube, before)
    finally:
        await m.stop()
        await server.stop(0)
