"""Lazily exported names are listed once, in a package's ``_LAZY`` table (:mod:`crossfn._lazy`).

``__all__`` takes them from the table; the ``TYPE_CHECKING`` imports that let
type checkers see them must name exactly the same objects. These tests fail
when the table and those imports drift apart, or when an exported name does
not resolve.
"""

from __future__ import annotations

import ast
import importlib
import inspect

import pytest

_PACKAGES = ("crossfn.engine", "crossfn.controller", "crossfn.render")


def _type_checking_imports(package: str) -> dict[str, str]:
    """The names imported under ``if _typing.TYPE_CHECKING:`` in ``package``, each with its submodule."""
    tree = ast.parse(inspect.getsource(importlib.import_module(package)))
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "_typing.TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom), ast.unparse(imp)
                for alias in imp.names:
                    assert alias.asname == alias.name, f"{ast.unparse(imp)}: re-export as `X as X`"
                    found[alias.name] = str(imp.module).removeprefix(f"{package}.")
    return found


@pytest.mark.parametrize("package", _PACKAGES)
def test_type_checking_imports_are_the_lazy_table(package: str) -> None:
    module = importlib.import_module(package)
    assert _type_checking_imports(package) == module._LAZY


@pytest.mark.parametrize("package", _PACKAGES)
def test_every_exported_name_resolves(package: str) -> None:
    module = importlib.import_module(package)
    assert len(set(module.__all__)) == len(module.__all__), "a name exported twice"
    assert set(module._LAZY) <= set(module.__all__)
    for name in module.__all__:
        assert getattr(module, name) is not None, name
    assert set(module.__all__) <= set(dir(module))
