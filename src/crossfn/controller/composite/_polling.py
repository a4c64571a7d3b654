"""When an XR is reconciled again: the poll interval, the pipeline's TTL, backoff (upstream core-2.17,
upstream controllers-1.6).

Crossplane's XR controller requeues a settled XR after its poll interval
(``--poll-interval``, 1 m) with ±10 % jitter, unless realtime compositions
are on: then only a pipeline TTL (the minimum TTL functions returned)
requeues it, because watches on everything it depends on do the rest. An XR
may set its own interval with the ``crossplane.io/poll-interval`` annotation
(a Go duration, floored at ``--min-poll-interval``). Without realtime, an XR
whose composed resources are not all synced and ready is retried with
backoff instead of waiting a whole interval.
"""

from __future__ import annotations

import dataclasses
import logging
import random
from collections.abc import Mapping
from typing import Any

from crossfn import engine, errors
from crossfn.controller.composite import _circuit
from crossfn.gocompat import time as gotime

__all__ = ["ANNOTATION_POLL_INTERVAL", "CompositeSettings", "Requeue", "requeue_after"]

_log = logging.getLogger("crossfn.controller.composite")

ANNOTATION_POLL_INTERVAL = "crossplane.io/poll-interval"


@dataclasses.dataclass(frozen=True)
class CompositeSettings:
    """How an XR controller polls and watches (Crossplane's ``core start`` flags,
    upstream controllers-1.6)."""

    poll_interval: float = 60.0
    """``--poll-interval``: requeue a settled XR after this many seconds (±10 %), when not realtime."""

    min_poll_interval: float = 1.0
    """``--min-poll-interval``: the floor of an XR's ``crossplane.io/poll-interval`` annotation."""

    realtime: bool = True
    """``--enable-realtime-compositions``: watch what XRs depend on instead of polling."""

    watch_gc_interval: float = 60.0
    """Seconds between two collections of unneeded watches (Crossplane: every minute)."""

    circuit: _circuit.CircuitSettings = dataclasses.field(default_factory=_circuit.CircuitSettings)
    """The watch circuit breaker's burst, refill rate and cooldown (Crossplane's ``--circuit-breaker-*``)."""

    schema: engine.CompositeSchema | None = None
    """Legacy (v1) or modern (v2) XRs; ``None`` derives it from the XRD's scope."""

    adopt_existing: bool = False
    """``--adopt-existing-resources``: take over existing composed objects no one controls."""


@dataclasses.dataclass(frozen=True)
class Requeue:
    """When to reconcile again: after ``after`` seconds, or with backoff, or not at all (both unset)."""

    after: float | None = None
    backoff: bool = False


def _jitter(seconds: float, rng: random.Random) -> float:
    return seconds + (rng.random() - 0.5) * 2 * 0.1 * seconds


def requeue_after(
    settings: CompositeSettings, xr: Mapping[str, Any], *, ttl: float, waiting: bool, rng: random.Random
) -> Requeue:
    """upstream core-2.17's requeue rule for a reconcile that composed successfully.

    ``waiting`` is whether some composed resource is unsynced or unready.
    Realtime off and waiting: back off. Realtime on and a pipeline TTL: the
    TTL. Otherwise the XR's ``crossplane.io/poll-interval`` annotation (a Go
    duration, at least ``min_poll_interval``; unparsable, zero and negative ones
    are ignored, as crossplane-runtime's ``GetPollInterval`` ignores them), or
    the poll interval, which is zero (no requeue) when realtime is on. All ±10 %.
    """
    if not settings.realtime and waiting:
        return Requeue(backoff=True)
    if settings.realtime and ttl > 0:
        return Requeue(after=_jitter(ttl, rng))
    interval = 0.0 if settings.realtime else settings.poll_interval
    text = ((xr.get("metadata") or {}).get("annotations") or {}).get(ANNOTATION_POLL_INTERVAL)
    if text:
        try:
            asked = gotime.parse_duration(str(text))
        except errors.GoError as exc:
            _log.info("ignoring the %s annotation: %s", ANNOTATION_POLL_INTERVAL, exc)
        else:
            if asked > 0:
                interval = max(asked, settings.min_poll_interval)
    return Requeue(after=_jitter(interval, rng)) if interval > 0 else Requeue()
