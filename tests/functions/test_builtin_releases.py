"""Which release of environment-configs, extra-resources, cel-filter and dummy a pinned package runs as.

Every release each built-in reproduces maps to its behaviour; a later one runs
the package; ``latest`` and Go pseudo-versions are matched by the releases' days.
function-environment-configs v0.7.2 behaves as v0.7.1 (its module docstring says how that is known);
its day is recorded as the latest it can be, so a build of a few days before runs as v0.7.1.
"""

from __future__ import annotations

import pytest

from crossfn import functions

P = "xpkg.crossplane.io/crossplane-contrib/"

# (package, the built-in key or None (the package runs), words in the line)
CASES = [
    (f"{P}function-environment-configs:v0.0.3", "environment-configs@v0.0.4", "unknown input fields ignored"),
    (f"{P}function-environment-configs:v0.0.5", "environment-configs@v0.0.5", "behaves as v0.0.5"),
    (f"{P}function-environment-configs:v0.0.6", "environment-configs@v0.0.6", "behaves as v0.0.6"),
    (f"{P}function-environment-configs:v0.0.7", "environment-configs@v0.1.0", "v0.0.7 to v0.1.0"),
    (f"{P}function-environment-configs:v0.2.0", "environment-configs@v0.2.0", "behaves as v0.2.0"),
    (
        "xpkg.upbound.io/crossplane-contrib/function-environment-configs:v0.4.0",
        "environment-configs@v0.4.0",
        "v0.3.0 to v0.4.0",
    ),
    (f"{P}function-environment-configs:v0.6.0", "environment-configs@v0.6.0", "v0.5.0 to v0.6.0"),
    (f"{P}function-environment-configs:v0.7.1", "environment-configs", "v0.7.0 to v0.7.2"),
    (f"{P}function-environment-configs:v0.7.2", "environment-configs", "v0.7.0 to v0.7.2"),
    (f"{P}function-environment-configs:v0.7.3", None, "later versions (v0.7.3 on) may behave differently"),
    (
        f"{P}function-environment-configs:latest",
        "environment-configs",
        "the newest release crossfn knows, v0.7.2 of 2026-06-22",
    ),
    (
        f"{P}function-environment-configs:v0.0.0-20260615000000-abcdefabcdef",
        "environment-configs",
        "a build of 2026-06-15, after v0.7.1 of 2026-05-22",
    ),
    (
        f"{P}function-environment-configs:v0.0.0-20250101000000-abcdefabcdef",
        "environment-configs@v0.2.0",
        "a build of 2025-01-01, after v0.2.0 of 2024-12-16",
    ),
    (f"{P}function-extra-resources:v0.0.1", "extra-resources@v0.0.2", "a failed check fails the call"),
    (f"{P}function-extra-resources:v0.0.3", "extra-resources@v0.0.3", "behaves as v0.0.3"),
    (f"{P}function-extra-resources:v0.1.0", "extra-resources@v0.1.0", "behaves as v0.1.0"),
    (f"{P}function-extra-resources:v0.2.0", "extra-resources@v0.2.0", "behaves as v0.2.0"),
    (f"{P}function-extra-resources:v0.3.0", "extra-resources", "behaves as v0.3.0"),
    (f"{P}function-extra-resources:v0.4.0", None, "later versions may behave differently"),
    (f"{P}function-cel-filter:v0.1.0", "cel-filter@v0.1.1", "the v1beta1 protocol"),
    (f"{P}function-cel-filter:v0.2.0", "cel-filter", "behaves as v0.2.0"),
    (f"{P}function-cel-filter:v0.3.0", None, "running the package"),
    (f"{P}function-dummy:v0.2.1", "dummy@v0.3.0", "the v1beta1 response"),
    (f"{P}function-dummy:v0.3.0", "dummy@v0.3.0", "v0.2.0 to v0.3.0"),
    (f"{P}function-dummy:v0.4.1", "dummy", "v0.4.0 and v0.4.1"),
    (f"{P}function-dummy:v0.5.0", None, "running the package"),
    (f"{P}function-dummy:v0.0.0-20250601000000-abcdefabcdef", "dummy@v0.3.0", "after v0.3.0 of 2025-05-30"),
]


@pytest.mark.parametrize(("package", "want", "words"), CASES, ids=[c[0].rpartition("/")[2] for c in CASES])
def test_resolve(package: str, want: str | None, words: str) -> None:
    d = functions.resolve(package)
    assert d is not None
    assert d.builtin == want
    assert words in d.line


@pytest.mark.parametrize("short", ["environment-configs", "extra-resources", "cel-filter", "dummy"])
def test_served_names(short: str) -> None:
    """``crossfn function serve <short>`` serves the newest release's behaviour."""
    assert short in functions.BUILTINS
    latest = functions.resolve(f"{P}function-{short}:latest")
    assert latest is not None and latest.builtin == short
