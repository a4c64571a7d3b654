"""The types every Crossplane kind shares (Crossplane's ``apis/core/v2`` and the object root).

:class:`Root` is what each kind's schema starts from (``apiVersion``,
``kind``, ``metadata``); :class:`ConditionedStatus` the status with
``conditions`` most kinds have. The group modules (``_apiextensions``,
``_pkg``, ``_ops``, ``_protection``) build on these.
"""

from __future__ import annotations

from crossfn.controller.crds._types import Array, Integer, Map, Obj, String, Struct

__all__ = ["Condition", "ConditionedStatus", "Metadata", "ObjectMeta", "Root", "TypeReference", "conditions"]


class ObjectMeta(Struct):
    """An object's ``metadata``: the API server's own type, so the CRD says only ``type: object``."""


class Root(Struct):
    """The fields of every kind; a kind's root type adds ``spec``, ``status`` or its own."""

    apiVersion = String()
    kind = String()
    metadata = Obj(ObjectMeta)


class Condition(Struct):
    """One entry of ``status.conditions``."""

    type = String(required=True)
    status = String(required=True)
    reason = String(required=True)
    message = String()
    lastTransitionTime = String(format="date-time", required=True)
    observedGeneration = Integer(format="int64")


def conditions() -> Array:
    """``status.conditions``: a list keyed by ``type``."""
    return Array(Condition, list_type="map", map_keys=["type"])


class ConditionedStatus(Struct):
    """A status holding only conditions."""

    conditions = conditions()


class TypeReference(Struct):
    """A kind: ``apiVersion`` and ``kind``."""

    apiVersion = String(required=True)
    kind = String(required=True)


class Metadata(Struct):
    """Labels and annotations a kind stamps on what it creates."""

    annotations = Map(String())
    labels = Map(String())
