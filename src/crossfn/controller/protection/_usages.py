"""Usages read through one view, found by what they protect, and described as Crossplane describes them.

Three kinds say that a resource is in use (Crossplane's ``internal/protection``):
``protection.crossplane.io`` Usage (namespaced) and ClusterUsage, and the
deprecated ``apiextensions.crossplane.io`` Usage (cluster-scoped). They share
one shape (``spec.of``, ``spec.by``, ``spec.reason``, ``spec.replayDeletion``);
:class:`Usage` reads any of them, so the reconciler and the webhook never ask
which kind they hold.

:class:`Finder` answers "which Usages protect this object?" from the
informers' caches, keyed as Crossplane's field index keys them: the used
object's API group (not its version), kind and name, and, for a namespaced
Usage only, its namespace (the one ``spec.of.resourceRef`` names, else the
Usage's own). A ClusterUsage or a legacy Usage matches an object of that
group, kind and name in any namespace, as Crossplane's index does.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from crossfn import errors
from crossfn.controller.runtime import _informer

__all__ = [
    "CLUSTER_USAGE",
    "KINDS",
    "LEGACY_USAGE",
    "USAGE",
    "Finder",
    "Ref",
    "Usage",
    "details",
    "in_use_message",
]

USAGE = ("protection.crossplane.io/v1beta1", "Usage")
CLUSTER_USAGE = ("protection.crossplane.io/v1beta1", "ClusterUsage")
LEGACY_USAGE = ("apiextensions.crossplane.io/v1beta1", "Usage")
KINDS = (USAGE, CLUSTER_USAGE, LEGACY_USAGE)
"""The three Usage kinds, in the order Crossplane's finder lists them."""

_GO_TYPES = {USAGE: "*v1beta1.Usage", CLUSTER_USAGE: "*v1beta1.ClusterUsage", LEGACY_USAGE: "*v1beta1.Usage"}
"""How Crossplane's webhook message names each kind (Go's ``%T`` of the object)."""


def group_of(api_version: str) -> str:
    """The API group of ``group/version`` (``""`` for the core group), as Go's ``ParseGroupVersion``."""
    return api_version.rpartition("/")[0]


@dataclasses.dataclass(frozen=True)
class Ref:
    """``spec.of`` or ``spec.by``: a kind, and a name (a resolved selector) or a selector."""

    api_version: str
    kind: str
    name: str
    namespace: str | None
    """The name's namespace when the Usage names one (namespaced Usages' ``of`` only)."""
    match_labels: Mapping[str, str] | None
    """The selector's labels; ``None`` when there is no selector."""
    match_controller_ref: bool = False
    selector_namespace: str | None = None

    @classmethod
    def read(cls, spec: Mapping[str, Any], field: str) -> Ref | None:
        raw = spec.get(field)
        if not isinstance(raw, Mapping):
            return None
        ref = raw.get("resourceRef")
        ref = ref if isinstance(ref, Mapping) else {}
        sel = raw.get("resourceSelector")
        sel = sel if isinstance(sel, Mapping) else None
        return cls(
            api_version=str(raw.get("apiVersion") or ""),
            kind=str(raw.get("kind") or ""),
            name=str(ref.get("name") or ""),
            namespace=str(ref["namespace"]) if ref.get("namespace") else None,
            match_labels=dict(sel.get("matchLabels") or {}) if sel is not None else None,
            match_controller_ref=bool(sel.get("matchControllerRef")) if sel is not None else False,
            selector_namespace=str(sel["namespace"]) if sel is not None and sel.get("namespace") else None,
        )


