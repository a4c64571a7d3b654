"""Rendering one composed-resource template (upstream pt-7.1, pt-5.4).

For each template, in order: start from its base (or an earlier function's
desired resource of the same name), copy identity, connection details and
readiness from the observed resource if there is one, then apply the patches.
Patch errors follow the ``fromFieldPath`` policy: a missing source is skipped
(Optional), reported as a Warning (Required on an existing resource), or stops
the template so a new resource is not created (Required, not yet observed).
Any other patch error is fatal for the whole run.

The run's shared state (:class:`State`) is mutated in place; messages go to the
``warn`` callback, fatal problems are raised as ``CrossfnError`` with Go's text.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from typing import Any

from crossfn import errors
from crossfn.functions.patch_and_transform import connection, patches, readiness, release
from crossfn.functions.patch_and_transform import input as ptinput
from crossfn.gocompat import json as gojson

__all__ = [
    "FROM_COMPOSITE",
    "FROM_ENVIRONMENT",
    "TO_COMPOSITE",
    "TO_ENVIRONMENT",
    "Desired",
    "Observed",
    "State",
    "apply_group",
    "render",
    "render_grouped",
]

# Patch types that write to the composed resource: a Required miss on one of them
# means the resource would be created incomplete, so it is not created at all.
_WRITES_COMPOSED = frozenset(
    {"FromCompositeFieldPath", "CombineFromComposite", "FromEnvironmentFieldPath", "CombineFromEnvironment"}
)


@dataclasses.dataclass
class Observed:
    """An observed composed resource and its connection details."""

    resource: dict[str, Any]
    connection_details: dict[str, bytes]


@dataclasses.dataclass
class Desired:
    """A desired composed resource and its ready flag (``None`` means unspecified)."""

    resource: dict[str, Any]
    ready: bool | None = None


@dataclasses.dataclass
class State:
    """Everything a run shares across templates; patches see each other's writes."""

    oxr: dict[str, Any]
    dxr: dict[str, Any]
    env: dict[str, Any]
    xr_connection_details: dict[str, bytes]
    observed: dict[str, Observed]
    desired: dict[str, Desired]
    skipped: int = 0
    normalised: dict[int, dict[str, Any]] = dataclasses.field(default_factory=dict)
    """Targets (by ``id``) already JSON round-tripped: see :func:`.patches.normalise_target`."""
    release: release.Release = release.CURRENT
    """The release the run behaves as."""


def _start(t: ptinput.ComposedTemplate, state: State) -> dict[str, Any]:
    if t.base is None:
        earlier = state.desired.get(t.name)
        if earlier is None:
            raise errors.CrossfnError(
                f"composed resource {errors.quote(t.name)} has no base template, "
                "and was not produced by a previous Function in the pipeline"
            )
        return copy.deepcopy(earlier.resource)
    try:
        if not isinstance(t.base, dict):
            raise gojson.type_error(t.base, "map[string]interface {}")
        base = patches.normalised_copy(t.base, state.normalised)
    except errors.CrossfnError as exc:
        # Up to v0.3.0 the base went through RenderFromJSON, which added a layer to the error.
        layer = "" if state.release.base_keeps_identity else "cannot unmarshal JSON data: "
        raise errors.CrossfnError(
            f"cannot parse base template of composed resource {errors.quote(t.name)}: {layer}{exc}"
        ) from exc
    if not state.release.base_keeps_identity:
        # RenderFromJSON restored the name and namespace of the (new, empty) object: none.
        _copy_identity(base, {})
    return base


def _copy_identity(dcd: dict[str, Any], ocd: dict[str, Any]) -> None:
    """Go's SetNamespace/SetName: an empty observed value removes the field."""
    for key in ("namespace", "name"):
        value = connection.xr_meta(ocd, key)
        meta = dcd.get("metadata")
        if not value:
            if isinstance(meta, dict):
                meta.pop(key, None)
            continue
        if not isinstance(meta, dict):
            meta = dcd["metadata"] = {}
        meta[key] = value


def render(t: ptinput.ComposedTemplate, state: State, warn: Callable[[str], None]) -> None:
    """Render one template into ``state.desired`` (unless a Required patch skips it), v0.3.0 on.

    Releases before v0.3.0 render with :func:`render_grouped`.
    """
    dcd = _start(t, state)
    ready: bool | None = None
    obs = state.observed.get(t.name)
    name = errors.quote(t.name)
    if obs is not None:
        _copy_identity(dcd, obs.resource)
        try:
            state.xr_connection_details.update(
                connection.extract(obs.resource, obs.connection_details, t.connection_details, state.release)
            )
        except errors.CrossfnError as exc:
            warn(f"cannot extract composite resource connection details from composed resource {name}: {exc}")
        try:
            ready = readiness.is_ready(obs.resource, t.readiness_checks, state.release) or None
        except errors.CrossfnError as exc:
            warn(f"cannot check readiness of composed resource {name}: {exc}")
    for i, p in enumerate(t.patches):
        try:
            _apply(p, obs.resource if obs is not None else None, dcd, state)
        except RecursionError:
            # A JSON string nested thousands deep decodes (Go allows 10,000 levels) but
            # is more than Python's stack can copy: the patch fails, naming itself.
            raise errors.CrossfnError(
                f"cannot render composed resource {name} {errors.quote(p.type)} patch at index {i}: "
                "value is nested too deeply"
            ) from None
        except errors.CrossfnError as exc:
            if not patches.is_not_found(exc):
                raise errors.CrossfnError(
                    f"cannot render composed resource {name} {errors.quote(p.type)} patch at index {i}: {exc}"
                ) from exc
            if p.policy_from != "Required":
                continue  # v0.3.0 read any other policy, an unknown one too, as Optional
            if p.type in _WRITES_COMPOSED and obs is None:
                warn(
                    f"not adding new composed resource {name} to desired state because {errors.quote(p.type)} "
                    f"patch at index {i} has 'policy.fromFieldPath: Required': {exc}"
                )
                state.skipped += 1
                return
            warn(
                f"cannot render composed resource {name} {errors.quote(p.type)} patch at index {i}: "
                f"ignoring 'policy.fromFieldPath: Required' because 'to' resource already exists: {exc}"
            )
    state.desired[t.name] = Desired(dcd, ready)


