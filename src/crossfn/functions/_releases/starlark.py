"""crossfn's own function-starlark: every version is the built-in."""

from __future__ import annotations

from crossfn.functions._registry import Upstream

UPSTREAM = Upstream(
    org="crossfn",
    repo="function-starlark",
    objects={"starlark": "crossfn.functions.starlark:compose"},
    any_version=True,
)
