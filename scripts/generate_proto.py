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
"""

from __future__ import annotations

import pathlib
import sys

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
    "// Generated from crossfn/proto/v1/run_function.proto by "
    "scripts/generate_proto.py. DO NOT EDIT.\n\n"
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


def compile_proto(path: pathlib.Path) -> None:
    """Run protoc on one file, writing modules and stubs next to it."""
    include = pathlib.Path(protoc.__file__).parent / "_proto"
    args = [
        "protoc",
        f"-I{SRC}",
        f"-I{include}",
        f"--python_out={SRC}",
        f"--grpc_python_out={SRC}",
        f"--mypy_out={SRC}",
        f"--mypy_grpc_out={SRC}",
        str(path.relative_to(SRC)),
    ]
    if protoc.main(args) != 0:
        sys.exit(f"protoc failed for {path}")


def compile_messages(path: pathlib.Path) -> None:
    """Run protoc on one file that defines no service: message modules and stubs only."""
    include = pathlib.Path(protoc.__file__).parent / "_proto"
    args = ["protoc", f"-I{SRC}", f"-I{include}", f"--python_out={SRC}", f"--mypy_out={SRC}", str(path.relative_to(SRC))]
    if protoc.main(args) != 0:
        sys.exit(f"protoc failed for {path}")


def main() -> None:
    write_v1beta1()
    for path in (V1, V1BETA1):
        compile_proto(path)
    compile_proto(INSPECTOR)
    compile_messages(CACHED_RESPONSE)


if __name__ == "__main__":
    main()
