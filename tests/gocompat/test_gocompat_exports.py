"""The public surface of crossfn.gocompat: each module's __all__ is exactly its documented public names."""

from __future__ import annotations

import importlib
import inspect

import pytest

MODULES = [
    "values",
    "strconv",
    "fmt",
    "field",
    "json",
    "regexp",
    "strings",
    "base64",
    "base32",
    "unicode",
    "url",
    "path",
    "quantity",
    "celcost",
    "time",
    "yaml_loader",
    "yaml_emitter",
    "protojson",
    "celcheck",
    "goversion",
]


def _constant(attr: str, obj: object) -> bool:
    """A public module-level constant: an UPPER_CASE name bound to a value, not to a module, function or class."""
    return (
        not attr.startswith("_")
        and attr.isupper()
        and not (inspect.ismodule(obj) or inspect.isfunction(obj) or inspect.isclass(obj))
    )


@pytest.mark.parametrize("name", MODULES)
def test_all_matches_public_definitions(name: str) -> None:
    """Everything public that a module defines is exported, documented, and nothing else is."""
    module = importlib.import_module(f"crossfn.gocompat.{name}")
    assert module.__doc__, f"{name} needs a module docstring"
    definitions = {
        attr
        for attr, obj in vars(module).items()
        if not attr.startswith("_")
        and (inspect.isfunction(obj) or inspect.isclass(obj))
        and obj.__module__ == module.__name__
    }
    constants = {attr for attr, obj in vars(module).items() if _constant(attr, obj)}
    assert set(module.__all__) == definitions | constants, (
        f"{name}.__all__ drifted from its public definitions"
    )
    for attr in definitions:
        assert getattr(module, attr).__doc__, f"{name}.{attr} needs a docstring"
