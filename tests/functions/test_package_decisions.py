"""Which Function packages a built-in stands in for: the one rule render and the controller share."""

from __future__ import annotations

import dataclasses

import pytest

from crossfn import functions
from crossfn.functions import _registry, auto_ready, patch_and_transform

AR = "crossplane-contrib/function-auto-ready"
PT = "crossplane-contrib/function-patch-and-transform"

# (package, built-in key or None (the package runs) or "-" (no built-in's package at all), words in the line)
CASES = [
    # patch-and-transform: the built-in reproduces v0.1.4 and v0.2.0 to v0.10.8, each span as its own release.
    (f"xpkg.crossplane.io/{PT}:v0.10.8", "patch-and-transform", "behaves as v0.10.0-v0.10.8"),
    (f"xpkg.upbound.io/{PT}:v0.10.9", "patch-and-transform", "behaves as v0.10.0-v0.10.8"),
    (
        f"ghcr.io/{PT}:v0.10.8",
        "patch-and-transform",
        "running function-patch-and-transform v0.10.8 as the built-in",
    ),
    (f"{PT}:v0.10.8", "patch-and-transform", "as the built-in patch-and-transform"),
    (f"localhost:5000/{PT}:v0.10.8", "patch-and-transform", "v0.10.8"),
    (f"xpkg.crossplane.io/{PT}:v0.10.0", "patch-and-transform", "behaves as v0.10.0-v0.10.8"),
    (f"xpkg.crossplane.io/{PT}:v0.9.3", "patch-and-transform@v0.8.0", "behaves as v0.8.0-v0.9.3"),
    (f"xpkg.crossplane.io/{PT}:v0.8.2", "patch-and-transform@v0.8.0", "behaves as v0.8.0-v0.9.3"),
    (f"xpkg.crossplane.io/{PT}:v0.7.0", "patch-and-transform@v0.7.0", "behaves as v0.7.0"),
    (f"xpkg.crossplane.io/{PT}:v0.6.0", "patch-and-transform@v0.6.0", "behaves as v0.6.0"),
    (f"xpkg.crossplane.io/{PT}:v0.5.0", "patch-and-transform@v0.5.0", "behaves as v0.5.0"),
    (f"xpkg.crossplane.io/{PT}:v0.4.0", "patch-and-transform@v0.4.0", "behaves as v0.4.0"),
    (f"xpkg.crossplane.io/{PT}:v0.3.0", "patch-and-transform@v0.3.0", "behaves as v0.3.0"),
    (f"xpkg.crossplane.io/{PT}:v0.2.1", "patch-and-transform@v0.2.0", "behaves as v0.2.0-v0.2.1"),
    (f"xpkg.upbound.io/{PT}:v0.1.4", "patch-and-transform@v0.1.4", "behaves as v0.1.4"),
    (f"xpkg.upbound.io/{PT}:v0.1.3", None, "development builds upstream never tagged"),
    (f"xpkg.crossplane.io/{PT}:v0.11.0", None, "newer than crossfn knows"),
    (
        f"xpkg.crossplane.io/{PT}:latest",
        "patch-and-transform",
        "latest: the newest release crossfn knows, v0.10.8",
    ),
    # auto-ready: v0.7.0 is the built-in; v0.6.x added per-kind checks; before, the Ready condition only.
    (
        f"xpkg.crossplane.io/{AR}:v0.7.0",
        "auto-ready",
        "running function-auto-ready v0.7.0 as the built-in auto-ready (behaves as v0.7.0)",
    ),
    (f"xpkg.crossplane.io/{AR}:v0.6.0", "auto-ready@v0.6.0", "behaves as v0.6.x: per-kind health checks"),
    (f"xpkg.crossplane.io/{AR}:v0.6.7", "auto-ready@v0.6.0", "no input, no CEL"),
    (
        f"xpkg.crossplane.io/{AR}:v0.5.0",
        "auto-ready@v0.5.2",
        "running function-auto-ready v0.5.0 as the built-in auto-ready",
    ),
    (f"xpkg.crossplane.io/{AR}:v0.5.2", "auto-ready@v0.5.2", "v0.5.2 and earlier: the Ready condition only"),
    (f"xpkg.upbound.io/{AR}:v0.1.2", "auto-ready@v0.5.2", "v0.5.2 and earlier"),
    (
        f"xpkg.upbound.io/{AR}:v0.0.0-20231101225931-60aea09d94c8",
        "auto-ready@v0.5.2",
        "a build of 2023-11-01, before the first release v0.2.0 of 2023-11-02",
    ),
    (f"xpkg.crossplane.io/{AR}:v0.7.1", None, "newer than crossfn knows"),
    (f"xpkg.crossplane.io/{AR}:v1.0.0", None, "running the package"),
    (f"xpkg.crossplane.io/{AR}:latest", "auto-ready", "latest: the newest release crossfn knows, v0.7.0"),
    # No version: the behaviour cannot be matched.
    (f"xpkg.crossplane.io/{AR}", None, "without a release tag"),
    (f"xpkg.crossplane.io/{AR}:v0.7.0-rc.1", None, "without a release tag"),
    (f"xpkg.crossplane.io/{AR}:v0.7.0@sha256:" + "b" * 64, "auto-ready", "v0.7.0"),
    (f"xpkg.crossplane.io/{AR}@sha256:" + "a" * 64, None, "function-auto-ready@sha256:"),
    # Not the upstream package: forks, look-alikes, other organisations.
    ("xpkg.crossplane.io/example/function-auto-ready:v0.7.0", "-", ""),
    ("xpkg.crossplane.io/crossplane/function-patch-and-transform:v0.10.8", "-", ""),
    ("ghcr.io/mirror/crossplane-contrib/function-auto-ready:v0.7.0", "-", ""),
    ("xpkg.crossplane.io/crossplane-contrib/function-auto-ready-fork:v0.7.0", "-", ""),
    ("function-auto-ready:v0.7.0", "-", ""),
    ("xpkg.crossplane.io/crossplane-contrib/function-shell:v0.3.0", "-", ""),
    # function-go-templating: each release runs as the group that behaves alike.
    (
        "xpkg.crossplane.io/crossplane-contrib/function-go-templating:v0.11.2",
        "go-templating@v0.11.1",
        "v0.11.1 to v0.11.4, built with Go 1.24",
    ),
    (
        "xpkg.upbound.io/crossplane-contrib/function-go-templating:v0.12.1",
        "go-templating",
        "v0.12.0 to v0.12.2",
    ),
    (
        "xpkg.upbound.io/crossplane-contrib/function-go-templating:v0.2.1",
        "go-templating@v0.2.0",
        "v0.2.0 to v0.2.1",
    ),
    (
        "xpkg.upbound.io/crossplane-contrib/function-go-templating:v0.10.1",
        "go-templating@v0.9.0",
        "v0.9.0 to v0.10.1",
    ),
    ("xpkg.upbound.io/crossplane-contrib/function-go-templating:v0.13.0", None, "v0.2.0 to v0.12.2"),
    (
        "xpkg.upbound.io/crossplane-contrib/function-go-templating:v0.0.0-20240801000000-abcdefabcdef",
        "go-templating@v0.5.0",
        "a build of 2024-08-01, after v0.5.0 of 2024-07-30",
    ),
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


def test_auto_ready_emulations() -> None:
    """v0.5.2 and earlier read the Ready condition only; v0.6.x added the per-kind checks."""
    assert functions.load("auto-ready@v0.5.2") is auto_ready.compose_ready_condition_only
    assert functions.load("auto-ready@v0.6.0") is auto_ready.compose_health_checks


def test_pt_emulations_behave_as_their_release() -> None:
    """Each patch-and-transform span runs the built-in as a release the span holds."""
    for span in patch_and_transform_upstream().spans:
        obj = functions.load(span.key)
        assert isinstance(obj, patch_and_transform.PatchAndTransform)
        assert span.holds(obj.release.version), span


def patch_and_transform_upstream() -> _registry.Upstream:
    return next(u for u in functions.upstreams() if u.repo == "function-patch-and-transform")


FAKE = _registry.Upstream(
    org="crossplane-contrib",
    repo="function-fake",
    objects={"fake": "m:compose", "fake@v0.1.0": "m:old"},
    spans=(
        _registry.Span("v0.1.0", "v0.2.0", "fake@v0.1.0", "v0.1.0"),
        _registry.Span("v0.3.0", "", "fake", "v0.3.0"),
    ),
    other="v0.2.x differs",
    releases=(
        _registry.Release("v0.1.0", "2023-11-02"),
        _registry.Release("v0.2.0", "2024-01-10"),
        _registry.Release("v0.2.9", "2024-07-01"),
        _registry.Release("v0.3.0", "2024-06-01"),
    ),
)

# (tag, matched version or None, words in how it was matched)
MATCHES = [
    ("v0.2.5", (0, 2, 5), ""),
    ("v0.2.5+build.7", (0, 2, 5), ""),
    ("latest", (0, 3, 0), "latest: the newest release crossfn knows, v0.3.0 of 2024-06-01"),
    # A pseudo-version of a build: the release it follows by date.
    ("v0.0.0-20240115093000-cdb49945da4e", (0, 2, 0), "a build of 2024-01-15, after v0.2.0 of 2024-01-10"),
    ("v0.0.0-20240110000000-cdb49945da4e", (0, 2, 0), "after v0.2.0"),
    ("v0.2.1-0.20240701093000-cdb49945da4e", (0, 3, 0), "after v0.3.0"),
    ("v0.3.0-rc.1.0.20240520093000-cdb49945da4e", (0, 2, 0), "a build of 2024-05-20"),
    ("v0.0.0-20231101231317-cdb49945da4e", (0, 1, 0), "before the first release v0.1.0 of 2023-11-02"),
    # A release of an older branch published after a newer release: a later build is the newer one.
    ("v0.0.0-20240801000000-cdb49945da4e", (0, 3, 0), "after v0.3.0 of 2024-06-01"),
    # Nothing to match.
    ("v0.3.0-rc.1", None, ""),
    ("main", None, ""),
    ("v0.0.0-2024011509300-cdb49945da4e", None, ""),
    ("v0.0.0-20240115093000-CDB49945DA4E", None, ""),
]


@pytest.mark.parametrize(("tag", "want", "how"), MATCHES, ids=[m[0] for m in MATCHES])
def test_match(tag: str, want: tuple[int, int, int] | None, how: str) -> None:
    m = FAKE.match(tag)
    if want is None:
        assert m is None
        return
    assert m is not None
    assert m.version == want
    assert how in m.how
    assert (m.how == "") == (how == "")


@pytest.mark.parametrize(
    ("version", "want"),
    [
        ((0, 1, 0), "fake@v0.1.0"),
        ((0, 1, 9), "fake@v0.1.0"),
        ((0, 2, 0), None),
        ((0, 3, 0), "fake"),
        ((7, 0, 0), "fake"),
    ],
)
def test_spans(version: tuple[int, int, int], want: str | None) -> None:
    span = FAKE.span(version)
    assert (span.key if span else None) == want


def test_no_releases_no_latest() -> None:
    """Without a list of releases, ``latest`` and pseudo-versions cannot be matched: the package runs."""
    bare = dataclasses.replace(FAKE, releases=())
    assert bare.match("latest") is None
    assert bare.match("v0.0.0-20240115093000-cdb49945da4e") is None


def test_every_upstream_is_consistent() -> None:
    """Every span names an object; releases are release tags in version order, with ISO dates."""
    for u in functions.upstreams():
        for span in u.spans:
            assert span.key in u.objects, (u.repo, span)
        assert [r.version for r in u.releases] == sorted(r.version for r in u.releases), u.repo
        for r in u.releases:
            assert len(r.date) == 10 and r.date[4] == r.date[7] == "-", (u.repo, r)
