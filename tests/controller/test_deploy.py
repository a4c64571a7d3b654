"""deploy/: the manifests apply to a real API server, and the RBAC is exactly what the controller calls.

The permission table below (:data:`USES`) says, for every kind of API call in
``src/crossfn/controller``, which RBAC permissions it needs. A scan of the code
(:func:`scan`) must find exactly the calls the table lists: a new call fails
the test until the table, and so the ClusterRole, say what it needs. The
ClusterRole and Role must then grant every needed permission (asked of the API
server as the controller's ServiceAccount) and nothing the table does not
list (compared rule by rule, and a few broader requests asked and refused).
"""

from __future__ import annotations

import ast
import asyncio
import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crossfn.gocompat import yaml_loader

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
SOURCES = Path(__file__).resolve().parents[2] / "src" / "crossfn" / "controller"
NAMESPACE, SERVICE_ACCOUNT = "crossfn-system", "crossfn"
USER = f"system:serviceaccount:{NAMESPACE}:{SERVICE_ACCOUNT}"

C, N = "cluster", "namespace"
"""Where a permission is needed: in every namespace (or cluster-scoped), or in the controller's own."""

Perm = tuple[str, str, str, str]
"""(API group, resource, verb, scope); group ``nonResourceURL`` names a URL in ``resource``."""

OPTIONAL = "optional"
"""Granted only by ``deploy/optional/rbac-manager.yaml`` (the per-XRD roles, ``--manage-rbac``)."""

CONNECTION = "connection"
"""Granted only by ``deploy/optional/connection-secrets.yaml``: Secrets in every namespace, for legacy
XRs' and claims' connection Secrets (and credentials outside the controller's namespace)."""

OPTIONAL_FILES = {OPTIONAL: "rbac-manager.yaml", CONNECTION: "connection-secrets.yaml"}

DYNAMIC: Perm = ("*", "*", "*", "aggregated")
"""Composite resources, claims, composed and required kinds: granted by aggregated ClusterRoles."""


def _p(group: str, resource: str, verbs: str, scope: str = C) -> set[Perm]:
    return {(group, resource, verb, scope) for verb in verbs.split()}


CRDS = "apiextensions.k8s.io", "customresourcedefinitions"
XP = "apiextensions.crossplane.io"
PKG = "pkg.crossplane.io"
PROT = "protection.crossplane.io"
WEBHOOKS = "admissionregistration.k8s.io", "validatingwebhookconfigurations"
USAGES = (
    _p(PROT, "usages", "list watch")
    | _p(PROT, "clusterusages", "list watch")
    | _p(XP, "usages", "list watch")
)
OPS = "ops.crossplane.io"
INFORMED = (
    _p(*CRDS, "list watch") | _p(XP, "compositeresourcedefinitions", "list watch")
    | _p(XP, "compositions", "list watch") | _p(XP, "compositionrevisions", "list watch")
    | _p(PKG, "functions", "list watch") | _p(PKG, "functionrevisions", "list watch")
    | _p(PKG, "deploymentruntimeconfigs", "list watch") | _p("apps", "deployments", "list watch", N) | USAGES
    | {DYNAMIC}
    | _p(OPS, "operations", "list watch") | _p(OPS, "cronoperations", "list watch")
    | _p(OPS, "watchoperations", "list watch")
)  # fmt: skip
"""The kinds informers list and watch: Crossplane's, CRDs (schemas), function package Deployments, XRs."""

