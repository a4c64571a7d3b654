"""The objects ``crossfn trace``'s cluster tests trace: a claim, XRs of both schemas, nested XRs, composed resources.

They are written straight to the API server, as Crossplane would have left them
(references, conditions, annotations), so the tree and every condition are
the same on every run: no controller runs. Kinds are test CRDs of group
``trace.crossfn.io``:

* ``Network`` (a claim, namespaced) -> ``XNetwork`` ``prod-x7k2p`` (a legacy XR,
  cluster scoped, ``spec.resourceRefs``) -> a Ready ``Gateway``, a ``Gateway``
  being deleted, a nested ``XNetwork`` with a failing ``Gateway``, and a
  reference to a ``Gateway`` that does not exist; both have connection Secrets;
* ``XApp`` ``web`` (a Crossplane v2 XR, namespaced, ``spec.crossplane.resourceRefs``)
  -> two ``Subnet`` objects (one with no conditions) and a nested ``XApp``;
  ``XApp`` ``api`` has nothing composed.
"""

from __future__ import annotations

import asyncio
from typing import Any

from crossfn.controller.kube import _api, _kube

GROUP = "trace.crossfn.io"
API = f"{GROUP}/v1"
NAMESPACE = "trace-demo"
RESOURCE_NAME = "crossplane.io/composition-resource-name"
_FREE = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}


def _crd(kind: str, plural: str, scope: str, short_names: tuple[str, ...] = ()) -> dict[str, Any]:
    names: dict[str, Any] = {
        "kind": kind,
        "plural": plural,
        "singular": kind.lower(),
        "listKind": f"{kind}List",
    }
    if short_names:
        names["shortNames"] = list(short_names)
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{GROUP}"},
        "spec": {
            "group": GROUP,
            "names": names,
            "scope": scope,
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "subresources": {"status": {}},
                    "schema": {
                        "openAPIV3Schema": {"type": "object", "properties": {"spec": _FREE, "status": _FREE}}
                    },
                }
            ],
        },
    }


CRDS = [
    _crd("Network", "networks", "Namespaced"),
    _crd("XNetwork", "xnetworks", "Cluster"),
    _crd("Gateway", "gateways", "Cluster"),
    _crd("XApp", "xapps", "Namespaced"),
    _crd("Subnet", "subnets", "Namespaced", ("sn",)),
]

T0 = "2026-11-20T10:00:00Z"


def condition(type_: str, status: str, reason: str, message: str = "") -> dict[str, Any]:
    c = {"type": type_, "status": status, "reason": reason, "lastTransitionTime": T0}
    if message:
        c["message"] = message
    return c


def _ok() -> list[dict[str, Any]]:
    return [condition("Synced", "True", "ReconcileSuccess"), condition("Ready", "True", "Available")]


def _obj(kind: str, name: str, *, namespace: str = "", resource_name: str = "", spec: dict[str, Any] | None = None,
         status: list[dict[str, Any]] | None = None) -> dict[str, Any]:  # fmt: skip
    metadata: dict[str, Any] = {"name": name}
    if namespace:
        metadata["namespace"] = namespace
    if resource_name:
        metadata["annotations"] = {RESOURCE_NAME: resource_name}
    obj: dict[str, Any] = {"apiVersion": API, "kind": kind, "metadata": metadata, "spec": spec or {}}
    if status is not None:
        obj["status"] = {"conditions": status}
    return obj


def _ref(kind: str, name: str) -> dict[str, str]:
    return {"apiVersion": API, "kind": kind, "name": name}


INNER_FAILURE = (
    'cannot compose resources: cannot apply composed resource "gateway": Gateway.trace.crossfn.io '
    '"prod-inner-gw" is invalid: spec.zone: Unsupported value: "mars-1": supported values: "eu-1", "us-1"'
)

