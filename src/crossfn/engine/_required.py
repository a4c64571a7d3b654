"""Resolving a function's required resources and schemas through the sources (upstream core-2.7, core-2.8).

This is where selector semantics live, so every source stays a dumb get/list.
How a selector is resolved is the caller's contract, so it is an object the
caller injects (through :class:`~crossfn.engine.ComposeOptions` and
:func:`~crossfn.engine.build_runner`), as Crossplane injects its fetchers: a
:class:`RequirementsFetcher`. Two ship: :class:`ControllerFetcher` (the XR
controller's ``ExistingRequiredResourcesFetcher``) and
:class:`FilteringFetcher` (classic render's, over the documents it was given).

* ``match_name`` gets one object; not found is an *empty* ``Resources``, never
  an error, and the function still sees the key.
* ``match_labels`` lists with an equality selector; an empty label map, or no
  match at all, lists every object of the kind.
* items are sorted by ``"<namespace>/<name>"`` (controller) or by name with the
  selector's namespace ignored (classic render's FilteringFetcher, upstream core-3.5).
* required resources never carry connection details.
* a schema the source does not know is an empty ``Schema``; one of any depth
  (Kubernetes allows 10,000 levels) is a ``Schema`` too.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Protocol

from google.protobuf import message

from crossfn import errors
from crossfn.engine import _sources
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource

__all__ = ["ControllerFetcher", "FilteringFetcher", "RequirementsFetcher", "fetch_resources", "fetch_schema"]


class RequirementsFetcher(Protocol):
    """How a caller resolves the resource selectors of a function's requirements (bootstrap ones too)."""

    @property
    def first_call_shortcut(self) -> bool:
        """Whether the requirements loop stops after the first call when the request already held
        everything the function required (HEAD's ``i == 0`` early return)."""
        ...

    async def fetch(
        self, source: _sources.ResourceSource, selector: fnv1.ResourceSelector | None
    ) -> fnv1.Resources:
        """The resources ``selector`` picks from ``source``, as the function will receive them."""
        ...


@dataclasses.dataclass(frozen=True)
class ControllerFetcher:
    """The XR controller's fetcher: get by name, list by labels in the selector's namespace,
    items sorted by ``"<namespace>/<name>"``; a missing selector is an error.

    ``first_call_shortcut`` is HEAD's; Crossplane v2.3 and earlier lack it.
    """

    first_call_shortcut: bool = True

    async def fetch(
        self, source: _sources.ResourceSource, selector: fnv1.ResourceSelector | None
    ) -> fnv1.Resources:
        return await fetch_resources(source, selector)


@dataclasses.dataclass(frozen=True)
class FilteringFetcher:
    """Classic render's FilteringFetcher (upstream core-3.5): exact apiVersion/kind, the selector's namespace
    ignored, items sorted by name; a missing selector finds nothing. Classic render (v2.2.4)
    predates the first-call shortcut."""

    first_call_shortcut: bool = False

    async def fetch(
        self, source: _sources.ResourceSource, selector: fnv1.ResourceSelector | None
    ) -> fnv1.Resources:
        if selector is None:
            return fnv1.Resources()
        return _to_resources(await _classic(source, selector))


async def fetch_resources(
    source: _sources.ResourceSource, selector: fnv1.ResourceSelector | None
) -> fnv1.Resources:
    """The resources ``selector`` picks, as the XR controller resolves them (:class:`ControllerFetcher`)."""
    if selector is None:
        raise errors.InputError("you must specify a resource selector")
    namespace = selector.namespace if selector.HasField("namespace") else None
    match = selector.WhichOneof("match")
    if match == "match_name":
        if not selector.match_name:
            return fnv1.Resources()  # no object has an empty name: Crossplane's cached Get finds nothing
        try:
            obj = await source.get(selector.api_version, selector.kind, namespace or "", selector.match_name)
        except Exception as exc:
            raise errors.CrossfnError(f"cannot get required resource by name: {exc}") from exc
        return _to_resources([obj] if obj is not None else [])
    labels = dict(selector.match_labels.labels) if match == "match_labels" else None
    try:
        items = await source.list(selector.api_version, selector.kind, namespace, labels)
    except Exception as exc:
        raise errors.CrossfnError(f"cannot list required resources: {exc}") from exc
    items = sorted(items, key=lambda o: f"{_meta(o, 'namespace')}/{_meta(o, 'name')}")
    return _to_resources(items)


async def _classic(source: _sources.ResourceSource, selector: fnv1.ResourceSelector) -> list[dict[str, Any]]:
    """Classic render's FilteringFetcher: exact apiVersion/kind, namespace ignored, sorted by name."""
    match = selector.WhichOneof("match")
    labels = dict(selector.match_labels.labels) if match == "match_labels" else None
    try:
        items = await source.list(selector.api_version, selector.kind, None, labels)
    except Exception as exc:
        raise errors.CrossfnError(f"cannot list required resources: {exc}") from exc
    items = sorted(items, key=lambda o: _meta(o, "name"))
    if match == "match_name":
        return [o for o in items if _meta(o, "name") == selector.match_name][:1]
    return items


def _meta(obj: Mapping[str, Any], key: str) -> str:
    meta = obj.get("metadata")
    value = meta.get(key) if isinstance(meta, Mapping) else None
    return value if isinstance(value, str) else ""


def _to_resources(items: list[dict[str, Any]]) -> fnv1.Resources:
    out = fnv1.Resources()
    for obj in items:
        out.items.add().resource.CopyFrom(
            _struct(obj, f"required resource {errors.quote(_meta(obj, 'name'))}")
        )
    return out


def _struct(obj: Mapping[str, Any], what: str) -> Any:
    """``obj`` as a Struct; a source returning something JSON cannot hold is an input error."""
    try:
        return resource.dict_to_struct(obj)
    except (TypeError, ValueError, RecursionError, message.DecodeError) as exc:
        # RecursionError and DepthError: nested deeper than the protocol's 10,000 levels.
        raise errors.InputError(
            f"cannot encode {what} to protocol buffer Struct well-known type: {exc}"
        ) from exc


async def fetch_schema(source: _sources.SchemaSource, selector: fnv1.SchemaSelector | None) -> fnv1.Schema:
    """The schema ``selector`` names; unknown kinds give an empty ``Schema``."""
    if selector is None:
        raise errors.InputError("you must specify a schema selector")
    try:
        found = await source.schema(selector.api_version, selector.kind)
    except errors.CrossfnError:
        raise
    except Exception as exc:
        raise errors.CrossfnError(f"cannot get OpenAPI schema for {selector.api_version}: {exc}") from exc
    if found is None:
        return fnv1.Schema()
    schema = fnv1.Schema()
    # CopyFrom, not the constructor's keyword: that re-parses, with upb's limit of 100 levels.
    schema.openapi_v3.CopyFrom(_struct(found, f"schema of {selector.api_version} {selector.kind}"))
    return schema
