"""Turn a CompositeResourceDefinition (XRD) into the CRDs Crossplane generates from it.

Crossplane never validates an XR against the XRD's schema as written: it
generates a CRD whose schema is the XRD's ``spec`` and ``status`` merged into a
base object schema, plus the machinery fields Crossplane owns (crossplane-core
upstream core-5). Which fields depends on the XR's scope:

* ``LegacyCluster`` (the default of an ``apiextensions.crossplane.io/v1``
  XRD): the v1 model. ``spec.compositionRef``, ``spec.compositionSelector``,
  ``spec.compositionRevisionRef``, ``spec.compositionRevisionSelector``,
  ``spec.compositionUpdatePolicy``, ``spec.claimRef``, ``spec.resourceRefs``
  and ``spec.writeConnectionSecretToRef``; ``status.connectionDetails`` and
  ``status.claimConditionTypes``. A v1 XRD may also offer a claim
  (:func:`claim_crd_from_xrd`).
* ``Namespaced`` (the default of a ``v2`` XRD) and ``Cluster``: the same
  machinery under ``spec.crossplane``, without claim or connection secret;
  namespaced XRs' ``resourceRefs`` carry no namespace. Their status has
  ``status.crossplane.connectionDetails``.

All get ``status.conditions``, the ``composite`` category, a status
subresource, the XRD's printer columns followed by Crossplane's, and
``metadata.name`` limited to 63 characters (names are label values). What of
the XRD's own schema is kept is listed on :func:`_crd_version`; Crossplane's
machinery fields win over XRD fields of the same name. The facts follow
Crossplane's ``internal/xcrd`` (v2).

Neighbours: :mod:`crossfn.schemas.store` registers the generated CRDs;
render's ``--xrd`` picks the version and defaults the XR with
:mod:`crossfn.schemas.defaults`.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from crossfn import errors
from crossfn.schemas import _xrd_checks

__all__ = [
    "check_xrd",
    "claim_crd_from_xrd",
    "claim_type",
    "composite_type",
    "crd_from_xrd",
    "offers_claim",
    "scope_of",
    "version_schema",
]

_XRD_GROUP = "apiextensions.crossplane.io"
_NAME_MAX_LENGTH = 63
LEGACY_CLUSTER = "LegacyCluster"


def scope_of(xrd: Mapping[str, Any]) -> str:
    """The XR scope an XRD declares: ``spec.scope``, else its API version's default.

    A ``v1`` XRD defaults to ``LegacyCluster``, a ``v2`` XRD to ``Namespaced``.
    """
    spec = _mapping(xrd.get("spec"))
    scope = spec.get("scope")
    if isinstance(scope, str) and scope:
        return scope
    if str(xrd.get("apiVersion", "")).endswith("/v1"):
        return LEGACY_CLUSTER
    return "Namespaced"


def offers_claim(xrd: Mapping[str, Any]) -> bool:
    """Whether the XRD offers a claim: ``spec.claimNames`` on a ``LegacyCluster`` XRD."""
    spec = _mapping(xrd.get("spec"))
    return isinstance(spec.get("claimNames"), Mapping) and scope_of(xrd) == LEGACY_CLUSTER


def composite_type(xrd: Mapping[str, Any]) -> tuple[str, str]:
    """The XR's apiVersion (the group and the referenceable version) and kind."""
    return _type_of(xrd, "names")


def claim_type(xrd: Mapping[str, Any]) -> tuple[str, str]:
    """The claim's apiVersion (the XR's) and kind; empty strings when the XRD offers no claim."""
    if not offers_claim(xrd):
        return "", ""
    return _type_of(xrd, "claimNames")