OBJECTS: list[dict[str, Any]] = [
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}},
    {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "prod-conn", "namespace": NAMESPACE},
     "data": {"endpoint": "MTAuMC4wLjE="}},
    {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "prod-x7k2p", "namespace": NAMESPACE},
     "data": {"endpoint": "MTAuMC4wLjE="}},
    _obj("Network", "prod", namespace=NAMESPACE,
         spec={"resourceRef": _ref("XNetwork", "prod-x7k2p"), "writeConnectionSecretToRef": {"name": "prod-conn"}},
         status=[condition("Synced", "True", "ReconcileSuccess"),
                 condition("Ready", "False", "Waiting", "Claim is waiting for composite resource to become Ready")]),
    _obj("XNetwork", "prod-x7k2p",
         spec={"resourceRefs": [_ref("Gateway", "prod-gw"), _ref("XNetwork", "prod-x7k2p-inner"),
                                _ref("Gateway", "prod-old"), _ref("Gateway", "prod-gone")],
               "writeConnectionSecretToRef": {"name": "prod-x7k2p", "namespace": NAMESPACE}},
         status=[condition("Synced", "True", "ReconcileSuccess"),
                 condition("Ready", "False", "Creating", "Unready resources: inner, old")]),
    _obj("Gateway", "prod-gw", resource_name="gateway", status=_ok()),
    _obj("Gateway", "prod-old", resource_name="old", status=_ok()),
    _obj("XNetwork", "prod-x7k2p-inner", resource_name="inner",
         spec={"resourceRefs": [_ref("Gateway", "prod-inner-gw")]},
         status=[condition("Synced", "False", "ReconcileError", INNER_FAILURE),
                 condition("Ready", "False", "Creating", "Unready resources: gateway")]),
    _obj("Gateway", "prod-inner-gw", resource_name="gateway",
         status=[condition("Ready", "False", "Creating", "Waiting for the zone to be supported — retrying")]),
    _obj("XApp", "web", namespace=NAMESPACE,
         spec={"crossplane": {"resourceRefs": [_ref("Subnet", "web-b"), _ref("XApp", "web-db"), _ref("Subnet", "web-a")]}},
         status=[condition("Synced", "False", "ReconcileError", "cannot compose resources: pipeline step \"db\" returned a fatal result"),
                 condition("Ready", "False", "Creating", "Unready resources: subnet-b")]),
    _obj("Subnet", "web-a", namespace=NAMESPACE, resource_name="subnet-a", status=_ok()),
    _obj("Subnet", "web-b", namespace=NAMESPACE, resource_name="subnet-b"),
    _obj("XApp", "web-db", namespace=NAMESPACE, resource_name="db",
         spec={"crossplane": {"resourceRefs": [_ref("Subnet", "web-db-1")]}}, status=_ok()),
    _obj("Subnet", "web-db-1", namespace=NAMESPACE, resource_name="subnet", status=_ok()),
    _obj("XApp", "api", namespace=NAMESPACE, status=_ok()),
]  # fmt: skip


async def install(kubeconfig: str) -> None:
    """Write the CRDs and objects (again: applying the same objects changes nothing), ``prod-old`` being deleted."""
    api = _kube.KubeApi.from_kubeconfig(kubeconfig, field_manager="trace-test")
    try:
        for crd in CRDS:
            await api.apply(crd, field_manager="trace-test")
        for obj in OBJECTS:
            await _apply(api, obj)
        old = await api.get(API, "Gateway", "prod-old")
        if old is not None and not old["metadata"].get("deletionTimestamp"):
            await api.patch(
                API, "Gateway", "prod-old", "", {"metadata": {"finalizers": ["trace.crossfn.io/keep"]}}
            )
            await api.delete(API, "Gateway", "prod-old")
    finally:
        await api.close()


async def _apply(api: _kube.KubeApi, obj: dict[str, Any]) -> None:
    """Apply ``obj`` and then its status, retrying while a new CRD's kind is not served yet."""
    obj = dict(obj)
    status = obj.pop("status", None)
    for _ in range(100):
        try:
            await api.apply(obj, field_manager="trace-test")
            if status is not None:
                await api.apply({**obj, "status": status}, field_manager="trace-test", status=True)
            break
        except (_api.NoKindMatch, _api.NotFound):
            await asyncio.sleep(0.1)
    else:
        raise AssertionError(f"cannot create {obj['kind']} {obj['metadata']['name']}")
