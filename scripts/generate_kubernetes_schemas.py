"""Regenerate ``src/crossfn/schemas/kubernetes.json.gz``: the built-in Kubernetes kinds' schemas.

Usage (from the project root, with the dev extra installed)::

    python scripts/generate_kubernetes_schemas.py          # rewrite the file
    python scripts/generate_kubernetes_schemas.py --check  # exit 1 if it would change

Crossplane reads built-in kinds' schemas (Pod, Deployment, Secret, ...) from the
API server's ``/openapi/v3``; offline, crossfn ships them as package data so
that ``pip install crossfn`` need not install ``kubernetes-validate`` (over
100 MB of schemas for a dozen Kubernetes releases) to read one file. This
script is the one place that reads that package (a pinned dev dependency). It
takes the newest release's ``_definitions.json`` (JSON Schema 2020-12
converted from Kubernetes' OpenAPI) and turns it back into one OpenAPI v3
document of the shape :mod:`crossfn.schemas.openapi` searches:

* ``$defs`` become ``components.schemas`` and ``#/$defs/X`` refs
  ``#/components/schemas/X``;
* ``type: [T, "null"]`` (the converter's way to say "optional") becomes
  ``type: T``;
* a ``oneOf`` of plain types (IntOrString, Quantity) becomes the ``anyOf``
  that CRDs use, with ``x-kubernetes-int-or-string`` for integer-or-string;
* the ``enum`` the converter pins on a kind's own ``apiVersion`` and ``kind``
  is dropped, as the API server does not publish one.

The output is compact JSON, gzip'd with a fixed timestamp, so the same input
always gives the same bytes (tests/schemas check that the committed file is
what this script writes).
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "src" / "crossfn" / "schemas" / "kubernetes.json.gz"
_PACKAGE = "kubernetes_validate"
_DIR = "kubernetes-json-schema"
_VERSION_DIR = re.compile(r"^v(\d+)\.(\d+)\.(\d+)-local$")
_DEFS_REF = "#/$defs/"


def source_dir() -> Path:
    """The newest release's directory in kubernetes-validate, found without importing it (it imports jsonschema)."""
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"cannot find the {_PACKAGE} package: pip install -e '.[dev]'")
    base = Path(next(iter(spec.submodule_search_locations))) / _DIR
    versions = []
    for entry in base.iterdir():
        m = _VERSION_DIR.match(entry.name)
        if m:
            versions.append((tuple(int(g) for g in m.groups()), entry))
    return max(versions)[1]


def document(source: Path) -> dict[str, Any]:
    """The built-in kinds in ``source`` as one OpenAPI v3 document."""
    defs = json.loads((source / "_definitions.json").read_bytes())["$defs"]
    schemas = {name: _convert(schema) for name, schema in defs.items()}
    for schema in schemas.values():
        if "x-kubernetes-group-version-kind" in schema:
            for key in ("apiVersion", "kind"):
                prop = schema.get("properties", {}).get(key)
                if isinstance(prop, dict):
                    prop.pop("enum", None)
    return {
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": source.name[: -len("-local")]},
        "components": {"schemas": schemas},
    }


def encode(doc: dict[str, Any]) -> bytes:
    """The file's bytes: compact JSON (key order kept), gzip'd reproducibly."""
    data = json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()
    return gzip.compress(data, compresslevel=9, mtime=0)


def _convert(node: Any) -> Any:
    if isinstance(node, list):
        return [_convert(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "$ref" and isinstance(value, str) and value.startswith(_DEFS_REF):
            out[key] = "#/components/schemas/" + value[len(_DEFS_REF) :]
        elif key == "type" and isinstance(value, list):
            types = [t for t in value if t != "null"]
            if len(types) == 1:
                out[key] = types[0]
        elif key == "oneOf" and _plain_types(value):
            types = sorted(_plain_types(value))
            out["anyOf"] = [{"type": t} for t in types]
            if types == ["integer", "string"]:
                out["x-kubernetes-int-or-string"] = True
        else:
            out[key] = _convert(value)
    return out


def _plain_types(alternatives: Any) -> set[str]:
    """The types of a ``oneOf`` whose alternatives are each only a type, else an empty set."""
    if not isinstance(alternatives, list):
        return set()
    found: set[str] = set()
    for alt in alternatives:
        if not isinstance(alt, dict) or set(alt) != {"type"}:
            return set()
        types = alt["type"] if isinstance(alt["type"], list) else [alt["type"]]
        found.update(t for t in types if t != "null")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the file would change")
    args = parser.parse_args(argv)
    data = encode(document(source_dir()))
    if args.check:
        if not OUT.is_file() or OUT.read_bytes() != data:
            print(
                f"{OUT.relative_to(ROOT)} is stale: run python scripts/generate_kubernetes_schemas.py",
                file=sys.stderr,
            )
            return 1
        return 0
    OUT.write_bytes(data)
    print(f"wrote {OUT.relative_to(ROOT)} ({len(data):,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
