"""Usages (Crossplane's ``protection``): the view, the finder, the reconciler over a fake API server, and the
webhook's review, in tables; the same against a real API server calling the webhook is test_usages_e2e."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
from typing import Any

import pytest

from crossfn.controller.kube import _api
from crossfn.controller.protection import _reconciler, _usages, _webhook

from .fake_api import FakeApi
from .fake_informers import FakeCache

T0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
P = "protection.crossplane.io/v1beta1"
LEGACY = "apiextensions.crossplane.io/v1beta1"


def usage(
    name: str = "u",
    *,
    kind: str = "Usage",
    api_version: str = P,
    namespace: str = "team",
    of: dict[str, Any] | None = None,
    by: dict[str, Any] | None = None,
    reason: str | None = None,
    replay: bool = False,
    labels: dict[str, str] | None = None,
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "of": of or {"apiVersion": "v1", "kind": "ConfigMap", "resourceRef": {"name": "cm"}}
    }
    if by is not None:
        spec["by"] = by
    if reason is not None:
        spec["reason"] = reason
    if replay:
        spec["replayDeletion"] = True
    meta: dict[str, Any] = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    if labels:
        meta["labels"] = labels
    return {"apiVersion": api_version, "kind": kind, "metadata": meta, "spec": spec}


def cm(name: str = "cm", namespace: str = "team", **labels: str) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": namespace}
    if labels:
        meta["labels"] = dict(labels)
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta}


BY_SECRET = {"apiVersion": "v1", "kind": "Secret", "resourceRef": {"name": "app"}}


@pytest.mark.parametrize(
    ("reason", "u", "want"),
    [
        pytest.param("a reason is the details", usage(reason="keep it"), "keep it", id="Reason"),
        pytest.param("who uses what", usage(by=BY_SECRET), "Secret/app uses ConfigMap/cm", id="By"),
        pytest.param(
            "another namespace is named",
            usage(
                by=BY_SECRET,
                of={
                    "apiVersion": "v1",
                    "kind": "ConfigMap",
                    "resourceRef": {"name": "cm", "namespace": "other"},
                },
            ),
            "Secret/app uses ConfigMap/cm in namespace other",
            id="ByAcrossNamespaces",
        ),
        pytest.param("neither", usage(), "undefined", id="Neither"),
    ],
)
def test_details(reason: str, u: dict[str, Any], want: str) -> None:
    assert _usages.details(_usages.Usage(u)) == want, reason


@pytest.mark.parametrize(
    ("reason", "usages", "want"),
    [
        pytest.param(
            "a namespaced Usage with a user",
            [usage(by=BY_SECRET), usage("u2")],
            'This resource is in-use by 2 usage(s), including the *v1beta1.Usage "u" (in namespace "team") '
            "by resource Secret/app.",
            id="By",
        ),
        pytest.param(
            "a ClusterUsage with a reason",
            [usage(kind="ClusterUsage", namespace="", reason="the database")],
            'This resource is in-use by 1 usage(s), including the *v1beta1.ClusterUsage "u" with reason: "the database".',
            id="Reason",
        ),
        pytest.param(
            "a legacy Usage with neither",
            [usage(api_version=LEGACY, namespace="")],
            'This resource is in-use by 1 usage(s), including the *v1beta1.Usage "u".',
            id="Neither",
        ),
    ],
)
def test_in_use_message(reason: str, usages: list[dict[str, Any]], want: str) -> None:
    assert _usages.in_use_message([_usages.Usage(u) for u in usages]) == want, reason


def finder(*usages: dict[str, Any]) -> _usages.Finder:
    caches = {k: FakeCache([u for u in usages if (u["apiVersion"], u["kind"]) == k]) for k in _usages.KINDS}
    return _usages.Finder(caches)


@pytest.mark.parametrize(
    ("reason", "u", "obj", "found"),
    [
        pytest.param("a Usage of an object in its namespace", usage(), cm(), True, id="SameNamespace"),
        pytest.param("not in another namespace", usage(), cm(namespace="other"), False, id="OtherNamespace"),
        pytest.param(
            "one naming another namespace",
            usage(
                of={
                    "apiVersion": "v1",
                    "kind": "ConfigMap",
                    "resourceRef": {"name": "cm", "namespace": "other"},
                }
            ),
            cm(namespace="other"),
            True,
            id="NamedNamespace",
        ),
        pytest.param(
            "a ClusterUsage matches the name in any namespace, as Crossplane's index",
            usage(kind="ClusterUsage", namespace=""),
            cm(namespace="anywhere"),
            True,
            id="ClusterUsageAnyNamespace",
        ),
        pytest.param(
            "the group counts, not the version",
            usage(of={"apiVersion": "example.org/v2", "kind": "Thing", "resourceRef": {"name": "cm"}}),
            {
                "apiVersion": "example.org/v1",
                "kind": "Thing",
                "metadata": {"name": "cm", "namespace": "team"},
            },
            True,
            id="AnyVersion",
        ),
        pytest.param(
            "a selector not resolved yet protects nothing",
            usage(
                of={"apiVersion": "v1", "kind": "ConfigMap", "resourceSelector": {"matchLabels": {"a": "b"}}}
            ),
            cm(),
            False,
            id="Unresolved",
        ),
    ],
)
def test_finder(reason: str, u: dict[str, Any], obj: dict[str, Any], found: bool) -> None:
    assert bool(finder(u).find(obj)) is found, reason


class Events:
    def __init__(self) -> None:
        self.seen: list[tuple[str, str, str]] = []

    async def event(self, obj: Any, type: str, reason: str, message: str) -> None:
        self.seen.append((type, reason, message))


@dataclasses.dataclass
class World:
    api: FakeApi
    events: Events
    usages: FakeCache
    reconciler: _reconciler.UsageReconciler

    def stored(self, kind: str, name: str, namespace: str = "team") -> dict[str, Any]:
        [found] = [
            o
            for o in self.api.of_kind(kind)
            if o["metadata"]["name"] == name and o["metadata"].get("namespace", "") == namespace
        ]
        return found


def world(*objects: dict[str, Any], type_: tuple[str, str] = (P, "Usage")) -> World:
    api = FakeApi(
        {(P, "Usage"): True, (P, "ClusterUsage"): False, (LEGACY, "Usage"): False, ("v1", "Secret"): True}
    )
    for o in objects:
        api.put(o)
    usages = FakeCache([])
    caches = {k: _LiveCache(api, k) for k in _usages.KINDS}
    events = Events()
    r = _reconciler.UsageReconciler(
        api,
        usages,
        events,
        _usages.Finder(caches),
        type_=type_,
        poll_interval=60,
        clock=lambda: T0,
        replay_delay=0,
    )
    return World(api, events, usages, r)


class _LiveCache:
    """A reader over the fake API server's objects of one kind (what the informer would hold)."""

    def __init__(self, api: FakeApi, kind: tuple[str, str]) -> None:
        self.api, self.kind = api, kind

    def get(self, name: str, namespace: str = "") -> dict[str, Any] | None:
        return None

    def list(self, namespace: str | None = None, labels: Any = None) -> list[dict[str, Any]]:
        return [o for o in self.api.of_kind(self.kind[1]) if o["apiVersion"] == self.kind[0]]


