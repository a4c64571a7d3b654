"""function-status-transformer: every release from v0.1.0 to v0.5.1 is reproduced (``crossfn.functions.status_transformer``)."""

from __future__ import annotations

from crossfn.functions._registry import Release, Span, Upstream

_M = "crossfn.functions.status_transformer"

UPSTREAM = Upstream(
    org="crossplane-contrib",
    repo="function-status-transformer",
    objects={
        "status-transformer": f"{_M}:compose",
        "status-transformer@v0.4.1": f"{_M}:v0_4_1",
        "status-transformer@v0.4.0": f"{_M}:v0_4_0",
        "status-transformer@v0.3.0": f"{_M}:v0_3_0",
        "status-transformer@v0.1.0": f"{_M}:v0_1_0",
    },
    spans=(
        Span(
            "v0.1.0",
            "v0.2.0",
            "status-transformer@v0.1.0",
            "v0.1.0: composed resources only, built with Go 1.21",
        ),
        Span("v0.2.0", "v0.3.1", "status-transformer@v0.3.0", "v0.2.0 to v0.3.0: composed resources only"),
        Span(
            "v0.4.0", "v0.4.1", "status-transformer@v0.4.0", "v0.4.0: no extra resources, built with Go 1.23"
        ),
        Span("v0.4.1", "v0.4.2", "status-transformer@v0.4.1", "v0.4.1: no extra resources"),
        Span("v0.5.0", "v0.5.2", "status-transformer", "v0.5.0 to v0.5.1"),
    ),
    other="the built-in reproduces v0.1.0 to v0.5.1, and later versions may behave differently",
    releases=(
        Release("v0.1.0", "2024-08-20"),
        Release("v0.2.0", "2024-09-05"),
        Release("v0.3.0", "2024-09-13"),
        Release("v0.4.0", "2024-09-27"),
        Release("v0.4.1", "2025-06-14"),
        Release("v0.5.0", "2025-09-12"),
        Release("v0.5.1", "2025-10-25"),
    ),
)