def _type_of(xrd: Mapping[str, Any], names_field: str) -> tuple[str, str]:
    """Crossplane's ``GetCompositeGroupVersionKind``: the referenceable version (``""`` when none is)."""
    spec = _mapping(xrd.get("spec"))
    version = next(
        (
            str(v.get("name") or "")
            for v in spec.get("versions") or ()
            if isinstance(v, Mapping) and v.get("referenceable")
        ),
        "",
    )
    kind = str(_mapping(spec.get(names_field)).get("kind") or "")
    return f"{spec.get('group', '')}/{version}", kind


def crd_from_xrd(xrd: Mapping[str, Any]) -> dict[str, Any]:
    """Generate the XR's CRD from an XRD, as Crossplane's XRD controller does.

    Raises :class:`~crossfn.errors.InputError` when the object is not an XRD,
    lacks ``spec.group``, ``spec.names.kind`` or ``spec.versions``, or has a
    version schema that does not parse (``cannot parse validation schema:
    <field>: ...``, where Crossplane fails the same way).
    """
    spec = _check_xrd(xrd)
    scope = scope_of(xrd)
    names = copy.deepcopy(dict(_mapping(spec.get("names"))))
    names["categories"] = [*names.get("categories", []), "composite"]
    policy = spec.get("defaultCompositionUpdatePolicy")
    versions = []
    for v in spec["versions"]:
        version = _crd_version(v, _NAME_MAX_LENGTH)
        schema = version["schema"]["openAPIV3Schema"]
        machinery = _composite_spec_props(scope, policy if isinstance(policy, str) else None)
        if scope == LEGACY_CLUSTER:
            schema["properties"]["spec"]["properties"].update(machinery)
        else:
            schema["properties"]["spec"]["properties"]["crossplane"] = {
                "type": "object",
                "description": "Configures how Crossplane will reconcile this composite resource",
                "properties": machinery,
            }
        schema["properties"]["status"]["properties"].update(_composite_status_props(scope))
        version["additionalPrinterColumns"] = [*version["additionalPrinterColumns"], *_columns(scope)]
        versions.append(version)
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": _mapping(xrd.get("metadata")).get("name", "")},
        "spec": {
            "group": spec["group"],
            "names": names,
            "scope": "Namespaced" if scope == "Namespaced" else "Cluster",
            "versions": versions,
        },
    }


def claim_crd_from_xrd(xrd: Mapping[str, Any]) -> dict[str, Any] | None:
    """Generate the claim's CRD of a legacy XRD that offers one (``spec.claimNames``), else ``None``."""
    spec = _check_xrd(xrd)
    claim_names = spec.get("claimNames")
    if scope_of(xrd) != LEGACY_CLUSTER or not isinstance(claim_names, Mapping) or not claim_names.get("kind"):
        return None
    names = copy.deepcopy(dict(claim_names))
    names["categories"] = [*names.get("categories", []), "claim"]
    delete = spec.get("defaultCompositeDeletePolicy")
    versions = []
    for v in spec["versions"]:
        version = _crd_version(v, _NAME_MAX_LENGTH)
        schema = version["schema"]["openAPIV3Schema"]
        schema["properties"]["spec"]["properties"].update(
            _claim_spec_props(delete if isinstance(delete, str) else None)
        )
        # As upstream, claims get the legacy XR's status fields (claimConditionTypes included).
        schema["properties"]["status"]["properties"].update(_composite_status_props(LEGACY_CLUSTER))
        version["additionalPrinterColumns"] = [*version["additionalPrinterColumns"], *_columns("Claim")]
        versions.append(version)
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{claim_names.get('plural', '')}.{spec['group']}"},
        "spec": {"group": spec["group"], "names": names, "scope": "Namespaced", "versions": versions},
    }


