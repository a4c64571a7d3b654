"""Render frames each object's Go YAML after a ``---`` line, or writes one JSON array.

The bytes of one object are ``crossfn.gocompat.yaml_emitter``'s (tested there);
the expected text is the spec's own example (upstream core-3.6).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crossfn import cli
from crossfn.render import output


def test_spec_example_output() -> None:
    """upstream core-3.6: the XR document of the TestRender/Success expectation."""
    xr = {
        "apiVersion": "nop.example.org/v1alpha1",
        "kind": "XNopResource",
        "metadata": {"name": "test-render"},
        "status": {
            "conditions": [
                {
                    "lastTransitionTime": "2024-01-01T00:00:00Z",
                    "message": "Unready resources: a-cool-resource, b-cool-resource",
                    "reason": "Creating",
                    "status": "False",
                    "type": "Ready",
                },
                {
                    "lastTransitionTime": "2024-01-01T00:00:00Z",
                    "message": "Provisioned successfully",
                    "reason": "Provisioned",
                    "status": "True",
                    "type": "ProvisioningSuccess",
                },
            ],
            "widgets": 9001,
        },
    }
    want = """---
apiVersion: nop.example.org/v1alpha1
kind: XNopResource
metadata:
  name: test-render
status:
  conditions:
  - lastTransitionTime: "2024-01-01T00:00:00Z"
    message: 'Unready resources: a-cool-resource, b-cool-resource'
    reason: Creating
    status: "False"
    type: Ready
  - lastTransitionTime: "2024-01-01T00:00:00Z"
    message: Provisioned successfully
    reason: Provisioned
    status: "True"
    type: ProvisioningSuccess
  widgets: 9001
"""
    assert output.yaml_stream([xr]) == want


def test_json_output_is_a_sorted_array() -> None:
    got = output.to_json([{"b": 1, "a": "é"}, {"kind": "Result"}])
    assert json.loads(got) == [{"a": "é", "b": 1}, {"kind": "Result"}]
    assert got.index('"a"') < got.index('"b"'), "keys are sorted"
    assert got.endswith("]\n")


def test_values_print_as_crossplane_prints_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Inputs are read with go-yaml v2's rules and numbers go through float64, as ``crossplane render`` does."""
    example = Path(__file__).resolve().parents[2] / "examples" / "xbucket"
    xr = tmp_path / "xr.yaml"
    xr.write_text(
        (example / "xr.yaml").read_text()
        + "  flag: y\n  clock: 22:00\n  octal: 0o17\n  eight: 08\n  half: +.5\n  big: 12345678901234567890\n"
    )
    argv = [str(xr), str(example / "composition.yaml"), str(example / "functions.yaml"), "--include-full-xr"]
    assert cli.main(["render", "--classic", *argv]) == 0
    spec = capsys.readouterr().out.split("---\n")[1].split("spec:\n", 1)[1]
    assert spec.startswith(
        '  big: 12345678901234567000\n  bucketRegion: us-east-2\n  clock: "22:00"\n  eight: 8\n  flag: true\n'
        "  half: 0.5\n  octal: 15\n"
    ), spec
