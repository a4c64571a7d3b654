"""Fixtures for the controller's tests: a real API server (envtest) and clients connected to it.

Every test that needs the control plane carries ``@pytest.mark.cluster`` and asks
for one of these fixtures. Without ``KUBEBUILDER_ASSETS`` such tests skip with
one line saying what to set; with ``CI=true`` that skip fails the run instead,
so a CI job that lost its binaries cannot go green (``docs/development.md``).

One control plane serves the whole session (starting one costs 3-4 s and
~300 MiB); tests isolate themselves by namespace or by unique names.
"""

from __future__ import annotations

import asyncio
import importlib
import os
from collections.abc import AsyncIterator, Generator, Iterator
from typing import Any

import pytest

from crossfn.controller import envtest as envtest_module

SKIP_REASON = (
    "set KUBEBUILDER_ASSETS to a directory holding etcd and kube-apiserver (see docs/development.md)"
)


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip ``cluster`` tests up front when there are no binaries (before any fixture runs)."""
    if item.get_closest_marker("cluster") is not None and envtest_module.assets_directory() is None:
        pytest.skip(SKIP_REASON)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    """With ``CI=true`` a skipped ``cluster`` test is a failure: CI must really run them."""
    report = yield
    if report.skipped and _in_ci() and item.get_closest_marker("cluster") is not None:
        report.outcome = "failed"
        report.longrepr = f"cluster test skipped while CI=true: {_skip_message(report.longrepr)}"
    return report


def _skip_message(longrepr: object) -> str:
    """The reason of a skip report (pytest stores it as ``(path, line, message)``)."""
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


@pytest.fixture(scope="session")
def envtest() -> Iterator[envtest_module.Environment]:
    """etcd + kube-apiserver for the session; ``.kubeconfig``, ``.url``, ``.token``."""
    if envtest_module.assets_directory() is None:
        pytest.skip(SKIP_REASON)
    env = envtest_module.Environment()
    env.start()
    try:
        yield env
    finally:
        env.stop()


@pytest.fixture(scope="session")
def controller_manager(envtest: envtest_module.Environment) -> envtest_module.Environment:
    """The environment with kube-controller-manager's garbage collector, namespace controller and ClusterRole
    aggregation."""
    envtest.start_controller_manager()
    return envtest


@pytest.fixture
async def kube(envtest: envtest_module.Environment) -> AsyncIterator[Any]:
    """A ``KubeApi`` connected to the session's API server, closed after the test."""
    from crossfn.controller.kube import _kube

    api = _kube.KubeApi.from_kubeconfig(envtest.kubeconfig)
    try:
        yield api
    finally:
        await api.close()


@pytest.fixture(scope="session")
def crossplane_crds(envtest: envtest_module.Environment) -> list[str]:
    """crossfn's Crossplane CRDs, installed once per session (``_crds.install``)."""
    try:
        crds = importlib.import_module("crossfn.controller.crds._crds")
    except ModuleNotFoundError as exc:
        if exc.name != "crossfn.controller.crds._crds":
            raise
        pytest.skip("crossfn.controller.crds._crds is not there yet: the Crossplane CRDs cannot be installed")
    from crossfn.controller.kube import _kube

    async def install() -> list[str]:
        # Its own event loop and client: a session fixture outlives every test's loop.
        api = _kube.KubeApi.from_kubeconfig(envtest.kubeconfig)
        try:
            return [d.name for d in await crds.install(api)]
        finally:
            await api.close()

    return asyncio.run(install())
