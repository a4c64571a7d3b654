"""Every Composition of the shared corpus that uses function-sequencer, function-status-transformer or
function-python renders without Docker, both modes, and says what upstream printed where it shows it.

The functions' own examples name their Function ``function-<name>`` with the
``Development`` runtime annotation; "as shipped" takes the annotation away
(``resolve`` reads the bare name as the newest release). The sequencer examples
pin function-patch-and-transform v0.10.7, which a built-in stands in for as it is.
"""

from __future__ import annotations

import pathlib
import re

import corpus
import pytest
import yaml

from crossfn import cli

CORPUS = corpus.root()
SEQ = CORPUS / "fn-sequencer" / "example"
ST = CORPUS / "fn-status-transformer" / "example"
DOCS = CORPUS / "crossplane-docs" / "content" / "master" / "manifests"
E2E = CORPUS / "crossplane-e2e" / "test" / "e2e" / "manifests" / "apiextensions" / "composition"


def _as_shipped(functions: pathlib.Path, tmp: pathlib.Path) -> str:
    """The Functions file without the Development runtime annotation."""
    docs = [d for d in yaml.safe_load_all(functions.read_text()) if d]
    for d in docs:
        d.get("metadata", {}).pop("annotations", None)
    out = tmp / "functions.yaml"
    out.write_text(yaml.safe_dump_all(docs))
    return str(out)


def _render(capsys: pytest.CaptureFixture[str], args: list[str]) -> str:
    assert cli.main(["render", *args]) == 0, capsys.readouterr().err
    return capsys.readouterr().out


def _results(out: str) -> list[str]:
    return [d["message"] for d in yaml.safe_load_all(out) if d and d.get("kind") == "Result"]


def _names(out: str) -> set[str]:
    return {
        d["metadata"]["annotations"]["crossplane.io/composition-resource-name"]
        for d in yaml.safe_load_all(out)
        if d and "crossplane.io/composition-resource-name" in d.get("metadata", {}).get("annotations", {})
    }


MODES = pytest.mark.parametrize("mode", [[], ["--classic"]], ids=["Default", "Classic"])

# (composition, observed file or "", composed resources rendered, a result message upstream's README prints or "")
SEQUENCER = [
    (
        "composition.yaml",
        "",
        {"first-resource"},
        'Delaying creation of resource(s) matching "second-resource" because "first-resource" is not fully ready (0 of 1)',
    ),
    ("composition.yaml", "observed.yaml", {"first-resource", "second-resource", "third-resource"}, ""),
    (
        "composition-regex.yaml",
        "observed-regex.yaml",
        {"first-subresource-1", "first-subresource-2", "second-object"},
        'Delaying creation of resource(s) matching "third-resource" because "object$" is not fully ready (0 of 1)',
    ),
    (
        "composition-with-deletion-sequencing.yaml",
        "observed-deletion-sequencing.yaml",
        {
            "first-resource",
            "second-resource",
            "third-resource",
            "second-resource-first-resource-usage",
            "third-resource-first-resource-usage",
        },
        "",
    ),
    ("composition-delete-only.yaml", "", {"first-resource", "second-resource"}, ""),
]


@MODES
@pytest.mark.parametrize(
    ("composition", "observed", "names", "message"),
    SEQUENCER,
    ids=[f"{c[0]}+{c[1] or 'none'}" for c in SEQUENCER],
)
def test_sequencer_examples(
    *,
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
    mode: list[str],
    composition: str,
    observed: str,
    names: set[str],
    message: str,
) -> None:
    args = [
        str(SEQ / "xr.yaml"),
        str(SEQ / composition),
        _as_shipped(SEQ / "functions.yaml", tmp_path),
        "-r",
        *mode,
    ]
    if observed:
        args += ["-o", str(SEQ / observed)]
    out = _render(capsys, args)
    assert _names(out) == names
    if message:
        assert any(re.sub(r"\s+", " ", m).endswith(message) for m in _results(out)), _results(out)


