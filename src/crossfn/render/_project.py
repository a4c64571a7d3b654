"""Render in a project: its Functions from the project file, embedded functions run from their source.

``crossplane render xr`` without a FUNCTIONS argument reads the project file
(``-f``, default ``crossplane-project.yaml``; crossfn also reads Upbound's
``upbound.yaml``) and renders with

* a Function for each function dependency (``spec.dependencies`` of type
  ``xpkg`` and kind ``Function``, or ``spec.dependsOn`` entries with
  ``function:`` in ``upbound.yaml``), named as Crossplane names a dependency
  (its repository as a DNS label, ``crossplane-contrib-function-kcl``) and
  pinned to the newest release crossfn knows that meets the version
  constraint, so a built-in stands in for it as usual;
* a Function for each embedded function (``spec.functions``, else each
  directory under ``spec.paths.functions``), named as upstream names its image
  (``<repository>_<name>`` as a DNS label, ``acme-platformxnetwork``).
  Upstream builds images; crossfn runs them from source, in-process: a KCL
  function (``kcl.mod``) on the built-in function-kcl (as v0.12.1, the base
  image upstream builds them on), with the models it imports generated from
  the project's XRDs and the ``--crds`` at hand when its ``model`` link is
  missing; a Python function (``pyproject.toml`` and ``function/``) by loading
  its ``function.fn:FunctionRunner``; a go-templating function (only
  ``.gotmpl``/``.tmpl`` files) on the built-in function-go-templating as
  v0.12.0, the base image upstream builds them on, with the directory as its
  default source. A Go function is one line saying it needs building.

The Functions carry :data:`EMBEDDED` (the function's directory), which
``_runtimes`` turns into an in-process runtime and :func:`embedded_object`
into the object to run.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from crossfn import errors, functions
from crossfn.functions import _registry
from crossfn.render import _load, _projectfile
from crossfn.sdk import _loader

__all__ = ["DEFAULT_PROJECT_FILE", "EMBEDDED", "embedded_object", "function_name", "project_functions"]

DEFAULT_PROJECT_FILE = "crossplane-project.yaml"
UPBOUND_PROJECT_FILE = "upbound.yaml"
EMBEDDED = "render.crossfn.io/runtime-embedded-function"
"""Annotation: the directory of an embedded project function, run in-process from its source."""

_CROSSPLANE_API = "dev.crossplane.io/v1alpha1"
_UPBOUND_APIS = ("meta.dev.upbound.io/v1alpha1", "meta.dev.upbound.io/v2alpha1")
_EMBEDDED_BEHAVIOUR = "kcl@v0.12.1"
"""function-kcl release the upstream tooling builds embedded KCL functions on (its base image)."""
_EMBEDDED_GO_TEMPLATING = (0, 12, 0)
"""function-go-templating release the upstream tooling builds embedded go-templating functions on (its base
image, whose ``FUNCTION_GO_TEMPLATING_DEFAULT_SOURCE`` is the copied directory)."""


def to_dns_label(s: str) -> str:
    """crossplane-runtime's ``xpkg.ToDNSLabel``: lower-case letters and digits, separators as ``-``, 63 at most."""
    out = []
    for i, ch in enumerate(s):
        if ch.isascii() and (ch.islower() or ch.isdigit()):
            out.append(ch)
        if ch in "./:-" and i not in (0, 62, len(s) - 1):
            out.append("-")
        if i == 62:
            break
    return "".join(out).strip("-")


def _repository_path(reference: str) -> str:
    """The repository of an OCI reference without its registry (go-containerregistry's ``RepositoryStr``)."""
    parts = reference.split("/")
    if len(parts) > 1 and ("." in parts[0] or ":" in parts[0] or parts[0] == "localhost"):
        parts = parts[1:]
    if len(parts) == 1:
        parts = ["library", *parts]
    return "/".join(parts)


