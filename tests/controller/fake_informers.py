"""In-memory informers for unit tests: a cache per kind, handlers called on demand."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from crossfn.controller.runtime import _informer


class FakeCache:
    def __init__(self, objects: list[dict[str, Any]] | None = None, *, synced: bool = True) -> None:
        self.objects = list(objects or [])
        self._synced = synced
        self.handlers: list[_informer.Handler] = []

    @property
    def synced(self) -> bool:
        return self._synced

    async def wait_synced(self) -> None:
        self._synced = True

    async def synced_within(self, seconds: float) -> bool:
        return self._synced

    def get(self, name: str, namespace: str = "") -> dict[str, Any] | None:
        for o in self.objects:
            meta = o.get("metadata") or {}
            if meta.get("name") == name and (meta.get("namespace") or "") == namespace:
                return o
        return None

    def list(
        self, namespace: str | None = None, labels: Mapping[str, str] | None = None
    ) -> list[dict[str, Any]]:
        out = []
        for o in self.objects:
            meta = o.get("metadata") or {}
            if namespace is not None and (meta.get("namespace") or "") != namespace:
                continue
            if labels and any((meta.get("labels") or {}).get(k) != v for k, v in labels.items()):
                continue
            out.append(o)
        return out

    def add_handler(self, fn: _informer.Handler) -> None:
        self.handlers.append(fn)

    def remove_handler(self, fn: _informer.Handler) -> None:
        if fn in self.handlers:
            self.handlers.remove(fn)

    def fire(self, event_type: str, obj: dict[str, Any], old: dict[str, Any] | None = None) -> None:
        for h in list(self.handlers):
            h(event_type, obj, old)


class FakeInformers:
    """A cache per kind; ``holders`` records who holds each kind with ``acquire``."""

    def __init__(self) -> None:
        self.caches: dict[tuple[str, str], FakeCache] = {}
        self.holders: dict[tuple[str, str], set[str]] = {}

    def informer(self, api_version: str, kind: str) -> FakeCache:
        return self.caches.setdefault((api_version, kind), FakeCache())

    def kinds(self) -> list[tuple[str, str]]:
        return sorted(self.caches)

    def running(self, api_version: str, kind: str) -> FakeCache | None:
        return self.caches.get((api_version, kind))

    def acquire(self, api_version: str, kind: str, holder: str) -> FakeCache:
        self.holders.setdefault((api_version, kind), set()).add(holder)
        return self.informer(api_version, kind)

    def release(self, api_version: str, kind: str, holder: str) -> None:
        held = self.holders.get((api_version, kind), set())
        held.discard(holder)
        if not held:
            self.holders.pop((api_version, kind), None)