@MODES
def test_sequencer_conditional_example_fails_as_upstream(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], mode: list[str]
) -> None:
    """The example XR has no spec.enableOptional: cel-go's "no such key" makes the step Fatal upstream too."""
    args = [
        str(SEQ / "xr.yaml"),
        str(SEQ / "composition-conditional.yaml"),
        _as_shipped(SEQ / "functions.yaml", tmp_path),
        *mode,
    ]
    assert cli.main(["render", *args]) == 1
    err = capsys.readouterr().err
    assert "cannot evaluate CEL condition: no such key: enableOptional" in err


@MODES
def test_status_transformer_example(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], mode: list[str]
) -> None:
    """The example still has the function template's input (``example: Hello world``), which every release rejects."""
    out = _render(
        capsys,
        [
            str(ST / "xr.yaml"),
            str(ST / "composition.yaml"),
            _as_shipped(ST / "functions.yaml", tmp_path),
            *mode,
        ],
    )
    xr = next(d for d in yaml.safe_load_all(out) if d and d["kind"] == "XR")
    cond = next(c for c in xr["status"]["conditions"] if c["type"] == "StatusTransformationSuccess")
    assert (cond["status"], cond["reason"]) == ("False", "InputFailure")
    assert cond["message"].endswith('unknown name "example"')


def _write(tmp: pathlib.Path, name: str, text: str) -> str:
    (tmp / name).write_text(text)
    return str(tmp / name)


PYTHON = [
    pytest.param(
        DOCS / "get-started" / "composition",
        "app.yaml",
        "composition-python.yaml",
        "fn-python.yaml",
        [],
        {"deployment", "service"},
        id="DocsGetStarted",
    ),
    pytest.param(
        DOCS / "guides" / "connection-details-composition",
        "my-keys.yaml",
        "composition-python.yaml",
        "fn-python.yaml",
        ["fn-auto-ready.yaml"],
        {"user", "accesskey-0", "accesskey-1", "connection-secret"},
        id="DocsConnectionDetails",
    ),
]


@MODES
@pytest.mark.parametrize(("where", "xr", "composition", "fn", "more", "names"), PYTHON)
def test_python_docs(
    *,
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
    mode: list[str],
    where: pathlib.Path,
    xr: str,
    composition: str,
    fn: str,
    more: list[str],
    names: set[str],
) -> None:
    functions = "---\n".join((where / f).read_text() for f in [fn, *more])
    out = _render(
        capsys,
        [str(where / xr), str(where / composition), _write(tmp_path, "fns.yaml", functions), "-r", *mode],
    )
    assert _names(out) == names


_XR = "apiVersion: example.org/v1alpha1\nkind: {kind}\nmetadata:\n  name: test\n  namespace: default\nspec:\n  testField: x\n"


@MODES
def test_python_e2e_required_resources(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], mode: list[str]
) -> None:
    """The script imports the official SDK (response.require_resources, request.get_required_resource)."""
    setup = E2E / "required-resources" / "setup"
    xr = _write(tmp_path, "xr.yaml", _XR.format(kind="ResourceTest"))
    out = _render(
        capsys,
        [
            xr,
            str(setup / "composition.yaml"),
            str(setup / "functions.yaml"),
            "--required-resources",
            str(setup / "configmap.yaml"),
            "-r",
            *mode,
        ],
    )
    got = next(d for d in yaml.safe_load_all(out) if d and d["kind"] == "ResourceTest")
    assert {
        k: got["status"][k] for k in ("resourceReceived", "resourceHasExpectedData", "receivedValue")
    } == {
        "resourceReceived": True,
        "resourceHasExpectedData": True,
        "receivedValue": "test-value",
    }
    assert any(m.endswith("Successfully received ConfigMap with expected data") for m in _results(out))


@MODES
def test_python_e2e_required_schemas(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], mode: list[str]
) -> None:
    """The script asks for a schema (response.require_schema); render supplies none, so it is received empty."""
    setup = E2E / "required-schemas" / "setup"
    xr = _write(tmp_path, "xr.yaml", _XR.format(kind="SchemaTest"))
    out = _render(capsys, [xr, str(setup / "composition.yaml"), str(setup / "functions.yaml"), "-r", *mode])
    got = next(d for d in yaml.safe_load_all(out) if d and d["kind"] == "SchemaTest")
    assert got["status"]["schemaReceived"] is True
