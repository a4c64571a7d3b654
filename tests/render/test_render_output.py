"""Render frames each object's Go YAML after a ``---`` line, or writes one JSON array.

The bytes of one object are ``crossfn.gocompat.yaml_emitter``'s (tested there);
the expected text is the spec's own example (§3.6).
"""

from __future__ import annotations

import json

from crossfn.render import output


def test_spec_example_output() -> None:
    """§3.6: the XR document of the TestRender/Success expectation."""
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
