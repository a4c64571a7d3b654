"""The per-XRD ClusterRoles of the RBAC manager
(upstream controllers-7.1): rendering, applying, and aggregation into crossfn's role."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from crossfn.controller.kube import _api
from crossfn.controller.rbac import _rbac

from .fake_api import FakeApi

RBAC = "rbac.authorization.k8s.io/v1"
CRD = "apiextensions.k8s.io/v1"


def _xrd(*, claims: bool, name: str = "xbuckets.example.org", group: str = "example.org") -> dict[str, Any]:
    spec: dict[str, Any] = {"group": group, "names": {"kind": "XBucket", "plural": "xbuckets"}}
    if claims:
        spec["claimNames"] = {"kind": "Bucket", "plural": "buckets"}
    return {
        "apiVersion": "apiextensions.crossplane.io/v1",
        "kind": "CompositeResourceDefinition",
        "metadata": {"name": name, "uid": "xrd-uid"},
        "spec": spec,
    }


def _crds(xrd: Mapping[str, Any], *, uid: str = "xrd-uid") -> list[dict[str, Any]]:
    """The CRDs the XRD controller made for ``xrd``, controlled by ``uid``."""
    spec = xrd["spec"]
    plurals = [spec["names"]["plural"]] + ([spec["claimNames"]["plural"]] if "claimNames" in spec else [])
    return [
        {
            "apiVersion": CRD, "kind": "CustomResourceDefinition",
            "metadata": {"name": f"{p}.{spec['group']}",
                         "ownerReferences": [{"uid": uid, "controller": True, "kind": "CompositeResourceDefinition",
                                              "apiVersion": "apiextensions.crossplane.io/v1",
                                              "name": xrd["metadata"]["name"]}]},
            "spec": {"group": spec["group"], "names": {"plural": p, "kind": p.title()}, "scope": "Cluster",
                     "versions": [{"name": "v1", "served": True, "storage": True,
                                   "schema": {"openAPIV3Schema": {"type": "object"}}}]},
        }
        for p in plurals
    ]  # fmt: skip


def _owned(api: FakeApi, xrd: Mapping[str, Any]) -> FakeApi:
    for crd in _crds(xrd):
        api.put(crd)
    return api


def _rules(roles: list[dict[str, Any]]) -> dict[str, list[tuple[list[str], list[str]]]]:
    return {
        r["metadata"]["name"].rsplit(":", 1)[1]: [(x["resources"], x["verbs"]) for x in r["rules"]]
        for r in roles
    }


def test_roles_of_an_xrd_with_claims() -> None:
    roles = _rbac.render_cluster_roles(_xrd(claims=True))
    assert [r["metadata"]["name"] for r in roles] == [
        f"crossplane:composite:xbuckets.example.org:aggregate-to-{s}"
        for s in ("crossplane", "edit", "view", "browse")
    ]
    assert [sorted(r["metadata"]["labels"]) for r in roles] == [
        ["rbac.crossplane.io/aggregate-to-crossplane"],
        [f"rbac.crossplane.io/aggregate-to-{s}" for s in ("admin", "edit", "ns-admin", "ns-edit")],
        ["rbac.crossplane.io/aggregate-to-ns-view", "rbac.crossplane.io/aggregate-to-view"],
        ["rbac.crossplane.io/aggregate-to-browse"],
    ]
    read = ["get", "list", "watch"]
    assert _rules(roles) == {
        "aggregate-to-crossplane": [
            (["xbuckets", "xbuckets/status"], ["*"]), (["xbuckets/finalizers"], ["update"]),
            (["buckets", "buckets/status"], ["*"]), (["buckets/finalizers"], ["update"]),
        ],
        "aggregate-to-edit": [(["xbuckets", "xbuckets/status"], ["*"]), (["buckets", "buckets/status"], ["*"])],
        "aggregate-to-view": [(["xbuckets", "xbuckets/status"], read), (["buckets", "buckets/status"], read)],
        "aggregate-to-browse": [(["xbuckets", "xbuckets/status"], read)],
    }  # fmt: skip
    assert all(x["apiGroups"] == ["example.org"] for r in roles for x in r["rules"])
    assert all(
        r["metadata"]["ownerReferences"]
        == [{"apiVersion": "apiextensions.crossplane.io/v1", "kind": "CompositeResourceDefinition",
             "name": "xbuckets.example.org", "uid": "xrd-uid", "controller": True, "blockOwnerDeletion": True}]
        for r in roles
    )  # fmt: skip


def test_roles_of_an_xrd_without_claims_have_no_claim_rules() -> None:
    assert _rules(_rbac.render_cluster_roles(_xrd(claims=False)))["aggregate-to-crossplane"] == [
        (["xbuckets", "xbuckets/status"], ["*"]),
        (["xbuckets/finalizers"], ["update"]),
    ]


@pytest.mark.parametrize(
    ("names", "want"),
    [
        (["c", "a", "b"], "Applied RBAC ClusterRoles: a, b, c"),
        (["e", "d", "c", "b", "a"], "Applied RBAC ClusterRoles: a, b, c, and 2 more"),
    ],
    ids=["three", "five"],
)
def test_applied_message(names: list[str], want: str) -> None:
    assert _rbac.applied_message(names) == want


class Cache:
    def __init__(self, objects: list[dict[str, Any]]) -> None:
        self.objects = objects
        self.handlers: list[Callable[[str, dict[str, Any], dict[str, Any] | None], None]] = []

    def get(self, name: str, namespace: str = "") -> dict[str, Any] | None:
        return next((o for o in self.objects if o["metadata"]["name"] == name), None)

    def list(
        self, namespace: str | None = None, labels: Mapping[str, str] | None = None
    ) -> list[dict[str, Any]]:
        return list(self.objects)

    def add_handler(self, fn: Callable[[str, dict[str, Any], dict[str, Any] | None], None]) -> None:
        self.handlers.append(fn)


class Events:
    def __init__(self) -> None:
        self.recorded: list[tuple[str, str, str]] = []

    async def event(self, obj: Mapping[str, Any], type: str, reason: str, message: str) -> None:
        self.recorded.append((type, reason, message))


async def test_reconcile_creates_then_leaves_alone_then_repairs() -> None:
    api = _owned(FakeApi(scopes={(RBAC, "ClusterRole"): False}), _xrd(claims=True))
    events = Events()
    reconciler = _rbac.RbacReconciler(api, Cache([_xrd(claims=True)]), events)
    await reconciler.reconcile("xbuckets.example.org")
    assert len(api.of_kind("ClusterRole")) == 4
    assert events.recorded == [
        ("Normal", "ApplyClusterRoles", "Applied RBAC ClusterRoles: crossplane:composite:xbuckets.example.org:"
         "aggregate-to-browse, crossplane:composite:xbuckets.example.org:aggregate-to-crossplane, "
         "crossplane:composite:xbuckets.example.org:aggregate-to-edit, and 1 more"),
    ]  # fmt: skip
    api.calls.clear()
    await reconciler.reconcile("xbuckets.example.org")
    assert api.writes() == [], "nothing differs: no update"
    name = "crossplane:composite:xbuckets.example.org:aggregate-to-view"
    role = api.objects[(RBAC, "ClusterRole", "", name)]
    role["rules"] = []
    role["metadata"]["labels"]["team"] = "a"
    await reconciler.reconcile("xbuckets.example.org")
    repaired = api.objects[(RBAC, "ClusterRole", "", name)]
    assert len(repaired["rules"]) == 2 and repaired["metadata"]["labels"]["team"] == "a"
    assert events.recorded[-1] == ("Normal", "ApplyClusterRoles", f"Applied RBAC ClusterRoles: {name}")


async def test_a_role_controlled_by_someone_else_is_a_warning() -> None:
    api = _owned(FakeApi(scopes={(RBAC, "ClusterRole"): False}), _xrd(claims=False))
    api.put({
        "apiVersion": RBAC, "kind": "ClusterRole",
        "metadata": {"name": "crossplane:composite:xbuckets.example.org:aggregate-to-crossplane",
                     "ownerReferences": [{"uid": "other", "controller": True}]},
        "rules": [],
    })  # fmt: skip
    events = Events()
    with pytest.raises(_api.ApiError):
        await _rbac.RbacReconciler(api, Cache([_xrd(claims=False)]), events).reconcile("xbuckets.example.org")
    assert events.recorded == [
        (
            "Warning",
            "ApplyClusterRoles",
            'cannot apply ClusterRoles: existing object is not controlled by UID "xrd-uid"',
        )
    ]


def _foreign_crds(uid: str) -> Callable[[dict[str, Any]], list[dict[str, Any]]]:
    return lambda xrd: _crds(xrd, uid=uid)


@pytest.mark.parametrize(
    ("xrd", "crds"),
    [
        pytest.param(_xrd(claims=True), lambda xrd: [], id="no-crds-yet"),
        pytest.param(_xrd(claims=False), _foreign_crds("someone-else"), id="crd-controlled-by-another"),
        pytest.param(_xrd(claims=False), lambda xrd: [_uncontrolled(c) for c in _crds(xrd)], id="crd-of-no-one"),
        pytest.param(_xrd(claims=True), lambda xrd: _crds(xrd)[:1], id="claim-crd-missing"),
        pytest.param(
            _xrd(claims=False, name="clusterrolebindings.rbac.authorization.k8s.io", group="rbac.authorization.k8s.io"),
            _crds, id="kubernetes-group-even-when-controlled",
        ),
    ],
)  # fmt: skip
async def test_no_roles_for_kinds_the_xrd_does_not_own(
    xrd: dict[str, Any], crds: Callable[[dict[str, Any]], list[dict[str, Any]]]
) -> None:
    """--manage-rbac grants nothing for a kind the XRD controller did not define: a built-in kind (an XRD
    named clusterrolebindings.rbac.authorization.k8s.io got `*` on every ClusterRoleBinding), a CRD
    someone else installed, or CRDs not made yet (they follow once established)."""
    api = FakeApi(scopes={(RBAC, "ClusterRole"): False})
    for crd in crds(xrd):
        api.put(crd)
    await _rbac.RbacReconciler(api, Cache([xrd]), Events()).reconcile(xrd["metadata"]["name"])
    assert api.of_kind("ClusterRole") == []


def _uncontrolled(crd: dict[str, Any]) -> dict[str, Any]:
    crd["metadata"].pop("ownerReferences")
    return crd


async def test_deleting_xrd_is_skipped() -> None:
    api = FakeApi(scopes={(RBAC, "ClusterRole"): False})
    xrd = _xrd(claims=True)
    xrd["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    await _rbac.RbacReconciler(api, Cache([xrd])).reconcile("xbuckets.example.org")
    assert api.calls == []


@pytest.mark.cluster
async def test_roles_apply_to_the_api_server(kube: Any, crossplane_crds: list[str]) -> None:
    group = f"{uuid.uuid4().hex[:8]}.example.org"
    body = _xrd(claims=True, name=f"xbuckets.{group}", group=group)
    body["metadata"] = {"name": f"xbuckets.{group}"}
    body["spec"]["versions"] = [{"name": "v1", "served": True, "referenceable": True}]
    xrd = await kube.create(body)
    for crd in _crds(xrd, uid=xrd["metadata"]["uid"]):
        await kube.create(crd)
    name = f"crossplane:composite:xbuckets.{group}:aggregate-to-crossplane"
    reconciler = _rbac.RbacReconciler(kube, Cache([xrd]))
    try:
        await reconciler.reconcile(xrd["metadata"]["name"])
        for role in _rbac.render_cluster_roles(xrd):
            got = await kube.get(RBAC, "ClusterRole", role["metadata"]["name"])
            assert got is not None and got["rules"] == role["rules"], role["metadata"]["name"]
        before = (await kube.get(RBAC, "ClusterRole", name) or {})["metadata"]["resourceVersion"]
        await reconciler.reconcile(xrd["metadata"]["name"])
        after = (await kube.get(RBAC, "ClusterRole", name) or {})["metadata"]["resourceVersion"]
        assert after == before, "the API server's defaults must not cause an update every reconcile"
    finally:
        for role in _rbac.render_cluster_roles(xrd):
            with contextlib.suppress(_api.NotFound):
                await kube.delete(RBAC, "ClusterRole", role["metadata"]["name"])
        for crd in _crds(xrd):
            with contextlib.suppress(_api.NotFound):
                await kube.delete(CRD, "CustomResourceDefinition", crd["metadata"]["name"])
        await kube.delete(
            "apiextensions.crossplane.io/v1", "CompositeResourceDefinition", xrd["metadata"]["name"]
        )
