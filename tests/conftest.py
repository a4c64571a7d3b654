"""Settings every test directory shares: the CI hypothesis profile and xdist grouping.

``./scripts/check`` runs the suite on several workers (pytest-xdist, ``--dist loadgroup``).
Every ``cluster`` test is put in one group, so a single worker runs them all against one
control plane (starting one costs seconds and ~300 MiB) while the others run the rest.

``HYPOTHESIS_PROFILE=ci`` (what CI sets) keeps every property test's example count and
makes runs reproducible: examples are derandomized and no example database is written.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", derandomize=True, database=None, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
if os.environ.get("HYPOTHESIS_PROFILE"):
    settings.load_profile(os.environ["HYPOTHESIS_PROFILE"])


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Keep every ``cluster`` test on one xdist worker: one control plane for all of them."""
    for item in items:
        if item.get_closest_marker("cluster") is not None:
            item.add_marker(pytest.mark.xdist_group("cluster"))


@pytest.fixture
def load_benchmark() -> Callable[[str], ModuleType]:
    """Import ``benchmarks/<name>.py`` as its own run does, with its directory first on the path."""
    directory = Path(__file__).resolve().parent.parent / "benchmarks"

    def load(name: str) -> ModuleType:
        spec = importlib.util.spec_from_file_location(name, directory / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.path.insert(0, str(directory))
        try:
            spec.loader.exec_module(module)
        finally:
            sys.path.remove(str(directory))
        return module

    return load
