"""function-dummy: every release from v0.2.0 to v0.4.1 (``crossfn.functions.dummy``)."""

from __future__ import annotations

from crossfn.functions._registry import Release, Span, Upstream

UPSTREAM = Upstream(
    org="crossplane-contrib",
    repo="function-dummy",
    objects={"dummy": "crossfn.functions.dummy:compose", "dummy@v0.3.0": "crossfn.functions.dummy:v0_3_0"},
    spans=(
        Span(
            "v0.2.0",
            "v0.4.0",
            "dummy@v0.3.0",
            "v0.2.0 to v0.3.0: the v1beta1 response, unknown input fields ignored",
        ),
        Span("v0.4.0", "v0.4.2", "dummy", "v0.4.0 and v0.4.1"),
    ),
    other="the built-in reproduces v0.2.0 to v0.4.1, and later versions may behave differently",
    releases=(
        Release("v0.2.0", "2023-11-02"),
        Release("v0.2.1", "2023-11-02"),
        Release("v0.3.0", "2025-05-30"),
        Release("v0.4.0", "2025-07-14"),
        Release("v0.4.1", "2025-07-14"),
    ),
)
