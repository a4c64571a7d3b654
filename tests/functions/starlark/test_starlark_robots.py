"""The design document's Starlark robots example, run through the function directly.

The script is read from ``examples/starlark-robots/composition.yaml`` so the
example users copy is the one under test.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from google.protobuf import json_format

from crossfn.functions import starlark
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource, response

EXAMPLE = Path(__file__).parents[3] / "examples" / "starlark-robots"


@pytest.fixture(scope="module")
def fn() -> Iterator[starlark.Starlark]:
    with starlark.Starlark(workers=1) as f:
        yield f


def _load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((EXAMPLE / name).read_text())
    return data


def _request(count: int, observed: dict[str, Any]) -> fnv1.RunFunctionRequest:
    xr = _load("xr.yaml")
    xr["spec"]["count"] = count
    step = _load("composition.yaml")["spec"]["pipeline"][0]
    return json_format.ParseDict(
        {
            "observed": {"composite": {"resource": xr}, "resources": observed},
            "desired": {"composite": {"resource": xr}},
            "input": step["input"],
        },
        fnv1.RunFunctionRequest(),
    )


def _robots(rsp: fnv1.RunFunctionResponse) -> dict[str, dict[str, Any]]:
    assert [r.message for r in rsp.results if r.severity == fnv1.SEVERITY_FATAL] == []
    return {name: resource.struct_to_dict(r.resource) for name, r in rsp.desired.resources.items()}


def _run(fn: starlark.Starlark, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
    rsp = response.to(req)
    fn(req, rsp)
    return rsp


def test_three_robots_for_count_three(fn: starlark.Starlark) -> None:
    """spec.count: 3 on a first reconcile composes robot-0..2, purple, external names from the XR's."""
    robots = _robots(_run(fn, _request(3, {})))
    assert sorted(robots) == ["robot-0", "robot-1", "robot-2"]
    for i in range(3):
        assert robots[f"robot-{i}"] == {
            "apiVersion": "iam.dummy.upbound.io/v1alpha1",
            "kind": "Robot",
            "metadata": {"annotations": {"crossplane.io/external-name": f"somename-robot-{i}"}},
            "spec": {"forProvider": {"color": "purple"}},
        }


def test_observed_robots_are_kept(fn: starlark.Starlark) -> None:
    """A robot that already exists is desired exactly as observed (red stays red)."""
    observed_robot = _load("observed.yaml")
    rsp = _run(fn, _request(3, {"robot-0": {"resource": observed_robot}}))
    robots = _robots(rsp)
    assert robots["robot-0"] == observed_robot
    assert robots["robot-1"]["spec"]["forProvider"]["color"] == "purple"
    assert len(robots) == 3


def test_desired_composite_passes_through(fn: starlark.Starlark) -> None:
    """The script returns req["desired"], so the desired XR from earlier steps survives."""
    req = _request(1, {})
    rsp = _run(fn, req)
    assert rsp.desired.composite == req.desired.composite
