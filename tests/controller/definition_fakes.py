"""Small fakes for the XRD and revision reconcilers' unit tests: events, informers, XR controllers."""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, cast

from crossfn import errors
from crossfn.controller.runtime import _informer

NOW = datetime.datetime(2026, 11, 24, 9, 0, 0, tzinfo=datetime.UTC)


def clock() -> datetime.datetime:
    return NOW


class Events:
    """A recorder that keeps ``(object name, type, reason, message)``."""

    def __init__(self) -> None:
        self.recorded: list[tuple[str, str, str, str]] = []

    async def event(self, obj: Mapping[str, Any], type: str, reason: str, message: str) -> None:
        self.recorded.append((str((obj.get("metadata") or {}).get("name")), type, reason, message))


class Informer:
    """Handlers and a fixed cache."""

    def __init__(self) -> None:
        self.handlers: list[Any] = []
        self.cache: list[dict[str, Any]] = []

    def add_handler(self, handler: Any) -> None:
        self.handlers.append(handler)

    def list(
        self, namespace: str | None = None, labels: Mapping[str, str] | None = None
    ) -> list[dict[str, Any]]:
        return list(self.cache)

    def emit(self, event_type: str, obj: dict[str, Any]) -> None:
        for handler in self.handlers:
            handler(event_type, obj, None)


class Informers:
    """One :class:`Informer` per kind."""

    def __init__(self) -> None:
        self.by_kind: dict[tuple[str, str], Informer] = {}

    def informer(self, api_version: str, kind: str) -> Informer:
        return self.by_kind.setdefault((api_version, kind), Informer())


def factory(informers: Informers) -> _informer.InformerFactory:
    """The fake typed as the factory the reconcilers take: they only call ``informer(...).add_handler``/``list``."""
    return cast(_informer.InformerFactory, informers)


class XrControllers:
    """Records starts and stops; ``fail_start`` makes start raise."""

    def __init__(self, fail_start: str = "") -> None:
        self.calls: list[tuple[str, str]] = []
        self.fail_start = fail_start

    async def start(self, xrd: dict[str, Any]) -> None:
        self.calls.append(("start", xrd["metadata"]["name"]))
        if self.fail_start:
            raise errors.CrossfnError(self.fail_start)

    async def stop(self, xrd_name: str) -> None:
        self.calls.append(("stop", xrd_name))
