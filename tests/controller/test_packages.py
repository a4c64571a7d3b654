"""Function packages: references, the runtime's manifests (pure), and revisions, runtime objects and mTLS
reachability against the real API server."""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import datetime
import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509

from crossfn import engine, errors
from crossfn.controller import _settings
from crossfn.controller.kube import _api
from crossfn.controller.packages import (
    _functionrevisions,
    _functions,
    _package_runtime,
    _packages,
)
from crossfn.controller.runtime import _tls
from crossfn.proto.v1 import run_function_pb2 as fnv1

from .fake_api import FakeApi

PKG = "pkg.crossplane.io/v1"
DRC = "pkg.crossplane.io/v1beta1"
IMAGE = "xpkg.crossplane.io/acme/function-custom"


# -- references ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ref", "want"),
    [
        ("xpkg.crossplane.io/acme/function-x:v1.2.3", "xpkg.crossplane.io/acme/function-x:v1.2.3"),
        ("localhost:5000/fn:dev", "localhost:5000/fn:dev"),
        ("registry.example.org/a/b/c_d__e:v1", "registry.example.org/a/b/c_d__e:v1"),
        (f"index.docker.io/acme/fn@sha256:{'a' * 64}", f"index.docker.io/acme/fn@sha256:{'a' * 64}"),
        (f"index.docker.io/acme/fn:v1@sha256:{'b' * 64}", f"index.docker.io/acme/fn@sha256:{'b' * 64}"),
    ],
    ids=[
        "tag",
        "localhost with port",
        "nested path and separators",
        "digest",
        "tag and digest: the digest runs",
    ],
)
def test_parse_reference(ref: str, want: str) -> None:
    assert _packages.parse_reference(ref).image == want


@pytest.mark.parametrize(
    ("ref", "why"),
    [
        ("", "it is empty"),
        (
            "acme/function-x:v1",
            "a registry is required, as in xpkg.crossplane.io/<organization>/<function>:<tag>",
        ),
        ("function-x:v1", "a registry is required, as in xpkg.crossplane.io/<organization>/<function>:<tag>"),
        ("xpkg.crossplane.io/acme/function-x", "a tag or digest is required"),
        ("xpkg.crossplane.io/acme/Function-X:v1", 'invalid repository "acme/Function-X"'),
        ("xpkg.crossplane.io/acme/fn:-v1", 'invalid tag "-v1"'),
        ("xpkg.crossplane.io/acme/fn@sha256:abc", 'invalid digest "sha256:abc"'),
        ("bad_host.io/acme/fn:v1", 'invalid registry "bad_host.io"'),
    ],
    ids=[
        "empty",
        "no registry",
        "bare name",
        "no tag",
        "upper case",
        "bad tag",
        "short digest",
        "bad registry",
    ],
)
def test_parse_reference_refuses(ref: str, why: str) -> None:
    with pytest.raises(errors.InputError) as info:
        _packages.parse_reference(ref)
    assert str(info.value) == f"cannot parse package reference {errors.quote(ref)}: {why}"


def test_tls_server_secret_name_fits_253() -> None:
    assert _packages.tls_server_secret_name("fn") == "fn-tls-server"
    long = _packages.tls_server_secret_name("f" * 300)
    assert len(long) == 253 and long.endswith("-tls-server")


@pytest.mark.parametrize(
    ("conditions", "want"),
    [
        ([], ("False", "UnhealthyPackageRevision", 'Package revision health is "Unknown"')),
        (
            [{"type": "RevisionHealthy", "status": "False", "message": "cannot get package: x"}],
            (
                "False",
                "UnhealthyPackageRevision",
                'Package revision health is "False" with message: cannot get package: x',
            ),
        ),
        (
            [
                {"type": "RevisionHealthy", "status": "True"},
                {"type": "RuntimeHealthy", "status": "False", "message": "m"},
            ],
            ("False", "UnhealthyPackageRevision", 'Package runtime health is "False" with message: m'),
        ),
        (
            [{"type": "RevisionHealthy", "status": "True"}, {"type": "RuntimeHealthy", "status": "True"}],
            ("True", "HealthyPackageRevision", ""),
        ),
    ],
    ids=["new revision", "revision unhealthy", "runtime unhealthy", "healthy"],
)
def test_package_health(conditions: list[dict[str, Any]], want: tuple[str, str, str]) -> None:
    assert _packages.package_health({"status": {"conditions": conditions}}) == want


