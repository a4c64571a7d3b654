"""``crossfn validate``: golden output, exit codes, JSON, standard input, load errors.

The command runs as a real process from the repository root, so the file
names in its output are stable. Regenerate the golden files with::

    CROSSFN_UPDATE_GOLDEN=1 python -m pytest tests/validate/test_validate_cli.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from crossfn import cli

ROOT = Path(__file__).parents[2]
GOLDEN = Path(__file__).parent / "golden"
DATA = "tests/data/schemas"
EXTENSIONS = f"{DATA}/provider,{DATA}/xrd"


def _crossfn(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "crossfn", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
        timeout=60,
    )


def _golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("CROSSFN_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
    assert path.exists(), f"missing golden file {path}; run with CROSSFN_UPDATE_GOLDEN=1"
    assert text == path.read_text(), f"output differs from {path}"


@pytest.mark.parametrize(
    ("reason", "args", "golden", "want_rc"),
    [
        pytest.param(
            "Every kind of line: valid, invalid (schema and CEL), missing schema, and the total.",
            ["validate", EXTENSIONS, f"{DATA}/resources"],
            "all.txt",
            1,
            id="Directory",
        ),
        pytest.param(
            "--skip-success-results prints only problems and the total.",
            ["validate", EXTENSIONS, f"{DATA}/resources/instances.yaml", "--skip-success-results"],
            "instances-skip-success.txt",
            1,
            id="SkipSuccess",
        ),
    ],
)
def test_cli_golden(reason: str, args: list[str], golden: str, want_rc: int) -> None:
    result = _crossfn(*args)
    assert result.returncode == want_rc, (reason, result.stderr)
    assert result.stderr == "crossfn: error: cannot validate resources: could not validate all resources\n"
    _golden(golden, result.stdout)


def test_cli_all_valid(tmp_path: Path) -> None:
    good = tmp_path / "good.yaml"
    good.write_text((ROOT / DATA / "resources" / "builtins.yaml").read_text().split("---")[0])
    result = _crossfn(
        "validate",
        EXTENSIONS,
        str(good),
        "--cache-dir",
        str(tmp_path),
        "--clean-cache",
        "--crossplane-image",
        "x",
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout.endswith("Total 1 resources: 0 missing schemas, 1 success cases, 0 failure cases\n")


@pytest.mark.parametrize(
    ("reason", "extra", "want_rc", "want_err"),
    [
        pytest.param("Missing schemas alone pass.", [], 0, "", id="MissingAllowed"),
        pytest.param(
            "--error-on-missing-schemas fails on them.",
            ["--error-on-missing-schemas"],
            1,
            "crossfn: error: cannot validate resources: could not validate all resources, schema(s) missing\n",
            id="ErrorOnMissing",
        ),
    ],
)
def test_cli_missing_schemas(
    reason: str, extra: list[str], want_rc: int, want_err: str, tmp_path: Path
) -> None:
    unknown = tmp_path / "unknown.yaml"
    unknown.write_text("apiVersion: example.org/v1\nkind: Unknown\nmetadata: {name: m}\n")
    result = _crossfn("validate", EXTENSIONS, str(unknown), *extra)
    assert (result.returncode, result.stderr) == (want_rc, want_err), reason
    assert "[!] could not find CRD/XRD for: example.org/v1, Kind=Unknown" in result.stdout


def test_cli_stdin_render_stream_and_json() -> None:
    stream = (ROOT / DATA / "resources" / "composites.yaml").read_text()
    result = _crossfn("validate", EXTENSIONS, "-", "--output", "json", stdin=stream)
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert report["summary"] == {"total": 5, "missingSchemas": 0, "success": 3, "failure": 2}
    bad = [r for r in report["resources"] if r["status"] == "invalid"]
    assert [(r["file"], r["line"], r["name"]) for r in bad] == [("-", 10, "bad-db"), ("-", 48, "bad-net")]
    assert bad[0]["problems"][0] == {
        "path": "spec.parameters.storageGB",
        "type": "Invalid value",
        "origin": "schema",
        "detail": "spec.parameters.storageGB in body should be greater than or equal to 20",
        "value": 10,
        "message": "spec.parameters.storageGB: Invalid value: 10: spec.parameters.storageGB in body should be greater than or equal to 20",
    }


def test_cli_old_resources(tmp_path: Path) -> None:
    crd = tmp_path / "crd.yaml"
    crd.write_text(
        """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: things.x.io}
