"""``crossfn render`` of a legacy ``mode: Resources`` Composition, converted to a Pipeline on the fly.

Upstream render rejects such a Composition (upstream core-3.3 step 6);
crossfn converts it as ``crossfn convert pipeline-composition`` does and
notes it on stderr (a divergence listed in ``docs/compatibility.md``).
Regenerate the golden file with ``CROSSFN_UPDATE_GOLDEN=1 pytest tests/render``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from crossfn import cli, render
from crossfn.render import _legacy

_ROOT = Path(__file__).resolve().parents[2]
_EXAMPLE = _ROOT / "examples" / "legacy-resources"
_GOLDEN = Path(__file__).parent / "golden" / "LegacyResources.yaml"
_UPDATE = os.environ.get("CROSSFN_UPDATE_GOLDEN") == "1"
_PT_LINE = "running function-patch-and-transform v0.10.8 as the built-in patch-and-transform (behaves as v0.10.0-v0.10.8)"
_NOTE = (
    'crossfn: note: Composition "xdatabases.example.crossplane.io" uses mode: Resources; rendering it as a '
    "Pipeline with {fn} (see crossfn convert pipeline-composition)\n"
)
_ENV_FN = """apiVersion: pkg.crossplane.io/v1
kind: Function
metadata:
  name: my-environment-configs
spec:
  package: xpkg.crossplane.io/crossplane-contrib/function-environment-configs:v0.4.0
"""
_ENVIRONMENT = """  environment:
    environmentConfigs:
    - type: Reference
      ref:
        name: defaults
"""


def _main(
    capsys: pytest.CaptureFixture[str], functions: Path, *flags: str, comp: Path | None = None
) -> tuple[int, str, str]:
    code = cli.main(
        [
            "render",
            str(_EXAMPLE / "xr.yaml"),
            str(comp or _EXAMPLE / "composition.yaml"),
            str(functions),
            "--classic",
            *flags,
        ]
    )
    out, err = capsys.readouterr()
    return code, out, err


def _with_environment(tmp_path: Path) -> Path:
    text = (
        (_EXAMPLE / "composition.yaml")
        .read_text()
        .replace("  mode: Resources\n", "  mode: Resources\n" + _ENVIRONMENT)
    )
    comp = tmp_path / "composition.yaml"
    comp.write_text(text)
    return comp


def test_example_golden(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _main(capsys, _EXAMPLE / "functions.yaml")
    assert code == 0, err
    assert (
        err
        == _NOTE.format(fn="crossplane-contrib-function-patch-and-transform") + f"crossfn: note: {_PT_LINE}\n"
    ), "one note naming the user's Function, one saying the built-in runs for its package"
    if _UPDATE:
        _GOLDEN.write_text(out)
    assert out == _GOLDEN.read_text(), (
        "output differs; regenerate with CROSSFN_UPDATE_GOLDEN=1 pytest tests/render"
    )


def test_builtin_supplied_when_functions_lack_it(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    functions = tmp_path / "functions.yaml"
    functions.write_text("# no Functions: render supplies patch-and-transform\n")
    code, out, err = _main(capsys, functions)
    assert code == 0, err
    assert err == _NOTE.format(fn="function-patch-and-transform") + f"crossfn: note: {_PT_LINE}\n"
    assert out == _GOLDEN.read_text(), "the built-in renders what the user's Function entry renders"


@pytest.mark.parametrize(
    ("functions", "want_fns", "want_steps", "reason"),
    [
        pytest.param(
            "", ["function-patch-and-transform"], ["patch-and-transform"],
            "no Functions: a built-in entry with the converter's default name", id="SuppliedBuiltin",
        ),
        pytest.param(
            "", ["function-environment-configs", "function-patch-and-transform"],
            ["environment-configs", "patch-and-transform"],
            "no Functions and a native environment: both built-ins supplied", id="SuppliedBoth",
        ),
        pytest.param(
            _ENV_FN, ["my-environment-configs", "function-patch-and-transform"],
            ["environment-configs", "patch-and-transform"],
            "environment-configs found by package, called by its name", id="EnvironmentByPackage",
        ),
        pytest.param(
            _ENV_FN.replace("name: my-environment-configs", "name: function-environment-configs")
            + "---\n" + _ENV_FN.replace("function-environment-configs:", "function-patch-and-transform:")
            .replace("my-environment-configs", "my-pt"),
            ["function-environment-configs", "my-pt"], ["environment-configs", "patch-and-transform"],
            "both found: by name and by package; nothing supplied", id="BothDefined",
        ),
    ],
)  # fmt: skip
def test_functions_for_converted_pipeline(
    tmp_path: Path, functions: str, want_fns: list[str], want_steps: list[str], reason: str
) -> None:
    (tmp_path / "functions.yaml").write_text(functions or "# none\n")
    comp = _with_environment(tmp_path) if "environment" in want_steps[0] else _EXAMPLE / "composition.yaml"
    inputs = render.load(
        render.Request(
            composite_resource=_EXAMPLE / "xr.yaml", composition=comp, functions=tmp_path / "functions.yaml"
        )
    )
    assert [f["metadata"]["name"] for f in inputs.functions] == want_fns, reason
    pipeline = inputs.composition["spec"]["pipeline"]
    assert [s["step"] for s in pipeline] == want_steps, reason
    assert [s["functionRef"]["name"] for s in pipeline] == want_fns, (
        f"{reason}: steps call the Functions by name"
    )
    assert inputs.composition["spec"]["mode"] == "Pipeline"
    assert inputs.notes[0].startswith("Composition "), "the conversion note first"
    assert all(" as the built-in " in n for n in inputs.notes[1:]), "then one line per built-in package"


def test_annotations_reach_the_supplied_function(tmp_path: Path) -> None:
    (tmp_path / "functions.yaml").write_text("# none\n")
    inputs = render.load(
        render.Request(
            composite_resource=_EXAMPLE / "xr.yaml",
            composition=_EXAMPLE / "composition.yaml",
            functions=tmp_path / "functions.yaml",
            function_annotations=["render.crossplane.io/runtime=Development"],
        )
    )
    assert inputs.functions[0]["metadata"]["annotations"] == {
        "render.crossplane.io/runtime": "Development"
    }, "-a sets an annotation on every Function, the supplied one too"


_DEFAULTS = """apiVersion: apiextensions.crossplane.io/v1beta1
kind: EnvironmentConfig
metadata:
  name: defaults
