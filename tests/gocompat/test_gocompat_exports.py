"""The public surface of crossfn.gocompat: each module's __all__ is exactly its documented public names."""

from __future__ import annotations

import importlib
import inspect

import pytest

MODULES = ["values", "strconv", "fmt", "json", "regexp", "strings", "base64", "quantity"]


@pytest.mark.parametrize("name", MODULES)
def test_all_matches_public_definitions(name: str) -> None:
    """Everything public that a module defines is exported, documented, and nothing else is."""
    module = importlib.import_module(f"crossfn.gocompat.{name}")
    assert module.__doc__, f"{name} needs a module docstring"
    defined = {
        attr
        for attr, obj in vars(module).items()
        if not attr.startswith("_")
        and (inspect.isfunction(obj) or inspect.isclass(obj))
        and obj.__module__ == module.__name__
    }
    assert set(module.__all__) == defined, f"{name}.__all__ drifted from its public definitions"
    for attr in module.__all__:
        assert getattr(module, attr).__doc__, f"{name}.{attr} needs a docstring"
