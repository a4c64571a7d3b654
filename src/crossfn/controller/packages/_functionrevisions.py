"""Keeping the active FunctionRevision of Functions crossfn runs itself
(upstream controllers-5.1, controllers-5.7).

Crossplane's package manager turns a Function into FunctionRevisions, a
Deployment and a Service, and the XR controller and the ``ValidPipeline`` gate
read the active revision. A Function that crossfn runs in-process (a built-in
package) or that is annotated ``crossfn.io/endpoint`` needs none of that
machinery, but it still needs the revision: so :class:`FunctionRevisionKeeper`
writes it, as the package manager would have, and the Function's status, so
``kubectl get functions`` reads ``INSTALLED True  HEALTHY True``:

* one revision per distinct ``spec.package``, named like Crossplane's
  (``FriendlyID(function, hash)``, :func:`revision_name`), labelled
  ``pkg.crossplane.io/package``, controlled by the Function (so the garbage
  collector deletes it with the Function), ``spec.desiredState: Active``,
  ``spec.image`` the package, ``spec.revision`` one above the highest;
* its status: ``capabilities`` (``["composition"]`` for built-ins, which is
  what their packages declare; for an annotated Function, what its
  ``crossfn.io/capabilities`` annotation lists, comma-separated, such as
  ``operation`` for an operation function, and none without it, which Crossplane
  reads as a composition function), ``endpoint`` for an annotated Function,
  and ``RevisionHealthy``/``RuntimeHealthy`` True (Crossplane 2.x's revision
  conditions) with ``Healthy`` True too (1.x's, which the CRD's ``HEALTHY``
  column shows);
* other revisions of the Function set Inactive, and the oldest beyond
  ``spec.revisionHistoryLimit`` (default 1) deleted, one per reconcile;
* the Function's ``Installed=True/ActivePackageRevision``,
  ``Healthy=True/HealthyPackageRevision``, ``currentRevision``,
  ``currentIdentifier`` and ``resolvedPackage``, with the Normal
  ``InstallPackageRevision`` event when it first becomes healthy.

A Function with any other package is left to Crossplane's package manager
(crossfn installs no packages): its revisions, runtime and status are the
package manager's, except that revisions crossfn made for it earlier (labelled
``crossfn.io/runtime``: it lost its annotation, or its package changed) are
set Inactive, so the runner does not find a stale endpoint; the one named for
the current package is left for the package manager to adopt (``_packages``
names revisions the same way).
An annotation gRPC could not dial (not ``HOST:PORT``, a port outside 1..65535)
makes the revision's ``RuntimeHealthy`` and ``Healthy`` False, the Function's
``Healthy`` False in the package manager's words (``Package runtime health is
"False" with message: invalid crossfn.io/endpoint annotation …``), and a Warning
``SyncPackage`` event on the Function. crossfn does not probe a well-formed
endpoint; an unreachable one shows on the XRs that use it, naming the target.
Revision activation is always Automatic.
"""

from __future__ import annotations

import copy
import datetime
import hashlib
import logging
from collections.abc import Callable, Mapping
from typing import Any

from crossfn.controller.kube import _api
from crossfn.controller.packages import _functions
from crossfn.controller.runtime import _conditions, _controller, _events, _informer
from crossfn.engine import _clock, _metadata

__all__ = [
    "CAPABILITIES_ANNOTATION",
    "LABEL_RUNTIME",
    "FunctionRevisionKeeper",
    "capabilities",
    "revision_name",
    "to_dns_label",
]

_log = logging.getLogger("crossfn.controller.functions")

API_VERSION = "pkg.crossplane.io/v1"
LABEL_RUNTIME = "crossfn.io/runtime"
"""On the revisions this keeper writes: ``builtin`` or ``endpoint``, the route crossfn runs them by."""
_COMPOSITION = "composition"
CAPABILITIES_ANNOTATION = "crossfn.io/capabilities"
"""On a Function with ``crossfn.io/endpoint``: the capabilities its package would declare (``composition,operation``)."""


def capabilities(fn: Mapping[str, Any]) -> list[str]:
    """What the ``crossfn.io/capabilities`` annotation lists: comma-separated, blanks dropped."""
    annotations = (fn.get("metadata") or {}).get("annotations") or {}
    text = str(annotations.get(CAPABILITIES_ANNOTATION) or "")
    return [c.strip() for c in text.split(",") if c.strip()]


