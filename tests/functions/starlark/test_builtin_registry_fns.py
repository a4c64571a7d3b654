"""auto-ready and starlark are reachable the way render and serve look them up."""

from __future__ import annotations

import importlib
import types

import pytest

from crossfn import functions
from crossfn.functions import auto_ready, starlark

CASES = [
    pytest.param(
        "xpkg.crossplane.io/crossplane-contrib/function-auto-ready:v0.7.0",
        "auto-ready",
        auto_ready.compose,
        id="AutoReady",
    ),
    pytest.param(
        "xpkg.crossplane.io/crossfn/function-starlark:v0.1.0", "starlark", starlark.compose, id="Starlark"
    ),
]


@pytest.mark.parametrize(("package", "short", "obj"), CASES)
def test_package_resolves_to_compose(package: str, short: str, obj: object) -> None:
    decision = functions.resolve(package)
    assert decision is not None and decision.builtin == short
    module, _, attr = functions.BUILTINS[short].partition(":")
    assert getattr(importlib.import_module(module), attr) is obj


@pytest.mark.parametrize("module", [auto_ready, starlark], ids=["AutoReady", "Starlark"])
def test_exports_exist(module: types.ModuleType) -> None:
    names = module.__all__
    assert names and all(hasattr(module, n) for n in names)