def condition(obj: dict[str, Any], type_: str) -> tuple[str, str]:
    c = next(c for c in obj["status"]["conditions"] if c["type"] == type_)
    return c["status"], c["reason"]


async def test_a_usage_labels_what_it_protects_and_is_owned_by_its_user() -> None:
    w = world(cm(), {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "app", "namespace": "team"}},
              usage(by=BY_SECRET))  # fmt: skip
    result = await w.reconciler.reconcile("team/u")
    assert result.requeue_after == 60, "polled again after --poll-interval"
    stored = w.stored("Usage", "u")
    assert stored["metadata"]["finalizers"] == ["usage.apiextensions.crossplane.io"]
    assert stored["metadata"]["annotations"] == {
        "crossplane.io/usage-details": "Secret/app uses ConfigMap/cm"
    }
    secret = w.stored("Secret", "app")
    assert stored["metadata"]["ownerReferences"] == [
        {"apiVersion": "v1", "kind": "Secret", "name": "app", "uid": secret["metadata"]["uid"]}
    ], "the Usage goes with its user"
    assert condition(stored, "Ready") == ("True", "Available")
    assert w.stored("ConfigMap", "cm")["metadata"]["labels"] == {"crossplane.io/in-use": "true"}
    assert w.events.seen == [("Normal", "UsageConfigured", "Usage configured successfully.")]
    await w.reconciler.reconcile("team/u")
    assert len(w.events.seen) == 1, "nothing changed: no event, no write"


