"""function-cel-filter: every release from v0.1.0 to v0.2.0 (``crossfn.functions.cel_filter``)."""

from __future__ import annotations

from crossfn.functions._registry import Release, Span, Upstream

UPSTREAM = Upstream(
    org="crossplane-contrib",
    repo="function-cel-filter",
    objects={
        "cel-filter": "crossfn.functions.cel_filter:compose",
        "cel-filter@v0.1.1": "crossfn.functions.cel_filter:v0_1_1",
    },
    spans=(
        Span("v0.1.0", "v0.2.0", "cel-filter@v0.1.1", "v0.1.0 and v0.1.1: the v1beta1 protocol"),
        Span("v0.2.0", "v0.2.1", "cel-filter", "v0.2.0"),
    ),
    other="the built-in reproduces v0.1.0 to v0.2.0, and later versions may behave differently",
    releases=(
        Release("v0.1.0", "2024-02-28"),
        Release("v0.1.1", "2024-02-29"),
        Release("v0.2.0", "2026-03-22"),
    ),
)