USES: dict[tuple[str, str], set[Perm]] = {
    ("claim/_claim_sync", "get"): {DYNAMIC},
    ("claim/_claim_sync", "apply"): {DYNAMIC},
    ("claim/_claim_sync", "patch"): {DYNAMIC},
    ("claim/_claim_sync", "update"): {DYNAMIC},
    ("claim/_claims", "get"): {DYNAMIC},
    ("claim/_claims", "update"): {DYNAMIC},
    ("claim/_claims", "update-status"): {DYNAMIC},
    ("claim/_claims", "delete"): {DYNAMIC},
    ("composite/_compose_io", "get"): {DYNAMIC} | _p("", "secrets", "get", CONNECTION),
    ("composite/_compose_io", "apply"): {DYNAMIC},
    ("composite/_compose_io", "update"): {DYNAMIC},
    ("composite/_compose_io", "delete"): {DYNAMIC},
    ("composite/_composite", "update"): {DYNAMIC},
    ("composite/_composite", "apply-status"): {DYNAMIC},
    ("composite/_connection", "get"): _p("", "secrets", "get", CONNECTION),
    ("composite/_connection", "create"): _p("", "secrets", "create", CONNECTION),
    ("composite/_connection", "patch"): _p("", "secrets", "patch", CONNECTION),
    ("claim/_connection", "get"): _p("", "secrets", "get", CONNECTION),
    ("claim/_connection", "create"): _p("", "secrets", "create", CONNECTION),
    ("claim/_connection", "update"): _p("", "secrets", "update", CONNECTION),
    ("crds/_crds", "get"): _p(*CRDS, "get") | _p("apiregistration.k8s.io", "apiservices", "get"),
    ("crds/_crds", "apply"): _p(*CRDS, "patch create"),
    ("runtime/_events", "create"): _p("", "events", "create"),
    ("runtime/_events", "patch"): _p("", "events", "patch"),
    ("packages/_functionrevisions", "apply"): _p(PKG, "functionrevisions", "patch create"),
    ("packages/_functionrevisions", "apply-status"): _p(PKG, "functionrevisions/status", "patch")
    | _p(PKG, "functions/status", "patch"),
    ("packages/_functionrevisions", "patch"): _p(PKG, "functionrevisions", "patch"),
    ("packages/_functionrevisions", "delete"): _p(PKG, "functionrevisions", "delete"),
    ("packages/_functions", "get"): _p("", "secrets", "get", N),
    ("runtime/_informer", "list"): {p for p in INFORMED if p[2] == "list" or p == DYNAMIC},
    ("runtime/_informer", "watch"): {p for p in INFORMED if p[2] == "watch" or p == DYNAMIC},
    ("manager/_leader", "get"): _p("coordination.k8s.io", "leases", "get", N),
    ("manager/_leader", "create"): _p("coordination.k8s.io", "leases", "create", N),
    ("manager/_leader", "update"): _p("coordination.k8s.io", "leases", "update", N),
    ("packages/_package_runtime", "get"): _p("apps", "deployments", "get", N)
    | _p(PKG, "deploymentruntimeconfigs", "get")
    | _p("", "serviceaccounts", "get", N),
    ("packages/_package_runtime", "apply"): _p("", "services", "patch create", N)
    | _p("", "secrets", "patch create", N)
    | _p("", "serviceaccounts", "patch create", N)
    | _p("apps", "deployments", "patch create", N),
    ("packages/_package_runtime", "apply-status"): _p(PKG, "functionrevisions/status", "patch"),
    ("packages/_package_runtime", "delete"): _p("apps", "deployments", "delete", N),
    ("runtime/_tls", "get"): _p("", "secrets", "get", N),
    ("runtime/_tls", "create"): _p("", "secrets", "create", N),
    ("runtime/_tls", "update"): _p("", "secrets", "update", N),
    ("packages/_packages", "apply"): _p(PKG, "functionrevisions", "patch create"),
    ("packages/_packages", "apply-status"): _p(PKG, "functions/status", "patch"),
    ("packages/_packages", "patch"): _p(PKG, "functionrevisions", "patch"),
    ("packages/_packages", "create"): _p(PKG, "deploymentruntimeconfigs", "create"),
    ("revisions/_revisions", "get"): _p(XP, "compositions", "get") | _p(XP, "compositionrevisions", "get"),
    ("revisions/_revisions", "list"): _p(XP, "compositionrevisions", "list")
    | _p(PKG, "functionrevisions", "list"),
    ("revisions/_revisions", "create"): _p(XP, "compositionrevisions", "create"),
    ("revisions/_revisions", "update"): _p(XP, "compositionrevisions", "update"),
    ("revisions/_revisions", "patch-status"): _p(XP, "compositionrevisions/status", "patch"),
    ("composite/_selection", "list"): _p(XP, "compositions", "list") | _p(XP, "compositionrevisions", "list"),
    ("composite/_selection", "get"): _p(XP, "compositions", "get") | _p(XP, "compositionrevisions", "get"),
    ("composite/_sources", "get"): {DYNAMIC}
    | _p("", "secrets", "get", N)
    | _p("", "secrets", "get", CONNECTION),
    ("composite/_sources", "list"): {DYNAMIC},
    ("composite/_sources", "openapi_paths"): _p("nonResourceURL", "/openapi/v3", "get"),
    ("composite/_sources", "openapi_document"): _p("nonResourceURL", "/openapi/v3/*", "get"),
    ("composite/_sources", "is_namespaced"): set(),  # discovery: every authenticated user may read it
    ("rbac/_rbac", "get"): _p("rbac.authorization.k8s.io", "clusterroles", "get", OPTIONAL)
    | _p(*CRDS, "get"),
    ("rbac/_rbac", "create"): _p("rbac.authorization.k8s.io", "clusterroles", "create", OPTIONAL),
    ("rbac/_rbac", "update"): _p("rbac.authorization.k8s.io", "clusterroles", "update", OPTIONAL),
    ("definition/_xrd", "get"): _p(XP, "compositeresourcedefinitions", "get") | _p(*CRDS, "get"),
    ("definition/_xrd", "update"): _p(XP, "compositeresourcedefinitions", "update"),
    ("definition/_xrd", "apply"): _p(*CRDS, "patch create"),
    ("definition/_xrd", "list"): {DYNAMIC},
    # CRDs are deleted where allowed, else by the garbage collector through their owner reference.
    ("definition/_xrd", "delete"): {DYNAMIC},
    ("definition/_xrd", "patch-status"): _p(XP, "compositeresourcedefinitions/status", "patch"),
    # Usages: the used and using resources are any kind (aggregated roles); the Usages are Crossplane's.
    ("protection/_reconciler", "get"): {DYNAMIC}
    | _p(PROT, "usages", "get")
    | _p(PROT, "clusterusages", "get")
    | _p(XP, "usages", "get"),
    ("protection/_reconciler", "read"): {DYNAMIC},
    ("protection/_reconciler", "list"): {DYNAMIC},
    ("protection/_reconciler", "is_namespaced"): set(),  # discovery: every authenticated user may read it
    ("protection/_reconciler", "update"): {DYNAMIC}
    | _p(PROT, "usages", "update")
    | _p(PROT, "clusterusages", "update")
    | _p(XP, "usages", "update"),
    ("protection/_reconciler", "update-status"): _p(PROT, "usages/status", "update")
    | _p(PROT, "clusterusages/status", "update")
    | _p(XP, "usages/status", "update"),
    ("protection/_reconciler", "delete"): {DYNAMIC},  # a replayed deletion of a used resource
    ("protection/_webhook", "patch"): {DYNAMIC},  # the deletion attempt noted on the used resource
    ("protection/_webhook", "get"): _p(*WEBHOOKS, "get"),
    ("protection/_webhook", "apply"): _p(*WEBHOOKS, "patch create"),
    ("protection/_webhook", "read"): _p("", "secrets", "get", N),
    ("ops/_operation", "get"): _p(OPS, "operations", "get"),
    ("ops/_operation", "update-status"): _p(OPS, "operations/status", "update"),
    ("ops/_operation", "apply"): {DYNAMIC},  # what an Operation's pipeline returns, any kind
    ("ops/_cron", "get"): _p(OPS, "cronoperations", "get"),
    ("ops/_cron", "create"): _p(OPS, "operations", "create"),
    ("ops/_parent", "delete"): _p(OPS, "operations", "delete"),
    ("ops/_parent", "update-status"): _p(OPS, "cronoperations/status", "update")
    | _p(OPS, "watchoperations/status", "update"),
    ("ops/_watch", "get"): _p(OPS, "watchoperations", "get"),
    ("ops/_watch", "update"): _p(OPS, "watchoperations", "update"),
    ("ops/_watch", "create"): _p(OPS, "operations", "create"),
    ("ops/_watch", "list"): {DYNAMIC},  # the watched kind, counted
    ("ops/_watch", "is_namespaced"): set(),  # discovery: every authenticated user may read it
}

