"""A legacy Composition (native patch-and-transform) is composed as Crossplane v1 composed it.

Crossplane v1's CRD defaulted ``spec.mode`` to ``Resources``, so such
Compositions, and their revisions, rarely spell it. The controller converts the
revision as ``crossfn convert pipeline-composition`` does and runs the
patch-and-transform step, and the environment-configs step of a native
environment, with the built-ins, whatever Functions are installed (as render does).
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from crossfn import engine
from crossfn.controller.composite import _composite

from . import composite_fixtures as fx
from .fake_api import FakeApi

LEGACY_SPEC: dict[str, Any] = {
    "compositeTypeRef": {"apiVersion": fx.XR_API, "kind": "XBucket"},
    "resources": [
        {
            "name": "cm",
            "base": {"apiVersion": "v1", "kind": "ConfigMap", "data": {"fixed": "yes"}},
            "patches": [{"fromFieldPath": "spec.size", "toFieldPath": "data.size"}],
        }
    ],
}


def _setup(
    spec: dict[str, Any], sources: engine.Sources | None = None
) -> tuple[FakeApi, _composite.CompositeReconciler]:
    api = FakeApi({(fx.XR_API, "XBucket"): True})
    comp = fx.composition()
    comp["spec"] = spec
    comp = api.put(comp)
    api.put(fx.revision(comp))
    sources = sources or engine.Sources()
    runner = engine.build_runner(
        engine.InProcessRunner({}), sources=sources, options=engine.ComposeOptions.controller()
    )
    reconciler = _composite.CompositeReconciler(
        api, None, fx.Events(), runner, sources, xrd=fx.xrd(),
        settings=_composite.CompositeSettings(realtime=False), clock=lambda: fx.T0,
    )  # fmt: skip
    return api, reconciler


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        pytest.param(LEGACY_SPEC, "spec.resources and no spec.mode", id="NoMode"),
        pytest.param({**LEGACY_SPEC, "mode": "Resources"}, "mode: Resources", id="ModeResources"),
    ],
)
async def test_legacy_revision_is_composed_with_the_builtin(
    spec: dict[str, Any], words: str, caplog: pytest.LogCaptureFixture
) -> None:
    """No Function is installed: the converted step runs the built-in P&T, and the controller says so once."""
    api, reconciler = _setup(spec)
    api.put(fx.xr())
    with caplog.at_level(logging.INFO, logger="crossfn.controller.compose"):
        await reconciler.reconcile("team/b")
        await reconciler.reconcile("team/b")
    [cm] = api.of_kind("ConfigMap")
    assert cm["data"] == {"fixed": "yes", "size": "s"}
    assert cm["metadata"]["annotations"]["crossplane.io/composition-resource-name"] == "cm"
    said = [r.getMessage() for r in caplog.records if "composing it as a Pipeline" in r.getMessage()]
    assert len(said) == 1, "logged once per revision, not on every reconcile"
    assert words in said[0] and "crossfn convert pipeline-composition" in said[0]


ENVIRONMENT_CONFIG = {
    "apiVersion": "apiextensions.crossplane.io/v1beta1",
    "kind": "EnvironmentConfig",
    "metadata": {"name": "env"},
    "data": {"region": "eu-west-1"},
}


async def test_legacy_environment_runs_the_builtin(caplog: pytest.LogCaptureFixture) -> None:
    """No Function is installed: the native environment's step runs the built-in environment-configs,
    which asks for the EnvironmentConfig, and the patch-and-transform step patches from it."""
    spec = {
        **LEGACY_SPEC,
        "environment": {"environmentConfigs": [{"type": "Reference", "ref": {"name": "env"}}]},
        "resources": [
            {
                **LEGACY_SPEC["resources"][0],
                "patches": [
                    {
                        "type": "FromEnvironmentFieldPath",
                        "fromFieldPath": "region",
                        "toFieldPath": "data.region",
                    }
                ],
            }
        ],
    }
    api, reconciler = _setup(spec, engine.Sources(resources=engine.InMemoryResources([ENVIRONMENT_CONFIG])))
    api.put(fx.xr())
    with caplog.at_level(logging.INFO, logger="crossfn.controller.compose"):
        await reconciler.reconcile("team/b")
    [cm] = api.of_kind("ConfigMap")
    assert cm["data"] == {"fixed": "yes", "region": "eu-west-1"}
    said = [r.getMessage() for r in caplog.records if "composing it as a Pipeline" in r.getMessage()]
    assert said and "function-patch-and-transform and function-environment-configs" in said[0]
