"""Reading a project file as crossplane/cli's ``projectfile.Parse`` does: typed decoding, then ``Validate``.

A Crossplane project file (``dev.crossplane.io/v1alpha1`` ``Project``) is
decoded into the Go type ``v1alpha1.Project`` by ``sigs.k8s.io/yaml``
(``encoding/json`` underneath: unknown fields ignored, a value of the wrong
type an error naming the field), then checked by ``Project.Validate``, which
joins every problem it finds, one a line. Both texts are upstream's:
``failed to parse project file: error unmarshaling JSON: while decoding JSON:
json: cannot unmarshal string into Go struct field ProjectSpec.spec.dependencies
of type []v1alpha1.Dependency`` and ``invalid project file: dependency 0: type
must not be empty``. An embedded function's directory name must be a DNS
subdomain, so a project file cannot point render outside its functions folder.

An Upbound project file (``meta.dev.upbound.io``) is checked for what render
reads of it: a name, a repository, and ``dependsOn`` entries that are objects.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from crossfn import errors
from crossfn.gocompat import jsonstruct as js

__all__ = ["check"]

_STRINGS = js.Slice(js.STRING)
_META = js.Struct(
    "v1.ObjectMeta",
    {
        "name": js.STRING,
        "namespace": js.STRING,
        "labels": js.Map(js.STRING),
        "annotations": js.Map(js.STRING),
    },
)
_DEPENDENCY = js.Struct(
    "v1alpha1.Dependency",
    {
        "type": js.STRING,
        "xpkg": js.Struct(
            "v1alpha1.XpkgDependency",
            {
                "apiVersion": js.STRING,
                "kind": js.STRING,
                "package": js.STRING,
                "version": js.STRING,
                "apiOnly": js.BOOL,
            },
        ),
        "git": js.Struct(
            "v1alpha1.GitDependency", {"repository": js.STRING, "ref": js.STRING, "path": js.STRING}
        ),
        "http": js.Struct("v1alpha1.HTTPDependency", {"url": js.STRING}),
        "k8s": js.Struct("v1alpha1.K8sDependency", {"version": js.STRING}),
    },
)
_FUNCTION = js.Struct(
    "v1alpha1.Function",
    {
        "source": js.STRING,
        "directory": js.Struct("v1alpha1.FunctionDirectory", {"name": js.STRING}),
        "tarball": js.Struct("v1alpha1.FunctionTarball", {"name": js.STRING, "pathPrefix": js.STRING}),
    },
)
_PATHS = ("apis", "functions", "examples", "tests", "operations", "schemas")
_PROJECT = js.Struct(
    "v1alpha1.Project",
    {
        "apiVersion": js.STRING,
        "kind": js.STRING,
        "metadata": _META,
        "spec": js.Struct(
            "v1alpha1.ProjectSpec",
            {
                **{k: js.STRING for k in ("maintainer", "source", "license", "description", "readme")},
                "repository": js.STRING,
                "crossplane": js.ANY,
                "dependencies": js.Slice(_DEPENDENCY),
                "functions": js.Slice(_FUNCTION),
                "paths": js.Struct("v1alpha1.ProjectPaths", {k: js.STRING for k in _PATHS}),
                "architectures": _STRINGS,
                "schemas": js.Struct("v1alpha1.ProjectSchemas", {"languages": _STRINGS}),
                "imageConfigs": js.ANY,
            },
        ),
    },
)
_SCHEMA_LANGUAGES = ("go", "json", "kcl", "python")
"""``SupportedSchemaLanguages()``."""

_DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_DNS1123_MESSAGE = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)


def check(doc: Mapping[str, Any], *, upbound: bool) -> Mapping[str, Any]:
    """The project file as render reads it (a Crossplane project's as its Go type decodes), or
    :class:`~crossfn.errors.InputError` with upstream's text when it is not valid."""
    if upbound:
        _check_upbound(doc)
        return doc
    try:
        project = js.decode(doc, _PROJECT, decoder=js.LENIENT)
    except errors.GoError as exc:
        raise errors.InputError(
            f"failed to parse project file: error unmarshaling JSON: while decoding JSON: {exc}"
        ) from exc
    problems = _project_problems(project)
    if problems:
        raise errors.InputError("invalid project file: " + "\n".join(problems))
    return project


def _project_problems(project: Mapping[str, Any]) -> list[str]:
    """``Project.Validate``: every problem, in upstream's order and words."""
    out = []
    if not (project.get("metadata") or {}).get("name"):
        out.append("name must not be empty")
    spec: Mapping[str, Any] = project.get("spec") or {}
    if not spec.get("repository"):
        out.append("repository must not be empty")
    paths: Mapping[str, Any] = spec.get("paths") or {}
    out += [f"{key} path must be relative" for key in _PATHS if str(paths.get(key) or "").startswith("/")]
    if "architectures" in spec and not spec["architectures"]:
        out.append("architectures must not be empty")
    out += _schemas_problems(spec.get("schemas"))
    for i, dep in enumerate(spec.get("dependencies") or ()):
        found = _dependency_problems(dep or {})
        if found:
            out.append(f"dependency {i}: " + "\n".join(found))
    seen: dict[str, int] = {}
    for i, fn in enumerate(spec.get("functions") or ()):
        found = _function_problems(fn or {})
        if found:
            out.append(f"function {i}: " + "\n".join(found))
            continue
        name = _function_name(fn)
        if name in seen:
            out.append(f"function {i}: name {errors.quote(name)} is already used by function {seen[name]}")
            continue
        seen[name] = i
    return out


def _schemas_problems(schemas: Mapping[str, Any] | None) -> list[str]:
    languages = (schemas or {}).get("languages")
    if languages is None:
        return []
    if not languages:
        return ["schemas.languages must not be empty when specified"]
    supported = "[" + " ".join(_SCHEMA_LANGUAGES) + "]"
    return [
        f"schemas.languages[{i}]: {errors.quote(lang or '')} is not a supported schema language; set it to one of "
        f"{supported}"
        for i, lang in enumerate(languages)
        if (lang or "") not in _SCHEMA_LANGUAGES
    ]


def _dependency_problems(dep: Mapping[str, Any]) -> list[str]:
    out = []
    if not dep.get("type"):
        out.append("type must not be empty")
    sources = [key for key in ("xpkg", "git", "http", "k8s") if dep.get(key) is not None]
    required = {
        "xpkg": ("apiVersion", "kind", "package", "version"),
        "git": ("repository",),
        "http": ("url",),
        "k8s": ("version",),
    }
    for key in sources:
        missing = [f"{field} must not be empty" for field in required[key] if not dep[key].get(field)]
        if missing:
            out.append(f"{key}: " + "\n".join(missing))
    if len(sources) != 1:
        out.append("exactly one source (xpkg, git, http, or k8s) must be specified")
    return out


def _function_problems(fn: Mapping[str, Any]) -> list[str]:
    out = []
    directory, tarball = fn.get("directory"), fn.get("tarball")
    if (directory is not None) + (tarball is not None) != 1:
        out.append("exactly one source (directory or tarball) must be specified")
    source = fn.get("source") or ""
    if source == "Directory":
        found = _named_problems(directory, "Directory")
        if found:
            out.append("directory: " + "\n".join(found))
    elif source == "Tarball":
        found = _named_problems(tarball, "Tarball")
        if tarball is not None:
            prefix = str(tarball.get("pathPrefix") or "")
            if not prefix:
                found.append("pathPrefix must not be empty")
            elif prefix.startswith("/"):
                found.append("pathPrefix must be relative")
        if found:
            out.append("tarball: " + "\n".join(found))
    elif not source:
        out.append("source must not be empty")
    else:
        out.append(f'source {errors.quote(source)} is not supported, must be one of "Directory" or "Tarball"')
    return out


def _named_problems(found: Mapping[str, Any] | None, source: str) -> list[str]:
    if found is None:
        return [f'source "{source}" requires the {source.lower()} field to be set']
    name = str(found.get("name") or "")
    if not name:
        return ["name must not be empty"]
    messages = []
    if len(name) > 253:
        messages.append("must be no more than 253 characters")
    if _DNS1123_SUBDOMAIN.fullmatch(name) is None:
        messages.append(_DNS1123_MESSAGE)
    if messages:
        return [f"name {errors.quote(name)} is not a valid function name: " + "; ".join(messages)]
    return []


def _function_name(fn: Mapping[str, Any]) -> str:
    found = fn.get("directory") if fn.get("source") == "Directory" else fn.get("tarball")
    return str((found or {}).get("name") or "")


def _check_upbound(doc: Mapping[str, Any]) -> None:
    spec = doc.get("spec")
    if spec is not None and not isinstance(spec, Mapping):
        raise errors.InputError("invalid project file: spec must be an object")
    depends = (spec or {}).get("dependsOn")
    if depends is not None and not (
        isinstance(depends, list) and all(isinstance(d, Mapping) for d in depends)
    ):
        raise errors.InputError("invalid project file: spec.dependsOn must be a list of objects")