JUSTIFIED: set[Perm] = (
    _p(XP, "compositeresourcedefinitions/finalizers", "update") | _p(XP, "compositions/finalizers", "update")
    | _p(PKG, "functions/finalizers", "update") | _p(PKG, "functionrevisions/finalizers", "update")
    | _p(OPS, "cronoperations/finalizers", "update") | _p(OPS, "watchoperations/finalizers", "update")
)  # fmt: skip
"""Granted though no call names them: owner references with ``blockOwnerDeletion`` need update on the
owner's finalizers where the API server enforces owner references (OwnerReferencesPermissionEnforcement)."""

BROADER: list[tuple[str, dict[str, Any]]] = [
    ("list Secrets", {"resource": "secrets", "verb": "list"}),
    ("watch Secrets", {"resource": "secrets", "verb": "watch"}),
    ("delete Secrets (connection Secrets go with their owner)", {"resource": "secrets", "verb": "delete", "namespace": "default"}),
    ("delete a Namespace", {"resource": "namespaces", "verb": "delete"}),
    ("create Pods", {"resource": "pods", "verb": "create", "namespace": NAMESPACE}),
    ("escalate ClusterRoles", {"group": "rbac.authorization.k8s.io", "resource": "clusterroles", "verb": "escalate"}),
    ("create ClusterRoleBindings", {"group": "rbac.authorization.k8s.io", "resource": "clusterrolebindings", "verb": "create"}),
    ("update CRDs (applied, never replaced)", {"group": "apiextensions.k8s.io", "resource": "customresourcedefinitions", "verb": "update"}),
    ("delete Functions (the user's)", {"group": PKG, "resource": "functions", "verb": "delete"}),
    ("delete Compositions (the user's)", {"group": XP, "resource": "compositions", "verb": "delete"}),
    ("Deployments in another namespace", {"group": "apps", "resource": "deployments", "verb": "create", "namespace": "default"}),
    ("Leases in another namespace", {"group": "coordination.k8s.io", "resource": "leases", "verb": "update", "namespace": "kube-system"}),
    ("impersonate", {"resource": "users", "verb": "impersonate"}),
    ("delete CRDs (any kind in the cluster; the garbage collector deletes an XRD's)",
     {"group": "apiextensions.k8s.io", "resource": "customresourcedefinitions", "verb": "delete"}),
    ("get Secrets in another namespace (without optional/connection-secrets.yaml)",
     {"resource": "secrets", "verb": "get", "namespace": "kube-system"}),
    ("create Secrets in another namespace", {"resource": "secrets", "verb": "create", "namespace": "default"}),
]  # fmt: skip

