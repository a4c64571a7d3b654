"""The corpus's Compositions that use environment-configs, extra-resources, cel-filter or dummy, rendered without Docker.

``../shared/corpus`` holds real configurations, unchanged. Every Composition
there that names one of these four functions is rendered here, in both modes
(``--classic`` and today's), as shipped:

* Crossplane's e2e manifests (function-dummy v0.2.1, v0.3.0, v0.4.1, with
  function-auto-ready v0.3.0), with the inputs ``corpus`` finds for each (the
  test's ``xr.yaml``, or the XR its ``claim.yaml`` makes; its Functions file;
  its ``secret.yaml`` for the step's credentials). Each dummy response's composed
  resources and XR status must come out. The two Compositions of
  ``xrd/referenceable-version-change`` give function-dummy an input it rejects
  (a patch-and-transform ``resources`` list): they fail, as upstream's would.
* The functions' own examples, with ``render.crossplane.io/runtime:
  Development`` taken away (the annotation is for their authors). The
  environment-configs and extra-resources examples go on to
  function-go-templating, which crossfn does not ship yet: their first step is
  rendered alone and its context compared with what the examples' READMEs
  print (environment-configs v0.7.1's ``examples/*/README.md``, kept in
  ``environment_configs/golden/``). The cel-filter example names its package
  ``function-cel-filter`` (no registry, organisation or tag, as a Development
  runtime needs), which stands for the newest release crossfn knows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import corpus
import pytest
import yaml

from crossfn import cli

CORPUS = corpus.root() if corpus.available() else Path("shared/corpus")
"""The corpus (tests call ``corpus.root()``, which fails in CI and skips elsewhere when it is missing)."""
E2E = CORPUS / "crossplane-e2e" / "test" / "e2e" / "manifests"
GOLDEN = Path(__file__).parent / "environment_configs" / "golden"
MODES = [pytest.param([], id="default"), pytest.param(["--classic"], id="classic")]


def _docs(path: Path) -> list[dict[str, Any]]:
    corpus.root()  # a missing corpus fails in CI and skips elsewhere, as every corpus test does
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def _render(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> tuple[int, list[dict[str, Any]], str]:
    code = cli.main(["render", *args])
    out, err = capsys.readouterr()
    return code, [d for d in yaml.safe_load_all(out) if d] if code == 0 else [], err


def _dummy_compositions() -> list[Any]:
    """Every e2e Composition that runs function-dummy and has a Functions file, as ``corpus`` finds it."""
    return [
        pytest.param(e, id=e.name)
        for e in corpus.examples("crossplane-e2e", "crossplane-e2e-v1.20.0")
        if any("function-dummy" in str((f.get("spec") or {}).get("package")) for f in e.functions)
    ]


DUMMY = _dummy_compositions()


def test_dummy_corpus_size() -> None:
    """21 e2e Compositions name function-dummy (19 of Crossplane's main, 2 of v1.20.0); all but the two
    of ``xrd/referenceable-version-change`` (below) come with a Functions file."""
    assert corpus.root() == CORPUS
    assert len(DUMMY) == 19


def _dummy_responses(comp: dict[str, Any]) -> list[dict[str, Any]]:
    steps = comp["spec"]["pipeline"]
    return [s["input"]["response"] for s in steps if s.get("input", {}).get("kind") == "Response"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("example", DUMMY)
def test_dummy_e2e(
    example: corpus.Example, mode: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every dummy response's composed resources come out, with the XR status it sets, and nothing needs Docker.

    The inputs are the test's, as ``corpus`` finds them: its XR (or the one its claim makes), its Functions
    file and its Secret for the step's credentials."""
    code, docs, err = _render(tmp_path, capsys, [*example.render_arguments(tmp_path), *mode])
    assert code == 0, err
    assert "as the built-in dummy" in err and "running the package" not in err
    xr, composed = docs[0], docs[1:]
    names = {
        d.get("metadata", {}).get("annotations", {}).get("crossplane.io/composition-resource-name")
        for d in composed
    }
    for response in _dummy_responses(example.composition):
        desired = response.get("desired", {})
        assert set(desired.get("resources", {})) <= names
        for key, value in desired.get("composite", {}).get("resource", {}).get("status", {}).items():
            assert xr["status"][key] == value


REFERENCEABLE = E2E / "apiextensions" / "xrd" / "referenceable-version-change" / "setup"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("comp", ["composition-v1.yaml", "composition-v2.yaml"])
def test_dummy_rejects_resources_input(
    comp: str, mode: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """These Compositions give function-dummy a ``resources`` list and ship no Functions file: with the
    function-dummy the e2e suite installs (v0.4.1) the input is rejected, as upstream rejects it."""
    functions = tmp_path / "functions.yaml"
    functions.write_text(
        "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata:\n  name: function-dummy\n"
        "spec:\n  package: xpkg.crossplane.io/crossplane-contrib/function-dummy:v0.4.1\n"
    )
    ref = _docs(REFERENCEABLE / comp)[0]["spec"]["compositeTypeRef"]
    xr = tmp_path / "xr.yaml"
    xr.write_text(yaml.safe_dump({**ref, "metadata": {"name": "test"}, "spec": {}}))
    code, _, err = _render(tmp_path, capsys, [str(xr), str(REFERENCEABLE / comp), str(functions), *mode])
    assert code != 0
    assert err.rstrip().endswith(
        'json: cannot unmarshal Go value of type v1beta1.Response: unknown name "resources"'
    ), err


def _without_development(src: Path, dst: Path, keep: set[str] | None = None) -> Path:
    """The Functions file as shipped, less the Development runtime annotation (and, with ``keep``, other Functions)."""
    docs = []
    for d in _docs(src):
        if keep is not None and d["metadata"]["name"] not in keep:
            continue
        (d["metadata"].get("annotations") or {}).pop("render.crossplane.io/runtime", None)
        docs.append(d)
    dst.write_text(yaml.safe_dump_all(docs))
    return dst


def _first_step(src: Path, dst: Path) -> Path:
    comp = _docs(src)[0]
    comp["spec"]["pipeline"] = comp["spec"]["pipeline"][:1]
    dst.write_text(yaml.safe_dump(comp))
    return dst


ENV_EXAMPLES = ["reference_name", "match_label_single"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("example", ENV_EXAMPLES)
def test_environment_configs_examples(
    example: str, mode: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The context is byte for byte what the example's README prints; the XR too, but for the go-templating field."""
    d = CORPUS / "fn-environment-configs" / "examples" / example
    functions = _without_development(
        d / "functions.yaml", tmp_path / "functions.yaml", keep={"function-environment-configs"}
    )
    comp = _first_step(d / "composition.yaml", tmp_path / "composition.yaml")
    args = [
        str(d / "xr.yaml"),
        str(comp),
        str(functions),
        "-e",
        str(d / "environmentConfigs.yaml"),
        "-c",
        *mode,
    ]
    code = cli.main(["render", *args])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "running function-environment-configs v0.4.0 as the built-in environment-configs" in err
    printed = (GOLDEN / f"{example}.readme.yaml").read_text()
    context = out[out.index("---\napiVersion: render.crossplane.io/v1beta1\nfields:") :]
    assert context == printed[printed.index("---\napiVersion: render.crossplane.io/v1beta1\nfields:") :]
    if mode:
        readme_xr = _docs_text(printed)[0]
        readme_xr["status"] = {k: v for k, v in readme_xr["status"].items() if k == "conditions"}
        assert _docs_text(out)[0] == readme_xr, (
            "the README's XR, less the field function-go-templating writes"
        )


def _docs_text(text: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(text) if d]


@pytest.mark.parametrize("mode", MODES)
def test_extra_resources_example(mode: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Both selectors match two resources (maxMatch 2), sorted by name, under their ``into`` in the context."""
    d = CORPUS / "fn-extra-resources" / "example"
    functions = _without_development(
        d / "functions.yaml", tmp_path / "functions.yaml", keep={"function-extra-resources"}
    )
    comp = _first_step(d / "composition.yaml", tmp_path / "composition.yaml")
    args = [str(d / "xr.yaml"), str(comp), str(functions), "-e", str(d / "extraResources.yaml"), "-c", *mode]
    code = cli.main(["render", *args])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert (
        "running function-extra-resources v0.3.0 as the built-in extra-resources (behaves as v0.3.0)" in err
    )
    context = _docs_text(out)[-1]["fields"]["apiextensions.crossplane.io/extra-resources"]
    assert [c["metadata"]["name"] for c in context["envConfs"]] == ["test-x1", "test-y1"]
    assert [c["metadata"]["name"] for c in context["XCluster"]] == ["net-staging-blue", "net-staging-green"]
    assert context["envConfs"][0]["data"] == {"realName": "test-x1"}


@pytest.mark.parametrize("mode", MODES)
def test_cel_filter_example(mode: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The XR's ``spec.export`` is ``Disabled``: the bucket is filtered out, the table stays, as the README prints.

    The README's output came from function-patch-and-transform v0.3.0 and the
    render of Crossplane v1.15 (which printed ``generateName`` only and no XR
    status); the example now pins v0.10.8, which keeps the base's name, so the
    table's ``spec`` and the set of composed resources are compared.
    """
    d = CORPUS / "fn-cel-filter" / "example"
    functions = _without_development(d / "functions.yaml", tmp_path / "functions.yaml")
    code = cli.main(["render", str(d / "xr.yaml"), str(d / "composition.yaml"), str(functions), *mode])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert (
        "crossfn: note: running function-cel-filter (the name its own examples use: the newest release crossfn "
        "knows, v0.2.0 of 2026-03-22) as the built-in cel-filter (behaves as v0.2.0)"
    ) in err.splitlines()
    assert "as the built-in patch-and-transform" in err
    docs = _docs_text(out)
    assert [c["kind"] for c in docs[1:]] == ["Table"]
    assert docs[1]["spec"] == {
        "forProvider": {
            "attribute": [{"name": "S3ID", "type": "S"}],
            "hashKey": "S3ID",
            "readCapacity": 1,
            "region": "us-east-2",
            "writeCapacity": 1,
        }
    }
