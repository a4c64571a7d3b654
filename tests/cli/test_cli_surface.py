"""The command line a Crossplane user has in their fingers (issue 25): Crossplane's spellings, render's
engine flags, ``version``, a command's own usage for a flag it does not know, empty paths, and the
errors that used to point the wrong way.

Regenerate the golden files with ``CROSSFN_UPDATE_GOLDEN=1 pytest tests/cli``.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from crossfn import cli, errors

_ROOT = Path(__file__).resolve().parents[2]
_X = _ROOT / "examples" / "xbucket"
_C = _ROOT / "examples" / "controller"
_GOLDEN = Path(__file__).parent / "golden"
_UPDATE = os.environ.get("CROSSFN_UPDATE_GOLDEN") == "1"
_RENDER = [str(_X / "xr.yaml"), str(_X / "composition.yaml"), str(_X / "functions.yaml")]
_BUILTIN = (
    "crossfn: note: running function-patch-and-transform v0.10.8 as the built-in patch-and-transform "
    "(behaves as v0.10.0-v0.10.8)\n"
)


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = cli.main(argv)
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def _golden(name: str, text: str, reason: str) -> None:
    path = _GOLDEN / name
    if _UPDATE:
        path.write_text(text)
    assert text == path.read_text(), f"{reason}; regenerate with CROSSFN_UPDATE_GOLDEN=1 pytest tests/cli"


@pytest.mark.parametrize(
    ("argv", "canonical", "reason"),
    [
        pytest.param(["render", "xr", *_RENDER], ["render", *_RENDER], "crossplane render xr", id="RenderXR"),
        pytest.param(["composition", "render", *_RENDER], ["render", *_RENDER],
                     "crossplane composition render (crossplane/cli)", id="CompositionRender"),
        pytest.param(["beta", "render", *_RENDER], ["render", *_RENDER],
                     "crossplane beta render (v1.14-v1.20)", id="BetaRender"),
        pytest.param(["beta", "render", "--classic", *_RENDER], ["render", "--classic", *_RENDER],
                     "an alias takes every flag of the command", id="BetaRenderClassic"),
        pytest.param(["beta", "validate", str(_C / "xrd.yaml"), str(_C / "xr.yaml")],
                     ["validate", str(_C / "xrd.yaml"), str(_C / "xr.yaml")],
                     "crossplane beta validate (v1.15-v2.2)", id="BetaValidate"),
        pytest.param(["resource", "validate", str(_C / "xrd.yaml"), str(_C / "xr.yaml")],
                     ["validate", str(_C / "xrd.yaml"), str(_C / "xr.yaml")],
                     "crossplane resource validate (crossplane/cli)", id="ResourceValidate"),
    ],
)  # fmt: skip
def test_crossplane_spellings_do_what_crossfns_commands_do(
    capsys: pytest.CaptureFixture[str], argv: list[str], canonical: list[str], reason: str
) -> None:
    got = _run(argv, capsys)
    assert got[0] == 0, f"{reason}: {got[2]}"
    assert got == _run(canonical, capsys), reason


def test_render_xr_is_a_file_when_one_is_called_xr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``render xr comp fns`` in a directory holding a file ``xr``: the file, not Crossplane's word."""
    (tmp_path / "xr").write_text((_X / "xr.yaml").read_text())
    monkeypatch.chdir(tmp_path)
    code, out, _ = _run(["render", "xr", *_RENDER[1:]], capsys)
    assert code == 0
    assert out == _run(["render", *_RENDER], capsys)[1]


