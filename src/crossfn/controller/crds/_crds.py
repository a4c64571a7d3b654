"""Install or upgrade Crossplane's API types (the CRDs in ``crds/``) on an API server, never
replacing one that is not crossfn's or that serves more than crossfn's.

The controller needs Crossplane's kinds before it can reconcile anything, and a
cluster may already serve them: Crossplane installed them, or another crossfn,
newer or older. So :func:`plan` first compares each of crossfn's CRDs with the
one the API server serves, and decides:

* **create** it when the server has none;
* leave it **unchanged** when the server's serves the same (descriptions aside:
  crossfn's CRDs carry none, ``_types``);
* **upgrade** it (server-side apply, field manager ``crossfn``) when it is
  crossfn's (labelled :data:`~._kind.MANAGED_BY`) and lacks a field or version
  of crossfn's;
* **keep** it as it is when it serves every field and version of crossfn's
  and more: not crossfn's (Crossplane's, say), or crossfn's from a newer crossfn;
* **refuse** when it is not crossfn's and lacks something crossfn's has: it is
  another manager's to upgrade. :func:`install` then raises one line naming the
  CRD and the first field missing, and changes nothing.

Then :func:`install` applies the plan and waits until every CRD is
``Established``, because until then its kind cannot be served or watched. It is
what ``crossfn controller init`` runs and what ``crossfn controller run`` runs
at start (unless ``--skip-crds``). Every kind is installed whether or not its
controller runs (the Operation kinds without ``--enable-operations``), as
Crossplane installs them.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable, Iterator, Mapping
from importlib import resources
from typing import Any

from crossfn import errors
from crossfn.controller.crds import _kind
from crossfn.controller.kube import _api
from crossfn.gocompat import yaml_loader

__all__ = [
    "CRD_API_VERSION",
    "CRD_KIND",
    "Decision",
    "Refused",
    "decide",
    "foreign_kind",
    "install",
    "is_established",
    "is_ours",
    "manifests",
    "missing",
    "plan",
    "refusal",
    "refused_error",
    "reserved_group",
]

CRD_API_VERSION = _kind.CRD_API_VERSION
CRD_KIND = _kind.CRD_KIND

CREATE, UNCHANGED, UPGRADE, KEEP, REFUSE = "create", "unchanged", "upgrade", "keep", "refuse"

API_SERVICE_API_VERSION = "apiregistration.k8s.io/v1"
_AUTOMANAGED = "kube-aggregator.kubernetes.io/automanaged"
"""The label the API server puts on APIServices it registers itself: ``"true"`` for a CRD's
group-version, ``onstart`` for a built-in one."""


def reserved_group(group: str) -> bool:
    """Whether ``group`` is one of Kubernetes' own (``k8s.io``, ``kubernetes.io`` and their subdomains).

    The API server takes a CRD in such a group only with the
    ``api-approved.kubernetes.io`` annotation, which an XRD can put in its
    ``spec.metadata``; the objects of those groups (ClusterRoleBindings, ...)
    are never an XRD's to define, list or delete.
    """
    group = group.lower()
    return any(group == g or group.endswith(f".{g}") for g in ("k8s.io", "kubernetes.io"))


async def foreign_kind(api: _api.Api, crd: Mapping[str, Any]) -> str:
    """Why the rendered ``crd`` must not be applied because its kind is not CRDs' to serve; ``""`` when it may.

    Refused: a group of Kubernetes' own (:func:`reserved_group`), and any version of
    the group that the API server already serves other than from CRDs: a built-in
    API or an aggregated API server, whose APIService the API server did not make
    for a CRD. Read live on every call: a cached answer could be stale both ways.
    """
    spec = crd.get("spec") or {}
    group, kind = str(spec.get("group") or ""), str((spec.get("names") or {}).get("kind") or "")
    if reserved_group(group):
        return (
            f"refusing to define kind {kind}.{group}: the API group {group} is Kubernetes' own "
            "(an XRD defines kinds of its own group only)"
        )
    for version in spec.get("versions") or ():
        name = f"{(version or {}).get('name', '')}.{group}"
        service = await api.get(API_SERVICE_API_VERSION, "APIService", name)
        labels = ((service or {}).get("metadata") or {}).get("labels") or {}
        if service is not None and labels.get(_AUTOMANAGED) != "true":
            return (
                f"refusing to define kind {kind}.{group}: {group}/{version.get('name', '')} is already "
                f"served by APIService {name}, not by CustomResourceDefinitions"
            )
    return ""


def manifests() -> list[dict[str, Any]]:
    """The CRDs crossfn installs, read from package data, in file-name order."""
    root = resources.files("crossfn.controller") / "crds"
    out = []
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".yaml"):
            out.extend(yaml_loader.load_all(entry.read_text(encoding="utf-8"), as_json=True)[:1])
    return out


def is_established(crd: Mapping[str, Any] | None) -> bool:
    """Whether the API server serves the CRD: its ``Established`` condition is True."""
    return _condition(crd, "Established")[0] == "True"


def refusal(crd: Mapping[str, Any] | None) -> str:
    """Why the API server will not establish the CRD however long one waits; ``""`` while it still may.

    That is the case when its names are refused (``NamesAccepted=False``, for
    example ``ListKindConflict`` because another CRD of the group already uses
    the list kind): the text gives that condition's reason and message, and the
    ``Established`` condition's when it is False too, e.g.
    ``NamesAccepted=False (ListKindConflict): "XBucketList" is already in use;
    Established=False (NotAccepted): not all names are accepted``.
    """
    names = _condition(crd, "NamesAccepted")
    if names[0] != "False":
        return ""
    parts = [_describe("NamesAccepted", names)]
    established = _condition(crd, "Established")
    if established[0] == "False":
        parts.append(_describe("Established", established))
    return "; ".join(parts)


def _describe(type_: str, condition: tuple[str, str, str]) -> str:
    status, reason, message = condition
    text = f"{type_}={status}" + (f" ({reason})" if reason else "")
    return f"{text}: {message}" if message else text


def _condition(crd: Mapping[str, Any] | None, type_: str) -> tuple[str, str, str]:
    """The status, reason and message of a CRD condition; ``("Unknown", "", "")`` when absent."""
    for c in ((crd or {}).get("status") or {}).get("conditions") or ():
        if isinstance(c, Mapping) and c.get("type") == type_:
            return str(c.get("status") or "Unknown"), str(c.get("reason") or ""), str(c.get("message") or "")
    return "Unknown", "", ""


# Comparing what is served with what crossfn would install.


def missing(ours: Mapping[str, Any], served: Mapping[str, Any]) -> list[str]:
    """What of ``ours`` the ``served`` CRD lacks: versions, the status subresource, schema fields.

    One entry per gap, ``<version> <path>`` (``v1 spec.pipeline[].requirements``),
    in ``ours``' order; a node of ``served`` that preserves unknown fields
    covers everything under it. Constraints (enums, CEL rules) are not
    compared: a field that is there is served.
    """
    out: list[str] = []
    versions = {str(v.get("name")): v for v in _versions(served) if v.get("served")}
    for ours_version in _versions(ours):
        name = str(ours_version.get("name"))
        theirs = versions.get(name)
        if theirs is None:
            out.append(f"version {name}")
            continue
        if "status" in (ours_version.get("subresources") or {}) and "status" not in (
            theirs.get("subresources") or {}
        ):
            out.append(f"{name} the status subresource")
        out.extend(f"{name} {path}" for path in _uncovered(_schema(ours_version), _schema(theirs), ""))
    return out


def _versions(crd: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [v for v in (crd.get("spec") or {}).get("versions") or () if isinstance(v, Mapping)]


def _schema(version: Mapping[str, Any]) -> Mapping[str, Any]:
    return ((version.get("schema") or {}).get("openAPIV3Schema")) or {}


def _uncovered(ours: Mapping[str, Any], theirs: Mapping[str, Any], path: str) -> Iterator[str]:
    """Paths of ``ours`` that ``theirs`` does not serve."""
    if theirs.get("x-kubernetes-preserve-unknown-fields"):
        return
    props = theirs.get("properties") or {}
    for name, sub in (ours.get("properties") or {}).items():
        here = f"{path}.{name}" if path else name
        if name not in props:
            yield here
        else:
            yield from _uncovered(sub, props[name], here)
    for key, mark in (("items", "[]"), ("additionalProperties", ".*")):
        if isinstance(ours.get(key), Mapping):
            if not isinstance(theirs.get(key), Mapping):
                yield path + mark
            else:
                yield from _uncovered(ours[key], theirs[key], path + mark)


def _comparable(crd: Mapping[str, Any]) -> dict[str, Any]:
    """What decides whether two CRDs serve the same: names, scope and versions, descriptions left out.

    The API server adds defaults of its own (``conversion``) and status; those
    are not compared.
    """
    spec = crd.get("spec") or {}
    served = {k: spec.get(k) for k in ("group", "names", "scope")} | {
        "versions": [dict(v) for v in _versions(crd)]
    }
    out: dict[str, Any] = _without_descriptions(served)
    return out


def _without_descriptions(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {
            k: ({p: _without_descriptions(s) for p, s in v.items()} if k == "properties" and isinstance(v, Mapping)
                else _without_descriptions(v))
            for k, v in value.items()
            if not (k == "description" and isinstance(v, str))
        }  # fmt: skip
    if isinstance(value, list):
        return [_without_descriptions(v) for v in value]
    return value


def is_ours(crd: Mapping[str, Any]) -> bool:
    """Whether crossfn installed the CRD (it carries :data:`~._kind.MANAGED_BY`)."""
    key, value = _kind.MANAGED_BY
    return ((crd.get("metadata") or {}).get("labels") or {}).get(key) == value


@dataclasses.dataclass(frozen=True)
class Decision:
    """What :func:`install` does with one CRD, and why (for keep and refuse)."""

    name: str
    action: str
    """``create``, ``unchanged``, ``upgrade``, ``keep`` or ``refuse``."""
    crd: dict[str, Any]
    gaps: tuple[str, ...] = ()
    """For ``refuse``: what the served CRD lacks of crossfn's."""

    def line(self) -> str:
        """kubectl's line for it: ``customresourcedefinition.apiextensions.k8s.io/<name> <what happened>``."""
        did = {
            CREATE: "created",
            UPGRADE: "configured",
            UNCHANGED: "unchanged",
            KEEP: "kept (it serves all of crossfn's and more)",
            REFUSE: "refused",
        }[self.action]
        return f"customresourcedefinition.apiextensions.k8s.io/{self.name} {did}"


