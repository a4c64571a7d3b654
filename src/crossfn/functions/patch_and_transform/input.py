"""The function's input, ``pt.fn.crossplane.io/v1beta1`` ``Resources``, decoded strictly.

Go decodes the input with JSON v2 and, from v0.4.0, ``RejectUnknownMembers``, so
an unknown field anywhere (the removed ``policy.mergeOptions`` included) fails
the whole input; earlier releases drop unknown fields. Integer fields must hold
whole numbers in every release (upstream pt-2.1). :func:`decode` checks the raw
input against a schema mirroring the Go types of the release it behaves as
(:mod:`.release`: fields a release did not have are unknown to it), then builds
the frozen dataclasses below. No CRD defaults are applied: the
only defaults are the ones Go writes in code (a patch's empty type means
``FromCompositeFieldPath``, an absent
``toFieldPath`` means ``fromFieldPath``).

Transforms stay plain dicts (checked against the transform schema): they belong
to :mod:`.transforms`, which validates and resolves them. Opaque JSON fields
(``base``, map values, match results, fallback values) are kept as given.
Validation of the decoded input lives in :mod:`.validation`.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

from crossfn import errors
from crossfn.functions.patch_and_transform import release
from crossfn.gocompat import values

__all__ = [
    "Combine",
    "ComposedTemplate",
    "ConnectionDetail",
    "ConnectionSecretRef",
    "MatchCondition",
    "Patch",
    "PatchSet",
    "ReadinessCheck",
    "Resources",
    "decode",
]

FROM_COMPOSITE = "FromCompositeFieldPath"

# --- the schema: str/int are leaf types, dicts are objects, one-element lists are lists ---------
_ANY = "any"
_OBJECT = "object"


@functools.cache
def _schema(r: release.Release) -> dict[str, Any]:
    """The ``Resources`` type of release ``r``, as the schema :func:`_check` reads."""
    policy: dict[str, Any] = {"fromFieldPath": str}
    if r.has_to_field_path_policy:
        policy["toFieldPath"] = str
    combine = {"variables": [{"fromFieldPath": str}], "strategy": str, "string": {"fmt": str}}
    string: dict[str, Any] = {
        "type": str,
        "fmt": str,
        "convert": str,
        "trim": str,
        "regexp": {"match": str, "group": int},
    }
    if r.has_join_and_replace:
        string |= {"join": {"separator": str}, "replace": {"search": str, "replace": str}}
    transform = {
        "type": str,
        "map": _OBJECT,
        "match": {
            "patterns": [{"type": str, "literal": str, "regexp": str, "result": _ANY}],
            "fallbackValue": _ANY,
            "fallbackTo": str,
        },
        "math": {"type": str, "multiply": int, "clampMin": int, "clampMax": int},
        "string": string,
        "convert": {"toType": str, "format": str},
    }
    patch: dict[str, Any] = {
        "type": str,
        "fromFieldPath": str,
        "toFieldPath": str,
        "combine": combine,
        "transforms": [transform],
        "policy": policy,
    }
    composed_patch = {**patch, "patchSetName": str}
    if not r.patches_in_order:
        patch = composed_patch  # one Patch type for every list up to v0.2.x
    template = {
        "name": str,
        "base": _ANY,
        "patches": [composed_patch],
        "connectionDetails": [
            {"name": str, "type": str, "fromConnectionSecretKey": str, "fromFieldPath": str, "value": str}
        ],
        "readinessChecks": [
            {
                "type": str,
                "fieldPath": str,
                "matchString": str,
                "matchInteger": int,
                "matchCondition": {"type": str, "status": str},
            }
        ],
    }
    out: dict[str, Any] = {
        "apiVersion": str,
        "kind": str,
        "metadata": _ANY,
        "patchSets": [{"name": str, "patches": [patch]}],
        "resources": [template],
    }
    if r.has_environment:
        out["environment"] = {"patches": [patch]}
    if r.has_connection_secret:
        out["writeConnectionSecretToRef"] = {"name": str, "namespace": str, "patches": [patch]}
    return out


def _check(value: Any, schema: Any, path: str, strict: bool) -> Any:
    """Check ``value`` against ``schema`` and return it cleaned (integers as ``int``, nulls dropped).

    An unknown field fails when ``strict``; otherwise it is dropped, as Go's decoder then ignores it.
    """
    where = path or "input"
    if schema == _ANY:
        return value
    if schema == _OBJECT or isinstance(schema, dict):
        if not isinstance(value, dict):
            raise errors.FunctionInputError(f"{where}: expected an object, got {values.json_type(value)}")
        if schema == _OBJECT:
            return value
        out: dict[str, Any] = {}
        for key, item in value.items():
            if key not in schema:
                if not strict:
                    continue
                raise errors.FunctionInputError(f"{where}: unknown field {errors.quote(key)}")
            if item is not None:
                out[key] = _check(item, schema[key], f"{path}.{key}" if path else key, strict)
        return out
    if isinstance(schema, list):
        if not isinstance(value, list):
            raise errors.FunctionInputError(f"{where}: expected an array, got {values.json_type(value)}")
        return [_check(item, schema[0], f"{path}[{i}]", strict) for i, item in enumerate(value)]
    if schema is str:
        if not isinstance(value, str):
            raise errors.FunctionInputError(f"{where}: expected a string, got {values.json_type(value)}")
        return value
    # int64 fields: JSON numbers arrive as doubles and must be whole and in range.
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise errors.FunctionInputError(f"{where}: expected an integer, got {values.json_type(value)}")
    if isinstance(value, float) and not (value.is_integer() and -(2**63) <= value < 2**63):
        raise errors.FunctionInputError(f"{where}: expected an integer, got {value!r}")
    return int(value)


# --- the decoded types ------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Combine:
    """How a Combine* patch joins several source fields into one value."""

    variables: tuple[str, ...]
    """Each variable's fromFieldPath, in order; they are the format's arguments."""
    strategy: str
    string_fmt: str | None
    """``string.fmt``; ``None`` when the ``string`` object is absent."""


@dataclasses.dataclass(frozen=True)
class Patch:
    """One patch of any kind (composed, PatchSet, environment or connection-secret)."""

    type: str
    """Already defaulted: an empty type is ``FromCompositeFieldPath``."""
    from_field_path: str
    """``""`` when absent (:attr:`has_from_field_path` tells the two apart)."""
    to_field_path: str | None
    """``None`` when absent: :attr:`to` then falls back to ``from_field_path``."""
    combine: Combine | None = None
    transforms: tuple[dict[str, Any], ...] = ()
    policy_from: str | None = None
    policy_to: str | None = None
    has_policy: bool = False
    patch_set_name: str = ""
    written_type: str = ""
    """The type as written (empty when absent): what validation up to v0.2.x printed."""
    has_from_field_path: bool = True

    @property
    def to(self) -> str:
        """The effective toFieldPath: an absent one means the same path as fromFieldPath."""
        return self.from_field_path if self.to_field_path is None else self.to_field_path


@dataclasses.dataclass(frozen=True)
class ConnectionDetail:
    """One connection detail to extract from an observed composed resource."""

    name: str
    type: str
    from_connection_secret_key: str | None
    from_field_path: str | None
    value: str | None


@dataclasses.dataclass(frozen=True)
class MatchCondition:
    """The condition a MatchCondition readiness check looks for."""

    type: str
    status: str


@dataclasses.dataclass(frozen=True)
class ReadinessCheck:
    """One readiness check on an observed composed resource."""

    type: str
    field_path: str | None
    match_string: str | None
    match_integer: int | None
    match_condition: MatchCondition | None


@dataclasses.dataclass(frozen=True)
class ComposedTemplate:
    """One entry of ``resources``: a composed resource's base and what to do with it."""

    name: str
    base: Any
    """The raw base object; ``None`` when absent (then an earlier function's resource is patched)."""
    patches: tuple[Patch, ...]
    connection_details: tuple[ConnectionDetail, ...]
    readiness_checks: tuple[ReadinessCheck, ...]


