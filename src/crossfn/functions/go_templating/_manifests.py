"""The rendered text read back as objects: apimachinery's ``YAMLOrJSONDecoder`` into ``Unstructured``.

The decoder peeks at the first 1024 bytes: when the first non-space byte is
``{`` the text is a stream of JSON values, else YAML documents split at lines
that start with ``---`` (followed only by spaces or a comment; anything else
there is ``invalid Yaml document separator``). Each document goes through
sigs.k8s.io/yaml (YAML to JSON, then JSON into the object): a document that is
empty or only comments is skipped (a nil object), one without ``kind`` is
``Object 'Kind' is missing in '<its JSON>'``, one that is not a mapping fails
as Go's JSON decoder does. From v0.12.0 (apimachinery 0.35) a stream that
starts like JSON but is not is read again as YAML, and a YAML error names the
line in the whole output, the document and the text near it.
"""

from __future__ import annotations

import json as _stdjson
from collections.abc import Mapping
from typing import Any

from crossfn import errors
from crossfn.functions.go_templating._release import Release
from crossfn.gocompat import fmt, json, strconv, values, yaml_loader

__all__ = ["annotation_error", "decode"]

_SNIFF_BYTES = 1024
_SPACES = " \t\n\v\f\r\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"


def decode(text: str, r: Release) -> list[dict[str, Any]]:
    """The objects of the rendered text, in order; :class:`~crossfn.errors.GoError` with the text that
    follows ``cannot decode manifest: ``."""
    head = values.from_bytes(values.to_bytes(text)[:_SNIFF_BYTES])
    if head.lstrip(_SPACES).startswith("{"):
        objs, rest = _json_stream(text, strict=not r.json_falls_back_to_yaml)
        if rest is None:
            return objs
        return objs + _yaml_stream(rest, r, text)
    return _yaml_stream(text, r, text)


# --- JSON ------------------------------------------------------------------------------------


def _json_stream(text: str, *, strict: bool) -> tuple[list[dict[str, Any]], str | None]:
    """JSON values one after another; ``(objects, None)``, or with apimachinery 0.35, where the JSON
    reading gave up after at most one value, the rest of the text to read as YAML."""
    decoder = _stdjson.JSONDecoder()
    objs: list[dict[str, Any]] = []
    end, count = 0, 0
    while True:
        start = end
        while start < len(text) and text[start] in " \t\n\r":
            start += 1
        if start == len(text):
            return objs, None
        try:
            _, stop = decoder.raw_decode(text, start)
        except ValueError:
            if not strict and count <= 1:
                return objs, _after_first_newline(text[end:])
            raise _json_syntax_error(text[end:]) from None
        raw = text[start:stop]
        end = stop
        count += 1
        obj = _unstructured(json.unmarshal(raw, integers=True), raw)
        if obj is not None:
            objs.append(obj)


def _after_first_newline(text: str) -> str:
    """apimachinery drops leading spaces up to and including the first newline before reading YAML."""
    i = 0
    while i < len(text) and text[i] in " \t\r":
        i += 1
    if i < len(text) and text[i] == "\n":
        i += 1
    return text[i:]


def _json_syntax_error(rest: str) -> errors.GoError:
    """What Go's ``json.Decoder`` says of the value that starts ``rest`` (after the previous value):
    ``json: offset N: <syntax error>``, N counted from the previous value's end; ``unexpected EOF``
    when the text ends inside the value."""
    found = json.syntax_error(rest)
    if found is None or found[0] == "unexpected end of JSON input":
        return errors.GoError("unexpected EOF")
    message, offset = found
    return errors.GoError(f"json: offset {offset}: {message}")


def _unstructured(value: Any, raw: str, *, wrap: bool = False) -> dict[str, Any] | None:
    """One decoded JSON value into an ``Unstructured``: None for ``null``; an object needs a kind."""
    prefix = "error unmarshaling JSON: while decoding JSON: " if wrap else ""
    if value is None:
        return None
    if not isinstance(value, dict):
        kind = "array" if isinstance(value, list) else _json_kind(value)
        raise errors.GoError(
            f"{prefix}json: cannot unmarshal {kind} into Go value of type map[string]interface {{}}"
        )
    kind_value = value.get("kind")
    if not isinstance(kind_value, str) or not kind_value:
        raise errors.GoError(f"{prefix}Object 'Kind' is missing in '{raw}'")
    return value


