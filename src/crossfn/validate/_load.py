"""Read the objects ``crossfn validate`` checks, the way ``crossplane beta validate`` reads them.

A source is a file, a directory (walked recursively for ``.yaml``, ``.yml``
and ``.json`` files, in sorted order), ``-`` for standard input, or several
of these separated by commas. Each file is a stream of YAML documents split
on ``---`` lines; empty documents are skipped. Every object remembers its
file and the line its document starts on, so a problem can name them.

YAML is read as Kubernetes reads it (YAML 1.1 through JSON): timestamps stay
strings rather than becoming ``datetime`` objects.

A Composition's pipeline step inputs are validated too, as upstream does: each
input becomes an object of its own, listed before its Composition.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from crossfn import errors
from crossfn.gocompat import yaml_loader

__all__ = ["Document", "load"]

_EXTENSIONS = (".yaml", ".yml", ".json")
_COMPOSITION = ("apiextensions.crossplane.io/v1", "Composition")


@dataclasses.dataclass(frozen=True)
class Document:
    """One object of a source, with where it came from (``file`` is ``-`` for standard input)."""

    file: str
    line: int
    obj: dict[str, Any]

    @property
    def location(self) -> str:
        """``file:line``, the line on which the object's document starts."""
        return f"{self.file}:{self.line}"


def load(source: str, *, stdin: IO[str] | None = None) -> list[Document]:
    """Every object of ``source`` (comma-separated files, directories or ``-``), in order.

    Raises :class:`~crossfn.errors.InputError` naming the file (and line) for
    a path that does not exist, a file that cannot be read, YAML that does not
    parse, or a document that is not a mapping.
    """
    out: list[Document] = []
    for part in source.split(","):
        if part == "-":
            text = yaml_loader.read_stream(stdin or sys.stdin)
            out += _documents("-", text)
            continue
        path = Path(part)
        if not part or not path.exists():  # Path("") is ".": an empty element names nothing, as in Go
            raise errors.InputError(
                f"cannot stat input source {errors.quote(part)}: no such file or directory"
            )
        for file in _files(path):
            try:
                text = yaml_loader.read_file(file)
            except errors.InputError as exc:
                raise errors.InputError(f"cannot read file {errors.quote(str(file))}: {exc}") from exc
            out += _documents(str(file), text)
    return out


def _files(path: Path) -> Iterator[Path]:
    if not path.is_dir():
        yield path
        return
    for root, dirs, files in os.walk(path):
        dirs.sort()
        for name in sorted(files):
            # Only regular files: a FIFO would block, a link to a device would never end.
            if name.endswith(_EXTENSIONS) and os.path.isfile(os.path.join(root, name)):
                yield Path(root) / name


def _documents(file: str, text: str) -> list[Document]:
    out: list[Document] = []
    for line, chunk in _split(text):
        try:
            docs = yaml_loader.load_all(chunk, as_json=True)
        except errors.InputError as exc:
            raise errors.InputError(
                f"cannot parse YAML manifest {errors.quote(file)} (document at line {line}): {exc}"
            ) from exc
        obj = docs[0] if docs else None
        if obj is None:
            continue
        if not isinstance(obj, dict):
            raise errors.InputError(
                f"cannot parse YAML manifest {errors.quote(file)} (document at line {line}): not a mapping"
            )
        out += [Document(file, line, step_input) for step_input in _step_inputs(obj)]
        out.append(Document(file, line, obj))
    return out


def _split(text: str) -> Iterator[tuple[int, str]]:
    """Split a YAML stream on ``---`` lines; yield each document's first line number (1-based) and text."""
    start, lines = 1, list[str]()
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        if line.startswith("---") and line[3:].strip() == "":
            if lines:
                yield start, "".join(lines)
            start, lines = number + 1, []
            continue
        lines.append(line)
    if lines:
        yield start, "".join(lines)


def _step_inputs(obj: dict[str, Any]) -> list[dict[str, Any]]:
    if (obj.get("apiVersion"), obj.get("kind")) != _COMPOSITION:
        return []
    pipeline = (obj.get("spec") or {}).get("pipeline") if isinstance(obj.get("spec"), dict) else None
    if not isinstance(pipeline, list):
        return []
    return [
        step["input"] for step in pipeline if isinstance(step, dict) and isinstance(step.get("input"), dict)
    ]
