"""function-patch-and-transform: the built-in reproduces v0.10.8 (upstream pt-0)."""

from __future__ import annotations

from crossfn.functions._registry import Span, Upstream

UPSTREAM = Upstream(
    org="crossplane-contrib",
    repo="function-patch-and-transform",
    objects={"patch-and-transform": "crossfn.functions.patch_and_transform:compose"},
    spans=(Span("v0.10.8", "v0.11.0", "patch-and-transform", "v0.10.8"),),
    other="the built-in reproduces v0.10.8, and other versions behave differently",
)
