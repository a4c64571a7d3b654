"""function-environment-configs: every release from v0.0.3 to v0.7.1 (``crossfn.functions.environment_configs._releases``)."""

from __future__ import annotations

from crossfn.functions._registry import Release, Span, Upstream

_M = "crossfn.functions.environment_configs"

UPSTREAM = Upstream(
    org="crossplane-contrib",
    repo="function-environment-configs",
    objects={
        "environment-configs": f"{_M}:compose",
        "environment-configs@v0.0.4": f"{_M}:v0_0_4",
        "environment-configs@v0.0.5": f"{_M}:v0_0_5",
        "environment-configs@v0.0.6": f"{_M}:v0_0_6",
        "environment-configs@v0.1.0": f"{_M}:v0_1_0",
        "environment-configs@v0.2.0": f"{_M}:v0_2_0",
        "environment-configs@v0.4.0": f"{_M}:v0_4_0",
        "environment-configs@v0.6.0": f"{_M}:v0_6_0",
    },
    spans=(
        Span(
            "v0.0.3",
            "v0.0.5",
            "environment-configs@v0.0.4",
            "v0.0.3 and v0.0.4: unknown input fields ignored",
        ),
        Span("v0.0.5", "v0.0.6", "environment-configs@v0.0.5", "v0.0.5"),
        Span("v0.0.6", "v0.0.7", "environment-configs@v0.0.6", "v0.0.6"),
        Span("v0.0.7", "v0.2.0", "environment-configs@v0.1.0", "v0.0.7 to v0.1.0"),
        Span("v0.2.0", "v0.3.0", "environment-configs@v0.2.0", "v0.2.0"),
        Span("v0.3.0", "v0.5.0", "environment-configs@v0.4.0", "v0.3.0 to v0.4.0"),
        Span("v0.5.0", "v0.7.0", "environment-configs@v0.6.0", "v0.5.0 to v0.6.0"),
        Span("v0.7.0", "v0.7.2", "environment-configs", "v0.7.0 and v0.7.1"),
    ),
    other=(
        "the built-in reproduces v0.0.3 to v0.7.1, the releases whose source it follows; "
        "later versions (v0.7.2 on) may behave differently"
    ),
    releases=(
        Release("v0.0.3", "2024-02-14"),
        Release("v0.0.4", "2024-02-16"),
        Release("v0.0.5", "2024-03-05"),
        Release("v0.0.6", "2024-03-26"),
        Release("v0.0.7", "2024-03-29"),
        Release("v0.1.0", "2024-10-15"),
        Release("v0.2.0", "2024-12-16"),
        Release("v0.3.0", "2025-04-23"),
        Release("v0.4.0", "2025-05-22"),
        Release("v0.5.0", "2025-10-27"),
        Release("v0.6.0", "2025-12-23"),
        Release("v0.7.0", "2026-05-08"),
        Release("v0.7.1", "2026-05-22"),
    ),
)