# -- manifests ------------------------------------------------------------------------------------


def _revision(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": PKG,
        "kind": "FunctionRevision",
        "metadata": {"name": "fn-abc", "uid": "rev-uid", "labels": {"pkg.crossplane.io/package": "fn"}},
        "spec": {"image": f"{IMAGE}:v1", "tlsServerSecretName": "fn-tls-server", **spec},
    }


OWNER = {
    "apiVersion": PKG, "kind": "FunctionRevision", "name": "fn-abc", "uid": "rev-uid",
    "controller": True, "blockOwnerDeletion": True,
}  # fmt: skip


def test_deployment_without_template_is_crossplanes() -> None:
    got = _package_runtime.build_deployment(
        _revision(packagePullPolicy="Always", packagePullSecrets=[{"name": "pull"}]), None,
        namespace="ns", function="fn", service_account="fn-abc", image=f"{IMAGE}:v1",
    )  # fmt: skip
    selector = {"pkg.crossplane.io/revision": "fn-abc", "pkg.crossplane.io/function": "fn"}
    assert got == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "fn-abc", "namespace": "ns", "ownerReferences": [OWNER]},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": selector},
            "template": {
                "metadata": {"labels": selector},
                "spec": {
                    "securityContext": {"runAsNonRoot": True, "runAsUser": 2000, "runAsGroup": 2000},
                    "serviceAccountName": "fn-abc",
                    "imagePullSecrets": [{"name": "pull"}],
                    "volumes": [
                        {
                            "name": "tls-server-certs",
                            "secret": {
                                "secretName": "fn-tls-server",
                                "items": [{"key": k, "path": k} for k in ("tls.crt", "tls.key", "ca.crt")],
                            },
                        }
                    ],
                    "containers": [
                        {
                            "name": "package-runtime",
                            "image": f"{IMAGE}:v1",
                            "imagePullPolicy": "Always",
                            "securityContext": {
                                "runAsUser": 2000,
                                "runAsGroup": 2000,
                                "allowPrivilegeEscalation": False,
                                "privileged": False,
                                "runAsNonRoot": True,
                            },
                            "ports": [
                                {"name": "metrics", "containerPort": 8080},
                                {"name": "grpc", "containerPort": 9443},
                            ],
                            "volumeMounts": [
                                {"name": "tls-server-certs", "mountPath": "/tls/server", "readOnly": True}
                            ],
                            "env": [
                                {"name": "TLS_SERVER_CERTS_DIR", "value": "/tls/server"},
                                {
                                    "name": "FUNCTION_NAME",
                                    "valueFrom": {
                                        "fieldRef": {
                                            "fieldPath": "metadata.labels['pkg.crossplane.io/function']"
                                        }
                                    },
                                },
                                {
                                    "name": "REVISION_NAME",
                                    "valueFrom": {
                                        "fieldRef": {
                                            "fieldPath": "metadata.labels['pkg.crossplane.io/revision']"
                                        }
                                    },
                                },
                                {"name": "REVISION_UID", "value": "rev-uid"},
                            ],
                        }
                    ],
                },
            },
        },
    }


