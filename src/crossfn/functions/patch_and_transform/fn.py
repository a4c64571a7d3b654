"""One run of function-patch-and-transform: request in, response filled (upstream pt-1).

The steps and their Fatal prefixes follow Go's ``RunFunction`` exactly. A Fatal
result leaves the response's desired state and context as the request had them
(``rsp`` arrives started by :func:`crossfn.sdk.response.to`), after any warnings
already emitted. Request Structs are read with every number as ``float``, Go's
float64 model (upstream pt-4), and written back as doubles.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from crossfn import errors
from crossfn.functions.patch_and_transform import composed, connection, environment, patches, validation
from crossfn.functions.patch_and_transform import input as ptinput
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource, response

__all__ = ["compose"]


def _dict(s: Any) -> dict[str, Any]:
    return resource.struct_to_dict(s, integers=False)


def compose(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    """Run patch-and-transform on ``req``, writing results and desired state into ``rsp``."""

    def warn(message: str) -> None:
        response.warning(rsp, message, target=fnv1.TARGET_COMPOSITE)

    try:
        _run(req, rsp, warn)
    except errors.CrossfnError as exc:
        response.fatal(rsp, str(exc), target=fnv1.TARGET_COMPOSITE)
    except RecursionError:
        # Anywhere else (environment patches, the request's own objects): still a result.
        response.fatal(
            rsp, "cannot compose resources: a value is nested too deeply", target=fnv1.TARGET_COMPOSITE
        )


def _decode(req: fnv1.RunFunctionRequest) -> ptinput.Resources:
    try:
        res = ptinput.decode(_dict(req.input))
    except errors.CrossfnError as exc:
        raise errors.FunctionInputError(f"cannot get Function input: {exc}") from exc
    if err := validation.validate(res):
        raise errors.FunctionInputError(f"invalid Function input: {err}")
    return res


def _state(req: fnv1.RunFunctionRequest) -> composed.State:
    oxr = _dict(req.observed.composite.resource)
    dxr = _dict(req.desired.composite.resource)
    dxr["apiVersion"] = oxr.get("apiVersion", "") if isinstance(oxr.get("apiVersion"), str) else ""
    dxr["kind"] = oxr.get("kind", "") if isinstance(oxr.get("kind"), str) else ""
    context = _dict(req.context)
    return composed.State(
        oxr=oxr,
        dxr=dxr,
        env=environment.load(context),
        xr_connection_details=dict(req.desired.composite.connection_details),
        observed={
            name: composed.Observed(_dict(r.resource), dict(r.connection_details))
            for name, r in req.observed.resources.items()
        },
        desired={
            name: composed.Desired(
                _dict(r.resource), {fnv1.READY_TRUE: True, fnv1.READY_FALSE: False}.get(r.ready)
            )
            for name, r in req.desired.resources.items()
        },
    )


def _run(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse, warn: Callable[[str], None]) -> None:
    res = _decode(req)
    state = _state(req)
    try:
        templates = patches.resolve_patch_sets(res)
    except errors.CrossfnError as exc:
        raise errors.CrossfnError(f"cannot resolve PatchSets: {exc}") from exc
    environment.apply_patches(
        res.environment_patches, state.oxr, state.dxr, state.env, normalised=state.normalised
    )
    for t in templates:
        composed.render(t, state, warn)
    if not connection.supports_connection_details(state.oxr) and state.xr_connection_details:
        _add_connection_secret(res, state)
    _write(rsp, state)


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
    xr.ready = fnv1.READY_FALSE if state.skipped else fnv1.READY_UNSPECIFIED
    rsp.desired.ClearField("resources")
    for name, d in state.desired.items():
        out = rsp.desired.resources[name]
        out.resource.CopyFrom(resource.dict_to_struct(d.resource))
        out.ready = _READY[d.ready]
    rsp.context.fields[environment.CONTEXT_KEY].struct_value.CopyFrom(resource.dict_to_struct(state.env))
