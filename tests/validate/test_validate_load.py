"""The validate loader: sources, YAML streams, Composition step inputs."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from crossfn import errors
from crossfn.validate import _load

_COMPOSITION = """\
apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata: {name: c}
spec:
  mode: Pipeline
  pipeline:
  - step: one
    functionRef: {name: f}
    input: {apiVersion: x.fn.io/v1, kind: Input, a: 1}
  - step: two
    functionRef: {name: g}
"""


def test_stream_split_and_lines() -> None:
    text = "---\na: 1\n---\n\n---\n# only a comment\n---\nb: 2\nc: 2000-01-01T00:00:00Z\n"
    docs = _load.load("-", stdin=io.StringIO(text))
    assert [(d.line, d.obj) for d in docs] == [
        (2, {"a": 1}),
        (8, {"b": 2, "c": "2000-01-01T00:00:00Z"}),
    ], "empty documents are skipped; timestamps stay strings; lines are where documents start"
    assert docs[0].location == "-:2"


def test_directory_recursive_sorted_with_json(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "b.yaml").write_text("name: b\n")
    (tmp_path / "a.yml").write_text("name: a\n")
    (tmp_path / "sub" / "c.json").write_text('{"name": "c"}')
    (tmp_path / "skip.txt").write_text("name: skip\n")
    assert [d.obj["name"] for d in _load.load(str(tmp_path))] == ["a", "b", "c"]


def test_comma_separated_sources(tmp_path: Path) -> None:
    (tmp_path / "one.yaml").write_text("name: 1\n")
    (tmp_path / "two.yaml").write_text("name: 2\n")
    docs = _load.load(f"{tmp_path / 'two.yaml'},{tmp_path / 'one.yaml'}")
    assert [d.obj["name"] for d in docs] == [2, 1], "sources keep their order"


def test_values_and_keys_read_as_kubernetes_reads_them() -> None:
    """go-yaml v2 through sigs.k8s.io/yaml: y is true, even as a key; 1.0 is the integer 1 after JSON."""
    docs = _load.load("-", stdin=io.StringIO("a: y\nn: 1\nb: 1.0\nc: 22:00\n"))
    assert docs[0].obj == {"a": True, "false": 1, "b": 1, "c": "22:00"}
    assert type(docs[0].obj["b"]) is int


def test_composition_step_inputs(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text(_COMPOSITION)
    docs = _load.load(str(tmp_path / "c.yaml"))
    assert [d.obj["kind"] for d in docs] == ["Input", "Composition"], (
        "step inputs come before their Composition"
    )


@pytest.mark.parametrize(
    ("reason", "text", "want"),
    [
        pytest.param(
            "A list is not a manifest.", "- a\n", r"\(document at line 1\): not a mapping$", id="NotMapping"
        ),
        pytest.param(
            "Bad YAML is reported with its document line.",
            "a: 1\n---\nb: [\n",
            r"\(document at line 3\): ",
            id="BadYAML",
        ),
    ],
)
def test_errors(reason: str, text: str, want: str, tmp_path: Path) -> None:
    path = tmp_path / "f.yaml"
    path.write_text(text)
    with pytest.raises(errors.InputError, match=want):
        _load.load(str(path))


def test_directory_walk_skips_what_is_not_a_regular_file(tmp_path: Path) -> None:
    """A FIFO would block the walk forever and a link to /dev/zero would never end: only regular files are read."""
    (tmp_path / "good.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
    os.mkfifo(tmp_path / "fifo.yaml")
    (tmp_path / "zero.yaml").symlink_to("/dev/zero")
    docs = _load.load(str(tmp_path))
    assert [d.file for d in docs] == [str(tmp_path / "good.yaml")]


def test_a_named_fifo_is_one_line(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    with pytest.raises(errors.InputError, match="not a regular file"):
        _load.load(str(fifo))
