"""The optional parts of crossfn and the extra that installs each.

``pip install crossfn`` installs the SDK and the function runtime; the tools
come with extras (``pyproject.toml``, docs/architecture.md). A package that
needs an extra calls :func:`require` first thing, so that importing it, or
running the command that uses it, without the extra fails with one line that
names it rather than with a ``ModuleNotFoundError`` from deep inside.
"""

from __future__ import annotations

import importlib.util

from crossfn import errors

__all__ = ["EXTRAS", "message", "require"]

EXTRAS: dict[str, tuple[str, ...]] = {
    "cel": ("celpy",),
    "render": ("celpy",),
    "validate": ("celpy",),
    "starlark": ("starlark",),
    "kcl": ("kcl_lib",),
    "controller": ("celpy", "lightkube", "httpx2", "msgspec", "cryptography"),
    "crypto": ("cryptography", "bcrypt"),
}
"""Each extra and the modules it installs that crossfn imports (the rest are their dependencies)."""


def message(user: str, extra: str) -> str:
    """The one line for ``user`` (a command or module) missing ``extra``."""
    return f"{user}: needs the {extra} extra: pip install 'crossfn[{extra}]'"


def require(extra: str, user: str) -> None:
    """Raise :class:`crossfn.errors.MissingExtraError` if a module of ``extra`` is not installed."""
    for module in EXTRAS[extra]:
        if not _installed(module):
            raise errors.MissingExtraError(message(user, extra), extra=extra)


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ValueError:  # in sys.modules without a spec: loaded some other way, so present
        return True
