"""OCI and git sources run offline from the KCL package cache: where each is found, which copy an unversioned one takes, refusals."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from kcl_support import pool_limits, request, run

from crossfn import errors
from crossfn.functions import kcl
from crossfn.functions.kcl import _cache
from crossfn.proto.v1 import run_function_pb2 as fnv1

limits = pytest.fixture(scope="module")(pool_limits)

REPO = "oci/ghcr.io/kcl-lang/net"


def _module(cache: Path, where: str, version: str = "0.0.1") -> Path:
    """A module directory at ``where`` in the cache, its ``kcl.mod`` saying ``version``."""
    d = cache / where
    d.mkdir(parents=True, exist_ok=True)
    (d / "kcl.mod").write_text(f'[package]\nname = "net"\nversion = "{version}"\n')
    return d


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("KCL_PKG_PATH", str(tmp_path))
    return tmp_path


# (cache layout: directory -> kcl.mod version, source, directory that runs, note's version or "" for none, reason)
OCI_FOUND = [
    pytest.param({f"{REPO}/0.0.1": "0.0.1"}, "oci://ghcr.io/kcl-lang/net:0.0.1", f"{REPO}/0.0.1", "",
                 "kcl mod pull --tag puts a tag under the repository's directory", id="PulledTag"),
    pytest.param({"net_0.0.1": "0.0.1"}, "oci://ghcr.io/kcl-lang/net:0.0.1", "net_0.0.1", "",
                 "kcl mod add keeps a dependency as <name>_<tag>", id="AddedTag"),
    pytest.param({f"{REPO}/0.0.1": "0.0.1", "net_0.0.1": "0.0.9"}, "oci://ghcr.io/kcl-lang/net:0.0.1",
                 f"{REPO}/0.0.1", "", "the pulled copy is looked at first", id="PulledBeforeAdded"),
    pytest.param({f"{REPO}/v2": "2.0.0"}, "oci://ghcr.io/kcl-lang/net?tag=v2", f"{REPO}/v2", "",
                 "?tag= names the tag as kcl run's --tag does", id="QueryTag"),
    pytest.param({f"{REPO}/0.0.1": "0.0.1", f"{REPO}/0.0.10": "0.0.10", f"{REPO}/0.0.9": "0.0.9"},
                 "oci://ghcr.io/kcl-lang/net", f"{REPO}/0.0.10", "0.0.10",
                 "no tag: the newest tag by version order, not name order", id="NewestPulledTag"),
    pytest.param({REPO: "0.0.2", f"{REPO}/0.0.1": "0.0.1"}, "oci://ghcr.io/kcl-lang/net", REPO, "0.0.2",
                 "a pull without --tag leaves the registry's newest at the repository's directory, its kcl.mod "
                 "version says which", id="UntaggedPull"),
    pytest.param({"net_1.0.0-rc1": "1.0.0-rc1", "net_0.9.0": "0.9.0", "net_1.0.0": "1.0.0"},
                 "oci://ghcr.io/kcl-lang/net", "net_1.0.0", "1.0.0",
                 "a release is newer than its prerelease", id="NewestAdded"),
    pytest.param({f"{REPO}/latest": "9.9.9", f"{REPO}/0.1.0": "0.1.0"}, "oci://ghcr.io/kcl-lang/net",
                 f"{REPO}/0.1.0", "0.1.0", "kpm never takes a tag named latest for the newest version", id="LatestTagIgnored"),
]  # fmt: skip


@pytest.mark.parametrize(("layout", "source", "found", "noted", "reason"), OCI_FOUND)
def test_oci_source_found(  # noqa: PLR0917 -- pytest passes fixtures and parameters by position
    cache: Path, layout: dict[str, str], source: str, found: str, noted: str, reason: str
) -> None:
    for where, version in layout.items():
        _module(cache, where, version)
    module = _cache.find_oci(source)
    assert module.path == cache / found, reason
    if noted:
        assert module.note == (
            f'KCL source "{source}" names no tag: function-kcl runs the registry\'s newest, which built-in functions '
            f"cannot ask for; ran {noted}, the newest version in the KCL package cache ({found})"
        ), reason
    else:
        assert module.note == "", reason


# (source, the error after 'cannot fetch KCL source "<source>": ', reason)
OCI_REFUSED = [
    pytest.param("oci://ghcr.io/kcl-lang/net:0.0.1",
                 "built-in functions do not reach the network and the KCL package cache {cache} holds no copy of it "
                 "(looked in {cache}/oci/ghcr.io/kcl-lang/net/0.0.1 and {cache}/net_0.0.1); vendor it with "
                 '"mkdir -p {cache} && cd {cache} && kcl mod pull oci://ghcr.io/kcl-lang/net --tag 0.0.1"',
                 "a tag the cache does not hold names both places and the pull", id="TagMissing"),
    pytest.param("oci://ghcr.io/kcl-lang/net",
                 "built-in functions do not reach the network and the KCL package cache {cache} holds no copy of it "
                 "(no version in {cache}/oci/ghcr.io/kcl-lang/net or {cache}/net_<version>); vendor it with "
                 '"mkdir -p {cache} && cd {cache} && kcl mod pull oci://ghcr.io/kcl-lang/net"',
                 "no version at all", id="NoVersion"),
    pytest.param("oci://ghcr.io/../../etc", 'its repository "../../etc" is not an OCI repository name',
                 "a repository cannot climb out of the cache", id="RepositoryTraversal"),
    pytest.param("oci://ghcr.io/kcl-lang/net:../../x", 'its tag "../../x" is not an OCI tag (function-kcl reads all '
                 'after the first ":" as the tag)', "a tag cannot climb out of the cache", id="TagTraversal"),
    pytest.param("oci://ghcr.io/kcl-lang/net:v1?tag=v2", 'its tag "v1?tag=v2" is not an OCI tag (function-kcl reads '
                 'all after the first ":" as the tag)', "all after the first colon is the tag, a query too",
                 id="ColonTagTakesAll"),
    pytest.param("oci://user@ghcr.io/kcl-lang/net", 'its registry "ghcr.io" is not a host name',
                 "credentials in the registry are refused", id="UserInfo"),
    pytest.param("oci://ghcr.io/kcl-lang/net?digest=sha256", 'crossfn reads only tag offline, not the parameter "digest"',
                 "a parameter crossfn cannot honour is refused, not ignored", id="UnknownParameter"),
]  # fmt: skip


@pytest.mark.parametrize(("source", "error", "reason"), OCI_REFUSED)
def test_oci_source_refused(cache: Path, source: str, error: str, reason: str) -> None:
    with pytest.raises(errors.FunctionInputError) as exc:
        _cache.find_oci(source)
    assert str(exc.value) == f'cannot fetch KCL source "{source}": ' + error.format(cache=cache), reason


GIT = "git/github.com/kcl-lang/modules"

# (directory of the module in the cache, source, note or "", reason)
GIT_FOUND = [
    pytest.param(f"{GIT}/v0.1.0/net", "github.com/kcl-lang/modules//net?ref=v0.1.0", "",
                 "go-getter's // separates the subdirectory; the ref is a directory of its own", id="DoubleSlashSubdirectory"),
    pytest.param(f"{GIT}/v0.1.0/net", "git::https://github.com/kcl-lang/modules.git//net?ref=v0.1.0", "",
                 "a forced git URL, .git dropped", id="ForcedHttps"),
    pytest.param(f"{GIT}/v0.1.0/net", "git::git@github.com:kcl-lang/modules.git//net?ref=v0.1.0&depth=1", "",
                 "an scp-like address; depth changes only how it is fetched", id="ScpLike"),
    pytest.param(f"{GIT}/release/1/net", "github.com/kcl-lang/modules//net?ref=release/1", "",
                 "a ref with slashes is nested directories", id="SlashedRef"),
    pytest.param(f"{GIT}/net", "github.com/kcl-lang/modules/net",
                 'KCL source "github.com/kcl-lang/modules/net" names no ref: function-kcl clones the head of the '
                 "repository's default branch, which built-in functions cannot fetch; ran the copy in the KCL package "
                 f"cache ({GIT}/net), as a kcl mod pull without a ref left it",
                 "no ref: the copy a pull without a ref left, with a note", id="NoRef"),
]  # fmt: skip


@pytest.mark.parametrize(("found", "source", "note", "reason"), GIT_FOUND)
def test_git_source_found(cache: Path, found: str, source: str, note: str, reason: str) -> None:
    _module(cache, found)
    module = _cache.find_git(source)
    assert (module.path, module.note) == (cache / found, note), reason


def test_git_source_without_kcl_mod_runs_its_k_files(cache: Path) -> None:
    """A directory of ``.k`` files is a program even without a ``kcl.mod`` (kcl run runs the directory)."""
    d = cache / GIT / "v1" / "net"
    d.mkdir(parents=True)
    (d / "main.k").write_text("a = 1\n")
    assert _cache.find_git("github.com/kcl-lang/modules//net?ref=v1").path == d


# (source, the error after 'cannot fetch KCL source "<source>": ', reason)
GIT_REFUSED = [
    pytest.param("github.com/kcl-lang/modules//net?ref=v0.1.0",
                 "built-in functions do not reach the network and the KCL package cache {cache} holds no copy of it "
                 "(looked in {cache}/git/github.com/kcl-lang/modules/v0.1.0/net); vendor it with "
                 '"mkdir -p {cache} && cd {cache} && kcl mod pull net --git https://github.com/kcl-lang/modules '
                 '--tag v0.1.0"', "a tag ref is pulled with --tag", id="TagMissing"),
    pytest.param("github.com/kcl-lang/modules?ref=3ffd351625b00e723ed2d205d5629b0f50baf09b",
                 "built-in functions do not reach the network and the KCL package cache {cache} holds no copy of it "
                 "(looked in {cache}/git/github.com/kcl-lang/modules/3ffd351625b00e723ed2d205d5629b0f50baf09b); "
                 'vendor it with "mkdir -p {cache} && cd {cache} && kcl mod pull --git '
                 'https://github.com/kcl-lang/modules --commit 3ffd351625b00e723ed2d205d5629b0f50baf09b"',
                 "a commit ref is pulled with --commit", id="CommitMissing"),
    pytest.param("github.com/kcl-lang", "it names no repository: write <host>/<owner>/<repository>",
                 "an owner alone is no repository", id="NoRepository"),
    pytest.param("github.com/../../etc", 'its repository "../.." is not a path of plain names',
                 "a repository cannot climb out of the cache", id="RepositoryTraversal"),
    pytest.param("github.com/kcl-lang/modules//../../x", 'its subdirectory "../../x" is not a path of plain names',
                 "a subdirectory cannot climb out of the cache", id="SubdirectoryTraversal"),
    pytest.param("github.com/kcl-lang/modules?ref=../../x", 'its ref "../../x" is not a path of plain names',
                 "a ref cannot climb out of the cache", id="RefTraversal"),
    pytest.param("github.com/kcl-lang/modules/net?ref=v1",
                 "go-getter reads the query as part of the subdirectory's name; write "
                 "github.com/kcl-lang/modules//net?ref=v1", "go-getter's own reading of this form", id="QueryInSubdirectory"),
    pytest.param("git::file:///etc/x", 'crossfn reads git sources over https, http, ssh or git, not "file"',
                 "a local file URL is no remote repository", id="FileScheme"),
    pytest.param("github.com/kcl-lang/modules?sshkey=a&foo=b", 'crossfn reads only ref, depth, sshkey offline, not the '
                 'parameter "foo"', "an unknown parameter is refused, not ignored", id="UnknownParameter"),
]  # fmt: skip


@pytest.mark.parametrize(("source", "error", "reason"), GIT_REFUSED)
def test_git_source_refused(cache: Path, source: str, error: str, reason: str) -> None:
    with pytest.raises(errors.FunctionInputError) as exc:
        _cache.find_git(source)
    assert str(exc.value) == f'cannot fetch KCL source "{source}": ' + error.format(cache=cache), reason


# (environment, platform, cache relative to home or absolute marker, reason)
ROOTS = [
    pytest.param({"KCL_PKG_PATH": "rel/cache"}, "linux", "CWD/rel/cache", "KCL_PKG_PATH, made absolute", id="PkgPath"),
    pytest.param({"XDG_DATA_HOME": "/data"}, "linux", "/data/kcl/modules", "kpm's default under XDG_DATA_HOME", id="Xdg"),
    pytest.param({"XDG_DATA_HOME": "relative"}, "linux", "HOME/.local/share/kcl/modules",
                 "a relative XDG_DATA_HOME is ignored, as the XDG spec says", id="XdgRelative"),
    pytest.param({}, "linux", "HOME/.local/share/kcl/modules", "the XDG default", id="Default"),
    pytest.param({}, "darwin", "HOME/Library/kcl/modules", "macOS's data directory", id="Darwin"),
]  # fmt: skip


@pytest.mark.parametrize(("env", "platform", "want", "reason"), ROOTS)
def test_cache_root(  # noqa: PLR0917 -- pytest passes fixtures and parameters by position
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    env: dict[str, str],
    platform: str,
    want: str,
    reason: str,
) -> None:
    for name in ("KCL_PKG_PATH", "XDG_DATA_HOME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "platform", platform)
    expected = want.replace("CWD", str(tmp_path)).replace("HOME", str(tmp_path / "home"))
    assert _cache.root() == Path(expected), reason


def test_untagged_oci_source_runs_newest_with_a_normal_result(limits: kcl.Limits, cache: Path) -> None:
    """The function runs the cached module, its ``kcl.mod`` dependencies from the cache, and says which version ran."""
    d = _module(cache, f"{REPO}/0.0.2", "0.0.2")
    (d / "kcl.mod").write_text(
        '[package]\nname = "net"\nversion = "0.0.2"\n\n[dependencies]\nlib = "1.0.0"\n'
    )
    (d / "main.k").write_text(
        'import lib\nitems = [{apiVersion: "v1", kind: "A", metadata.name = lib.prefix}]\n'
    )
    lib = cache / "lib_1.0.0"
    lib.mkdir()
    (lib / "names.k").write_text('prefix = "from-lib"\n')
    rsp = run(
        kcl.Kcl(limits=limits), request("oci://ghcr.io/kcl-lang/net", xr={"apiVersion": "v1", "kind": "X"})
    )
    assert [(r.severity, r.message) for r in rsp.results] == [
        (
            fnv1.SEVERITY_NORMAL,
            'KCL source "oci://ghcr.io/kcl-lang/net" names no tag: function-kcl runs the registry\'s newest, which '
            f"built-in functions cannot ask for; ran 0.0.2, the newest version in the KCL package cache ({REPO}/0.0.2)",
        )
    ]
    assert list(rsp.desired.resources) == ["from-lib"]


def test_https_source_is_one_line(limits: kcl.Limits, cache: Path) -> None:
    rsp = run(
        kcl.Kcl(limits=limits), request("https://example.com/x.k", xr={"apiVersion": "v1", "kind": "X"})
    )
    assert [r.message for r in rsp.results] == [
        'failed to run kcl function pipelines: cannot fetch KCL source "https://example.com/x.k": built-in functions '
        "do not reach the network; download it and set spec.source to the path of the file"
    ]
