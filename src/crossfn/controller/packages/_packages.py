"""Function packages: the revisions of a Function whose package crossfn runs as a Deployment
(upstream controllers-5.1).

A Function that is not a crossfn built-in and has no ``crossfn.io/endpoint``
annotation (``_functions.route`` says ``package``) is run the way Crossplane's
package manager runs it: this module keeps its FunctionRevisions, and
``_package_runtime`` turns the active one into a Deployment, a Service and
TLS Secrets. (Built-in and annotated Functions are ``_functionrevisions``'s;
the two reconcilers never touch the same Function.)

:class:`FunctionPackageReconciler` follows Crossplane's Function controller:

* ``spec.package`` must be a full reference: a registry, a repository and a
  tag or digest. Anything else is a user's mistake reported on the Function
  (``Installed=False/UnpackingPackage``, ``Healthy=False``, Warning
  ``UnpackPackage``: ``cannot unpack package: …``); no revision is made;
* one revision per package version, named ``FriendlyID(function, hash)`` as
  ``_functionrevisions.revision_name`` computes it, labelled
  ``pkg.crossplane.io/package``, controlled by the Function, with the
  Function's pull settings and ``runtimeConfigRef`` copied and
  ``tlsServerSecretName: <function>-tls-server``;
* ``revisionActivationPolicy: Automatic`` makes the current revision Active;
  under ``Manual`` a new revision is left for the user to activate. Every
  other Active revision is made Inactive regardless of the policy, so at most
  one revision serves;
* the current revision's number is raised above the others when it is not
  the highest (a reverted package becomes the newest again), and the oldest
  revision beyond ``revisionHistoryLimit`` is deleted, one per reconcile;
* the Function's ``Healthy`` comes from its current revision
  (``RevisionHealthy``, then ``RuntimeHealthy``), ``Installed`` from whether
  that revision is Active.

crossfn pulls no package image: a revision's package is the reference as
written (``status.resolvedImage`` is its fully qualified form), and its
``capabilities`` are left empty, which Crossplane reads as a composition
function.
"""

from __future__ import annotations

import copy
import dataclasses
import datetime
import re
from collections.abc import Callable, Mapping
from typing import Any

from crossfn import errors
from crossfn.controller.kube import _api
from crossfn.controller.packages import _functionrevisions, _functions
from crossfn.controller.runtime import _conditions, _controller, _events, _tls
from crossfn.engine import _clock, _metadata

__all__ = [
    "DEFAULT_RUNTIME_CONFIG",
    "PAUSED_ANNOTATION",
    "RUNTIME_CONFIG_API_VERSION",
    "FunctionPackageReconciler",
    "Reference",
    "initialize",
    "is_paused",
    "package_health",
    "parse_reference",
    "tls_server_secret_name",
]

API_VERSION = "pkg.crossplane.io/v1"
RUNTIME_CONFIG_API_VERSION = "pkg.crossplane.io/v1beta1"
DEFAULT_RUNTIME_CONFIG = "default"
"""The DeploymentRuntimeConfig every Function refers to unless it names another (the CRD's default)."""
PAUSED_ANNOTATION = "crossplane.io/paused"
PAUSED_MESSAGE = "Reconciliation is paused via the pause annotation"
REQUEUE_ALWAYS_PULL = 60.0
"""Seconds between reconciles of a Function with ``packagePullPolicy: Always`` (Crossplane: 1 min)."""

_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_DOMAIN_PART = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN = re.compile(rf"(?:{_DOMAIN_PART}(?:\.{_DOMAIN_PART})*|\[[0-9a-fA-F:.]+\])(?::[0-9]+)?")
_PATH = re.compile(rf"{_COMPONENT}(?:/{_COMPONENT})*")
_TAG = re.compile(r"[\w][\w.-]{0,127}")
_DIGEST = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}")


@dataclasses.dataclass(frozen=True)
class Reference:
    """An OCI image reference split into its parts (the Docker distribution grammar)."""

    registry: str
    repository: str
    tag: str = ""
    digest: str = ""

    @property
    def image(self) -> str:
        """The fully qualified image a Deployment runs: ``registry/repository@digest`` or ``:tag``."""
        base = f"{self.registry}/{self.repository}"
        return f"{base}@{self.digest}" if self.digest else f"{base}:{self.tag}"


