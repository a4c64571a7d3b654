"""Wrong types in Composition and Function fields are one line naming the file and field (issue 15)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from crossfn import cli

_EXAMPLE = Path(__file__).parents[2] / "examples" / "xbucket"
_COMPOSITION: dict[str, Any] = yaml.safe_load((_EXAMPLE / "composition.yaml").read_text())
_FUNCTIONS = list(yaml.safe_load_all((_EXAMPLE / "functions.yaml").read_text()))


def _step(**fields: Any) -> dict[str, Any]:
    comp = copy.deepcopy(_COMPOSITION)
    comp["spec"]["pipeline"][0].update(fields)
    return comp


def _function(**fields: Any) -> list[dict[str, Any]]:
    fns = copy.deepcopy(_FUNCTIONS)
    fns[0].update(fields)
    return fns


_STEP = (
    'cannot load Composition from "{c}": cannot parse pipeline step "patch-and-transform": spec.pipeline[0].'
)
_FN = 'cannot load functions from "{f}": document 1: '


@pytest.mark.parametrize(
    ("reason", "comp", "fns", "want"),
    [
        pytest.param("credentials must be a list.", _step(credentials=1), _FUNCTIONS,
                     _STEP + "credentials must be a list", id="CredentialsNumber"),
        pytest.param("requiredResources must be a list.", _step(requirements={"requiredResources": 1}), _FUNCTIONS,
                     _STEP + "requirements.requiredResources must be a list", id="RequiredResourcesNumber"),
        pytest.param("requiredSchemas must be a list.", _step(requirements={"requiredSchemas": True}), _FUNCTIONS,
                     _STEP + "requirements.requiredSchemas must be a list", id="RequiredSchemasBool"),
        pytest.param("A Function's metadata must be an object.", _COMPOSITION, _function(metadata="x"),
                     _FN + "metadata must be an object", id="FunctionMetadataString"),
        pytest.param("A Function's name must be a string.", _COMPOSITION, _function(metadata={"name": 1}),
                     _FN + "metadata.name must be a string", id="FunctionNameNumber"),
        pytest.param("A Function's annotations must be an object.", _COMPOSITION,
                     _function(metadata={"name": "function-patch-and-transform", "annotations": 1}),
                     _FN + "metadata.annotations must be an object", id="FunctionAnnotationsNumber"),
    ],
)  # fmt: skip
def test_wrong_types_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], *, reason: str, comp: Any, fns: Any, want: str
) -> None:
    c, f = tmp_path / "composition.yaml", tmp_path / "functions.yaml"
    c.write_text(yaml.safe_dump(comp))
    f.write_text(yaml.safe_dump_all(fns))
    status = cli.main(["render", str(_EXAMPLE / "xr.yaml"), str(c), str(f)])
    out, err = capsys.readouterr()
    assert (status, out, err) == (1, "", f"crossfn: error: {want.format(c=c, f=f)}\n"), reason


def test_null_annotations_take_function_annotations(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "functions.yaml"
    f.write_text(
        yaml.safe_dump_all(_function(metadata={"name": "function-patch-and-transform", "annotations": None}))
    )
    status = cli.main(
        ["render", str(_EXAMPLE / "xr.yaml"), str(_EXAMPLE / "composition.yaml"), str(f), "-a", "a=b"]
    )
    assert status == 0, capsys.readouterr().err


def test_crossfn_test_exits_2_for_a_mistyped_composition(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "composition.yaml").write_text(yaml.safe_dump(_step(credentials=1)))
    test = yaml.safe_load((_EXAMPLE / "test.yaml").read_text())
    inputs = test["spec"]["tests"][0]["inputs"]
    inputs["xr"]["path"] = str(_EXAMPLE / "xr.yaml")
    inputs["functions"]["path"] = str(_EXAMPLE / "functions.yaml")
    (tmp_path / "t.yaml").write_text(yaml.safe_dump(test))
    status = cli.main(["test", str(tmp_path / "t.yaml")])
    out, err = capsys.readouterr()
    assert (status, out, err.count("\n")) == (2, "", 1), "bad input: exit 2, one line, no report"
    assert "spec.pipeline[0].credentials must be a list" in err
