"""The runtime of a function package: its active FunctionRevision as a Deployment, a Service and Secrets.

Crossplane's package runtime (upstream controllers-5.3-controllers-5.6) runs every
Active FunctionRevision as a Deployment of the package image behind a headless
Service on port 9443, with a server certificate signed by the controller's CA,
and writes ``status.endpoint`` (``dns:///<service>.<namespace>:9443``) where
the XR controller dials it. :class:`FunctionRuntimeReconciler` does the same,
for the revisions ``_packages`` makes (revisions of built-in and annotated
Functions have no runtime and are skipped), in Crossplane's order:

1. **builder options**: the revision's ``runtimeConfigRef`` must name a
   DeploymentRuntimeConfig that exists, and the controller's ServiceAccount
   must exist (its ``imagePullSecrets`` are inherited);
2. an **Inactive** revision has its Deployment deleted (only one it
   controls, with a UID precondition); Service and Secrets stay;
3. **pre hook**: the Service, ``status.endpoint``, the server TLS Secret
   (an empty shell, then the certificate when all its keys are empty);
4. **post hook**: the ServiceAccount and the Deployment, whose ``Available``
   condition decides ``RuntimeHealthy``.

Objects are server-side applied as ``pkg.crossplane.io/runtime`` with force,
each controlled by the revision, so the garbage collector removes them with
it. A failure is reported as Crossplane words it (``RuntimeHealthy=False``,
Warning ``SyncPackage``, ``pre establish runtime hook failed for package: …``)
and retried; it never stops the controller.

crossfn pulls no images, so the revision check Crossplane's package
controller makes is reduced to the reference itself: a revision whose
``spec.image`` is not a full reference is ``RevisionHealthy=False`` and gets
no Deployment. The DeploymentRuntimeConfig overrides of upstream controllers-5.6 are applied by
:func:`build_deployment`, :func:`build_service` and :func:`build_service_account`,
pure functions tested on their own.
"""

from __future__ import annotations

import copy
import datetime
from collections.abc import Callable, Mapping
from typing import Any

from crossfn import errors
from crossfn.controller.kube import _api
from crossfn.controller.packages import _functions, _packages
from crossfn.controller.runtime import _conditions, _controller, _events, _informer, _tls
from crossfn.engine import _clock
from crossfn.engine import _metadata as engine_metadata

__all__ = [
    "FIELD_MANAGER",
    "GRPC_PORT",
    "FunctionRuntimeReconciler",
    "build_deployment",
    "build_service",
    "build_service_account",
    "endpoint",
]

FIELD_MANAGER = "pkg.crossplane.io/runtime"
LABEL_REVISION = "pkg.crossplane.io/revision"
LABEL_FUNCTION = "pkg.crossplane.io/function"
RUNTIME_CONTAINER = "package-runtime"
GRPC_PORT = 9443
METRICS_PORT = 8080
TLS_VOLUME = "tls-server-certs"
TLS_DIR = "/tls/server"
RETRY_SECONDS = 10.0
"""Until the Deployment is Available (without a Deployment watch) or a missing config appears."""

_POD_SECURITY = {"runAsNonRoot": True, "runAsUser": 2000, "runAsGroup": 2000}
_CONTAINER_SECURITY = {
    "runAsUser": 2000,
    "runAsGroup": 2000,
    "allowPrivilegeEscalation": False,
    "privileged": False,
    "runAsNonRoot": True,
}

Object = dict[str, Any]


class _Failed(errors.CrossfnError):
    """A step of the runtime failed; the message is Crossplane's wrapped error text."""


def _name(obj: Mapping[str, Any] | None) -> str:
    return str(((obj or {}).get("metadata") or {}).get("name") or "")


def _template(drc: Mapping[str, Any] | None, which: str) -> dict[str, Any]:
    return dict(((drc or {}).get("spec") or {}).get(which) or {})


def _owner(rev: Mapping[str, Any]) -> dict[str, Any]:
    return engine_metadata.controller_reference(
        rev, api_version=_packages.API_VERSION, kind="FunctionRevision"
    )


def _metadata(template: Mapping[str, Any], name: str, namespace: str, rev: Mapping[str, Any]) -> Object:
    """A runtime object's metadata: name, labels and annotations from the template; namespace and owner forced."""
    meta = template.get("metadata") or {}
    out: Object = {"name": meta.get("name") or name, "namespace": namespace, "ownerReferences": [_owner(rev)]}
    for field in ("labels", "annotations"):
        if meta.get(field):
            out[field] = dict(meta[field])
    return out


