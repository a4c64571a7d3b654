"""``crossfn render`` in a project: Functions from the project file, embedded functions run from their source.

The fixtures are two projects of our own (``testdata/project``: a Crossplane
project with an embedded KCL function that imports generated models and an
embedded Python function; ``testdata/project-upbound``: the KCL function in
an Upbound ``upbound.yaml`` project). Regenerate the golden files with
``CROSSFN_UPDATE_GOLDEN=1 python -m pytest tests/render/test_render_project.py``.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from crossfn import cli
from crossfn.render import _project

TESTDATA = Path(__file__).parent / "testdata"
GOLDEN = Path(__file__).parent / "golden"
RENDER = ["render", "examples/xnetwork.yaml", "apis/xnetwork/composition.yaml", "--crds", "../project-crds"]


@pytest.mark.parametrize("classic", [False, True], ids=["current", "classic"])
@pytest.mark.parametrize(
    ("project", "reason"),
    [
        pytest.param("project", "a Crossplane project: auto-ready from its dependencies, a KCL and a Python function",
                     id="CrossplaneProject"),
        pytest.param("project-upbound", "an Upbound project: function dependencies from dependsOn", id="UpboundProject"),
    ],
)  # fmt: skip
def test_project_renders(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    project: str,
    reason: str,
    classic: bool,
) -> None:
    monkeypatch.chdir(TESTDATA / project)
    code = cli.main([*RENDER, "-r", *(["--classic"] if classic else [])])
    out, err = capsys.readouterr()
    assert code == 0, f"{reason}: {err}"
    golden = GOLDEN / f"project-{project}-{'classic' if classic else 'current'}.yaml"
    if os.environ.get("CROSSFN_UPDATE_GOLDEN") == "1":
        golden.write_text(out, encoding="utf-8")
    assert out == golden.read_text(encoding="utf-8"), reason


def test_project_file_flag(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``-f`` names the project file from anywhere; its paths are the project's, not the working directory's."""
    monkeypatch.chdir(TESTDATA)
    p = "project/"
    code = cli.main(["render", p + "examples/xnetwork.yaml", p + "apis/xnetwork/composition.yaml", "--crds",
                     "project-crds", "-f", p + "crossplane-project.yaml", "--classic", "-r"])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 0, err
    assert out == (GOLDEN / "project-project-classic.yaml").read_text()


def _copy(tmp_path: Path, project: str = "project") -> Path:
    root = tmp_path / "p"
    shutil.copytree(TESTDATA / project, root)
    shutil.copytree(TESTDATA / "project-crds", tmp_path / "project-crds")
    return root


def _error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], root: Path, *flags: str
) -> str:
    monkeypatch.chdir(root)
    code = cli.main([*RENDER, *flags])
    out, err = capsys.readouterr()
    assert (code, out) == (1, ""), err
    lines = [line for line in err.splitlines() if not line.startswith("crossfn: note:")]
    assert len(lines) == 1, err
    return lines[0].removeprefix("crossfn: error: ")


def _no_project(root: Path) -> None:
    (root / "crossplane-project.yaml").unlink()


def _bad_api(root: Path) -> None:
    p = root / "crossplane-project.yaml"
    p.write_text(p.read_text().replace("dev.crossplane.io/v1alpha1", "dev.crossplane.io/v9"))


def _go(root: Path) -> None:
    (root / "functions" / "gofn").mkdir()
    (root / "functions" / "gofn" / "go.mod").write_text("module x\n")


def _project_edit(edit: Any) -> Any:
    """A change that edits the project file's document."""

    def change(root: Path) -> None:
        p = root / "crossplane-project.yaml"
        doc = yaml.safe_load(p.read_text())
        edit(doc)
        p.write_text(yaml.safe_dump(doc))

    return change


def _symlinked_template(root: Path) -> None:
    (root / "functions" / "templates").mkdir()
    (root / "functions" / "templates" / "00.yaml.gotmpl").symlink_to("/etc/hostname")


def _unknown(root: Path) -> None:
    (root / "functions" / "notes").mkdir()
    (root / "functions" / "notes" / "README.md").write_text("notes\n")