def test_deployment_template_is_the_base_and_forced_values_win() -> None:
    drc: dict[str, Any] = {
        "spec": {
            "deploymentTemplate": {
                "metadata": {"name": "custom", "labels": {"team": "a"}},
                "spec": {
                    "replicas": 3,
                    "selector": {"matchLabels": {"ignored": "yes"}},
                    "template": {
                        "metadata": {"labels": {"pod": "label"}},
                        "spec": {
                            "serviceAccountName": "external",
                            "imagePullSecrets": [{"name": "replaced"}],
                            "containers": [
                                {"name": "sidecar", "image": "busybox:1"},
                                {
                                    "name": "package-runtime", "image": "mirror.example.org/fn:v1",
                                    "args": ["--debug"], "env": [{"name": "TLS_SERVER_CERTS_DIR", "value": "/x"}],
                                    "ports": [{"name": "grpc", "containerPort": 9999}],
                                },
                            ],
                        },
                    },
                },
            }
        }
    }  # fmt: skip
    got = _package_runtime.build_deployment(
        _revision(), drc, namespace="ns", function="fn", service_account="fn-abc", image=f"{IMAGE}:v1"
    )
    spec = got["spec"]
    pod = spec["template"]["spec"]
    runtime = pod["containers"][0]
    assert got["metadata"]["name"] == "custom" and got["metadata"]["labels"] == {"team": "a"}
    assert spec["replicas"] == 3, "a template value is kept"
    assert spec["selector"] == {
        "matchLabels": {"pkg.crossplane.io/revision": "fn-abc", "pkg.crossplane.io/function": "fn"}
    }
    assert spec["template"]["metadata"]["labels"]["pod"] == "label", (
        "template pod labels are merged, not replaced"
    )
    assert pod["serviceAccountName"] == "external"
    assert "imagePullSecrets" not in pod, "replaced by the revision's (none)"
    assert [c["name"] for c in pod["containers"]] == ["package-runtime", "sidecar"], (
        "runtime container moved first"
    )
    assert runtime["image"] == "mirror.example.org/fn:v1", "a template image is used verbatim"
    assert runtime["args"] == ["--debug"]
    assert {"name": "TLS_SERVER_CERTS_DIR", "value": "/tls/server"} in runtime["env"], (
        "the TLS directory is forced"
    )
    assert [p for p in runtime["ports"] if p["name"] == "grpc"] == [{"name": "grpc", "containerPort": 9999}]
    assert (
        drc["spec"]["deploymentTemplate"]["spec"]["replicas"] == 3
        and len(drc["spec"]["deploymentTemplate"]["spec"]["template"]["spec"]["containers"]) == 2
    ), "the template itself is not modified"


def test_service_only_metadata_is_templatable() -> None:
    drc = {"spec": {"serviceTemplate": {"metadata": {"name": "svc", "annotations": {"a": "b"}}}}}
    got = _package_runtime.build_service(_revision(), drc, namespace="ns", function="fn")
    assert got == {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "svc", "namespace": "ns", "ownerReferences": [OWNER], "annotations": {"a": "b"}},
        "spec": {
            "clusterIP": "None",
            "selector": {"pkg.crossplane.io/revision": "fn-abc", "pkg.crossplane.io/function": "fn"},
            "ports": [
                {"name": "grpc", "protocol": "TCP", "port": 9443, "targetPort": "grpc", "appProtocol": "tls"}
            ],
        },
    }
    assert _package_runtime.endpoint("svc", "ns") == "dns:///svc.ns:9443"


def test_service_account_pull_secrets_in_order_without_duplicates() -> None:
    got = _package_runtime.build_service_account(
        _revision(packagePullSecrets=[{"name": "a"}, {"name": "b"}]), None,
        namespace="ns", pull_secrets=[{"name": "b"}, {"name": "c"}],
    )  # fmt: skip
    assert got["metadata"]["name"] == "fn-abc"
    assert got["imagePullSecrets"] == [{"name": "a"}, {"name": "b"}, {"name": "c"}]


# -- certificates ----------------------------------------------------------------------------------


def test_certificates_have_crossplanes_names_and_usages() -> None:
    ca = _tls.new_ca()
    ca_cert = x509.load_pem_x509_certificate(ca.cert)
    assert ca_cert.serial_number == 2022
    assert ca_cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    assert ca.key.startswith(b"-----BEGIN RSA PRIVATE KEY-----"), "PKCS#1, as Go writes it"
    server = _tls.new_certificate(
        ca, common_name="fn", dns_names=["fn", "fn.ns", "fn.ns.svc"], usage="server"
    )
    cert = x509.load_pem_x509_certificate(server.cert)
    assert cert.issuer == ca_cert.subject
    assert cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value.get_values_for_type(
        x509.DNSName
    ) == ["fn", "fn.ns", "fn.ns.svc"]
    assert list(cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value) == [
        x509.oid.ExtendedKeyUsageOID.SERVER_AUTH
    ]
    client = x509.load_pem_x509_certificate(
        _tls.new_certificate(ca, common_name="c", dns_names=["c.ns"], usage="client").cert
    )
    assert list(client.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value) == [
        x509.oid.ExtendedKeyUsageOID.CLIENT_AUTH
    ]


