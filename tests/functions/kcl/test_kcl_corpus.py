"""Every Composition of the shared corpus that uses function-kcl, rendered without Docker as shipped.

"As shipped": the function's own examples without their
``render.crossplane.io/runtime: Development`` annotation (which points
``crossplane render`` at a function the developer runs by hand), ``latest``
resolved to the newest release. Each renders in both output modes and is
compared with a golden file; where upstream prints the output (the example's
README), the classic render is compared with that too. The OCI and git
sources run from the KCL package cache of ``tests/corpus`` (``$KCL_PKG_PATH``),
where the module is vendored as ``kcl mod pull`` leaves it.

Regenerate the golden files with
``CROSSFN_UPDATE_GOLDEN=1 python -m pytest tests/functions/kcl/test_kcl_corpus.py``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import corpus
import pytest
import yaml

from crossfn import cli

HERE = Path(__file__).parent
GOLDEN = HERE / "golden"


CORPUS = corpus.root()
FN_KCL = CORPUS / "fn-kcl" / "examples"
DOCS = CORPUS / "crossplane-docs" / "content" / "master" / "manifests"
QUICKSTART = CORPUS / "configuration-quickstart"


def _as_shipped(path: Path, tmp: Path) -> Path:
    """The Functions file without the Development runtime annotation the examples carry."""
    docs = [d for d in yaml.safe_load_all(path.read_text()) if d]
    for d in docs:
        annotations = d.get("metadata", {}).get("annotations", {})
        annotations.pop("render.crossplane.io/runtime", None)
        if not annotations:
            d["metadata"].pop("annotations", None)
    out = tmp / "functions.yaml"
    out.write_text(yaml.safe_dump_all(docs))
    return out


def _quickstart_functions(tmp: Path) -> Path:
    """The Functions the Configuration depends on, named as Crossplane names dependencies, at their minimum versions."""
    meta = yaml.safe_load((QUICKSTART / "crossplane.yaml").read_text())
    fns = []
    for dep in meta["spec"]["dependsOn"]:
        if "function" not in dep:
            continue
        package = dep["function"]
        name = package.split("/", 1)[1].replace("/", "-")
        fns.append({"apiVersion": "pkg.crossplane.io/v1", "kind": "Function", "metadata": {"name": name},
                    "spec": {"package": f"{package}:{dep['version'].removeprefix('>=')}"}})  # fmt: skip
    out = tmp / "functions.yaml"
    out.write_text(yaml.safe_dump_all(fns))
    return out


def _quickstart_xr(tmp: Path) -> Path:
    """The example claim as its XR (the XRD's composite kind, cluster scoped)."""
    claim = yaml.safe_load((QUICKSTART / "examples" / "XMockDatabase" / "example.yaml").read_text())
    xr: dict[str, Any] = {"apiVersion": claim["apiVersion"], "kind": "XMockDatabase",
                          "metadata": {"name": claim["metadata"]["name"]}, "spec": claim["spec"]}  # fmt: skip
    out = tmp / "xr.yaml"
    out.write_text(yaml.safe_dump(xr))
    return out


def _docs_connection_functions(tmp: Path) -> Path:
    d = DOCS / "guides" / "connection-details-composition"
    out = tmp / "functions.yaml"
    out.write_text((d / "fn-kcl.yaml").read_text() + "\n---\n" + (d / "fn-auto-ready.yaml").read_text())
    return out


NETWORK = FN_KCL / "resources" / "network"
KCL_PKG_PATH = corpus.SUPPLEMENT / "_kcl_modules"
"""The KCL package cache the corpus suite renders with: the module the network examples fetch, vendored."""

# (id, argv builder (tmp -> arguments after "render"), working directory or None, error line or "" to render)
CASES: list[Any] = [
    pytest.param(lambda t: [FN_KCL / "resources/basic/xr.yaml", FN_KCL / "resources/basic/composition.yaml",
                            _as_shipped(FN_KCL / "resources/basic/functions.yaml", t)], None, "", id="FnKclBasic"),
    pytest.param(lambda t: [NETWORK / "xr.yaml", NETWORK / "composition.yaml", _as_shipped(NETWORK / "functions.yaml", t)],
                 None, "", id="FnKclNetwork"),
    pytest.param(lambda t: [NETWORK / "xr.yaml", NETWORK / "local_composition.yaml",
                            _as_shipped(NETWORK / "functions.yaml", t)],
                 HERE / "testdata" / "fn-kcl-checkout", "", id="FnKclNetworkLocalFile"),
    pytest.param(lambda t: [NETWORK / "xr.yaml", NETWORK / "oci_composition.yaml", _as_shipped(NETWORK / "functions.yaml", t)],
                 None, "", id="FnKclNetworkOCI"),
    pytest.param(lambda t: [NETWORK / "xr.yaml", NETWORK / "git_composition.yaml", _as_shipped(NETWORK / "functions.yaml", t)],
                 None, "", id="FnKclNetworkGit"),
    pytest.param(lambda t: [FN_KCL / "default/extra_resources/xr.yaml", FN_KCL / "default/extra_resources/composition.yaml",
                            _as_shipped(FN_KCL / "default/extra_resources/functions.yaml", t),
                            "--extra-resources", FN_KCL / "default/extra_resources/extra_resources.yaml"],
                 None, "", id="FnKclExtraResources"),
    pytest.param(lambda t: [DOCS / "get-started/composition/app.yaml", DOCS / "get-started/composition/composition-kcl.yaml",
                            DOCS / "get-started/composition/fn-kcl.yaml"], None, "", id="DocsGetStarted"),
    pytest.param(lambda t: [DOCS / "guides/connection-details-composition/my-keys.yaml",
                            DOCS / "guides/connection-details-composition/composition-kcl.yaml",
                            _docs_connection_functions(t)], None, "", id="DocsConnectionDetails"),
    pytest.param(lambda t: [_quickstart_xr(t), QUICKSTART / "apis/XMockDatabase/composition.yaml", _quickstart_functions(t)],
                 None, "", id="ConfigurationQuickstart"),
]  # fmt: skip


@pytest.mark.parametrize("classic", [False, True], ids=["current", "classic"])
@pytest.mark.parametrize(("argv", "cwd", "error"), CASES)
def test_corpus_composition_renders(  # noqa: PLR0917 -- pytest passes fixtures and parameters by position
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    argv: Any, cwd: Path | None, error: str, classic: bool,
) -> None:  # fmt: skip
    if cwd is not None:
        monkeypatch.chdir(cwd)
    monkeypatch.setenv("KCL_PKG_PATH", str(KCL_PKG_PATH))
    args = ["render", *map(str, argv(tmp_path)), "-r", *(["--classic"] if classic else [])]
    code = cli.main(args)
    out, err = capsys.readouterr()
    case = request.node.callspec.id.split("-")[0]
    if error:
        assert (code, out) == (1, ""), err
        assert error in err.splitlines()[-1], err
        return
    assert code == 0, err
    golden = GOLDEN / f"{case}-{'classic' if classic else 'current'}.yaml"
    if os.environ.get("CROSSFN_UPDATE_GOLDEN") == "1":
        golden.write_text(out, encoding="utf-8")
    assert out == golden.read_text(encoding="utf-8"), case


def test_extra_resources_example_matches_upstream_readme(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The classic render of function-kcl's extra-resources example is what its README prints.

    The README was printed by a Crossplane 1.x ``crossplane render``, which also set ``generateName`` on
    composed resources that have a name; ``--classic`` is v2.2.4's, which does not: that line is left out.
    """
    d = FN_KCL / "default" / "extra_resources"
    code = cli.main(["render", str(d / "xr.yaml"), str(d / "composition.yaml"), str(_as_shipped(d / "functions.yaml", tmp_path)),
                     "--extra-resources", str(d / "extra_resources.yaml"), "--classic"])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 0, err
    readme = (HERE / "testdata" / "readme-extra-resources.yaml").read_text()
    assert out == "".join(line for line in readme.splitlines(keepends=True) if "generateName:" not in line)
