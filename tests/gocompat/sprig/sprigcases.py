"""What the Sprig tests share: a repeatable function map per Sprig version, and Go's way of printing a result.

Sprig's own tests are template strings; these call the functions directly with the values
``text/template`` would pass: a constant ``3`` is a Go ``int`` (:data:`G`), ``3.4`` a float64,
``"x"`` a string, and a missing map key nil. :func:`show` prints a result as ``{{ . }}`` does:
``<no value>`` for nil, else ``%v``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from crossfn.gocompat import fmt, gofunc, sprig, values
from crossfn.gocompat import time as gotime

G = values.GoInt
NOW = gotime.Time(1700000000, 123456789, gotime.LOCAL, 1_000_000)
"""2023-11-14 22:13:20.123456789 UTC, with a monotonic reading of 1ms: what ``now`` returns here."""


def sources(
    *,
    seed: int = 1,
    now: gotime.Time = NOW,
    environ: Mapping[str, str] | None = None,
    lookup_host: Callable[[str], list[str]] | None = None,
) -> sprig.Sources:
    """Deterministic sources: a seeded generator and a fixed clock."""
    return sprig.Sources(
        rand=random.Random(seed), now=lambda: now, environ=dict(environ or {}), lookup_host=lookup_host
    )


def func_map(version: str = "v3.3.0", **kwargs: Any) -> dict[str, gofunc.Func]:
    """A fresh map with deterministic sources (``semver=`` passes through)."""
    semver = kwargs.pop("semver", None)
    return sprig.txt_func_map(version, semver=semver, sources=sources(**kwargs))


_MAPS = {version: func_map(version) for version in sprig.VERSIONS}


def call(name: str, *args: Any, version: str = "v3.3.0") -> Any:
    """Call Sprig's ``name`` at ``version`` with Go-typed arguments."""
    return _MAPS[version][name](*args)


def show(v: Any) -> str:
    """A result as a template prints it."""
    return "<no value>" if v is None else fmt.sprint(v)
