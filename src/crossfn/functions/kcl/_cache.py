"""The KCL package cache, read offline: where KCL's tooling keeps modules, and an OCI or git source's copy in it.

function-kcl fetches an ``oci://`` source with kpm (kcl-lang/kpm v0.12.8 in
v0.12.2) and a git source (``github.com/...``, ``gitlab.com/...``,
``bitbucket.org/...``, ``git::<url>``) with go-getter, every time it runs,
into a temporary directory. A built-in never reaches the network, so it runs
the copy KCL's own tooling left in the package cache instead:

* the cache is ``$KCL_PKG_PATH`` (made absolute), else kpm's default since
  v0.12.4: ``$XDG_DATA_HOME/kcl/modules`` (``~/.local/share/kcl/modules``;
  ``~/Library/kcl/modules`` on macOS);
* ``oci://<registry>/<repository>:<tag>`` (function-kcl reads everything after
  the first ``:`` as the tag; ``?tag=`` works too) is
  ``oci/<registry>/<repository>/<tag>``, where ``kcl mod pull
  oci://<registry>/<repository> --tag <tag>`` run in the cache puts it, or
  ``<repository's last name>_<tag>``, where kpm keeps a module it fetched as
  a dependency (``kcl mod add``);
* an OCI source without a tag is the newest version there (kpm's
  ``semver.LatestVersion`` over the tags found: each ``oci/<registry>/<repository>/<tag>``,
  ``oci/<registry>/<repository>`` itself, where a ``kcl mod pull`` without
  ``--tag`` puts the registry's newest, by its ``kcl.mod`` version, and each
  ``<name>_<tag>``), and says so in a :attr:`Module.note`: upstream asks the
  registry, which may have a newer tag;
* a git source ``<host>/<owner>/<repository>[/<subdirectory>][//<subdirectory>][?ref=<ref>]``
  (go-getter's reading) is ``git/<host>/<owner>/<repository>[/<ref>]/<subdirectory>``,
  where ``kcl mod pull <subdirectory> --git https://<host>/<owner>/<repository>
  [--tag|--branch|--commit <ref>]`` run in the cache puts it; without a ref
  (upstream clones the default branch's head) the copy a pull without a ref
  left, with a note.

Every part of a source becomes a path component only once it is a valid
registry, repository, tag, host or path name, so a source cannot name a
directory outside the cache (``oci://../..``, ``github.com/../../etc``).
"""

from __future__ import annotations

import dataclasses
import os
import re
import shlex
import sys
import tomllib
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

from crossfn import errors
from crossfn.gocompat import goversion, url

__all__ = ["Module", "find_git", "find_oci", "newest_dependency", "root"]

ENV = "KCL_PKG_PATH"
"""kpm's environment variable for the package cache."""

_HOST = re.compile(
    r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*(?::[0-9]+)?"
)
_OCI_REPOSITORY = re.compile(
    r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*"
)
_OCI_TAG = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,127}")
_SEGMENT = re.compile(r"[A-Za-z0-9._~@+-]+")
_SCP_LIKE = re.compile(r"([A-Za-z0-9._-]+)@([^:/]+):(.+)")
_COMMIT = re.compile(r"[0-9a-f]{7,40}")
_GIT_HOSTS = ("github.com/", "gitlab.com/", "bitbucket.org/")
_GIT_PARAMETERS = ("ref", "depth", "sshkey")
"""go-getter's git parameters: ``ref`` picks the content; ``depth`` and ``sshkey`` change only how it is fetched."""
_LATEST = "latest"
"""A tag kpm never takes for the newest version."""


@dataclasses.dataclass(frozen=True)
class Module:
    """A module directory in the cache; ``note`` says which copy ran when the source named no version ("" when it did)."""

    path: Path
    note: str = ""


def root() -> Path:
    """The package cache: ``$KCL_PKG_PATH`` made absolute, else kpm's default (``<XDG data home>/kcl/modules``)."""
    configured = os.environ.get(ENV)
    if configured:
        return Path(os.path.abspath(configured))
    if sys.platform == "darwin":
        data = Path.home() / "Library"
    else:
        xdg = os.environ.get("XDG_DATA_HOME", "")
        data = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".local" / "share"
    return data / "kcl" / "modules"


def _bad(source: str, why: str) -> errors.FunctionInputError:
    return errors.FunctionInputError(f"cannot fetch KCL source {errors.quote(source)}: {why}")


def _miss(source: str, cache: Path, looked: str, command: str) -> errors.FunctionInputError:
    where = shlex.quote(str(cache))
    return _bad(
        source,
        f"built-in functions do not reach the network and the KCL package cache {cache} holds no copy of it "
        f'({looked}); vendor it with "mkdir -p {where} && cd {where} && kcl mod pull {command}"',
    )


