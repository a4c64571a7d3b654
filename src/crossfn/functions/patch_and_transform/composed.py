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
from crossfn.functions.patch_and_transform import connection, patches, readiness
from crossfn.functions.patch_and_transform import input as ptinput
from crossfn.gocompat import json as gojson

__all__ = ["Desired", "Observed", "State", "render"]

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
        base = copy.deepcopy(t.base)
        patches.normalise_target(base, state.normalised)
    except errors.CrossfnError as exc:
        raise errors.CrossfnError(
            f"cannot parse base template of composed resource {errors.quote(t.name)}: {exc}"
        ) from exc
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
    """Render one template into ``state.desired`` (unless a Required patch skips it)."""
    dcd = _start(t, state)
    ready: bool | None = None
    obs = state.observed.get(t.name)
    name = errors.quote(t.name)
    if obs is not None:
        _copy_identity(dcd, obs.resource)
        try:
            state.xr_connection_details.update(
                connection.extract(obs.resource, obs.connection_details, t.connection_details)
            )
        except errors.CrossfnError as exc:
            warn(f"cannot extract composite resource connection details from composed resource {name}: {exc}")
        try:
            ready = readiness.is_ready(obs.resource, t.readiness_checks) or None
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
                continue
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
    if t == "FromCompositeFieldPath":
        patches.apply_field(p, state.oxr, dcd, normalised=state.normalised)
    elif t == "CombineFromComposite":
        patches.apply_combine(p, state.oxr, dcd, normalised=state.normalised)
    elif t == "FromEnvironmentFieldPath":
        patches.apply_field(p, state.env, dcd, normalised=state.normalised)
    elif t == "CombineFromEnvironment":
        patches.apply_combine(p, state.env, dcd, normalised=state.normalised)
    elif ocd is None:
        return
    elif t == "ToCompositeFieldPath":
        patches.apply_field(p, ocd, state.dxr, normalised=state.normalised)
    elif t == "CombineToComposite":
        patches.apply_combine(p, ocd, state.dxr, normalised=state.normalised)
    elif t == "ToEnvironmentFieldPath":
        patches.apply_field(p, ocd, state.env, normalised=state.normalised)
    elif t == "CombineToEnvironment":
        patches.apply_combine(p, ocd, state.env, normalised=state.normalised)
