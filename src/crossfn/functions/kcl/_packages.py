"""A KCL module's ``kcl.mod`` as kpm reads it: its entry files and its dependencies, resolved offline.

kcl-lib runs a program but does not fetch or locate packages: the caller
names each external package's directory. A dependency (``kcl.mod``'s
``[dependencies]``, or the input's ``spec.dependencies``) is found when it is

* a path dependency (``models = { path = "./model" }``), relative to the
  ``kcl.mod`` that declares it;
* supplied by the caller (``supplied``: the models crossfn generates for an
  embedded project function whose ``model`` link is missing);
* already in the KCL package cache (:mod:`._cache`), where kpm keeps the
  packages it fetched (``kcl mod add``): ``<name>_<version>``, the version
  being a registry package's ``version``, an OCI package's ``tag`` or a git
  package's ``tag``, ``commit`` or ``branch``. A registry or OCI package
  without one is the newest version there, with a note saying so (kpm asks
  the registry); a git package without one is refused (kpm takes the
  default branch's head, which no cached name says).

Anything else needs the network, which a built-in function never reaches: one
:class:`crossfn.errors.FunctionInputError` names the dependency, the directory
crossfn looked in and how to vendor it. Dependencies of dependencies are
followed through their own ``kcl.mod``. Every path read passes through
``allowed`` (the function's file access: in the controller, only beneath the
directory the operator allows), which returns it or raises. ``kcl.mod.lock`` is not read: kpm
resolves from ``kcl.mod`` too, and the lock only records checksums.

A module directory runs its ``[profile] entries`` (relative to it) when it
names any, else the directory, as ``kcl run`` runs a package. The profile's
other options and a ``.yaml`` entry (a settings file kpm merges in) are not
applied; a ``.yaml`` entry is refused rather than ignored.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from crossfn import errors
from crossfn.functions.kcl import _cache

__all__ = ["Allowed", "entries", "from_kcl_mod", "from_text"]

Allowed = Callable[[Path, str], Path]
"""``allowed(path, what)``: the path to read, or FunctionInputError naming ``what`` when it may not be read."""


def _anything(path: Path, what: str) -> Path:
    return path


def _version(spec: object) -> str:
    """The version in kpm's cache name ``<name>_<version>`` (``GenPathSuffix``): a git package's ref, an OCI one's tag."""
    if isinstance(spec, str):
        return spec
    if not isinstance(spec, Mapping):
        return ""
    keys = (
        ("tag", "commit", "branch")
        if "git" in spec
        else ("tag",)
        if "oci" in spec or "repo" in spec
        else ("version",)
    )
    return next((str(spec[k]) for k in keys if isinstance(spec.get(k), str) and spec[k]), "")


def _where(spec: object) -> str:
    if isinstance(spec, Mapping):
        for key in ("oci", "git"):
            value = spec.get(key)
            if isinstance(value, str):
                return f"{key} {value}"
    return "the KCL package registry"


def _add_command(name: str, spec: object, version: str) -> str:
    """The ``kcl mod add`` that fetches the package into the cache."""
    if isinstance(spec, Mapping) and isinstance(spec.get("oci"), str):
        return f"kcl mod add {spec['oci']}" + (f" --tag {version}" if version else "")
    if isinstance(spec, Mapping) and isinstance(spec.get("git"), str):
        flag = next((k for k in ("tag", "commit", "branch") if spec.get(k) == version), "tag")
        return f"kcl mod add --git {spec['git']}" + (f" --{flag} {version}" if version else "")
    return f"kcl mod add {name}:{version}" if version else f"kcl mod add {name}"