def endpoint(service: str, namespace: str) -> str:
    """The revision's ``status.endpoint``: ``dns:///<service>.<namespace>:9443``."""
    return f"dns:///{service}.{namespace}:{GRPC_PORT}"


def build_service(
    rev: Mapping[str, Any], drc: Mapping[str, Any] | None, *, namespace: str, function: str
) -> Object:
    """The headless Service selecting the revision's pods; only its metadata is templatable."""
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": _metadata(_template(drc, "serviceTemplate"), function, namespace, rev),
        "spec": {
            "clusterIP": "None",
            "selector": {LABEL_REVISION: _name(rev), LABEL_FUNCTION: function},
            "ports": [
                {
                    "name": "grpc",
                    "protocol": "TCP",
                    "port": GRPC_PORT,
                    "targetPort": "grpc",
                    "appProtocol": "tls",
                }
            ],
        },
    }


def build_service_account(
    rev: Mapping[str, Any], drc: Mapping[str, Any] | None, *, namespace: str, pull_secrets: list[Any]
) -> Object:
    """The pods' ServiceAccount, named ``R`` unless the template names it; pull secrets deduplicated in order."""
    secrets: list[Any] = []
    for s in [*((rev.get("spec") or {}).get("packagePullSecrets") or []), *pull_secrets]:
        if s not in secrets:
            secrets.append(s)
    out: Object = {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": _metadata(_template(drc, "serviceAccountTemplate"), _name(rev), namespace, rev),
    }
    if secrets:
        out["imagePullSecrets"] = secrets
    return out


def _upsert(items: list[Object], item: Object, *, replace: bool) -> None:
    """Add ``item`` to a list keyed by ``name``; an existing entry stays unless ``replace``."""
    for i, existing in enumerate(items):
        if existing.get("name") == item["name"]:
            if replace:
                items[i] = item
            return
    items.append(item)


def build_deployment(
    rev: Mapping[str, Any],
    drc: Mapping[str, Any] | None,
    *,
    namespace: str,
    function: str,
    service_account: str,
    image: str,
) -> Object:
    """The Deployment: the template first, then Crossplane's defaults and forced values, in its order
    (upstream controllers-5.4)."""
    template = _template(drc, "deploymentTemplate")
    rev_spec, rev_name = rev.get("spec") or {}, _name(rev)
    spec: Object = copy.deepcopy(dict(template.get("spec") or {}))
    pod = spec.setdefault("template", {})
    pod_spec = pod.setdefault("spec", {})
    containers = pod_spec.setdefault("containers", [])
    index = next((i for i, c in enumerate(containers) if c.get("name") == RUNTIME_CONTAINER), None)
    runtime: Object = containers.pop(index) if index is not None else {"name": RUNTIME_CONTAINER}
    containers.insert(0, runtime)
    spec.setdefault("replicas", 1)
    pod_spec.setdefault("securityContext", dict(_POD_SECURITY))
    runtime.setdefault("imagePullPolicy", "IfNotPresent")
    runtime.setdefault("securityContext", dict(_CONTAINER_SECURITY))
    pod_spec.setdefault("serviceAccountName", service_account)
    selector = {LABEL_REVISION: rev_name, LABEL_FUNCTION: function}
    spec["selector"] = {"matchLabels": dict(selector)}
    pod.setdefault("metadata", {}).setdefault("labels", {}).update(selector)
    pod_spec.pop("imagePullSecrets", None)
    if rev_spec.get("packagePullSecrets"):
        pod_spec["imagePullSecrets"] = list(rev_spec["packagePullSecrets"])
    ports: list[Object] = runtime.setdefault("ports", [])
    _upsert(ports, {"name": "metrics", "containerPort": METRICS_PORT}, replace=False)
    if rev_spec.get("packagePullPolicy"):
        runtime["imagePullPolicy"] = rev_spec["packagePullPolicy"]
    secret = str(rev_spec.get("tlsServerSecretName") or _packages.tls_server_secret_name(function))
    items = [{"key": k, "path": k} for k in ("tls.crt", "tls.key", "ca.crt")]
    _upsert(
        pod_spec.setdefault("volumes", []),
        {"name": TLS_VOLUME, "secret": {"secretName": secret, "items": items}},
        replace=True,
    )
    _upsert(
        runtime.setdefault("volumeMounts", []),
        {"name": TLS_VOLUME, "mountPath": TLS_DIR, "readOnly": True},
        replace=True,
    )
    env: list[Object] = runtime.setdefault("env", [])
    _upsert(env, {"name": "TLS_SERVER_CERTS_DIR", "value": TLS_DIR}, replace=True)
    _upsert(ports, {"name": "grpc", "containerPort": GRPC_PORT}, replace=False)
    for name, label in (("FUNCTION_NAME", LABEL_FUNCTION), ("REVISION_NAME", LABEL_REVISION)):
        field = {"fieldRef": {"fieldPath": f"metadata.labels['{label}']"}}
        _upsert(env, {"name": name, "valueFrom": field}, replace=True)
    _upsert(
        env,
        {"name": "REVISION_UID", "value": str((rev.get("metadata") or {}).get("uid") or "")},
        replace=True,
    )
    runtime.setdefault("image", image)
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": _metadata(template, rev_name, namespace, rev),
        "spec": spec,
    }


