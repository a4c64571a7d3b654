"""Public names whose modules load on first use (PEP 562), for packages that must import cheaply.

A package lists each lazy name once with its module in ``_LAZY``, re-exports
the same names under ``typing.TYPE_CHECKING`` for type checkers (``from ._x
import A as A``: explicit, since ``__all__`` cannot name them literally), and
binds::

    _lazy.install(__name__, _LAZY, globals())
    __all__ = [...the names imported eagerly...]
    __all__ += list(_LAZY)

tests/test_lazy_exports.py fails when the ``TYPE_CHECKING`` imports and ``_LAZY`` differ.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["dir_for", "getattr_for", "install"]


def install(package: str, lazy: Mapping[str, str], namespace: dict[str, Any]) -> None:
    """Give a package's namespace the ``__getattr__`` and ``__dir__`` below for its ``lazy`` names.

    Bound through the namespace, so type checkers do not see the ``__getattr__``
    (they would otherwise accept any attribute of the package): they see the
    lazy names through the package's ``TYPE_CHECKING`` re-exports.
    """
    namespace["__getattr__"] = getattr_for(package, lazy, namespace)
    namespace["__dir__"] = dir_for(lazy, namespace)


def getattr_for(package: str, lazy: Mapping[str, str], namespace: dict[str, Any]) -> Callable[[str], object]:
    """A module ``__getattr__`` that imports a lazy name's module on first access and keeps the name."""

    def lazy_getattr(name: str) -> object:
        module = lazy.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value: object = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    return lazy_getattr


def dir_for(lazy: Mapping[str, str], namespace: dict[str, Any]) -> Callable[[], list[str]]:
    """A module ``__dir__`` that lists the lazy names too, loaded or not."""

    def lazy_dir() -> list[str]:
        return sorted({*namespace, *lazy})

    return lazy_dir