def function_name(repository: str, function: str = "") -> str:
    """The Function name upstream gives a dependency (``function`` empty) or an embedded function."""
    return to_dns_label(_repository_path(f"{repository}_{function}" if function else repository))


def _find_project(path: Path) -> Path | None:
    """The project file: ``path`` when anything is there (a directory fails to parse, as upstream's), else
    Upbound's file beside the default name."""
    if path.exists():
        return path
    if path.name == DEFAULT_PROJECT_FILE and (path.parent / UPBOUND_PROJECT_FILE).is_file():
        return path.parent / UPBOUND_PROJECT_FILE
    return None


def _load_project(path: Path) -> Mapping[str, Any]:
    """The project file's document, checked (``_projectfile``); a Crossplane project's as its Go type decodes."""
    what = f"cannot parse project file {errors.quote(str(path.resolve()))}"
    try:
        doc = _load.load_one(path)
    except errors.InputError as exc:
        raise errors.InputError(f"{what}: {exc}") from exc
    api = doc.get("apiVersion")
    if api not in (_CROSSPLANE_API, *_UPBOUND_APIS):
        raise errors.InputError(
            f"{what}: unsupported project apiVersion {errors.quote(str(api or ''))}, expected {errors.quote(_CROSSPLANE_API)}"
        )
    if doc.get("kind") != "Project":
        raise errors.InputError(
            f'{what}: unsupported project kind {errors.quote(str(doc.get("kind") or ""))}, expected "Project"'
        )
    try:
        doc = dict(_projectfile.check(doc, upbound=api in _UPBOUND_APIS))
    except errors.InputError as exc:
        raise errors.InputError(f"{what}: {exc}") from exc
    spec = _load.object_at(doc, "spec")
    if not str(_load.object_at(doc, "metadata").get("name") or ""):
        raise errors.InputError(f"{what}: invalid project file: name must not be empty")
    if not str(spec.get("repository") or ""):
        raise errors.InputError(f"{what}: invalid project file: repository must not be empty")
    return doc


_CONSTRAINT = re.compile(r"^(>=|<=|!=|>|<|=|\^|~)?\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?$")


def _satisfies(version: tuple[int, int, int], constraint: str) -> bool:
    """Whether ``version`` meets a semver constraint (``>=v0.11.2``, ``^1.2``, ``>=1, <2``, ``a || b``)."""
    for alternative in constraint.split("||"):
        parts = [p for p in re.split(r"[,\s]+(?=[<>=!^~v\d])", alternative.strip()) if p.strip()]
        if parts and all(_one(version, p.strip()) for p in parts):
            return True
    return False


def _one(version: tuple[int, int, int], part: str) -> bool:
    m = _CONSTRAINT.match(part)
    if m is None:
        return False
    op = m[1] or "="
    want = (int(m[2]), int(m[3] or 0), int(m[4] or 0))
    if op == "^":  # the left-most non-zero part stays, as Masterminds/semver reads it
        keep = 1 if want[0] else 2 if want[1] else 3
        return want <= version and version[:keep] == want[:keep]
    if op == "~":
        return want <= version and version[:2] == want[:2]
    return {
        ">=": version >= want, "<=": version <= want, ">": version > want, "<": version < want,
        "!=": version != want, "=": version == want,
    }[op]  # fmt: skip


def _pinned(package: str, constraint: str) -> str:
    """``package:version``: the constraint's newest release crossfn knows for a built-in's package, else as given.

    crossfn knows a built-in's releases (``crossfn.functions._registry``): those it lists, and the first
    and last release of each span it behaves as (``vX.Y.Z`` before a span that ends at ``vX.Y.Z+1``). Upstream asks the registry, which crossfn never reaches.
    """
    constraint = constraint.strip()
    if constraint.startswith("sha256:"):
        return f"{package}@{constraint}"
    decision = functions.resolve(f"{package}:v0.0.0")
    upstream = next(
        (u for u in functions.upstreams() if decision is not None and u.repo == decision.repository), None
    )
    if upstream is not None:
        known = {r.tag: r.version for r in upstream.releases}
        for span in upstream.spans:
            for tag in (span.since, _before(span.until)):
                v = _registry.parse_version(tag)
                if v is not None:
                    known[tag] = v
        for tag, version in sorted(known.items(), key=lambda kv: kv[1], reverse=True):
            if _satisfies(version, constraint):
                return f"{package}:{tag}"
    return (
        f"{package}:{constraint}"
        if _CONSTRAINT.match(constraint) and constraint[0] in "v0123456789"
        else package
    )


