"""Rewrite a legacy ``mode: Resources`` Composition into a Pipeline using this function.

This is ``crossplane beta convert pipeline-composition``'s conversion, on plain
dicts so both ``crossfn convert pipeline-composition`` and ``crossfn render``
(which accepts ``mode: Resources`` Compositions by converting them on the fly)
use the same code:

* ``spec.patchSets``, ``spec.resources`` and ``spec.environment.patches`` move
  into the input of one step, ``patch-and-transform``, calling
  ``function-patch-and-transform`` (name overridable), input
  ``pt.fn.crossplane.io/v1beta1`` ``Resources``;
* each patch gets its implicit type (``FromCompositeFieldPath``), the removed
  ``policy.mergeOptions`` becomes the equivalent ``policy.toFieldPath``, and
  transforms get the ``type`` fields the function requires;
* resources without a name are named ``resource-<index>``; connection details
  get their type from whichever source field is set (as upstream, an explicit
  type is re-derived) and FromConnectionSecretKey ones default their name;
* the native environment (``environmentConfigs``, ``defaultData``,
  ``policy.resolution``) moves into a first step, ``environment-configs``,
  calling ``function-environment-configs``, as upstream's second converter does.

A Composition already in Pipeline mode needs nothing: :func:`to_pipeline`
returns ``None``.
"""

from __future__ import annotations

import copy
from typing import Any

from crossfn import errors
from crossfn.sdk import fieldpath

__all__ = ["DEFAULT_ENVIRONMENT_FUNCTION", "DEFAULT_FUNCTION", "to_pipeline"]

DEFAULT_FUNCTION = "function-patch-and-transform"
DEFAULT_ENVIRONMENT_FUNCTION = "function-environment-configs"
_GROUP = "apiextensions.crossplane.io"


def _check_gvk(comp: Any) -> None:
    if not isinstance(comp, dict):
        raise errors.InputError("input is nil")
    api_version, kind = comp.get("apiVersion", ""), comp.get("kind", "")
    if not api_version and not kind:
        raise errors.InputError("GroupVersionKind is empty")
    group = api_version.rpartition("/")[0] if isinstance(api_version, str) else ""
    if group != _GROUP:
        raise errors.InputError(f"GroupVersionKind Group is not {_GROUP}")
    if kind != "Composition":
        raise errors.InputError("GroupVersionKind Kind is not Composition")


def to_pipeline(
    composition: dict[str, Any],
    *,
    function_name: str = DEFAULT_FUNCTION,
    environment_function_name: str = DEFAULT_ENVIRONMENT_FUNCTION,
) -> dict[str, Any] | None:
    """Return ``composition`` converted to Pipeline mode (a new dict), or ``None`` if it already is."""
    _check_gvk(composition)
    out = copy.deepcopy(composition)
    spec = out.get("spec")
    if spec is None:
        spec = out["spec"] = {}
    if not isinstance(spec, dict):
        raise errors.InputError("failed to get composition mode: spec: not an object")
    if spec.get("mode", "Resources") == "Pipeline":
        return None
    spec["mode"] = "Pipeline"
    pt_input: dict[str, Any] = {"apiVersion": "pt.fn.crossplane.io/v1beta1", "kind": "Resources"}
    env = spec.get("environment")
    if isinstance(env, dict) and isinstance(env.get("patches"), list):
        pt_input["environment"] = {"patches": [_patch(p) for p in env.pop("patches")]}
    if isinstance(spec.get("patchSets"), list):
        pt_input["patchSets"] = [_patch_set(s) for s in spec.pop("patchSets")]
    resources = spec.pop("resources", None)
    if isinstance(resources, list):
        pt_input["resources"] = [_resource(r, i) for i, r in enumerate(resources)]
    pipeline = spec.get("pipeline")
    if not isinstance(pipeline, list) or not pipeline:
        pipeline = spec["pipeline"] = [{}]
    step = pipeline[0] if isinstance(pipeline[0], dict) else {}
    pipeline[0] = step
    step["step"] = "patch-and-transform"
    step["functionRef"] = {**(step.get("functionRef") or {}), "name": function_name or DEFAULT_FUNCTION}
    step["input"] = pt_input
    _move_environment(spec, environment_function_name or DEFAULT_ENVIRONMENT_FUNCTION)
    return out


