"""function-extra-resources: every release from v0.0.1 to v0.3.0 (``crossfn.functions.extra_resources._releases``)."""

from __future__ import annotations

from crossfn.functions._registry import Release, Span, Upstream

_M = "crossfn.functions.extra_resources"

UPSTREAM = Upstream(
    org="crossplane-contrib",
    repo="function-extra-resources",
    objects={
        "extra-resources": f"{_M}:compose",
        "extra-resources@v0.0.2": f"{_M}:v0_0_2",
        "extra-resources@v0.0.3": f"{_M}:v0_0_3",
        "extra-resources@v0.1.0": f"{_M}:v0_1_0",
        "extra-resources@v0.2.0": f"{_M}:v0_2_0",
    },
    spans=(
        Span(
            "v0.0.1", "v0.0.3", "extra-resources@v0.0.2", "v0.0.1 and v0.0.2: a failed check fails the call"
        ),
        Span("v0.0.3", "v0.1.0", "extra-resources@v0.0.3", "v0.0.3"),
        Span("v0.1.0", "v0.2.0", "extra-resources@v0.1.0", "v0.1.0"),
        Span("v0.2.0", "v0.3.0", "extra-resources@v0.2.0", "v0.2.0"),
        Span("v0.3.0", "v0.3.1", "extra-resources", "v0.3.0"),
    ),
    other="the built-in reproduces v0.0.1 to v0.3.0, and later versions may behave differently",
    releases=(
        Release("v0.0.1", "2024-03-25"),
        Release("v0.0.2", "2024-03-26"),
        Release("v0.0.3", "2024-03-29"),
        Release("v0.1.0", "2025-05-23"),
        Release("v0.2.0", "2025-09-08"),
        Release("v0.3.0", "2025-12-23"),
    ),
)
