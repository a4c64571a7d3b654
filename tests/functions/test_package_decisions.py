"""Which Function packages a built-in stands in for: the one rule render and the controller share."""

from __future__ import annotations

import pytest

from crossfn import functions
from crossfn.functions import auto_ready

AR = "crossplane-contrib/function-auto-ready"
PT = "crossplane-contrib/function-patch-and-transform"

# (package, built-in key or None (the package runs) or "-" (no built-in's package at all), words in the line)
CASES = [
    # patch-and-transform: the built-in reproduces v0.10.8 (upstream pt-0).
    (f"xpkg.crossplane.io/{PT}:v0.10.8", "patch-and-transform", "behaves as v0.10.8"),
    (f"xpkg.upbound.io/{PT}:v0.10.9", "patch-and-transform", "behaves as v0.10.8"),
    (
        f"ghcr.io/{PT}:v0.10.8",
        "patch-and-transform",
        "running function-patch-and-transform v0.10.8 as the built-in",
    ),
    (f"{PT}:v0.10.8", "patch-and-transform", "as the built-in patch-and-transform"),
    (f"localhost:5000/{PT}:v0.10.8", "patch-and-transform", "v0.10.8"),
    (f"xpkg.crossplane.io/{PT}:v0.10.7", None, "running the package"),
    (f"xpkg.crossplane.io/{PT}:v0.8.2", None, "other versions behave differently"),
    (f"xpkg.upbound.io/{PT}:v0.1.4", None, "not running function-patch-and-transform v0.1.4"),
    (f"xpkg.crossplane.io/{PT}:v0.11.0", None, "running the package"),
    # auto-ready: v0.7.0 is the built-in; v0.6.0 and earlier checked only the Ready condition.
    (
        f"xpkg.crossplane.io/{AR}:v0.7.0",
        "auto-ready",
        "running function-auto-ready v0.7.0 as the built-in auto-ready (behaves as v0.7.0)",
    ),
    (
        f"xpkg.crossplane.io/{AR}:v0.6.0",
        "auto-ready@v0.6.0",
        "behaves as v0.6.0 and earlier: the Ready condition only",
    ),
    (
        f"xpkg.crossplane.io/{AR}:v0.5.0",
        "auto-ready@v0.6.0",
        "running function-auto-ready v0.5.0 as the built-in auto-ready",
    ),
    (f"xpkg.upbound.io/{AR}:v0.1.2", "auto-ready@v0.6.0", "v0.6.0 and earlier"),
    (f"xpkg.crossplane.io/{AR}:v0.6.1", None, "per-kind health checks"),
    (f"xpkg.crossplane.io/{AR}:v0.6.6", None, "running the package"),
    (f"xpkg.crossplane.io/{AR}:v0.7.1", None, "checks more kinds"),
    (f"xpkg.crossplane.io/{AR}:v1.0.0", None, "running the package"),
    # No version: the behaviour cannot be matched.
    (f"xpkg.crossplane.io/{AR}", None, "without a release tag"),
    (f"xpkg.crossplane.io/{AR}:latest", None, "without a release tag"),
    (f"xpkg.crossplane.io/{AR}:v0.7.0-rc.1", None, "without a release tag"),
    (f"xpkg.crossplane.io/{AR}:v0.7.0@sha256:" + "b" * 64, "auto-ready", "v0.7.0"),
    (f"xpkg.crossplane.io/{AR}@sha256:" + "a" * 64, None, "function-auto-ready@sha256:"),
    # Not the upstream package: forks, look-alikes, other organisations.
    ("xpkg.crossplane.io/example/function-auto-ready:v0.7.0", "-", ""),
    ("xpkg.crossplane.io/crossplane/function-patch-and-transform:v0.10.8", "-", ""),
    ("ghcr.io/mirror/crossplane-contrib/function-auto-ready:v0.7.0", "-", ""),
    ("xpkg.crossplane.io/crossplane-contrib/function-auto-ready-fork:v0.7.0", "-", ""),
    ("function-auto-ready:v0.7.0", "-", ""),
    ("xpkg.crossplane.io/crossplane-contrib/function-go-templating:v0.11.2", "-", ""),
    ("", "-", ""),
    # crossfn's own starlark: any version, nothing to say.
    ("xpkg.crossplane.io/crossfn/function-starlark:v0.1.0", "starlark", ""),
    ("xpkg.crossplane.io/wompipomp/function-starlark:v0.4.0", "-", ""),
]


@pytest.mark.parametrize(("package", "want", "words"), CASES, ids=[c[0] or "empty" for c in CASES])
def test_resolve(package: str, want: str | None, words: str) -> None:
    d = functions.resolve(package)
    if want == "-":
        assert d is None
        return
    assert d is not None
    assert d.builtin == want
    assert words in d.line
    if want is not None and want != "starlark":
        assert d.line.startswith("running ")
    if want is None:
        assert d.line.startswith("not running ") and d.line.endswith("; running the package")


@pytest.mark.parametrize("key", [*functions.BUILTINS, *functions.EMULATIONS])
def test_every_key_loads(key: str) -> None:
    assert callable(functions.load(key))


def test_emulation_is_ready_condition_only() -> None:
    assert functions.load("auto-ready@v0.6.0") is auto_ready.compose_ready_condition_only
