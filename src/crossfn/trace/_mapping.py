"""``TYPE[.VERSION][.GROUP]`` to a kind, as ``kubectl`` and ``crossplane trace`` resolve it through discovery.

The argument is read as client-go's REST mapper reads it (crossplane/cli
``cmd/crossplane/internal/client.go``, after cli-runtime's builder):

1. with two dots or more, first as ``resource.version.group``
   (``xbuckets.v1.example.org``);
2. then as ``resource.group`` with any version (``xbuckets.example.org``;
   without a dot, any group);
3. then as ``Kind.version.group`` / ``Kind.group`` with the kind spelt exactly.

A resource matches by its plural, its singular (the lower-case kind when the
API has none) or one of its short names, compared in lower case; a short name
also matches a group given as a prefix of the real one (``xb.example``), as
client-go's shortcut expander allows. Where several groups or versions match,
discovery's order decides: the core group, then groups as ``/apis`` lists them,
each group's preferred version first.

Nothing matches: ``the server doesn't have a resource type "<resource>"``,
client-go's words.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable
from typing import Any

from crossfn import errors
from crossfn.gocompat import strconv

__all__ = ["Mapping", "resolve"]


@dataclasses.dataclass(frozen=True)
class Mapping:
    """What an argument resolved to."""

    api_version: str
    kind: str
    namespaced: bool

    @property
    def group(self) -> str:
        return self.api_version.rpartition("/")[0]


@dataclasses.dataclass(frozen=True)
class _Resource:
    group: str
    version: str
    plural: str
    singular: str
    kind: str
    short_names: tuple[str, ...]
    namespaced: bool

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version


GetJson = Callable[[str], Awaitable[Any]]
"""Reads a discovery path (``api``, ``apis``, ``apis/<group>/<version>``) as JSON."""


async def resolve(get: GetJson, arg: str) -> Mapping:
    """The kind ``arg`` names on the API server ``get`` reads discovery from."""
    found = _match(await _discover(get), arg)
    if found is None:
        resource = arg.partition(".")[0]
        raise errors.InputError(f"the server doesn't have a resource type {strconv.quote(resource)}")
    return Mapping(found.api_version, found.kind, found.namespaced)


def _match(resources: list[_Resource], arg: str) -> _Resource | None:
    parts = arg.split(".")
    if len(parts) >= 3:  # resource.version.group
        found = _first(resources, parts[0].lower(), parts[1], ".".join(parts[2:]), by_kind=False)
        if found is not None:
            return found
    resource, _, group = arg.partition(".")
    found = _first(resources, resource.lower(), "", group, by_kind=False)
    if found is not None:
        return found
    if len(parts) >= 3:  # Kind.version.group
        found = _first(resources, parts[0], parts[1], ".".join(parts[2:]), by_kind=True)
        if found is not None:
            return found
    return _first(resources, resource, "", group, by_kind=True)


def _first(
    resources: list[_Resource], name: str, version: str, group: str, *, by_kind: bool
) -> _Resource | None:
    for r in resources:
        if version and r.version != version:
            continue
        if by_kind:
            if name in (r.kind, r.kind.lower()) and (not group or r.group == group):
                return r
            continue
        if (not group or r.group == group) and name in (r.plural, r.singular, *r.short_names):
            return r
    if by_kind or not group:
        return None
    for r in resources:  # a short name with a group prefix (shortcut expander)
        if (not version or r.version == version) and r.group.startswith(group) and name in r.short_names:
            return r
    return None


async def _discover(get: GetJson) -> list[_Resource]:
    """Every resource of every served group-version, in discovery's priority order."""
    core = await get("api")
    group_list = await get("apis")
    versions: list[tuple[str, str]] = [("", v) for v in (core or {}).get("versions") or []]
    for g in (group_list or {}).get("groups") or []:
        name = str(g.get("name") or "")
        preferred = str((g.get("preferredVersion") or {}).get("version") or "")
        listed = [str(v.get("version") or "") for v in g.get("versions") or []]
        ordered = ([preferred] if preferred in listed else []) + [v for v in listed if v != preferred]
        versions += [(name, v) for v in ordered]
    documents = await asyncio.gather(*(_tolerant(get, _path(g, v)) for g, v in versions))
    found: list[_Resource] = []
    for (group, version), doc in zip(versions, documents, strict=True):
        for r in (doc or {}).get("resources") or []:
            plural = str(r.get("name") or "")
            if "/" in plural:  # a subresource
                continue
            kind = str(r.get("kind") or "")
            found.append(
                _Resource(
                    group,
                    version,
                    plural,
                    str(r.get("singularName") or kind.lower()),
                    kind,
                    tuple(str(s) for s in r.get("shortNames") or ()),
                    bool(r.get("namespaced")),
                )
            )
    return found


async def _tolerant(get: GetJson, path: str) -> Any:
    """A group-version's resources, or none when it cannot be read (an aggregated API that is down):
    client-go's discovery also maps what it can."""
    try:
        return await get(path)
    except errors.CrossfnError:
        return None


def _path(group: str, version: str) -> str:
    return f"apis/{group}/{version}" if group else f"api/{version}"
