"""Loading CompositionTest files (``crossfn.comptest.load``): discovery, field checks and their error texts."""

from __future__ import annotations

from pathlib import Path

import pytest

from crossfn import comptest, errors

_HEAD = "apiVersion: test.crossplane.io/v1alpha1\nkind: CompositionTest\nmetadata: {name: t}\n"
_INPUTS = "    inputs: {xr: {path: xr.yaml}, composition: {path: c.yaml}, functions: {path: f.yaml}}\n"


def _test(body: str) -> str:
    return _HEAD + "spec:\n  tests:\n" + body


@pytest.mark.parametrize(
    ("text", "want", "reason"),
    [
        pytest.param(_test("  - inputs: {}\n"), "spec.tests[0].name: required", "every test needs a name",
                     id="MissingName"),
        pytest.param(_test("  - name: a\n    inputs: {xr: {path: x, raw: {}}}\n"),
                     "spec.tests[0].inputs.xr: exactly one of path and raw is required",
                     "a Resource is a path or a raw object, not both", id="PathAndRaw"),
        pytest.param(_test("  - name: a\n    inputs: {xr: {}}\n"),
                     "spec.tests[0].inputs.xr: exactly one of path and raw is required",
                     "a Resource needs one of them", id="NeitherPathNorRaw"),
        pytest.param(_test("  - name: a\n    inputs: {xr: {path: x}, composition: {path: c}}\n"),
                     "spec.tests[0].inputs.functions: required", "functions are required", id="MissingFunctions"),
        pytest.param(_test("  - name: a\n    inputs: {xr: {path: x}, composition: {path: c}, functions: {raw: {}}}\n"),
                     "spec.tests[0].inputs.functions.raw: must be a list of objects",
                     "Resources take a list", id="FunctionsRawNotList"),
        pytest.param(_test("  - name: a\n    inptus: {}\n"), 'spec.tests[0]: unknown field "inptus"',
                     "a misspelt field fails instead of being ignored", id="UnknownField"),
        pytest.param(_test("  - name: a\n" + _INPUTS.replace("}}\n", "}, timeoutSeconds: 0}\n")),
                     "spec.tests[0].inputs.timeoutSeconds: must be a whole number of seconds, at least 1",
                     "timeoutSeconds has a minimum of 1", id="TimeoutZero"),
        pytest.param(_test("  - name: a\n" + _INPUTS.replace("}}\n", "}, validate: yes please}\n")),
                     "spec.tests[0].inputs.validate: must be true or false", "validate is a boolean",
                     id="ValidateNotBool"),
        pytest.param(_test("  - name: a\n" + _INPUTS + "    patches: {removeFields: spec.x}\n"),
                     "spec.tests[0].patches.removeFields: must be a list of field paths",
                     "removeFields is a list", id="RemoveFieldsNotList"),
        pytest.param(_test("  - name: a\n" + _INPUTS + "    assertions: [{type: kyverno}]\n"),
                     'spec.tests[0].assertions[0].type: unsupported assertion type "kyverno" (want "chainsaw")',
                     "only chainsaw assertions exist", id="UnknownAssertionType"),
        pytest.param(_test("  - name: a\n" + _INPUTS
                           + "    assertions: [{type: chainsaw, chainsaw: {resources: [{spec: {(replicas > `1`): true}}]}}]\n"),
                     "spec.tests[0].assertions[0].chainsaw.resources[0].spec: key \"(replicas > `1`)\": "
                     "JMESPath expressions are not supported (use plain values)",
                     "chainsaw's expression keys are refused with the field named", id="JMESPathKey"),
        pytest.param(_test("  - name: a\n" + _INPUTS
                           + "    assertions: [{type: chainsaw, chainsaw: {resources: [{spec: {~.(items): {a: 1}}}]}}]\n"),
                     "spec.tests[0].assertions[0].chainsaw.resources[0].spec: key \"~.(items)\": "
                     "JMESPath expressions are not supported (use plain values)",
                     "projection modifiers are expressions too", id="JMESPathModifier"),
        pytest.param(_test("  - name: a\n" + _INPUTS
                           + "    assertions: [{type: chainsaw, chainsaw: {resources: [{metadata: {name: ($n)}}]}}]\n"),
                     "spec.tests[0].assertions[0].chainsaw.resources[0].metadata.name: value \"($n)\": "
                     "JMESPath expressions are not supported (use plain values)",
                     "a value in parentheses is an expression in chainsaw", id="JMESPathValue"),
        pytest.param(_test("  - name: a\n    id: x\n" + _INPUTS + "  - name: b\n    id: x\n" + _INPUTS),
                     'spec.tests[1].id: duplicate id "x"',
                     "ids are unique within a CompositionTest", id="DuplicateID"),
        pytest.param(_HEAD + "spec: {tests: []}\n", "spec.tests: must be a non-empty list",
                     "a CompositionTest without tests is a mistake", id="NoTests"),
        pytest.param(_HEAD.replace("v1alpha1", "v9") + "spec: {}\n",
                     'apiVersion: unsupported "test.crossplane.io/v9" (want test.crossplane.io/v1alpha1)',
                     "an unknown version of the API is refused", id="WrongAPIVersion"),
        pytest.param(_HEAD + "spec: [\n", "cannot parse YAML in", "bad YAML names the file", id="BadYAML"),
        pytest.param("kind: ConfigMap\n", ": no CompositionTest or OperationTest documents",
                     "a file named explicitly must hold a test", id="NoTestInFile"),
    ],
)  # fmt: skip
def test_load_errors(tmp_path: Path, text: str, want: str, reason: str) -> None:
    file = tmp_path / "t.yaml"
    file.write_text(text)
    with pytest.raises(errors.InputError) as exc:
        comptest.load([file])
    assert want in str(exc.value), f"{reason}: {exc.value}"
    assert str(file) in str(exc.value), f"{reason}: the error names the file: {exc.value}"