spec:
  group: x.io
  names: {kind: Thing, plural: things}
  scope: Cluster
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size:
                type: integer
                x-kubernetes-validations:
                - {rule: self >= oldSelf, message: size may only grow}
"""
    )
    new = tmp_path / "new.yaml"
    new.write_text("apiVersion: x.io/v1\nkind: Thing\nmetadata: {name: t}\nspec: {size: 1}\n")
    old = tmp_path / "old.yaml"
    old.write_text("apiVersion: x.io/v1\nkind: Thing\nmetadata: {name: t}\nspec: {size: 2}\n")
    assert _crossfn("validate", str(crd), str(new)).returncode == 0, "transition rules need an old object"
    result = _crossfn("validate", str(crd), str(new), "--old-resources", str(old))
    assert result.returncode == 1
    assert (
        '[x] CEL validation error x.io/v1, Kind=Thing, t : spec.size: Invalid value: "integer": size may only grow'
        in result.stdout
    )


@pytest.mark.parametrize(
    ("reason", "args", "want"),
    [
        pytest.param(
            "Both sources cannot be standard input.",
            ["-", "-"],
            "crossfn: error: cannot use stdin for both extensions and resources\n",
            id="BothStdin",
        ),
        pytest.param(
            "A missing path names the source.",
            [EXTENSIONS, "nowhere.yaml"],
            'crossfn: error: cannot load resources from "nowhere.yaml": cannot stat input source "nowhere.yaml": no such file or directory\n',
            id="MissingPath",
        ),
        pytest.param(
            "Bad YAML names the file and the document's line.",
            [EXTENSIONS, "BAD"],
            None,
            id="BadYAML",
        ),
    ],
)
def test_cli_errors(reason: str, args: list[str], want: str | None, tmp_path: Path) -> None:
    if "BAD" in args:
        bad = tmp_path / "bad.yaml"
        bad.write_text("apiVersion: v1\nkind: ConfigMap\n---\nkind: [unclosed\n")
        args = [str(bad) if a == "BAD" else a for a in args]
    result = _crossfn("validate", *args)
    assert result.returncode == 1, reason
    assert result.stdout == "", "no partial output"
    if want is None:
        assert result.stderr.startswith(
            f'crossfn: error: cannot load resources from "{bad}": cannot parse YAML manifest "{bad}" (document at line 4): '
        )
        assert result.stderr.count("\n") == 1, "one line"
        return
    assert result.stderr == want, reason


def test_cli_skips_packages_with_warning(tmp_path: Path) -> None:
    ext = tmp_path / "ext.yaml"
    ext.write_text(
        "apiVersion: pkg.crossplane.io/v1\nkind: Provider\nmetadata: {name: provider-aws}\nspec: {package: x}\n"
    )
    res = tmp_path / "res.yaml"
    res.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n")
    result = _crossfn("validate", str(ext), str(res))
    assert result.returncode == 0
    assert result.stderr == (
        "crossfn: warning: cannot fetch schemas of package Provider provider-aws offline; give its CRDs as extensions\n"
    )


def test_non_string_keys_print_as_go_does(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """YAML keys true, 0x10 and 1.5 are the JSON keys "true", "16" and "1.5"; a dot in a key is not a path step."""
    crd = tmp_path / "crd.yaml"
    crd.write_text(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: things.example.org}\n"
        "spec:\n  group: example.org\n  names: {kind: Thing, plural: things}\n  scope: Cluster\n  versions:\n"
        "  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n"
        "        properties:\n          spec: {type: object, properties: {a: {type: string}}}\n"
    )
    thing = tmp_path / "thing.yaml"
    thing.write_text(
        "apiVersion: example.org/v1\nkind: Thing\nmetadata: {name: t}\nspec: {true: 1, 0x10: 2, 1.5: 3}\n"
    )
    assert cli.main(["validate", str(crd), str(thing)]) == 1
    lines = capsys.readouterr().out.splitlines()
    prefix = "[x] schema validation error example.org/v1, Kind=Thing, t : "
    assert lines[:3] == [
        f'{prefix}spec.true: Invalid value: "true": unknown field: "true" [{thing}:1]',
        f'{prefix}spec.16: Invalid value: "16": unknown field: "16" [{thing}:1]',
        f'{prefix}spec.1.5: Invalid value: "1.5": unknown field: "1.5" [{thing}:1]',
    ]
