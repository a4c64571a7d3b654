"""Built-in functions, written with the crossfn SDK only.

:data:`BUILTINS` maps each built-in's short name to the ``module:object`` that
implements it (``crossfn function serve <short name>`` serves one).

A built-in stands in for a ``Function`` only when its ``spec.package`` is the
upstream package *and* that version behaves as the built-in does; the one rule
is :func:`resolve`, which ``crossfn render`` and ``crossfn controller`` both
call. A :class:`Decision` says what runs and gives the line that tells the user.

Each built-in declares what it stands in for in a module of its own under
``crossfn.functions._releases`` (an ``UPSTREAM``, a
:class:`crossfn.functions._registry.Upstream`: the package, upstream's
releases, and the spans of releases each of its objects behaves as), data
only, so deciding imports no built-in;
``docs/functions.md`` tabulates them. "The package" means what Crossplane
does: render runs its image (the Docker runtime), the controller calls its
FunctionRevision.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
from collections.abc import Mapping

from crossfn.functions import _registry
from crossfn.functions._files import FileAccess, FileAccessError
from crossfn.sdk import _loader

__all__ = [
    "BUILTINS",
    "EMULATIONS",
    "Decision",
    "FileAccess",
    "FileAccessError",
    "load",
    "ref",
    "resolve",
    "runs_code",
    "upstreams",
]

_PACKAGES = (
    "patch_and_transform",
    "auto_ready",
    "starlark",
    "sequencer",
    "status_transformer",
    "python",
    "environment_configs",
    "extra_resources",
    "cel_filter",
    "dummy",
    "kcl",
    "go_templating",
)
"""The modules of ``crossfn.functions._releases``, one per built-in, each with an ``UPSTREAM``."""


def upstreams() -> tuple[_registry.Upstream, ...]:
    """Every built-in's declaration, in :data:`_PACKAGES` order."""
    return _UPSTREAMS


def _declarations() -> tuple[_registry.Upstream, ...]:
    out = []
    for name in _PACKAGES:
        module = importlib.import_module(f"crossfn.functions._releases.{name}")
        out.append(module.UPSTREAM)
    return tuple(out)


_UPSTREAMS = _declarations()
_BY_REPO: Mapping[tuple[str, str], _registry.Upstream] = {(u.org, u.repo): u for u in _UPSTREAMS}
_BY_BARE_NAME: Mapping[str, _registry.Upstream] = {
    u.repo: u for u in _UPSTREAMS if u.releases and not u.any_version
}
"""Upstream packages by repository name alone, as their own examples' Functions files name them."""

BUILTINS: dict[str, str] = {u.short: next(iter(u.objects.values())) for u in _UPSTREAMS}
"""Each built-in's short name (``crossfn function serve <name>``) and its ``module:object``."""

EMULATIONS: dict[str, str] = {
    key: obj for u in _UPSTREAMS for key, obj in u.objects.items() if key not in BUILTINS
}
"""Built-ins run as an older upstream version behaved; keys are what :attr:`Decision.builtin` names."""

_RUNS_CODE = frozenset(key for u in _UPSTREAMS if u.runs_code for key in u.objects)


@dataclasses.dataclass(frozen=True)
class Decision:
    """What runs for one upstream package: a built-in (``builtin`` is its key) or the package itself (None)."""

    package: str
    repository: str
    version: str
    builtin: str | None
    line: str
    """One line for stderr: what runs, and why when it is not the built-in ("" for crossfn's own packages)."""
    covered: str = ""
    """The versions of this package some built-in behaves as (``v0.1.4, v0.2.0 to v0.10.8``); "" for
    crossfn's own packages, which every version is."""


def _split(package: str) -> tuple[list[str], str, str]:
    """``(path, tag, digest)`` of an OCI reference; the path keeps its registry host, if any."""
    rest, _, digest = package.partition("@")
    path, _, last = rest.rpartition("/")
    name, _, tag = last.partition(":")
    return [*(path.split("/") if path else []), name], tag, digest


