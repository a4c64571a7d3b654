"""``crossfn test`` end to end: reports compared with golden files, exit statuses, and the JUnit report.

Regenerate the golden files with ``CROSSFN_UPDATE_GOLDEN=1 pytest tests/comptest``.
"""

from __future__ import annotations

import itertools
import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from crossfn import cli, comptest

_ROOT = Path(__file__).resolve().parents[2]
_DATA = Path(__file__).parent / "testdata"
_GOLDEN = Path(__file__).parent / "golden"
_UPDATE = os.environ.get("CROSSFN_UPDATE_GOLDEN") == "1"
_FAILING = str(_DATA / "cases" / "failing.yaml")


_BUILTIN = (
    "crossfn: note: running function-patch-and-transform v0.10.8 as the built-in patch-and-transform "
    "(behaves as v0.10.0-v0.10.8)\n"
)


def _golden(name: str, text: str, reason: str) -> None:
    golden = _GOLDEN / name
    if _UPDATE:
        golden.write_text(text)
    assert text == golden.read_text(), (
        f"{reason}; regenerate with CROSSFN_UPDATE_GOLDEN=1 pytest tests/comptest"
    )


@pytest.mark.parametrize(
    ("argv", "golden", "status", "reason"),
    [
        pytest.param([str(_ROOT / "examples" / "xbucket" / "test.yaml")], "xbucket.txt", 0,
                     "the bundled example passes: exit 0", id="ExamplePasses"),
        pytest.param([str(_ROOT / "examples" / "xbucket")], "xbucket.txt", 0,
                     "a directory runs the CompositionTests in it and skips the other YAML", id="ExampleDirectory"),
        pytest.param([_FAILING], "failing.txt", 1,
                     "every kind of failure, each with its reasons; exit 1", id="Failing"),
        pytest.param([_FAILING, "--run", "fatal|passes"], "failing-run.txt", 1,
                     "--run keeps the tests whose name matches", id="RunFilter"),
        pytest.param([_FAILING, "--run", "fatal|passes|string", "-o", "json"], "failing-run.json", 1,
                     "-o json: the same outcomes for tools", id="JSONOutput"),
    ],
)  # fmt: skip
def test_cli_report(
    capsys: pytest.CaptureFixture[str], argv: list[str], golden: str, status: int, reason: str
) -> None:
    code = cli.main(["test", "--quiet", *argv])
    out, err = capsys.readouterr()
    assert code == status, f"{reason}: {err}"
    assert err == _BUILTIN, f"{reason}: one line saying the built-in runs, however many tests use it"
    _golden(golden, out.replace(str(_DATA), "testdata"), f"{reason} (paths shown relative to tests/comptest)")


@pytest.mark.parametrize(
    ("argv", "golden", "reason"),
    [
        pytest.param([_FAILING], "failing.progress.txt",
                     "one line per test on stderr as it ends, numbered, with its verdict", id="Progress"),
        pytest.param([_FAILING, "-q"], "quiet.progress.txt", "-q: no progress lines", id="Quiet"),
    ],
)  # fmt: skip
def test_cli_progress(capsys: pytest.CaptureFixture[str], argv: list[str], golden: str, reason: str) -> None:
    """Progress goes to stderr, so stdout is still the report alone (golden files above)."""
    cli.main(["test", *argv])
    out, err = capsys.readouterr()
    assert out.endswith("1 passed, 4 failed\n"), reason
    _golden(golden, err, reason)


@pytest.mark.parametrize(
    ("text", "argv", "want", "reason"),
    [
        pytest.param("apiVersion: test.crossplane.io/v1alpha1\nkind: CompositionTest\nspec: {tests: [{id: x}]}\n",
                     [], "{file}: spec.tests[0].name: required", "a bad test file", id="BadTestFile"),
        pytest.param("a: [\n", [], "cannot parse YAML in {file}: line 2 column 1: did not find expected node content",
                     "bad YAML", id="BadYAML"),
        pytest.param("kind: CompositionTest\n", ["--run", "("],
                     "--run: cannot parse regular expression: missing ), unterminated subpattern at position 0",
                     "a bad --run pattern", id="BadRunPattern"),
    ],
)  # fmt: skip
def test_cli_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], *, text: str, argv: list[str], want: str, reason: str
) -> None:
    file = tmp_path / "t.yaml"
    file.write_text(text)
    junit = tmp_path / "junit.xml"
    code = cli.main(["test", str(file), "--junit", str(junit), *argv])
    out, err = capsys.readouterr()
    assert code == 2, reason
    assert out == "", f"{reason}: no partial report"
    assert err == f"crossfn: error: {want.format(file=file)}\n", reason
    assert not junit.exists(), f"{reason}: no JUnit report"