_CALLS = {"get", "read", "list", "watch", "apply", "create", "update", "patch", "delete", "is_namespaced",
          "openapi_paths", "openapi_document", "create_event"}  # fmt: skip
_NOT_CALLERS = {"_api.py", "_kube.py", "envtest.py", "__init__.py"}


def scan() -> set[tuple[str, str]]:
    """``(module path, method)`` of every ``…api.<method>(…)`` call in the controller (``-status`` when on status)."""
    found = set()
    for path in sorted(SOURCES.rglob("*.py")):
        if path.name in _NOT_CALLERS:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            if node.func.attr not in _CALLS or not ast.unparse(node.func.value).endswith("api"):
                continue
            status = any(
                k.arg == "status" and isinstance(k.value, ast.Constant) and k.value.value
                for k in node.keywords
            )
            found.add(
                (
                    path.relative_to(SOURCES).with_suffix("").as_posix(),
                    node.func.attr + ("-status" if status else ""),
                )
            )
    return found


def needed(scope: str | None = None) -> set[Perm]:
    """The permissions the calls need: the controller's own (``scope`` None) or those of one optional file."""
    return {
        p for perms in USES.values() for p in perms
        if p != DYNAMIC and ((p[3] == scope) if scope in OPTIONAL_FILES else (p[3] not in OPTIONAL_FILES))
    }  # fmt: skip


def _documents(directory: Path = DEPLOY, pattern: str = "*.yaml") -> Iterator[tuple[str, dict[str, Any]]]:
    for path in sorted(directory.glob(pattern)):
        if path.name == "kustomization.yaml":
            continue
        for doc in yaml_loader.load_all(
            path.read_text(encoding="utf-8"), as_json=True
        ):  # as kubectl reads them
            if doc:
                yield path.name, doc


