"""Selecting required resources by label and ordering them, as function-environment-configs and function-extra-resources do.

Both functions carry the same Go code (one was copied from the other): the
requirement each source asks for (:func:`selector`, :func:`request`), label
matchers whose values come from the input or from the observed XR, and a sort
of the fetched resources by a field path before ``maxMatch`` cuts the list.
The texts below are theirs, byte for byte.

Resources are read in Go's value model (:func:`crossfn.sdk.resource.struct_to_dict`
with ``integers=False``: every number is a ``float64``), so the sort sees the
types Go sees: ``float64``, ``string``, ``bool``, ``map[string]interface {}``
and ``[]interface {}``.

Where Go dereferences a nil pointer (a ``Value`` matcher without ``value``, a
``FromCompositeFieldPath`` matcher without ``valueFromFieldPath``) the function
crashes; :func:`match_labels` raises :class:`Panic` for the caller to turn into a
Fatal result, unless the release checks (``checks_nil``), in which case it
raises the release's own error.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from crossfn import errors
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import fieldpath, resource

__all__ = [
    "INDEX_OUT_OF_RANGE",
    "NIL_POINTER",
    "Panic",
    "fetched",
    "match_labels",
    "request",
    "selector",
    "sort_by_field_path",
]

_R = TypeVar("_R", bound=Mapping[str, Any])

NIL_POINTER = "runtime error: invalid memory address or nil pointer dereference"
"""What a Go program prints after ``panic:`` when it dereferences a nil pointer."""

INDEX_OUT_OF_RANGE = "runtime error: index out of range [0] with length 0"
"""What a Go program prints after ``panic:`` when it reads the first item of an empty slice."""


class Panic(Exception):  # noqa: N818 -- named after what Go does (crash), not an error of ours or the user's
    """Go would crash here; the message is what follows ``panic:`` in Go's output."""


def match_labels(
    matchers: Sequence[Mapping[str, Any] | None], xr: Mapping[str, Any], *, checks_nil: bool
) -> dict[str, str]:
    """The labels a selector's ``matchLabels`` ask for; a matcher of an unknown ``type`` adds nothing.

    ``type`` defaults to ``FromCompositeFieldPath``. A field path that does not
    resolve to a string fails (``cannot get value from field path "<p>": <err>``)
    unless ``fromFieldPathPolicy`` is ``Optional``, when the label is left out.
    """
    labels: dict[str, str] = {}
    for found in matchers:
        m = found or {}  # a null matcher is Go's zero matcher
        kind = m.get("type") or "FromCompositeFieldPath"
        key = m.get("key", "")
        if kind == "Value":
            value = m.get("value")
            if value is None:
                if checks_nil:
                    raise errors.CrossfnError("Value cannot be nil for type 'Value'")
                raise Panic(NIL_POINTER)
            labels[key] = value
        elif kind == "FromCompositeFieldPath":
            path = m.get("valueFromFieldPath")
            if path is None:
                if checks_nil:
                    raise errors.CrossfnError(
                        "ValueFromFieldPath cannot be nil for type 'FromCompositeFieldPath'"
                    )
                raise Panic(NIL_POINTER)
            try:
                labels[key] = fieldpath.get_string(xr, path)
            except errors.FieldPathError as exc:
                if m.get("fromFieldPathPolicy") != "Optional":
                    raise errors.CrossfnError(
                        f"cannot get value from field path {errors.quote(path)}: {exc}"
                    ) from exc
    return labels


