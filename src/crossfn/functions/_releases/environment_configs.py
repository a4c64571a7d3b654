"""function-environment-configs: every release from v0.0.3 to v0.7.2 (``crossfn.functions.environment_configs._releases``).

v0.7.2 behaves as v0.7.1. Its tag (commit ``5589092``) is not in the repository snapshot the built-in
follows, whose newest refs are of 2026-06-12; what is known of it (docs/functions.md,
"environment-configs", gives the sources): it was cut from the ``release-0.7`` branch after v0.7.1,
whose only change over v0.7.0 was a CVE remediation of the Go toolchain and CI; the lines of its
``fn.go`` and ``input/v1beta1`` that a description of v0.7.2 cites bound the same functions and types
at the same line numbers as v0.7.1's; its packaged input schema still lacks ``toFieldPath``, which the
main branch regenerated into it on 2026-06-01, so it does not hold main's later commits (which are
``go generate`` and dependency updates only in any case). Its day is not known exactly: after
2026-06-12 and no later than 2026-06-22, when function-go-templating's examples were updated to it;
the later day is recorded (a build of a day between matches v0.7.1, which behaves the same).
"""

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
        Span("v0.7.0", "v0.7.3", "environment-configs", "v0.7.0 to v0.7.2"),
    ),
    other=(
        "the built-in reproduces v0.0.3 to v0.7.2, the releases whose behaviour is known; "
        "later versions (v0.7.3 on) may behave differently"
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
        Release("v0.7.2", "2026-06-22"),
    ),
)