def _locate(
    name: str, spec: object, base: Path, supplied: Mapping[str, Path], notes: list[str], *, allowed: Allowed
) -> Path:
    if isinstance(spec, Mapping) and isinstance(spec.get("path"), str):
        path = allowed((base / str(spec["path"])).resolve(), f"dependency {errors.quote(name)} from")
        if path.is_dir() and any(path.iterdir()):
            return path
        if name in supplied:
            return supplied[name]
        raise errors.FunctionInputError(
            f"cannot resolve KCL dependency {errors.quote(name)}: path {errors.quote(str(path))} is not a directory "
            "of KCL files"
        )
    if name in supplied:
        return supplied[name]
    version = _version(spec)
    cache = _cache.root()
    if version:
        stored = Path(f"{name}_{version}")
        if stored.is_absolute() or ".." in stored.parts:
            raise errors.FunctionInputError(
                f"cannot resolve KCL dependency {errors.quote(name)}: {errors.quote(str(stored))} is not a name in "
                "the KCL package cache"
            )
        cached = allowed(cache / stored, f"dependency {errors.quote(name)} from")
        if cached.is_dir():
            return cached
        looked = str(cached)
    elif isinstance(spec, Mapping) and "git" in spec:
        raise errors.FunctionInputError(
            f"cannot resolve KCL dependency {errors.quote(name)} from {_where(spec)}: it names no tag, commit or "
            "branch, and kpm would take the default branch's head, which built-in functions cannot fetch; pin one"
        )
    else:
        found = _cache.newest_dependency(name)
        if found is not None:
            taken = allowed(found[1], f"dependency {errors.quote(name)} from")
            notes.append(
                f"KCL dependency {errors.quote(name)} names no version: kpm fetches the newest from {_where(spec)}, "
                f"which built-in functions cannot ask for; used {found[0]}, the newest version in the KCL package "
                f"cache ({found[1].name})"
            )
            return taken
        looked = f"no version in {cache / f'{name}_<version>'}"
    raise errors.FunctionInputError(
        f"cannot resolve KCL dependency {errors.quote(name)} from {_where(spec)}: built-in functions do not reach "
        f'the network; vendor it locally with "{_add_command(name, spec, version)}" (it lands in the KCL package '
        f"cache, where crossfn looked: {looked}) or declare it as a path dependency: "
        f'{name} = {{ path = "<directory>" }}'
    )


def _resolve(
    deps: Mapping[str, Any],
    base: Path,
    supplied: Mapping[str, Path],
    out: dict[str, str],
    notes: list[str],
    *,
    allowed: Allowed,
) -> None:
    for name, spec in deps.items():
        if name in out:
            continue
        path = _locate(str(name), spec, base, supplied, notes, allowed=allowed)
        out[str(name)] = str(path)
        nested = path / "kcl.mod"
        if nested.is_file():
            nested = allowed(nested, "kcl.mod")
            _resolve(
                _dependencies(nested.read_text(), f"{nested}"), path, supplied, out, notes, allowed=allowed
            )


def _dependencies(text: str, what: str) -> Mapping[str, Any]:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise errors.FunctionInputError(f"cannot parse {what}: {exc}") from exc
    deps = doc.get("dependencies") or {}
    if not isinstance(deps, Mapping):
        raise errors.FunctionInputError(f"cannot parse {what}: [dependencies] must be a table")
    return deps


def from_text(
    text: str,
    *,
    base: Path,
    notes: list[str],
    supplied: Mapping[str, Path] = {},
    allowed: Allowed = _anything,
) -> dict[str, str]:
    """The packages of ``spec.dependencies`` (``kcl.mod``'s ``[dependencies]`` lines), by name; paths relative to ``base``.

    A note for each package taken at the newest cached version is appended to ``notes``.
    """
    if not text.strip():
        return {}
    out: dict[str, str] = {}
    _resolve(
        _dependencies(f"[dependencies]\n{text}", "spec.dependencies"),
        base,
        supplied,
        out,
        notes,
        allowed=allowed,
    )
    return out


def from_kcl_mod(
    directory: Path, *, notes: list[str], supplied: Mapping[str, Path] = {}, allowed: Allowed = _anything
) -> dict[str, str]:
    """The packages a KCL module directory's ``kcl.mod`` needs, by name (none without a ``kcl.mod``); notes as :func:`from_text`."""
    mod = directory / "kcl.mod"
    if not mod.is_file():
        return {}
    mod = allowed(mod, "kcl.mod")
    out: dict[str, str] = {}
    _resolve(_dependencies(mod.read_text(), str(mod)), directory, supplied, out, notes, allowed=allowed)
    return out


def entries(directory: Path) -> list[str]:
    """A module directory's ``[profile] entries``, else the directory itself: what ``kcl run`` compiles of a package.

    Relative entries are relative to the module; ``${...}`` module-relative ones are kept for KCL to
    resolve. A ``.yaml`` entry (a settings file, which kpm merges with the options) is refused.
    """
    mod = directory / "kcl.mod"
    if not mod.is_file():
        return [str(directory)]
    try:
        doc = tomllib.loads(mod.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise errors.FunctionInputError(f"cannot parse {mod}: {exc}") from exc
    profile = doc.get("profile")
    found = profile.get("entries") if isinstance(profile, Mapping) else None
    if found is None:
        return [str(directory)]
    if not (isinstance(found, list) and all(isinstance(e, str) for e in found)):
        raise errors.FunctionInputError(f"cannot parse {mod}: [profile] entries must be a list of strings")
    for e in found:
        if e.endswith(".yaml"):
            raise errors.FunctionInputError(
                f"cannot run {directory}: crossfn does not apply the settings file {errors.quote(e)} its kcl.mod's "
                "[profile] entries name; pass it as spec.config.settings"
            )
    listed = [e if e.startswith("${") or Path(e).is_absolute() else str(directory / e) for e in found]
    return listed or [str(directory)]