def selector(
    source: Mapping[str, Any],
    xr: Mapping[str, Any],
    *,
    api_version: str,
    kind: str,
    checks_nil: bool,
    namespace: str | None = None,
) -> fnv1.ResourceSelector | None:
    """What one source asks for, as buildRequirements builds it: ``Reference`` (the default ``type``) by
    ``ref.name``, ``Selector`` by its labels (:func:`match_labels`).

    None when the selector's labels come to nothing or the ``type`` is another; a missing ``ref`` or
    ``selector`` is Go's nil pointer (:class:`Panic`).
    """
    kind_of = source.get("type", "")
    found = fnv1.ResourceSelector(api_version=api_version, kind=kind)
    if namespace is not None:
        found.namespace = namespace
    if kind_of in ("", "Reference"):
        ref = source.get("ref")
        if ref is None:
            raise Panic(NIL_POINTER)
        found.match_name = ref.get("name", "")
        return found
    if kind_of != "Selector":
        return None
    sel = source.get("selector")
    if sel is None:
        raise Panic(NIL_POINTER)
    labels = match_labels(sel.get("matchLabels") or [], xr, checks_nil=checks_nil)
    if not labels:
        return None
    found.match_labels.labels.update(labels)
    return found


def request(
    rsp: fnv1.RunFunctionResponse, selectors: Mapping[str, fnv1.ResourceSelector], *, required: bool
) -> None:
    """Ask for ``selectors`` by name: as ``requirements.resources`` (``required``) or, in the releases
    before, ``requirements.extraResources``; the requirements are set even when there are none."""
    rsp.requirements.SetInParent()
    into = rsp.requirements.resources if required else rsp.requirements.extra_resources
    for name, found in selectors.items():
        into[name].CopyFrom(found)


def fetched(req: fnv1.RunFunctionRequest, *, required: bool) -> dict[str, list[dict[str, Any]]]:
    """What Crossplane fetched for each requirement (``required_resources``, or before, ``extra_resources``),
    in Go's value model; empty before the first fetch."""
    found = req.required_resources if required else req.extra_resources
    return {
        name: [resource.struct_to_dict(item.resource, integers=False) for item in items.items]
        for name, items in found.items()
    }


def _go_type(v: Any, kinds: bool) -> str:
    """``%q`` of the value's ``reflect.Type`` (or, with ``kinds``, its ``reflect.Kind``), without the quotes."""
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, str):
        return "string"
    if isinstance(v, int | float):
        return "float64"
    if isinstance(v, list):
        return "slice" if kinds else "[]interface {}"
    return "map" if kinds else "map[string]interface {}"


def sort_by_field_path(items: Sequence[_R], path: str, *, kinds: bool) -> list[_R]:
    """``items`` ordered by the value at ``path`` (a missing or null value sorts as the type's zero value).

    All values present must share one type, a ``float64`` or a ``string``, else
    ``cannot sort values of different types "<a>" and "<b>"`` or ``unsupported
    type "<t>" for sorting`` (the latter only once two items are compared).
    ``kinds`` names a type by its ``reflect.Kind`` there (``map`` for
    ``map[string]interface {}``), as function-environment-configs does from v0.7.0.
    The order of items with equal values is kept: Go's ``sort.Slice`` keeps it
    for up to 12 items and may not beyond (docs/compatibility.md).
    """
    if not path:
        raise errors.CrossfnError("cannot sort by empty field path")
    keys: list[Any] = []
    first: str | None = None
    for item in items:
        try:
            v = fieldpath.get_value(item, path)
        except errors.FieldNotFoundError:
            v = None
        keys.append(v)
        if v is None:
            continue
        t = _go_type(v, kinds=False)
        if first is None:
            first = t
        elif t != first:
            raise errors.CrossfnError(
                f"cannot sort values of different types {errors.quote(first)} and {errors.quote(t)}"
            )
    if first is None:
        return list(items)
    if first not in ("float64", "string"):
        if len(items) < 2:
            return list(items)
        shown = _go_type(next(k for k in keys if k is not None), kinds)
        raise errors.CrossfnError(f"unsupported type {errors.quote(shown)} for sorting")
    zero: Any = "" if first == "string" else 0.0
    order = sorted(range(len(items)), key=lambda i: zero if keys[i] is None else keys[i])
    return [items[i] for i in order]