def _inside(cache: Path, *parts: str) -> Path:
    """``cache`` joined with validated names; refuses (as a bug) anything that would still leave it."""
    path = cache.joinpath(*parts)
    if not Path(os.path.normpath(path)).is_relative_to(os.path.normpath(cache)):
        raise errors.FunctionInputError(f"cannot use {path}: it is outside the KCL package cache {cache}")
    return path


def _parameters(source: str, raw_query: str, allowed: tuple[str, ...]) -> dict[str, str]:
    """The source's query as Go's ``url.Query().Get`` reads it; a parameter outside ``allowed`` is refused."""
    out: dict[str, str] = {}
    for key, value in urllib.parse.parse_qsl(raw_query, keep_blank_values=True):
        if key not in allowed:
            raise _bad(
                source,
                f"crossfn reads only {', '.join(allowed)} offline, not the parameter {errors.quote(key)}",
            )
        out.setdefault(key, value)
    return out


def _version(text: str) -> goversion.Version | None:
    if not text or text == _LATEST:
        return None
    try:
        return goversion.new_version(text)
    except errors.GoError:
        return None


def _mod_version(directory: Path) -> str:
    """The ``[package] version`` of a module's ``kcl.mod`` ("" when it has none or cannot be read)."""
    try:
        doc = tomllib.loads((directory / "kcl.mod").read_text())
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return ""
    package = doc.get("package")
    version = package.get("version") if isinstance(package, dict) else None
    return version if isinstance(version, str) else ""


def _is_module(directory: Path) -> bool:
    return (directory / "kcl.mod").is_file()


def _newest(candidates: Iterator[tuple[str, Path]]) -> tuple[str, Path] | None:
    """The candidate of the greatest version, the first of equal ones (kpm's ``semver.LatestVersion``)."""
    best: tuple[goversion.Version, str, Path] | None = None
    for tag, path in candidates:
        v = _version(tag)
        if v is not None and (best is None or v.compare(best[0]) > 0):
            best = (v, tag, path)
    return (best[1], best[2]) if best is not None else None


def _tagged(cache: Path, name: str) -> Iterator[tuple[str, Path]]:
    """Each ``<name>_<tag>`` module directory of the cache, in name order: kpm's store of fetched dependencies."""
    if not cache.is_dir():
        return
    for child in sorted(cache.iterdir()):
        tag = child.name.removeprefix(f"{name}_")
        if tag != child.name and _OCI_TAG.fullmatch(tag) and _is_module(child):
            yield tag, child


def newest_dependency(name: str) -> tuple[str, Path] | None:
    """The newest ``<name>_<version>`` module of the cache, as (version, directory); None when it has none."""
    return _newest(_tagged(root(), name))


def find_oci(source: str) -> Module:
    """The cached copy of ``oci://<registry>/<repository>[:<tag>]``; raises a one-line input error without one."""
    reference, _, tag = source.removeprefix("oci://").partition(":")
    try:
        parsed = url.parse(f"oci://{reference}")
    except errors.GoError as exc:
        raise _bad(source, str(exc)) from exc
    registry, repository = parsed.host, parsed.path.removeprefix("/")
    query = _parameters(source, parsed.raw_query, ("tag",))
    tag = tag or query.get("tag", "")  # the ":" tag wins, as kcl run's --tag does
    if not _HOST.fullmatch(registry) or parsed.user is not None:
        raise _bad(source, f"its registry {errors.quote(registry)} is not a host name")
    if not _OCI_REPOSITORY.fullmatch(repository):
        raise _bad(source, f"its repository {errors.quote(repository)} is not an OCI repository name")
    if tag and not _OCI_TAG.fullmatch(tag):
        raise _bad(source, f"its tag {errors.quote(tag)} is not an OCI tag (function-kcl reads all after the first "
                           '":" as the tag)')  # fmt: skip
    cache = root()
    pulled = _inside(cache, "oci", registry, *repository.split("/"))
    name = repository.rsplit("/", 1)[-1]
    command = f"oci://{registry}/{repository}"
    if tag:
        for path in (_inside(pulled, tag), _inside(cache, f"{name}_{tag}")):
            if _is_module(path):
                return Module(path)
        raise _miss(
            source, cache, f"looked in {pulled / tag} and {cache / f'{name}_{tag}'}", f"{command} --tag {tag}"
        )

    def candidates() -> Iterator[tuple[str, Path]]:
        if pulled.is_dir():
            for child in sorted(pulled.iterdir()):
                if _OCI_TAG.fullmatch(child.name) and _is_module(child):
                    yield child.name, child
        if _is_module(pulled):
            yield _mod_version(pulled), pulled
        yield from _tagged(cache, name)

    found = _newest(candidates())
    if found is None:
        raise _miss(source, cache, f"no version in {pulled} or {cache / f'{name}_<version>'}", command)
    version, path = found
    return Module(
        path,
        f"KCL source {errors.quote(source)} names no tag: function-kcl runs the registry's newest, which built-in "
        f"functions cannot ask for; ran {version}, the newest version in the KCL package cache "
        f"({path.relative_to(cache)})",
    )


