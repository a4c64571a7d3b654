"""Required resources and schemas from the live API server, and the watches they start, end to end.

A running controller (:class:`~crossfn.controller.manager._manager.Manager`)
composes XRs with a function served in this test's event loop
(``crossfn.io/endpoint``) that reports what it was given: the names of each
required resource list and whether each required schema came. The API server
is the session's envtest. What Crossplane does (upstream core-2.7, core-2.8,
controllers-1.6):

* a kind the server does not serve fails the XR with Crossplane's text;
* v2.3's selectors: a name, labels, or neither (every object of the kind);
* bootstrap ``requiredSchemas``, a deep built-in kind's included;
* a watch a requirement started ends once no XR needs its kind, and
  ``/readyz`` never waits on it.
"""

from __future__ import annotations

import asyncio
import urllib.error
import urllib.request
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest

from crossfn.controller import _settings
from crossfn.controller import envtest as envtest_module
from crossfn.controller.manager import _manager
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource, runtime, settings

from .e2e_support import CONTROLLER_NAMESPACE, condition, namespace, wait_for

pytestmark = pytest.mark.cluster

GROUP = "req.e2e.crossfn.io"
XR_API = f"{GROUP}/v1"
NS = "e2e-requirements"
GADGETS = f"gadgets.{GROUP}"
_STRINGS = {"type": "array", "items": {"type": "string"}}

XRD = {
    "apiVersion": "apiextensions.crossplane.io/v2",
    "kind": "CompositeResourceDefinition",
    "metadata": {"name": f"xneeds.{GROUP}"},
    "spec": {
        "group": GROUP,
        "names": {"kind": "XNeed", "plural": "xneeds"},
        "scope": "Namespaced",
        "versions": [
            {
                "name": "v1",
                "served": True,
                "referenceable": True,
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "properties": {
                            "status": {
                                "type": "object",
                                "properties": {
                                    "seen": {"type": "object", "additionalProperties": _STRINGS},
                                    "schemas": {
                                        "type": "object",
                                        "additionalProperties": {"type": "boolean"},
                                    },
                                    "env": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                                },
                            }
                        },
                    }
                },
            }
        ],
    },
}

GADGET_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": GADGETS},
    "spec": {
        "group": GROUP,
        "names": {"kind": "Gadget", "plural": "gadgets", "singular": "gadget", "listKind": "GadgetList"},
        "scope": "Namespaced",
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {
                    "openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
                },
            }
        ],
    },
}


ENVIRONMENT = "apiextensions.crossplane.io/environment"