def parse_reference(ref: str) -> Reference:
    """Parse a package reference strictly: a registry and a tag or digest are required.

    Raises :class:`~crossfn.errors.InputError` naming the reference and what is
    wrong with it, in one line.
    """
    where = f"cannot parse package reference {errors.quote(ref)}"
    if not ref.strip():
        raise errors.InputError(f"{where}: it is empty")
    rest, _, digest = ref.partition("@")
    if digest and not _DIGEST.fullmatch(digest):
        raise errors.InputError(f"{where}: invalid digest {errors.quote(digest)}")
    tag = ""
    last = rest.rsplit("/", 1)[-1]
    if ":" in last:
        rest, _, tag = rest.rpartition(":")
        if not _TAG.fullmatch(tag):
            raise errors.InputError(f"{where}: invalid tag {errors.quote(tag)}")
    registry, _, repository = rest.partition("/")
    if not repository or not ("." in registry or ":" in registry or registry == "localhost"):
        raise errors.InputError(
            f"{where}: a registry is required, as in xpkg.crossplane.io/<organization>/<function>:<tag>"
        )
    if not _DOMAIN.fullmatch(registry):
        raise errors.InputError(f"{where}: invalid registry {errors.quote(registry)}")
    if not _PATH.fullmatch(repository) or len(rest) > 255:
        raise errors.InputError(f"{where}: invalid repository {errors.quote(repository)}")
    if not tag and not digest:
        raise errors.InputError(f"{where}: a tag or digest is required")
    return Reference(registry, repository, tag, digest)


def tls_server_secret_name(function: str) -> str:
    """``<function>-tls-server``, the function name cut so that the whole fits 253 characters."""
    suffix = "-tls-server"
    return function[: 253 - len(suffix)] + suffix


def _name(obj: Mapping[str, Any] | None) -> str:
    return str(((obj or {}).get("metadata") or {}).get("name") or "")


def _number(rev: Mapping[str, Any]) -> int:
    try:
        return int((rev.get("spec") or {}).get("revision") or 0)
    except (TypeError, ValueError):
        return 0


def _controller_uid(obj: Mapping[str, Any]) -> str | None:
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or ():
        if ref.get("controller"):
            return str(ref.get("uid") or "")
    return None


def is_paused(obj: Mapping[str, Any]) -> bool:
    return ((obj.get("metadata") or {}).get("annotations") or {}).get(PAUSED_ANNOTATION) == "true"


def package_health(rev: Mapping[str, Any] | None) -> tuple[str, str, str]:
    """The Function's ``Healthy`` (status, reason, message) from its current revision (Crossplane's PackageHealth)."""
    for type_, what in (("RevisionHealthy", "revision"), ("RuntimeHealthy", "runtime")):
        c = _conditions.get_condition(rev, type_)
        if c.get("status") != "True":
            message = f'Package {what} health is "{c.get("status")}"'
            if c.get("message"):
                message += f" with message: {c['message']}"
            return "False", "UnhealthyPackageRevision", message
    return "True", "HealthyPackageRevision", ""