def _move_environment(spec: dict[str, Any], function_name: str) -> None:
    """Move the native environment into a function-environment-configs step (upstream's second pass)."""
    env = spec.get("environment")
    if not isinstance(env, dict):
        return
    env_input: dict[str, Any] = {"apiVersion": "environmentconfigs.fn.crossplane.io/v1beta1", "kind": "Input"}
    env_spec: dict[str, Any] = {}
    if "defaultData" in env:
        env_spec["defaultData"] = env["defaultData"]
    if "environmentConfigs" in env:
        env_spec["environmentConfigs"] = env["environmentConfigs"]
    policy = env.get("policy")
    if isinstance(policy, dict) and isinstance(policy.get("resolution"), str):
        env_spec["policy"] = {"resolution": policy["resolution"]}
    if not env_spec:
        if not env:
            del spec["environment"]
        return
    env_input["spec"] = env_spec
    del spec["environment"]
    spec["pipeline"].insert(
        0, {"step": "environment-configs", "functionRef": {"name": function_name}, "input": env_input}
    )


def _patch_set(s: Any) -> Any:
    if not isinstance(s, dict) or not isinstance(s.get("patches"), list):
        return s
    return {**s, "patches": [_patch(p) for p in s["patches"]]}


def _resource(r: Any, index: int) -> Any:
    if not isinstance(r, dict):
        return r
    r = dict(r)
    if "name" not in r:
        r["name"] = f"resource-{index}"
    if isinstance(r.get("connectionDetails"), list):
        r["connectionDetails"] = [_connection_detail(c) for c in r["connectionDetails"]]
    if isinstance(r.get("patches"), list):
        r["patches"] = [_patch(p) for p in r["patches"]]
    return r


def _connection_detail(c: Any) -> Any:
    if not isinstance(c, dict):
        return c
    out = {k: c[k] for k in ("name", "value", "fromConnectionSecretKey", "fromFieldPath") if k in c}
    if "value" in c:
        out["type"] = "FromValue"
    elif "fromFieldPath" in c:
        out["type"] = "FromFieldPath"
    elif "fromConnectionSecretKey" in c:
        out["type"] = "FromConnectionSecretKey"
        out.setdefault("name", c["fromConnectionSecretKey"])
    return out


def _merge_options_policy(mo: Any) -> str | None:
    """The toFieldPath policy equivalent to legacy mergeOptions (function-patch-and-transform's README table)."""
    if not isinstance(mo, dict):
        return None
    keep, append = bool(mo.get("keepMapValues")), bool(mo.get("appendSlice"))
    if keep:
        return "MergeObjectsAppendArrays" if append else "MergeObjects"
    return "ForceMergeObjectsAppendArrays" if append else "ForceMergeObjects"


def _patch(p: Any) -> Any:
    if not isinstance(p, dict):
        return p
    p = copy.deepcopy(p)
    if "type" not in p:
        p["type"] = "FromCompositeFieldPath"
    policy = p.get("policy")
    if isinstance(policy, dict) and "mergeOptions" in policy:
        new = _merge_options_policy(policy.pop("mergeOptions"))
        if new is not None:
            fieldpath.set_value(p, "policy.toFieldPath", new)
    if isinstance(p.get("transforms"), list):
        p["transforms"] = [_transform(t) for t in p["transforms"]]
    return p


def _transform(t: Any) -> Any:
    """Fill the ``type`` fields the function requires but the built-in engine inferred."""
    if not isinstance(t, dict):
        return t
    if not t.get("type"):
        if isinstance(t.get("math"), dict):
            t["type"] = "math"
        if isinstance(t.get("string"), dict):
            t["type"] = "string"
    math_cfg, string_cfg = t.get("math"), t.get("string")
    if t.get("type") == "math" and isinstance(math_cfg, dict) and not math_cfg.get("type"):
        for key, kind in (("clampMin", "ClampMin"), ("clampMax", "ClampMax"), ("multiply", "Multiply")):
            if math_cfg.get(key) is not None:
                math_cfg["type"] = kind
                break
    if t.get("type") == "string" and isinstance(string_cfg, dict) and not string_cfg.get("type"):
        for key, kind in (("fmt", "Format"), ("convert", "Convert"), ("regexp", "Regexp")):
            if string_cfg.get(key) is not None:
                string_cfg["type"] = kind
                break
    return t
