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


_CORPUS_MODES = {"default": "crossplane render xr", "classic": "--classic, Crossplane v2.2.4"}


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The corpus suite's figures (``tests/corpus/test_corpus_suite.py``), per mode, from what its tests recorded.

    Each of its tests records ``corpus: <mode>:renders`` or ``<mode>:fails`` and, for a render,
    ``corpus-validate: <mode>:valid|invalid:<resources>:<without a schema>`` (user properties, which
    xdist's workers hand back), so the figures count what ran: a run of part of the suite says so.
    """
    renders: dict[str, list[int]] = {}
    valid: dict[str, list[int]] = {}
    for reports in terminalreporter.stats.values():
        for report in reports:
            if getattr(report, "when", None) != "call":
                continue
            for key, value in getattr(report, "user_properties", ()):
                fields = str(value).split(":")
                if key == "corpus":
                    seen = renders.setdefault(fields[0], [0, 0])
                    seen[0] += fields[1] == "renders"
                    seen[1] += 1
                elif key == "corpus-validate":
                    seen = valid.setdefault(fields[0], [0, 0, 0, 0])
                    seen[0] += fields[1] == "valid"
                    seen[1] += 1
                    seen[2] += int(fields[2])
                    seen[3] += int(fields[3])
    for mode in sorted(renders, key=lambda m: list(_CORPUS_MODES).index(m) if m in _CORPUS_MODES else 99):
        label = _CORPUS_MODES.get(mode, mode)
        terminalreporter.write_line(
            f"corpus: {renders[mode][0]} of {renders[mode][1]} real Compositions render without Docker as shipped "
            f"({label})"
        )
        if mode in valid:
            ok, ran, resources, missing = valid[mode]
            terminalreporter.write_line(
                f"corpus: {ok} of {ran} renders validate against the corpus's CRDs and the repositories' XRDs "
                f"({label}; {resources - missing} of {resources} resources had a schema)"
            )
