"""The corpus conformance suite: every Composition of ``../shared/corpus`` rendered as shipped, both modes, and validated.

For each Composition (``corpus.examples`` finds them all, and what goes with
each: the XR, its Functions, observed, required and extra resources,
credentials; its docstring gives every rule), the suite runs the command a user
would, ``crossfn render XR COMPOSITION FUNCTIONS [-o ...] [-e ...]
[--function-credentials ...] -x``, once as today's ``crossplane render xr``
and once with ``--classic`` (Crossplane v2.2.4), with no Docker engine
reachable and ``$KCL_PKG_PATH`` at :data:`KCL_PKG_PATH` (a module function-kcl
fetches runs from there, vendored by ``kcl mod pull``, as function-pythonic runs
from a ``crossfn function install``). Inputs the repository ships unchanged are passed as their own
files; the rest (a derived XR, Functions less the Development annotation, the
resources of the setup) are written as render prints YAML.

* A Composition listed under ``render`` in ``expected_failures.yaml`` must
  fail, with exactly the error line given there (``crossfn: error: ...``) and
  for one of its allowed reasons (:data:`REASONS`); every other one must
  render.
* Each render's output is validated with ``crossfn validate`` against the
  corpus's provider CRDs (``_crds/``) and the repository's XRDs, for the kinds
  they cover (built-in Kubernetes kinds always are). A Composition listed under
  ``validate`` must report exactly the problems given there (the Composition's
  own bug, which upstream would hit too); every other render must validate.

Each test records what happened (``corpus`` user property); ``tests/conftest.py``
prints the figure from those, per mode, at the end of the run:
``N of M real Compositions render without Docker as shipped``.
"""

from __future__ import annotations

import functools
import io
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

import corpus
from crossfn import cli, validate
from crossfn.render import _runtimes, output

HERE = Path(__file__).parent
EXPECTED = HERE / "expected_failures.yaml"
MODES = [pytest.param("default", id="default"), pytest.param("classic", id="classic")]
REASONS = {
    "unpublished-function": "a function nobody publishes",
    "rejected-upstream-too": "an input upstream also rejects",
    "no-builtin": "a published function crossfn has no built-in for, which runs its package (Docker)",
    "needs-network": "an input the function fetches from the network, which crossfn's built-ins never reach",
}
"""Why a Composition may fail to render. The issue allows the first two; the others are what crossfn does
not do yet or by design (docs/functions.md, "The corpus", says which and why)."""
PYPI_FUNCTIONS = ("crossplane-contrib/function-pythonic",)
"""Functions that run from a ``crossfn function install`` (``docs/functions.md``)."""
KCL_PKG_PATH = HERE / "supplement" / "_kcl_modules"
"""The KCL package cache every render sees (``$KCL_PKG_PATH``): the module function-kcl's network examples
fetch, as ``kcl mod pull`` leaves it (``supplement/README.md``); nothing else, so no user's cache leaks in."""

EXAMPLES = corpus.examples(*corpus.repositories())


def _expected() -> dict[str, Any]:
    data = yaml.safe_load(EXPECTED.read_text())
    return data if isinstance(data, dict) else {}


FAILURES: dict[str, Any] = _expected().get("render") or {}
INVALID: dict[str, Any] = _expected().get("validate") or {}


def _runs_from_pypi(e: corpus.Example) -> bool:
    return any(
        p in str((f.get("spec") or {}).get("package") or "") for f in e.functions for p in PYPI_FUNCTIONS
    )


@functools.cache
def _schema_files() -> dict[tuple[str, str], Path]:
    """(apiVersion, kind) -> the file of its CRD, for every provider CRD of ``_crds/`` and each version it serves."""
    out: dict[tuple[str, str], Path] = {}
    for f in sorted((corpus.root() / "_crds").rglob("*.yaml")):
        for d in corpus.documents(f):
            if d.get("kind") == "CustomResourceDefinition":
                spec = d.get("spec") or {}
                kind = str((spec.get("names") or {}).get("kind"))
                for v in spec.get("versions") or ():
                    out.setdefault((f"{spec.get('group')}/{(v or {}).get('name')}", kind), f)
    return out


def extensions(e: corpus.Example, docs: list[dict[str, Any]], tmp: Path) -> str:
    """``crossfn validate``'s EXTENSIONS for a render's output: the CRDs and XRDs covering its kinds.

    The XR's kind is covered by the Composition's own XRD (``Example.xrd``); composed XRs by the
    repository's XRDs, nearest first; managed resources by ``_crds/``.
    """
    files: list[Path] = []
    if e.xrd is not None:
        files.append(e.xrd_file(tmp))
    known = {**_schema_files(), **e.xrd_files}
    for d in docs[1:]:
        found = known.get((str(d.get("apiVersion") or ""), str(d.get("kind") or "")))
        if found is not None and found not in files:
            files.append(found)
    if not files:
        files.append(tmp / "none.yaml")
        files[0].write_text(output.yaml_stream([_EMPTY_CRD]))
    return ",".join(str(f) for f in files)


