"""The corpus's legacy Compositions and its pinned function-patch-and-transform and function-auto-ready versions.

* Every legacy Composition (native patch-and-transform; none spells
  ``mode: Resources``) renders as shipped in both modes, says so in one note,
  and renders exactly as its converted Pipeline does (converted as Crossplane
  v1's API server stored it: a base's null ``metadata`` an object). Those with a
  native ``spec.environment`` run the built-in function-environment-configs too,
  with the EnvironmentConfigs of their setup (``corpus`` says which).
* Every Function of the whole corpus pinning either package runs as a built-in, and
  every Pipeline Composition calling only those renders in both modes.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

import corpus
from crossfn import errors, functions, render
from crossfn.functions.patch_and_transform import convert
from crossfn.render import _legacy

SUBDIRS = (
    "crossplane-e2e",
    "crossplane-e2e-v1.20.0",
    "crossplane-docs",
    "fn-patch-and-transform",
    "fn-auto-ready",
    "configuration-quickstart",
    "awslabs-crossplane-on-eks",
)
PACKAGES = ("crossplane-contrib/function-patch-and-transform", "crossplane-contrib/function-auto-ready")
MODES = [pytest.param(render.CLASSIC, id="classic"), pytest.param(None, id="default")]

EXAMPLES = corpus.examples(*SUBDIRS)
LEGACY = [e for e in EXAMPLES if e.legacy]


def _pinned(fn: dict[str, Any]) -> bool:
    return any(p in str((fn.get("spec") or {}).get("package") or "") for p in PACKAGES)


def _pipeline(e: corpus.Example) -> list[str]:
    steps = (e.composition.get("spec") or {}).get("pipeline") or []
    return [str((s.get("functionRef") or {}).get("name") or "") for s in steps]


PIPELINES = [
    e
    for e in EXAMPLES
    if not e.legacy
    and _pipeline(e)
    and {str(f["metadata"]["name"]) for f in e.functions if _pinned(f)} >= set(_pipeline(e))
]


def _all_pinned_packages() -> list[str]:
    if not corpus.available():
        return []
    out = set()
    for sub in sorted(p.name for p in corpus.root().iterdir() if p.is_dir() and not p.name.startswith("_")):
        for f in sorted((corpus.root() / sub).rglob("*.y*ml")):
            out |= {
                str(d["spec"]["package"])
                for d in corpus.documents(f)
                if d.get("kind") == "Function" and _pinned(d)
            }
    return sorted(out)


def _render(
    e: corpus.Example,
    output: render.Output | None,
    comp: dict[str, Any] | None = None,
    fns: list[dict[str, Any]] | None = None,
) -> tuple[list[Any], list[str]]:
    notes: list[str] = []
    docs = render.render_objects(
        render.Objects(
            xr=e.xr,
            composition=comp or e.composition,
            functions=e.functions if fns is None else fns,
            required_resources=e.required,
            function_credentials=e.credentials,
        ),
        output=output,
        note=notes.append,
    )
    return docs, notes


PT_FUNCTION = {
    "apiVersion": "pkg.crossplane.io/v1",
    "kind": "Function",
    "metadata": {"name": "function-patch-and-transform"},
    "spec": {"package": "xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform:v0.10.8"},
}


ENV_FUNCTION = {
    "apiVersion": "pkg.crossplane.io/v1",
    "kind": "Function",
    "metadata": {"name": "function-environment-configs"},
    "spec": {"package": "xpkg.crossplane.io/crossplane-contrib/function-environment-configs:v0.7.1"},
}


def _uses_environment(e: corpus.Example) -> bool:
    return "environment" in (e.composition.get("spec") or {})


def test_corpus_is_here_in_ci() -> None:
    """CI always has the corpus beside the clone: its absence there is a failure, not a skip."""
    assert corpus.root().is_dir()
    assert len(LEGACY) >= 70, "the corpus's legacy Compositions were all found"


@pytest.mark.parametrize("output", MODES)
@pytest.mark.parametrize("example", LEGACY, ids=[e.name for e in LEGACY])
def test_legacy_composition_renders_as_shipped(example: corpus.Example, output: render.Output | None) -> None:
    name = errors.quote(str(example.composition["metadata"]["name"]))
    docs, notes = _render(example, output)
    assert docs
    env = " and function-environment-configs" if _uses_environment(example) else ""
    assert notes[0] == (
        f"Composition {name} has spec.resources and no spec.mode, so mode: Resources (Crossplane v1's default); "
        f"rendering it as a Pipeline with function-patch-and-transform{env} (see crossfn convert pipeline-composition)"
    )
    converted = convert.to_pipeline(_legacy.as_stored(copy.deepcopy(example.composition)))
    assert converted is not None
    fns = [ENV_FUNCTION, PT_FUNCTION] if env else [PT_FUNCTION]
    again = _render(example, output, converted, fns)[0]
    assert again == docs, "renders as `crossfn convert pipeline-composition` converts it"


@pytest.mark.parametrize("package", _all_pinned_packages())
def test_pinned_version_runs_as_a_builtin(package: str) -> None:
    decision = functions.resolve(package)
    assert decision is not None and decision.builtin is not None, decision.line if decision else package
    assert decision.line.startswith("running ")


@pytest.mark.parametrize("output", MODES)
@pytest.mark.parametrize("example", PIPELINES, ids=[e.name for e in PIPELINES])
def test_pipeline_of_pinned_versions_renders(example: corpus.Example, output: render.Output | None) -> None:
    docs, notes = _render(example, output)
    assert docs
    assert all(n.startswith("running ") for n in notes), notes
