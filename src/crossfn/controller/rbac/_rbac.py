"""The RBAC manager's per-XRD ClusterRoles
(upstream controllers-7.1): who may use, and the controller may manage, an XRD's kinds.

Crossplane's core holds no permission on composite resources and claims of
its own: its RBAC manager renders four ClusterRoles per XRD and the core's
ClusterRole aggregates the one labelled ``rbac.crossplane.io/aggregate-to-crossplane``.
crossfn's ``deploy/`` works the same way (its ``crossfn:aggregate`` role
aggregates that label), so either Crossplane's RBAC manager or
:class:`RbacReconciler` gives the controller its XRs:

=============================================  =========================================  =====================
ClusterRole                                    labelled (``"true"``)                      grants on the XRD's
                                                                                          group
=============================================  =========================================  =====================
``crossplane:composite:X:aggregate-to-``       ``rbac.crossplane.io/aggregate-to-``       ``*`` on XRs, claims
``crossplane``                                 ``crossplane``                             and their status;
                                                                                          update on finalizers
``…:aggregate-to-edit``                        ``aggregate-to-{admin,ns-admin,edit,       ``*`` on XRs, claims
                                               ns-edit}``                                 and their status
``…:aggregate-to-view``                        ``aggregate-to-{view,ns-view}``            get, list, watch
``…:aggregate-to-browse``                      ``aggregate-to-browse``                    get, list, watch on
                                                                                          XRs only
=============================================  =========================================  =====================

Roles are rendered only for an XRD whose CRDs it controls (:meth:`RbacReconciler._owns_kinds`).
Each role is controlled by its XRD, so the garbage collector deletes it with
the XRD; an existing role controlled by something else is not taken over.
Creating a role that grants ``*`` needs either those permissions or
``escalate`` on ClusterRoles, which is why this runs only where the
controller was given ``deploy/optional/rbac-manager.yaml``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from crossfn.controller.crds import _crds
from crossfn.controller.kube import _api
from crossfn.controller.runtime import _controller, _events, _informer
from crossfn.engine import _metadata

__all__ = ["CLUSTER_ROLE_API_VERSION", "RbacReconciler", "applied_message", "render_cluster_roles"]

CLUSTER_ROLE_API_VERSION = "rbac.authorization.k8s.io/v1"
XRD_API_VERSION = "apiextensions.crossplane.io/v1"
_LABEL = "rbac.crossplane.io/aggregate-to-"
_ALL = ["*"]
_READ = ["get", "list", "watch"]


def _rule(group: str, resources: list[str], verbs: list[str]) -> dict[str, Any]:
    return {"apiGroups": [group], "resources": resources, "verbs": verbs}


def render_cluster_roles(xrd: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The four ClusterRoles of one XRD, each controlled by it (Crossplane's ``RenderClusterRoles``)."""
    meta, spec = xrd.get("metadata") or {}, xrd.get("spec") or {}
    name, group = str(meta.get("name") or ""), str(spec.get("group") or "")
    plural = str((spec.get("names") or {}).get("plural") or "")
    claims = str((spec.get("claimNames") or {}).get("plural") or "")
    xrs, claim_resources = [plural, f"{plural}/status"], [claims, f"{claims}/status"]
    owner = _metadata.controller_reference(
        xrd, api_version=XRD_API_VERSION, kind="CompositeResourceDefinition"
    )
    system = [_rule(group, xrs, _ALL), _rule(group, [f"{plural}/finalizers"], ["update"])]
    edit, view = [_rule(group, xrs, _ALL)], [_rule(group, xrs, _READ)]
    if claims:
        system += [_rule(group, claim_resources, _ALL), _rule(group, [f"{claims}/finalizers"], ["update"])]
        edit.append(_rule(group, claim_resources, _ALL))
        view.append(_rule(group, claim_resources, _READ))
    roles = [
        ("aggregate-to-crossplane", ["crossplane"], system),
        ("aggregate-to-edit", ["admin", "ns-admin", "edit", "ns-edit"], edit),
        ("aggregate-to-view", ["view", "ns-view"], view),
        ("aggregate-to-browse", ["browse"], [_rule(group, xrs, _READ)]),
    ]
    return [
        {
            "apiVersion": CLUSTER_ROLE_API_VERSION,
            "kind": "ClusterRole",
            "metadata": {
                "name": f"crossplane:composite:{name}:{suffix}",
                "labels": {f"{_LABEL}{label}": "true" for label in labels},
                "ownerReferences": [owner],
            },
            "rules": rules,
        }
        for suffix, labels, rules in roles
    ]