def test_cli_junit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--junit writes one testsuite per CompositionTest: failures as <failure>, render errors as <error>."""
    junit = tmp_path / "junit.xml"
    assert cli.main(["test", _FAILING, "--junit", str(junit)]) == 1
    capsys.readouterr()
    root = ET.parse(junit).getroot()
    assert root.tag == "testsuites"
    assert {k: root.get(k) for k in ("tests", "failures", "errors")} == {
        "tests": "5",
        "failures": "2",
        "errors": "2",
    }
    [suite] = root
    assert (suite.tag, suite.get("name"), suite.get("file")) == ("testsuite", "failing", _FAILING)
    assert [(c.get("name"), [d.tag for d in c]) for c in suite] == [
        ("wrong region and a missing field", ["failure"]),
        ("a number is not a string", ["failure"]),
        ("a fatal result fails the test", ["error"]),
        ("the render times out", ["error"]),
        ("this one passes", []),
    ]
    assert all(float(c.get("time", "")) >= 0 for c in suite), "every testcase is timed"


def test_junit_golden() -> None:
    """The JUnit document itself, with an injected clock (each case takes 0.25 s)."""
    cases = [c for c in comptest.load([Path(_FAILING)]) if c.name != "the render times out"]
    ticks = itertools.count()
    outcomes = comptest.run(cases, clock=lambda: next(ticks) * 0.25)
    _golden(
        "failing.xml", comptest.junit(outcomes).replace(str(_DATA), "testdata"), "the JUnit report's shape"
    )


def test_cli_junit_unwritable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A --junit file that cannot be written is a bad flag: exit 2, one line, no report on stdout."""
    junit = tmp_path / "missing-dir" / "junit.xml"
    code = cli.main(["test", "-q", str(_ROOT / "examples" / "xbucket"), "--junit", str(junit)])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err == _BUILTIN + f"crossfn: error: --junit: cannot write {junit}: no such file or directory\n"


def test_control_characters_in_names_cannot_forge_report_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A test's name is the author's text: controls are escaped in the report and the JUnit XML stays XML."""
    test = yaml.safe_load((_ROOT / "examples" / "xbucket" / "test.yaml").read_text())
    case = test["spec"]["tests"][0]
    for field in ("xr", "composition", "functions"):
        case["inputs"][field]["path"] = str(_ROOT / "examples" / "xbucket" / case["inputs"][field]["path"])
    case["name"] = "x\nPASS forged\r\x1b[2J\x00\u2028end"
    test["metadata"]["name"] = "suite\x07"
    test["spec"]["tests"] = [case]
    file, junit = tmp_path / "t.yaml", tmp_path / "junit.xml"
    file.write_text(yaml.safe_dump(test, allow_unicode=False))
    assert cli.main(["test", str(file), "--junit", str(junit)]) == 0
    out = capsys.readouterr().out
    assert out == "PASS suite\\x07/x\\x0aPASS forged\\x0d\\x1b[2J\\x00\\u2028end\n1 passed, 0 failed\n"
    name = ET.parse(junit).getroot().find("testsuite/testcase").get("name")  # type: ignore[union-attr]
    assert name == "x\\x0aPASS forged\\x0d\\x1b[2J\\x00\\u2028end", "well-formed XML, the name escaped"


def test_function_prints_go_to_stderr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """stdout holds only the report (`-o json` stays JSON): an in-process function's print() goes to stderr."""
    (tmp_path / "crossfn_comptest_printing.py").write_text("def compose(req, rsp):\n    print('debugging')\n")
    fn = {
        "apiVersion": "pkg.crossplane.io/v1",
        "kind": "Function",
        "metadata": {
            "name": "function-print",
            "annotations": {
                "render.crossplane.io/runtime": "InProcess",
                "render.crossfn.io/runtime-inprocess-object": "crossfn_comptest_printing:compose",
            },
        },
        "spec": {"package": "xpkg.crossplane.io/example/function-print:v0.1.0"},
    }
    composition = {
        "apiVersion": "apiextensions.crossplane.io/v1",
        "kind": "Composition",
        "metadata": {"name": "xp"},
        "spec": {
            "compositeTypeRef": {"apiVersion": "example.org/v1", "kind": "XP"},
            "mode": "Pipeline",
            "pipeline": [{"step": "print", "functionRef": {"name": "function-print"}}],
        },
    }
    xr = {"apiVersion": "example.org/v1", "kind": "XP", "metadata": {"name": "p"}}
    inputs = {"xr": {"raw": xr}, "composition": {"raw": composition}, "functions": {"raw": [fn]}}
    test = {
        "apiVersion": "test.crossplane.io/v1alpha1",
        "kind": "CompositionTest",
        "metadata": {"name": "printing"},
        "spec": {"tests": [{"name": "prints", "inputs": inputs}]},
    }
    (tmp_path / "test.yaml").write_text(yaml.safe_dump(test))
    monkeypatch.chdir(tmp_path)
    code = cli.main(["test", str(tmp_path / "test.yaml"), "-o", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(out)["passed"] == 1
    assert "debugging\n" in err
