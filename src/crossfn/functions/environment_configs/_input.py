"""The input of function-environment-configs, ``environmentconfigs.fn.crossplane.io/v1beta1`` ``Input``, as Go types.

The types are upstream's ``input/v1beta1`` (named as ``%v`` prints them in
decoding errors); :func:`input_type` gives a release's: ``policy`` was
crossplane-runtime's ``v1.Policy`` (``resolve`` and ``resolution``) up to
v0.0.5, and ``toFieldPath`` arrived in v0.7.0.
"""

from __future__ import annotations

import functools

from crossfn.gocompat import jsonstruct as js

__all__ = ["input_type"]

_MATCHER = js.Struct(
    "v1beta1.EnvironmentSourceSelectorLabelMatcher",
    {
        "type": js.Scalar("string", "v1beta1.EnvironmentSourceSelectorLabelMatcherType"),
        "key": js.STRING,
        "valueFromFieldPath": js.STRING,
        "fromFieldPathPolicy": js.Scalar("string", "v1beta1.FromFieldPathPolicy"),
        "value": js.STRING,
    },
)
_SELECTOR = js.Struct(
    "v1beta1.EnvironmentSourceSelector",
    {
        "mode": js.Scalar("string", "v1beta1.EnvironmentSourceSelectorModeType"),
        "maxMatch": js.UINT64,
        "minMatch": js.UINT64,
        "sortByFieldPath": js.STRING,
        "matchLabels": js.Slice(_MATCHER),
    },
)
_REFERENCE = js.Struct("v1beta1.EnvironmentSourceReference", {"name": js.STRING})
_RESOLUTION = js.Scalar("string", "v1.ResolutionPolicy")


@functools.cache
def input_type(*, resolve_policy: bool, to_field_path: bool) -> js.Struct:
    """The ``Input`` of a release: with crossplane-runtime's policy (``resolve_policy``), with ``toFieldPath``."""
    source: dict[str, js.Type] = {
        "type": js.Scalar("string", "v1beta1.EnvironmentSourceType"),
        "ref": _REFERENCE,
        "selector": _SELECTOR,
    }
    if to_field_path:
        source["toFieldPath"] = js.STRING
    policy = (
        js.Struct(
            "v1.Policy", {"resolve": js.Scalar("string", "v1.ResolvePolicy"), "resolution": _RESOLUTION}
        )
        if resolve_policy
        else js.Struct("v1beta1.Policy", {"resolution": _RESOLUTION})
    )
    spec = js.Struct(
        "v1beta1.InputSpec",
        {
            "defaultData": js.Map(js.Scalar("any", "v1.JSON")),
            "environmentConfigs": js.Slice(js.Struct("v1beta1.EnvironmentSource", source)),
            "policy": policy,
        },
    )
    return js.Struct(
        "v1beta1.Input", {"apiVersion": js.STRING, "kind": js.STRING, "metadata": js.ANY, "spec": spec}
    )
