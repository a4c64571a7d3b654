"""The controller's cluster fixtures (a real API server), shared with ``crossfn trace``'s tests."""

from __future__ import annotations

from controller.conftest import (  # noqa: F401 -- fixtures and hooks, found by pytest under these names
    crossplane_crds,
    envtest,
    kube,
    pytest_runtest_makereport,
    pytest_runtest_setup,
)
