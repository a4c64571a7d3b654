"""A legacy XRD with a claim on the real API server, and both reconcilers driven by hand (cluster tests).

``ClaimWorld`` installs the XR and claim CRDs of one v1 XRD, a cluster-scoped
composed kind whose spec keeps any field (so ``writeConnectionSecretToRef``
survives pruning), a Composition with a valid revision publishing connection
Secrets to a per-test namespace, and builds a
:class:`~crossfn.controller.composite._composite.CompositeReconciler` and a
:class:`~crossfn.controller.claim._claims.ClaimReconciler` over it. Tests call
``reconcile_claim`` / ``reconcile_xr`` in the order the watches would.
"""

from __future__ import annotations

import copy
import uuid
from typing import Any

from crossfn import engine, functions
from crossfn.controller.claim import _claims
from crossfn.controller.composite import _composite, _selection, _sources
from crossfn.controller.runtime import _events
from crossfn.schemas import xrd as xrd_schemas

from .test_composite import FIELD_MANAGER, apply_crd

GROUP = "h3claims.example.org"
COMPOSED_GROUP = "h3claimed.example.org"
XR_KIND = "XH3Database"
CLAIM_KIND = "H3Database"
API_VERSION = f"{GROUP}/v1"
COMPOSED_API = f"{COMPOSED_GROUP}/v1"
COMPOSED_KIND = "H3Instance"


def the_xrd(connection_keys: list[str] | None = None) -> dict[str, Any]:
    schema = {
        "type": "object",
        "properties": {
            "spec": {"type": "object", "properties": {"size": {"type": "string"}}},
            "status": {"type": "object", "properties": {"address": {"type": "string"}}},
        },
    }
    spec: dict[str, Any] = {
        "group": GROUP,
        "names": {"kind": XR_KIND, "plural": "xh3databases"},
        "claimNames": {"kind": CLAIM_KIND, "plural": "h3databases"},
        "versions": [
            {"name": "v1", "served": True, "referenceable": True, "schema": {"openAPIV3Schema": schema}}
        ],
    }
    if connection_keys is not None:
        spec["connectionSecretKeys"] = connection_keys
    return {
        "apiVersion": "apiextensions.crossplane.io/v1",
        "kind": "CompositeResourceDefinition",
        "metadata": {"name": f"xh3databases.{GROUP}", "uid": "xrd-uid"},
        "spec": spec,
    }


def composed_crd() -> dict[str, Any]:
    schema = {
        "type": "object",
        "properties": {
            "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
            "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
        },
    }
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"h3instances.{COMPOSED_GROUP}"},
        "spec": {
            "group": COMPOSED_GROUP,
            "names": {"kind": COMPOSED_KIND, "plural": "h3instances", "singular": "h3instance", "listKind": "H3InstanceList"},
            "scope": "Cluster",
            "versions": [{"name": "v1", "served": True, "storage": True, "subresources": {"status": {}},
                          "schema": {"openAPIV3Schema": schema}}],
        },
    }  # fmt: skip