def version_schema(crd: Mapping[str, Any], api_version: str) -> dict[str, Any]:
    """The ``openAPIV3Schema`` of the CRD version serving ``api_version`` (``group/version``).

    Raises :class:`~crossfn.errors.InputError` with Crossplane's render text
    ``the specified API version '<v>' does not exist in the XRD`` when no
    version matches.
    """
    spec = _mapping(crd.get("spec"))
    for v in spec.get("versions") or ():
        if isinstance(v, Mapping) and f"{spec.get('group')}/{v.get('name')}" == api_version:
            schema = _mapping(_mapping(v.get("schema")).get("openAPIV3Schema"))
            return copy.deepcopy(dict(schema))
    raise errors.InputError(f"the specified API version '{api_version}' does not exist in the XRD")


def _check_xrd(xrd: Mapping[str, Any]) -> Mapping[str, Any]:
    """Return the XRD's spec after checking the fields the generation needs."""
    name = _mapping(xrd.get("metadata")).get("name", "")
    api_version = str(xrd.get("apiVersion", ""))
    if xrd.get("kind") != "CompositeResourceDefinition" or not api_version.startswith(_XRD_GROUP + "/"):
        raise errors.InputError(
            f"cannot convert XRD {errors.quote(str(name))}: not a CompositeResourceDefinition "
            f"({api_version}, Kind={xrd.get('kind')})"
        )
    spec = _mapping(xrd.get("spec"))
    for field, ok in (
        ("spec.group", isinstance(spec.get("group"), str) and spec.get("group")),
        ("spec.names.kind", _mapping(spec.get("names")).get("kind")),
        ("spec.versions", isinstance(spec.get("versions"), list) and spec.get("versions")),
    ):
        if not ok:
            raise errors.InputError(f"cannot convert XRD {errors.quote(str(name))}: {field}: Required value")
    problems: list[str] = []
    for i, v in enumerate(spec["versions"]):
        if not isinstance(v, Mapping) or not isinstance(v.get("name"), str):
            raise errors.InputError(
                f"cannot convert XRD {errors.quote(str(name))}: spec.versions[{i}].name: Required value"
            )
        wrapper = v.get("schema")
        if isinstance(wrapper, Mapping):
            path = f"spec.versions[{i}].schema.openAPIV3Schema"
            problems.extend(_xrd_checks.schema_errors(wrapper.get("openAPIV3Schema"), path))
        elif wrapper is not None:
            problems.extend(_xrd_checks.schema_errors(wrapper, f"spec.versions[{i}].schema", "an object"))
    if problems:
        # Crossplane's words for a schema it cannot unmarshal, then which field and why.
        raise errors.InputError(
            f"cannot convert XRD {errors.quote(str(name))}: cannot parse validation schema: {_join(problems)}"
        )
    return spec


def check_xrd(xrd: Mapping[str, Any]) -> None:
    """Refuse an XRD the controller cannot serve as written, naming each field at fault.

    On top of what :func:`crd_from_xrd` refuses (missing fields, a schema that
    does not parse): not exactly one referenceable version, a repeated version
    name, or an XR, ``spec`` or ``status`` schema whose ``type`` is not
    ``object`` (which Crossplane would silently replace). Raises
    :class:`~crossfn.errors.InputError` ``cannot convert XRD "<name>": <field>:
    <problem>[; ...]``. Render does not call this: it keeps Crossplane's leniency.
    """
    spec = _check_xrd(xrd)
    problems = _xrd_checks.definition_errors(spec)
    if problems:
        name = str(_mapping(xrd.get("metadata")).get("name", ""))
        raise errors.InputError(f"cannot convert XRD {errors.quote(name)}: {_join(problems)}")


_MAX_PROBLEMS = 5


def _join(problems: list[str]) -> str:
    """Problems as one line; past five, only how many more there are."""
    shown = "; ".join(problems[:_MAX_PROBLEMS])
    more = len(problems) - _MAX_PROBLEMS
    return f"{shown}; and {more} more" if more > 0 else shown


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _base_props(name_max_length: int) -> dict[str, Any]:
    name: dict[str, Any] = {"type": "string", "maxLength": name_max_length}
    return {
        "type": "object",
        "required": ["spec"],
        "properties": {
            "apiVersion": {"type": "string"},
            "kind": {"type": "string"},
            "metadata": {"type": "object", "properties": {"name": name}},
            "spec": {"type": "object", "properties": {}},
            "status": {"type": "object", "properties": {}},
        },
    }