class FunctionPackageReconciler(_functionrevisions.FunctionReconciler):
    """Reconciles one Function (key: its name) whose route is ``package``; others are left alone."""

    async def reconcile(self, key: str) -> _controller.Result:
        """Keep the Function's revisions and status; see the module docstring for the rules."""
        fn = self._functions.get(key)
        if fn is None or (fn.get("metadata") or {}).get("deletionTimestamp"):
            return _controller.Result()
        if _functions.route(fn).kind != "package":
            return _controller.Result()
        if is_paused(fn):
            await self._paused(fn)
            return _controller.Result()
        spec = fn.get("spec") or {}
        package = str(spec.get("package") or "")
        try:
            parse_reference(package)
        except errors.InputError as exc:
            await self._unpack_failed(fn, f"cannot unpack package: {exc}")
            return _controller.Result()
        name = _functionrevisions.revision_name(key, package)
        revisions = self._revisions.list(labels={_functions.LABEL_PACKAGE: key})
        if not await self._deactivate_others(fn, revisions, name):
            return _controller.Result(requeue_after=10.0)
        current = next((r for r in revisions if _name(r) == name), None)
        uid = str((fn.get("metadata") or {}).get("uid") or "")
        if current is not None and _controller_uid(current) not in (None, uid):
            await self._recorder.event(
                fn, "Warning", "InstallPackageRevision",
                f'cannot apply package revision: existing object is not controlled by UID "{uid}"',
            )  # fmt: skip
            return _controller.Result()
        highest = max((_number(r) for r in revisions), default=0)
        number = _number(current) if current is not None and _number(current) >= highest > 0 else highest + 1
        async with _events.warning_on_api_error(
            self._recorder, fn, "InstallPackageRevision", "apply package revision"
        ):
            rev = await self._apply_revision(fn, name, package, number, current)
        await self._collect_garbage(fn, revisions, name)
        await self._update_status(fn, rev, package)
        if spec.get("packagePullPolicy") == "Always":
            return _controller.Result(requeue_after=REQUEUE_ALWAYS_PULL)
        return _controller.Result()

    async def _paused(self, fn: Mapping[str, Any]) -> None:
        """``Synced=False/ReconcilePaused`` and a Normal event, once per pause."""
        if _conditions.get_condition(fn, "Synced").get("reason") == "ReconcilePaused":
            return
        await self._write_conditions(fn, [("Synced", "False", "ReconcilePaused", "")])
        await self._recorder.event(fn, "Normal", "ReconciliationPaused", PAUSED_MESSAGE)

    async def _unpack_failed(self, fn: Mapping[str, Any], message: str) -> None:
        """The Function's conditions and Warning for a package that cannot be fetched (here: parsed)."""
        await self._write_conditions(
            fn,
            [
                ("Installed", "False", "UnpackingPackage", message),
                ("Healthy", "False", "UnhealthyPackageRevision", message),
            ],
        )
        await self._recorder.event(fn, "Warning", "UnpackPackage", message)

    async def _write_conditions(
        self, fn: Mapping[str, Any], conditions: list[tuple[str, str, str, str]], **status: Any
    ) -> dict[str, Any]:
        """Set conditions (and other status fields) on the Function with a status apply."""
        updated = copy.deepcopy(dict(fn))
        now = self._clock()
        for type_, state, reason, message in conditions:
            _conditions.set_condition(
                updated, _conditions.condition(fn, type_, state, reason, now=now, message=message)
            )
        if _conditions.get_condition(updated, "Synced").get("reason") == "ReconcilePaused" and not is_paused(
            fn
        ):
            updated["status"]["conditions"] = [
                c for c in updated["status"]["conditions"] if c.get("type") != "Synced"
            ]  # unpaused: the pause condition is cleared once
        body = {
            "apiVersion": API_VERSION,
            "kind": "Function",
            "metadata": {"name": _name(fn)},
            "status": {"conditions": updated["status"]["conditions"], **status},
        }
        try:
            return await self._api.apply(body, field_manager=_api.FIELD_MANAGER, status=True)
        except _api.NotFound:
            return updated  # deleted meanwhile; its revisions go with it

    async def _deactivate_others(
        self, fn: Mapping[str, Any], revisions: list[dict[str, Any]], keep: str
    ) -> bool:
        """Every Active revision but the current one becomes Inactive, whatever the policy."""
        for rev in revisions:
            if _name(rev) == keep or (rev.get("spec") or {}).get("desiredState") != "Active":
                continue
            try:
                await self._api.patch(
                    API_VERSION, "FunctionRevision", _name(rev), "", {"spec": {"desiredState": "Inactive"}}
                )
            except _api.NotFound:
                continue
            except _api.ApiError as exc:
                await self._recorder.event(
                    fn, "Warning", "TransitionRevision", f"cannot update inactive package revision: {exc}"
                )
                return False
        return True

    async def _apply_revision(
        self, fn: Mapping[str, Any], name: str, package: str, number: int, current: Mapping[str, Any] | None
    ) -> dict[str, Any]:
        """Apply the revision's labels, owner and spec (Crossplane's revision template)."""
        spec = fn.get("spec") or {}
        owner = _metadata.controller_reference(fn, api_version=API_VERSION, kind="Function")
        rev_spec: dict[str, Any] = {
            "image": package,
            "revision": number,
            "tlsServerSecretName": tls_server_secret_name(_name(fn)),
            "runtimeConfigRef": spec.get("runtimeConfigRef") or {"name": DEFAULT_RUNTIME_CONFIG},
        }
        for field in ("packagePullPolicy", "packagePullSecrets", "ignoreCrossplaneConstraints",
                      "skipDependencyResolution", "commonLabels"):  # fmt: skip
            if spec.get(field) is not None:
                rev_spec[field] = spec[field]
        # Manual: a new revision's state is empty (as Crossplane writes it); the user's choice is kept.
        state = str((current or {}).get("spec", {}).get("desiredState") or "")
        if spec.get("revisionActivationPolicy", "Automatic") in ("Automatic", "", None):
            state = "Active"
        rev_spec["desiredState"] = state
        return await self._api.apply(
            {
                "apiVersion": API_VERSION,
                "kind": "FunctionRevision",
                "metadata": {
                    "name": name,
                    "labels": {_functions.LABEL_PACKAGE: _name(fn)},
                    "ownerReferences": [owner],
                },
                "spec": rev_spec,
            },
            field_manager=_api.FIELD_MANAGER,
        )

    async def _update_status(self, fn: Mapping[str, Any], rev: Mapping[str, Any], package: str) -> None:
        """``Healthy`` from the revision, ``Installed`` from its state, and the current revision's name."""
        healthy, reason, message = package_health(rev)
        if (rev.get("spec") or {}).get("desiredState") == "Active":
            installed = ("Installed", "True", "ActivePackageRevision", "")
        else:
            installed = ("Installed", "False", "InactivePackageRevision", "Package is inactive")
        was_healthy = _conditions.get_condition(fn, "Healthy").get("status") == "True"
        await self._write_conditions(
            fn,
            [("Healthy", healthy, reason, message), installed],
            currentRevision=_name(rev),
            currentIdentifier=package,
            resolvedPackage=package,
        )
        if healthy == "True" and not was_healthy:
            await self._recorder.event(
                fn, "Normal", "InstallPackageRevision", "Successfully installed package revision"
            )


