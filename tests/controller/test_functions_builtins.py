"""The controller's transport runs environment-configs, extra-resources, cel-filter and dummy in-process.

A Function whose package is one of these upstream packages, at a release the
built-in reproduces, is routed to the built-in (no FunctionRevision, no gRPC),
as ``crossfn render`` decides (``crossfn.functions.resolve``); the release it
is matched to is the behaviour that runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from crossfn.controller.packages import _functions
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import testing


class _Cache:
    """An informer's read side over a list of objects (only what routing reads)."""

    def __init__(self, *objects: dict[str, Any]) -> None:
        self.objects = list(objects)

    def get(self, name: str, namespace: str = "") -> dict[str, Any] | None:
        return next((o for o in self.objects if o["metadata"]["name"] == name), None)

    def list(
        self, namespace: str | None = None, labels: Mapping[str, str] | None = None
    ) -> list[dict[str, Any]]:
        return []


class _Metrics:
    def __init__(self) -> None:
        self.targets: list[str] = []

    def run_started(self, function: str, target: str, method: str) -> None:
        self.targets.append(target)

    def run_finished(
        self, function: str, *, target: str, method: str, code: str, severity: str, seconds: float
    ) -> None:
        return None

    def cache(self, event: str, function: str, amount: float = 1) -> None:
        return None

    def cache_seconds(self, op: str, function: str, seconds: float) -> None:
        return None


def _function(package: str) -> dict[str, Any]:
    return {
        "apiVersion": "pkg.crossplane.io/v1",
        "kind": "Function",
        "metadata": {"name": "f"},
        "spec": {"package": package},
    }


P = "xpkg.crossplane.io/crossplane-contrib/"
# (package, the built-in it routes to, a request, the Fatal result the built-in gives it: its release's text)
CASES = [
    (
        f"{P}function-environment-configs:v0.7.1",
        "environment-configs",
        {"spec": {"bogus": 1}},
        'cannot unmarshal Go value of type v1beta1.InputSpec: unknown name "bogus"',
    ),
    (f"{P}function-environment-configs:v0.0.4", "environment-configs@v0.0.4", {"spec": {"bogus": 1}}, ""),
    (
        f"{P}function-extra-resources:v0.3.0",
        "extra-resources",
        {
            "spec": {
                "extraResources": [
                    {
                        "into": "x",
                        "type": "Selector",
                        "selector": {"matchLabels": [{"type": "Value", "key": "k"}]},
                    }
                ]
            }
        },
        "could not build extra resource requirements: Value cannot be nil for type 'Value'",
    ),
    (
        f"{P}function-extra-resources:v0.0.3",
        "extra-resources@v0.0.3",
        {
            "spec": {
                "extraResources": [
                    {
                        "into": "x",
                        "type": "Selector",
                        "selector": {"matchLabels": [{"type": "Value", "key": "k"}]},
                    }
                ]
            }
        },
        "panic: runtime error: invalid memory address or nil pointer dereference",
    ),
    (
        f"{P}function-cel-filter:v0.2.0",
        "cel-filter",
        {"filters": [{"name": "x", "expression": "1"}]},
        "will return int instead",
    ),
    (
        f"{P}function-cel-filter:v0.1.1",
        "cel-filter@v0.1.1",
        {"filters": [{"name": "x", "expression": "observed"}]},
        "v1beta1.State",
    ),
    (f"{P}function-dummy:v0.4.1", "dummy", {"response": {"output": {}}}, ""),
    (f"{P}function-dummy:v0.2.1", "dummy@v0.3.0", {"response": {"output": {}}}, 'unknown field "output"'),
]


@pytest.mark.parametrize(("package", "builtin", "inp", "fatal"), CASES, ids=[c[1] for c in CASES])
async def test_transport_runs_the_builtin(
    package: str, builtin: str, inp: dict[str, Any], fatal: str
) -> None:
    fns = _Cache(_function(package))
    assert _functions.route(fns.get("f")) == _functions.Route("builtin", builtin)
    metrics = _Metrics()
    transport = _functions.FunctionTransport(fns, _Cache(), metrics=metrics)
    try:
        rsp = await transport.run_function("f", testing.build_request(input=inp))
    finally:
        await transport.aclose()
    assert metrics.targets == ["in-process"], "no gRPC call: the built-in runs in the controller"
    fatals = [r.message for r in rsp.results if r.severity == fnv1.SEVERITY_FATAL]
    if fatal:
        assert len(fatals) == 1, fatals
        assert fatal in fatals[0], fatals
    else:
        assert not fatals, fatals
