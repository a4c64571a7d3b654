"""Every example in ``examples/`` rendered by ``crossfn render`` in both output modes, against golden files.

The command for each example is the one its README shows (or, for an example
without one, the one its tests use). Each runs twice: by default, matching
today's ``crossplane render xr`` (golden files in ``golden/default``), and with
``--classic``, matching Crossplane v2.2's ``crossplane render`` (``golden/classic``).
A test also checks that the table covers every directory of ``examples/``.

Regenerate the golden files with ``CROSSFN_UPDATE_GOLDEN=1 pytest tests/examples``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from crossfn import cli

_ROOT = Path(__file__).resolve().parents[2]
_GOLDEN = Path(__file__).parent / "golden"
_UPDATE = os.environ.get("CROSSFN_UPDATE_GOLDEN") == "1"


def _args(example: str, *flags: str) -> list[str]:
    """The README's command for ``example``; ``examples/...`` paths are made absolute, as if run from the root."""
    d = f"examples/{example}"
    argv = ["render", f"{d}/xr.yaml", f"{d}/composition.yaml", f"{d}/functions.yaml", *flags]
    return [_absolute(a) for a in argv]


def _absolute(arg: str) -> str:
    key, sep, value = arg.rpartition("=")
    if value.startswith("examples/"):
        return f"{key}{sep}{_ROOT / value}"
    return arg


EXAMPLES = {
    "auto-ready": (
        _args("auto-ready", "-o", "examples/auto-ready/observed.yaml", "-r"),
        "Starlark composes four kinds; the built-in auto-ready marks the healthy ones ready",
    ),
    "context": (
        _args(
            "context",
            "--context-files", "apiextensions.crossplane.io/environment=examples/context/environment.yaml",
            "--context-values", 'example.org/owner={"team": "platform", "oncall": true}',
            "-c",
        ),
        "context from a file and an inline value",
    ),
    "controller": (
        _args("controller", "--xrd", "examples/controller/xrd.yaml", "-r"),
        "the controller example's namespaced v2 XR, with its XRD",
    ),
    "legacy-resources": (
        _args("legacy-resources"),
        "a mode: Resources Composition, converted to a Pipeline",
    ),
    "pipeline-observed": (
        _args("pipeline-observed", "-o", "examples/pipeline-observed/observed.yaml", "-r"),
        "patch-and-transform then auto-ready, with observed resources",
    ),
    "pt-docs": (
        _args("pt-docs", "-o", "examples/pt-docs/observed.yaml", "-r"),
        "the documentation's P&T patterns, with an observed bucket",
    ),
    "pt-package": (
        _args("pt-package", "-o", "examples/pt-package/observed.yaml", "-r"),
        "a P&T-heavy configuration-package Composition, with an observed VPC",
    ),
    "python-sdk-process": (_args("python-sdk-process", "-r"), "an official Python SDK function through the Process runtime"),
    "required": (
        _args("required", "-e", "examples/required/resources", "-s", "examples/required/schemas", "-r"),
        "bootstrap required resources and a required schema",
    ),
    "starlark-robots": (
        _args("starlark-robots", "-o", "examples/starlark-robots/observed.yaml", "-r"),
        "Starlark robots, one of them observed",
    ),
    "xbucket": (_args("xbucket"), "the README's first command: patch-and-transform in-process"),
}  # fmt: skip


def test_every_example_is_covered() -> None:
    have = sorted(p.name for p in (_ROOT / "examples").iterdir() if p.is_dir() and (p / "xr.yaml").exists())
    assert have == sorted(EXAMPLES), "add the new example to EXAMPLES"


@pytest.mark.parametrize("mode", ["default", "classic"])
@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_example(capsys: pytest.CaptureFixture[str], name: str, mode: str) -> None:
    argv, reason = EXAMPLES[name]
    code = cli.main([*argv, "--classic"] if mode == "classic" else argv)
    out, err = capsys.readouterr()
    assert code == 0, f"{reason}: {err}"
    golden = _GOLDEN / mode / f"{name}.yaml"
    if _UPDATE:
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(out)
    assert out == golden.read_text(), (
        f"{reason}; regenerate with CROSSFN_UPDATE_GOLDEN=1 pytest tests/examples"
    )
