"""The function response cache: skip a call whose exact request was answered recently (upstream core-2.19).

Keyed by function name and the request's ``meta.tag`` (a hash of everything
but ``meta``, upstream core-2.4), valid until ``now + ttl`` from the response's
``meta.ttl``, clamped to ``max_ttl``. A request without a tag (classic render
sends none) is never cached, nor is a response with TTL zero.

It sits *outside* the requirements loop in the stack, so it stores final
responses; a response that still has requirements the function never got
(a fatal result cut the loop short) is not cached. The cache is a side
concern: a store failure is logged and counted, and the call goes on.
"""

from __future__ import annotations

import datetime
import logging
import time
from collections.abc import Callable

from crossfn.engine import _cache_store, _clock, _metrics, _runner
from crossfn.proto import wire
from crossfn.proto.v1 import run_function_pb2 as fnv1

__all__ = ["DEFAULT_MAX_TTL", "CachingRunner"]

_log = logging.getLogger("crossfn.engine.caching")

DEFAULT_MAX_TTL = datetime.timedelta(hours=24)
"""Crossplane's ``--xfn-cache-max-ttl`` default: no response is trusted for more than a day."""


class CachingRunner:
    """Wraps a runner with a TTL cache of its responses."""

    def __init__(
        self,
        wrapped: _runner.FunctionRunner,
        *,
        store: _cache_store.ResponseStore | None = None,
        max_ttl: datetime.timedelta = DEFAULT_MAX_TTL,
        clock: Callable[[], datetime.datetime] = _clock.utcnow,
        metrics: _metrics.Metrics | None = None,
    ) -> None:
        """``max_ttl`` zero means no clamp. The default store is an in-memory LRU."""
        self._wrapped = wrapped
        self._store = store if store is not None else _cache_store.MemoryStore()
        self._max_ttl = max_ttl
        self._clock = clock
        self._metrics = _metrics.guarded(metrics)

    async def run_function(self, name: str, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
        tag = req.meta.tag
        if not tag:
            return await self._wrapped.run_function(name, req)
        cached = self._lookup(name, tag)
        if cached is not None:
            return cached
        rsp = await self._wrapped.run_function(name, req)
        self._write(name, tag, req, rsp)
        return rsp

    def collect_garbage(self) -> int:
        """Delete expired entries if the store can (the disk store); returns how many went.

        Counted as ``…_deletes_total`` and ``…_bytes_deleted_total`` per function.
        A failure is logged and counted, never raised: the cache is a side concern.
        """
        collect = getattr(self._store, "collect_garbage", None)
        if collect is None:
            return 0
        try:
            deleted: dict[str, tuple[int, int]] = collect(self._clock())
        except Exception:
            _log.exception("cannot garbage collect the function response cache")
            self._metrics.cache("errors", "")
            return 0
        for function, (entries, freed) in deleted.items():
            self._metrics.cache("deletes", function, entries)
            self._metrics.cache("bytes_deleted", function, freed)
        return sum(entries for entries, _ in deleted.values())

    def _lookup(self, name: str, tag: str) -> fnv1.RunFunctionResponse | None:
        start = time.perf_counter()
        try:
            entry = self._store.get(name, tag)
            rsp = wire.parse(fnv1.RunFunctionResponse, entry.response) if entry is not None else None
        except Exception:
            _log.exception("cannot read cached response of function %r", name)
            self._metrics.cache("errors", name)
            self._metrics.cache("misses", name)
            return None
        finally:
            self._metrics.cache_seconds("read", name, time.perf_counter() - start)
        if entry is None or rsp is None or entry.deadline is None or self._clock() > entry.deadline:
            self._metrics.cache("misses", name)
            return None
        self._metrics.cache("hits", name)
        return rsp

    def _write(
        self, name: str, tag: str, req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse
    ) -> None:
        ttl = rsp.meta.ttl.ToTimedelta() if rsp.meta.HasField("ttl") else datetime.timedelta(0)
        if ttl <= datetime.timedelta(0) or _unresolved(req, rsp):
            return
        if self._max_ttl > datetime.timedelta(0):
            ttl = min(ttl, self._max_ttl)
        start = time.perf_counter()
        try:
            written = self._store.put(
                name, tag, _cache_store.Entry(deadline=self._clock() + ttl, response=rsp.SerializeToString())
            )
        except Exception:
            _log.exception("cannot cache response of function %r", name)
            self._metrics.cache("errors", name)
            return
        finally:
            self._metrics.cache_seconds("write", name, time.perf_counter() - start)
        self._metrics.cache("writes", name)
        self._metrics.cache("bytes_written", name, written)


def _unresolved(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> bool:
    """Whether a fatal response still requires something its request did not carry."""
    if not any(r.severity == fnv1.SEVERITY_FATAL for r in rsp.results):
        return False
    reqs = rsp.requirements
    return (
        any(k not in req.required_resources for k in reqs.resources)
        or any(k not in req.extra_resources for k in reqs.extra_resources)
        or any(k not in req.required_schemas for k in reqs.schemas)
    )
