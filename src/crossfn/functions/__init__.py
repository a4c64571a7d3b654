"""Built-in generic functions, written with the crossfn SDK only.

:data:`BUILTINS` maps each built-in's short name to the ``module:object`` that
implements it (``crossfn function serve <short name>`` serves one).

A built-in stands in for a ``Function`` only when its ``spec.package`` is the
upstream package *and* that version behaves as the built-in does; the one rule
is :func:`resolve`, which ``crossfn render`` and ``crossfn controller`` both
call. A :class:`Decision` says what runs and gives the line that tells the user.

==========================  =========================  ==========================================
package (any registry)      version                    what runs
==========================  =========================  ==========================================
``crossplane-contrib/``     v0.10.8 to v0.10.x         the built-in (it reproduces v0.10.8)
function-patch-and-         other, or no tag           the package: older versions differ (e.g.
transform                                              no connection Secret for a v2 XR)
``crossplane-contrib/``     v0.7.0                     the built-in (health checks and CEL rules)
function-auto-ready         v0.1.0 to v0.6.0           the built-in as that version: ``Ready``
                                                       condition only, input ignored
                            other, or no tag           the package: v0.6.x added per-kind health
                                                       checks in steps; later versions check more
                                                       kinds (Role, RoleBinding, ...)
``crossfn/``                any                        the built-in (crossfn's own function)
function-starlark
==========================  =========================  ==========================================

"The package" means what Crossplane does: render runs its image (the Docker
runtime), the controller calls its FunctionRevision.
"""

from __future__ import annotations

import dataclasses
import re

from crossfn.sdk import _loader

__all__ = ["BUILTINS", "EMULATIONS", "Decision", "load", "ref", "resolve"]

BUILTINS: dict[str, str] = {
    "patch-and-transform": "crossfn.functions.patch_and_transform:compose",
    "auto-ready": "crossfn.functions.auto_ready:compose",
    "starlark": "crossfn.functions.starlark:compose",
}

EMULATIONS: dict[str, str] = {
    "auto-ready@v0.6.0": "crossfn.functions.auto_ready:compose_ready_condition_only",
}
"""Built-ins run as an older upstream version behaved; keys are what :attr:`Decision.builtin` names."""

_ORG = {
    "function-patch-and-transform": "crossplane-contrib",
    "function-auto-ready": "crossplane-contrib",
    "function-starlark": "crossfn",
}
_RELEASE = re.compile(r"v(\d+)\.(\d+)\.(\d+)")
"""A release tag; a pre-release (``v0.7.0-rc.1``) is not the release it precedes."""


@dataclasses.dataclass(frozen=True)
class Decision:
    """What runs for one upstream package: a built-in (``builtin`` is its key) or the package itself (None)."""

    package: str
    repository: str
    version: str
    builtin: str | None
    line: str
    """One line for stderr: what runs, and why when it is not the built-in ("" for crossfn's own packages)."""


def _split(package: str) -> tuple[list[str], str, str]:
    """``(path, tag, digest)`` of an OCI reference; the path keeps its registry host, if any."""
    rest, _, digest = package.partition("@")
    path, _, last = rest.rpartition("/")
    name, _, tag = last.partition(":")
    return [*(path.split("/") if path else []), name], tag, digest


def _is_host(part: str) -> bool:
    """Docker's rule: a first path element with a dot or a port, or ``localhost``, is a registry."""
    return "." in part or ":" in part or part == "localhost"


def _version(tag: str) -> tuple[int, int, int] | None:
    m = _RELEASE.fullmatch(tag)
    return (int(m[1]), int(m[2]), int(m[3])) if m else None


def _auto_ready(v: tuple[int, int, int]) -> tuple[str | None, str]:
    if v == (0, 7, 0):
        return "auto-ready", "v0.7.0"
    if (0, 1, 0) <= v <= (0, 6, 0):
        return "auto-ready@v0.6.0", "v0.6.0 and earlier: the Ready condition only"
    return None, (
        "between v0.6.0 and v0.7.0 function-auto-ready added per-kind health checks in steps, and after v0.7.0 "
        "it checks more kinds, so the built-in (v0.7.0) may answer differently"
    )


def _patch_and_transform(v: tuple[int, int, int]) -> tuple[str | None, str]:
    if (0, 10, 8) <= v < (0, 11, 0):
        return "patch-and-transform", "v0.10.8"
    return None, "the built-in reproduces v0.10.8, and other versions behave differently"


def resolve(package: str) -> Decision | None:
    """The decision for a Function's ``spec.package``; None when it is no built-in's upstream package.

    ``xpkg.crossplane.io/crossplane-contrib/function-auto-ready:v0.7.0`` and
    the same on any other registry (or none) are auto-ready's package; a fork
    (another organisation) is not. A digest or a tag that is not a version
    cannot be matched to a behaviour, nor can a pre-release, so the package runs.
    """
    path, tag, digest = _split(package.strip())
    if len(path) > 2 and _is_host(path[0]):
        path = path[1:]
    if len(path) != 2 or _ORG.get(path[1]) != path[0]:
        return None
    repo = path[1]
    shown = f"{repo} {tag}" if tag else f"{repo}@{digest}" if digest else repo
    short = repo.removeprefix("function-")
    if repo == "function-starlark":
        return Decision(
            package, repo, tag, short, ""
        )  # crossfn's own package: nothing stands in for anything
    version = _version(tag)
    if version is None:
        return Decision(
            package, repo, tag, None,
            f"not running {shown} as the built-in {short}: without a release tag (vX.Y.Z) crossfn cannot tell "
            "whether the built-in behaves as it does; running the package",
        )  # fmt: skip
    key, behaves = (_auto_ready if repo == "function-auto-ready" else _patch_and_transform)(version)
    if key is None:
        return Decision(
            package,
            repo,
            tag,
            None,
            f"not running {shown} as the built-in {short}: {behaves}; running the package",
        )
    return Decision(
        package, repo, tag, key, f"running {shown} as the built-in {short} (behaves as {behaves})"
    )


def load(name: str) -> object:
    """Import built-in ``name`` (a key of :data:`BUILTINS`, or a :attr:`Decision.builtin`) and return its object.

    The modules are imported on first use, not when this package is, so a
    command that runs one built-in does not pay for the others (starlark's
    interpreter in particular). ``KeyError`` for a name that is not built in:
    callers decide with :func:`resolve` first.
    """
    return _loader.load(ref(name))


def ref(name: str) -> str:
    """The ``module:object`` of built-in ``name`` (as :func:`load` takes it)."""
    return BUILTINS.get(name) or EMULATIONS[name]
