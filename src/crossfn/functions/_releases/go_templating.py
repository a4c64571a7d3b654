"""function-go-templating: every release from v0.2.0 to v0.12.2 is reproduced (``crossfn.functions.go_templating``).

Releases that behave alike share an object (``crossfn.functions.go_templating._release.GROUPS``): same Go
code, built with the same Go release.
"""

from __future__ import annotations

from crossfn.functions._registry import Release, Span, Upstream

_M = "crossfn.functions.go_templating"

UPSTREAM = Upstream(
    org="crossplane-contrib",
    repo="function-go-templating",
    objects={
        "go-templating": f"{_M}:compose",
        "go-templating@v0.11.5": f"{_M}:v0_11_5",
        "go-templating@v0.11.1": f"{_M}:v0_11_1",
        "go-templating@v0.11.0": f"{_M}:v0_11_0",
        "go-templating@v0.9.0": f"{_M}:v0_9_0",
        "go-templating@v0.8.0": f"{_M}:v0_8_0",
        "go-templating@v0.7.0": f"{_M}:v0_7_0",
        "go-templating@v0.6.0": f"{_M}:v0_6_0",
        "go-templating@v0.5.0": f"{_M}:v0_5_0",
        "go-templating@v0.4.1": f"{_M}:v0_4_1",
        "go-templating@v0.4.0": f"{_M}:v0_4_0",
        "go-templating@v0.3.0": f"{_M}:v0_3_0",
        "go-templating@v0.2.2": f"{_M}:v0_2_2",
        "go-templating@v0.2.0": f"{_M}:v0_2_0",
    },
    spans=(
        Span("v0.2.0", "v0.2.2", "go-templating@v0.2.0", "v0.2.0 to v0.2.1"),
        Span("v0.2.2", "v0.3.0", "go-templating@v0.2.2", "v0.2.2"),
        Span("v0.3.0", "v0.4.0", "go-templating@v0.3.0", "v0.3.0"),
        Span("v0.4.0", "v0.4.1", "go-templating@v0.4.0", "v0.4.0"),
        Span("v0.4.1", "v0.5.0", "go-templating@v0.4.1", "v0.4.1"),
        Span("v0.5.0", "v0.6.0", "go-templating@v0.5.0", "v0.5.0"),
        Span("v0.6.0", "v0.7.0", "go-templating@v0.6.0", "v0.6.0"),
        Span("v0.7.0", "v0.8.0", "go-templating@v0.7.0", "v0.7.0"),
        Span("v0.8.0", "v0.9.0", "go-templating@v0.8.0", "v0.8.0"),
        Span("v0.9.0", "v0.11.0", "go-templating@v0.9.0", "v0.9.0 to v0.10.1, built with Go 1.23"),
        Span("v0.11.0", "v0.11.1", "go-templating@v0.11.0", "v0.11.0, built with Go 1.23"),
        Span("v0.11.1", "v0.11.5", "go-templating@v0.11.1", "v0.11.1 to v0.11.4, built with Go 1.24"),
        Span("v0.11.5", "v0.11.10", "go-templating@v0.11.5", "v0.11.5 to v0.11.9, built with Go 1.25"),
        Span("v0.12.0", "v0.12.3", "go-templating", "v0.12.0 to v0.12.2"),
    ),
    other="the built-in reproduces v0.2.0 to v0.12.2, and later versions may behave differently",
    releases=(
        Release("v0.2.0", "2023-11-02"),
        Release("v0.2.1", "2023-11-02"),
        Release("v0.2.2", "2023-11-03"),
        Release("v0.3.0", "2023-11-16"),
        Release("v0.4.0", "2023-12-13"),
        Release("v0.4.1", "2024-01-16"),
        Release("v0.5.0", "2024-07-30"),
        Release("v0.6.0", "2024-09-04"),
        Release("v0.7.0", "2024-10-08"),
        Release("v0.8.0", "2024-10-16"),
        Release("v0.9.0", "2024-12-16"),
        Release("v0.9.1", "2025-01-28"),
        Release("v0.9.2", "2025-02-24"),
        Release("v0.10.0", "2025-05-09"),
        Release("v0.10.1", "2025-10-02"),
        Release("v0.11.0", "2025-08-26"),
        Release("v0.11.1", "2025-11-13"),
        Release("v0.11.2", "2025-12-03"),
        Release("v0.11.3", "2025-12-18"),
        Release("v0.11.4", "2026-02-26"),
        Release("v0.11.5", "2026-03-17"),
        Release("v0.11.6", "2026-03-24"),
        Release("v0.11.7", "2026-04-17"),
        Release("v0.11.8", "2026-05-21"),
        Release("v0.11.9", "2026-06-16"),
        Release("v0.12.0", "2026-03-22"),
        Release("v0.12.1", "2026-05-22"),
        Release("v0.12.2", "2026-06-15"),
    ),
)
