"""``crossfn convert pipeline-composition`` and the conversion it shares with render.

Golden files live next to this test in ``golden/``; regenerate them with
``CROSSFN_UPDATE_GOLDEN=1 python -m pytest tests/functions/pt/test_pt_convert.py``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from crossfn import cli, errors
from crossfn.functions.patch_and_transform import convert

GOLDEN = Path(__file__).parent / "golden"
COMP = {"apiVersion": "apiextensions.crossplane.io/v1", "kind": "Composition", "metadata": {"name": "c"}}


def _comp(**spec: Any) -> dict[str, Any]:
    return {**COMP, "spec": {"compositeTypeRef": {"apiVersion": "example.org/v1", "kind": "XR"}, **spec}}


def _step(pt_input: dict[str, Any], name: str = "function-patch-and-transform") -> dict[str, Any]:
    return {
        "step": "patch-and-transform",
        "functionRef": {"name": name},
        "input": {"apiVersion": "pt.fn.crossplane.io/v1beta1", "kind": "Resources", **pt_input},
    }


@pytest.mark.parametrize(
    ("comp", "want"),
    [
        pytest.param(_comp(mode="Pipeline", pipeline=[]), None, id="AlreadyPipeline"),
        pytest.param(
            _comp(resources=[{"base": {"kind": "CD"}}]),
            _comp(
                mode="Pipeline",
                pipeline=[_step({"resources": [{"base": {"kind": "CD"}, "name": "resource-0"}]})],
            ),
            id="ResourcesGetNamesAndMove",
        ),
        pytest.param(
            _comp(
                patchSets=[
                    {
                        "name": "ps",
                        "patches": [
                            {"fromFieldPath": "a", "policy": {"mergeOptions": {"keepMapValues": True}}}
                        ],
                    }
                ],
                resources=[
                    {
                        "name": "r",
                        "patches": [
                            {"type": "PatchSet", "patchSetName": "ps"},
                            {"fromFieldPath": "b", "policy": {"mergeOptions": {"appendSlice": True}}},
                        ],
                    }
                ],
            ),
            _comp(
                mode="Pipeline",
                pipeline=[
                    _step(
                        {
                            "patchSets": [
                                {
                                    "name": "ps",
                                    "patches": [
                                        {
                                            "type": "FromCompositeFieldPath",
                                            "fromFieldPath": "a",
                                            "policy": {"toFieldPath": "MergeObjects"},
                                        }
                                    ],
                                }
                            ],
                            "resources": [
                                {
                                    "name": "r",
                                    "patches": [
                                        {"type": "PatchSet", "patchSetName": "ps"},
                                        {
                                            "type": "FromCompositeFieldPath",
                                            "fromFieldPath": "b",
                                            "policy": {"toFieldPath": "ForceMergeObjectsAppendArrays"},
                                        },
                                    ],
                                }
                            ],
                        }
                    )
                ],
            ),
            id="PatchTypesAndMergeOptions",
        ),
        pytest.param(
            _comp(
                resources=[
                    {
                        "name": "r",
                        "patches": [
                            {
                                "fromFieldPath": "a",
                                "transforms": [
                                    {"math": {"multiply": 2}},
                                    {"string": {"fmt": "%s"}},
                                    {"type": "math", "math": {"clampMin": 1}},
                                ],
                            }
                        ],
                        "connectionDetails": [
                            {"fromConnectionSecretKey": "k"},
                            {"name": "v", "type": "FromFieldPath", "value": "x"},
                        ],
                    }
                ]
            ),
            _comp(
                mode="Pipeline",
                pipeline=[
                    _step(
                        {
                            "resources": [
                                {
                                    "name": "r",
                                    "patches": [
                                        {
                                            "type": "FromCompositeFieldPath",
                                            "fromFieldPath": "a",
                                            "transforms": [
                                                {"type": "math", "math": {"type": "Multiply", "multiply": 2}},
                                                {"type": "string", "string": {"type": "Format", "fmt": "%s"}},
                                                {"type": "math", "math": {"type": "ClampMin", "clampMin": 1}},
                                            ],
                                        }
                                    ],
                                    "connectionDetails": [
                                        {
                                            "name": "k",
                                            "type": "FromConnectionSecretKey",
                                            "fromConnectionSecretKey": "k",
                                        },
                                        {"name": "v", "type": "FromValue", "value": "x"},
                                    ],
                                }
                            ]
                        }
                    )
                ],
            ),
            id="TransformAndConnectionDetailTypes",
        ),
        pytest.param(
            _comp(
                environment={
                    "environmentConfigs": [{"type": "Reference", "ref": {"name": "e"}}],
                    "patches": [{"fromFieldPath": "a", "toFieldPath": "b"}],
                },
                resources=[],
            ),
            _comp(
                mode="Pipeline",
                pipeline=[
                    {
                        "step": "environment-configs",
                        "functionRef": {"name": "function-environment-configs"},
                        "input": {
                            "apiVersion": "environmentconfigs.fn.crossplane.io/v1beta1",
                            "kind": "Input",
                            "spec": {"environmentConfigs": [{"type": "Reference", "ref": {"name": "e"}}]},
                        },
                    },
                    _step(
                        {
                            "environment": {
                                "patches": [
                                    {
                                        "type": "FromCompositeFieldPath",
                                        "fromFieldPath": "a",
                                        "toFieldPath": "b",
                                    }
                                ]
                            },
                            "resources": [],
                        }
                    ),
                ],
            ),
            id="EnvironmentMovesToItsOwnStep",
        ),
    ],
)
def test_to_pipeline(comp: dict[str, Any], want: dict[str, Any] | None) -> None:
    """What moves where, as crossplane beta convert pipeline-composition does it."""
    assert convert.to_pipeline(comp) == want


@pytest.mark.parametrize(
    ("comp", "message"),
    [
        pytest.param({}, "GroupVersionKind is empty", id="NoGVK"),
        pytest.param(
            {"apiVersion": "example.org/v1", "kind": "Composition"},
            "GroupVersionKind Group is not apiextensions.crossplane.io",
            id="WrongGroup",
        ),
        pytest.param(
            {"apiVersion": "apiextensions.crossplane.io/v1", "kind": "XRD"},
            "GroupVersionKind Kind is not Composition",
            id="WrongKind",
        ),
    ],
)
def test_to_pipeline_errors(comp: dict[str, Any], message: str) -> None:
    """Non-Compositions are refused with upstream's texts."""
    with pytest.raises(errors.InputError) as e:
        convert.to_pipeline(comp)
    assert str(e.value) == message


