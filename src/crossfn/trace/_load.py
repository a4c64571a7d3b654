"""Reading a trace's objects from the API server: the root (or every object of a kind), then its tree.

As upstream's loader, children are read concurrently (``--concurrency``, default
5 requests in flight) level by level, and each node's children are then sorted
(:func:`~crossfn.trace._resource.sort_children`), so the order never depends on
which answer came first. An object that cannot be read does not stop the trace:
it becomes a node carrying the error (``Error: <message>`` in the tree), as in
Crossplane. Only the root's failure is fatal.

The client is anything with :class:`Reader`'s methods: the controller's
``KubeApi`` in the command, a fake in unit tests.
"""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

from crossfn import errors
from crossfn.controller.kube import _api
from crossfn.gocompat import json as gojson
from crossfn.trace import _resource

__all__ = ["Reader", "failure", "load_tree", "read", "read_all"]

Object = dict[str, Any]

DEFAULT_CONCURRENCY = 5
"""Requests in flight while a tree loads (upstream's ``--concurrency`` default)."""


class Reader(Protocol):
    """What a trace reads through (a subset of ``crossfn.controller.kube._kube.KubeApi``)."""

    async def read(self, api_version: str, kind: str, name: str, namespace: str = "") -> Object:
        """The object; raise a ``CrossfnError`` (the controller's ``ApiError``) when it cannot be read."""
        ...

    async def list(
        self, api_version: str, kind: str, namespace: str | None = None
    ) -> tuple[list[Object], str]:
        """Every object of the kind (in one namespace, or all) and the list's resourceVersion."""
        ...


def failure(exc: errors.CrossfnError, ref: _resource.Ref) -> _resource.Failure:
    """An API error as the trace shows it: its message, and Go's JSON of the error value.

    client-go returns an API server's refusal as ``*StatusError``, whose JSON is
    ``{"ErrStatus": <the Status, fields in metav1.Status's order>}``; a kind that
    discovery does not know is a ``*NoKindMatchError`` (its group, kind and the
    version searched). Any other error (the server cannot be reached) is Go's
    ``*url.Error``, which crossfn's client does not have: ``{}``.
    """
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        return _resource.Failure(str(exc), gojson.Struct(ErrStatus=_status(body)))
    if isinstance(exc, _api.NoKindMatch):
        group, _, version = ref.api_version.rpartition("/")
        kind = gojson.Struct(Group=group, Kind=ref.kind)
        return _resource.Failure(str(exc), gojson.Struct(GroupKind=kind, SearchedVersions=[version]))
    return _resource.Failure(str(exc), gojson.Struct())


def _status(body: dict[str, Any]) -> gojson.Struct:
    """A ``Status`` as Go's ``metav1.Status`` marshals: declared field order, empty fields left out."""
    out = gojson.Struct()
    for key in ("kind", "apiVersion"):
        if body.get(key):
            out[key] = body[key]
    out["metadata"] = gojson.Struct(
        (k, v) for k, v in (body.get("metadata") or {}).items() if k in _LIST_META and v
    )
    for key in ("status", "message", "reason"):
        if body.get(key):
            out[key] = body[key]
    details = body.get("details")
    if isinstance(details, dict):
        out["details"] = gojson.Struct((k, details[k]) for k in _DETAILS if details.get(k))
    if body.get("code"):
        out["code"] = body["code"]
    return out


_LIST_META = ("selfLink", "resourceVersion", "continue", "remainingItemCount")
_DETAILS = ("name", "group", "kind", "uid", "causes", "retryAfterSeconds")


async def read(api: Reader, ref: _resource.Ref) -> _resource.Resource:
    """The object ``ref`` names, or a node carrying why it could not be read."""
    try:
        return _resource.Resource(await api.read(ref.api_version, ref.kind, ref.name, ref.namespace))
    except errors.CrossfnError as exc:
        return _resource.placeholder(ref, failure(exc, ref))


async def read_all(api: Reader, api_version: str, kind: str, namespace: str) -> list[_resource.Resource]:
    """Every object of a kind (in ``namespace``, or all of them when it is ``""``), as list nodes."""
    items, _ = await api.list(api_version, kind, namespace or None)
    return [_resource.Resource(item) for item in items]


async def load_tree(
    api: Reader,
    root: _resource.Resource,
    *,
    connection_secrets: bool = False,
    concurrency: int = DEFAULT_CONCURRENCY,
) -> _resource.Resource:
    """Read ``root``'s descendants into its ``children`` (sorted) and return it."""
    gate = asyncio.Semaphore(concurrency if concurrency >= 1 else DEFAULT_CONCURRENCY)

    async def child(ref: _resource.Ref) -> _resource.Resource:
        async with gate:
            return await read(api, ref)

    level: list[tuple[_resource.Resource, frozenset[_resource.Ref]]] = [(root, frozenset())]
    while level:
        nodes: list[tuple[_resource.Resource, frozenset[_resource.Ref], _resource.Ref]] = []
        for parent, ancestors in level:
            identity = _resource.Ref(parent.api_version, parent.kind, parent.name, parent.namespace)
            if identity in ancestors:
                continue  # a reference cycle: show the object again, not its tree again
            path = ancestors | {identity}
            refs = _resource.child_refs(parent, connection_secrets=connection_secrets)
            nodes += [(parent, path, ref) for ref in refs]
        children = await asyncio.gather(*(child(ref) for _, _, ref in nodes))
        for (parent, _, _), node in zip(nodes, children, strict=True):
            parent.children.append(node)
        level = [(node, path) for (_, path, _), node in zip(nodes, children, strict=True)]
    _resource.sort_children(root)
    return root