async def initialize(
    api: _api.Api,
    namespace: str,
    *,
    service_account: str = "crossplane",
    client_secret: str = _tls.CLIENT_SECRET,
    now: Callable[[], datetime.datetime] = _clock.utcnow,
) -> list[str]:
    """What Crossplane's ``core init`` does for function packages; idempotent. Returns what it created.

    The DeploymentRuntimeConfig ``default`` (empty spec) that Functions refer to
    by default, the CA in ``namespace/crossplane-root-ca``, and the controller's
    client certificate in ``namespace/<client_secret>`` (DNS SAN
    ``<service_account>.<namespace>``), which ``_functions.load_tls`` reads.
    """
    made = []
    try:
        await api.create(
            {
                "apiVersion": RUNTIME_CONFIG_API_VERSION,
                "kind": "DeploymentRuntimeConfig",
                "metadata": {"name": DEFAULT_RUNTIME_CONFIG},
                "spec": {},
            }
        )
        made.append(f"DeploymentRuntimeConfig {DEFAULT_RUNTIME_CONFIG}")
    except _api.Conflict:
        pass
    ca = await _tls.ensure_ca(api, namespace, now=now)
    if await _tls.ensure_certificate(
        api, namespace, client_secret, ca, common_name=service_account,
        dns_names=[f"{service_account}.{namespace}"], usage="client", create=True, now=now,
    ):  # fmt: skip
        made.append(f"Secret {namespace}/{client_secret}")
    return made