@pytest.mark.parametrize(
    ("reason", "objects", "u", "want"),
    [
        pytest.param(
            "no object matches the selector",
            [cm()],
            usage(of={"apiVersion": "v1", "kind": "ConfigMap", "resourceSelector": {"matchLabels": {"a": "b"}}}),
            ("Warning", "ResolveSelectors", 'cannot resolve selectors: cannot resolve selector at "spec.of.resourceSelector": '
             'no "ConfigMap" found matching labels: map["a":"b"]'),
            id="NoMatch",
        ),
        pytest.param(
            "a match with another controller, with matchControllerRef",
            [cm(a="b")],
            usage(of={"apiVersion": "v1", "kind": "ConfigMap",
                      "resourceSelector": {"matchLabels": {"a": "b"}, "matchControllerRef": True}}),
            ("Warning", "ResolveSelectors", 'cannot resolve selectors: cannot resolve selector at "spec.of.resourceSelector": '
             'no "ConfigMap" found matching labels: map["a":"b"] and with same controller reference'),
            id="NoSameController",
        ),
        pytest.param(
            "the used resource is not there",
            [],
            usage(),
            ("Warning", "GetUsedResource", 'cannot get used: configmaps "cm" not found'),
            id="UsedMissing",
        ),
        pytest.param(
            "the using resource is not there",
            [cm()],
            usage(by=BY_SECRET),
            ("Warning", "GetUsingResource", 'cannot get using: secrets "app" not found'),
            id="UsingMissing",
        ),
    ],
)  # fmt: skip
async def test_failures(
    reason: str, objects: list[dict[str, Any]], u: dict[str, Any], want: tuple[str, str, str]
) -> None:
    w = world(*objects, u)
    with pytest.raises(Exception) as raised:
        await w.reconciler.reconcile("team/u")
    assert w.events.seen == [want], reason
    assert str(raised.value) == want[2], reason


async def test_a_selector_is_resolved_to_a_name() -> None:
    w = world(
        cm("other", a="b"),
        cm(a="b"),
        usage(of={"apiVersion": "v1", "kind": "ConfigMap", "resourceSelector": {"matchLabels": {"a": "b"}}}),
    )
    await w.reconciler.reconcile("team/u")
    assert w.stored("Usage", "u")["spec"]["of"]["resourceRef"] == {"name": "cm"}, "the first match, by name"
    assert w.stored("ConfigMap", "cm")["metadata"]["labels"]["crossplane.io/in-use"] == "true"


async def _delete_usage(w: World, name: str = "u") -> None:
    await w.api.delete(P, "Usage", name, "team")
    await w.reconciler.reconcile(f"team/{name}")


@pytest.mark.parametrize(
    ("reason", "others", "label_kept"),
    [
        pytest.param("the last Usage of it gone, the label goes", [], False, id="Last"),
        pytest.param("another Usage still holds it: the label stays", [usage("u2")], True, id="Another"),
    ],
)
async def test_deleting_a_usage(reason: str, others: list[dict[str, Any]], label_kept: bool) -> None:
    w = world(cm(), usage(), *others)
    await w.reconciler.reconcile("team/u")
    await _delete_usage(w)
    assert (
        "crossplane.io/in-use" in (w.stored("ConfigMap", "cm")["metadata"].get("labels") or {})
    ) is label_kept, reason
    assert w.api.of_kind("Usage") == [u for u in w.api.of_kind("Usage") if u["metadata"]["name"] != "u"], (
        "the finalizer went, and the Usage with it"
    )


async def test_replayed_deletion() -> None:
    """A deletion the webhook refused (its policy noted on the object) is sent again once the Usage is gone."""
    w = world(cm(), usage(replay=True))
    await w.reconciler.reconcile("team/u")
    used = w.stored("ConfigMap", "cm")
    used["metadata"]["annotations"] = {"usage.crossplane.io/deletion-attempt-with-policy": "Foreground"}
    await w.api.update(used)
    await _delete_usage(w)
    for _ in range(10):
        await asyncio.sleep(0)
    assert w.api.of_kind("ConfigMap") == [], "deleted again"
    assert ("delete", "ConfigMap", "cm") in w.api.calls