def test_load_directory(tmp_path: Path) -> None:
    """A directory means every CompositionTest under it, recursively; other YAML is skipped silently."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.yml").write_text(_test("  - name: second\n" + _INPUTS))
    (tmp_path / "a.yaml").write_text(
        "kind: ConfigMap\n---\n" + _test("  - name: first\n    id: one\n" + _INPUTS)
    )
    (tmp_path / "broken.yaml").write_text("not: [valid\n")
    (tmp_path / "notes.txt").write_text(_test("  - name: ignored\n"))
    cases = comptest.load([tmp_path])
    assert [(c.full_name, c.id, c.where) for c in cases] == [
        ("t/first", "one", f"{tmp_path / 'a.yaml'}: document 2"),
        ("t/second", None, str(tmp_path / "sub" / "b.yml")),
    ]
    assert isinstance(cases[0], comptest.Case), "a CompositionTest's case"
    assert cases[0].xr == comptest.Source(field="spec.tests[0].inputs.xr", path=tmp_path / "xr.yaml"), (
        "paths are relative to the test file's directory"
    )
    assert cases[0].timeout == 30.0, "timeoutSeconds defaults to 30"


@pytest.mark.parametrize(
    ("files", "want", "reason"),
    [
        pytest.param({"t.yaml": "kind: ConfigMap\n"}, "no CompositionTest or OperationTest found in", "an empty directory is a mistake",
                     id="NoTestsInDirectory"),
        pytest.param({"t.yaml": "kind: CompositionTest\nspec: [\n"}, "cannot parse YAML in",
                     "a broken file that looks like a test is not skipped", id="BrokenTestInDirectory"),
    ],
)  # fmt: skip
def test_load_directory_errors(tmp_path: Path, files: dict[str, str], want: str, reason: str) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    with pytest.raises(errors.InputError, match=want):
        comptest.load([tmp_path])


def test_load_missing_path(tmp_path: Path) -> None:
    """A path that does not exist is bad input."""
    with pytest.raises(errors.InputError, match="no such file or directory"):
        comptest.load([tmp_path / "nope.yaml"])


def test_load_yaml_types(tmp_path: Path) -> None:
    """Expected values are read as Kubernetes (and crossfn render) read YAML, so types compare the same way."""
    file = tmp_path / "t.yaml"
    resource = "{a: 1e3, b: 2.0, c: 2024-01-01T00:00:00Z, d: '1.33', e: 1.33, f: yes}"
    file.write_text(
        _test(
            "  - name: a\n"
            + _INPUTS
            + f"    assertions: [{{type: chainsaw, chainsaw: {{resources: [{resource}]}}}}]\n"
        )
    )
    [case] = comptest.load([file])
    assert case.expected[0].resource == {
        "a": 1000, "b": 2, "c": "2024-01-01T00:00:00Z", "d": "1.33", "e": 1.33, "f": True,
    }  # fmt: skip