def _crd_version(v: Mapping[str, Any], name_max_length: int) -> dict[str, Any]:
    """One CRD version: the base schema with the XRD version's schema merged in, as Crossplane merges it.

    Only these parts of the XRD's schema are taken: the top level's
    description; ``metadata.name.maxLength`` when it is stricter; ``spec``'s
    properties, description, ``required``, ``x-kubernetes-validations`` and
    ``oneOf`` (appended to the CRD's) and ``x-kubernetes-preserve-unknown-fields``;
    ``status``'s properties, description, ``required``,
    ``x-kubernetes-validations`` and ``oneOf``. The version's
    ``subresources.scale``, if any, is the CRD's.
    """
    xs = copy.deepcopy(dict(_mapping(_mapping(v.get("schema")).get("openAPIV3Schema"))))
    props = _mapping(xs.get("properties"))
    old_max = _mapping(_mapping(_mapping(props.get("metadata")).get("properties")).get("name")).get(
        "maxLength"
    )
    if isinstance(old_max, int) and old_max < name_max_length:
        name_max_length = old_max
    schema = _base_props(name_max_length)
    if "description" in xs:
        schema["description"] = xs["description"]
    _merge_spec(schema["properties"]["spec"], _mapping(props.get("spec")))
    _merge_status(schema["properties"]["status"], _mapping(props.get("status")))
    version: dict[str, Any] = {
        "name": v["name"],
        "served": bool(v.get("served", False)),
        "storage": bool(v.get("referenceable", False)),
        "deprecated": bool(v.get("deprecated", False)),
        "schema": {"openAPIV3Schema": schema},
        "subresources": {"status": {}},
        "additionalPrinterColumns": list(v.get("additionalPrinterColumns") or ()),
    }
    if "deprecationWarning" in v:
        version["deprecationWarning"] = v["deprecationWarning"]
    scale = _mapping(_mapping(v.get("subresources")).get("scale"))
    if scale:  # the XRD version's scale subresource goes to the CRD as it is (v2.3+)
        version["subresources"]["scale"] = copy.deepcopy(dict(scale))
    return version


def _merge_spec(target: dict[str, Any], source: Mapping[str, Any]) -> None:
    for key in ("required", "x-kubernetes-validations", "oneOf"):
        extra = source.get(key)
        if isinstance(extra, list) and extra:
            target[key] = [*target.get(key, []), *extra]
    for key in ("description", "x-kubernetes-preserve-unknown-fields"):
        if key in source:
            target[key] = source[key]
    target["properties"].update(_mapping(source.get("properties")))


def _merge_status(target: dict[str, Any], source: Mapping[str, Any]) -> None:
    for key in ("required", "x-kubernetes-validations", "oneOf", "description"):
        if key in source:
            target[key] = source[key]
    target["properties"].update(_mapping(source.get("properties")))


def _string() -> dict[str, Any]:
    return {"type": "string"}


def _ref(*required: str) -> dict[str, Any]:
    return {"type": "object", "required": list(required), "properties": {k: _string() for k in required}}


def _selector() -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["matchLabels"],
        "properties": {"matchLabels": {"type": "object", "additionalProperties": _string()}},
    }


def _update_policy(default: str | None) -> dict[str, Any]:
    policy: dict[str, Any] = {"type": "string", "enum": ["Automatic", "Manual"]}
    if default:
        policy["default"] = default
    return policy


def _composition_props(update_policy: str | None) -> dict[str, Any]:
    return {
        "compositionRef": _ref("name"),
        "compositionSelector": _selector(),
        "compositionRevisionRef": _ref("name"),
        "compositionRevisionSelector": _selector(),
        "compositionUpdatePolicy": _update_policy(update_policy),
    }


