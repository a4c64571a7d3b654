"""function-patch-and-transform: the built-in reproduces v0.1.4 and every release from v0.2.0 to v0.10.8.

Each span runs :class:`crossfn.functions.patch_and_transform.PatchAndTransform`
as the first release it holds; releases inside a span share their Go code
(``crossfn.functions.patch_and_transform.release`` says what changed when).
v0.1.0 to v0.1.3 were development builds upstream never tagged and whose
commits cannot be told apart, so they run the package; v0.1.4 is the commit
its README pinned (659dad3, 2023-09-29). Dates are the tagged commits' days.
"""

from __future__ import annotations

from crossfn.functions._registry import Release, Span, Upstream

_MODULE = "crossfn.functions.patch_and_transform"

UPSTREAM = Upstream(
    org="crossplane-contrib",
    repo="function-patch-and-transform",
    objects={
        "patch-and-transform": f"{_MODULE}:compose",
        "patch-and-transform@v0.1.4": f"{_MODULE}:compose_v0_1",
        "patch-and-transform@v0.2.0": f"{_MODULE}:compose_v0_2",
        "patch-and-transform@v0.3.0": f"{_MODULE}:compose_v0_3",
        "patch-and-transform@v0.4.0": f"{_MODULE}:compose_v0_4",
        "patch-and-transform@v0.5.0": f"{_MODULE}:compose_v0_5",
        "patch-and-transform@v0.6.0": f"{_MODULE}:compose_v0_6",
        "patch-and-transform@v0.7.0": f"{_MODULE}:compose_v0_7",
        "patch-and-transform@v0.8.0": f"{_MODULE}:compose_v0_8",
    },
    spans=(
        Span("v0.1.4", "v0.1.5", "patch-and-transform@v0.1.4", "v0.1.4"),
        Span("v0.2.0", "v0.3.0", "patch-and-transform@v0.2.0", "v0.2.0-v0.2.1"),
        Span("v0.3.0", "v0.4.0", "patch-and-transform@v0.3.0", "v0.3.0"),
        Span("v0.4.0", "v0.5.0", "patch-and-transform@v0.4.0", "v0.4.0"),
        Span("v0.5.0", "v0.6.0", "patch-and-transform@v0.5.0", "v0.5.0"),
        Span("v0.6.0", "v0.7.0", "patch-and-transform@v0.6.0", "v0.6.0"),
        Span("v0.7.0", "v0.8.0", "patch-and-transform@v0.7.0", "v0.7.0"),
        Span("v0.8.0", "v0.10.0", "patch-and-transform@v0.8.0", "v0.8.0-v0.9.3"),
        Span("v0.10.0", "v0.11.0", "patch-and-transform", "v0.10.0-v0.10.8"),
    ),
    other=(
        "the built-in reproduces v0.1.4 and v0.2.0 to v0.10.8; v0.1.0 to v0.1.3 were development builds "
        "upstream never tagged, and later versions are newer than crossfn knows"
    ),
    releases=(
        Release("v0.1.4", "2023-09-29"),
        Release("v0.2.0", "2023-11-02"),
        Release("v0.2.1", "2023-11-02"),
        Release("v0.3.0", "2024-02-01"),
        Release("v0.4.0", "2024-03-11"),
        Release("v0.5.0", "2024-04-22"),
        Release("v0.6.0", "2024-05-29"),
        Release("v0.7.0", "2024-07-30"),
        Release("v0.8.0", "2024-12-16"),
        Release("v0.8.1", "2025-01-28"),
        Release("v0.8.2", "2025-02-24"),
        Release("v0.9.0", "2025-05-09"),
        Release("v0.9.1", "2025-10-02"),
        Release("v0.9.2", "2025-11-13"),
        Release("v0.9.3", "2025-12-18"),
        Release("v0.10.0", "2026-01-08"),
        Release("v0.10.1", "2026-02-27"),
        Release("v0.10.2", "2026-03-17"),
        Release("v0.10.3", "2026-03-24"),
        Release("v0.10.4", "2026-04-17"),
        Release("v0.10.5", "2026-05-07"),
        Release("v0.10.6", "2026-05-22"),
        Release("v0.10.7", "2026-06-05"),
        Release("v0.10.8", "2026-07-27"),
    ),
)