@dataclasses.dataclass(frozen=True)
class PatchSet:
    """A named, reusable list of patches."""

    name: str
    patches: tuple[Patch, ...]


@dataclasses.dataclass(frozen=True)
class ConnectionSecretRef:
    """``writeConnectionSecretToRef``: where a v2 XR's connection Secret goes."""

    name: str
    namespace: str
    patches: tuple[Patch, ...]


@dataclasses.dataclass(frozen=True)
class Resources:
    """The whole input."""

    patch_sets: tuple[PatchSet, ...] = ()
    environment_patches: tuple[Patch, ...] = ()
    resources: tuple[ComposedTemplate, ...] = ()
    write_connection_secret_to_ref: ConnectionSecretRef | None = None


def _patch(d: dict[str, Any]) -> Patch:
    combine = None
    if "combine" in d:
        c = d["combine"]
        combine = Combine(
            variables=tuple(v.get("fromFieldPath", "") for v in c.get("variables", ())),
            strategy=c.get("strategy", ""),
            string_fmt=c["string"].get("fmt", "") if "string" in c else None,
        )
    policy = d.get("policy")
    return Patch(
        type=d.get("type") or FROM_COMPOSITE,
        from_field_path=d.get("fromFieldPath", ""),
        to_field_path=d.get("toFieldPath"),
        combine=combine,
        transforms=tuple(d.get("transforms", ())),
        policy_from=policy.get("fromFieldPath") if policy is not None else None,
        policy_to=policy.get("toFieldPath") if policy is not None else None,
        has_policy=policy is not None,
        patch_set_name=d.get("patchSetName", ""),
        written_type=d.get("type", ""),
        has_from_field_path="fromFieldPath" in d,
    )


