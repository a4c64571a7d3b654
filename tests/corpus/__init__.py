"""Loading the shared corpus of real Crossplane configurations (``../shared/corpus``) for tests.

The corpus holds Compositions, XRDs, example XRs or claims and Functions files
copied unchanged from public repositories (its README lists them). Layouts
differ per repository, so :func:`examples` finds, for each Composition, the
documents that go with it by looking in the Composition's directory and then
up its parents (to the repository's root in the corpus):

* the XR: a document of the Composition's ``compositeTypeRef`` kind and
  apiVersion, or else one derived from a claim of that XR's claim kind (the
  XRD's ``claimNames``), as Crossplane derives it: the claim's ``spec`` and
  labels under the XR's apiVersion and kind, named after the claim (a
  Composition may select EnvironmentConfigs by the XR's labels). Nearest first, then
  anywhere in the repository; where there is neither, a bare XR of the
  ``compositeTypeRef`` (``metadata.name: example``, empty ``spec``). Templates
  for ``envsubst`` (a name with ``$``) are not examples and are passed over;
* the Functions: the ``Function`` documents of the nearest directory that has
  any (a ``setup/`` directory beside counts); when they define every Function
  the pipeline names, only those, as a user passes the files a guide names (a
  Composition that needs none, a legacy one, gets an empty list).

Files of printed output (``*expected-output*``) are never inputs.

Nothing here decides whether a Composition should render: tests do.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from crossfn import errors
from crossfn.render import _load

__all__ = ["Example", "available", "documents", "examples", "root"]

_ENV = "CROSSFN_CORPUS"


@functools.cache
def _find_root() -> Path | None:
    given = os.environ.get(_ENV)
    if given:
        return Path(given)
    for parent in Path(__file__).resolve().parents:
        candidate = parent / "shared" / "corpus"
        if (candidate / "README.md").is_file():
            return candidate
    return None


def available() -> bool:
    """Whether this machine has the corpus (for parametrizing at collection time)."""
    return _find_root() is not None


def root() -> Path:
    """The corpus directory (``$CROSSFN_CORPUS``, else ``shared/corpus`` beside an ancestor of this file).

    Without one the calling test is skipped, except under CI, where the corpus is always beside the
    clone and its absence fails the test.
    """
    found = _find_root()
    if found is None:
        if os.environ.get("CI"):
            pytest.fail(
                "the shared corpus is missing (set CROSSFN_CORPUS or put shared/corpus beside the repo)"
            )
        pytest.skip("no shared corpus on this machine (set CROSSFN_CORPUS)")
    return found


@functools.cache
def documents(path: Path) -> tuple[dict[str, Any], ...]:
    """The YAML documents of one file, read as Crossplane reads them; mappings only, nulls skipped."""
    try:
        docs = _load.load_documents(path)
    except errors.InputError:  # a file crossfn cannot read (a Helm template, a list) is not an input here
        return ()
    return tuple(d for d in docs if isinstance(d, dict))


def _yaml_files(directory: Path) -> list[Path]:
    return sorted(
        p
        for p in directory.iterdir()
        if p.is_file() and p.suffix in (".yaml", ".yml") and "expected-output" not in p.name
    )


def _docs_in(directory: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    for f in _yaml_files(directory):
        for d in documents(f):
            yield f, d


@dataclasses.dataclass(frozen=True)
class Example:
    """One Composition of the corpus and what goes with it."""

    path: Path
    """The file holding the Composition."""
    composition: dict[str, Any]
    xr: dict[str, Any]
    """The XR: found, derived from a claim, or bare (:attr:`xr_from` says which)."""
    functions: list[dict[str, Any]]
    xr_from: str
    """Where the XR came from: ``xr <file>``, ``claim <file>`` (paths from the repository's directory),
    or ``compositeTypeRef``."""

    @property
    def name(self) -> str:
        """``<corpus-relative path>:<Composition name>``, unique across the corpus."""
        meta = self.composition.get("metadata") or {}
        return f"{self.path.relative_to(root())}:{meta.get('name', '')}"

    @property
    def legacy(self) -> bool:
        """Native patch-and-transform: ``mode: Resources``, or ``spec.resources`` with no ``spec.mode``."""
        spec = self.composition.get("spec") or {}
        return spec.get("mode", "Resources" if "resources" in spec else None) == "Resources"


def _kind_of(doc: Mapping[str, Any]) -> tuple[str, str]:
    if "$" in str((doc.get("metadata") or {}).get("name") or ""):
        return "", ""  # an envsubst template, not an example
    return str(doc.get("apiVersion") or ""), str(doc.get("kind") or "")


def _ancestors(path: Path, top: Path) -> list[Path]:
    out = [path.parent]
    while out[-1] != top and top in out[-1].parents:
        out.append(out[-1].parent)
    return out


@functools.cache
def _repository_dirs(base: Path) -> tuple[Path, ...]:
    return tuple(sorted({p.parent for p in base.rglob("*.y*ml")}))


def _xr_for(comp: Mapping[str, Any], dirs: list[Path], base: Path) -> tuple[dict[str, Any], str]:
    ref = (comp.get("spec") or {}).get("compositeTypeRef") or {}
    want = (str(ref.get("apiVersion") or ""), str(ref.get("kind") or ""))
    everywhere = [*dirs, *(d for d in _repository_dirs(base) if d not in dirs)]
    claim_kind = ""
    for d in everywhere:
        for _, doc in _docs_in(d):
            if doc.get("kind") == "CompositeResourceDefinition" and not claim_kind:
                names = (doc.get("spec") or {}).get("names") or {}
                claims = (doc.get("spec") or {}).get("claimNames") or {}
                if names.get("kind") == want[1] and claims.get("kind"):
                    claim_kind = str(claims["kind"])
    group = want[0].rpartition("/")[0]
    for d in everywhere:
        for f, doc in _docs_in(d):
            if _kind_of(doc) == want:
                return doc, f"xr {f.relative_to(base)}"
        for f, doc in _docs_in(d):
            api, kind = _kind_of(doc)
            if claim_kind and kind == claim_kind and api.rpartition("/")[0] == group:
                meta = doc.get("metadata") or {}
                xr_meta: dict[str, Any] = {"name": meta.get("name", "")}
                if meta.get("labels"):
                    xr_meta["labels"] = meta["labels"]
                xr = {"apiVersion": want[0], "kind": want[1], "metadata": xr_meta}
                if "spec" in doc:
                    xr["spec"] = doc["spec"]
                return xr, f"claim {f.relative_to(base)}"
    return {
        "apiVersion": want[0],
        "kind": want[1],
        "metadata": {"name": "example"},
        "spec": {},
    }, "compositeTypeRef"


def _functions_for(comp: Mapping[str, Any], dirs: list[Path]) -> list[dict[str, Any]]:
    spec = comp.get("spec") or {}
    pipeline = spec.get("pipeline")
    steps: list[Any] = pipeline if isinstance(pipeline, list) else []
    wanted = {str((s.get("functionRef") or {}).get("name") or "") for s in steps if isinstance(s, Mapping)}
    if not wanted:
        return []
    for d in dirs:
        fns = [doc for _, doc in _docs_in(d) if doc.get("kind") == "Function"]
        if not fns and (d / "setup").is_dir():
            fns = [doc for _, doc in _docs_in(d / "setup") if doc.get("kind") == "Function"]
        if fns:
            named = [f for f in fns if (f.get("metadata") or {}).get("name") in wanted]
            found = {(f.get("metadata") or {}).get("name") for f in named}
            return named if found == wanted else fns
    return []


def examples(*subdirs: str) -> list[Example]:
    """Every Composition under the corpus's ``subdirs`` (each a repository's directory), in path order."""
    top = _find_root()
    if top is None:
        return []
    out: list[Example] = []
    for sub in subdirs:
        base = top / sub
        for f in sorted(base.rglob("*.y*ml")):
            for doc in documents(f):
                if doc.get("kind") != "Composition":
                    continue
                dirs = _ancestors(f, base)
                xr, xr_from = _xr_for(doc, dirs, base)
                out.append(Example(f, doc, xr, _functions_for(doc, dirs), xr_from))
    return out
