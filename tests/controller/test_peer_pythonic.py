"""function-pythonic, a function nobody here wrote, under the controller against a real API server.

Its pinned PyPI release (``scripts/pythonic_peer_env.py``) composes a ConfigMap
for a namespaced XR, and the XR becomes Ready (pythonic's own auto-ready: a
ConfigMap is ready once observed). Two routes: the ``crossfn.io/endpoint``
annotation at a server started here as the package image starts it, and as
shipped: no annotation, the install ``crossfn function install`` made, which
the controller runs as its own child process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from crossfn.controller import _settings
from crossfn.controller import envtest as envtest_module
from crossfn.controller.manager import _manager

from .e2e_support import (
    CONTROLLER_NAMESPACE,
    FLAVOURS,
    Process,
    condition,
    free_port,
    function,
    namespace,
    wait_for,
)

pytestmark = [pytest.mark.cluster, pytest.mark.peer]

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "pythonic_peer_env.py"
FLAVOUR = FLAVOURS[0]
"""A v2 namespaced XR: pythonic composes into its namespace."""

_COMPOSITE = """class Composite(BaseComposite):
  def compose(self):
    cm = self.resources.settings('v1', 'ConfigMap')
    cm.data.size = self.spec.size
    cm.data.by = 'function-pythonic'
    self.status.seen = f"size {self.spec.size}"