HERE = str(TESTDATA)


@pytest.mark.parametrize(
    ("change", "flags", "want"),
    [
        pytest.param(_no_project, (), "functions argument is required when not in a project", id="NotInAProject"),
        pytest.param(_bad_api, (), 'cannot parse project file "<root>/crossplane-project.yaml": unsupported project '
                     'apiVersion "dev.crossplane.io/v9", expected "dev.crossplane.io/v1alpha1"', id="UnsupportedAPI"),
        pytest.param(_go, (), 'cannot render composite resource: cannot run embedded function "acme-platformgofn" from '
                     '"<root>/functions/gofn": a Go function needs building, which crossfn does not do; build its image '
                     "and run it with the Docker or Development runtime", id="GoFunction"),
        pytest.param(_symlinked_template, (), 'cannot render composite resource: cannot run embedded function '
                     '"acme-platformtemplates" from "<root>/functions/templates": no suitable builder found',
                     id="SymlinkIsNoTemplate"),
        pytest.param(_project_edit(lambda d: d["spec"].update(dependencies="x")), (),
                     'cannot parse project file "<root>/crossplane-project.yaml": failed to parse project file: error '
                     "unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go struct field "
                     "ProjectSpec.spec.dependencies of type []v1alpha1.Dependency", id="DependenciesNotAList"),
        pytest.param(_project_edit(lambda d: d["spec"].update(dependencies=[1])), (),
                     'cannot parse project file "<root>/crossplane-project.yaml": failed to parse project file: error '
                     "unmarshaling JSON: while decoding JSON: json: cannot unmarshal number into Go struct field "
                     "ProjectSpec.spec.dependencies of type v1alpha1.Dependency", id="DependencyNotAnObject"),
        pytest.param(_project_edit(lambda d: d["spec"].update(functions=[
                         {"source": "Directory", "directory": {"name": "../../etc"}}])), (),
                     'cannot parse project file "<root>/crossplane-project.yaml": invalid project file: function 0: '
                     'directory: name "../../etc" is not a valid function name: a lowercase RFC 1123 subdomain must '
                     "consist of lower case alphanumeric characters, '-' or '.', and must start and end with an "
                     "alphanumeric character (e.g. 'example.com', regex used for validation is "
                     "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')", id="FunctionOutsideFolder"),
        pytest.param(_project_edit(lambda d: d["spec"].update(functions=[
                         {"source": "Directory", "directory": {"name": "labels"}},
                         {"source": "Directory", "directory": {"name": "labels"}}])), (),
                     'cannot parse project file "<root>/crossplane-project.yaml": invalid project file: function 1: '
                     'name "labels" is already used by function 0', id="FunctionTwice"),
        pytest.param(_unknown, (), 'cannot render composite resource: cannot run embedded function "acme-platformnotes" '
                     'from "<root>/functions/notes": no suitable builder found', id="UnknownFunction"),
        pytest.param(lambda r: None, ("--no-exec",), 'Function "acme-platformlabels" would run code crossfn does not ship, '
                     "which --no-exec refuses: runtime InProcess (embedded function <root>/functions/labels)",
                     id="NoExecRefusesPython"),
    ],
)  # fmt: skip
def test_project_errors_are_one_line(  # noqa: PLR0917 -- pytest passes fixtures and parameters by position
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], change: object,
    flags: tuple[str, ...], want: str,
) -> None:  # fmt: skip
    root = _copy(tmp_path)
    change(root)  # type: ignore[operator] # each case's change is a function of the project root
    assert _error(monkeypatch, capsys, root, *flags) == want.replace("<root>", str(root.resolve()))


_TEMPLATE = """\
---
apiVersion: v1
kind: ConfigMap
metadata:
  annotations:
    {{ setResourceNameAnnotation "settings" }}
data:
  region: {{ .observed.composite.resource.spec.region }}
"""


