"""patch-and-transform as a built-in: its public surface and the registry entry render and serve use."""

from __future__ import annotations

import importlib

from ptcases import CD, XR, inp

from crossfn import functions
from crossfn.functions import patch_and_transform
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import function, resource


def test_exports() -> None:
    """The package exports the function, its class and one object per reproduced release, each the class."""
    assert "compose" in patch_and_transform.__all__
    for name in patch_and_transform.__all__:
        if name.startswith("compose"):
            assert isinstance(getattr(patch_and_transform, name), patch_and_transform.PatchAndTransform)


async def test_builtin_entry_runs_through_a_handler() -> None:
    """BUILTINS names compose; adapted by the SDK it answers a request like any served function."""
    decision = functions.resolve("xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform:v0.10.8")
    assert decision is not None and decision.builtin is not None
    module, _, attr = functions.BUILTINS[decision.builtin].partition(":")
    handler = function.to_handler(getattr(importlib.import_module(module), attr))
    req = fnv1.RunFunctionRequest(input=resource.dict_to_struct(inp(resources=[{"name": "cd", "base": CD}])))
    req.observed.composite.resource.CopyFrom(resource.dict_to_struct(XR))
    rsp = await handler(req)
    assert not rsp.results
    assert resource.struct_to_dict(rsp.desired.resources["cd"].resource) == CD