"""


@pytest.fixture(scope="module")
def pythonic() -> dict[str, str]:
    out = subprocess.run(
        [sys.executable, str(SCRIPT)], capture_output=True, text=True, check=False, timeout=600
    )
    if out.returncode == 3:
        pytest.skip(out.stderr.strip())  # tests/controller/conftest.py: a failure under CI=true
    assert out.returncode == 0, out.stderr
    env: dict[str, str] = json.loads(out.stdout)
    return env


@pytest.fixture
async def manager(
    controller_manager: envtest_module.Environment,
    crossplane_crds: list[str],
    kube: Any,
    pythonic: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> AsyncIterator[_manager.Manager]:
    """A controller that finds the peer environment's installs, as ``crossfn controller run`` would with
    ``CROSSFN_FUNCTIONS_DIR`` set."""
    monkeypatch.setenv("CROSSFN_FUNCTIONS_DIR", pythonic["functions_dir"])
    for obj in (namespace(FLAVOUR.xr_namespace), namespace(CONTROLLER_NAMESPACE)):
        await kube.apply(obj, field_manager="e2e")
    settings = _settings.Settings(
        cluster=_settings.ClusterSettings(kubeconfig=controller_manager.kubeconfig),
        functions=_settings.FunctionSettings(insecure=True, timeout=30.0),
        packages=_settings.PackageSettings(runtime="External"),
        webhooks=_settings.WebhookSettings(enabled=False),  # no usage webhook on :9443
        observability=_settings.ObservabilitySettings(
            metrics_address="127.0.0.1:0", health_address="127.0.0.1:0"
        ),
    )
    m = _manager.Manager(settings)
    await m.start()
    try:
        await m.wait_ready()
        yield m
    finally:
        await m.stop()


async def _compose_to_ready(kube: Any, fn_name: str, route: str) -> dict[str, Any]:
    """Apply the XRD, a Composition calling ``fn_name``, and an XR; wait for its ConfigMap and Ready."""
    await kube.apply(FLAVOUR.xrd(), field_manager="e2e", force=True)

    async def served() -> bool:
        xrd = await kube.get(
            "apiextensions.crossplane.io/v1", "CompositeResourceDefinition", FLAVOUR.xrd_name
        )
        if condition(xrd, "Established").get("status") != "True":
            return False
        await kube.list(FLAVOUR.xr_api, "XWidget")
        return True

    await wait_for(served, timeout=30, what="the XRD Established")
    comp_name = f"pythonic-{route}"
    comp = {
        "apiVersion": "apiextensions.crossplane.io/v1",
        "kind": "Composition",
        "metadata": {"name": comp_name},
        "spec": {
            "compositeTypeRef": {"apiVersion": FLAVOUR.xr_api, "kind": "XWidget"},
            "mode": "Pipeline",
            "pipeline": [{
                "step": "pythonic",
                "functionRef": {"name": fn_name},
                "input": {
                    "apiVersion": "pythonic.fn.crossplane.io/v1alpha1", "kind": "Composite", "composite": _COMPOSITE,
                },
            }],
        },
    }  # fmt: skip
    await kube.apply(comp, field_manager="e2e", force=True)
    xr_name = f"pythonic-{route}"
    await kube.apply(FLAVOUR.xr(xr_name, comp_name, "large"), field_manager="e2e", force=True)
    ns = FLAVOUR.xr_namespace

    async def ready() -> dict[str, Any] | None:
        xr = await kube.get(FLAVOUR.xr_api, "XWidget", xr_name, ns)
        return xr if condition(xr, "Ready").get("status") == "True" else None

    xr = await wait_for(ready, timeout=60, what=f"the XR composed by function-pythonic ({route}) to be Ready")
    items, _ = await kube.list("v1", "ConfigMap", ns, labels={"crossplane.io/composite": xr_name})
    assert [cm["data"] for cm in items] == [{"size": "large", "by": "function-pythonic"}]
    assert xr["status"]["seen"] == "size large"
    await kube.delete(FLAVOUR.xr_api, "XWidget", xr_name, ns)
    return xr


async def test_pythonic_by_endpoint_annotation(
    manager: _manager.Manager, kube: Any, pythonic: dict[str, str]
) -> None:
    address = f"127.0.0.1:{free_port()}"
    server = Process(
        [
            str(Path(pythonic["install"]) / "bin" / "function-pythonic"),
            "grpc",
            "--insecure",
            f"--address={address}",
        ],
        cwd=Path(pythonic["install"]),
        env={"TLS_SERVER_CERTS_DIR": ""},
    )
    try:
        server.wait_serving(address)
        await kube.apply(
            function("pythonic-by-endpoint", pythonic["package"], address), field_manager="e2e", force=True
        )
        await _compose_to_ready(kube, "pythonic-by-endpoint", "endpoint")
    finally:
        server.stop()


async def test_pythonic_as_shipped_runs_its_install(
    manager: _manager.Manager, kube: Any, pythonic: dict[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    """No annotation: the controller starts the install and says so once; kubectl shows it installed."""
    assert os.environ["CROSSFN_FUNCTIONS_DIR"] == pythonic["functions_dir"]
    caplog.set_level("INFO", logger="crossfn.controller.functions")
    await kube.apply(function("function-pythonic", pythonic["package"]), field_manager="e2e", force=True)
    await _compose_to_ready(kube, "function-pythonic", "installed")
    said = [r.getMessage() for r in caplog.records if "crossplane-function-pythonic" in r.getMessage()]
    assert said == [
        "Function function-pythonic: running function-pythonic v0.3.0 as the PyPI package "
        f"crossplane-function-pythonic 0.3.0 installed in {pythonic['install']} (crossfn function install; "
        f"Python {pythonic['python']}), in a process of its own"
    ]

    async def healthy() -> bool:
        fn = await kube.get("pkg.crossplane.io/v1", "Function", "function-pythonic")
        return all(condition(fn, c).get("status") == "True" for c in ("Installed", "Healthy"))

    await wait_for(healthy, timeout=30, what="kubectl get functions: INSTALLED True, HEALTHY True")
    revs, _ = await kube.list(
        "pkg.crossplane.io/v1", "FunctionRevision", labels={"pkg.crossplane.io/package": "function-pythonic"}
    )
    assert [r["metadata"]["labels"].get("crossfn.io/runtime") for r in revs] == ["installed"]