@pytest.mark.parametrize(
    ("step_input", "reason"),
    [
        pytest.param(None, "a step without input reads the function's directory", id="NoInput"),
        pytest.param({"apiVersion": "gotemplating.fn.crossplane.io/v1beta1", "kind": "GoTemplate"},
                     "an input that names no source reads the function's directory", id="InputWithoutSource"),
    ],
)  # fmt: skip
def test_embedded_go_templating_function(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    step_input: dict[str, str] | None,
    reason: str,
) -> None:
    """A directory of templates runs on the built-in function-go-templating as v0.12.0, upstream's base image,
    with the directory as its default source (FUNCTION_GO_TEMPLATING_DEFAULT_SOURCE)."""
    root = _copy(tmp_path)
    (root / "functions" / "templates" / "nested").mkdir(parents=True)
    (root / "functions" / "templates" / "nested" / "00-settings.yaml.gotmpl").write_text(_TEMPLATE)
    step: dict[str, object] = {"step": "templates", "functionRef": {"name": "acme-platformtemplates"}}
    if step_input is not None:
        step["input"] = step_input
    composition = root / "apis" / "xnetwork" / "composition.yaml"
    doc = yaml.safe_load(composition.read_text())
    doc["spec"]["pipeline"].insert(1, step)
    composition.write_text(yaml.safe_dump(doc))
    monkeypatch.chdir(root)
    code = cli.main(RENDER)
    out, err = capsys.readouterr()
    assert code == 0, f"{reason}: {err}"
    docs = [d for d in yaml.safe_load_all(out) if d]
    settings = [d for d in docs if d["kind"] == "ConfigMap"]
    assert [d["data"] for d in settings] == [{"region": "eu-west-1"}], reason
    assert settings[0]["metadata"]["annotations"] == {
        "crossplane.io/composition-resource-name": "settings"
    }, reason


def test_missing_models_for_a_kind_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without the provider's CRD at hand, the program's import of its kind fails as KCL says, in one line."""
    root = _copy(tmp_path)
    monkeypatch.chdir(root)
    code = cli.main(["render", "examples/xnetwork.yaml", "apis/xnetwork/composition.yaml"])
    _, err = capsys.readouterr()
    assert code == 1
    assert err.splitlines()[-1].endswith(
        f"failed to run kcl function pipelines: error[E2G22]: TypeError: {root.resolve()}/functions/xnetwork/main.k:11:5: "
        "attribute 'VPC' not found in 'module 'models.io.upbound.aws.ec2.v1beta1''"
    )


def test_no_exec_refuses_an_embedded_kcl_function(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A KCL program can read files, which crossfn cannot prevent: --no-exec refuses it as it refuses Python."""
    root = _copy(tmp_path, "project-upbound")
    assert _error(monkeypatch, capsys, root, "--no-exec") == (
        'Function "acme-platformxnetwork" would run code crossfn does not ship, which --no-exec refuses: runtime '
        f"InProcess (embedded function {root.resolve()}/functions/xnetwork)"
    )


@pytest.mark.parametrize(
    ("repository", "function", "want"),
    [
        pytest.param("xpkg.crossplane.io/crossplane-contrib/function-kcl", "", "crossplane-contrib-function-kcl",
                     id="Dependency"),
        pytest.param("xpkg.upbound.io/upbound/platform-ref-aws", "xnetwork", "upbound-platform-ref-awsxnetwork",
                     id="EmbeddedUnderscoreDropped"),
        pytest.param("acme", "fn", "library-acmefn", id="DockerHubLibrary"),
        pytest.param("localhost:5000/Acme/Proj", "fn", "cme-rojfn", id="UpperCaseDropped"),
        pytest.param("xpkg.example.com/" + "a" * 40 + "/" + "b" * 40, "c", "a" * 40 + "-" + "b" * 22,
                     id="SixtyThreeCharacters"),
    ],
)  # fmt: skip
def test_function_names(repository: str, function: str, want: str) -> None:
    """Names follow crossplane-runtime's ToDNSLabel of the repository path, as Compositions in projects refer to them."""
    assert _project.function_name(repository, function) == want


