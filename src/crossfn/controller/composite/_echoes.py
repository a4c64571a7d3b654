"""The XR reconciler's own writes coming back through its watches: one follow-up reconcile, not several.

Every write a reconcile makes (the XR's update, its ``resourceRefs``, each
composed resource's apply, the XR's status) comes back as a watch event a
moment later, and every such event reconciles the XR again, as Crossplane's
watches do. A reconcile that applies ten composed resources hears ten echoes
(and the XR's own) spread over the time the writes take: the first ones arrive
while it still runs (one more reconcile after it, with the key's de-duplication),
the last ones often after that next reconcile has begun (yet another), each
time with a cache that has seen only some of the writes, so it sends again
what it cannot yet see.

:class:`Echoes` keeps the same rule (what a reconcile wrote is reconciled once
more) in one reconcile per round: while a reconcile of an XR runs, the events
about the XR and what it depends on are noted instead of queued; each write's
resourceVersion is noted as it returns; the reconcile then waits, at most
:data:`ECHO_TIMEOUT`, until the informers have seen every write that changed
something, so the next reconcile starts from a cache that holds all of them.
It reconciles again if some event was not its own echo (someone else changed
something meanwhile) or if a write needs the XR reconciled once more to see it.

Which writes do not need that: a write that changed nothing (the API server
returned the resourceVersion it had: there is no echo), and a status write
that changed nothing but the XR's system conditions (``Ready``, ``Synced``,
``Responsive``, ...): the reconciler's verdict on the composition it has just
made, which functions may not set, not something the functions asked for
(``docs/compatibility.md``). An event arriving after the reconcile is matched
too: an echo of its writes is dropped, anything else queues the XR at once.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Mapping
from typing import Any

from crossfn.controller.runtime import _informer

__all__ = ["ECHO_TIMEOUT", "SYSTEM_CONDITIONS", "Echoes", "only_system_conditions"]

ECHO_TIMEOUT = 10.0
"""Longest a reconcile waits for the watches to bring back its writes (milliseconds, usually)."""

SYSTEM_CONDITIONS = frozenset({"Ready", "Synced", "Healthy", "UpToDate", "Responsive"})
"""The conditions the reconciler owns and functions may not set (Crossplane's ``IsSystemConditionType``)."""

_Ident = tuple[str, str, str, str]
"""apiVersion, kind, namespace, name."""


def _ident(obj: Mapping[str, Any]) -> _Ident:
    meta = obj.get("metadata") or {}
    return (
        str(obj.get("apiVersion") or ""),
        str(obj.get("kind") or ""),
        str(meta.get("namespace") or ""),
        str(meta.get("name") or ""),
    )


def _version(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("resourceVersion") or "")


def only_system_conditions(before: Mapping[str, Any], after: Mapping[str, Any]) -> bool:
    """Whether two statuses differ at most in their system conditions (:data:`SYSTEM_CONDITIONS`)."""

    def rest(status: Mapping[str, Any]) -> tuple[dict[str, Any], list[Any]]:
        conditions = status.get("conditions")
        if not isinstance(conditions, list):
            return dict(status), []
        others = [
            c for c in conditions if not (isinstance(c, Mapping) and c.get("type") in SYSTEM_CONDITIONS)
        ]
        return {k: v for k, v in status.items() if k != "conditions"}, others

    return rest(before) == rest(after)


@dataclasses.dataclass
class _Round:
    """What one reconcile of one XR wrote and heard."""

    active: bool = True
    ours: dict[_Ident, set[str]] = dataclasses.field(default_factory=dict)
    """Every resourceVersion the round's writes returned, per object."""
    expected: dict[_Ident, str] = dataclasses.field(default_factory=dict)
    """Writes whose echo the informers have not brought yet: the newest version per object."""
    heard: list[tuple[_Ident, str]] = dataclasses.field(default_factory=list)
    again: bool = False
    """A write of the round needs the XR reconciled once more to see it."""
    arrived: asyncio.Event = dataclasses.field(default_factory=asyncio.Event)

    def hear(self, ident: _Ident, version: str) -> None:
        self.heard.append((ident, version))
        if self.expected.get(ident) == version:
            del self.expected[ident]
            if not self.expected:
                self.arrived.set()

    def foreign(self) -> bool:
        return any(version not in self.ours.get(ident, ()) for ident, version in self.heard)


class Echoes:
    """Per XR key: the round of its reconcile in flight, or the writes of the last one still on their way."""

    def __init__(self, informers: _informer.Informers | None, *, timeout: float = ECHO_TIMEOUT) -> None:
        self._informers = informers
        self._timeout = timeout
        self._rounds: dict[str, _Round] = {}

    def begin(self, key: str) -> None:
        """A reconcile of ``key`` starts: from now its events are noted, not queued."""
        self._rounds[key] = _Round()

    def wrote(self, key: str, written: Mapping[str, Any], *, again: bool = True) -> None:
        """The round of ``key`` wrote an object and the API server answered ``written``.

        ``again``: whether the XR needs reconciling once more to see this write (module
        docstring). A write that returned the version the object already had changed nothing.
        """
        round_ = self._rounds.get(key)
        version = _version(written)
        if round_ is None or not round_.active or not version:
            return
        ident = _ident(written)
        cache = _informer.watched(self._informers, ident[0], ident[1])
        current = cache.get(ident[3], ident[2]) if cache is not None else None
        round_.ours.setdefault(ident, set()).add(version)
        if (ident, version) in round_.heard or (current is not None and _version(current) == version):
            # Heard already, or a write that changed nothing: it is in the cache either way.
            round_.again = round_.again or (again and (ident, version) in round_.heard)
            return
        round_.again = round_.again or again
        if cache is not None:
            round_.expected[ident] = version
            round_.arrived.clear()

    def heard(self, key: str, obj: Mapping[str, Any]) -> bool:
        """An event about ``obj`` concerns the XR ``key``; ``True`` when it must not queue ``key`` now.

        During a reconcile every event is noted and decided when it ends; after it, an echo of
        its writes is dropped (the follow-up, if one was needed, is already queued).
        """
        round_ = self._rounds.get(key)
        if round_ is None:
            return False
        ident, version = _ident(obj), _version(obj)
        if round_.active:
            round_.hear(ident, version)
            return True
        if version not in round_.ours.get(ident, ()):
            return False
        if round_.expected.get(ident) == version:
            del round_.expected[ident]
            if not round_.expected:
                del self._rounds[key]
        return True

    async def settle(self, key: str) -> bool:
        """End the round of ``key``: wait for its writes' echoes; whether to reconcile ``key`` again."""
        round_ = self._rounds.get(key)
        if round_ is None:
            return False
        try:
            if round_.expected:
                try:
                    async with asyncio.timeout(self._timeout):
                        await round_.arrived.wait()
                except TimeoutError:
                    return True  # the cache may not show every write yet: look again
            return round_.again or round_.foreign()
        finally:
            round_.active = False
            round_.heard = []
            if not round_.expected:
                self._rounds.pop(key, None)

    def forget(self, key: str) -> None:
        """The XR ``key`` is gone: nothing of it is remembered."""
        self._rounds.pop(key, None)

    def __len__(self) -> int:
        """XR keys with a round in flight or writes still on their way."""
        return len(self._rounds)
