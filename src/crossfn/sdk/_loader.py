"""The one way crossfn imports a function object from ``module:object``.

``crossfn function serve``, render's in-process Functions (and so ``crossfn
test``), the built-in functions and the controller all load through
:func:`load`:

* ``search`` names the directory a module is looked for first (render: the
  directory of the functions file). A module found there is bound to that
  directory: two directories that each hold ``fn.py`` give two modules, not
  whichever was imported first, which is what ``importlib.import_module``'s
  cache would return;
* any exception while importing (a syntax error, an exception at import time,
  ``sys.exit``), or while looking the object up in the module (a module
  ``__getattr__``, a lazy export), becomes one :class:`crossfn.errors.InputError`
  line naming the reference, never a traceback.

A module found on ``sys.path`` instead (an installed package, the built-ins)
is imported as usual and shared.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import os
import sys
import threading
import types
from pathlib import Path

from crossfn import errors

__all__ = ["load"]

_lock = threading.Lock()
_bound: dict[tuple[str, str], types.ModuleType] = {}
"""Modules imported from a search directory, by (directory, module name)."""


def load(ref: str, *, search: Path | None = None, what: str | None = None) -> object:
    """Import ``module:object`` (``object`` may be dotted) and return the object.

    ``what`` starts every error message (default ``cannot load function "<ref>"``).
    """
    what = what or f"cannot load function {errors.quote(ref)}"
    module_name, sep, attr = ref.partition(":")
    if not sep or not module_name or not attr:
        raise errors.InputError(f"{what}: want MODULE:OBJECT, e.g. mypkg.fn:compose")
    obj: object = _module(module_name, search, what)
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError as exc:
            raise errors.InputError(f"{what}: {module_name} has no attribute {attr}") from exc
        except (
            Exception,
            SystemExit,
        ) as exc:  # user code ran for the lookup: a module __getattr__, a lazy export
            raise errors.InputError(f"{what}: {errors.import_failure(f'{module_name}:{attr}', exc)}") from exc
    return obj


def _module(name: str, search: Path | None, what: str) -> types.ModuleType:
    if search is None:
        return _import(name, what)
    top = name.partition(".")[0]
    with _lock:
        # The search directory first, then the working directory (as `python -m` would find it).
        for directory in dict.fromkeys((os.path.realpath(search), os.path.realpath(os.getcwd()))):
            known = _bound.get((directory, name))
            if known is not None:
                return known
            spec = importlib.machinery.PathFinder.find_spec(top, [directory])
            if spec is not None and spec.origin is not None:
                break
        else:
            return _import(name, what)  # in neither directory: an installed module, shared
        current = sys.modules.get(top)
        if current is not None and _origin(current) != os.path.realpath(spec.origin):
            # A same-named module from elsewhere: forget it (its objects keep working) so
            # that this directory's is imported, not returned from the cache.
            for loaded in [m for m in sys.modules if m == top or m.startswith(top + ".")]:
                del sys.modules[loaded]
        sys.path.insert(0, directory)
        try:
            module = _import(name, what)
        finally:
            sys.path.remove(directory)
        _bound[(directory, name)] = module
        return module


def _origin(module: types.ModuleType) -> str | None:
    spec = getattr(module, "__spec__", None)
    origin = getattr(spec, "origin", None)
    return os.path.realpath(origin) if isinstance(origin, str) else None


def _import(name: str, what: str) -> types.ModuleType:
    try:
        return importlib.import_module(name)
    except (Exception, SystemExit) as exc:  # the module's own code failed while importing
        raise errors.InputError(f"{what}: {errors.import_failure(name, exc)}") from exc