_EMPTY_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "nothings.corpus.crossfn.io"},
    "spec": {
        "group": "corpus.crossfn.io",
        "names": {"kind": "Nothing", "plural": "nothings"},
        "scope": "Cluster",
        "versions": [
            {"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {"type": "object"}}}
        ],
    },
}
"""An extension no render produces: ``crossfn validate`` needs one, and built-in kinds need none."""


def problems(report: validate.Report) -> list[str]:
    """Each distinct problem as ``<apiVersion>, Kind=<kind>: <message>``, sorted.

    Without the resource's name, which differs between the modes (``--classic`` prints
    ``generateName`` only), and once however many resources of that kind have it.
    """
    return sorted(
        {
            f"{o.document.obj.get('apiVersion', '')}, Kind={o.document.obj.get('kind', '')}: {p.message}"
            for o in report.outcomes
            for p in o.problems
        }
    )


def test_enumerates_every_composition() -> None:
    """Every ``kind: Composition`` document of every repository is a case: none hand-picked, none left out."""
    count = sum(
        1
        for f in sorted(corpus.root().rglob("*.y*ml"))
        if not f.relative_to(corpus.root()).parts[0].startswith("_") and "expected-output" not in f.name
        for d in corpus.documents(f)
        if d.get("kind") == "Composition"
    )
    assert len(EXAMPLES) == count
    assert len({e.name for e in EXAMPLES}) == len(EXAMPLES), "each Composition has its own test id"


def test_expected_failures_name_real_compositions() -> None:
    """Every listed Composition exists, with an allowed reason and the error it fails with."""
    names = {e.name for e in EXAMPLES}
    for name, entry in FAILURES.items():
        assert name in names, name
        assert entry["because"] in REASONS, name
        assert entry["reason"].strip(), name
        errors = entry["error"] if isinstance(entry["error"], dict) else {"both modes": entry["error"]}
        assert set(errors) in ({"both modes"}, {"default", "classic"}), name
        assert all(e.startswith("crossfn: error: ") for e in errors.values()), name
    for name, entry in INVALID.items():
        assert name in names and name not in FAILURES, name
        assert entry["reason"].strip() and entry["problems"], name


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("example", EXAMPLES, ids=[e.name for e in EXAMPLES])
def test_renders_as_shipped(
    *,
    example: corpus.Example,
    mode: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
    record_property: Any,
) -> None:
    monkeypatch.setattr(_runtimes, "_docker_engine_reachable", lambda: False)
    monkeypatch.chdir(example.workdir)
    monkeypatch.setenv("KCL_PKG_PATH", str(KCL_PKG_PATH))
    if _runs_from_pypi(example):
        monkeypatch.setenv("CROSSFN_FUNCTIONS_DIR", request.getfixturevalue("installed_functions"))
    args = (
        example.render_arguments(tmp_path)
        + ["--include-full-xr"]
        + (["--classic"] if mode == "classic" else [])
    )
    code = cli.main(["render", *args])
    out, err = capsys.readouterr()
    record_property("corpus", f"{mode}:{'renders' if code == 0 else 'fails'}")
    expected = FAILURES.get(example.name)
    if expected is not None:
        error = expected["error"][mode] if isinstance(expected["error"], dict) else expected["error"]
        assert code == 1 and not out, f"listed as failing ({expected['because']}) but rendered"
        assert err.splitlines()[-1] == error
        return
    assert code == 0, f"crossfn render {' '.join(args)}\n{err}"
    docs = [d for d in yaml.safe_load_all(out) if d is not None]
    report = validate.run(extensions(example, docs, tmp_path), "-", stdin=io.StringIO(out))
    valid = "valid" if not problems(report) else "invalid"
    record_property("corpus-validate", f"{mode}:{valid}:{len(report.outcomes)}:{report.missing}")
    invalid = INVALID.get(example.name)
    assert problems(report) == (invalid["problems"] if invalid else []), report.text(skip_success=True)


DOCS = HERE.parents[1] / "docs" / "functions.md"


def test_docs_state_the_figure() -> None:
    """docs/functions.md states what this suite measures: the figure, what validates, and every failure."""
    text = DOCS.read_text()
    m = re.search(
        r"\*\*(\d+) of (\d+) real Compositions render without Docker as shipped\*\* \((\d+\.\d) %\), in both modes",
        text,
    )
    assert m is not None
    assert all(
        isinstance(e["error"], str) or set(e["error"]) == {"default", "classic"} for e in FAILURES.values()
    )
    renders = len(EXAMPLES) - len(FAILURES)
    assert (int(m[1]), int(m[2]), m[3]) == (renders, len(EXAMPLES), f"{100 * renders / len(EXAMPLES):.1f}")
    v = re.search(r"(\d+) of the (\d+) renders validate; the other (\d+)", text)
    assert v is not None
    assert (int(v[1]), int(v[2]), int(v[3])) == (renders - len(INVALID), renders, len(INVALID))
    start = text.index("## The corpus: real Compositions as shipped")
    section = text[start : text.index("\n## ", start)]
    listed = re.findall(r"^\| `([^`]+)` \|", section, flags=re.MULTILINE)
    assert listed == list(FAILURES), (
        "the table lists every Composition of expected_failures.yaml, in its order"
    )
