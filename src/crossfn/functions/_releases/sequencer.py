"""function-sequencer: every release from v0.1.0 to v0.6.0 is reproduced (``crossfn.functions.sequencer._releases``)."""

from __future__ import annotations

from crossfn.functions._registry import Release, Span, Upstream

_M = "crossfn.functions.sequencer"

UPSTREAM = Upstream(
    org="crossplane-contrib",
    repo="function-sequencer",
    objects={
        "sequencer": f"{_M}:compose",
        "sequencer@v0.1.2": f"{_M}:v0_1_2",
        "sequencer@v0.2.0": f"{_M}:v0_2_0",
        "sequencer@v0.2.1": f"{_M}:v0_2_1",
        "sequencer@v0.2.2": f"{_M}:v0_2_2",
        "sequencer@v0.3.0": f"{_M}:v0_3_0",
        "sequencer@v0.4.0": f"{_M}:v0_4_0",
        "sequencer@v0.5.0": f"{_M}:v0_5_0",
    },
    spans=(
        Span("v0.1.0", "v0.2.0", "sequencer@v0.1.2", "v0.1.0 to v0.1.2: exact names"),
        Span("v0.2.0", "v0.2.1", "sequencer@v0.2.0", "v0.2.0"),
        Span("v0.2.1", "v0.2.2", "sequencer@v0.2.1", "v0.2.1"),
        Span("v0.2.2", "v0.2.3", "sequencer@v0.2.2", "v0.2.2"),
        Span("v0.2.3", "v0.3.1", "sequencer@v0.3.0", "v0.2.3 to v0.3.0"),
        Span("v0.4.0", "v0.4.1", "sequencer@v0.4.0", "v0.4.0"),
        Span("v0.5.0", "v0.5.1", "sequencer@v0.5.0", "v0.5.0"),
        Span("v0.6.0", "v0.6.1", "sequencer", "v0.6.0"),
    ),
    other="the built-in reproduces v0.1.0 to v0.6.0, and later versions may behave differently",
    releases=(
        Release("v0.1.0", "2024-02-27"),
        Release("v0.1.1", "2024-02-29"),
        Release("v0.1.2", "2024-03-15"),
        Release("v0.2.0", "2024-11-19"),
        Release("v0.2.1", "2024-11-26"),
        Release("v0.2.2", "2024-12-10"),
        Release("v0.2.3", "2025-04-09"),
        Release("v0.3.0", "2025-09-09"),
        Release("v0.4.0", "2026-01-17"),
        Release("v0.5.0", "2026-02-06"),
        Release("v0.6.0", "2026-06-23"),
    ),
)
