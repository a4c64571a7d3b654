"""The built-in kinds' schemas are package data, generated from kubernetes-validate and kept fresh."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from crossfn.schemas import builtin

_SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "generate_kubernetes_schemas.py"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("generate_kubernetes_schemas", _SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return module


def test_committed_file_is_what_the_script_writes() -> None:
    # kubernetes-validate is a pinned dev dependency; a new pin changes the data, and this says so.
    generator = _generator()
    assert generator.OUT.read_bytes() == generator.encode(generator.document(generator.source_dir())), (
        "src/crossfn/schemas/kubernetes.json.gz is stale: run python scripts/generate_kubernetes_schemas.py"
    )


def test_package_data_is_the_document() -> None:
    doc = builtin.document()
    assert doc["openapi"] == "3.0.0"
    assert doc["info"]["version"] == builtin.kubernetes_version() == "v1.37.0"
    schemas = doc["components"]["schemas"]
    assert schemas["io.k8s.api.core.v1.ConfigMap"]["x-kubernetes-group-version-kind"] == [
        {"group": "", "kind": "ConfigMap", "version": "v1"}
    ]
    assert (
        schemas["io.k8s.apimachinery.pkg.util.intstr.IntOrString"].get("x-kubernetes-int-or-string") is True
    )


def test_reading_it_does_not_import_kubernetes_validate() -> None:
    builtin.document()
    assert "kubernetes_validate" not in sys.modules
