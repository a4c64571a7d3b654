"""How a kind is served: its names, versions and printer columns, and the CRD that says so.

A :class:`Kind` is one line of a group module's ``KINDS`` table; :meth:`Kind.crd`
renders its CustomResourceDefinition from the versions' API types
(:mod:`._types`). Names default as Kubernetes and Crossplane spell them
(``plural`` is the lower-case kind plus ``s``, ``listKind`` the kind plus
``List``); every CRD is cluster-scoped and in the ``crossplane`` category
unless said otherwise, and carries the label that marks it as crossfn's
(:data:`MANAGED_BY`), which the installer reads before it replaces anything.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from crossfn.controller.crds._types import K8sResolver, Struct, schema_of

__all__ = ["CRD_API_VERSION", "CRD_KIND", "MANAGED_BY", "Column", "Kind", "Version"]

CRD_API_VERSION = "apiextensions.k8s.io/v1"
CRD_KIND = "CustomResourceDefinition"
MANAGED_BY = ("app.kubernetes.io/managed-by", "crossfn")
"""The label on every CRD crossfn generates: the installer upgrades only CRDs that carry it."""


@dataclasses.dataclass(frozen=True)
class Column:
    """An ``additionalPrinterColumns`` entry; ``priority=1`` shows only with ``-o wide``."""

    name: str
    json_path: str
    type: str = "string"
    priority: int = 0

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"jsonPath": self.json_path, "name": self.name, "type": self.type}
        if self.priority:
            out["priority"] = self.priority
        return out


AGE = Column("AGE", ".metadata.creationTimestamp", "date")


@dataclasses.dataclass(frozen=True)
class Version:
    """One served version: its root type, whether it is stored, its status subresource and columns.

    ``columns`` come before ``AGE``, ``wide`` ones (priority 1) after it, as
    Crossplane orders them. A ``deprecation_warning`` marks the version deprecated.
    """

    name: str
    root: type[Struct]
    storage: bool = False
    served: bool = True
    status: bool = True
    columns: tuple[Column, ...] = ()
    wide: tuple[Column, ...] = ()
    deprecation_warning: str = ""

    def to_dict(self, k8s: K8sResolver) -> dict[str, Any]:
        out: dict[str, Any] = {
            "additionalPrinterColumns": [c.to_dict() for c in (*self.columns, AGE, *self.wide)],
            "name": self.name,
            "schema": {"openAPIV3Schema": schema_of(self.root, k8s)},
            "served": self.served,
            "storage": self.storage,
            "subresources": {"status": {}} if self.status else {},
        }
        if self.deprecation_warning:
            out["deprecated"] = True
            out["deprecationWarning"] = self.deprecation_warning
        return out


@dataclasses.dataclass(frozen=True)
class Kind:
    """One Crossplane kind as a CRD serves it."""

    group: str
    kind: str
    versions: tuple[Version, ...]
    plural: str = ""
    short_names: tuple[str, ...] = ()
    categories: tuple[str, ...] | None = ("crossplane",)
    scope: str = "Cluster"

    @property
    def plural_name(self) -> str:
        return self.plural or f"{self.kind.lower()}s"

    @property
    def name(self) -> str:
        """The CRD's name, ``<plural>.<group>``."""
        return f"{self.plural_name}.{self.group}"

    def crd(self, k8s: K8sResolver) -> dict[str, Any]:
        """The CustomResourceDefinition serving this kind."""
        names: dict[str, Any] = {
            "kind": self.kind,
            "listKind": f"{self.kind}List",
            "plural": self.plural_name,
            "singular": self.kind.lower(),
        }
        if self.categories:
            names["categories"] = list(self.categories)
        if self.short_names:
            names["shortNames"] = list(self.short_names)
        return {
            "apiVersion": CRD_API_VERSION,
            "kind": CRD_KIND,
            "metadata": {"name": self.name, "labels": dict([MANAGED_BY])},
            "spec": {
                "group": self.group,
                "names": dict(sorted(names.items())),
                "scope": self.scope,
                "versions": [v.to_dict(k8s) for v in self.versions],
            },
        }
