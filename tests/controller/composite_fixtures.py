"""Objects shared by the XR reconciler's unit tests: an XRD, a Composition, a revision, functions."""

from __future__ import annotations

import copy
import datetime
from typing import Any

from crossfn import engine
from crossfn.controller.composite import _composite
from crossfn.controller.runtime import _events
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import request, response

from .fake_api import FakeApi

T0 = datetime.datetime(2026, 1, 1, 12, 0, 0, tzinfo=datetime.UTC)
GROUP = "example.org"
XR_API = f"{GROUP}/v1"


def xrd(scope: str = "Namespaced", **spec: Any) -> dict[str, Any]:
    api = "apiextensions.crossplane.io/v1" if scope == "LegacyCluster" else "apiextensions.crossplane.io/v2"
    return {
        "apiVersion": api,
        "kind": "CompositeResourceDefinition",
        "metadata": {"name": f"xbuckets.{GROUP}"},
        "spec": {
            "group": GROUP,
            "names": {"kind": "XBucket", "plural": "xbuckets"},
            "scope": scope,
            "versions": [{"name": "v1", "served": True, "referenceable": True}],
            **spec,
        },
    }


def composition(
    name: str = "c", kind: str = "XBucket", labels: dict[str, str] | None = None
) -> dict[str, Any]:
    return {
        "apiVersion": "apiextensions.crossplane.io/v1",
        "kind": "Composition",
        "metadata": {"name": name, "labels": labels or {}},
        "spec": {"compositeTypeRef": {"apiVersion": XR_API, "kind": kind}, "mode": "Pipeline",
                 "pipeline": [{"step": "s", "functionRef": {"name": "fn"}}]},
    }  # fmt: skip


def revision(
    comp: dict[str, Any],
    number: int = 1,
    *,
    valid: str | None = "True",
    labels: dict[str, str] | None = None,
    **spec: Any,
) -> dict[str, Any]:
    name = comp["metadata"]["name"]
    status = {"conditions": [{"type": "ValidPipeline", "status": valid, "reason": "X"}]} if valid else {}
    return {
        "apiVersion": "apiextensions.crossplane.io/v1",
        "kind": "CompositionRevision",
        "metadata": {
            "name": f"{name}-{number}",
            "labels": {"crossplane.io/composition-name": name, **(labels or {})},
            "ownerReferences": [{"apiVersion": "apiextensions.crossplane.io/v1", "kind": "Composition", "name": name,
                                 "uid": comp["metadata"]["uid"], "controller": True}],
        },
        "spec": {**copy.deepcopy(comp["spec"]), "revision": number, **spec},
        "status": status,
    }  # fmt: skip


def xr(name: str = "b", namespace: str = "team", **spec: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    return {"apiVersion": XR_API, "kind": "XBucket", "metadata": meta, "spec": {"size": "s", **spec}}


def two_configmaps(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    """Desire ConfigMaps ``a`` and ``b`` carrying the XR's spec.size; ``a`` ready."""
    size = ((request.get_observed_composite_resource(req) or {}).get("spec") or {}).get("size", "")
    for name in ("a", "b"):
        response.set_desired_composed_resource(
            rsp,
            name,
            {"apiVersion": "v1", "kind": "ConfigMap", "data": {"size": size}},
            ready=True if name == "a" else None,
        )


class Events:
    """A recorder that keeps (type, reason, message) tuples."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str, str]] = []

    async def event(self, obj: Any, type: str, reason: str, message: str) -> None:
        self.seen.append((type, reason, message))


def setup(
    fn: Any = two_configmaps,
    *,
    the_xrd: dict[str, Any] | None = None,
    realtime: bool = True,
    valid: str | None = "True",
) -> tuple[FakeApi, Events, _composite.CompositeReconciler]:
    """A fake cluster with one Composition and revision, and a reconciler over it."""
    api = FakeApi({(XR_API, "XBucket"): (the_xrd or xrd())["spec"]["scope"] == "Namespaced"})
    comp = api.put(composition())
    api.put(revision(comp, valid=valid))
    rec = Events()
    runner = engine.build_runner(engine.InProcessRunner({"fn": fn}))
    settings = _composite.CompositeSettings(realtime=realtime)
    reconciler = _composite.CompositeReconciler(
        api, None, rec, runner, engine.Sources(), xrd=the_xrd or xrd(), settings=settings, clock=lambda: T0
    )
    return api, rec, reconciler


_recorder_is_a_recorder: _events.Recorder = Events()