def granted(directory: Path = DEPLOY, pattern: str = "*.yaml") -> set[Perm]:
    """The permissions the ClusterRole ``crossfn:system`` (everywhere) and the Role (own namespace) grant."""
    out: set[Perm] = set()
    for _, doc in _documents(directory, pattern):
        if doc["kind"] not in ("ClusterRole", "Role") or "aggregationRule" in doc:
            continue
        scope = C if doc["kind"] == "ClusterRole" else N
        for rule in doc["rules"]:
            for verb in rule["verbs"]:
                for url in rule.get("nonResourceURLs", []):
                    out.add(("nonResourceURL", url, verb, scope))
                for group in rule.get("apiGroups", []):
                    out.update((group, resource, verb, scope) for resource in rule["resources"])
    return out


def test_the_table_lists_exactly_the_calls_in_the_code() -> None:
    found, listed = scan(), set(USES)
    assert not found - listed, (
        f"API calls with no RBAC entry (add them to USES and deploy/): {sorted(found - listed)}"
    )
    assert not listed - found, f"RBAC entries for calls that are gone (remove them): {sorted(listed - found)}"


def test_roles_grant_what_is_needed_and_nothing_else() -> None:
    have, want = granted(), needed()
    missing = {p for p in want if p not in have and (p[0], p[1], p[2], C) not in have}
    assert not missing, f"needed but not granted: {sorted(missing)}"
    extra = {p for p in have - JUSTIFIED if p not in want}
    assert not extra, f"granted but never used: {sorted(extra)}"


def test_the_optional_rbac_manager_role_grants_what_it_needs_and_escalate() -> None:
    have = {(g, r, v, OPTIONAL) for g, r, v, _ in granted(DEPLOY / "optional", OPTIONAL_FILES[OPTIONAL])}
    assert have == needed(OPTIONAL) | _p("rbac.authorization.k8s.io", "clusterroles", "escalate", OPTIONAL)


def test_the_optional_connection_secrets_role_grants_what_legacy_connection_secrets_need() -> None:
    have = {(g, r, v, CONNECTION) for g, r, v, _ in granted(DEPLOY / "optional", OPTIONAL_FILES[CONNECTION])}
    assert have == needed(CONNECTION)


def test_no_wildcards_in_the_controllers_own_roles() -> None:
    for name, doc in [*_documents(), *_documents(DEPLOY / "optional")]:
        for rule in doc.get("rules") or []:
            for field in ("apiGroups", "resources", "verbs"):
                assert "*" not in rule.get(field, []), f"{name} {doc['metadata']['name']}: {field} has *"


# -- against the API server -------------------------------------------------------------------------