def _is_host(part: str) -> bool:
    """Docker's rule: a first path element with a dot or a port, or ``localhost``, is a registry."""
    return "." in part or ":" in part or part == "localhost"


@functools.lru_cache(maxsize=1024)
def resolve(package: str) -> Decision | None:
    """The decision for a Function's ``spec.package``; None when it is no built-in's upstream package.

    A pure function of ``package`` over the fixed release tables, so it is cached: the
    controller routes every function call through it.

    ``xpkg.crossplane.io/crossplane-contrib/function-auto-ready:v0.7.0`` and
    the same on any other registry (or none) are auto-ready's package; a fork
    (another organisation) is not. A digest, or a tag that cannot be matched
    to a release (``crossfn.functions._registry``), cannot be matched to a
    behaviour, so the package runs.
    """
    path, tag, digest = _split(package.strip())
    if len(path) > 2 and _is_host(path[0]):
        path = path[1:]
    if len(path) == 1 and not tag and not digest and path[0] in _BY_BARE_NAME:
        return _example_name(package, _BY_BARE_NAME[path[0]])
    if len(path) != 2:
        return None
    upstream = _BY_REPO.get((path[0], path[1]))
    if upstream is None:
        return None
    repo, short = upstream.repo, upstream.short
    if upstream.any_version:
        return Decision(
            package, repo, tag, short, ""
        )  # crossfn's own package: nothing stands in for anything
    covered = upstream.covered()
    shown = f"{repo} {tag}" if tag else f"{repo}@{digest}" if digest else repo
    match = upstream.match(tag) if tag else None
    if match is None:
        return Decision(
            package, repo, tag, None,
            f"not running {shown} as the built-in {short}: without a release tag (vX.Y.Z) crossfn cannot tell "
            "whether the built-in behaves as it does; running the package", covered,
        )  # fmt: skip
    how = f" ({match.how})" if match.how else ""
    span = upstream.span(match.version)
    if span is None:
        return Decision(
            package,
            repo,
            tag,
            None,
            f"not running {shown}{how} as the built-in {short}: {upstream.other}; running the package",
            covered,
        )
    return Decision(
        package,
        repo,
        tag,
        span.key,
        f"running {shown}{how} as the built-in {short} (behaves as {span.behaves})",
        covered,
    )


def _example_name(package: str, upstream: _registry.Upstream) -> Decision | None:
    """A package named only ``function-<name>``: what the function's own examples name (for a
    Development runtime); no image has that name, so it stands for the newest release crossfn knows."""
    newest = upstream.releases[-1]
    span = upstream.span(newest.version)
    if span is None:
        return None
    how = f"the name its own examples use: the newest release crossfn knows, {newest.tag} of {newest.date}"
    return Decision(
        package,
        upstream.repo,
        "",
        span.key,
        f"running {upstream.repo} ({how}) as the built-in {upstream.short} (behaves as {span.behaves})",
    )


def load(name: str, *, files: FileAccess | None = None) -> object:
    """Import built-in ``name`` (a key of :data:`BUILTINS`, or a :attr:`Decision.builtin`) and return its object.

    The modules are imported on first use, not when this package is, so a
    command that runs one built-in does not pay for the others (starlark's
    interpreter in particular). ``KeyError`` for a name that is not built in:
    callers decide with :func:`resolve` first.

    ``files`` is what the built-in may read of the process's files (the
    controller's: only beneath a directory the operator allows); ``None`` is
    whatever the process can, as in render. A built-in that reads files or runs
    a program (go-templating, kcl, python) then comes as a copy that keeps to it
    (its ``with_file_access``); the others read nothing and come as they are.
    """
    obj = _loader.load(ref(name))
    confine = getattr(obj, "with_file_access", None)
    if files is None or confine is None:
        return obj
    return confine(files)


def runs_code(name: str) -> bool:
    """Whether built-in ``name`` runs code from its input that crossfn cannot confine (``--no-exec`` refuses it)."""
    return name in _RUNS_CODE


def ref(name: str) -> str:
    """The ``module:object`` of built-in ``name`` (as :func:`load` takes it)."""
    return BUILTINS.get(name) or EMULATIONS[name]