def applied_message(names: list[str]) -> str:
    """``Applied RBAC ClusterRoles: a, b, c[, and N more]`` over the sorted names."""
    names = sorted(names)
    text = ", ".join(names[:3])
    if len(names) > 3:
        text += f", and {len(names) - 3} more"
    return f"Applied RBAC ClusterRoles: {text}"


class _NotControllable(_api.ApiError):
    """An existing ClusterRole is controlled by something other than the XRD."""


class RbacReconciler:
    """Reconciles one XRD (key: its name): its four ClusterRoles exist with the rendered labels and rules."""

    def __init__(self, api: _api.Api, xrds: _informer.Feed, recorder: _events.Recorder | None = None) -> None:
        self._api = api
        self._xrds = xrds
        self._recorder = recorder or _events.NoEvents()

    def watch(self, enqueue: Callable[[str], None]) -> None:
        """Enqueue an XRD whenever it changes."""

        def on_xrd(event_type: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
            enqueue(str((obj.get("metadata") or {}).get("name") or ""))

        self._xrds.add_handler(on_xrd)

    async def reconcile(self, key: str) -> _controller.Result:
        xrd = self._xrds.get(key)
        if xrd is None or (xrd.get("metadata") or {}).get("deletionTimestamp"):
            return _controller.Result()
        changed = []
        async with _events.warning_on_api_error(
            self._recorder, xrd, "ApplyClusterRoles", "apply ClusterRoles"
        ):
            if not await self._owns_kinds(xrd):
                return _controller.Result()
            for role in render_cluster_roles(xrd):
                if await self._apply(role, str((xrd.get("metadata") or {}).get("uid") or "")):
                    changed.append(role["metadata"]["name"])
        if changed:
            await self._recorder.event(xrd, "Normal", "ApplyClusterRoles", applied_message(changed))
        return _controller.Result()

    async def _owns_kinds(self, xrd: Mapping[str, Any]) -> bool:
        """Whether the XRD's kinds are its own: each CRD it names exists, controlled by the XRD.

        The XRD controller makes or keeps only such CRDs and refuses kinds of
        Kubernetes' own groups and of other APIs, so an XRD named after
        ClusterRoleBindings, or after a CRD someone else installed, never makes
        the controller grant itself anything on them (Crossplane's RBAC manager
        renders roles for every XRD). Its roles follow once the CRDs are
        established (an XRD status change enqueues it again).
        """
        spec, uid = xrd.get("spec") or {}, str((xrd.get("metadata") or {}).get("uid") or "")
        group = str(spec.get("group") or "")
        if _crds.reserved_group(group):
            return False
        plurals = [(spec.get("names") or {}).get("plural"), (spec.get("claimNames") or {}).get("plural")]
        for plural in (p for p in plurals if p):
            crd = await self._api.get(_crds.CRD_API_VERSION, _crds.CRD_KIND, f"{plural}.{group}")
            owners = ((crd or {}).get("metadata") or {}).get("ownerReferences") or ()
            if not any(r.get("controller") and r.get("uid") == uid for r in owners):
                return False
        return True

    async def _apply(self, role: dict[str, Any], uid: str) -> bool:
        """Create the role, or update it when its labels or rules differ; ``True`` when it wrote."""
        name = role["metadata"]["name"]
        current = await self._api.get(CLUSTER_ROLE_API_VERSION, "ClusterRole", name)
        if current is None:
            await self._api.create(role)
            return True
        controllers = [r for r in current["metadata"].get("ownerReferences") or [] if r.get("controller")]
        if controllers and controllers[0].get("uid") != uid:
            raise _NotControllable(f'existing object is not controlled by UID "{uid}"', status=409)
        labels = dict(current["metadata"].get("labels") or {})
        if (
            all(labels.get(k) == v for k, v in role["metadata"]["labels"].items())
            and current.get("rules") == role["rules"]
        ):
            return False
        updated = dict(current)
        updated["metadata"] = {
            **current["metadata"],
            "labels": {**labels, **role["metadata"]["labels"]},
            "ownerReferences": role["metadata"]["ownerReferences"],
        }
        updated["rules"] = role["rules"]
        await self._api.update(updated)
        return True
