"""The kinds of ``protection.crossplane.io``: Usage (namespaced) and ClusterUsage (v1beta1).

A Usage says that one resource is in use by another (or for a reason), so
deleting the used one is refused while the Usage exists
(``crossfn.controller.protection``). A namespaced Usage names its resources
in its own namespace unless it names another, which needs a ``by``.
"""

from __future__ import annotations

from crossfn.controller.crds import _apiextensions, _core
from crossfn.controller.crds._kind import Column, Kind, Version
from crossfn.controller.crds._types import Boolean, Map, Obj, Rule, String, Struct

__all__ = ["KINDS"]

_REF_OR_SELECTOR = Rule(
    "has(self.resourceRef) || has(self.resourceSelector)",
    "either a resource reference or a resource selector should be set.",
)


class NamespacedResourceRef(Struct):
    name = String(required=True)
    namespace = String()


class NamespacedResourceSelector(Struct):
    matchLabels = Map(String())
    matchControllerRef = Boolean()
    namespace = String()


class NamespacedResource(Struct, validations=[_REF_OR_SELECTOR]):
    apiVersion = String()
    kind = String()
    resourceRef = Obj(NamespacedResourceRef)
    resourceSelector = Obj(NamespacedResourceSelector)


class UsageSpec(
    Struct,
    validations=[
        _apiextensions.BY_OR_REASON,
        Rule(
            "has(self.by) || (!has(self.of.resourceRef) || !has(self.of.resourceRef.__namespace__)) && "
            "(!has(self.of.resourceSelector) || !has(self.of.resourceSelector.__namespace__))",
            'cross-namespace "spec.of" is not allowed without "spec.by" resource.',
        ),
    ],
):
    of = Obj(NamespacedResource, required=True)
    by = Obj(_apiextensions.Resource)
    reason = String()
    replayDeletion = Boolean()


class Usage(_core.Root):
    spec = Obj(UsageSpec, required=True)
    status = Obj(_core.ConditionedStatus)


class ClusterUsage(_core.Root):
    spec = Obj(_apiextensions.UsageSpec, required=True)
    status = Obj(_core.ConditionedStatus)


_COLUMNS = (
    Column("DETAILS", ".metadata.annotations.crossplane\\.io/usage-details"),
    Column("READY", ".status.conditions[?(@.type=='Ready')].status"),
)

KINDS = (
    Kind(
        "protection.crossplane.io",
        "ClusterUsage",
        versions=(Version("v1beta1", ClusterUsage, storage=True, columns=_COLUMNS),),
    ),
    Kind(
        "protection.crossplane.io",
        "Usage",
        scope="Namespaced",
        versions=(Version("v1beta1", Usage, storage=True, columns=_COLUMNS),),
    ),
)