async def _dry_run_apply(kube: Any, obj: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Server-side apply with ``dryRun=All`` and strict field validation; the result and any warnings.

    ``KubeApi`` has no dry run (the controller never needs one), so this goes
    through its request primitives.
    """
    path = await kube._object_path(obj)
    params = {
        "fieldManager": "crossfn-deploy-test",
        "force": "true",
        "dryRun": "All",
        "fieldValidation": "Strict",
    }
    response = await kube._send(
        "PATCH", path, params=params, body=obj, content_type="application/apply-patch+yaml"
    )
    warnings = [v.decode("latin-1") for k, v in response.headers if k.lower() == b"warning"]
    return json.loads(response.content), warnings


@pytest.mark.cluster
async def test_every_manifest_applies_with_server_side_dry_run(kube: Any) -> None:
    namespace = next(doc for _, doc in _documents() if doc["kind"] == "Namespace")
    await kube.apply(namespace, field_manager="crossfn-deploy-test")  # namespaced dry runs need it to exist
    seen = []
    for name, doc in [*_documents(), *_documents(DEPLOY / "optional")]:
        result, warnings = await _dry_run_apply(kube, doc)
        assert result["metadata"]["name"] == doc["metadata"]["name"], name
        assert warnings == [], f"{name} {doc['kind']}: {warnings}"  # PodSecurity 'restricted' warns here
        seen.append(doc["kind"])
    assert sorted(set(seen)) == [
        "ClusterRole", "ClusterRoleBinding", "Deployment", "Namespace", "Role", "RoleBinding", "Service",
        "ServiceAccount",
    ]  # fmt: skip


@pytest.fixture
async def rbac(kube: Any) -> Any:
    """The ServiceAccount, roles and bindings, applied for real (idempotent)."""
    for _, doc in _documents():
        if doc["kind"] in (
            "Namespace",
            "ServiceAccount",
            "ClusterRole",
            "ClusterRoleBinding",
            "Role",
            "RoleBinding",
        ):
            await kube.apply(doc, field_manager="crossfn-deploy-test")
    # The API server's authorizer learns new roles and bindings through its own informers: wait until
    # it has them (every call the controller makes allowed), at most 30 s; a test then asserts as before.
    deadline = asyncio.get_running_loop().time() + 30
    pending = sorted(needed() | JUSTIFIED)
    while pending and asyncio.get_running_loop().time() < deadline:
        pending = [perm for perm in pending if not await _allowed_perm(kube, perm)]
        if pending:
            await asyncio.sleep(0.1)
    return kube


async def _allowed_perm(kube: Any, perm: Perm) -> bool:
    attrs, non_resource = _attributes(perm)
    return await _allowed(kube, attrs, non_resource=non_resource)


async def _allowed(kube: Any, attributes: dict[str, Any], *, non_resource: bool = False) -> bool:
    spec: dict[str, Any] = {
        "user": USER,
        "groups": ["system:serviceaccounts", f"system:serviceaccounts:{NAMESPACE}", "system:authenticated"],
    }
    spec["nonResourceAttributes" if non_resource else "resourceAttributes"] = attributes
    review = await kube.create(
        {"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "spec": spec}
    )
    return bool(review["status"].get("allowed"))


def _attributes(perm: Perm) -> tuple[dict[str, Any], bool]:
    group, resource, verb, scope = perm
    if group == "nonResourceURL":
        return {"path": resource.replace("*", "apis/example.org/v1"), "verb": verb}, True
    resource, _, sub = resource.partition("/")
    attrs = {"group": group, "resource": resource, "verb": verb, "namespace": NAMESPACE if scope == N else ""}
    if sub:
        attrs["subresource"] = sub
    return attrs, False


@pytest.mark.cluster
async def test_the_service_account_may_make_every_call_and_no_broader_one(rbac: Any) -> None:
    refused = []
    for perm in sorted(needed() | JUSTIFIED):
        attrs, non_resource = _attributes(perm)
        if not await _allowed(rbac, attrs, non_resource=non_resource):
            refused.append(perm)
    assert refused == [], "the API server refuses calls the controller makes"
    allowed = [why for why, attrs in BROADER if await _allowed(rbac, attrs)]
    assert allowed == [], "broader than needed"


@pytest.mark.cluster
async def test_labelled_cluster_roles_are_aggregated(rbac: Any, envtest: Any) -> None:
    """A ClusterRole labelled ``rbac.crossplane.io/aggregate-to-crossplane`` lets the controller manage a kind."""
    from crossfn.controller import envtest as envtest_module

    group = f"{uuid.uuid4().hex[:8]}.example.org"
    attrs = {"group": group, "resource": "widgets", "verb": "create", "namespace": "default"}
    assert not await _allowed(rbac, attrs)
    role: dict[str, Any] = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {
            "name": f"widgets-{group}",
            "labels": {"rbac.crossplane.io/aggregate-to-crossplane": "true"},
        },
        "rules": [
            {"apiGroups": [group], "resources": ["widgets"], "verbs": ["get", "list", "watch", "create"]}
        ],
    }
    port = envtest_module._free_port()
    argv = [
        envtest._binary("kube-controller-manager"),
        f"--kubeconfig={envtest.kubeconfig}",
        f"--authentication-kubeconfig={envtest.kubeconfig}",
        f"--authorization-kubeconfig={envtest.kubeconfig}",
        "--controllers=clusterrole-aggregation-controller",
        "--bind-address=127.0.0.1",
        f"--secure-port={port}",
        f"--cert-dir={envtest.directory / f'aggregation-{port}'}",
        "--leader-elect=false",
        "--authentication-skip-lookup=true",
        "--use-service-account-credentials=false",
    ]
    process = envtest_module._Process(
        "kube-controller-manager", argv, envtest.directory / f"aggregation-{port}.log"
    )
    try:
        await rbac.create(role)
        deadline = time.monotonic() + 60
        while not await _allowed(rbac, attrs):
            assert time.monotonic() < deadline, (
                "the aggregated ClusterRole never gained the labelled role's rules"
            )
            await asyncio.sleep(0.2)
    finally:
        process.stop()
        await rbac.delete("rbac.authorization.k8s.io/v1", "ClusterRole", role["metadata"]["name"])


@pytest.mark.cluster
async def test_the_optional_role_lets_the_controller_write_cluster_roles(rbac: Any) -> None:
    """Bound to a stand-in ServiceAccount: binding it to ``crossfn`` here would leak escalate into the other tests."""
    stand_in = f"rbac-check-{uuid.uuid4().hex[:6]}"
    docs = [doc for _, doc in _documents(DEPLOY / "optional", OPTIONAL_FILES[OPTIONAL])]
    for doc in docs:
        doc["metadata"]["name"] = f"{doc['metadata']['name']}-{stand_in}"
        if doc["kind"] == "ClusterRoleBinding":
            doc["roleRef"]["name"] = f"{doc['roleRef']['name']}-{stand_in}"
            doc["subjects"][0]["name"] = stand_in
        await rbac.apply(doc, field_manager="crossfn-deploy-test")
    user = f"system:serviceaccount:{NAMESPACE}:{stand_in}"
    try:
        # The API server's authorizer sees a new binding through its own informer: a review sent at once
        # may still be denied, so each verb is asked until allowed (the bound only ends a failing run).
        for verb in ("get", "create", "update", "escalate"):
            deadline = asyncio.get_running_loop().time() + 30
            while True:
                review = await rbac.create({
                    "apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
                    "spec": {"user": user, "resourceAttributes": {
                        "group": "rbac.authorization.k8s.io", "resource": "clusterroles", "verb": verb}},
                })  # fmt: skip
                if review["status"].get("allowed") or asyncio.get_running_loop().time() > deadline:
                    break
                await asyncio.sleep(0.1)
            assert review["status"].get("allowed"), verb
    finally:
        for doc in docs:
            await rbac.delete(doc["apiVersion"], doc["kind"], doc["metadata"]["name"])


async def _service_account_kubeconfig(kube: Any, envtest: Any, path: Path) -> str:
    """A kubeconfig for the controller's ServiceAccount: a token from the TokenRequest API."""
    request = {
        "apiVersion": "authentication.k8s.io/v1",
        "kind": "TokenRequest",
        "spec": {"expirationSeconds": 3600},
    }
    response = await kube._send(
        "POST", f"api/v1/namespaces/{NAMESPACE}/serviceaccounts/{SERVICE_ACCOUNT}/token", body=request
    )
    token = json.loads(response.content)["status"]["token"]
    config = json.loads(envtest.kubeconfig_text())
    config["users"] = [{"name": "admin", "user": {"token": token}}]
    path.write_text(json.dumps(config))
    return str(path)


@pytest.mark.cluster
async def test_the_controller_runs_under_exactly_the_shipped_rbac(
    rbac: Any, controller_manager: Any, crossplane_crds: list[str], tmp_path: Path
) -> None:
    """``crossfn controller run`` as deploy/'s ServiceAccount, with its token and nothing else: it starts
    (CRDs, the CA and certificates, function packages' runtime config), establishes an XRD, composes an XR
    through an aggregated role as docs/operating.md tells users to write, and deletes them again, with
    no delete on CRDs (the garbage collector takes the XRD's) and no Secrets outside its namespace."""
    from crossfn.controller import _settings
    from crossfn.controller.manager import _manager

    from .e2e_support import (
        AUTO_READY_PACKAGE,
        PAT_PACKAGE,
        condition,
        free_port,
        function,
        namespace,
        wait_for,
    )

    kube = rbac
    group = f"rbac{uuid.uuid4().hex[:6]}.example.org"
    tenant = f"tenant-{uuid.uuid4().hex[:6]}"
    role: dict[str, Any] = {
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
        "metadata": {"name": f"crossfn:composite:{group}", "labels": {"rbac.crossplane.io/aggregate-to-crossplane": "true"}},
        "rules": [
            {"apiGroups": [group], "resources": ["xthings", "xthings/status"], "verbs": ["*"]},
            {"apiGroups": [group], "resources": ["xthings/finalizers"], "verbs": ["update"]},
            {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["*"]},
        ],
    }  # fmt: skip
    xrd: dict[str, Any] = {
        "apiVersion": "apiextensions.crossplane.io/v2", "kind": "CompositeResourceDefinition",
        "metadata": {"name": f"xthings.{group}"},
        "spec": {"group": group, "scope": "Namespaced", "names": {"kind": "XThing", "plural": "xthings"},
                 "versions": [{"name": "v1", "served": True, "referenceable": True, "schema": {"openAPIV3Schema": {
                     "type": "object", "properties": {"spec": {"type": "object"}}}}}]},
    }  # fmt: skip
    composition: dict[str, Any] = {
        "apiVersion": "apiextensions.crossplane.io/v1", "kind": "Composition", "metadata": {"name": f"c-{group}"},
        "spec": {"compositeTypeRef": {"apiVersion": f"{group}/v1", "kind": "XThing"}, "mode": "Pipeline", "pipeline": [
            {"step": "cm", "functionRef": {"name": "function-patch-and-transform"}, "input": {
                "apiVersion": "pt.fn.crossplane.io/v1beta1", "kind": "Resources", "resources": [
                    {"name": "cm", "base": {"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "b"}}}]}},
            {"step": "ready", "functionRef": {"name": "function-auto-ready"}}]},
    }  # fmt: skip
    xr = {"apiVersion": f"{group}/v1", "kind": "XThing", "metadata": {"name": "one", "namespace": tenant},
          "spec": {"crossplane": {"compositionRef": {"name": f"c-{group}"}}}}  # fmt: skip
    for obj in (namespace(tenant), role, function("function-patch-and-transform", PAT_PACKAGE),
                function("function-auto-ready", AUTO_READY_PACKAGE)):  # fmt: skip
        await kube.apply(obj, field_manager="crossfn-deploy-test", force=True)
    attrs = {"group": group, "resource": "xthings", "verb": "create", "namespace": tenant}

    async def aggregated() -> bool:
        return await _allowed(kube, attrs)

    await wait_for(aggregated, timeout=60, what="crossfn:aggregate to gain the labelled role")
    settings = _settings.Settings(
        cluster=_settings.ClusterSettings(kubeconfig=await _service_account_kubeconfig(kube, controller_manager, tmp_path / "kubeconfig")),
        functions=_settings.FunctionSettings(insecure=True, namespace=NAMESPACE),
        packages=_settings.PackageSettings(service_account=SERVICE_ACCOUNT),
        observability=_settings.ObservabilitySettings(metrics_address="", health_address=""),
        # The webhook as shipped (registered through its Service), served on a free port, not :9443.
        webhooks=_settings.WebhookSettings(address=f"127.0.0.1:{free_port()}"),
    )  # fmt: skip
    m = _manager.Manager(settings)
    await m.start()
    try:
        await kube.apply(xrd, field_manager="crossfn-deploy-test", force=True)

        async def established() -> bool:
            got = await kube.get(
                "apiextensions.crossplane.io/v1", "CompositeResourceDefinition", xrd["metadata"]["name"]
            )
            return condition(got, "Established").get("status") == "True"

        await wait_for(established, timeout=60, what="the XRD Established by the ServiceAccount")
        await kube.apply(composition, field_manager="crossfn-deploy-test", force=True)
        await kube.apply(xr, field_manager="crossfn-deploy-test", force=True)

        async def ready() -> dict[str, Any] | None:
            got = await kube.get(f"{group}/v1", "XThing", "one", tenant)
            return got if condition(got, "Ready").get("status") == "True" else None

        await wait_for(ready, timeout=60, what="the XR Ready, composed under the shipped RBAC")
        await kube.delete(f"{group}/v1", "XThing", "one", tenant)
        await kube.delete(
            "apiextensions.crossplane.io/v1", "CompositeResourceDefinition", xrd["metadata"]["name"]
        )

        async def all_gone() -> bool:
            crd = await kube.get(
                "apiextensions.k8s.io/v1", "CustomResourceDefinition", xrd["metadata"]["name"]
            )
            got = await kube.get(
                "apiextensions.crossplane.io/v1", "CompositeResourceDefinition", xrd["metadata"]["name"]
            )
            return crd is None and got is None

        await wait_for(
            all_gone, timeout=90, what="the XRD and its CRD deleted (the CRD by the garbage collector)"
        )
    finally:
        await m.stop()
        await kube.delete("rbac.authorization.k8s.io/v1", "ClusterRole", role["metadata"]["name"])
