"""Every public SDK module exports exactly what it declares, and importing the SDK stays light."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

_MODULES = [
    "crossfn.sdk",
    "crossfn.sdk.cli",
    "crossfn.sdk.function",
    "crossfn.sdk.logging",
    "crossfn.sdk.metrics",
    "crossfn.sdk.request",
    "crossfn.sdk.resource",
    "crossfn.sdk.response",
    "crossfn.sdk.runtime",
    "crossfn.sdk.settings",
    "crossfn.sdk.testing",
]


@pytest.mark.parametrize("name", _MODULES)
def test_all_names_exist_and_public_names_are_listed(name: str) -> None:
    module = importlib.import_module(name)
    exported = set(module.__all__)
    assert all(hasattr(module, n) for n in exported), f"{name}.__all__ lists a missing name"
    defined = {
        n
        for n, v in vars(module).items()
        if not n.startswith("_") and getattr(v, "__module__", None) == name and callable(v)
    }
    assert defined <= exported, f"{name} defines public {sorted(defined - exported)} without exporting them"


def test_response_helpers_do_not_import_grpc() -> None:
    code = "import sys, crossfn.sdk.response, crossfn.sdk.request; print('grpc' in sys.modules, 'pydantic' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["False", "False"], "function modules load in-process for render; keep them light"