def _apply(p: ptinput.Patch, ocd: dict[str, Any] | None, dcd: dict[str, Any], state: State) -> None:
    """Dispatch a composed patch by type
    (upstream pt-5.1); patches reading the observed resource wait for it."""
    t = p.type
    n, r = state.normalised, state.release
    if t == "FromCompositeFieldPath":
        patches.apply_field(p, state.oxr, dcd, normalised=n, r=r)
    elif t == "CombineFromComposite":
        patches.apply_combine(p, state.oxr, dcd, normalised=n, r=r)
    elif t == "FromEnvironmentFieldPath":
        patches.apply_field(p, state.env, dcd, normalised=n, r=r)
    elif t == "CombineFromEnvironment":
        patches.apply_combine(p, state.env, dcd, normalised=n, r=r)
    elif ocd is None:
        return
    elif t == "ToCompositeFieldPath":
        patches.apply_field(p, ocd, state.dxr, normalised=n, r=r)
    elif t == "CombineToComposite":
        patches.apply_combine(p, ocd, state.dxr, normalised=n, r=r)
    elif t == "ToEnvironmentFieldPath":
        patches.apply_field(p, ocd, state.env, normalised=n, r=r)
    elif t == "CombineToEnvironment":
        patches.apply_combine(p, ocd, state.env, normalised=n, r=r)


# --- up to v0.2.x: patches grouped by direction -----------------------------------------------

TO_COMPOSITE = frozenset({"ToCompositeFieldPath", "CombineToComposite"})
TO_ENVIRONMENT = frozenset({"ToEnvironmentFieldPath", "CombineToEnvironment"})
FROM_COMPOSITE = frozenset({"FromCompositeFieldPath", "CombineFromComposite"})
FROM_ENVIRONMENT = frozenset({"FromEnvironmentFieldPath", "CombineFromEnvironment"})


def apply_group(
    ps: tuple[ptinput.Patch, ...],
    kinds: frozenset[str],
    source: Any,
    target: dict[str, Any],
    state: State,
) -> None:
    """Apply the patches of ``ps`` whose type is in ``kinds``, in order, as v0.2.x did.

    A missing source skips the patch unless its ``policy.fromFieldPath`` is set
    to something other than Optional; any other failure stops the group with
    ``cannot apply the "<type>" patch at index <i>: <error>`` (``i`` counts every
    patch of the template).
    """
    for i, p in enumerate(ps):
        if p.type not in kinds:
            continue
        try:
            if p.type.startswith("Combine"):
                patches.apply_combine(p, source, target, normalised=state.normalised, r=state.release)
            else:
                patches.apply_field(p, source, target, normalised=state.normalised, r=state.release)
        except errors.CrossfnError as exc:
            if patches.is_not_found(exc) and p.policy_from in (None, "Optional"):
                continue
            shown = p.type if p.type in FROM_COMPOSITE | TO_COMPOSITE else p.written_type
            raise errors.CrossfnError(
                f"cannot apply the {errors.quote(shown)} patch at index {i}: {exc}"
            ) from exc


def render_grouped(t: ptinput.ComposedTemplate, state: State, warn: Callable[[str], None]) -> None:
    """Render one template as releases before v0.3.0 did.

    For an observed resource: its identity, connection details and readiness,
    then its patches to the XR and to the environment (a failure is a Warning).
    Then the patches from the XR and from the environment: a failure is a
    Warning and leaves the resource out of the desired state.
    """
    dcd = _start(t, state)
    ready: bool | None = None
    obs = state.observed.get(t.name)
    name = errors.quote(t.name)
    env = state.release.has_environment
    if obs is not None:
        _copy_identity(dcd, obs.resource)
        try:
            state.xr_connection_details.update(
                connection.extract(obs.resource, obs.connection_details, t.connection_details, state.release)
            )
        except errors.CrossfnError as exc:
            warn(f"cannot extract composite resource connection details from composed resource {name}: {exc}")
        try:
            ready = readiness.is_ready(obs.resource, t.readiness_checks, state.release) or None
        except errors.CrossfnError as exc:
            warn(f"cannot check readiness of composed resource {name}: {exc}")
        groups = [("ToComposite", TO_COMPOSITE, state.dxr)] + (
            [("ToEnvironment", TO_ENVIRONMENT, state.env)] if env else []
        )
        for what, kinds, target in groups:
            try:
                apply_group(t.patches, kinds, obs.resource, target, state)
            except errors.CrossfnError as exc:
                warn(f"cannot render {what} patches for composed resource {name}: {exc}")
    sources = [("FromComposite", FROM_COMPOSITE, state.oxr)] + (
        [("FromEnvironment", FROM_ENVIRONMENT, state.env)] if env else []
    )
    for what, kinds, source in sources:
        try:
            apply_group(t.patches, kinds, source, dcd, state)
        except errors.CrossfnError as exc:
            warn(f"cannot render {what} patches for composed resource {name}: {exc}")
            return
    state.desired[t.name] = Desired(dcd, ready)