@pytest.mark.parametrize(
    ("flags", "notes"),
    [
        pytest.param(["--crossplane-version", "v2.2.4"],
                     ["--crossplane-version is ignored: it chooses the version of the Crossplane image to render with"],
                     id="Version"),
        pytest.param(["--crossplane-image", "xpkg.crossplane.io/crossplane/crossplane:v2.2.4",
                      "--crossplane-docker-network", "host"],
                     ["--crossplane-image is ignored: it chooses the Crossplane image to render with",
                      "--crossplane-docker-network is ignored: it chooses the Docker network of the Crossplane container"],
                     id="ImageAndNetwork"),
        pytest.param(["--crossplane-binary", "/usr/local/bin/crossplane"],
                     ["--crossplane-binary is ignored: it chooses a local crossplane binary to render with"],
                     id="Binary"),
        pytest.param(["--config", "~/.crossplane/config.yaml"],
                     ["--config is ignored: it chooses the crossplane CLI's configuration file"], id="Config"),
    ],
)  # fmt: skip
def test_render_engine_flags_are_accepted_and_explained(
    capsys: pytest.CaptureFixture[str], flags: list[str], notes: list[str]
) -> None:
    """crossplane render xr's flags that pick a render engine do not apply without Docker: not refused."""
    code, out, err = _run(["render", *flags, *_RENDER], capsys)
    assert code == 0, err
    assert out == _run(["render", *_RENDER], capsys)[1], "the render itself is unchanged"
    assert err == "".join(f"crossfn: note: {n}; crossfn renders in-process\n" for n in notes) + _BUILTIN


@pytest.mark.parametrize(
    ("argv", "prog"),
    [
        pytest.param(["render", "--bogus", *_RENDER], "crossfn render", id="Render"),
        pytest.param(["validate", "--bogus", "a", "b"], "crossfn validate", id="Validate"),
        pytest.param(["test", "--bogus", "t.yaml"], "crossfn test", id="Test"),
        pytest.param(["function", "serve", "m:f", "--bogus"], "crossfn function serve", id="FunctionServe"),
        pytest.param(["init", "function", "f", "--bogus"], "crossfn init function", id="InitFunction"),
        pytest.param(["beta", "validate", "--bogus", "a", "b"], "crossfn beta validate", id="Alias"),
        pytest.param(["version", "--bogus"], "crossfn version", id="Version"),
        pytest.param(["render", *_RENDER, "extra.yaml"], "crossfn render", id="ExtraPositional"),
    ],
)
def test_an_unknown_flag_prints_the_commands_own_usage(
    capsys: pytest.CaptureFixture[str], argv: list[str], prog: str
) -> None:
    code, out, err = _run(argv, capsys)
    lines = err.splitlines()
    assert (code, out) == (2, "")
    assert lines[0].startswith(f"usage: {prog} "), err
    assert lines[-1].startswith(f"{prog}: error: unrecognized arguments: "), err


@pytest.mark.parametrize(
    ("argv", "want"),
    [
        pytest.param(["render", "-s", "", *_RENDER],
                     "crossfn render: error: argument -s/--required-schemas: want a file or directory, got an empty path",
                     id="RequiredSchemas"),
        pytest.param(["render", "--crds", "", *_RENDER],
                     "crossfn render: error: argument --crds: want a file or directory, got an empty path", id="CRDs"),
        pytest.param(["render", "-o", "", *_RENDER],
                     "crossfn render: error: argument -o/--observed-resources: want a file or directory, got an empty path",
                     id="Observed"),
        pytest.param(["test", ""],
                     "crossfn test: error: argument PATH: want a file or directory, got an empty path", id="TestPath"),
        pytest.param(["test", "--junit", "", "x.yaml"],
                     "crossfn test: error: argument --junit: want a file or directory, got an empty path", id="Junit"),
        pytest.param(["render", "-f", "", *_RENDER[:1]],
                     "crossfn render: error: argument -f/--project-file: want a file or directory, got an empty path",
                     id="ProjectFile"),
        pytest.param(["validate", f"{_C}/xrd.yaml,", f"{_C}/xr.yaml"],
                     f'crossfn: error: cannot load extensions from "{_C}/xrd.yaml,": cannot stat input source "": '
                     "no such file or directory", id="ValidateTrailingComma"),
        pytest.param(["validate", f"{_C}/xrd.yaml", ""],
                     'crossfn: error: cannot load resources from "": cannot stat input source "": '
                     "no such file or directory", id="ValidateEmpty"),
    ],
)  # fmt: skip
def test_an_empty_path_is_refused_not_read_as_the_working_directory(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    want: str,
) -> None:
    """Python reads Path("") as "."; a working directory full of YAML would be read whole."""
    (tmp_path / "decoy.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: decoy}\n")
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(argv, capsys)
    assert (code > 0, out) == (True, "")
    assert err.splitlines()[-1] == want


