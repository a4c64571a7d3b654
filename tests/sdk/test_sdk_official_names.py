"""Every public name of the official SDK's modules exists in crossfn.sdk, with a call-compatible signature.

The official SDK (``crossplane.function``) is read in a process of its own;
names crossfn leaves out on purpose are listed here and in docs/compatibility.md.
"""

from __future__ import annotations

import importlib
import inspect
import json
import subprocess
import sys
from typing import Any

import pytest

pytestmark = pytest.mark.peer

MODULES = ("logging", "response", "request", "resource", "runtime", "cli")

OMITTED = {
    ("runtime", "BetaFunctionRunner"): "crossfn serves v1beta1 itself, on the same function",
    ("cli", "F"): "a typing helper of the official module, not an API",
}

_OFFICIAL = r"""
import importlib, inspect, json
out = {}
for m in %r:
    mod = importlib.import_module("crossplane.function." + m)
    names = {}
    for n, v in vars(mod).items():
        if n.startswith("_") or not (getattr(v, "__module__", None) == mod.__name__ or n.isupper()):
            continue
        params = None
        if inspect.isfunction(v):
            params = [
                [p.name, p.kind.name, None if p.default is p.empty else repr(p.default)]
                for p in inspect.signature(v).parameters.values()
            ]
        names[n] = params
    out[m] = names
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def official() -> dict[str, dict[str, Any]]:
    run = subprocess.run(
        [sys.executable, "-c", _OFFICIAL % (MODULES,)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    out: dict[str, dict[str, Any]] = json.loads(run.stdout)
    return out


@pytest.mark.parametrize("module", MODULES)
def test_every_official_name_is_offered(official: dict[str, dict[str, Any]], module: str) -> None:
    ours = importlib.import_module(f"crossfn.sdk.{module}")
    missing = [n for n in official[module] if not hasattr(ours, n) and (module, n) not in OMITTED]
    assert missing == [], f"crossfn.sdk.{module} lacks {missing}"


@pytest.mark.parametrize("module", MODULES)
def test_official_calls_work(official: dict[str, dict[str, Any]], module: str) -> None:
    """Each official parameter exists under its name, in its position; crossfn's additions are optional."""
    ours = importlib.import_module(f"crossfn.sdk.{module}")
    for name, params in official[module].items():
        if params is None or (module, name) in OMITTED:
            continue
        theirs = {p[0]: p for p in params}
        sig = list(inspect.signature(getattr(ours, name)).parameters.values())
        by_name = {p.name: p for p in sig}
        where = f"{module}.{name}"
        for i, (pname, kind, default) in enumerate(params):
            assert pname in by_name, f"{where}: no parameter {pname}"
            p = by_name[pname]
            if kind in ("POSITIONAL_OR_KEYWORD", "POSITIONAL_ONLY"):
                assert sig[i].name == pname, f"{where}: {pname} is not parameter {i}"
            if kind == "VAR_POSITIONAL":
                assert p.kind is p.VAR_POSITIONAL, f"{where}: *{pname}"
            elif kind != "POSITIONAL_ONLY":
                assert p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY), f"{where}: {pname} by keyword"
            if default is not None:
                assert p.default is not p.empty, f"{where}: {pname} has a default upstream"
                assert repr(p.default) == default, f"{where}: {pname} defaults to {default} upstream"
        for p in sig:
            if p.name not in theirs and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                assert p.default is not p.empty, (
                    f"{where}: crossfn's extra parameter {p.name} must be optional"
                )
