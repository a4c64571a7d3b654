"""Reading render's input files: YAML streams from a file or a directory (upstream core-3.3).

The rules are ``crossplane render``'s:

* a PATH is a file or a directory; a directory means its ``*.yaml`` and
  ``*.yml`` files, not its subdirectories, in lexical order. A directory with
  none is the error ``no YAML files found in "<dir>" (.yaml or .yml)``;
* each file is a stream of ``---``-separated documents; empty documents are
  skipped;
* documents are read as Kubernetes reads YAML, through JSON: timestamps stay
  strings, map keys become strings, whole numbers become integers.

Every failure is an :class:`~crossfn.errors.InputError` naming the file and,
where there is one, the document; PyYAML's errors never escape this module.
Neighbours: ``_inputs`` calls these loaders in upstream core-3.3's order and wraps their
errors with Crossplane's texts.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from crossfn import errors
from crossfn.gocompat import base64 as gobase64
from crossfn.gocompat import values, yaml_loader

__all__ = ["load_documents", "load_one", "object_at", "parse_value", "secret_data"]


def object_at(obj: Mapping[str, Any], *keys: str) -> Mapping[str, Any]:
    """The object at ``keys`` under ``obj`` (``metadata``, ``spec.crossplane``...), or ``{}`` if absent or not an object."""
    current: Mapping[str, Any] = obj
    for key in keys:
        value = current.get(key)
        if not isinstance(value, Mapping):
            return {}
        current = value
    return current


def _files(path: Path) -> list[Path]:
    """The YAML files ``path`` names: itself, or its top-level ``*.yaml``/``*.yml`` in lexical order."""
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and p.suffix in (".yaml", ".yml"))
        if not files:
            raise errors.InputError(f"no YAML files found in {errors.quote(str(path))} (.yaml or .yml)")
        return files
    if not path.exists():
        raise errors.InputError(f"open {path}: no such file or directory")
    return [path]


def _stream(path: Path) -> Iterator[tuple[int, Any]]:
    """Every non-empty document of one file, with its index in the stream."""
    text = yaml_loader.read_file(path)
    try:
        docs = yaml_loader.load_all(text, as_json=True)
    except errors.InputError as exc:
        raise errors.InputError(f"cannot parse YAML in {path}: {exc}") from exc
    for index, doc in enumerate(docs):
        if doc is not None:
            yield index, doc


def load_documents(path: str | Path) -> list[dict[str, Any]]:
    """Every document of a file or directory (upstream core-3.3 loading rules); each must be an object."""
    out: list[dict[str, Any]] = []
    for file in _files(Path(path)):
        for index, doc in _stream(file):
            if not isinstance(doc, dict):
                raise errors.InputError(f"{file}: document {index + 1}: not a YAML object")
            out.append(doc)
    return out


def load_one(path: str | Path) -> dict[str, Any]:
    """The first document of a file, as Crossplane's ``yaml.Unmarshal`` of a whole file reads it."""
    p = Path(path)
    if p.is_dir():
        raise errors.InputError(f"read {p}: is a directory")
    docs = load_documents(p)
    if not docs:
        raise errors.InputError(f"{p}: no YAML document")
    return docs[0]


def parse_value(text: str) -> Any:
    """Parse inline YAML or JSON (a context value) as Kubernetes' YAML -> JSON decoder does."""
    docs = yaml_loader.load_all(text, as_json=True)
    return docs[0] if docs else None


def secret_data(secret: Mapping[str, Any], where: str) -> dict[str, bytes]:
    """A v1 Secret's data as bytes: base64 ``data``, with ``stringData`` written over it as the API server does.

    Values decode as Go's ``corev1.Secret`` does: a ``data`` value is a base64 string (line breaks
    ignored, as Go's ``encoding/base64``) and a ``stringData`` value a string; null is an empty value.
    """
    out: dict[str, bytes] = {}
    data = secret.get("data")
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise errors.InputError(f"{where}: data must be an object, not {values.a_json_type(data)}")
    for k, v in data.items():
        if v is None:
            out[k] = b""
            continue
        if not isinstance(v, str):
            raise errors.InputError(f"{where}: data.{k} must be a base64 string, not {values.a_json_type(v)}")
        try:
            out[k] = gobase64.std_decode(v)
        except errors.GoError as exc:
            raise errors.InputError(f"{where}: data.{k} is not base64: {exc}") from exc
    string_data = secret.get("stringData")
    if string_data is None:
        string_data = {}
    if not isinstance(string_data, Mapping):
        raise errors.InputError(
            f"{where}: stringData must be an object, not {values.a_json_type(string_data)}"
        )
    for k, v in string_data.items():
        if v is not None and not isinstance(v, str):
            raise errors.InputError(f"{where}: stringData.{k} must be a string, not {values.a_json_type(v)}")
        out[k] = (v or "").encode()
    return out
