"""examples/controller (docs/controller.md's quick start) applies to a real API server and composes.

The YAML files are applied in the order the quick start gives, to the
session's envtest, and a :class:`~crossfn.controller.manager._manager.Manager` runs with
the quick start's flags (``--insecure-functions``, everything else default but
the listen addresses): the XR must become Ready with its ConfigMap composed,
patched both ways.
"""

from __future__ import annotations

import asyncio
import pathlib
import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
import yaml

from crossfn import cli
from crossfn.controller import _settings
from crossfn.controller import envtest as envtest_module
from crossfn.controller.manager import _manager

from .e2e_support import condition, wait_for

pytestmark = pytest.mark.cluster

EXAMPLE = pathlib.Path(__file__).parents[2] / "examples" / "controller"
ORDER = ("setup.yaml", "functions.yaml", "xrd.yaml", "composition.yaml", "xr.yaml")
"""The quick start's order: the XR kind is served only once the XRD is established."""

XR_API = "example.crossfn.io/v1"


def documents(name: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all((EXAMPLE / name).read_text()) if d]


@pytest.fixture
async def quick_start(
    envtest: envtest_module.Environment, crossplane_crds: list[str], kube: Any
) -> AsyncIterator[_manager.Manager]:
    """The controller as the quick start runs it: ``crossfn controller run --insecure-functions``."""
    for name in ORDER[:2]:
        for obj in documents(name):
            await kube.apply(obj, field_manager="quick-start", force=True)
    settings = _settings.Settings(
        webhooks=_settings.WebhookSettings(enabled=False),
        cluster=_settings.ClusterSettings(kubeconfig=envtest.kubeconfig),
        functions=_settings.FunctionSettings(insecure=True),
        observability=_settings.ObservabilitySettings(
            metrics_address="127.0.0.1:0", health_address="127.0.0.1:0"
        ),
    )
    manager = _manager.Manager(settings)
    await manager.start()
    try:
        yield manager
    finally:
        await manager.stop()


async def test_the_controller_example_composes(
    quick_start: _manager.Manager,
    kube: Any,
    envtest: envtest_module.Environment,
    capsys: pytest.CaptureFixture[str],
) -> None:
    [xrd] = documents("xrd.yaml")
    await kube.apply(xrd, field_manager="quick-start", force=True)

    async def served() -> bool:
        got = await kube.get(xrd["apiVersion"], xrd["kind"], xrd["metadata"]["name"])
        if condition(got, "Established").get("status") != "True":
            return False
        await kube.list(XR_API, "XGreeting", "example")
        return True

    await wait_for(served, timeout=30, what="the example XRD established and XGreeting served")
    for name in ORDER[3:]:
        for obj in documents(name):
            await kube.apply(obj, field_manager="quick-start", force=True)

    async def ready() -> dict[str, Any] | None:
        xr = await kube.get(XR_API, "XGreeting", "world", "example")
        return xr if condition(xr, "Ready").get("status") == "True" else None

    try:
        xr = await wait_for(ready, timeout=30, what="XGreeting example/world Ready")
        cm = await kube.get("v1", "ConfigMap", xr["status"]["configMapName"], "example")
        assert cm is not None and cm["data"] == {"greeting": "Hello, world!"}, (
            "composed in the XR's namespace, patched from the XR, its name patched back to the XR's status"
        )
        assert condition(xr, "Synced").get("status") == "True"

        # The quick start's last step: crossfn trace shows the XR and what it composed.
        argv = ["trace", "--kubeconfig", envtest.kubeconfig, "xgreeting", "world", "-n", "example"]
        assert await asyncio.to_thread(cli.main, argv) == 0
        lines = capsys.readouterr().out.splitlines()
        assert re.fullmatch(r"NAME +SYNCED +READY +STATUS", lines[0]), lines
        assert re.fullmatch(r"XGreeting/world \(example\) +True +True +Available", lines[1]), lines
        assert re.fullmatch(rf"└─ ConfigMap/{cm['metadata']['name']} \(example\) +- +- +", lines[2]), lines

        # Built-ins run in the controller's process; the package controller may lag the XR under load.
        async def healthy() -> bool:
            for fn in documents("functions.yaml"):
                got = await kube.get(fn["apiVersion"], "Function", fn["metadata"]["name"])
                if condition(got, "Healthy").get("status") != "True":
                    return False
            return True

        await wait_for(healthy, timeout=30, what="every built-in Function Healthy")
    finally:
        await kube.delete(XR_API, "XGreeting", "world", "example")
