"""``XR``: one composite resource, every field read and written through its schema, decided once.

Crossplane keeps its machinery in two places. A legacy (v1, ``LegacyCluster``)
XR holds it directly under ``spec`` (``spec.compositionRef``,
``spec.resourceRefs``, ``spec.claimRef``, ``spec.writeConnectionSecretToRef``,
...), a modern (v2) XR under ``spec.crossplane`` and without claims or a
connection Secret. crossplane-runtime wraps an XR once in a view whose schema
is fixed when it is made (``composite.Unstructured`` with ``WithSchema``), and
every getter and setter asks the schema, never the caller. :class:`XR` is that
view: the XR reconciler decides the schema from its XRD
(:meth:`XR.schema_for`) and wraps each XR it reads; the selection, the compose
I/O, events and the claim reconciler then read ``xr.composition_ref`` or
``xr.resource_refs`` without knowing where they live.

The view holds the object itself (:attr:`XR.obj`, the dict the API server
returned): writes land in it, and it is what is sent back to the API server and
handed to the engine. After an update returns a new version of the object,
:meth:`XR.renew` wraps that one in the same schema.

Getters are lenient, as Crossplane's: a field of the wrong type reads as unset.
Before a step acts on what it reads, it calls :meth:`XR.check_selection_fields`
or :meth:`XR.check_composition_fields`, which refuse a wrongly typed field with
its path (``spec.crossplane.compositionRef.name must be a string, not a
number``), so a field misread as unset never picks another Composition
silently. The CRDs crossfn generates type these fields; an XR kind whose CRD
came from elsewhere may not.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from crossfn import engine, errors
from crossfn.controller.runtime import _conditions, _controller
from crossfn.gocompat import values
from crossfn.schemas import xrd as xrd_schemas

__all__ = ["XR"]


def _object(value: object, where: str) -> Mapping[str, Any]:
    """``value`` when it is an object or unset (``{}``); else a user's mistake naming the field."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise errors.InputError(f"{where} must be an object, not {values.a_json_type(value)}")
    return value