def _before(tag: str) -> str:
    """The patch release before ``tag`` (``v0.6.0`` for ``v0.6.1``), or "" when there is none."""
    v = _registry.parse_version(tag)
    return f"v{v[0]}.{v[1]}.{v[2] - 1}" if v is not None and v[2] > 0 else ""


def _function(name: str, package: str, annotations: Mapping[str, str] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if annotations:
        meta["annotations"] = dict(annotations)
    return {
        "apiVersion": "pkg.crossplane.io/v1",
        "kind": "Function",
        "metadata": meta,
        "spec": {"package": package},
    }


def _dependencies(doc: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(package, version constraint)`` of the project's function dependencies."""
    spec = _load.object_at(doc, "spec")
    out = []
    for dep in spec.get("dependencies") or ():
        if not isinstance(dep, Mapping):
            continue  # an Upbound project's: not read (a Crossplane project's were checked)
        xpkg = dep.get("xpkg")
        if dep.get("type") != "xpkg" or not isinstance(xpkg, Mapping) or xpkg.get("apiOnly"):
            continue
        if xpkg.get("kind") == "Function":
            out.append((str(xpkg.get("package") or ""), str(xpkg.get("version") or "")))
    for dep in spec.get("dependsOn") or ():
        if isinstance(dep, Mapping) and isinstance(dep.get("function"), str):
            out.append((dep["function"], str(dep.get("version") or "")))
    return out


def _embedded(doc: Mapping[str, Any], root: Path) -> list[tuple[str, Path | None]]:
    """``(name, directory or None for a tarball image)`` of the project's embedded functions."""
    spec = _load.object_at(doc, "spec")
    folder = root / str(_load.object_at(spec, "paths").get("functions") or "functions")
    declared = spec.get("functions")
    if isinstance(declared, list) and declared:
        out: list[tuple[str, Path | None]] = []
        for fn in declared:
            if not isinstance(fn, Mapping):
                continue
            if fn.get("source") == "Tarball":
                out.append((str(_load.object_at(fn, "tarball").get("name") or ""), None))
            else:
                name = str(_load.object_at(fn, "directory").get("name") or "")
                out.append((name, folder / name))
        return out
    if not folder.is_dir():
        return []
    return [(d.name, d) for d in sorted(folder.iterdir()) if d.is_dir()]


def project_functions(project_file: Path) -> tuple[list[dict[str, Any]], Path]:
    """The Functions of the project at ``project_file`` and the project's directory.

    Raises InputError with upstream's text when there is no project file.
    """
    found = _find_project(project_file)
    if found is None:
        raise errors.InputError("functions argument is required when not in a project")
    doc = _load_project(found)
    root = found.resolve().parent
    repository = str(_load.object_at(doc, "spec").get("repository"))
    fns = [_function(function_name(pkg), _pinned(pkg, version)) for pkg, version in _dependencies(doc)]
    for name, directory in _embedded(doc, root):
        package = f"{repository}_{name}"
        if directory is None:
            fns.append(_function(function_name(repository, name), package))
        else:
            fns.append(_function(function_name(repository, name), package, {EMBEDDED: str(directory)}))
    return fns, root


def _project_root(directory: Path) -> Path:
    for parent in directory.resolve().parents:
        if (parent / DEFAULT_PROJECT_FILE).is_file() or (parent / UPBOUND_PROJECT_FILE).is_file():
            return parent
    return directory.resolve().parent


def _definitions(root: Path, crds: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The project's XRDs and CRDs (any YAML under it but ``.``-folders) and the ``--crds`` documents."""
    docs: list[Mapping[str, Any]] = list(crds)
    for path in sorted(root.rglob("*.y*ml")):
        if any(part.startswith(".") for part in path.relative_to(root).parts[:-1]):
            continue
        try:
            loaded = _load.load_documents(path)
        except errors.InputError:
            continue  # not a manifest (a KCL settings file, a template): not a definition either
        docs += [
            d for d in loaded if d.get("kind") in ("CompositeResourceDefinition", "CustomResourceDefinition")
        ]
    return docs


def embedded_object(function: str, directory: Path, *, crds: Sequence[Mapping[str, Any]] = ()) -> object:
    """The object that runs embedded function ``function`` from its source ``directory``."""
    what = f"cannot run embedded function {errors.quote(function)} from {errors.quote(str(directory))}"
    if (directory / "kcl.mod").is_file():
        return _kcl(directory, crds)
    if (directory / "pyproject.toml").is_file() and (directory / "function").is_dir():
        return _python(function, directory, what)
    if (directory / "go.mod").is_file():
        raise errors.InputError(f"{what}: a Go function needs building, which crossfn does not do; build its image and "
                                "run it with the Docker or Development runtime")  # fmt: skip
    if _templates_only(directory):
        return _go_templating(directory)
    raise errors.InputError(f"{what}: no suitable builder found")


_TEMPLATE_SUFFIXES = (".gotmpl", ".tmpl")


def _templates_only(directory: Path) -> bool:
    """Upstream's go-templating builder match: at least one file, and every file (hidden ones too) a regular
    ``.gotmpl`` or ``.tmpl`` file; a symbolic link or any other file means no."""
    found = False
    for parent, dirs, files in os.walk(directory):
        for name in [*files, *(d for d in dirs if os.path.islink(os.path.join(parent, d)))]:
            path = Path(parent) / name
            if not stat.S_ISREG(path.lstat().st_mode) or path.suffix not in _TEMPLATE_SUFFIXES:
                return False
            found = True
    return found


def _kcl(directory: Path, crds: Sequence[Mapping[str, Any]]) -> object:
    from crossfn.functions import kcl  # noqa: PLC0415 -- needs the kcl extra; only KCL functions import it

    packages = {}
    model = directory / "model"
    if not (model.is_dir() and any(model.iterdir())):
        into = Path(tempfile.mkdtemp(prefix="crossfn-kcl-models-"))
        atexit.register(shutil.rmtree, into, ignore_errors=True)
        kcl.generate_models(_definitions(_project_root(directory), crds), into)
        packages["models"] = into
    behaviour = functions.load(_EMBEDDED_BEHAVIOUR)
    assert isinstance(behaviour, kcl.Kcl)  # the registry's kcl objects are Kcl instances
    return behaviour.embedded(directory, packages=packages)


def _go_templating(directory: Path) -> object:
    """The built-in function-go-templating as upstream's base image, reading the templates in ``directory``
    when a step's input names no source (or the step has no input)."""
    from crossfn.functions import go_templating  # noqa: PLC0415 -- only go-templating functions need it

    return go_templating.GoTemplating(
        go_templating.Release(_EMBEDDED_GO_TEMPLATING), default_source=str(directory)
    )


def _python(function: str, directory: Path, what: str) -> object:
    """The function's ``function.fn:FunctionRunner``, loaded under a module name of its own."""
    from crossfn.sdk import function as sdk_function  # noqa: PLC0415 -- only Python functions need it

    # Every embedded Python function is a package named "function": the loader binds each to its directory.
    obj = _loader.load("function.fn:FunctionRunner", search=directory, what=what)
    try:
        return sdk_function.servable(obj)
    except sdk_function.NotServableError as exc:
        raise errors.InputError(f"{what}: {exc}") from exc