def report(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    """Report the names of each required resource list, which required schemas came, and the environment
    an earlier step put in the context."""
    seen = {
        key: sorted(str(resource.struct_to_dict(i.resource)["metadata"]["name"]) for i in rs.items)
        for key, rs in req.required_resources.items()
    }
    schemas = {key: s.HasField("openapi_v3") for key, s in req.required_schemas.items()}
    status: dict[str, Any] = {"seen": seen, "schemas": schemas}
    context = resource.struct_to_dict(req.context)
    if ENVIRONMENT in context:
        status["env"] = context[ENVIRONMENT]
    rsp.desired.composite.resource.update({"status": status})


@pytest.fixture
async def requirer(kube: Any) -> AsyncIterator[str]:
    """The reporting function, served here, and its Function object pointing at it."""
    server = runtime.FunctionServer(
        report, settings.ServerSettings(listen=settings.ListenSettings(address="127.0.0.1:0", insecure=True))
    )
    port = await server.start()
    fn = {
        "apiVersion": "pkg.crossplane.io/v1",
        "kind": "Function",
        "metadata": {
            "name": "function-requirer",
            "annotations": {"crossfn.io/endpoint": f"127.0.0.1:{port}"},
        },
        "spec": {"package": "xpkg.crossplane.io/crossfn-e2e/function-requirer:v0.1.0"},
    }
    await kube.apply(fn, field_manager="e2e", force=True)
    try:
        yield "function-requirer"
    finally:
        await server.stop(0)


@pytest.fixture
async def manager(
    controller_manager: envtest_module.Environment, crossplane_crds: list[str], kube: Any, requirer: str
) -> AsyncIterator[_manager.Manager]:
    for obj in (namespace(NS), namespace(CONTROLLER_NAMESPACE), GADGET_CRD):
        await kube.apply(obj, field_manager="e2e", force=True)
    s = _settings.Settings(
        webhooks=_settings.WebhookSettings(enabled=False),
        cluster=_settings.ClusterSettings(kubeconfig=controller_manager.kubeconfig),
        reconcile=_settings.ReconcileSettings(watch_gc_interval=0.5),
        functions=_settings.FunctionSettings(insecure=True),
        packages=_settings.PackageSettings(runtime="External"),
        observability=_settings.ObservabilitySettings(
            metrics_address="127.0.0.1:0", health_address="127.0.0.1:0"
        ),
    )
    m = _manager.Manager(s)
    await m.start()
    try:
        await m.wait_ready()
        await kube.apply(XRD, field_manager="e2e", force=True)

        async def served() -> bool:
            xrd = await kube.get(
                "apiextensions.crossplane.io/v1", "CompositeResourceDefinition", f"xneeds.{GROUP}"
            )
            return condition(xrd, "Established").get("status") == "True"

        await wait_for(served, timeout=60, what="the XRD Established")
        yield m
    finally:
        await m.stop()


async def compose(
    kube: Any, requirements: dict[str, Any], before: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """A Composition whose reporting step has these bootstrap requirements (after the ``before`` steps), and
    an XR of it; returns the XR."""
    name = f"need-{uuid.uuid4().hex[:6]}"
    composition = {
        "apiVersion": "apiextensions.crossplane.io/v1",
        "kind": "Composition",
        "metadata": {"name": name},
        "spec": {
            "compositeTypeRef": {"apiVersion": XR_API, "kind": "XNeed"},
            "mode": "Pipeline",
            "pipeline": [
                *(before or []),
                {
                    "step": "report",
                    "functionRef": {"name": "function-requirer"},
                    "requirements": requirements,
                },
            ],
        },
    }
    await kube.apply(composition, field_manager="e2e", force=True)
    xr = {
        "apiVersion": XR_API,
        "kind": "XNeed",
        "metadata": {"name": name, "namespace": NS},
        "spec": {"crossplane": {"compositionRef": {"name": name}}},
    }
    await kube.apply(xr, field_manager="e2e", force=True)
    return xr


async def synced(kube: Any, xr: dict[str, Any], status: str) -> dict[str, Any]:
    async def check() -> dict[str, Any] | None:
        got = await kube.get(XR_API, "XNeed", xr["metadata"]["name"], NS)
        return got if condition(got, "Synced").get("status") == status else None

    try:
        found: dict[str, Any] = await wait_for(
            check, timeout=60, what=f"XR {xr['metadata']['name']} Synced={status}"
        )
    except AssertionError as exc:
        got = await kube.get(XR_API, "XNeed", xr["metadata"]["name"], NS)
        raise AssertionError(f"{exc}; its status: {(got or {}).get('status')}") from None
    return found


def _http(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


async def get(m: _manager.Manager, path: str) -> tuple[int, str]:
    port = m.metrics_port if path == "/metrics" else m.health_port
    return await asyncio.to_thread(_http, f"http://127.0.0.1:{port}{path}")


async def test_an_unserved_kind_fails_the_xr(manager: _manager.Manager, kube: Any) -> None:
    """A requirement of a kind the API server does not serve: Synced=False with Crossplane's text, no watch
    on the kind, and the replica stays ready."""
    xr = await compose(
        kube,
        {
            "requiredResources": [
                {"requirementName": "env", "apiVersion": "nope.example.org/v1", "kind": "Nope"}
            ]
        },
    )
    got = await synced(kube, xr, "False")
    assert condition(got, "Synced")["message"] == (
        'cannot compose resources: cannot fetch bootstrap required resources for requirement "env": '
        'cannot list required resources: no matches for kind "Nope" in version "nope.example.org/v1"'
    )
    _, text = await get(manager, "/metrics")
    assert 'kind="Nope"' not in text, "no watch on a kind that is not served"
    assert await get(manager, "/readyz") == (200, "ok\nleader election: off\n")


async def test_selectors_and_bootstrap_schemas(manager: _manager.Manager, kube: Any) -> None:
    """By name, by labels, and neither (every object of the kind); bootstrap schemas, a deep built-in kind's
    among them, and one of an unknown kind (an empty schema, not an error)."""
    cms = [("one", {"pick": "yes"}), ("two", {"pick": "yes"}), ("three", {})]
    for name, labels in cms:
        cm = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": NS, "labels": labels},
        }
        await kube.apply(cm, field_manager="e2e", force=True)
    cm_sel = {"apiVersion": "v1", "kind": "ConfigMap", "namespace": NS}
    xr = await compose(
        kube,
        {
            "requiredResources": [
                {"requirementName": "byName", "name": "three", **cm_sel},
                {"requirementName": "byLabels", "matchLabels": {"pick": "yes"}, **cm_sel},
                {"requirementName": "all", **cm_sel},
            ],
            "requiredSchemas": [
                {"requirementName": "deployment", "apiVersion": "apps/v1", "kind": "Deployment"},
                {"requirementName": "unknown", "apiVersion": "nope.example.org/v1", "kind": "Nope"},
            ],
        },
    )
    got = await synced(kube, xr, "True")
    assert got["status"]["seen"] == {
        "byName": ["three"],
        "byLabels": ["one", "two"],
        "all": sorted(["one", "two", "three", *await _other_configmaps(kube)]),
    }
    assert got["status"]["schemas"] == {"deployment": True, "unknown": False}


async def _other_configmaps(kube: Any) -> list[str]:
    """ConfigMaps the API server makes in every namespace itself (kube-root-ca.crt), if any."""
    items, _ = await kube.list("v1", "ConfigMap", NS)
    return [i["metadata"]["name"] for i in items if i["metadata"]["name"] not in ("one", "two", "three")]


async def test_watches_end_and_readiness_never_waits_on_them(manager: _manager.Manager, kube: Any) -> None:
    """A requirement's kind is watched while an XR needs it; deleted, the watch ends at the next collection.
    Its CRD removed while watched, ``/readyz`` stays ok."""
    controller = f'controller="composite/xneeds.{GROUP}",type="Dependency"'
    xr = await compose(
        kube,
        {
            "requiredResources": [
                {"requirementName": "g", "apiVersion": XR_API, "kind": "Gadget", "namespace": NS}
            ]
        },
    )
    await synced(kube, xr, "True")

    async def watching() -> bool:
        _, text = await get(manager, "/metrics")
        return f'crossfn_watch_synced{{api_version="{XR_API}",kind="Gadget"}} 1.0' in text

    await wait_for(watching, timeout=30, what="a synced watch on Gadgets")
    await kube.delete("apiextensions.k8s.io/v1", "CustomResourceDefinition", GADGETS)

    async def crd_gone() -> bool:
        return await kube.get("apiextensions.k8s.io/v1", "CustomResourceDefinition", GADGETS) is None

    await wait_for(crd_gone, timeout=30, what="the Gadget CRD gone")
    await asyncio.sleep(1.0)  # the watch fails and retries meanwhile
    assert await get(manager, "/readyz") == (200, "ok\nleader election: off\n"), (
        "a dependency watch never gates"
    )
    await kube.delete(XR_API, "XNeed", xr["metadata"]["name"], NS)

    async def collected() -> bool:
        _, text = await get(manager, "/metrics")
        return 'kind="Gadget"' not in text and f"engine_watches_stopped_total{{{controller}}} 1.0" in text

    await wait_for(collected, timeout=30, what="the Gadget watch collected and counted as stopped")
    _, text = await get(manager, "/metrics")
    assert f"engine_watches_started_total{{{controller}}}" in text
    await kube.apply(GADGET_CRD, field_manager="e2e", force=True)


ENV_CONFIGS = "xpkg.crossplane.io/crossplane-contrib/function-environment-configs:v0.7.1"


async def test_environment_configs(manager: _manager.Manager, kube: Any) -> None:
    """EnvironmentConfigs are served (crossfn's CRD) and reach function-environment-configs (the built-in at
    v0.7.1) through required resources, by name and by labels; its merged environment is in the context of
    the next step."""
    fn = {"apiVersion": "pkg.crossplane.io/v1", "kind": "Function", "metadata": {"name": "function-environment-configs"},
          "spec": {"package": ENV_CONFIGS}}  # fmt: skip
    await kube.apply(fn, field_manager="e2e", force=True)
    configs = [
        ("base", {}, {"region": "us-east-2", "size": "small"}),
        ("blue", {"team": "blue"}, {"size": "large"}),
    ]
    for name, labels, data in configs:
        env = {"apiVersion": "apiextensions.crossplane.io/v1beta1", "kind": "EnvironmentConfig",
               "metadata": {"name": name, "labels": labels}, "data": data}  # fmt: skip
        await kube.apply(env, field_manager="e2e", force=True)
    step = {
        "step": "environment",
        "functionRef": {"name": "function-environment-configs"},
        "input": {
            "apiVersion": "environmentconfigs.fn.crossplane.io/v1beta1",
            "kind": "Input",
            "spec": {
                "environmentConfigs": [
                    {"type": "Reference", "ref": {"name": "base"}},
                    {
                        "type": "Selector",
                        "selector": {"matchLabels": [{"key": "team", "type": "Value", "value": "blue"}]},
                    },
                ]
            },
        },
    }
    xr = await compose(kube, {}, before=[step])
    got = await synced(kube, xr, "True")

    async def merged() -> dict[str, Any] | None:
        found = await kube.get(XR_API, "XNeed", xr["metadata"]["name"], NS)
        return ((found or {}).get("status") or {}).get("env")

    env = await wait_for(merged, timeout=60, what="the merged environment in the XR's status")
    assert env == {
        "apiVersion": "internal.crossplane.io/v1alpha1",
        "kind": "Environment",
        "region": "us-east-2",
        "size": "large",
    }, "base, then the selected config over it"
    assert condition(got, "Synced")["status"] == "True"