@dataclasses.dataclass(frozen=True)
class _Git:
    host: str
    repository: tuple[str, ...]
    subdirectory: tuple[str, ...]
    ref: str


def _source_dir_subdir(src: str) -> tuple[str, str]:
    """go-getter's ``SourceDirSubdir``: ``<source>//<subdirectory>?<query>`` as (``<source>?<query>``, subdirectory)."""
    stop = src.find("?") if "?" in src else len(src)
    scheme = src[:stop].find("://")
    offset = scheme + 3 if scheme > -1 else 0
    idx = src[offset:stop].find("//")
    if idx == -1:
        return src, ""
    idx += offset
    subdir, src = src[idx + 2 :], src[:idx]
    if "?" in subdir:
        subdir, query = subdir.split("?", 1)
        src += f"?{query}"
    return src, subdir


def _names(source: str, what: str, text: str) -> tuple[str, ...]:
    """``text``'s ``/``-separated names, each a plain file name (never ``.`` or ``..``)."""
    parts = tuple(p for p in text.split("/") if p)
    for p in parts:
        if p in (".", "..") or not _SEGMENT.fullmatch(p):
            raise _bad(source, f"its {what} {errors.quote(text)} is not a path of plain names")
    return parts


def _parse_git(source: str) -> _Git:
    """A git source as go-getter reads it: host, repository path, subdirectory and ``ref``."""
    forced = source.startswith("git::")
    src, subdir = _source_dir_subdir(source.removeprefix("git::"))
    if forced:
        scp = _SCP_LIKE.fullmatch(src.split("?", 1)[0])
        if scp is not None and "://" not in src:
            host, path, query = scp[2], scp[3], src.partition("?")[2]
        else:
            try:
                parsed = url.parse(src)
            except errors.GoError as exc:
                raise _bad(source, str(exc)) from exc
            if parsed.scheme not in ("https", "http", "ssh", "git"):
                raise _bad(
                    source,
                    f"crossfn reads git sources over https, http, ssh or git, not {errors.quote(parsed.scheme)}",
                )
            host, path, query = parsed.host, parsed.path, parsed.raw_query
        detected = ""
    else:
        path, _, query = src.partition("?")
        parts = path.split("/")
        if len(parts) < 3:
            raise _bad(source, "it names no repository: write <host>/<owner>/<repository>")
        if len(parts) > 3 and query:
            raise _bad(source, "go-getter reads the query as part of the subdirectory's name; write "
                               f"{'/'.join(parts[:3])}//{'/'.join(parts[3:])}?{query}")  # fmt: skip
        host, path, detected = parts[0], "/".join(parts[1:3]), "/".join(parts[3:])
    if not _HOST.fullmatch(host):
        raise _bad(source, f"its host {errors.quote(host)} is not a host name")
    repository = _names(source, "repository", path.removesuffix("/").removesuffix(".git"))
    if not repository:
        raise _bad(source, "it names no repository")
    ref = _parameters(source, query, _GIT_PARAMETERS).get("ref", "")
    return _Git(
        host=host,
        repository=repository,
        subdirectory=_names(source, "subdirectory", "/".join(p for p in (detected, subdir) if p)),
        ref="/".join(_names(source, "ref", ref)),
    )


def find_git(source: str) -> Module:
    """The cached copy of a git source; raises a one-line input error without one."""
    g = _parse_git(source)
    cache = root()
    at = (*g.ref.split("/"),) if g.ref else ()
    path = _inside(cache, "git", g.host, *g.repository, *at, *g.subdirectory)
    if not (path.is_dir() and (_is_module(path) or any(path.glob("*.k")))):
        repository = f"https://{g.host}/{'/'.join(g.repository)}"
        command = (
            f"{g.subdirectory[0]} --git {repository}" if len(g.subdirectory) == 1 else f"--git {repository}"
        )
        if g.ref:
            command += f" --{'commit' if _COMMIT.fullmatch(g.ref) else 'tag'} {g.ref}"
        raise _miss(source, cache, f"looked in {path}", command)
    if g.ref:
        return Module(path)
    return Module(
        path,
        f"KCL source {errors.quote(source)} names no ref: function-kcl clones the head of the repository's "
        f"default branch, which built-in functions cannot fetch; ran the copy in the KCL package cache "
        f"({path.relative_to(cache)}), "
        "as a kcl mod pull without a ref left it",
    )