data:
  region: eu-west-1
"""


def test_environment_runs_the_builtin(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The native environment runs as the built-in function-environment-configs, which render supplies."""
    configs = tmp_path / "environment.yaml"
    configs.write_text(_DEFAULTS)
    code, out, err = _main(
        capsys, _EXAMPLE / "functions.yaml", "-e", str(configs), "-c", comp=_with_environment(tmp_path)
    )
    assert code == 0, err
    assert err.splitlines() == [
        'crossfn: note: Composition "xdatabases.example.crossplane.io" uses mode: Resources; rendering it as a '
        "Pipeline with crossplane-contrib-function-patch-and-transform and function-environment-configs "
        "(see crossfn convert pipeline-composition)",
        f"crossfn: note: {_PT_LINE}",
        "crossfn: note: running function-environment-configs v0.7.2 as the built-in environment-configs "
        "(behaves as v0.7.0 to v0.7.2)",
    ]
    assert "    region: eu-west-1\n" in out, "the EnvironmentConfig's data is in the context"


def test_environment_without_its_config(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """An EnvironmentConfig nobody supplied fails the step, as function-environment-configs fails it."""
    code, out, err = _main(capsys, _EXAMPLE / "functions.yaml", comp=_with_environment(tmp_path))
    assert (code, out) == (1, "")
    assert err.splitlines()[-1] == (
        'crossfn: error: cannot render composite resource: pipeline step "environment-configs" returned a fatal '
        'result: cannot get selected environment configs: cannot process environment config "defaults" by '
        'reference, "environment-config-0": Required environment config "defaults" not found'
    )


def test_pipeline_composition_is_not_converted() -> None:
    xbucket = _ROOT / "examples" / "xbucket"
    inputs = render.load(
        render.Request(
            composite_resource=xbucket / "xr.yaml",
            composition=xbucket / "composition.yaml",
            functions=xbucket / "functions.yaml",
        )
    )
    assert inputs.notes == [_PT_LINE], "no conversion note for a Pipeline Composition, only what runs"
    assert [f["metadata"]["name"] for f in inputs.functions] == ["function-patch-and-transform"], (
        "nothing supplied"
    )


def test_notes_reach_the_python_caller(tmp_path: Path) -> None:
    notes: list[str] = []
    docs = render.render(
        render.Request(
            composite_resource=_EXAMPLE / "xr.yaml",
            composition=_EXAMPLE / "composition.yaml",
            functions=_EXAMPLE / "functions.yaml",
        ),
        note=notes.append,
        output=render.CLASSIC,
    )
    assert notes == [
        _NOTE.format(fn="crossplane-contrib-function-patch-and-transform")[len("crossfn: note: ") : -1],
        _PT_LINE,
    ]
    assert [d["kind"] for d in docs] == ["XDatabase", "Instance", "SubnetGroup"]
    inputs = render.load(
        render.Request(
            composite_resource=_EXAMPLE / "xr.yaml",
            composition=_with_environment(tmp_path),
            functions=_EXAMPLE / "functions.yaml",
        )
    )
    assert inputs.notes[0].endswith(
        "with crossplane-contrib-function-patch-and-transform and function-environment-configs "
        "(see crossfn convert pipeline-composition)"
    ), "the native environment runs as the built-in environment-configs"


def _without_mode(tmp_path: Path) -> Path:
    comp = tmp_path / "composition.yaml"
    comp.write_text((_EXAMPLE / "composition.yaml").read_text().replace("  mode: Resources\n", ""))
    return comp


def test_no_mode_is_legacy(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Crossplane v1's CRD defaulted spec.mode to Resources: spec.resources without a mode renders as legacy,
    says why in one note, and prints what the spelled mode prints."""
    code, out, err = _main(capsys, _EXAMPLE / "functions.yaml", comp=_without_mode(tmp_path))
    assert code == 0, err
    assert err == (
        'crossfn: note: Composition "xdatabases.example.crossplane.io" has spec.resources and no spec.mode, so '
        "mode: Resources (Crossplane v1's default); rendering it as a Pipeline with "
        "crossplane-contrib-function-patch-and-transform (see crossfn convert pipeline-composition)\n"
        f"crossfn: note: {_PT_LINE}\n"
    )
    assert out == _GOLDEN.read_text()


def test_no_mode_and_no_resources_is_rejected(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Without spec.resources a Composition with no mode may be a Pipeline that lost its mode: upstream's text."""
    comp = tmp_path / "composition.yaml"
    text = (_EXAMPLE / "composition.yaml").read_text().replace("  mode: Resources\n", "")
    comp.write_text(text[: text.index("  resources:")])
    code, out, err = _main(capsys, _EXAMPLE / "functions.yaml", comp=comp)
    assert (code, out) == (1, "")
    assert err == (
        "crossfn: error: render only supports Composition Function pipelines: Composition "
        '"xdatabases.example.crossplane.io" must use spec.mode: Pipeline\n'
    )


def test_crossfn_test_reads_no_mode_as_legacy(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """`crossfn test` renders as render does: the legacy Composition passes, with the same note once."""
    comp = _without_mode(tmp_path)
    (tmp_path / "test.yaml").write_text(
        "apiVersion: test.crossplane.io/v1alpha1\nkind: CompositionTest\nmetadata: {name: legacy}\n"
        "spec:\n  tests:\n  - name: legacy composes\n    inputs:\n"
        f"      xr: {{path: {_EXAMPLE / 'xr.yaml'}}}\n      composition: {{path: {comp}}}\n"
        "      functions: {path: functions.yaml}\n"
        "    assertions:\n    - type: chainsaw\n      chainsaw:\n        resources:\n"
        "        - apiVersion: example.crossplane.io/v1\n          kind: XDatabase\n"
        "          metadata: {name: orders}\n"
    )
    (tmp_path / "functions.yaml").write_text("# none: the built-in is supplied\n")
    code = cli.main(["test", str(tmp_path / "test.yaml")])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert err.startswith(
        'crossfn: note: Composition "xdatabases.example.crossplane.io" has spec.resources and no spec.mode'
    )
    assert err.count("has spec.resources and no spec.mode") == 1


_NAME_PATCH = """    - fromFieldPath: metadata.labels[team]
      toFieldPath: metadata.name
"""


@pytest.mark.parametrize("mode", [["--classic"], []], ids=["classic", "default"])
@pytest.mark.parametrize(
    ("metadata", "name"),
    [
        pytest.param("      metadata:\n", "payments", id="NullIsAnObjectAsStored"),
        pytest.param("      metadata: {}\n", "payments", id="EmptyObject"),
        pytest.param("", "payments", id="NoMetadataIsMadeByThePatch"),
    ],
)
def test_base_metadata_as_the_api_server_stored_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, mode: list[str], metadata: str, name: str
) -> None:
    """Crossplane v1 read Compositions from the API server, which stores a base (an embedded resource) with its
    metadata an object: ``metadata:`` with no value is ``{}``, so a patch to metadata.name works, as in the
    cluster (awslabs/crossplane-on-eks writes such bases)."""
    text = (_EXAMPLE / "composition.yaml").read_text()
    text = text.replace("      kind: Instance\n", "      kind: Instance\n" + metadata)
    text = text.replace("      patchSetName: common\n", "      patchSetName: common\n" + _NAME_PATCH)
    comp = tmp_path / "composition.yaml"
    comp.write_text(text)
    code = cli.main(["render", str(_EXAMPLE / "xr.yaml"), str(comp), str(_EXAMPLE / "functions.yaml"), *mode])
    out, err = capsys.readouterr()
    assert code == 0, err
    instance = next(d for d in yaml.safe_load_all(out) if d and d["kind"] == "Instance")
    assert instance["metadata"]["name"] == name


def test_as_stored_changes_only_null_metadata() -> None:
    """A Composition without a null base metadata is returned as it is; one with is copied, the rest kept."""
    plain = {"spec": {"resources": [{"name": "a", "base": {"kind": "K", "metadata": {"name": "x"}}}]}}
    assert _legacy.as_stored(plain) is plain
    null: dict[str, Any] = {
        "spec": {
            "mode": "Resources",
            "resources": [{"name": "a", "base": {"kind": "K", "metadata": None}}, "x"],
        }
    }
    stored = _legacy.as_stored(null)
    assert stored == {
        "spec": {
            "mode": "Resources",
            "resources": [{"name": "a", "base": {"kind": "K", "metadata": {}}}, "x"],
        }
    }
    assert null["spec"]["resources"][0]["base"]["metadata"] is None, "the caller's Composition is not changed"
