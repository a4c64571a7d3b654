"""Validation of the decoded input, with Go's messages and order (upstream pt-2.13).

Validation stops at the first error. Each validator returns a
:class:`~.gofield.Error` relative to what it checks, or ``None``; the
caller prefixes the path. Invalid values of Go's *named* string types (patch
types, policies, strategies, detail and check types) print JSON-encoded, which
:class:`~crossfn.gocompat.field.Named` marks. Transform validation belongs to :mod:`.transforms`.

The connection-detail and readiness-check validators are also run again at
extraction and check time, as Go does, by :mod:`.connection` and :mod:`.readiness`.

Each validator takes the :class:`~.release.Release` it behaves as: the patch
types, policies and checks each release knew (``docs/functions.md``).
"""

from __future__ import annotations

from crossfn.functions.patch_and_transform import input as ptinput
from crossfn.functions.patch_and_transform import release, transforms
from crossfn.gocompat import field as gofield

__all__ = [
    "COMBINE_TYPES",
    "FIELD_PATH_TYPES",
    "validate",
    "validate_connection_detail",
    "validate_patch",
    "validate_readiness_check",
]

FIELD_PATH_TYPES = frozenset(
    {"FromCompositeFieldPath", "ToCompositeFieldPath", "FromEnvironmentFieldPath", "ToEnvironmentFieldPath"}
)
COMBINE_TYPES = frozenset(
    {"CombineFromComposite", "CombineToComposite", "CombineFromEnvironment", "CombineToEnvironment"}
)
TO_POLICIES = frozenset(
    {
        "Replace",
        "MergeObjects",
        "MergeObjectsAppendArrays",
        "ForceMergeObjects",
        "ForceMergeObjectsAppendArrays",
        "MergeObject",
        "AppendArray",
    }
)
_FIRST_TO_POLICIES = frozenset({"Replace", "MergeObject", "AppendArray"})
"""The policies of v0.4.0, before the Merge*/ForceMerge* ones."""
FROM_POLICIES = frozenset({"Optional", "Required"})
CONNECTION_DETAIL_TYPES = frozenset({"FromConnectionSecretKey", "FromFieldPath", "FromValue"})
READINESS_TYPES = frozenset(
    {"MatchString", "MatchInteger", "NonEmpty", "MatchCondition", "MatchTrue", "MatchFalse", "None"}
)

_required = gofield.required
_invalid = gofield.invalid
_named = gofield.Named


def validate(res: ptinput.Resources, r: release.Release = release.CURRENT) -> gofield.Error | None:
    """Validate the whole input in Go's order; return the first error."""
    for ps in res.patch_sets:
        if not ps.name:
            return _required("name", "name is required")
        for j, p in enumerate(ps.patches):
            if err := validate_patch(p, r, in_patch_set=True):
                return err.under(f"patches[{j}]")
    if not res.resources and not (r.environment_patches_suffice and res.environment_patches):
        if r.environment_patches_suffice:
            return _required("resources", "resources or environment patches are required")
        return _required("resources", "resources is required")
    for i, t in enumerate(res.resources):
        if err := _validate_template(t, r):
            return err.under(f"resources[{i}]")
    for j, p in enumerate(res.environment_patches):
        if p.type not in r.environment_patch_types:
            shown = p.type if r.patches_in_order else p.written_type
            return _invalid(
                f"environment.patches[{j}][type]", _named(shown), "invalid environment patch type"
            )
        if err := validate_patch(p, r):
            return err.under(f"environment.patches[{j}]")
    return None


def _validate_template(t: ptinput.ComposedTemplate, r: release.Release) -> gofield.Error | None:
    if not t.name:
        return _required("name", "name is required")
    for j, p in enumerate(t.patches):
        if err := validate_patch(p, r):
            return err.under(f"patches[{j}]")
    for j, c in enumerate(t.connection_details):
        if err := validate_connection_detail(c, r):
            return err.under(f"connectionDetails[{j}]")
    for j, check in enumerate(t.readiness_checks):
        if err := validate_readiness_check(check):
            return err.under(f"readinessChecks[{j}]")
    return None