def _golden(name: str, got: str) -> None:
    path = GOLDEN / name
    if os.environ.get("CROSSFN_UPDATE_GOLDEN") == "1":
        path.write_text(got, encoding="utf-8")
    assert got == path.read_text(encoding="utf-8")


def test_cli_converts_legacy_composition(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The CLI writes the converted Composition after a --- line, identical to the golden file."""
    src = Path(__file__).parent / "legacy-composition.yaml"
    assert cli.main(["convert", "pipeline-composition", str(src)]) == 0
    out = capsys.readouterr().out
    _golden("converted-composition.yaml", out)
    dest = tmp_path / "out.yaml"
    assert cli.main(["convert", "pipeline-composition", str(src), "-o", str(dest)]) == 0
    assert dest.read_text(encoding="utf-8") == out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        pytest.param(
            "apiVersion: v1\nkind: ConfigMap\n",
            "GroupVersionKind Group is not apiextensions.crossplane.io",
            id="NotAComposition",
        ),
        pytest.param(
            "a: [\n",
            "cannot parse YAML: line 2 column 1: did not find expected node content",
            id="BadYAML",
        ),
        pytest.param("- 1\n", "cannot parse YAML: the document is not an object", id="NotAnObject"),
        pytest.param(None, "open {file}: no such file or directory", id="Missing"),
    ],
)
def test_cli_bad_input_is_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, message: str
) -> None:
    """Bad input gives one line naming the file, a non-zero exit and no output."""
    bad = tmp_path / "bad.yaml"
    if content is not None:
        bad.write_text(content, encoding="utf-8")
    assert cli.main(["convert", "pipeline-composition", str(bad)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f'crossfn: error: cannot convert composition "{bad}": {message.format(file=bad)}\n'


def test_converted_input_is_valid_for_the_function() -> None:
    """The step input the converter writes decodes strictly and validates in this function."""
    import yaml

    from crossfn.functions.patch_and_transform import input as ptinput
    from crossfn.functions.patch_and_transform import validation

    src = yaml.safe_load((Path(__file__).parent / "legacy-composition.yaml").read_text(encoding="utf-8"))
    converted = convert.to_pipeline(src)
    assert converted is not None
    step_input = converted["spec"]["pipeline"][0]["input"]
    assert validation.validate(ptinput.decode(step_input)) is None


def test_cli_reads_yaml_as_kubernetes_does(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """convert reads through the one go-yaml loader: a plain ``y`` in a base template is true, written as ``true``."""
    src = tmp_path / "c.yaml"
    src.write_text(
        "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata: {name: c}\nspec:\n"
        "  compositeTypeRef: {apiVersion: example.org/v1, kind: XR}\n"
        "  resources:\n  - name: r\n    base: {apiVersion: v1, kind: ConfigMap, data: {a: y, b: 'y'}}\n"
    )
    assert cli.main(["convert", "pipeline-composition", str(src)]) == 0
    out = capsys.readouterr().out
    assert "a: true\n" in out and 'b: "y"\n' in out, out
