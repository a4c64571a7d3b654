"""KCL package dependencies (``kcl.mod``'s ``[dependencies]`` and the input's ``spec.dependencies``), resolved offline.

kcl-lib runs a program but does not fetch or locate packages: the caller
names each external package's directory. A dependency is found when it is

* a path dependency (``models = { path = "./model" }``), relative to the
  ``kcl.mod`` that declares it;
* supplied by the caller (``supplied``: the models crossfn generates for an
  embedded project function whose ``model`` link is missing);
* already in the local KCL package cache, where ``kcl mod add`` and
  ``kcl mod pull`` leave them: ``$KCL_PKG_PATH`` (default ``~/.kcl/kpm``),
  as ``<name>_<version>``.

Anything else needs the network (a registry, OCI or git package), which a
built-in function never reaches: one :class:`crossfn.errors.FunctionInputError`
names the dependency and how to vendor it. Dependencies of dependencies are
followed through their own ``kcl.mod``. Every path read passes through
``allowed`` (the function's file access: in the controller, only beneath the
directory the operator allows), which returns it or raises.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from crossfn import errors

__all__ = ["Allowed", "from_kcl_mod", "from_text", "package_cache"]

Allowed = Callable[[Path, str], Path]
"""``allowed(path, what)``: the path to read, or FunctionInputError naming ``what`` when it may not be read."""


def _anything(path: Path, what: str) -> Path:
    return path


def package_cache() -> Path:
    """Where kpm keeps downloaded packages: ``$KCL_PKG_PATH``, else ``~/.kcl/kpm``."""
    configured = os.environ.get("KCL_PKG_PATH")
    return Path(configured) if configured else Path.home() / ".kcl" / "kpm"


def _version(spec: object) -> str:
    if isinstance(spec, str):
        return spec
    if isinstance(spec, Mapping):
        for key in ("version", "tag", "commit", "branch"):
            value = spec.get(key)
            if isinstance(value, str) and value:
                return value
    return ""


def _where(spec: object) -> str:
    if isinstance(spec, Mapping):
        for key in ("oci", "git"):
            value = spec.get(key)
            if isinstance(value, str):
                return f"{key} {value}"
    return "the KCL package registry"


def _locate(name: str, spec: object, base: Path, supplied: Mapping[str, Path], allowed: Allowed) -> Path:
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
    cached = allowed(
        package_cache() / (f"{name}_{version}" if version else name), f"dependency {errors.quote(name)} from"
    )
    if cached.is_dir():
        return cached
    pin = f"{name}:{version}" if version else name
    raise errors.FunctionInputError(
        f"cannot resolve KCL dependency {errors.quote(name)} from {_where(spec)}: built-in functions do not reach "
        f'the network; vendor it locally with "kcl mod add {pin}" (it lands in {package_cache()}, where crossfn '
        f'finds it) or declare it as a path dependency: {name} = {{ path = "<directory>" }}'
    )


def _resolve(
    deps: Mapping[str, Any], base: Path, supplied: Mapping[str, Path], out: dict[str, str], allowed: Allowed
) -> None:
    for name, spec in deps.items():
        if name in out:
            continue
        path = _locate(str(name), spec, base, supplied, allowed)
        out[str(name)] = str(path)
        nested = path / "kcl.mod"
        if nested.is_file():
            nested = allowed(nested, "kcl.mod")
            _resolve(_dependencies(nested.read_text(), f"{nested}"), path, supplied, out, allowed)


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
    text: str, *, base: Path, supplied: Mapping[str, Path] = {}, allowed: Allowed = _anything
) -> dict[str, str]:
    """The packages of ``spec.dependencies`` (``kcl.mod``'s ``[dependencies]`` lines), by name; paths relative to ``base``."""
    if not text.strip():
        return {}
    out: dict[str, str] = {}
    _resolve(_dependencies(f"[dependencies]\n{text}", "spec.dependencies"), base, supplied, out, allowed)
    return out


def from_kcl_mod(
    directory: Path, *, supplied: Mapping[str, Path] = {}, allowed: Allowed = _anything
) -> dict[str, str]:
    """The packages a KCL module directory's ``kcl.mod`` needs, by name (none without a ``kcl.mod``)."""
    mod = directory / "kcl.mod"
    if not mod.is_file():
        return {}
    mod = allowed(mod, "kcl.mod")
    out: dict[str, str] = {}
    _resolve(_dependencies(mod.read_text(), str(mod)), directory, supplied, out, allowed)
    return out
