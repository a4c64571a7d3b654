"""function-auto-ready: every release from v0.1.0 to v0.7.0.

Up to v0.5.2 it read only the ``Ready`` condition; v0.6.0 added the per-kind
Kubernetes health checks (the same set through v0.6.7: v0.6.2 only reworded a
time comparison, with the same result); v0.7.0 added the input (``ttl``) and the
CEL rules. v0.1.0 was a development build without a tag, with v0.2.0's code;
the pseudo-version ``v0.0.0-20231101225931-60aea09d94c8`` is a build of the day
before v0.2.0, the same code again. Dates are the tagged commits' days (v0.6.7,
on the release-0.6 branch, came after v0.7.0).
"""

from __future__ import annotations

from crossfn.functions._registry import Release, Span, Upstream

UPSTREAM = Upstream(
    org="crossplane-contrib",
    repo="function-auto-ready",
    objects={
        "auto-ready": "crossfn.functions.auto_ready:compose",
        "auto-ready@v0.5.2": "crossfn.functions.auto_ready:compose_ready_condition_only",
        "auto-ready@v0.6.0": "crossfn.functions.auto_ready:compose_health_checks",
    },
    spans=(
        Span("v0.1.0", "v0.6.0", "auto-ready@v0.5.2", "v0.5.2 and earlier: the Ready condition only"),
        Span("v0.6.0", "v0.7.0", "auto-ready@v0.6.0", "v0.6.x: per-kind health checks, no input, no CEL"),
        Span("v0.7.0", "v0.7.1", "auto-ready", "v0.7.0"),
    ),
    other="the built-in reproduces v0.1.0 to v0.7.0, and later versions are newer than crossfn knows",
    releases=(
        Release("v0.2.0", "2023-11-02"),
        Release("v0.2.1", "2023-11-02"),
        Release("v0.3.0", "2024-09-19"),
        Release("v0.4.0", "2024-12-16"),
        Release("v0.4.1", "2025-01-28"),
        Release("v0.4.2", "2025-02-24"),
        Release("v0.5.0", "2025-05-09"),
        Release("v0.5.1", "2025-10-02"),
        Release("v0.5.2", "2025-11-13"),
        Release("v0.6.0", "2025-12-05"),
        Release("v0.6.1", "2026-02-27"),
        Release("v0.6.2", "2026-03-17"),
        Release("v0.6.3", "2026-03-24"),
        Release("v0.6.4", "2026-04-17"),
        Release("v0.6.5", "2026-05-21"),
        Release("v0.6.6", "2026-06-16"),
        Release("v0.6.7", "2026-07-24"),
        Release("v0.7.0", "2026-06-24"),
    ),
)
