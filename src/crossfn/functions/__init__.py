"""Built-in generic functions, written with the crossfn SDK only.

:data:`BUILTINS` maps each built-in's short name to the ``module:object`` that
implements it; :data:`PACKAGES` maps the package names users write in their
``Function`` manifests to those short names. ``crossfn render`` runs a Function
whose package (any registry, any tag) is listed here in-process, and
``crossfn function serve <short name>`` serves one. ``crossfn controller``
runs a Function whose package is listed here in-process too, by the same rule
(:func:`builtin_for_package`), and loads the object with :func:`load`.
"""

from __future__ import annotations

from crossfn.sdk import _loader

__all__ = ["BUILTINS", "PACKAGES", "builtin_for_package", "load"]

BUILTINS: dict[str, str] = {
    "patch-and-transform": "crossfn.functions.patch_and_transform:compose",
    "auto-ready": "crossfn.functions.auto_ready:compose",
    "starlark": "crossfn.functions.starlark:compose",
}

PACKAGES: dict[str, str] = {
    "function-patch-and-transform": "patch-and-transform",
    "function-auto-ready": "auto-ready",
    "function-starlark": "starlark",
}


def builtin_for_package(package: str) -> str | None:
    """Return the built-in short name for an OCI package reference, or None.

    ``xpkg.crossplane.io/crossplane-contrib/function-auto-ready:v0.2.1`` and
    ``function-auto-ready@sha256:...`` both name ``auto-ready``: only the last
    path element, without tag or digest, counts.
    """
    name = package.rsplit("/", 1)[-1]
    name = name.split("@", 1)[0].split(":", 1)[0]
    return PACKAGES.get(name)


def load(name: str) -> object:
    """Import built-in ``name`` (a key of :data:`BUILTINS`) and return its function object.

    The modules are imported on first use, not when this package is, so a
    command that runs one built-in does not pay for the others (starlark's
    interpreter in particular). ``KeyError`` for a name that is not built in:
    callers decide with :func:`builtin_for_package` first.
    """
    return _loader.load(BUILTINS[name])
