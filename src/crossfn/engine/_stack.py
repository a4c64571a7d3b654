"""Assembling the runner stack in one place, in Crossplane's order (upstream core-2.5).

Outermost first::

    InspectedRunner    (optional) emits each request and response, redacted
    CachingRunner      (optional) stores final responses by function + tag
      FetchingRunner   the requirements loop: call, fetch, call again
        transport      GrpcRunner, InProcessRunner, or a RoutingRunner over both

Why this order: the cache must sit *outside* the requirements loop. Inside
it, every iteration would reuse the first call's tag (the tag is not
recomputed between iterations, upstream core-2.4) and the cache would hand iteration two
the answer to iteration one. Outside, a hit returns the final, stabilised
response and skips the whole loop. The inspector sits outside everything, as
in Crossplane, so it shows what the pipeline sent and got, cache hits
included. The fetcher wraps the transport directly
because the transport must see each iteration's request as built.

The optional layers are imported only when asked for: the cache store pulls
in protobuf's descriptor machinery, and a render (no cache, no inspector)
should not pay for it at start-up.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import TYPE_CHECKING

from crossfn.engine import _clock, _fetching, _options, _runner, _sources

if TYPE_CHECKING:
    from crossfn.engine import _cache_store, _inspected, _metrics

__all__ = ["build_runner"]


def build_runner(
    transport: _runner.FunctionRunner,
    *,
    sources: _sources.Sources | None = None,
    options: _options.ComposeOptions | None = None,
    cache: _cache_store.ResponseStore | None = None,
    cache_max_ttl: datetime.timedelta | None = None,
    clock: Callable[[], datetime.datetime] = _clock.utcnow,
    metrics: _metrics.Metrics | None = None,
    inspector: _inspected.PipelineInspector | None = None,
    inspector_metrics: _inspected.InspectorMetrics | None = None,
) -> _runner.FunctionRunner:
    """The runner to hand to :func:`~crossfn.engine.compose`: ``transport`` wrapped as above.

    ``cache`` ``None`` disables the response cache (Crossplane's default; and
    classic render sends no tags, so it could not hit anyway).
    ``cache_max_ttl`` ``None`` keeps Crossplane's default clamp of 24 hours
    (``DEFAULT_MAX_TTL`` of the caching runner).
    """
    sources = sources or _sources.Sources()
    options = options or _options.ComposeOptions()
    runner: _runner.FunctionRunner = _fetching.FetchingRunner(
        transport,
        resources=sources.resources,
        schemas=sources.schemas,
        fetcher=options.fetcher,
    )
    if cache is not None:
        from crossfn.engine import _caching  # noqa: PLC0415 -- only a configured cache loads it (module docstring)

        max_ttl = _caching.DEFAULT_MAX_TTL if cache_max_ttl is None else cache_max_ttl
        runner = _caching.CachingRunner(runner, store=cache, max_ttl=max_ttl, clock=clock, metrics=metrics)
    if inspector is not None:
        from crossfn.engine import _inspected  # noqa: PLC0415 -- only a configured inspector loads it

        runner = _inspected.InspectedRunner(runner, inspector, metrics=inspector_metrics, clock=clock)
    return runner