@pytest.mark.parametrize(
    ("constraint", "want"),
    [
        pytest.param(">=v0.11.2", "v0.12.2", id="AtLeast"),
        pytest.param(">=v0.9.0 <v0.11.0", "v0.10.10", id="Range"),
        pytest.param(">=v0.9.0, <v0.11.0", "v0.10.10", id="CommaRange"),
        pytest.param("^0.10", "v0.10.10", id="Caret"),
        pytest.param("~0.11.1", "v0.11.6", id="Tilde"),
        pytest.param("v0.11.2", "v0.11.2", id="Exact"),
        pytest.param("<v0.1.0 || >=v0.12.1", "v0.12.2", id="Or"),
        pytest.param("sha256:" + "a" * 64, "@sha256:" + "a" * 64, id="Digest"),
    ],
)  # fmt: skip
def test_dependency_versions(constraint: str, want: str) -> None:
    """A function dependency is pinned to the newest release crossfn knows that meets its constraint."""
    pinned = _project._pinned("xpkg.crossplane.io/crossplane-contrib/function-kcl", constraint)
    assert pinned.removeprefix("xpkg.crossplane.io/crossplane-contrib/function-kcl").lstrip(":") == want


def test_every_project_problem_is_listed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Project.Validate joins every problem it finds, one a line, each under what it belongs to (upstream's order)."""
    root = _copy(tmp_path)
    _project_edit(lambda d: d["spec"].update(
        paths={"functions": "/abs"}, architectures=[], schemas={"languages": ["cobol"]},
        dependencies=[{"type": "xpkg", "xpkg": {"kind": "Function"}, "git": {}}],
        functions=[{"source": "Image"}],
    ))(root)  # fmt: skip
    monkeypatch.chdir(root)
    assert cli.main(RENDER) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        f'crossfn: error: cannot parse project file "{root.resolve()}/crossplane-project.yaml": invalid project file: '
        "functions path must be relative\n"
        "architectures must not be empty\n"
        'schemas.languages[0]: "cobol" is not a supported schema language; set it to one of [go json kcl python]\n'
        "dependency 0: xpkg: apiVersion must not be empty\npackage must not be empty\nversion must not be empty\n"
        "git: repository must not be empty\n"
        "exactly one source (xpkg, git, http, or k8s) must be specified\n"
        "function 0: exactly one source (directory or tarball) must be specified\n"
        'source "Image" is not supported, must be one of "Directory" or "Tarball"\n'
    )


def test_project_file_that_is_a_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``-f`` naming a directory is a project file that cannot be read, as upstream's Stat then ReadFile say."""
    root = _copy(tmp_path)
    assert _error(monkeypatch, capsys, root, "-f", str(root / "functions")) == (
        f'cannot parse project file "{root.resolve()}/functions": read {root / "functions"}: is a directory'
    )


TEMPLATE = """apiVersion: example.org/v1
kind: Subnet
metadata:
  annotations:
    gotemplating.fn.crossplane.io/composition-resource-name: subnet
spec:
  region: {{ .observed.composite.resource.spec.region }}
"""


def test_embedded_go_templating_function_renders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A function of only .gotmpl/.tmpl files runs on the built-in go-templating (v0.12.0, its directory as the
    default source), as crossplane/cli builds it on that image with the files in /src."""
    root = _copy(tmp_path)
    (root / "functions" / "subnet").mkdir()
    (root / "functions" / "subnet" / "00-subnet.yaml.gotmpl").write_text(TEMPLATE)
    comp = root / "apis" / "xnetwork" / "composition.yaml"
    doc = yaml.safe_load(comp.read_text())
    doc["spec"]["pipeline"] = [{"step": "subnet", "functionRef": {"name": "acme-platformsubnet"}}]
    comp.write_text(yaml.safe_dump(doc))
    monkeypatch.chdir(root)
    assert cli.main(RENDER) == 0
    out, _ = capsys.readouterr()
    subnet = [d for d in yaml.safe_load_all(out) if d["kind"] == "Subnet"]
    assert [d["spec"] for d in subnet] == [{"region": "eu-west-1"}]
