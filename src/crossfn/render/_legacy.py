"""Rendering a legacy ``mode: Resources`` Composition, which ``crossplane render`` rejects.

Crossplane v1 Compositions carry patch-and-transform inside the Composition
(``spec.resources``, ``spec.patchSets``, ``spec.environment``). Crossplane v1's
CRD defaulted ``spec.mode`` to ``Resources``, so such Compositions almost never
spell it: :func:`mode` reads one with ``spec.resources`` and no ``spec.mode``
as ``Resources``. Render accepts a legacy Composition by converting it, as
``crossfn convert pipeline-composition`` does
(:func:`crossfn.functions.patch_and_transform.convert.to_pipeline`), into a
Pipeline that calls ``function-patch-and-transform`` and, when the Composition
uses the native environment, ``function-environment-configs``.

The converted steps name Functions the user's Functions file may not define:

* both are crossfn built-ins, so a Function entry for each the converted
  pipeline calls is supplied when the file has none (it then runs in-process,
  as the newest release the built-in reproduces).

A Function counts as defining one of these when its name is the converter's
default name or its package is that function's package (any registry, tag or
digest); the converted steps then call it by its name.

Crossplane v1 read a Composition from the API server, which stores each
``spec.resources[].base`` as an embedded resource (``x-kubernetes-embedded-resource``):
its ``metadata`` is always an object there. A base that spells ``metadata:`` with
nothing after it (YAML's null) is read as ``metadata: {}`` (:func:`as_stored`), so
a patch to ``metadata.name`` works as it did in the cluster.

A Composition without ``spec.mode`` and without ``spec.resources`` is left
alone (render rejects it, as upstream does): it may be a Pipeline that lost its
mode. Every error about a legacy Composition names
``crossfn convert pipeline-composition``, the way to see and keep its Pipeline.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from crossfn import errors
from crossfn.functions.patch_and_transform import convert

__all__ = ["LEGACY_MODE", "as_stored", "mode", "to_pipeline"]

LEGACY_MODE = "Resources"
_CONVERT = "crossfn convert pipeline-composition"
_FUNCTION_API = "pkg.crossplane.io/v1"
_PACKAGES = {
    convert.DEFAULT_FUNCTION: "xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform:v0.10.8",
    convert.DEFAULT_ENVIRONMENT_FUNCTION: "xpkg.crossplane.io/crossplane-contrib/function-environment-configs:v0.7.2",
}
"""Versions the built-ins reproduce, so the supplied entries run them (``crossfn.functions.resolve``)."""


def _package_name(fn: Mapping[str, Any]) -> str:
    """A Function's package without registry, tag or digest (``function-patch-and-transform``)."""
    spec = fn.get("spec")
    package = str(spec.get("package") or "") if isinstance(spec, Mapping) else ""
    return package.rsplit("/", 1)[-1].split("@", 1)[0].split(":", 1)[0]


def _function_name(fn: Mapping[str, Any]) -> str:
    meta = fn.get("metadata")
    return str(meta.get("name") or "") if isinstance(meta, Mapping) else ""


def _find(fns: Sequence[Mapping[str, Any]], default: str) -> str | None:
    """The name of the user's Function for ``default``: by name first, then by package."""
    names = [_function_name(fn) for fn in fns]
    if default in names:
        return default
    for fn, name in zip(fns, names, strict=True):
        if _package_name(fn) == default and name:
            return name
    return None


def mode(comp: Mapping[str, Any]) -> Any:
    """The Composition's mode as Crossplane v1 read it: ``spec.mode``, else ``Resources`` when it has
    ``spec.resources`` (the v1 CRD's default), else None (no mode to go by)."""
    spec = comp.get("spec")
    if not isinstance(spec, Mapping):
        return None
    if "mode" in spec:
        return spec["mode"]
    return LEGACY_MODE if "resources" in spec else None


def as_stored(comp: dict[str, Any]) -> dict[str, Any]:
    """``comp`` with each base's null ``metadata`` an empty object, as Crossplane v1's API server stored it."""
    spec = comp.get("spec")
    resources = spec.get("resources") if isinstance(spec, Mapping) else None
    if not isinstance(resources, list) or not any(_null_metadata(r) for r in resources):
        return comp
    stored = [{**r, "base": {**r["base"], "metadata": {}}} if _null_metadata(r) else r for r in resources]
    return {**comp, "spec": {**comp["spec"], "resources": stored}}


def _null_metadata(resource: Any) -> bool:
    base = resource.get("base") if isinstance(resource, Mapping) else None
    return isinstance(base, Mapping) and "metadata" in base and base["metadata"] is None


def _builtin_function(name: str) -> dict[str, Any]:
    """The Function entry render supplies for built-in ``name`` (patch-and-transform or environment-configs)."""
    return {
        "apiVersion": _FUNCTION_API,
        "kind": "Function",
        "metadata": {"name": name},
        "spec": {"package": _PACKAGES[name]},
    }


def _uses(comp: Mapping[str, Any], function: str) -> bool:
    pipeline = (comp.get("spec") or {}).get("pipeline") or []
    return any(
        isinstance(step, Mapping) and (step.get("functionRef") or {}).get("name") == function
        for step in pipeline
    )


def to_pipeline(
    comp: dict[str, Any], fns: list[dict[str, Any]]
) -> tuple[dict[str, Any], list[dict[str, Any]], str]:
    """Convert a ``mode: Resources`` Composition; returns it, the Functions to use, and a note for the user.

    The Functions are ``fns`` plus, when they lack one, a built-in
    patch-and-transform entry, and a built-in environment-configs entry when
    the Composition uses the native environment. Raises
    :class:`~crossfn.errors.InputError` when the conversion fails.
    """
    name = errors.quote(_function_name(comp))
    spec = comp.get("spec")
    spelled = isinstance(spec, Mapping) and "mode" in spec
    pt = _find(fns, convert.DEFAULT_FUNCTION)
    env = _find(fns, convert.DEFAULT_ENVIRONMENT_FUNCTION)
    try:
        converted = convert.to_pipeline(
            as_stored(comp),
            function_name=pt or convert.DEFAULT_FUNCTION,
            environment_function_name=env or convert.DEFAULT_ENVIRONMENT_FUNCTION,
        )
    except errors.InputError as exc:
        raise errors.InputError(
            f"cannot convert Composition {name} to a pipeline: {exc} (as {_CONVERT} would)"
        ) from exc
    assert converted is not None, "the caller converts only mode: Resources, which the converter never skips"
    uses_env = _uses(converted, env or convert.DEFAULT_ENVIRONMENT_FUNCTION)
    if env is None and uses_env:
        fns = [*fns, _builtin_function(convert.DEFAULT_ENVIRONMENT_FUNCTION)]
    if pt is None:
        fns = [*fns, _builtin_function(convert.DEFAULT_FUNCTION)]
    how = (
        "uses mode: Resources"
        if spelled
        else "has spec.resources and no spec.mode, so mode: Resources (Crossplane v1's default)"
    )
    with_env = f" and {env or convert.DEFAULT_ENVIRONMENT_FUNCTION}" if uses_env else ""
    note = (
        f"Composition {name} {how}; rendering it as a Pipeline with "
        f"{pt or convert.DEFAULT_FUNCTION}{with_env} (see {_CONVERT})"
    )
    return converted, fns, note