class XR:
    """A composite resource read and written through its schema (legacy or modern), fixed at construction."""

    __slots__ = ("obj", "schema")

    def __init__(self, obj: dict[str, Any], schema: engine.CompositeSchema) -> None:
        self.obj = obj
        """The XR itself, as the API server returned it; the view's writes land here."""
        self.schema = schema

    @staticmethod
    def schema_for(
        xrd: Mapping[str, Any], override: engine.CompositeSchema | None = None
    ) -> engine.CompositeSchema:
        """The schema of an XRD's XRs: ``override`` when given, else legacy exactly for ``LegacyCluster``."""
        if override is not None:
            return override
        legacy = xrd_schemas.scope_of(xrd) == xrd_schemas.LEGACY_CLUSTER
        return engine.CompositeSchema.LEGACY if legacy else engine.CompositeSchema.MODERN

    def renew(self, obj: dict[str, Any]) -> XR:
        """Another version of this XR (an update's answer) in the same schema."""
        return XR(obj, self.schema)

    @property
    def legacy(self) -> bool:
        """Whether this is a legacy (v1) XR: machinery under ``spec``, a claim and a connection Secret."""
        return self.schema is engine.CompositeSchema.LEGACY

    @property
    def machinery_path(self) -> str:
        """Where Crossplane's fields are, as error messages name them: ``spec`` or ``spec.crossplane``."""
        return "spec" if self.legacy else "spec.crossplane"

    # Identity ----------------------------------------------------------------------------------

    @property
    def _meta(self) -> Mapping[str, Any]:
        meta = self.obj.get("metadata")
        return meta if isinstance(meta, Mapping) else {}

    @property
    def api_version(self) -> str:
        return str(self.obj.get("apiVersion") or "")

    @property
    def kind(self) -> str:
        return str(self.obj.get("kind") or "")

    @property
    def name(self) -> str:
        return str(self._meta.get("name") or "")

    @property
    def namespace(self) -> str:
        """The XR's namespace; ``""`` for a cluster-scoped (legacy or v2 ``Cluster``) XR."""
        return str(self._meta.get("namespace") or "")

    @property
    def key(self) -> str:
        """The XR's work-queue key: ``namespace/name``, or ``name`` when cluster-scoped."""
        return _controller.key_of(self.obj)

    @property
    def deleting(self) -> bool:
        """Whether the XR is being deleted (``metadata.deletionTimestamp`` is set)."""
        return bool(self._meta.get("deletionTimestamp"))

    def add_finalizer(self, finalizer: str) -> bool:
        """Add ``finalizer`` in memory; ``False`` when it is already there."""
        meta = self.obj.setdefault("metadata", {})
        finalizers = list(meta.get("finalizers") or [])
        if finalizer in finalizers:
            return False
        meta["finalizers"] = [*finalizers, finalizer]
        return True

    def remove_finalizer(self, finalizer: str) -> bool:
        """Remove ``finalizer`` in memory; ``False`` when it was not there."""
        meta = self.obj.setdefault("metadata", {})
        finalizers = list(meta.get("finalizers") or [])
        if finalizer not in finalizers:
            return False
        meta["finalizers"] = [f for f in finalizers if f != finalizer]
        return True

    # Crossplane's machinery: spec (legacy) or spec.crossplane (modern) ---------------------------

    def machinery(self) -> dict[str, Any]:
        """The map holding Crossplane's fields, created when absent, for writing in place.

        Only for a rule the engine shares with render and that takes the map
        (``engine.default_connection_secret``); everything else has its accessor.
        """
        spec: dict[str, Any] = self.obj.setdefault("spec", {})
        if self.legacy:
            return spec
        machinery: dict[str, Any] = spec.setdefault("crossplane", {})
        return machinery

    def _peek(self) -> Mapping[str, Any]:
        """The machinery map for reading; never creates anything."""
        spec = self.obj.get("spec") or {}
        found = spec if self.legacy else spec.get("crossplane") or {}
        return found if isinstance(found, Mapping) else {}

    def _ref_name(self, field: str) -> str | None:
        ref = self._peek().get(field)
        name = ref.get("name") if isinstance(ref, Mapping) else None
        return str(name) if name else None

    def _match_labels(self, field: str) -> dict[str, str] | None:
        selector = self._peek().get(field)
        if not isinstance(selector, Mapping):
            return None
        labels = selector.get("matchLabels")
        return {str(k): str(v) for k, v in labels.items()} if isinstance(labels, Mapping) else {}

    @property
    def composition_ref(self) -> str | None:
        """The name ``compositionRef`` holds; ``None`` when unset."""
        return self._ref_name("compositionRef")

    def set_composition_ref(self, name: str) -> None:
        self.machinery()["compositionRef"] = {"name": name}

    @property
    def composition_selector(self) -> dict[str, str] | None:
        """``compositionSelector.matchLabels``; ``None`` without a selector, ``{}`` with an empty one."""
        return self._match_labels("compositionSelector")

    @property
    def composition_revision_ref(self) -> str | None:
        """The name ``compositionRevisionRef`` holds; ``None`` when unset."""
        return self._ref_name("compositionRevisionRef")

    def set_composition_revision_ref(self, name: str) -> None:
        self.machinery()["compositionRevisionRef"] = {"name": name}

    @property
    def composition_revision_selector(self) -> dict[str, str] | None:
        """``compositionRevisionSelector.matchLabels``; ``None`` without a selector."""
        return self._match_labels("compositionRevisionSelector")

    def set_composition_revision_selector(self, labels: Mapping[str, str]) -> None:
        self.machinery()["compositionRevisionSelector"] = {"matchLabels": dict(labels)}

    @property
    def composition_update_policy(self) -> str:
        """``Automatic`` or ``Manual``; unset reads Automatic, the CRD's default."""
        return str(self._peek().get("compositionUpdatePolicy") or "Automatic")

    @property
    def resource_refs(self) -> list[Any]:
        """``resourceRefs`` as stored (each ref an object with apiVersion, kind, name, maybe namespace)."""
        refs = self._peek().get("resourceRefs")
        return list(refs) if isinstance(refs, list) else []

    def set_resource_refs(self, refs: list[dict[str, Any]]) -> None:
        self.machinery()["resourceRefs"] = refs

    @property
    def claim_ref(self) -> Mapping[str, Any] | None:
        """A legacy XR's ``spec.claimRef`` when set (a non-empty object); ``None`` otherwise, and always
        for a modern XR, which has no claim."""
        if not self.legacy:
            return None
        ref = self._peek().get("claimRef")
        return ref if isinstance(ref, Mapping) and ref else None

    # Status ------------------------------------------------------------------------------------

    @property
    def status(self) -> dict[str, Any]:
        """The status map, created when absent (so writes land in place)."""
        status: dict[str, Any] = self.obj.setdefault("status", {})
        return status

    def condition(self, type_: str) -> dict[str, Any]:
        """The condition of that type, or ``{type, status: Unknown}``."""
        return _conditions.get_condition(self.obj, type_)

    def set_condition(self, condition: dict[str, Any]) -> bool:
        """Set a condition by type (crossplane-runtime's rule); whether anything changed."""
        return _conditions.set_condition(self.obj, condition)

    @property
    def claim_condition_types(self) -> list[str]:
        """``status.claimConditionTypes``: the conditions a legacy XR's claim shows too (none for modern XRs)."""
        if not self.legacy:
            return []
        status = self.obj.get("status")
        types = status.get("claimConditionTypes") if isinstance(status, Mapping) else None
        return [str(t) for t in types] if isinstance(types, list) else []

    def set_connection_details_published(self, timestamp: str) -> None:
        """``status.connectionDetails.lastPublishedTime``: when the connection Secret last changed."""
        self.status.setdefault("connectionDetails", {})["lastPublishedTime"] = timestamp

    # Checks before a step reads --------------------------------------------------------------

    def _machinery_checked(self) -> Mapping[str, Any]:
        spec = _object(self.obj.get("spec"), "spec")
        if self.legacy:
            return spec
        return _object(spec.get("crossplane"), "spec.crossplane")

    def check_selection_fields(self) -> None:
        """Refuse wrongly typed selection fields, naming the field, before any is read or written."""
        machinery, at = self._machinery_checked(), self.machinery_path
        for field in ("compositionRef", "compositionRevisionRef"):
            name = _object(machinery.get(field), f"{at}.{field}").get("name")
            if name is not None and not isinstance(name, str):
                raise errors.InputError(f"{at}.{field}.name must be a string, not {values.a_json_type(name)}")
        for field in ("compositionSelector", "compositionRevisionSelector"):
            where = f"{at}.{field}.matchLabels"
            labels = _object(_object(machinery.get(field), f"{at}.{field}").get("matchLabels"), where)
            for key, value in labels.items():
                if not isinstance(value, str):
                    raise errors.InputError(
                        f"{where}.{key} must be a string, not {values.a_json_type(value)}"
                    )
        policy = machinery.get("compositionUpdatePolicy")
        if policy is not None and policy not in ("Automatic", "Manual"):
            shown = errors.quote(policy) if isinstance(policy, str) else values.a_json_type(policy)
            raise errors.InputError(f"{at}.compositionUpdatePolicy must be Automatic or Manual, not {shown}")

    def check_composition_fields(self) -> None:
        """Refuse a wrongly typed ``resourceRefs`` (and a legacy XR's Secret and claim refs), naming the field."""
        machinery, at = self._machinery_checked(), self.machinery_path
        refs = machinery.get("resourceRefs")
        if refs is not None:
            if not isinstance(refs, list):
                raise errors.InputError(f"{at}.resourceRefs must be a list, not {values.a_json_type(refs)}")
            for i, ref in enumerate(refs):
                _object(ref, f"{at}.resourceRefs[{i}]")
        if self.legacy:
            for field in ("writeConnectionSecretToRef", "claimRef"):
                _object(machinery.get(field), f"{at}.{field}")
