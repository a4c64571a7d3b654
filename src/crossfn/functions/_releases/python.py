"""function-python: v0.1.0 to v0.5.0 are reproduced (``crossfn.functions.python``); scripts run sandboxed."""

from __future__ import annotations

from crossfn.functions._registry import Release, Span, Upstream

_M = "crossfn.functions.python"

UPSTREAM = Upstream(
    org="crossplane-contrib",
    repo="function-python",
    objects={
        "python": f"{_M}:compose",
        "python@v0.3.0": f"{_M}:v0_3_0",
        "python@v0.1.0": f"{_M}:v0_1_0",
    },
    spans=(
        Span("v0.1.0", "v0.1.1", "python@v0.1.0", "v0.1.0: compose only"),
        Span("v0.2.0", "v0.3.1", "python@v0.3.0", "v0.2.0 to v0.3.0: compose or operate, not awaited"),
        Span("v0.4.0", "v0.5.1", "python", "v0.4.0 to v0.5.0"),
    ),
    other="the built-in reproduces v0.1.0 to v0.5.0, and later versions may behave differently",
    releases=(
        Release("v0.1.0", "2025-03-25"),
        Release("v0.2.0", "2025-08-07"),
        Release("v0.3.0", "2026-01-13"),
        Release("v0.4.0", "2026-02-05"),
        Release("v0.5.0", "2026-06-23"),
    ),
    runs_code=True,
)