def validate_patch(
    p: ptinput.Patch, r: release.Release = release.CURRENT, *, in_patch_set: bool = False
) -> gofield.Error | None:
    """Validate one patch. From v0.3.0 Combine* patches return after the combine checks (Go's quirk,
    upstream pt-9 item 2); up to v0.2.x the combine is checked only when it is applied."""
    if not r.patches_in_order:
        return _validate_patch_grouped(p, r)
    t = p.type
    if t in FIELD_PATH_TYPES:
        if not p.from_field_path:
            return _required("fromFieldPath", f"fromFieldPath must be set for patch type {t}")
    elif t == "PatchSet":
        if in_patch_set:
            return _invalid(
                "type", _named(t), "patch type *v1beta1.PatchSetPatch does not support patch of type PatchSet"
            )
        if not p.patch_set_name:
            return _required("patchSetName", "patchSetName must be set for patch type PatchSet")
    elif t in COMBINE_TYPES:
        if p.combine is None:
            return _required("combine", f"combine must be set for patch type {t}")
        if not p.to:
            return _required("toFieldPath", f"toFieldPath must be set for patch type {t}")
        err = _validate_combine(p.combine)
        return err.under("combine") if err else None
    else:
        return _invalid("type", _named(t), "unknown patch type")
    for k, tr in enumerate(p.transforms):
        if err := transforms.validate(tr, r):
            return err.under(f"transforms[{k}]")
    if p.has_policy and r.validates_policies:
        policies = TO_POLICIES if r.has_merge_policies else _FIRST_TO_POLICIES
        if p.policy_to is not None and p.policy_to not in policies:
            return _invalid("policy.toFieldPathPolicy", _named(p.policy_to), "unknown toFieldPathPolicy")
        if p.policy_from is not None and p.policy_from not in FROM_POLICIES:
            return _invalid(
                "policy.fromFieldPathPolicy", _named(p.policy_from), "unknown fromFieldPathPolicy"
            )
    return None


def _validate_patch_grouped(p: ptinput.Patch, r: release.Release) -> gofield.Error | None:
    """Up to v0.2.x: fields checked for presence, messages print the type as written."""
    t, shown = p.type, p.written_type
    field_types = (
        FIELD_PATH_TYPES if r.has_environment else {"FromCompositeFieldPath", "ToCompositeFieldPath"}
    )
    combine_types = COMBINE_TYPES if r.has_environment else {"CombineFromComposite", "CombineToComposite"}
    if t in field_types:
        if not p.has_from_field_path:
            return _required("fromFieldPath", f"fromFieldPath must be set for patch type {shown}")
    elif t == "PatchSet":
        if not p.patch_set_name:
            return _required("patchSetName", f"patchSetName must be set for patch type {shown}")
    elif t in combine_types:
        if p.combine is None:
            return _required("combine", f"combine must be set for patch type {shown}")
        if p.to_field_path is None:
            return _required("toFieldPath", f"toFieldPath must be set for patch type {shown}")
    else:
        return _invalid("type", _named(shown), "unknown patch type")
    for k, tr in enumerate(p.transforms):
        if err := transforms.validate(tr, r):
            return err.under(f"transforms[{k}]")
    return None


def _validate_combine(c: ptinput.Combine) -> gofield.Error | None:
    if not c.strategy:
        return _required("strategy", "a combine strategy must be provided")
    if c.strategy != "string":
        return _invalid("strategy", _named(c.strategy), "unknown strategy type")
    if c.string_fmt is None:
        return _required("string", "string must be set for combine strategy string")
    if not c.variables:
        return _required("variables", "at least one variable must be provided")
    for k, v in enumerate(c.variables):
        if not v:
            return _required(
                f"variables[{k}].fromFieldPath", "fromFieldPath must be set for each combine variable"
            )
    return None


def validate_connection_detail(
    c: ptinput.ConnectionDetail, r: release.Release = release.CURRENT
) -> gofield.Error | None:
    """Validate one connection detail (also re-run at extraction time)."""
    if not c.type:
        return _required("type", r.connection_detail_type_required)
    if c.type not in CONNECTION_DETAIL_TYPES:
        return _invalid("type", _named(c.type), "unknown connection detail type")
    if not c.name:
        return _required("name", "name is required")
    if c.type == "FromValue" and c.value is None:
        return _required("value", "value connection detail requires a value")
    if c.type == "FromConnectionSecretKey" and c.from_connection_secret_key is None:
        return _required(
            "fromConnectionSecretKey", "from connection secret key connection detail requires a key"
        )
    if c.type == "FromFieldPath" and c.from_field_path is None:
        return _required("fromFieldPath", "from field path connection detail requires a field path")
    return None


def validate_readiness_check(r: ptinput.ReadinessCheck) -> gofield.Error | None:
    """Validate one readiness check (also re-run before the check runs)."""
    if r.type not in READINESS_TYPES:
        return _invalid("type", _named(r.type), "unknown readiness check type")
    if r.type == "None":
        return None
    if r.type == "MatchString" and r.match_string is None:
        return _required("matchString", "cannot be nil for type MatchString")
    if r.type == "MatchInteger" and r.match_integer is None:
        return _required("matchInteger", "cannot be nil for type MatchInteger")
    if r.type == "MatchCondition":
        mc = r.match_condition
        if mc is not None and not mc.type:
            return _required("matchCondition.type", "cannot be empty for type MatchCondition")
        if mc is not None and not mc.status:
            return _required("matchCondition.status", "cannot be empty for type MatchCondition")
        return None
    if not r.field_path:
        return _required("fieldPath", "cannot be empty")
    return None