async def test_a_composed_usage_waits_for_its_user() -> None:
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "app", "namespace": "team"}}
    w = world(cm(), secret, usage(by=BY_SECRET, labels={"crossplane.io/composite": "xr"}))
    await w.reconciler.reconcile("team/u")
    await w.api.delete(P, "Usage", "u", "team")
    result = await w.reconciler.reconcile("team/u")
    assert result.requeue_after == 30
    assert w.events.seen[-1] == (
        "Normal", "WaitingUsingDeleted", 'Waiting for the using resource (which is a "Secret" named "app") to be deleted.'
    )  # fmt: skip
    await w.api.delete("v1", "Secret", "app", "team")
    assert (await w.reconciler.reconcile("team/u")).requeue_after is None
    assert w.api.of_kind("Usage") == [], "its user gone, the Usage goes"


@pytest.mark.parametrize(
    ("reason", "request_", "usages", "want"),
    [
        pytest.param(
            "only deletions are reviewed",
            {"uid": "1", "operation": "CREATE"},
            [],
            {"uid": "1", "allowed": False, "status": {"code": 400, "message": 'unexpected operation "CREATE", expected "DELETE"'}},
            id="NotDelete",
        ),
        pytest.param(
            "nothing protects it",
            {"uid": "2", "operation": "DELETE", "oldObject": cm()},
            [],
            {"uid": "2", "allowed": True, "status": {"code": 200}},
            id="Allowed",
        ),
        pytest.param(
            "a Usage protects it: denied with Crossplane's message",
            {"uid": "3", "operation": "DELETE", "oldObject": cm(), "options": {"propagationPolicy": "Foreground"}},
            [usage(reason="the database")],
            {"uid": "3", "allowed": False, "status": {"code": 409, "reason":
             'This resource is in-use by 1 usage(s), including the *v1beta1.Usage "u" (in namespace "team") '
             'with reason: "the database".'}},
            id="Denied",
        ),
    ],
)  # fmt: skip
async def test_review(
    reason: str, request_: dict[str, Any], usages: list[dict[str, Any]], want: dict[str, Any]
) -> None:
    api = FakeApi()
    api.put(cm())
    got = await _webhook.review(
        api, finder(*usages), {"apiVersion": "admission.k8s.io/v1", "request": request_}
    )
    assert got == {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": want}, reason
    annotations = (api.of_kind("ConfigMap")[0]["metadata"].get("annotations")) or {}
    if want["status"]["code"] == 409:
        assert annotations == {"usage.crossplane.io/deletion-attempt-with-policy": "Foreground"}, (
            "the refused deletion's policy is noted, for a replay"
        )
    else:
        assert annotations == {}


async def test_review_fails_when_it_cannot_note_the_attempt() -> None:
    api = FakeApi()
    api.fail("patch", "ConfigMap", _api.Forbidden("configmaps is forbidden", status=403))
    body = {"request": {"uid": "4", "operation": "DELETE", "oldObject": cm()}}
    got = await _webhook.review(api, finder(usage()), body)
    assert got["response"] == {
        "uid": "4",
        "allowed": False,
        "status": {"code": 500, "message": "configmaps is forbidden"},
    }


def test_configuration() -> None:
    """Crossplane's ValidatingWebhookConfiguration, by Service or by URL, with the CA as its bundle."""
    by_service = _webhook.configuration(b"CA", namespace="xp")
    [hook] = by_service["webhooks"]
    assert by_service["metadata"]["name"] == "crossplane-no-usages"
    assert hook["name"] == "nousages.protection.crossplane.io"
    assert hook["clientConfig"] == {
        "caBundle": "Q0E=",
        "service": {
            "name": "crossplane-webhooks",
            "namespace": "xp",
            "path": "/validate-no-usages",
            "port": 9443,
        },
    }
    assert hook["objectSelector"] == {"matchLabels": {"crossplane.io/in-use": "true"}}
    assert hook["rules"] == [
        {"apiGroups": ["*"], "apiVersions": ["*"], "operations": ["DELETE"], "resources": ["*"]}
    ]
    assert (hook["failurePolicy"], hook["sideEffects"]) == ("Fail", "None")
    by_url = _webhook.configuration(b"CA", namespace="xp", url="https://127.0.0.1:9443/")
    assert by_url["webhooks"][0]["clientConfig"] == {
        "caBundle": "Q0E=",
        "url": "https://127.0.0.1:9443/validate-no-usages",
    }
