"""function-auto-ready: v0.7.0 is the built-in; v0.1.0 to v0.6.0 checked only the Ready condition."""

from __future__ import annotations

from crossfn.functions._registry import Span, Upstream

UPSTREAM = Upstream(
    org="crossplane-contrib",
    repo="function-auto-ready",
    objects={
        "auto-ready": "crossfn.functions.auto_ready:compose",
        "auto-ready@v0.6.0": "crossfn.functions.auto_ready:compose_ready_condition_only",
    },
    spans=(
        Span("v0.1.0", "v0.6.1", "auto-ready@v0.6.0", "v0.6.0 and earlier: the Ready condition only"),
        Span("v0.7.0", "v0.7.1", "auto-ready", "v0.7.0"),
    ),
    other=(
        "between v0.6.0 and v0.7.0 function-auto-ready added per-kind health checks in steps, and after v0.7.0 "
        "it checks more kinds, so the built-in (v0.7.0) may answer differently"
    ),
)