def to_dns_label(s: str) -> str:
    """Crossplane's ``ToDNSLabel``: keep ``[a-z0-9]``, separators become ``-`` (not first,
    64th or last), stop at the 63rd character, trim dashes."""
    out: list[str] = []
    for i, c in enumerate(s):
        if "a" <= c <= "z" or "0" <= c <= "9":
            out.append(c)
        if c in "./:-" and i not in (0, 62, len(s) - 1):
            out.append("-")
        if i == 62:
            break
    return "".join(out).strip("-")


def revision_name(function: str, package: str) -> str:
    """The revision's name: Crossplane's ``FriendlyID`` of the Function name and a hash.

    Crossplane hashes the package image's digest; crossfn pulls no image, so it
    hashes the package reference, which changes exactly when the user changes
    the package (a new tag or digest).
    """
    digest = hashlib.sha256(package.encode()).hexdigest()
    return to_dns_label(f"{function[:50]}-{digest[:12]}")


def _number(rev: Mapping[str, Any]) -> int:
    try:
        return int((rev.get("spec") or {}).get("revision") or 0)
    except (TypeError, ValueError):
        return 0


class FunctionReconciler:
    """What both Function reconcilers share: their caches, recorder and clock, and how they watch.

    A Function is enqueued when it changes, and when one of its revisions changes (found by the
    revision's ``pkg.crossplane.io/package`` label). :class:`FunctionRevisionKeeper` keeps the
    revisions of built-in and annotated Functions; ``_packages.FunctionPackageReconciler`` those
    of package Functions. Each ignores the other's Functions.
    """

    def __init__(
        self,
        api: _api.Api,
        functions: _informer.Feed,
        revisions: _informer.Feed,
        recorder: _events.Recorder | None = None,
        *,
        clock: Callable[[], datetime.datetime] = _clock.utcnow,
    ) -> None:
        self._api = api
        self._functions = functions
        self._revisions = revisions
        self._recorder = recorder or _events.NoEvents()
        self._clock = clock

    def watch(self, enqueue: Callable[[str], None]) -> None:
        """Enqueue a Function when it changes, and when one of its revisions changes (by their label)."""

        def on_function(event_type: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
            enqueue(_name(obj))

        def on_revision(event_type: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
            owner = ((obj.get("metadata") or {}).get("labels") or {}).get(_functions.LABEL_PACKAGE)
            if owner:
                enqueue(str(owner))

        self._functions.add_handler(on_function)
        self._revisions.add_handler(on_revision)

    async def _collect_garbage(
        self, fn: Mapping[str, Any], revisions: list[dict[str, Any]], keep: str
    ) -> None:
        """Delete the oldest revision beyond ``revisionHistoryLimit`` (one per reconcile,
        upstream controllers-5.1)."""
        limit = (fn.get("spec") or {}).get("revisionHistoryLimit", 1)
        others = [rev for rev in revisions if _name(rev) != keep]
        if not limit or len(others) + 1 <= int(limit) + 1:
            return
        oldest = min(others, key=_number)
        try:
            await self._api.delete(API_VERSION, "FunctionRevision", _name(oldest))
        except _api.NotFound:
            return
        except _api.ApiError as exc:
            await self._recorder.event(
                fn, "Warning", "GarbageCollect", f"cannot garbage collect old package revision: {exc}"
            )


class FunctionRevisionKeeper(FunctionReconciler):
    """Reconciles one Function (key: its name) whose runtime is crossfn's own."""

    async def reconcile(self, key: str) -> _controller.Result:
        """Keep the Function's active revision and status; a no-op for package-managed Functions."""
        fn = self._functions.get(key)
        if fn is None or (fn.get("metadata") or {}).get("deletionTimestamp"):
            return _controller.Result()
        r = _functions.route(fn)
        package = str((fn.get("spec") or {}).get("package") or "")
        name = revision_name(key, package)
        revisions = self._revisions.list(labels={_functions.LABEL_PACKAGE: key})
        if r.kind == "package":
            # No longer ours (the annotation went, the package changed): retire what crossfn
            # made, so the package manager's revision is the active one the runner finds.
            # The one named for the current package is the package manager's to adopt.
            await self._deactivate_others([rev for rev in revisions if _kept_by_crossfn(rev)], keep=name)
            return _controller.Result()
        await self._deactivate_others(revisions, name)
        current = next((rev for rev in revisions if _name(rev) == name), None)
        number = _number(current) if current else max((_number(rev) for rev in revisions), default=0) + 1
        rev = await self._apply_revision(fn, name, package=package, number=number, r=r)
        await self._collect_garbage(fn, revisions, name)
        await self._update_function(fn, rev, package, problem=r.target if r.kind == "invalid" else None)
        return _controller.Result()

    async def _deactivate_others(self, revisions: list[dict[str, Any]], keep: str) -> None:
        """At most one revision per Function is Active (upstream controllers-5.7): the current one."""
        for rev in revisions:
            if _name(rev) == keep or (rev.get("spec") or {}).get("desiredState") != "Active":
                continue
            await self._api.patch(
                API_VERSION, "FunctionRevision", _name(rev), "", {"spec": {"desiredState": "Inactive"}}
            )

    async def _apply_revision(
        self, fn: Mapping[str, Any], name: str, *, package: str, number: int, r: _functions.Route
    ) -> dict[str, Any]:
        """Apply the revision's metadata and spec, then its status (a subresource: a second apply)."""
        owner = _metadata.controller_reference(fn, api_version=API_VERSION, kind="Function")
        rev = await self._api.apply(
            {
                "apiVersion": API_VERSION,
                "kind": "FunctionRevision",
                "metadata": {
                    "name": name,
                    "labels": {
                        _functions.LABEL_PACKAGE: _name(fn),
                        LABEL_RUNTIME: "endpoint" if r.kind == "invalid" else r.kind,
                    },
                    "ownerReferences": [owner],
                },
                "spec": {"desiredState": "Active", "image": package, "revision": number},
            },
            field_manager=_api.FIELD_MANAGER,
        )
        now = self._clock()
        for type_ in ("Healthy", "RevisionHealthy", "RuntimeHealthy"):
            # A bad endpoint annotation is the runtime's fault, as an unavailable Deployment is
            # (upstream controllers-5.6).
            bad = r.kind == "invalid" and type_ != "RevisionHealthy"
            _conditions.set_condition(
                rev,
                _conditions.condition(
                    rev, type_, "False", "UnhealthyPackageRevision", message=r.target, now=now
                )
                if bad
                else _conditions.condition(rev, type_, "True", "HealthyPackageRevision", now=now),
            )
        status: dict[str, Any] = {"conditions": rev["status"]["conditions"]}
        if r.kind == "builtin":
            status["capabilities"] = [_COMPOSITION]
        if r.kind == "endpoint":
            status["endpoint"] = r.target
            if capabilities(fn):
                status["capabilities"] = capabilities(fn)
        return await self._api.apply(
            {
                "apiVersion": API_VERSION,
                "kind": "FunctionRevision",
                "metadata": {"name": name},
                "status": status,
            },
            field_manager=_api.FIELD_MANAGER,
            status=True,
        )

    async def _update_function(
        self, fn: Mapping[str, Any], rev: Mapping[str, Any], package: str, *, problem: str | None = None
    ) -> None:
        """The Function's status as Crossplane's package manager writes it for its active revision: healthy,
        or, with ``problem`` (a bad endpoint annotation), its runtime unhealthy, in the package manager's words."""
        now = self._clock()
        was = _conditions.get_condition(fn, "Healthy")
        updated = copy.deepcopy(dict(fn))
        message = None if problem is None else f'Package runtime health is "False" with message: {problem}'
        healthy = (
            _conditions.condition(fn, "Healthy", "True", "HealthyPackageRevision", now=now)
            if message is None
            else _conditions.condition(
                fn, "Healthy", "False", "UnhealthyPackageRevision", message=message, now=now
            )
        )
        _conditions.set_condition(updated, healthy)
        _conditions.set_condition(
            updated, _conditions.condition(fn, "Installed", "True", "ActivePackageRevision", now=now)
        )
        status = {
            "conditions": updated["status"]["conditions"],
            "currentRevision": _name(rev),
            "currentIdentifier": package,
            "resolvedPackage": package,
        }
        try:
            await self._api.apply(
                {
                    "apiVersion": API_VERSION,
                    "kind": "Function",
                    "metadata": {"name": _name(fn)},
                    "status": status,
                },
                field_manager=_api.FIELD_MANAGER,
                status=True,
            )
        except _api.NotFound:
            return  # deleted meanwhile; its revisions go with it
        if problem is not None and was.get("message") != healthy.get("message"):
            await self._recorder.event(fn, "Warning", "SyncPackage", problem)
        elif problem is None and was.get("status") != "True":
            await self._recorder.event(
                fn, "Normal", "InstallPackageRevision", "Successfully installed package revision"
            )


def _kept_by_crossfn(rev: Mapping[str, Any]) -> bool:
    return LABEL_RUNTIME in ((rev.get("metadata") or {}).get("labels") or {})


def _name(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("name") or "")