def _template(d: dict[str, Any]) -> ComposedTemplate:
    return ComposedTemplate(
        name=d.get("name", ""),
        base=d.get("base"),
        patches=tuple(_patch(p) for p in d.get("patches", ())),
        connection_details=tuple(
            ConnectionDetail(
                name=c.get("name", ""),
                type=c.get("type", ""),
                from_connection_secret_key=c.get("fromConnectionSecretKey"),
                from_field_path=c.get("fromFieldPath"),
                value=c.get("value"),
            )
            for c in d.get("connectionDetails", ())
        ),
        readiness_checks=tuple(
            ReadinessCheck(
                type=r.get("type", ""),
                field_path=r.get("fieldPath"),
                match_string=r.get("matchString"),
                match_integer=r.get("matchInteger"),
                match_condition=(
                    MatchCondition(r["matchCondition"].get("type", ""), r["matchCondition"].get("status", ""))
                    if "matchCondition" in r
                    else None
                ),
            )
            for r in d.get("readinessChecks", ())
        ),
    )


def decode(raw: dict[str, Any], r: release.Release = release.CURRENT) -> Resources:
    """Decode the input object as release ``r`` does; raises :class:`FunctionInputError` naming the field at fault."""
    d = _check(raw, _schema(r), "", r.rejects_unknown_fields)
    ref = None
    if "writeConnectionSecretToRef" in d:
        w = d["writeConnectionSecretToRef"]
        ref = ConnectionSecretRef(
            name=w.get("name", ""),
            namespace=w.get("namespace", ""),
            patches=tuple(_patch(p) for p in w.get("patches", ())),
        )
    return Resources(
        patch_sets=tuple(
            PatchSet(s.get("name", ""), tuple(_patch(p) for p in s.get("patches", ())))
            for s in d.get("patchSets", ())
        ),
        environment_patches=tuple(_patch(p) for p in d.get("environment", {}).get("patches", ())),
        resources=tuple(_template(t) for t in d.get("resources", ())),
        write_connection_secret_to_ref=ref,
    )