class Refused(errors.CrossfnError):
    """A CRD that is not crossfn's lacks what crossfn's has: crossfn does not replace it."""


def decide(ours: dict[str, Any], served: Mapping[str, Any] | None) -> Decision:
    """The decision for one of crossfn's CRDs given the one served (module docstring)."""
    name = str(ours["metadata"]["name"])
    if served is None:
        return Decision(name, CREATE, ours)
    if _comparable(served) == _comparable(ours):
        return Decision(name, UNCHANGED, ours)
    gaps = missing(ours, served)
    if not gaps:
        return Decision(name, KEEP, ours)
    if is_ours(served):
        return Decision(name, UPGRADE, ours)
    return Decision(name, REFUSE, ours, tuple(gaps))


async def plan(api: _api.Api) -> list[Decision]:
    """Compare each of crossfn's CRDs with the one served; nothing is changed."""
    out = []
    for crd in manifests():
        served = await api.get(CRD_API_VERSION, CRD_KIND, str(crd["metadata"]["name"]))
        out.append(decide(crd, served))
    return out


def refused_error(decisions: list[Decision]) -> Refused | None:
    """One line for the first refused CRD (with how many more), or ``None`` when none is."""
    refused = [d for d in decisions if d.action == REFUSE]
    if not refused:
        return None
    first = refused[0]
    more = f" (and {len(refused) - 1} more CRDs like it)" if len(refused) > 1 else ""
    return Refused(
        f"cannot install {CRD_KIND} {first.name}: the one served is not crossfn's and lacks "
        f"{first.gaps[0]}; crossfn does not replace it: upgrade it where it came from (Crossplane), "
        f"or run with --skip-crds to use it as it is{more}"
    )


