"""Go's number model through whole runs
(upstream pt-4): float64 from the request, int64 after a JSON round trip."""

from __future__ import annotations

from typing import Any

import pytest
from ptcases import CD, XR, env_context, inp, run

APPEND = {"toFieldPath": "ForceMergeObjectsAppendArrays"}


def _desired_resource(rsp: dict[str, Any]) -> dict[str, Any]:
    resource: dict[str, Any] = rsp["desired"]["resources"]["cd"]["resource"]
    return resource


def test_first_append_does_not_dedup_request_floats() -> None:
    """An earlier function's [1] is float64; the patch's [1] is int64, so the first append keeps both, the second dedups."""
    patch = {"fromFieldPath": "spec.l", "toFieldPath": "spec.l", "policy": APPEND}
    got = run(
        {
            "input": inp(resources=[{"name": "cd", "patches": [patch, patch]}]),
            "observed": {"composite": {"resource": {**XR, "spec": {"l": [1]}}}},
            "desired": {"resources": {"cd": {"resource": {**CD, "spec": {"l": [1]}}}}},
        }
    )
    assert _desired_resource(got)["spec"]["l"] == [1.0, 1.0]


@pytest.mark.parametrize(
    ("env_patches", "want"),
    [
        pytest.param([], "n=%!d(float64=5)", id="EnvironmentFromRequestIsFloat64"),
        pytest.param(
            [{"type": "FromCompositeFieldPath", "fromFieldPath": "spec.x", "toFieldPath": "x"}],
            "n=5",
            id="EnvironmentIsInt64AfterAnyWrite",
        ),
    ],
)
def test_environment_numbers(env_patches: list[dict[str, Any]], want: str) -> None:
    """%d prints an environment number only once a write has round-tripped the environment."""
    fmt = {"type": "string", "string": {"type": "Format", "fmt": "n=%d"}}
    res: dict[str, Any] = {
        "resources": [
            {
                "name": "cd",
                "base": CD,
                "patches": [
                    {
                        "type": "FromEnvironmentFieldPath",
                        "fromFieldPath": "n",
                        "toFieldPath": "spec.n",
                        "transforms": [fmt],
                    }
                ],
            }
        ]
    }
    if env_patches:
        res["environment"] = {"patches": env_patches}
    got = run(
        {
            "input": inp(**res),
            "observed": {"composite": {"resource": {**XR, "spec": {"x": "y"}}}},
            "context": env_context(n=5),
        }
    )
    assert _desired_resource(got)["spec"]["n"] == want


def test_xr_numbers_print_as_float64() -> None:
    """%d on an XR number prints Go's bad-verb form, and %v uses the shortest %g form
    (upstream pt-9 item 1)."""
    got = run(
        {
            "input": inp(
                resources=[
                    {
                        "name": "cd",
                        "base": CD,
                        "patches": [
                            {
                                "type": "CombineFromComposite",
                                "toFieldPath": "spec.s",
                                "combine": {
                                    "strategy": "string",
                                    "variables": [{"fromFieldPath": "spec.a"}, {"fromFieldPath": "spec.b"}],
                                    "string": {"fmt": "%d %v"},
                                },
                            },
                            {
                                "fromFieldPath": "spec.a",
                                "toFieldPath": "spec.t",
                                "transforms": [{"type": "string", "string": {"type": "Format", "fmt": "%v"}}],
                            },
                        ],
                    }
                ]
            ),
            "observed": {"composite": {"resource": {**XR, "spec": {"a": 10, "b": 1000000}}}},
        }
    )
    assert _desired_resource(got)["spec"] == {"s": "%!d(float64=10) 1e+06", "t": "10"}