class FunctionRuntimeReconciler:
    """Reconciles one FunctionRevision (key: its name) of a package Function; see the module docstring."""

    def __init__(
        self,
        api: _api.Api,
        revisions: _informer.Feed,
        functions: _informer.Reader,
        recorder: _events.Recorder | None = None,
        *,
        namespace: str,
        service_account: str = "crossplane",
        configs: _informer.Feed | None = None,
        deployments: _informer.Feed | None = None,
        clock: Callable[[], datetime.datetime] = _clock.utcnow,
    ) -> None:
        """``configs`` (DeploymentRuntimeConfigs) and ``deployments`` (of ``namespace``) are optional
        informers: with them a changed config or Deployment re-reconciles its revisions at once."""
        self._api = api
        self._revisions = revisions
        self._functions = functions
        self._recorder = recorder or _events.NoEvents()
        self._namespace = namespace
        self._service_account = service_account
        self._configs = configs
        self._deployments = deployments
        self._clock = clock

    def watch(self, enqueue: Callable[[str], None]) -> None:
        """Enqueue a revision when it, its DeploymentRuntimeConfig or its Deployment changes."""

        def on_revision(event_type: str, obj: Object, old: Object | None) -> None:
            enqueue(_name(obj))

        def on_config(event_type: str, obj: Object, old: Object | None) -> None:
            for rev in self._revisions.list():
                if ((rev.get("spec") or {}).get("runtimeConfigRef") or {}).get("name") == _name(obj):
                    enqueue(_name(rev))

        def on_deployment(event_type: str, obj: Object, old: Object | None) -> None:
            for ref in (obj.get("metadata") or {}).get("ownerReferences") or ():
                if ref.get("controller") and ref.get("kind") == "FunctionRevision":
                    enqueue(str(ref.get("name") or ""))

        self._revisions.add_handler(on_revision)
        if self._configs is not None:
            self._configs.add_handler(on_config)
        if self._deployments is not None:
            self._deployments.add_handler(on_deployment)

    async def reconcile(self, key: str) -> _controller.Result:
        rev = self._revisions.get(key)
        if rev is None or (rev.get("metadata") or {}).get("deletionTimestamp") or _packages.is_paused(rev):
            return _controller.Result()
        function = str(((rev.get("metadata") or {}).get("labels") or {}).get(_functions.LABEL_PACKAGE) or "")
        fn = self._functions.get(function) if function else None
        if fn is None or _functions.route(fn).kind != "package":
            return _controller.Result()  # not a package this runtime runs
        status = copy.deepcopy(dict(rev.get("status") or {}))
        image = await self._check_revision(rev, status)
        try:
            drc, pull_secrets = await self._options(rev)
        except _Failed as exc:
            return await self._failed(rev, status, f"cannot prepare runtime manifest builder options: {exc}")
        if (rev.get("spec") or {}).get("desiredState") != "Active":
            await self._deactivate(rev, drc)
            await self._write_status(rev, status)
            return _controller.Result()
        try:
            status["endpoint"] = await self._pre_hook(rev, drc, function)
        except _Failed as exc:
            return await self._failed(rev, status, f"pre establish runtime hook failed for package: {exc}")
        if image is None:
            self._set(
                rev,
                status,
                "RuntimeHealthy",
                "False",
                "UnhealthyPackageRevision",
                message="Package revision is not healthy yet",
            )
            await self._write_status(rev, status)
            return _controller.Result()
        try:
            await self._post_hook(rev, drc, function, image, pull_secrets)
        except _Failed as exc:
            return await self._failed(rev, status, f"post establish runtime hook failed for package: {exc}")
        was = _conditions.get_condition(rev, "RuntimeHealthy").get("status") == "True"
        self._set(rev, status, "RuntimeHealthy", "True", "HealthyPackageRevision")
        self._set(rev, status, "RuntimeActive", "True", "ActiveRuntime")
        self._set(rev, status, "Healthy", "True", "HealthyPackageRevision")
        await self._write_status(rev, status)
        if not was:
            await self._recorder.event(
                rev, "Normal", "SyncPackage", "Successfully configured package revision"
            )
        return _controller.Result()

    def _set(
        self,
        rev: Mapping[str, Any],
        status: Object,
        type_: str,
        state: str,
        reason: str,
        *,
        message: str = "",
    ) -> None:
        holder = {"status": status}
        _conditions.set_condition(
            holder, _conditions.condition(rev, type_, state, reason, now=self._clock(), message=message)
        )

    async def _check_revision(self, rev: Mapping[str, Any], status: Object) -> str | None:
        """``RevisionHealthy`` from the package reference (crossfn pulls nothing); the image, or ``None``."""
        try:
            image = _packages.parse_reference(str((rev.get("spec") or {}).get("image") or "")).image
        except errors.InputError as exc:
            self._set(
                rev,
                status,
                "RevisionHealthy",
                "False",
                "UnhealthyPackageRevision",
                message=f"cannot get package: {exc}",
            )
            self._set(
                rev,
                status,
                "Healthy",
                "False",
                "UnhealthyPackageRevision",
                message=f"cannot get package: {exc}",
            )
            return None
        status["resolvedImage"] = image
        if _conditions.get_condition(rev, "RevisionHealthy").get("status") != "True":
            await self._recorder.event(
                rev, "Normal", "SyncPackage", "Successfully reconciled package revision"
            )
        self._set(rev, status, "RevisionHealthy", "True", "HealthyPackageRevision")
        return image

    async def _failed(self, rev: Mapping[str, Any], status: Object, message: str) -> _controller.Result:
        self._set(rev, status, "RuntimeHealthy", "False", "UnhealthyPackageRevision", message=message)
        self._set(rev, status, "Healthy", "False", "UnhealthyPackageRevision", message=message)
        await self._write_status(rev, status)
        await self._recorder.event(rev, "Warning", "SyncPackage", message)
        return _controller.Result(requeue_after=RETRY_SECONDS)

    async def _write_status(self, rev: Mapping[str, Any], status: Object) -> None:
        body = {
            "apiVersion": _packages.API_VERSION,
            "kind": "FunctionRevision",
            "metadata": {"name": _name(rev)},
            "status": status,
        }
        try:
            await self._api.apply(body, field_manager=_api.FIELD_MANAGER, status=True)
        except _api.NotFound:
            return  # deleted meanwhile

    async def _options(self, rev: Mapping[str, Any]) -> tuple[Object, list[Any]]:
        """The DeploymentRuntimeConfig and the controller ServiceAccount's pull secrets."""
        ref = (rev.get("spec") or {}).get("runtimeConfigRef") or {}
        name = str(ref.get("name") or "")
        if not name:
            raise _Failed("no deployment runtime config set")
        api_version = ref.get("apiVersion") or _packages.RUNTIME_CONFIG_API_VERSION
        if (
            api_version != _packages.RUNTIME_CONFIG_API_VERSION
            and (ref.get("kind") or "DeploymentRuntimeConfig") != "DeploymentRuntimeConfig"
        ):
            raise _Failed("runtime config is set but is an unknown apiVersion and kind")
        drc = self._configs.get(name) if self._configs is not None else None
        if drc is None:
            drc = await self._get(
                _packages.RUNTIME_CONFIG_API_VERSION,
                "DeploymentRuntimeConfig",
                name,
                "",
                "cannot get referenced deployment runtime config",
            )
        if drc is None:
            raise _Failed(
                f'cannot get referenced deployment runtime config: deploymentruntimeconfigs.pkg.crossplane.io "{name}" not found'
            )
        sa = await self._get(
            "v1",
            "ServiceAccount",
            self._service_account,
            self._namespace,
            "cannot get Crossplane service account",
        )
        if sa is None:
            raise _Failed(
                f'cannot get Crossplane service account: serviceaccounts "{self._service_account}" not found'
                f" (create ServiceAccount {self._service_account} in namespace {self._namespace}, "
                "or pass --service-account NAME of one that exists)"
            )
        return drc, list(sa.get("imagePullSecrets") or [])

    async def _get(self, api_version: str, kind: str, name: str, namespace: str, what: str) -> Object | None:
        try:
            return await self._api.get(api_version, kind, name, namespace)
        except _api.ApiError as exc:
            raise _Failed(f"{what}: {exc}") from exc

    async def _apply(self, obj: Mapping[str, Any], what: str) -> Object:
        try:
            return await self._api.apply(obj, field_manager=FIELD_MANAGER, force=True)
        except _api.ApiError as exc:
            raise _Failed(f"{what}: {exc}") from exc

    async def _deactivate(self, rev: Mapping[str, Any], drc: Mapping[str, Any]) -> None:
        """Delete the revision's Deployment, if it controls it; the rest stays for a re-activation."""
        name = str((_template(drc, "deploymentTemplate").get("metadata") or {}).get("name") or _name(rev))
        uid = str((rev.get("metadata") or {}).get("uid") or "")
        found = await self._api.get("apps/v1", "Deployment", name, self._namespace)
        if found is None or not any(
            r.get("controller") and r.get("uid") == uid
            for r in (found.get("metadata") or {}).get("ownerReferences") or ()
        ):
            return
        try:
            await self._api.delete(
                "apps/v1", "Deployment", name, self._namespace, uid=str(found["metadata"]["uid"])
            )
        except _api.NotFound:
            return

    async def _pre_hook(self, rev: Mapping[str, Any], drc: Mapping[str, Any], function: str) -> str:
        """The Service, the endpoint, and the server certificate Secret
        (upstream controllers-5.4, controllers-5.5)."""
        service = await self._apply(
            build_service(rev, drc, namespace=self._namespace, function=function),
            "cannot apply function package service",
        )
        secret_name = str(
            (rev.get("spec") or {}).get("tlsServerSecretName") or _packages.tls_server_secret_name(function)
        )
        shell = {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": secret_name, "namespace": self._namespace, "ownerReferences": [_owner(rev)]},
        }
        await self._apply(shell, "cannot apply function package secret")
        svc = _name(service)
        try:
            ca = await _tls.ensure_ca(self._api, self._namespace)
            await _tls.ensure_certificate(
                self._api, self._namespace, secret_name, ca, common_name=svc, usage="server",
                dns_names=[svc, f"{svc}.{self._namespace}", f"{svc}.{self._namespace}.svc"],
            )  # fmt: skip
        except errors.CrossfnError as exc:
            raise _Failed(f"cannot generate TLS certificates for {errors.quote(function)}: {exc}") from exc
        return endpoint(svc, self._namespace)

    async def _post_hook(
        self,
        rev: Mapping[str, Any],
        drc: Mapping[str, Any],
        function: str,
        image: str,
        pull_secrets: list[Any],
    ) -> None:
        """The ServiceAccount (unless the pods use another) and the Deployment, which must be Available."""
        sa = build_service_account(rev, drc, namespace=self._namespace, pull_secrets=pull_secrets)
        deployment = build_deployment(
            rev, drc, namespace=self._namespace, function=function, service_account=_name(sa), image=image
        )
        if deployment["spec"]["template"]["spec"].get("serviceAccountName") == _name(sa):
            live = await self._get(
                "v1",
                "ServiceAccount",
                _name(sa),
                self._namespace,
                "cannot apply function package service account",
            )
            extra = [
                s
                for s in (live or {}).get("imagePullSecrets") or []
                if s not in sa.get("imagePullSecrets", [])
            ]
            if extra:
                sa["imagePullSecrets"] = [*sa.get("imagePullSecrets", []), *extra]
            await self._apply(sa, "cannot apply function package service account")
        applied = await self._apply(deployment, "cannot apply function package deployment")
        available = _conditions.get_condition(applied, "Available")
        if available.get("status") == "Unknown" and "reason" not in available:
            raise _Failed('function package deployment has no condition of type "Available" yet')
        if available.get("status") != "True":
            raise _Failed(
                f"function package deployment is unavailable with message: {available.get('message', '')}"
            )