class ClaimWorld:
    """One test's namespaces, Composition and reconcilers (see the module docstring)."""

    def __init__(self, kube: Any, namespace: str, *, connection_keys: list[str] | None = None) -> None:
        self.kube = kube
        self.namespace = namespace
        self.secrets_namespace = f"{namespace}-sys"
        self.composition = f"h3-claims-{uuid.uuid4().hex[:6]}"
        self.xrd = the_xrd(connection_keys)
        runner = engine.build_runner(engine.InProcessRunner({
            "function-patch-and-transform": functions.load("patch-and-transform"),
            "function-auto-ready": functions.load("auto-ready"),
        }))  # fmt: skip
        self.recorder = recorder = _events.EventRecorder(kube, "crossfn/h3-test")
        self.xr_reconciler = _composite.CompositeReconciler(
            kube, None, recorder, runner, _sources.api_sources(kube, None), xrd=self.xrd,
            settings=_composite.CompositeSettings(),
        )  # fmt: skip
        self.claim_reconciler = _claims.ClaimReconciler(kube, None, recorder, xrd=self.xrd)

    async def start(self, resources: list[dict[str, Any]] | None = None) -> None:
        await apply_crd(self.kube, xrd_schemas.crd_from_xrd(self.xrd))
        claim_crd = xrd_schemas.claim_crd_from_xrd(self.xrd)
        assert claim_crd is not None
        await apply_crd(self.kube, claim_crd)
        await apply_crd(self.kube, composed_crd())
        for ns in (self.namespace, self.secrets_namespace):
            await self.kube.apply(
                {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}},
                field_manager=FIELD_MANAGER,
            )
        await self.publish(resources or [self.instance()])

    def instance(self, name: str = "instance", **extra: Any) -> dict[str, Any]:
        """A P&T resource: the XR's spec.size patched onto an instance."""
        return {
            "name": name,
            "base": {"apiVersion": COMPOSED_API, "kind": COMPOSED_KIND, "spec": {"size": "s"}},
            "patches": [
                {"type": "FromCompositeFieldPath", "fromFieldPath": "spec.size", "toFieldPath": "spec.size"}
            ],
            **extra,
        }

    async def publish(self, resources: list[dict[str, Any]]) -> None:
        pt = {"apiVersion": "pt.fn.crossplane.io/v1beta1", "kind": "Resources", "resources": resources}
        spec = {
            "compositeTypeRef": {"apiVersion": API_VERSION, "kind": XR_KIND},
            "mode": "Pipeline",
            "writeConnectionSecretsToNamespace": self.secrets_namespace,
            "pipeline": [{"step": "pt", "functionRef": {"name": "function-patch-and-transform"}, "input": pt},
                         {"step": "ready", "functionRef": {"name": "function-auto-ready"}}],
        }  # fmt: skip
        comp = await self.kube.apply(
            {"apiVersion": "apiextensions.crossplane.io/v1", "kind": "Composition", "metadata": {"name": self.composition}, "spec": spec},
            field_manager=FIELD_MANAGER, force=True,
        )  # fmt: skip
        rev = {
            "apiVersion": "apiextensions.crossplane.io/v1", "kind": "CompositionRevision",
            "metadata": {"name": f"{self.composition}-1", "labels": {_selection.LABEL_COMPOSITION_NAME: self.composition},
                         "ownerReferences": [{"apiVersion": "apiextensions.crossplane.io/v1", "kind": "Composition",
                                              "name": self.composition, "uid": comp["metadata"]["uid"],
                                              "controller": True, "blockOwnerDeletion": True}]},
            "spec": {**copy.deepcopy(spec), "revision": 1},
        }  # fmt: skip
        await self.kube.apply(rev, field_manager=FIELD_MANAGER, force=True)
        rev["status"] = {"conditions": [{"type": "ValidPipeline", "status": "True", "reason": "ValidPipeline",
                                         "lastTransitionTime": "2026-01-01T00:00:00Z"}]}  # fmt: skip
        await self.kube.apply(rev, field_manager=FIELD_MANAGER, force=True, status=True)

    async def create_claim(
        self, name: str, labels: dict[str, str] | None = None, **spec: Any
    ) -> dict[str, Any]:
        meta: dict[str, Any] = {"name": name, "namespace": self.namespace}
        if labels:
            meta["labels"] = labels
        body = {"apiVersion": API_VERSION, "kind": CLAIM_KIND, "metadata": meta,
                "spec": {"size": "s", "compositionRef": {"name": self.composition}, **spec}}  # fmt: skip
        created: dict[str, Any] = await self.kube.create(body)
        return created

    async def claim(self, name: str) -> dict[str, Any] | None:
        found: dict[str, Any] | None = await self.kube.get(API_VERSION, CLAIM_KIND, name, self.namespace)
        return found

    async def xr_of(self, claim_name: str) -> dict[str, Any] | None:
        claim = await self.claim(claim_name)
        ref = ((claim or {}).get("spec") or {}).get("resourceRef") or {}
        if not ref.get("name"):
            return None
        return await self.xr(ref["name"])

    async def xr(self, name: str) -> dict[str, Any] | None:
        found: dict[str, Any] | None = await self.kube.get(API_VERSION, XR_KIND, name)
        return found

    async def composed(self, xr_name: str) -> list[dict[str, Any]]:
        items, _ = await self.kube.list(
            COMPOSED_API, COMPOSED_KIND, labels={"crossplane.io/composite": xr_name}
        )
        return list(items)

    async def events(self, name: str, namespace: str) -> list[tuple[str, str, str]]:
        await self.recorder.flush()
        items, _ = await self.kube.list("v1", "Event", namespace)
        return [
            (e["type"], e["reason"], e["message"]) for e in items if e["involvedObject"].get("name") == name
        ]

    async def raw_events(self, name: str, namespace: str) -> list[dict[str, Any]]:
        """The Events about object ``name`` in ``namespace``, whole (source, annotations)."""
        await self.recorder.flush()
        items, _ = await self.kube.list("v1", "Event", namespace)
        return [e for e in items if e["involvedObject"].get("name") == name]

    async def reconcile_claim(self, name: str) -> Any:
        return await self.claim_reconciler.reconcile(f"{self.namespace}/{name}")

    async def reconcile_xr(self, name: str) -> Any:
        return await self.xr_reconciler.reconcile(name)

    async def settle(self, claim_name: str, rounds: int = 2) -> dict[str, Any]:
        """Claim, XR, claim...: what the two controllers' watches would do."""
        for _ in range(rounds):
            await self.reconcile_claim(claim_name)
            xr = await self.xr_of(claim_name)
            assert xr is not None, "the claim has an XR"
            await self.reconcile_xr(xr["metadata"]["name"])
        await self.reconcile_claim(claim_name)
        xr = await self.xr_of(claim_name)
        assert xr is not None
        return xr
