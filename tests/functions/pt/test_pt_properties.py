"""Property test: whatever the input and observed state, compose returns a response and never raises.

A Python exception escaping ``compose`` would be a crossfn bug (the SDK would
turn it into an opaque Fatal); every problem must be a Fatal or Warning result
with a message.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crossfn.functions import patch_and_transform
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource, response

paths = st.sampled_from(
    [
        "spec.a",
        "spec.b",
        "spec.l[0]",
        "spec.l[*]",
        "spec.m[*].n",
        "status.x",
        "metadata.labels",
        "a..b",
        "spec",
        "",
        "[0]",
        "kind",
        "spec.l[2000]",
    ]
)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["10", "x", "", "true", "1.5"])
)
values = st.recursive(
    scalars,
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.sampled_from(["n", "a", "*"]), c, max_size=2),
    max_leaves=6,
)
transforms = st.sampled_from(
    [
        {"type": "convert", "convert": {"toType": "int64"}},
        {"type": "convert", "convert": {"toType": "string"}},
        {"type": "math", "math": {"type": "Multiply", "multiply": 3}},
        {"type": "string", "string": {"type": "Format", "fmt": "%d-%s"}},
        {"type": "map", "map": {"10": 1, "x": {"k": "v"}}},
        {
            "type": "match",
            "match": {
                "patterns": [{"type": "regexp", "regexp": "^1", "result": "one"}],
                "fallbackTo": "Input",
            },
        },
        {"type": "string", "string": {"type": "Join", "join": {"separator": "→"}}},
    ]
)
policies = st.sampled_from(
    [None, "Replace", "MergeObjects", "ForceMergeObjectsAppendArrays", "MergeObjectsAppendArrays"]
)
patch_types = st.sampled_from(
    [
        "FromCompositeFieldPath",
        "ToCompositeFieldPath",
        "FromEnvironmentFieldPath",
        "ToEnvironmentFieldPath",
        "CombineFromComposite",
        "CombineToEnvironment",
    ]
)


@st.composite
def patches(draw: Any) -> dict[str, Any]:
    t = draw(patch_types)
    p: dict[str, Any] = {"type": t, "fromFieldPath": draw(paths) or "spec.a", "toFieldPath": draw(paths)}
    if t.startswith("Combine"):
        p["combine"] = {
            "strategy": "string",
            "variables": [{"fromFieldPath": draw(paths) or "spec.a"}],
            "string": {"fmt": "%v"},
        }
    p["transforms"] = draw(st.lists(transforms, max_size=2))
    policy = draw(policies)
    from_policy = draw(st.sampled_from([None, "Required"]))
    if policy or from_policy:
        p["policy"] = {k: v for k, v in (("toFieldPath", policy), ("fromFieldPath", from_policy)) if v}
    return p


@st.composite
def requests(draw: Any) -> fnv1.RunFunctionRequest:
    templates = [
        {
            "name": f"r{i}",
            "base": {
                "apiVersion": "v1",
                "kind": "CD",
                "spec": draw(st.dictionaries(st.sampled_from(["a", "l", "m"]), values, max_size=2)),
            },
            "patches": draw(st.lists(patches(), max_size=3)),
            "readinessChecks": draw(
                st.sampled_from(
                    [
                        [],
                        [{"type": "MatchInteger", "fieldPath": "spec.a", "matchInteger": 1}],
                        [{"type": "MatchCondition"}],
                    ]
                )
            ),
            "connectionDetails": [{"type": "FromFieldPath", "name": "a", "fromFieldPath": "spec.a"}],
        }
        for i in range(draw(st.integers(1, 3)))
    ]
    req = fnv1.RunFunctionRequest(
        input=resource.dict_to_struct(
            {"apiVersion": "pt.fn.crossplane.io/v1beta1", "kind": "Resources", "resources": templates}
        )
    )
    xr = {
        "apiVersion": "example.org/v1",
        "kind": "XR",
        "spec": draw(
            st.dictionaries(st.sampled_from(["a", "b", "l", "m", "crossplane"]), values, max_size=3)
        ),
    }
    req.observed.composite.resource.CopyFrom(resource.dict_to_struct(xr))
    for t in templates:
        if draw(st.booleans()):
            req.observed.resources[t["name"]].resource.CopyFrom(
                resource.dict_to_struct(
                    {
                        "kind": "CD",
                        "spec": draw(st.dictionaries(st.sampled_from(["a", "l"]), values, max_size=2)),
                    }
                )
            )
    req.context.update(
        {
            "apiextensions.crossplane.io/environment": draw(
                st.dictionaries(st.sampled_from(["spec", "a"]), values, max_size=2)
            )
        }
    )
    return req


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(req=requests())
def test_compose_never_raises(req: fnv1.RunFunctionRequest) -> None:
    """Every outcome is a response; a Fatal result carries a message."""
    rsp = response.to(req)
    patch_and_transform.compose(req, rsp)
    for r in rsp.results:
        assert r.message
        assert r.target == fnv1.TARGET_COMPOSITE
