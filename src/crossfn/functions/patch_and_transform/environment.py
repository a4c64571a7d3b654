"""The Composition environment: loading it from the context and the input's environment patches
(upstream pt-8).

Crossplane, or an earlier function, puts the environment in the request
context under :data:`CONTEXT_KEY`. Environment patches run before any template
and move values between the XR and the environment; composed patches can read
and write it too (:mod:`.composed`). The environment always goes back into the
context, GVK included, so later functions see what was written.
"""

from __future__ import annotations

from typing import Any

from crossfn import errors
from crossfn.functions.patch_and_transform import input as ptinput
from crossfn.functions.patch_and_transform import patches, release

__all__ = ["CONTEXT_KEY", "apply_patches", "load"]

CONTEXT_KEY = "apiextensions.crossplane.io/environment"
_API_VERSION = "internal.crossplane.io/v1alpha1"
_KIND = "Environment"


def load(context: dict[str, Any], r: release.Release = release.CURRENT) -> dict[str, Any]:
    """Return the environment from the context; a missing GVK gets the internal Environment GVK
    (from v0.6.0; before, it stayed without one)."""
    env = context.get(CONTEXT_KEY)
    env = dict(env) if isinstance(env, dict) else {}
    if r.defaults_environment_kind and not env.get("apiVersion") and not env.get("kind"):
        env["apiVersion"] = _API_VERSION
        env["kind"] = _KIND
    return env


def apply_patches(
    ps: tuple[ptinput.Patch, ...],
    oxr: dict[str, Any],
    dxr: dict[str, Any],
    env: dict[str, Any],
    *,
    normalised: dict[int, dict[str, Any]] | None = None,
    r: release.Release = release.CURRENT,
) -> None:
    """Apply the environment patches in order; a not-found source under Optional skips the patch
    (from v0.4.0; in v0.3.0 it failed too).

    Any other error, a not-found under Required included, raises with Go's text:
    ``cannot apply the "<Type>" environment patch at index <i>: <err>``.
    """
    for i, p in enumerate(ps):
        try:
            _apply(p, (oxr, dxr, env), normalised, r)
        except errors.CrossfnError as exc:
            if patches.is_not_found(exc) and p.policy_from != "Required" and r.optional_environment_patches:
                continue
            raise errors.CrossfnError(
                f'cannot apply the "{p.type}" environment patch at index {i}: {exc}'
            ) from exc


def _apply(
    p: ptinput.Patch,
    objects: tuple[dict[str, Any], dict[str, Any], dict[str, Any]],
    normalised: dict[int, dict[str, Any]] | None,
    r: release.Release,
) -> None:
    """Direction per upstream pt-5.1: From*Composite and ToEnvironment read the XR; the rest write it.

    ``objects`` are the observed XR, the desired XR and the environment.
    """
    oxr, dxr, env = objects
    if p.type in ("FromCompositeFieldPath", "ToEnvironmentFieldPath"):
        patches.apply_field(p, oxr, env, normalised=normalised, r=r)
    elif p.type == "CombineFromComposite":
        patches.apply_combine(p, oxr, env, normalised=normalised, r=r)
    elif p.type in ("ToCompositeFieldPath", "FromEnvironmentFieldPath"):
        patches.apply_field(p, env, dxr, normalised=normalised, r=r)
    elif p.type == "CombineToComposite":
        patches.apply_combine(p, env, dxr, normalised=normalised, r=r)
