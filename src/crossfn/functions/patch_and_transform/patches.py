"""Applying one patch: read a source, transform, write a target (upstream pt-5).

Two styles exist. Field-style patches (``From*FieldPath``/``To*FieldPath``)
read one path and may write through ``[*]`` wildcards; combine-style patches
(``Combine*``) read several paths and format them with Go's ``Sprintf``. Both
merge into the target with the patch's ``toFieldPath`` policy and then put the
whole target through a JSON round trip, as Go's unstructured converter does
(upstream pt-3.8), which is also where a target without ``kind`` fails.

Which object is the source and which the target is decided by the callers
(:mod:`.composed`, :mod:`.environment`, :mod:`.connection`); this module only
moves values. Errors keep fieldpath's not-found class so callers can apply the
``fromFieldPath`` policy (upstream pt-5.4); everything else is a plain ``CrossfnError``.
"""

from __future__ import annotations

from typing import Any

from crossfn import errors
from crossfn.functions.patch_and_transform import input as ptinput
from crossfn.functions.patch_and_transform import release, transforms
from crossfn.gocompat import fmt as gofmt
from crossfn.gocompat import json as gojson
from crossfn.sdk import fieldpath

__all__ = [
    "apply_combine",
    "apply_field",
    "is_not_found",
    "merge_options",
    "normalise_target",
    "normalised_copy",
    "resolve_patch_sets",
]

_OPTIONS: dict[str | None, fieldpath.MergeOptions | None] = {
    None: None,
    "Replace": None,
    "MergeObjects": fieldpath.MergeOptions(keep_map_values=True),
    "MergeObject": fieldpath.MergeOptions(keep_map_values=True),
    "MergeObjectsAppendArrays": fieldpath.MergeOptions(keep_map_values=True, append_slice=True),
    "ForceMergeObjects": fieldpath.MergeOptions(),
    "ForceMergeObjectsAppendArrays": fieldpath.MergeOptions(append_slice=True),
    "AppendArray": fieldpath.MergeOptions(append_slice=True),
}


def merge_options(p: ptinput.Patch) -> fieldpath.MergeOptions | None:
    """The fieldpath merge options for a patch's ``policy.toFieldPath``
    (upstream pt-2.6); ``None`` is Replace."""
    return _OPTIONS.get(p.policy_to)


def is_not_found(exc: BaseException) -> bool:
    """Whether a patch error means "the source is not there" (upstream pt-5.4's NotFound)."""
    return isinstance(exc, errors.FieldNotFoundError)


def _require_kind(obj: dict[str, Any]) -> None:
    """A target must keep a non-empty ``kind`` through every patch (upstream pt-3.8)."""
    kind = obj.get("kind")
    if not isinstance(kind, str) or not kind:
        raise errors.CrossfnError(f"Object 'Kind' is missing in '{gojson.marshal(obj)}'")


def normalise_target(target: dict[str, Any], normalised: dict[int, dict[str, Any]] | None = None) -> None:
    """Round-trip the whole target through JSON in place; it must keep a non-empty ``kind`` (upstream pt-3.8).

    ``normalised`` remembers (by ``id``, holding them) targets already round-tripped in this run:
    every later write stores round-tripped values only, so walking them again would
    change nothing and costs most of a patch's time.
    """
    _require_kind(target)
    if normalised is not None and id(target) in normalised:
        return
    normal = fieldpath.json_round_trip(target)
    target.clear()
    target.update(normal)
    if normalised is not None:
        normalised[id(target)] = target  # holding it keeps its id from being reused


def normalised_copy(source: dict[str, Any], normalised: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """``source`` round-tripped through JSON into a new object (``source`` is left as it is), remembered
    in ``normalised``; fails as :func:`normalise_target` does. The round trip builds every container anew,
    so it is the copy too (a template's base, patched per run)."""
    _require_kind(source)
    out: dict[str, Any] = fieldpath.json_round_trip(source)
    normalised[id(out)] = out  # holding it keeps its id from being reused
    return out


def apply_field(
    p: ptinput.Patch,
    source: Any,
    target: dict[str, Any],
    *,
    normalised: dict[int, dict[str, Any]] | None = None,
    r: release.Release = release.CURRENT,
) -> None:
    """Apply a field-style patch from ``source`` to ``target``
    (upstream pt-5.2) as release ``r`` does; see :func:`normalise_target`."""
    value = fieldpath.get_value(source, p.from_field_path, nil_is_missing=r.nil_is_missing)
    value = fieldpath.json_round_trip(transforms.resolve(p.transforms, value, r))
    options = merge_options(p)
    to = p.to
    if "[*]" in to:
        paths = fieldpath.expand_wildcards(target, to, nil_is_missing=r.nil_is_missing)
        if not paths:
            raise errors.CrossfnError(f"cannot expand ToFieldPath {to}")
        for path in paths:
            fieldpath.merge_value(target, path, value, options)
        normalise_target(target, normalised)
        return
    try:
        fieldpath.merge_value(target, to, value, options)
        normalise_target(target, normalised)
    except errors.CrossfnError as exc:
        raise errors.CrossfnError(f"cannot patch to object: {exc}") from exc


def apply_combine(
    p: ptinput.Patch,
    source: Any,
    target: dict[str, Any],
    *,
    normalised: dict[int, dict[str, Any]] | None = None,
    r: release.Release = release.CURRENT,
) -> None:
    """Apply a combine-style patch from ``source`` to ``target``
    (upstream pt-5.3) as release ``r`` does; the first missing variable aborts."""
    combine = p.combine
    if combine is None:
        raise errors.CrossfnError(f"combine must be set for patch type {p.type}")
    if not combine.variables and not r.patches_in_order:
        raise errors.CrossfnError("combine patch types require at least one variable")
    values = [fieldpath.get_value(source, v, nil_is_missing=r.nil_is_missing) for v in combine.variables]
    if combine.strategy != "string":
        raise errors.CrossfnError(f"combine strategy {combine.strategy} is not supported")
    if combine.string_fmt is None:
        raise errors.CrossfnError("given combine strategy string requires configuration")
    out = transforms.resolve(p.transforms, gofmt.sprintf(combine.string_fmt, *values), r)
    options = merge_options(p) if r.combine_honours_policy else None
    try:
        fieldpath.merge_value(target, p.to, out, options)
        normalise_target(target, normalised)
    except errors.CrossfnError as exc:
        raise errors.CrossfnError(f"cannot patch to object: {exc}") from exc


def resolve_patch_sets(res: ptinput.Resources) -> tuple[ptinput.ComposedTemplate, ...]:
    """Replace every ``PatchSet`` patch in place by the named set's patches (upstream pt-2.14).

    The patch indexes in later messages count in the expanded lists.
    """
    sets: dict[str, tuple[ptinput.Patch, ...]] = {}
    for ps in res.patch_sets:
        if any(p.type == "PatchSet" for p in ps.patches):
            raise errors.CrossfnError("a patch in a PatchSet cannot be of type PatchSet")
        sets[ps.name] = ps.patches
    out: list[ptinput.ComposedTemplate] = []
    for t in res.resources:
        patches: list[ptinput.Patch] = []
        for p in t.patches:
            if p.type != "PatchSet":
                patches.append(p)
                continue
            if p.patch_set_name not in sets:
                raise errors.CrossfnError(f"cannot find PatchSet by name {p.patch_set_name}")
            patches.extend(sets[p.patch_set_name])
        out.append(
            ptinput.ComposedTemplate(t.name, t.base, tuple(patches), t.connection_details, t.readiness_checks)
        )
    return tuple(out)