def _composite_spec_props(scope: str, update_policy: str | None) -> dict[str, Any]:
    """The machinery fields of an XR's spec (legacy) or ``spec.crossplane`` (modern)."""
    ref_props = {"apiVersion": _string(), "kind": _string(), "name": _string()}
    if scope != "Namespaced":
        ref_props["namespace"] = _string()
    props = _composition_props(update_policy)
    props["resourceRefs"] = {
        "type": "array",
        "x-kubernetes-list-type": "atomic",
        "items": {"type": "object", "required": ["apiVersion", "kind"], "properties": ref_props},
    }
    if scope == LEGACY_CLUSTER:
        props["claimRef"] = _ref("apiVersion", "kind", "namespace", "name")
        props["writeConnectionSecretToRef"] = _ref("name", "namespace")
    return props


def _conditions() -> dict[str, Any]:
    return {
        "description": "Conditions of the resource.",
        "type": "array",
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["type"],
        "items": {
            "type": "object",
            "required": ["lastTransitionTime", "reason", "status", "type"],
            "properties": {
                "lastTransitionTime": {"type": "string", "format": "date-time"},
                "message": _string(),
                "observedGeneration": {"type": "integer", "format": "int64"},
                "reason": _string(),
                "status": _string(),
                "type": _string(),
            },
        },
    }


def _connection_details() -> dict[str, Any]:
    return {"type": "object", "properties": {"lastPublishedTime": {"type": "string", "format": "date-time"}}}


def _composite_status_props(scope: str) -> dict[str, Any]:
    # Both schemas carry the token of the last handled `crossplane.io/reconcile-requested-at`.
    props: dict[str, Any] = {"conditions": _conditions(), "lastHandledReconcileAt": _string()}
    if scope == LEGACY_CLUSTER:
        props["connectionDetails"] = _connection_details()
        props["claimConditionTypes"] = {"type": "array", "x-kubernetes-list-type": "set", "items": _string()}
    else:
        props["crossplane"] = {
            "type": "object",
            "description": "Indicates how Crossplane is reconciling this composite resource",
            "properties": {"connectionDetails": _connection_details()},
        }
    return props


def _claim_spec_props(delete_policy: str | None) -> dict[str, Any]:
    props = _composition_props(None)
    delete: dict[str, Any] = {"type": "string", "enum": ["Background", "Foreground"]}
    if delete_policy:
        delete["default"] = delete_policy
    props["compositeDeletePolicy"] = delete
    props["resourceRef"] = _ref("apiVersion", "kind", "name")
    props["writeConnectionSecretToRef"] = _ref("name")
    return props


def _columns(scope: str) -> list[dict[str, Any]]:
    """Crossplane's printer columns, appended after the XRD's own."""
    columns: list[dict[str, Any]] = [
        {"name": "SYNCED", "type": "string", "jsonPath": ".status.conditions[?(@.type=='Synced')].status"},
        {"name": "READY", "type": "string", "jsonPath": ".status.conditions[?(@.type=='Ready')].status"},
    ]
    if scope == "Claim":
        secret = {
            "name": "CONNECTION-SECRET",
            "type": "string",
            "jsonPath": ".spec.writeConnectionSecretToRef.name",
        }
        columns.append(secret)
    else:
        machinery = ".spec" if scope == LEGACY_CLUSTER else ".spec.crossplane"
        columns.append(
            {"name": "COMPOSITION", "type": "string", "jsonPath": f"{machinery}.compositionRef.name"}
        )
        columns.append(
            {
                "name": "COMPOSITIONREVISION",
                "type": "string",
                "jsonPath": f"{machinery}.compositionRevisionRef.name",
                "priority": 1,
            }
        )
    columns.append({"name": "AGE", "type": "date", "jsonPath": ".metadata.creationTimestamp"})
    return columns