async def test_a_filled_certificate_secret_is_never_regenerated() -> None:
    api = FakeApi()
    ca = _tls.new_ca()
    api.put(
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": "s", "namespace": "ns"},
            "data": {"tls.crt": "eA=="},
        }
    )
    done = await _tls.ensure_certificate(
        api, "ns", "s", ca, common_name="fn", dns_names=["fn"], usage="server"
    )
    assert not done and [c for c in api.calls if c[0] == "update"] == []


async def test_missing_server_secret_is_not_found_unless_create() -> None:
    api = FakeApi()
    ca = _tls.new_ca()
    with pytest.raises(_api.NotFound):
        await _tls.ensure_certificate(api, "ns", "s", ca, common_name="fn", dns_names=["fn"], usage="server")
    assert await _tls.ensure_certificate(
        api, "ns", "s", ca, common_name="fn", dns_names=["fn"], usage="client", create=True
    )


# -- reconcilers against the API server ---------------------------------------------------------------


class Snapshot:
    """An informer's read side, refreshed from the API server on demand (deterministic for tests)."""

    def __init__(self, api: Any, api_version: str, kind: str) -> None:
        self.api, self.api_version, self.kind = api, api_version, kind
        self.objects: list[dict[str, Any]] = []
        self.handlers: list[Callable[[str, dict[str, Any], dict[str, Any] | None], None]] = []

    async def refresh(self) -> None:
        self.objects, _ = await self.api.list(self.api_version, self.kind)

    def get(self, name: str, namespace: str = "") -> dict[str, Any] | None:
        return next(
            (
                o
                for o in self.objects
                if o["metadata"]["name"] == name and o["metadata"].get("namespace", "") == namespace
            ),
            None,
        )

    def list(
        self, namespace: str | None = None, labels: Mapping[str, str] | None = None
    ) -> list[dict[str, Any]]:
        want = dict(labels or {}).items()
        return [o for o in self.objects if want <= (o["metadata"].get("labels") or {}).items()]

    def add_handler(self, fn: Callable[[str, dict[str, Any], dict[str, Any] | None], None]) -> None:
        self.handlers.append(fn)


class Events:
    def __init__(self) -> None:
        self.recorded: list[tuple[str, str, str, str]] = []

    async def event(self, obj: Mapping[str, Any], type: str, reason: str, message: str) -> None:
        self.recorded.append((obj["metadata"]["name"], type, reason, message))


@dataclasses.dataclass
class Runtime:
    """Both reconcilers over snapshots, in a fresh namespace with the controller's ServiceAccount."""

    api: Any
    namespace: str
    functions: Snapshot
    revisions: Snapshot
    events: Events
    packages: _packages.FunctionPackageReconciler
    runtime: _package_runtime.FunctionRuntimeReconciler

    async def function(self, name: str) -> None:
        await self.functions.refresh()
        await self.revisions.refresh()
        await self.packages.reconcile(name)
        await self.revisions.refresh()

    async def revision(self, name: str) -> Any:
        await self.functions.refresh()
        await self.revisions.refresh()
        return await self.runtime.reconcile(name)

    async def get(self, api_version: str, kind: str, name: str, namespace: str = "") -> dict[str, Any]:
        found = await self.api.get(api_version, kind, name, namespace)
        assert found is not None, f"{kind} {namespace}/{name} not found"
        return dict(found)


@pytest.fixture
async def runtime(kube: Any, crossplane_crds: list[str]) -> AsyncIterator[Runtime]:
    namespace = f"pkg-{uuid.uuid4().hex[:8]}"
    await kube.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
    await kube.create(
        {
            "apiVersion": "v1",
            "kind": "ServiceAccount",
            "metadata": {"name": "crossplane", "namespace": namespace},
        }
    )
    await _packages.initialize(kube, namespace)
    functions, revisions, events = (
        Snapshot(kube, PKG, "Function"),
        Snapshot(kube, PKG, "FunctionRevision"),
        Events(),
    )
    yield Runtime(
        kube, namespace, functions, revisions, events,
        _packages.FunctionPackageReconciler(kube, functions, revisions, events),
        _package_runtime.FunctionRuntimeReconciler(kube, revisions, functions, events, namespace=namespace),
    )  # fmt: skip
    await kube.delete("v1", "Namespace", namespace)


