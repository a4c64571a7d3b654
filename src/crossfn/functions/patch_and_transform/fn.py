"""One run of function-patch-and-transform: request in, response filled (upstream pt-1).

The steps and their Fatal prefixes follow Go's ``RunFunction`` exactly. A Fatal
result leaves the response's desired state and context as the request had them
(``rsp`` arrives started by :func:`crossfn.sdk.response.to`), after any warnings
already emitted. Request Structs are read with every number as ``float``, Go's
float64 model (upstream pt-4), and written back as doubles.

:class:`PatchAndTransform` runs as one upstream release (:mod:`.release`);
:data:`compose` is the newest. Releases before v0.3.0 applied each template's
patches grouped by direction (:func:`.composed.render_grouped`) and their
environment patches in two passes, to the environment and then from it.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any

from google.protobuf import struct_pb2

from crossfn import errors
from crossfn.functions.patch_and_transform import (
    composed,
    connection,
    environment,
    patches,
    release,
    validation,
)
from crossfn.functions.patch_and_transform import input as ptinput
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource, response

__all__ = ["PatchAndTransform", "compose"]


def _dict(s: Any) -> dict[str, Any]:
    return resource.struct_to_dict(s, integers=False)


@dataclasses.dataclass(frozen=True)
class PatchAndTransform:
    """function-patch-and-transform as release ``release`` behaves; call it as ``compose(req, rsp)``."""

    release: release.Release = release.CURRENT

    def __call__(self, req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        """Run patch-and-transform on ``req``, writing results and desired state into ``rsp``."""
        r = self.release
        if not r.passes_context_on:
            rsp.ClearField("context")
        # function-sdk-go v0.4.0 (P&T v0.8.0) started naming the composite as the results' target.
        target = fnv1.TARGET_COMPOSITE if r.results_target_composite else None

        def warn(message: str) -> None:
            response.warning(rsp, message, target=target)

        try:
            _run(req, rsp, warn, r)
        except errors.CrossfnError as exc:
            response.fatal(rsp, str(exc), target=target)
        except RecursionError:
            # Anywhere else (environment patches, the request's own objects): still a result.
            response.fatal(rsp, "cannot compose resources: a value is nested too deeply", target=target)


compose = PatchAndTransform()
"""The newest release (v0.10.8)."""


@dataclasses.dataclass(frozen=True)
class _Input:
    """A decoded, validated input and its templates with PatchSets resolved (or why they cannot be)."""

    resources: ptinput.Resources
    templates: tuple[ptinput.ComposedTemplate, ...]
    patch_sets_error: str | None


def _decode(req: fnv1.RunFunctionRequest, r: release.Release) -> _Input:
    """The request's input, decoded and validated; the same input (by its bytes) is decoded once.

    A Composition sends the same input on every call, and decoding and checking it was about
    a third of a call's CPU. The decoded input is frozen (templates' bases are copied before
    they are patched), so one decoded input serves every call that sends the same bytes.
    """
    return _decoded(req.input.SerializeToString(deterministic=True), r)


@functools.lru_cache(maxsize=64)
def _decoded(raw: bytes, r: release.Release) -> _Input:
    given = struct_pb2.Struct()
    given.ParseFromString(raw)
    try:
        res = ptinput.decode(_dict(given), r)
    except errors.CrossfnError as exc:
        raise errors.FunctionInputError(f"cannot get Function input: {exc}") from exc
    if err := validation.validate(res, r):
        raise errors.FunctionInputError(f"invalid Function input: {err}")
    try:
        return _Input(res, patches.resolve_patch_sets(res), None)
    except errors.CrossfnError as exc:
        return _Input(res, (), str(exc))


def _state(req: fnv1.RunFunctionRequest, r: release.Release) -> composed.State:
    oxr = _dict(req.observed.composite.resource)
    dxr = _dict(req.desired.composite.resource)
    dxr["apiVersion"] = oxr.get("apiVersion", "") if isinstance(oxr.get("apiVersion"), str) else ""
    dxr["kind"] = oxr.get("kind", "") if isinstance(oxr.get("kind"), str) else ""
    context = _dict(req.context)
    return composed.State(
        oxr=oxr,
        dxr=dxr,
        env=environment.load(context, r) if r.has_environment else {},
        xr_connection_details=dict(req.desired.composite.connection_details),
        observed={
            name: composed.Observed(_dict(o.resource), dict(o.connection_details))
            for name, o in req.observed.resources.items()
        },
        desired={
            name: composed.Desired(
                _dict(d.resource), {fnv1.READY_TRUE: True, fnv1.READY_FALSE: False}.get(d.ready)
            )
            for name, d in req.desired.resources.items()
        },
        release=r,
    )


def _run(
    req: fnv1.RunFunctionRequest,
    rsp: fnv1.RunFunctionResponse,
    warn: Callable[[str], None],
    r: release.Release,
) -> None:
    decoded = _decode(req, r)
    res, templates = decoded.resources, decoded.templates
    state = _state(req, r)
    if decoded.patch_sets_error is not None:
        raise errors.CrossfnError(f"cannot resolve PatchSets: {decoded.patch_sets_error}")
    if r.patches_in_order:
        environment.apply_patches(
            res.environment_patches, state.oxr, state.dxr, state.env, normalised=state.normalised, r=r
        )
        for t in templates:
            composed.render(t, state, warn)
    else:
        _environment_grouped(res, state)
        for t in templates:
            composed.render_grouped(t, state, warn)
    needs_secret = not connection.supports_connection_details(state.oxr) and state.xr_connection_details
    if r.has_connection_secret and needs_secret:
        _add_connection_secret(res, state)
    _write(rsp, state)


def _environment_grouped(res: ptinput.Resources, state: composed.State) -> None:
    """v0.2.x: every patch to the environment (from the XR) first, then every one from it (to the XR)."""
    passes = [
        ("ToEnvironment", "from", composed.TO_ENVIRONMENT, state.oxr, state.env),
        ("FromEnvironment", "to", composed.FROM_ENVIRONMENT, state.env, state.dxr),
    ]
    for what, way, kinds, source, target in passes:
        try:
            composed.apply_group(res.environment_patches, kinds, source, target, state)
        except errors.CrossfnError as exc:
            raise errors.CrossfnError(
                f"cannot render {what} patches {way} the composite resource: {exc}"
            ) from exc


def _add_connection_secret(res: ptinput.Resources, state: composed.State) -> None:
    try:
        name, namespace = connection.secret_ref(state.oxr, res.write_connection_secret_to_ref)
    except errors.CrossfnError as exc:
        raise errors.CrossfnError(
            f"cannot compose connection secret: cannot generate connection secret reference: {exc}"
        ) from exc
    secret = connection.connection_secret(name, namespace, state.xr_connection_details)
    key = f"{connection.xr_meta(state.oxr, 'name')}-connection-secret"
    state.desired[key] = composed.Desired(secret, True)


_READY = {None: fnv1.READY_UNSPECIFIED, True: fnv1.READY_TRUE, False: fnv1.READY_FALSE}


def _write(rsp: fnv1.RunFunctionResponse, state: composed.State) -> None:
    """Steps 12 to 14: the desired XR, the desired composed resources and the environment."""
    xr = rsp.desired.composite
    xr.Clear()
    xr.resource.CopyFrom(resource.dict_to_struct(state.dxr))
    for k, v in state.xr_connection_details.items():
        xr.connection_details[k] = v
    unready = state.skipped and state.release.unready_when_skipped
    xr.ready = fnv1.READY_FALSE if unready else fnv1.READY_UNSPECIFIED
    rsp.desired.ClearField("resources")
    for name, d in state.desired.items():
        out = rsp.desired.resources[name]
        out.resource.CopyFrom(resource.dict_to_struct(d.resource))
        out.ready = _READY[d.ready]
    if state.release.has_environment:
        rsp.context.fields[environment.CONTEXT_KEY].struct_value.CopyFrom(resource.dict_to_struct(state.env))