def _json_kind(v: Any) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int | float):
        return "number"
    return "string"


# --- YAML ------------------------------------------------------------------------------------


def _documents(text: str) -> list[tuple[str, bool]]:
    """``YAMLReader``: the documents between ``---`` lines, each with whether it is the last one read."""
    docs: list[tuple[str, bool]] = []
    buffer: list[str] = []
    for line in _lines(text):
        if line.startswith("---"):
            after = line[3:].strip(_SPACES)
            if after and not after.startswith("#"):
                docs.append((f"invalid Yaml document separator: {after}", True))
                return docs
            if buffer:
                docs.append(("".join(buffer), False))
                buffer = []
            continue
        buffer.append(line)
    if buffer:
        docs.append(("".join(buffer), False))
    return docs


def _lines(text: str) -> list[str]:
    """Lines as Go's line reader gives them: split after each ``\n`` only, the last one possibly unended."""
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def _yaml_stream(text: str, r: Release, whole: str) -> list[dict[str, Any]]:
    objs: list[dict[str, Any]] = []
    lines = whole.split("\n")
    start_line = _next_doc(lines, 1)
    doc_index = 0
    for doc, is_error in _documents(text):
        if is_error:
            raise errors.GoError(doc)
        try:
            loaded = yaml_loader.load_all(doc, as_json=True)
        except errors.InputError as exc:
            message = f"error converting YAML to JSON: {yaml_loader.go_message(exc)}"
            if r.yaml_error_context:
                message = _with_context(message, start_line, lines, doc_index)
            raise errors.GoError(message) from exc
        value = loaded[0] if loaded else None
        raw = json.marshal(value) if value is not None else "null"
        obj = _unstructured(value, raw, wrap=True)
        if obj is None:
            continue
        objs.append(obj)
        start_line = _next_doc(lines, start_line)
        doc_index += 1
    return objs


def _next_doc(lines: list[str], start: int) -> int:
    """``moveToNextDoc``: the 1-based number of the next ``---`` line after ``start``, else ``start``."""
    for i in range(start, len(lines) + 1):
        if lines[i - 1].strip(_SPACES) == "---" and i > start:
            return i
    return start


def _with_context(message: str, start_line: int, lines: list[str], doc_index: int) -> str:
    """v0.12.0's ``getYamlErrorContextFromErr``: the absolute line, the document, and the text near it."""
    prefix = "error converting YAML to JSON: yaml: line "
    if not message.startswith(prefix):
        return message
    digits = ""
    for ch in message[len(prefix) :]:
        if not ch.isdigit():
            break
        digits += ch
    if not digits or not message[len(prefix) + len(digits) :].startswith(":"):
        return message
    rel = int(digits)
    rest = message[len(prefix) + len(digits) + 1 :].strip(_SPACES)
    absolute = start_line + rel
    if not 0 <= absolute - 1 < len(lines):
        return message
    near = lines[absolute - 1].strip(_SPACES)
    if len(values.to_bytes(near)) > 80:
        near = values.from_bytes(values.to_bytes(near)[:80]) + "..."
    return (
        f"error converting YAML to JSON: yaml: line {absolute} (document {doc_index + 1}, line {rel}) "
        f"near: '{near}': {rest}"
    )


def annotation_error(obj: Mapping[str, Any]) -> str | None:
    """v0.5.0's check (``NestedStringMap``): why ``metadata.annotations`` is not a map of strings, if it is not."""
    meta = obj.get("metadata", None)
    if "metadata" not in obj or meta is None:
        return None
    if not isinstance(meta, dict):
        annotations: Any = meta  # Go reports the path it was reading, through the non-map
    elif "annotations" not in meta:
        return None
    else:
        annotations = meta["annotations"]
    if not isinstance(annotations, dict):
        return (
            f".metadata.annotations accessor error: {fmt.sprint(annotations)} is of the type "
            f"{values.type_name(annotations)}, expected map[string]interface{{}}"
        )
    for key in sorted(annotations, key=values.to_bytes):
        v = annotations[key]
        if not isinstance(v, str):
            return (
                f".metadata.annotations accessor error: contains non-string value in the map under key "
                f"{strconv.quote(key)}: {fmt.sprint(v)} is of the type {values.type_name(v)}, expected string"
            )
    return None
