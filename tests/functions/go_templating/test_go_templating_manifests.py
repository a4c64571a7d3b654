"""Reading the rendered text back (apimachinery's YAMLOrJSONDecoder into Unstructured), and the annotation check."""

from __future__ import annotations

from typing import Any

import pytest

from crossfn import errors
from crossfn.functions.go_templating import _manifests
from crossfn.functions.go_templating._release import CURRENT, Release

OLD = Release((0, 11, 9))
A = "apiVersion: v1\nkind: A\n"
B = "apiVersion: v1\nkind: B\n"

DECODE = [
    ("one document", A, [{"apiVersion": "v1", "kind": "A"}]),
    ("separated", A + "---\n" + B, [{"apiVersion": "v1", "kind": "A"}, {"apiVersion": "v1", "kind": "B"}]),
    ("leading and repeated separators", "---\n---\n" + A + "---\n\n---\n", [{"apiVersion": "v1", "kind": "A"}]),
    ("a comment after the separator", A + "--- # next\n" + B, [{"apiVersion": "v1", "kind": "A"}, {"apiVersion": "v1", "kind": "B"}]),
    ("comment-only and null documents are skipped", "# nothing\n---\n~\n---\n" + A, [{"apiVersion": "v1", "kind": "A"}]),
    ("nothing at all", "  \n\n", []),
    ("numbers as Kubernetes reads them", "apiVersion: v1\nkind: A\nnum: 1.0\nf: 1.5\n", [{"apiVersion": "v1", "kind": "A", "num": 1, "f": 1.5}]),
    ("a key n is YAML 1.1's false", "apiVersion: v1\nkind: A\nn: 1\n", [{"apiVersion": "v1", "kind": "A", "false": 1}]),
    ("YAML 1.1 booleans, as sigs.k8s.io/yaml reads them", A + "b: yes\n", [{"apiVersion": "v1", "kind": "A", "b": True}]),
    ("a JSON stream", '{"kind":"A"} {"kind":"B"}\n', [{"kind": "A"}, {"kind": "B"}]),
    ("JSON null values are skipped", ' {"kind":"A"} null', [{"kind": "A"}]),
]  # fmt: skip


@pytest.mark.parametrize(("name", "text", "want"), DECODE, ids=[c[0] for c in DECODE])
def test_decode(name: str, text: str, want: list[dict[str, Any]]) -> None:
    del name
    assert list(_manifests.decode(text, CURRENT)) == want


DECODE_ERRORS = [
    ("text after a separator", A + "--- foo\n" + B, "invalid Yaml document separator: foo"),
    ("a separator that is longer", A + "----\n", "invalid Yaml document separator: -"),
    ("no kind (YAML)", "apiVersion: v1\nmetadata: {name: x}\n",
     "error unmarshaling JSON: while decoding JSON: Object 'Kind' is missing in "
     "'{\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"x\"}}'"),
    ("no kind (JSON): the raw text", '{"apiVersion": "v1"}', "Object 'Kind' is missing in '{\"apiVersion\": \"v1\"}'"),
    ("a list", "- a\n", "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}"),
    ("a string", "hello\n", "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go value of type map[string]interface {}"),
    ("a JSON number", '{"kind":"A"} 5', "json: cannot unmarshal number into Go value of type map[string]interface {}"),
    ("JSON cut short", '{"kind":"A"} {"kind":', "unexpected EOF"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "text", "want"), DECODE_ERRORS, ids=[c[0] for c in DECODE_ERRORS])
def test_decode_errors(name: str, text: str, want: str) -> None:
    del name
    with pytest.raises(errors.GoError) as exc:
        list(_manifests.decode(text, OLD))
    assert str(exc.value) == want


def test_yaml_error_context_truncates_long_lines() -> None:
    """v0.12.0 quotes at most 80 bytes of the line, then ``...``."""
    text = "---\napiVersion: v1\nkind: A\nx: %" + "y" * 100 + "\n"
    with pytest.raises(errors.GoError) as exc:
        list(_manifests.decode(text, CURRENT))
    message = str(exc.value)
    assert message.startswith(
        "error converting YAML to JSON: yaml: line 4 (document 1, line 3) near: 'x: %yyy"
    )
    assert "'x: %" + "y" * 76 + "...': found character that cannot start any token" in message


def test_yaml_error_context_counts_documents() -> None:
    text = A + "---\n" + B + "---\n" + "apiVersion: v1\nkind: C\nbad: [\n"
    with pytest.raises(errors.GoError) as exc:
        list(_manifests.decode(text, CURRENT))
    assert "(document 3, line 3)" in str(exc.value)


ANNOTATIONS = [
    ({"kind": "A"}, None),
    ({"kind": "A", "metadata": None}, None),
    ({"kind": "A", "metadata": {"annotations": {"a": "b"}}}, None),
    ({"kind": "A", "metadata": {"annotations": None}},
     ".metadata.annotations accessor error: <nil> is of the type <nil>, expected map[string]interface{}"),
    ({"kind": "A", "metadata": "x"},
     ".metadata.annotations accessor error: x is of the type string, expected map[string]interface{}"),
    ({"kind": "A", "metadata": {"annotations": {"b": True, "a": 1}}},
     '.metadata.annotations accessor error: contains non-string value in the map under key "a": 1 is of the type '
     "int64, expected string"),
    ({"kind": "A", "metadata": {"annotations": ["x"]}},
     ".metadata.annotations accessor error: [x] is of the type []interface {}, expected map[string]interface{}"),
]  # fmt: skip


@pytest.mark.parametrize(("obj", "want"), ANNOTATIONS)
def test_annotation_error(obj: dict[str, Any], want: str | None) -> None:
    """v0.5.0's check. Go reports the first non-string value its map iteration meets; here, by key order."""
    assert _manifests.annotation_error(obj) == want
