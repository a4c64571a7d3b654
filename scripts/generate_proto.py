"""Regenerate crossfn's protocol modules from the .proto sources.

Usage (from the project root, with the dev extra installed)::

    python scripts/generate_proto.py

``src/crossfn/proto/v1/run_function.proto`` is the source of truth (and
``pipeline/v1alpha1`` and ``cache/v1alpha1`` for the inspector and cache records). The
v1beta1 file is derived from it exactly as Crossplane's
``hack/duplicate_proto_type.sh`` does: the same file with another package name.
Then protoc (from grpcio-tools) writes the ``_pb2`` and ``_pb2_grpc`` modules
and mypy-protobuf writes their ``.pyi`` stubs. The generated files are
committed; CI checks that running this script changes nothing.

protoc compiles each file as ``crossplane/function/proto/<version>/run_function.proto``,
the name the official Python SDK registers, and the modules are then moved to
``crossfn.proto.<version>``: with byte-identical descriptors the two packages
share one registration (see ``crossfn.proto._registry``, which the ``_pb2``
modules register through).
"""

from __future__ import annotations

import pathlib
import shutil
import sys
import tempfile

from grpc_tools import protoc

ROOT = pathlib.Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
PROTO = SRC / "crossfn" / "proto"
V1 = PROTO / "v1" / "run_function.proto"
V1BETA1 = PROTO / "v1beta1" / "run_function.proto"
# Crossplane's records around the protocol, sources of truth like v1: the pipeline
# inspector service (with its gRPC stub) and the cached response on disk (messages only).
INSPECTOR = PROTO / "pipeline" / "v1alpha1" / "pipeline_inspector.proto"
CACHED_RESPONSE = PROTO / "cache" / "v1alpha1" / "cached_response.proto"

BETA_HEADER = (
    "// Generated from crossfn/proto/v1/run_function.proto by scripts/generate_proto.py. DO NOT EDIT.\n\n"
)


def write_v1beta1() -> None:
    """Write the v1beta1 copy: identical apart from its package and header."""
    text = V1.read_text(encoding="utf-8")
    text = text.replace("package apiextensions.fn.proto.v1;", "package apiextensions.fn.proto.v1beta1;")
    text = text.replace(
        'option go_package = "github.com/crossplane/crossplane/v2/proto/fn/v1";',
        'option go_package = "github.com/crossplane/crossplane/v2/proto/fn/v1beta1";',
    )
    V1BETA1.write_text(BETA_HEADER + text, encoding="utf-8")


SHARED = "crossplane/function/proto"
"""Where protoc sees the files: the official SDK's layout, so the descriptors match its byte for byte."""

OUTPUTS = (
    "run_function_pb2.py",
    "run_function_pb2.pyi",
    "run_function_pb2_grpc.py",
    "run_function_pb2_grpc.pyi",
)

POOL_CALL = "_descriptor_pool.Default().AddSerializedFile("


def compile_proto(path: pathlib.Path) -> None:
    """Run protoc on one file as the SDK's file name, then write the modules and stubs next to it."""
    version = path.parent.name
    include = pathlib.Path(protoc.__file__).parent / "_proto"
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        shared = root / SHARED / version / path.name
        shared.parent.mkdir(parents=True)
        shutil.copyfile(path, shared)
        args = [
            "protoc",
            f"-I{root}",
            f"-I{include}",
            f"--python_out={root}",
            f"--grpc_python_out={root}",
            f"--mypy_out={root}",
            f"--mypy_grpc_out={root}",
            str(shared.relative_to(root)),
        ]
        if protoc.main(args) != 0:
            sys.exit(f"protoc failed for {path}")
        for name in OUTPUTS:
            text = (shared.parent / name).read_text(encoding="utf-8")
            (path.parent / name).write_text(_rehome(text, version, name), encoding="utf-8")


def _rehome(text: str, version: str, name: str) -> str:
    """Point a generated module at ``crossfn.proto.<version>``, keeping the registered file name."""
    sdk_module = f"crossplane.function.proto.{version}.run_function_pb2"
    if name == "run_function_pb2.py":
        if text.count(POOL_CALL) != 1:
            sys.exit(f"unexpected protoc output for {name}: no single {POOL_CALL}")
        text = text.replace(
            "from google.protobuf.internal import builder as _builder\n",
            "from google.protobuf.internal import builder as _builder\nfrom crossfn.proto import _registry\n",
            1,
        )
        head, _, tail = text.partition(POOL_CALL)
        literal, sep, rest = tail.partition(")\n")
        text = f"{head}_registry.add_file({literal}, SDK_MODULE{sep}{rest}"
    # Module paths move; the file name inside the descriptor (slashes) stays the SDK's.
    text = text.replace("crossplane.function.proto.", "crossfn.proto.")
    text = text.replace("crossplane_dot_function_dot_proto_dot_", "crossfn_dot_proto_dot_")
    text = text.replace(
        f"crossplane/function/proto/{version}/run_function_pb2", f"crossfn/proto/{version}/run_function_pb2"
    )
    text = text.replace(f"# source: {SHARED}/", "# source: crossfn/proto/")
    return text.replace("SDK_MODULE)", f"{sdk_module!r})", 1)


def compile_in_place(path: pathlib.Path, *, service: bool) -> None:
    """Run protoc on one of crossfn's own files (not the SDK's protocol): modules and stubs next to it,
    with the gRPC stub too when the file defines a ``service``."""
    include = pathlib.Path(protoc.__file__).parent / "_proto"
    outputs = [f"--python_out={SRC}", f"--mypy_out={SRC}"]
    if service:
        outputs += [f"--grpc_python_out={SRC}", f"--mypy_grpc_out={SRC}"]
    args = ["protoc", f"-I{SRC}", f"-I{include}", *outputs, str(path.relative_to(SRC))]
    if protoc.main(args) != 0:
        sys.exit(f"protoc failed for {path}")


def main() -> None:
    write_v1beta1()
    for path in (V1, V1BETA1):
        compile_proto(path)
    compile_in_place(INSPECTOR, service=True)
    compile_in_place(CACHED_RESPONSE, service=False)


if __name__ == "__main__":
    main()