async def install(
    api: _api.Api,
    *,
    timeout: float = 60.0,
    poll: float = 0.1,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> list[Decision]:
    """Plan, then create or upgrade crossfn's CRDs and wait until all are Established.

    Idempotent: applying unchanged CRDs again changes nothing. Raises
    :class:`Refused` before changing anything when a CRD that is not
    crossfn's lacks what crossfn's has; :class:`~crossfn.controller.kube._api.ApiError`
    (``cannot install CustomResourceDefinition <name>: <cause>``) when the API
    server refuses one; :class:`~crossfn.errors.CrossfnError` when one is not
    Established within ``timeout`` seconds or its names are not accepted (for
    example a conflicting CRD already holds them).
    """
    decisions = await plan(api)
    refused = refused_error(decisions)
    if refused is not None:
        raise refused
    for d in decisions:
        if d.action not in (CREATE, UPGRADE):
            continue
        try:
            await api.apply(d.crd, field_manager=_api.FIELD_MANAGER, force=True)
        except _api.ApiError as e:
            raise errors.wrap(e, f"cannot install {CRD_KIND} {d.name}") from e
    for d in decisions:
        await _wait_established(api, d.name, timeout=timeout, poll=poll, sleep=sleep)
    return decisions


async def _wait_established(
    api: _api.Api, name: str, *, timeout: float, poll: float, sleep: Callable[[float], Awaitable[None]]
) -> None:
    """Poll the CRD until it is Established; fail early when its names are refused."""
    # Counting polls rather than reading a clock keeps the wait testable without time.
    for _ in range(max(1, int(timeout / poll))):
        crd = await api.get(CRD_API_VERSION, CRD_KIND, name)
        if is_established(crd):
            return
        refused = refusal(crd)
        if refused:
            raise errors.CrossfnError(f"cannot install {CRD_KIND} {name}: {refused}")
        await sleep(poll)
    raise errors.CrossfnError(f"cannot install {CRD_KIND} {name}: not established after {timeout:g}s")
