"""Go's ``path`` package: slash-separated paths, cleaned lexically.

Sprig's ``base``, ``dir``, ``clean``, ``ext`` and ``isAbs`` are these functions, and its ``os*``
variants are ``path/filepath``'s, which on Linux (where functions run) are the same. Python's
``posixpath`` differs where it shows: ``normpath("//a")`` keeps POSIX's two leading slashes, Go's
``Clean`` gives ``/a``; ``basename("a/")`` is ``""``, Go's ``Base`` is ``a``.
"""

from __future__ import annotations

__all__ = ["base", "clean", "dir", "ext", "is_abs"]


def clean(path: str) -> str:
    """Go's ``path.Clean``: the shortest equivalent path, by purely lexical processing."""
    if not path:
        return "."
    rooted = path[0] == "/"
    parts: list[str] = []
    for element in path.split("/"):
        if element in ("", "."):
            continue
        if element == "..":
            if parts and parts[-1] != "..":
                parts.pop()
            elif not rooted:
                parts.append("..")
            continue
        parts.append(element)
    cleaned = "/".join(parts)
    if rooted:
        return "/" + cleaned
    return cleaned or "."


def base(path: str) -> str:
    """Go's ``path.Base``: the last element, trailing slashes removed; ``.`` for empty, ``/`` for slashes."""
    if not path:
        return "."
    path = path.rstrip("/")
    if not path:
        return "/"
    return path[path.rfind("/") + 1 :]


def dir(path: str) -> str:
    """Go's ``path.Dir``: all but the last element, cleaned."""
    return clean(path[: path.rfind("/") + 1])


def ext(path: str) -> str:
    """Go's ``path.Ext``: the suffix from the final dot of the last element, or ``""``."""
    for i in range(len(path) - 1, -1, -1):
        if path[i] == "/":
            break
        if path[i] == ".":
            return path[i:]
    return ""


def is_abs(path: str) -> bool:
    """Go's ``path.IsAbs``."""
    return path.startswith("/")