@pytest.mark.parametrize(
    ("argv", "want", "reason"),
    [
        pytest.param([str(_X / "xr.yaml"), str(_X / "composition.yaml")],
                     f'crossfn: error: cannot load extensions from "{_X}/xr.yaml": it holds no CRD, XRD, OpenAPI '
                     "document or package\n",
                     "an XR is no schema: not every resource silently missing its schema, exit 0", id="NoExtensions"),
        pytest.param([str(_C / "xr.yaml"), str(_C / "xrd.yaml")],
                     f'crossfn: error: cannot load extensions from "{_C}/xr.yaml": it holds no CRD, XRD, OpenAPI '
                     "document or package; RESOURCES does: are the arguments swapped? "
                     "(crossfn validate EXTENSIONS RESOURCES)\n",
                     "the XRD given as the resource: the arguments were swapped", id="Swapped"),
    ],
)  # fmt: skip
def test_validate_with_no_schema_in_extensions_fails(
    capsys: pytest.CaptureFixture[str], argv: list[str], want: str, reason: str
) -> None:
    assert _run(["validate", *argv], capsys) == (1, "", want), reason


@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_validate_output_yaml_is_the_json_document(capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    """-o json|yaml, and --update-cache accepted (nothing is downloaded)."""
    code, out, _ = _run(
        ["validate", "-o", fmt, "--update-cache", str(_C / "xrd.yaml"), str(_C / "xr.yaml")], capsys
    )
    assert code == 0
    doc = yaml.safe_load(out)
    assert doc["summary"] == {"total": 1, "missingSchemas": 0, "success": 1, "failure": 0}
    _, json_out, _ = _run(["validate", "-o", "json", str(_C / "xrd.yaml"), str(_C / "xr.yaml")], capsys)
    assert doc == yaml.safe_load(json_out), "yaml holds the same document as json"


def _composition(**spec: object) -> str:
    comp = yaml.safe_load((_X / "composition.yaml").read_text())
    comp["spec"] = {k: v for k, v in comp["spec"].items() if k != "pipeline"} | spec
    return yaml.safe_dump(comp)


def test_a_wrong_composition_api_version_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    comp = yaml.safe_load((_X / "composition.yaml").read_text())
    comp["apiVersion"] = "apiextensions.crossplane.io/v2"
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(comp))
    code, out, err = _run(["render", _RENDER[0], str(tmp_path / "c.yaml"), _RENDER[2]], capsys)
    assert (code, out) == (1, "")
    assert err == (
        f'crossfn: error: cannot load Composition from "{tmp_path}/c.yaml": not a composition: '
        f'Composition/{comp["metadata"]["name"]} (apiVersion is "apiextensions.crossplane.io/v2"; a '
        'Composition\'s is "apiextensions.crossplane.io/v1")\n'
    ), "upstream's text, then what is wrong: the kind is right"


@pytest.mark.parametrize("classic", [[], ["--classic"]], ids=["Current", "Classic"])
def test_a_missing_pipeline_renders_as_an_empty_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], classic: list[str]
) -> None:
    """Go decodes a missing list as an empty one: zero steps, the same output as ``pipeline: []``."""
    (tmp_path / "missing.yaml").write_text(_composition())
    (tmp_path / "empty.yaml").write_text(_composition(pipeline=[]))
    missing = _run(["render", *classic, _RENDER[0], str(tmp_path / "missing.yaml"), _RENDER[2]], capsys)
    empty = _run(["render", *classic, _RENDER[0], str(tmp_path / "empty.yaml"), _RENDER[2]], capsys)
    assert missing[0] == 0, missing[2]
    assert missing == empty


