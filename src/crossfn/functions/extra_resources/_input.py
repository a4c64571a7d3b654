"""The input of function-extra-resources, ``extra-resources.fn.crossplane.io/v1beta1`` ``Input``, as Go types.

The types are upstream's ``input/v1beta1`` (named as ``%v`` prints them in
decoding errors); :func:`input_type` gives a release's: ``namespace`` arrived
in v0.2.0.
"""

from __future__ import annotations

import functools

from crossfn.gocompat import jsonstruct as js

__all__ = ["input_type"]

_MATCHER = js.Struct(
    "v1beta1.ResourceSourceSelectorLabelMatcher",
    {
        "type": js.Scalar("string", "v1beta1.ResourceSourceSelectorLabelMatcherType"),
        "key": js.STRING,
        "valueFromFieldPath": js.STRING,
        "fromFieldPathPolicy": js.Scalar("string", "v1beta1.FromFieldPathPolicy"),
        "value": js.STRING,
    },
)
_SELECTOR = js.Struct(
    "v1beta1.ResourceSourceSelector",
    {
        "maxMatch": js.UINT64,
        "minMatch": js.UINT64,
        "sortByFieldPath": js.STRING,
        "matchLabels": js.Slice(_MATCHER),
    },
)
_POLICY = js.Struct("v1beta1.Policy", {"resolution": js.Scalar("string", "v1.ResolutionPolicy")})


@functools.cache
def input_type(*, namespace: bool) -> js.Struct:
    """The ``Input`` of a release: with ``namespace`` (v0.2.0) or without."""
    source: dict[str, js.Type] = {
        "type": js.Scalar("string", "v1beta1.ResourceSourceType"),
        "ref": js.Struct("v1beta1.ResourceSourceReference", {"name": js.STRING}),
        "selector": _SELECTOR,
        "kind": js.STRING,
        "apiVersion": js.STRING,
        "into": js.STRING,
    }
    if namespace:
        source["namespace"] = js.STRING
    spec = js.Struct(
        "v1beta1.InputSpec",
        {"extraResources": js.Slice(js.Struct("v1beta1.ResourceSource", source)), "policy": _POLICY},
    )
    return js.Struct(
        "v1beta1.Input", {"apiVersion": js.STRING, "kind": js.STRING, "metadata": js.ANY, "spec": spec}
    )