def _condition(obj: Mapping[str, Any], type_: str) -> dict[str, Any]:
    return next((c for c in (obj.get("status") or {}).get("conditions") or [] if c["type"] == type_), {})


async def _function(kube: Any, package: str, **spec: Any) -> str:
    name = f"function-{uuid.uuid4().hex[:8]}"
    await kube.create(
        {
            "apiVersion": PKG,
            "kind": "Function",
            "metadata": {"name": name},
            "spec": {"package": package, **spec},
        }
    )
    return name


async def _make_available(kube: Any, name: str, namespace: str) -> None:
    """Stand in for the Deployment controller and kubelet (there is none): mark the Deployment Available."""
    condition = {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable", "message": "ok",
                 "lastUpdateTime": "2026-01-01T00:00:00Z", "lastTransitionTime": "2026-01-01T00:00:00Z"}  # fmt: skip
    await kube.patch(
        "apps/v1", "Deployment", name, namespace, {"status": {"conditions": [condition]}}, status=True
    )


@pytest.mark.cluster
async def test_active_revision_runs_as_deployment_service_and_secrets(runtime: Runtime) -> None:
    fn = await _function(runtime.api, f"{IMAGE}:v1.0.0")
    await runtime.function(fn)
    [rev] = runtime.revisions.list(labels={"pkg.crossplane.io/package": fn})
    r, ns = rev["metadata"]["name"], runtime.namespace
    assert r == _functionrevisions.revision_name(fn, f"{IMAGE}:v1.0.0")
    assert rev["spec"]["desiredState"] == "Active" and rev["spec"]["revision"] == 1
    assert rev["spec"]["tlsServerSecretName"] == f"{fn}-tls-server"
    assert rev["spec"]["runtimeConfigRef"]["name"] == "default"
    assert rev["metadata"]["ownerReferences"][0]["kind"] == "Function"

    await runtime.revision(r)
    rev = await runtime.get(PKG, "FunctionRevision", r)
    assert rev["status"]["endpoint"] == f"dns:///{fn}.{ns}:9443"
    assert rev["status"]["resolvedImage"] == f"{IMAGE}:v1.0.0"
    assert _condition(rev, "RevisionHealthy")["status"] == "True"
    unavailable = (
        "post establish runtime hook failed for package: "
        'function package deployment has no condition of type "Available" yet'
    )
    assert _condition(rev, "RuntimeHealthy") | {"lastTransitionTime": ""} == {
        "type": "RuntimeHealthy", "status": "False", "reason": "UnhealthyPackageRevision",
        "message": unavailable, "lastTransitionTime": "", "observedGeneration": 1,
    }  # fmt: skip
    assert (r, "Warning", "SyncPackage", unavailable) in runtime.events.recorded
    service = await runtime.get("v1", "Service", fn, ns)
    assert service["spec"]["clusterIP"] == "None" and service["spec"]["ports"][0]["port"] == 9443
    deployment = await runtime.get("apps/v1", "Deployment", r, ns)
    assert deployment["spec"]["template"]["spec"]["containers"][0]["image"] == f"{IMAGE}:v1.0.0"
    assert deployment["spec"]["template"]["spec"]["serviceAccountName"] == r
    await runtime.get("v1", "ServiceAccount", r, ns)
    for obj in (service, deployment, await runtime.get("v1", "Secret", f"{fn}-tls-server", ns)):
        assert obj["metadata"]["ownerReferences"][0]["uid"] == rev["metadata"]["uid"]
    managers = {m["manager"] for m in deployment["metadata"]["managedFields"]}
    assert "pkg.crossplane.io/runtime" in managers

    await runtime.function(fn)
    function = await runtime.get(PKG, "Function", fn)
    assert (
        _condition(function, "Healthy")["message"]
        == f'Package runtime health is "False" with message: {unavailable}'
    )
    assert _condition(function, "Installed")["reason"] == "ActivePackageRevision"

    await _make_available(runtime.api, r, ns)
    await runtime.revision(r)
    rev = await runtime.get(PKG, "FunctionRevision", r)
    assert [
        _condition(rev, t).get("status") for t in ("RevisionHealthy", "RuntimeHealthy", "RuntimeActive")
    ] == ["True"] * 3
    assert (r, "Normal", "SyncPackage", "Successfully configured package revision") in runtime.events.recorded
    await runtime.function(fn)
    function = await runtime.get(PKG, "Function", fn)
    assert _condition(function, "Healthy")["status"] == "True"
    assert function["status"]["currentRevision"] == r
    assert (
        fn,
        "Normal",
        "InstallPackageRevision",
        "Successfully installed package revision",
    ) in runtime.events.recorded


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextlib.contextmanager
def _serve(certs: Path) -> Iterator[int]:
    """``crossfn function serve`` with the generated server certificate, as the Deployment would run it."""
    port = _free_port()
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    process = subprocess.Popen(
        [sys.executable, "-m", "crossfn", "function", "serve", "auto-ready", "--address", f"127.0.0.1:{port}",
         "--tls-server-certs-dir", str(certs)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30  # listening before the first call: a loaded machine starts it slowly
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
                break
            assert process.poll() is None and time.monotonic() < deadline, "the function server did not start"
            time.sleep(0.05)
        yield port
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.mark.cluster
async def test_function_server_with_generated_certificates_is_reached_over_mtls(
    runtime: Runtime, tmp_path: Path
) -> None:
    fn = await _function(runtime.api, f"{IMAGE}:v1.0.0")
    await runtime.function(fn)
    [rev] = runtime.revisions.list(labels={"pkg.crossplane.io/package": fn})
    await runtime.revision(rev["metadata"]["name"])
    ns = runtime.namespace
    secret = await runtime.get("v1", "Secret", f"{fn}-tls-server", ns)
    assert sorted(secret["data"]) == ["ca.crt", "tls.crt", "tls.key"]
    for key, value in secret["data"].items():
        (tmp_path / key).write_bytes(base64.b64decode(value))
    tls = await _functions.load_tls(runtime.api, _settings.FunctionSettings(namespace=ns))
    assert tls is not None
    request = fnv1.RunFunctionRequest(meta=fnv1.RequestMeta(tag="t"))
    with _serve(tmp_path) as port:
        runner = engine.GrpcRunner(
            {fn: f"127.0.0.1:{port}"}, tls=dataclasses.replace(tls, server_name=f"{fn}.{ns}"), timeout=30
        )
        try:
            response = await runner.run_function(fn, request)
        finally:
            await runner.aclose()
        assert response.meta.tag == "t"
        wrong = engine.GrpcRunner(
            {fn: f"127.0.0.1:{port}"}, tls=dataclasses.replace(tls, server_name="other.example"), timeout=3
        )
        try:
            with pytest.raises(errors.FunctionRunError):
                await wrong.run_function(fn, request)
        finally:
            await wrong.aclose()


@pytest.mark.cluster
async def test_new_package_version_replaces_the_active_revision(runtime: Runtime) -> None:
    fn = await _function(runtime.api, f"{IMAGE}:v1")
    await runtime.function(fn)
    [first] = runtime.revisions.list(labels={"pkg.crossplane.io/package": fn})
    await runtime.revision(first["metadata"]["name"])
    await runtime.get("apps/v1", "Deployment", first["metadata"]["name"], runtime.namespace)
    for version in ("v2", "v3"):
        await runtime.api.patch(PKG, "Function", fn, "", {"spec": {"package": f"{IMAGE}:{version}"}})
        await runtime.function(fn)
    revisions = {
        r["metadata"]["name"]: r["spec"]
        for r in runtime.revisions.list(labels={"pkg.crossplane.io/package": fn})
    }
    v2, v3 = (_functionrevisions.revision_name(fn, f"{IMAGE}:{v}") for v in ("v2", "v3"))
    assert first["metadata"]["name"] not in revisions, "the oldest beyond revisionHistoryLimit 1 is deleted"
    assert {n: (s.get("desiredState"), s["revision"]) for n, s in revisions.items()} == {
        v2: ("Inactive", 2),
        v3: ("Active", 3),
    }
    await runtime.api.patch(PKG, "Function", fn, "", {"spec": {"package": f"{IMAGE}:v2"}})
    await runtime.function(fn)
    revisions = {
        r["metadata"]["name"]: r["spec"]
        for r in runtime.revisions.list(labels={"pkg.crossplane.io/package": fn})
    }
    assert {n: (s.get("desiredState"), s["revision"]) for n, s in revisions.items()} == {
        v2: ("Active", 4),
        v3: ("Inactive", 3),
    }, "a reverted package becomes the newest revision again"


@pytest.mark.cluster
async def test_inactive_revision_loses_its_deployment_only(runtime: Runtime) -> None:
    fn = await _function(runtime.api, f"{IMAGE}:v1")
    await runtime.function(fn)
    [rev] = runtime.revisions.list(labels={"pkg.crossplane.io/package": fn})
    r, ns = rev["metadata"]["name"], runtime.namespace
    await runtime.revision(r)
    await runtime.api.patch(PKG, "FunctionRevision", r, "", {"spec": {"desiredState": "Inactive"}})
    await runtime.revision(r)
    assert await runtime.api.get("apps/v1", "Deployment", r, ns) is None
    await runtime.get("v1", "Service", fn, ns)
    await runtime.get("v1", "Secret", f"{fn}-tls-server", ns)


@pytest.mark.cluster
async def test_manual_activation_leaves_a_new_revision_inactive(runtime: Runtime) -> None:
    fn = await _function(runtime.api, f"{IMAGE}:v1", revisionActivationPolicy="Manual")
    await runtime.function(fn)
    [rev] = runtime.revisions.list(labels={"pkg.crossplane.io/package": fn})
    assert rev["spec"]["desiredState"] == "", "left for the user to activate"
    function = await runtime.get(PKG, "Function", fn)
    assert _condition(function, "Installed") | {"lastTransitionTime": ""} == {
        "type": "Installed", "status": "False", "reason": "InactivePackageRevision",
        "message": "Package is inactive", "lastTransitionTime": "", "observedGeneration": 1,
    }  # fmt: skip
    await runtime.api.patch(
        PKG, "FunctionRevision", rev["metadata"]["name"], "", {"spec": {"desiredState": "Active"}}
    )
    await runtime.function(fn)
    rev = await runtime.get(PKG, "FunctionRevision", rev["metadata"]["name"])
    assert rev["spec"]["desiredState"] == "Active", "the user's activation is kept"
    assert _condition(await runtime.get(PKG, "Function", fn), "Installed")["status"] == "True"


@pytest.mark.cluster
async def test_unparsable_package_is_a_condition_and_a_warning(runtime: Runtime) -> None:
    """A reference Crossplane's CRD refuses never gets here (its CEL rule); one it lets through that is no
    image reference is reported on the Function."""
    with pytest.raises(
        _api.Invalid, match=r"spec.package: Invalid value: .* must be a fully qualified image name"
    ):
        await _function(runtime.api, "function-custom:v1")
    fn = await _function(runtime.api, "xpkg.example.org/e2e/function-custom:not a tag")
    await runtime.function(fn)
    assert runtime.revisions.list(labels={"pkg.crossplane.io/package": fn}) == []
    message = (
        'cannot unpack package: cannot parse package reference "xpkg.example.org/e2e/function-custom:not a tag": '
        'invalid tag "not a tag"'
    )
    function = await runtime.get(PKG, "Function", fn)
    assert [
        (c["type"], c["status"], c["reason"], c["message"]) for c in function["status"]["conditions"]
    ] == [
        ("Installed", "False", "UnpackingPackage", message),
        ("Healthy", "False", "UnhealthyPackageRevision", message),
    ]
    assert runtime.events.recorded == [(fn, "Warning", "UnpackPackage", message)]


@pytest.mark.cluster
async def test_runtime_config_overrides_names_and_certificates(runtime: Runtime) -> None:
    config = f"config-{uuid.uuid4().hex[:8]}"
    await runtime.api.create({
        "apiVersion": DRC, "kind": "DeploymentRuntimeConfig", "metadata": {"name": config},
        "spec": {
            "serviceTemplate": {"metadata": {"name": "custom-svc"}},
            "serviceAccountTemplate": {"metadata": {"name": "custom-sa", "labels": {"a": "b"}}},
            "deploymentTemplate": {"metadata": {"name": "custom-deploy"}, "spec": {"replicas": 2, "selector": {}, "template": {}}},
        },
    })  # fmt: skip
    fn = await _function(runtime.api, f"{IMAGE}:v1", runtimeConfigRef={"name": config})
    await runtime.function(fn)
    [rev] = runtime.revisions.list(labels={"pkg.crossplane.io/package": fn})
    await runtime.revision(rev["metadata"]["name"])
    ns = runtime.namespace
    rev = await runtime.get(PKG, "FunctionRevision", rev["metadata"]["name"])
    assert rev["status"]["endpoint"] == f"dns:///custom-svc.{ns}:9443"
    deployment = await runtime.get("apps/v1", "Deployment", "custom-deploy", ns)
    assert deployment["spec"]["replicas"] == 2
    assert deployment["spec"]["template"]["spec"]["serviceAccountName"] == "custom-sa"
    assert (await runtime.get("v1", "ServiceAccount", "custom-sa", ns))["metadata"]["labels"] == {"a": "b"}
    secret = await runtime.get("v1", "Secret", f"{fn}-tls-server", ns)
    cert = x509.load_pem_x509_certificate(base64.b64decode(secret["data"]["tls.crt"]))
    assert cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value.get_values_for_type(
        x509.DNSName
    ) == ["custom-svc", f"custom-svc.{ns}", f"custom-svc.{ns}.svc"]
    await runtime.api.delete(DRC, "DeploymentRuntimeConfig", config)


@pytest.mark.cluster
async def test_missing_runtime_config_is_reported_on_the_revision(runtime: Runtime) -> None:
    fn = await _function(runtime.api, f"{IMAGE}:v1", runtimeConfigRef={"name": "does-not-exist"})
    await runtime.function(fn)
    [rev] = runtime.revisions.list(labels={"pkg.crossplane.io/package": fn})
    result = await runtime.revision(rev["metadata"]["name"])
    assert result.requeue_after == _package_runtime.RETRY_SECONDS
    rev = await runtime.get(PKG, "FunctionRevision", rev["metadata"]["name"])
    message = (
        "cannot prepare runtime manifest builder options: cannot get referenced deployment runtime config: "
        'deploymentruntimeconfigs.pkg.crossplane.io "does-not-exist" not found'
    )
    assert _condition(rev, "RuntimeHealthy")["message"] == message
    assert (rev["metadata"]["name"], "Warning", "SyncPackage", message) in runtime.events.recorded
    assert "endpoint" not in rev["status"]


@pytest.mark.cluster
async def test_builtin_and_annotated_functions_are_left_alone(runtime: Runtime) -> None:
    builtin = await _function(runtime.api, "xpkg.crossplane.io/crossplane-contrib/function-auto-ready:v0.2.1")
    annotated = f"function-{uuid.uuid4().hex[:8]}"
    await runtime.api.create({
        "apiVersion": PKG, "kind": "Function",
        "metadata": {"name": annotated, "annotations": {_functions.ENDPOINT_ANNOTATION: "127.0.0.1:9443"}},
        "spec": {"package": f"{IMAGE}:v1"},
    })  # fmt: skip
    for name in (builtin, annotated):
        await runtime.function(name)
        assert runtime.revisions.list(labels={"pkg.crossplane.io/package": name}) == []


async def test_initialize_is_idempotent() -> None:
    api = FakeApi(scopes={(DRC, "DeploymentRuntimeConfig"): False})
    now = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
    made = await _packages.initialize(api, "ns", now=lambda: now)
    assert made == ["DeploymentRuntimeConfig default", "Secret ns/crossplane-tls-client"]
    assert await _packages.initialize(api, "ns", now=lambda: now) == []
    client = api.objects[("v1", "Secret", "ns", "crossplane-tls-client")]
    cert = x509.load_pem_x509_certificate(base64.b64decode(client["data"]["tls.crt"]))
    assert cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value.get_values_for_type(
        x509.DNSName
    ) == ["crossplane.ns"]