@pytest.mark.parametrize("argv", [["version"], ["version", "--client"]], ids=["Version", "Client"])
def test_version_prints_the_client_version(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    _golden("version.txt", _run(argv, capsys)[1], "crossplane version's Client Version line")


def test_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    env_columns = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"
    try:
        code, out, _ = _run(["--help"], capsys)
    finally:
        if env_columns is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = env_columns
    assert code == 0
    _golden("help.txt", out, "crossfn --help: crossfn's commands, then Crossplane's spellings")


def test_skip_crds_without_crds_says_to_install_them(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not "create the namespace": the DeploymentRuntimeConfig kind is missing, so are the CRDs."""
    from crossfn.controller.kube import _api
    from crossfn.controller.manager import _manager

    async def run(settings: object) -> None:
        try:
            raise _api.NoKindMatch(
                'no matches for kind "DeploymentRuntimeConfig" in version "pkg.crossplane.io/v1beta1"',
                status=404,
            )
        except _api.ApiError as exc:
            raise errors.InputError(
                'cannot initialize function packages in namespace "crossplane-system": '
                f"{exc} (create the namespace, pass --namespace, or --package-runtime=External)"
            ) from exc

    monkeypatch.setattr(_manager, "run", run)
    code, out, err = _run(["controller", "run", "--skip-crds"], capsys)
    assert (code, out) == (1, "")
    assert err == (
        "crossfn: error: --skip-crds, but crossfn's Crossplane CRDs are not installed (no matches for kind "
        '"DeploymentRuntimeConfig" in version "pkg.crossplane.io/v1beta1"): run crossfn controller init first, '
        "or start without --skip-crds\n"
    )
    monkeypatch.setattr(_manager, "run", run)
    code, _, err = _run(["controller", "run"], capsys)
    assert "create the namespace" in err, "without --skip-crds the manager's own text stands"


def test_python_dash_m_and_the_console_script_agree() -> None:
    """``python -m crossfn render xr ...`` goes through the same argv handling as ``crossfn``."""
    proc = subprocess.run(
        [sys.executable, "-m", "crossfn", "render", "xr", *_RENDER],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("---\napiVersion: example.crossplane.io/v1")


def _down_function(tmp_path: Path) -> tuple[Path, str]:
    """A Functions file whose one Function is a Development target nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        target = f"127.0.0.1:{s.getsockname()[1]}"
    fn = {
        "apiVersion": "pkg.crossplane.io/v1beta1",
        "kind": "Function",
        "metadata": {
            "name": "function-patch-and-transform",
            "annotations": {
                "render.crossplane.io/runtime": "Development",
                "render.crossplane.io/runtime-development-target": target,
            },
        },
        "spec": {"package": "xpkg.upbound.io/crossplane-contrib/function-patch-and-transform:v0.10.8"},
    }
    (tmp_path / "functions.yaml").write_text(yaml.safe_dump(fn))
    return tmp_path / "functions.yaml", target


@pytest.mark.parametrize(
    ("classic", "wrapper"),
    [
        pytest.param([], "cannot compose resources: cannot run Composition pipeline step", id="Current"),
        pytest.param(["--classic"], "cannot run pipeline step", id="Classic"),
    ],
)
def test_render_names_an_unreachable_function_its_address_and_step(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], classic: list[str], wrapper: str
) -> None:
    """Not `context deadline exceeded` after --timeout (60 s by default): the step fails at once."""
    functions, target = _down_function(tmp_path)
    code, out, err = _run(["render", *classic, "--timeout", "5m", *_RENDER[:2], str(functions)], capsys)
    assert (code, out) == (1, "")
    assert err.startswith(
        f'crossfn: error: cannot render composite resource: {wrapper} "patch-and-transform": cannot run Function '
        f'"function-patch-and-transform": rpc error: code = Unavailable desc = cannot connect to {target}: '
    ), err
    assert err.rstrip().endswith("Connection refused"), err


def test_composition_test_names_an_unreachable_function(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    functions, target = _down_function(tmp_path)
    test = {
        "apiVersion": "test.crossplane.io/v1alpha1",
        "kind": "CompositionTest",
        "metadata": {"name": "down"},
        "spec": {"tests": [{
            "name": "its function is not running",
            "inputs": {"xr": {"path": _RENDER[0]}, "composition": {"path": _RENDER[1]},
                       "functions": {"path": str(functions)}, "timeoutSeconds": 300},
        }]},
    }  # fmt: skip
    (tmp_path / "test.yaml").write_text(yaml.safe_dump(test))
    code, out, _ = _run(["test", "-q", str(tmp_path / "test.yaml")], capsys)
    assert code == 1
    assert (
        f'"function-patch-and-transform": rpc error: code = Unavailable desc = cannot connect to {target}: '
        in out
    ), out