class Usage:
    """One Usage, ClusterUsage or legacy Usage, read through the same getters."""

    def __init__(self, obj: dict[str, Any]) -> None:
        self.obj = obj

    @property
    def type_(self) -> tuple[str, str]:
        return (str(self.obj.get("apiVersion") or ""), str(self.obj.get("kind") or ""))

    @property
    def group_kind(self) -> tuple[str, str]:
        return (group_of(self.type_[0]), self.type_[1])

    @property
    def namespaced(self) -> bool:
        """Whether this is a namespaced Usage (``protection.crossplane.io`` Usage)."""
        return self.group_kind == ("protection.crossplane.io", "Usage")

    @property
    def meta(self) -> dict[str, Any]:
        meta = self.obj.setdefault("metadata", {})
        assert isinstance(meta, dict)
        return meta

    @property
    def name(self) -> str:
        return str(self.meta.get("name") or "")

    @property
    def namespace(self) -> str:
        return str(self.meta.get("namespace") or "")

    @property
    def spec(self) -> dict[str, Any]:
        spec = self.obj.get("spec")
        return spec if isinstance(spec, dict) else {}

    @property
    def of(self) -> Ref:
        return Ref.read(self.spec, "of") or Ref("", "", "", None, None)

    @property
    def by(self) -> Ref | None:
        return Ref.read(self.spec, "by")

    @property
    def reason(self) -> str:
        return str(self.spec.get("reason") or "")

    @property
    def replay_deletion(self) -> bool:
        return self.spec.get("replayDeletion") is True

    def of_namespace(self) -> str:
        """Where the used object is: the namespace ``spec.of`` names, else the Usage's own."""
        return self.of.namespace or self.namespace

    def index_key(self) -> tuple[str, str, str, str] | None:
        """The key Crossplane's field index gives this Usage; ``None`` before its ``of`` is resolved."""
        of = self.of
        if not of.name:
            return None
        namespace = self.of_namespace() if self.namespaced else ""
        return (group_of(of.api_version), of.kind, of.name, namespace)

    def set_ref(self, field: str, name: str, namespace: str | None) -> None:
        """Record a resolved selector: ``spec.<field>.resourceRef``."""
        ref: dict[str, Any] = {"name": name}
        if namespace:
            ref["namespace"] = namespace
        self.obj.setdefault("spec", {}).setdefault(field, {})["resourceRef"] = ref


def details(u: Usage) -> str:
    """The ``crossplane.io/usage-details`` annotation: the reason, or who uses what."""
    if u.reason:
        return u.reason
    by, of = u.by, u.of
    if by is None:
        return "undefined"
    if of.namespace:
        return f"{by.kind}/{by.name} uses {of.kind}/{of.name} in namespace {of.namespace}"
    return f"{by.kind}/{by.name} uses {of.kind}/{of.name}"


def in_use_message(usages: list[Usage]) -> str:
    """Why a deletion is denied (Crossplane's webhook): how many Usages, and the first of them."""
    first = usages[0]
    ident = errors.quote(first.name)
    if first.namespace:
        ident = f"{errors.quote(first.name)} (in namespace {errors.quote(first.namespace)})"
    what = (
        f"This resource is in-use by {len(usages)} usage(s), including the {_GO_TYPES[first.type_]} {ident}"
    )
    by = first.by
    if by is not None:
        return f"{what} by resource {by.kind}/{by.name}."
    if first.reason:
        return f"{what} with reason: {errors.quote(first.reason)}."
    return f"{what}."


class Finder:
    """The Usages that protect an object, from the informers of the three kinds (module docstring)."""

    def __init__(self, caches: Mapping[tuple[str, str], _informer.Reader]) -> None:
        """``caches`` has a reader per Usage kind (:data:`KINDS`); a kind missing finds nothing."""
        self._caches = caches

    def find(self, obj: Mapping[str, Any]) -> list[Usage]:
        """The Usages of ``obj``, Usages first, then ClusterUsages, then legacy Usages, each by name."""
        meta = obj.get("metadata") or {}
        group, kind, name = (
            group_of(str(obj.get("apiVersion") or "")),
            str(obj.get("kind") or ""),
            str(meta.get("name") or ""),
        )
        out: list[Usage] = []
        for type_ in KINDS:
            cache = self._caches.get(type_)
            if cache is None:
                continue
            namespace = str(meta.get("namespace") or "") if type_ == USAGE else ""
            want = (group, kind, name, namespace)
            found = [u for u in _usages(cache.list()) if u.index_key() == want]
            out.extend(sorted(found, key=lambda u: (u.namespace, u.name)))
        return out


def _usages(objects: Iterable[dict[str, Any]]) -> Iterable[Usage]:
    return (Usage(o) for o in objects)
