"""Where crossfn's protocol descriptors live: shared with the official Python SDK's when they are the same.

The official SDK (``crossplane-function-sdk-python``, package
``crossplane.function``) generates code for the same protobuf package,
``apiextensions.fn.proto.v1``, and protobuf lets a process's default
descriptor pool define each name once. crossfn's generated modules therefore
register under the file name the SDK's do
(``crossplane/function/proto/v1/run_function.proto``) with a byte-identical
descriptor: the pool accepts the second registration as the same file, in
either import order, and the two packages share one set of message classes.

Should the installed SDK's descriptor differ (another SDK version, with fields
crossfn lacks or the other way round), crossfn takes a private copy instead: the
same messages under the package ``crossfn.local.fn.proto.v1`` in the file
``crossfn/local/proto/proto/v1/run_function.proto``, chosen to be as long as the
names they replace so every offset in the generated code stays right. The wire
format does not involve these names, so a private message parses the SDK's bytes
and back; :mod:`crossfn.sdk.function` converts at the boundary. gRPC method
paths are literal strings in the ``_pb2_grpc`` modules and are unaffected.

So that the outcome does not depend on which package is imported first,
:func:`add_file` imports the SDK's module first when the SDK is installed.
"""

from __future__ import annotations

import importlib
import importlib.util

from google.protobuf import descriptor, descriptor_pb2, descriptor_pool, message

__all__ = ["PRIVATE_FILE_PREFIX", "PRIVATE_PACKAGE_PREFIX", "SDK_FILE_PREFIX", "add_file", "private_copy"]

SDK_FILE_PREFIX = "crossplane/function/"
"""How the shared file names begin (the official SDK's layout)."""
PRIVATE_FILE_PREFIX = "crossfn/local/proto/"
"""What begins the file name of a private copy: as long as :data:`SDK_FILE_PREFIX`."""
PACKAGE_PREFIX = "apiextensions."
PRIVATE_PACKAGE_PREFIX = "crossfn.local."
"""What replaces ``apiextensions.`` in a private copy's package and type names: as long."""


def add_file(serialized: bytes, sdk_module: str) -> descriptor.FileDescriptor:
    """Register a generated file in the default pool, shared with ``sdk_module``'s when identical (module doc)."""
    _import_sdk(sdk_module)
    pool = descriptor_pool.Default()
    name = descriptor_pb2.FileDescriptorProto.FromString(serialized).name
    try:
        existing = pool.FindFileByName(name)
    except KeyError:
        return pool.AddSerializedFile(serialized)
    if existing.serialized_pb == serialized:
        return existing
    return pool.AddSerializedFile(private_copy(serialized))


def _import_sdk(module: str) -> None:
    """Import the official SDK's generated module if the SDK is installed, so its file is registered first."""
    if importlib.util.find_spec(module.partition(".")[0]) is None:
        return
    try:
        importlib.import_module(module)
    except Exception:  # an SDK that cannot be imported cannot conflict: crossfn goes on alone
        return


def private_copy(serialized: bytes) -> bytes:
    """The file renamed into crossfn's private package, every name the same length as before."""
    fdp = descriptor_pb2.FileDescriptorProto.FromString(serialized)
    _swap(fdp, "name", SDK_FILE_PREFIX, PRIVATE_FILE_PREFIX)
    _swap(fdp, "package", PACKAGE_PREFIX, PRIVATE_PACKAGE_PREFIX)
    for msg in fdp.message_type:
        _rename_fields(msg)
    for service in fdp.service:
        for method in service.method:
            _swap(method, "input_type", "." + PACKAGE_PREFIX, "." + PRIVATE_PACKAGE_PREFIX)
            _swap(method, "output_type", "." + PACKAGE_PREFIX, "." + PRIVATE_PACKAGE_PREFIX)
    out = fdp.SerializeToString(deterministic=True)
    if len(out) != len(serialized):  # pragma: no cover - the prefixes are chosen to keep lengths
        raise AssertionError("private protocol copy changed length")
    return out


def _rename_fields(msg: descriptor_pb2.DescriptorProto) -> None:
    for field in msg.field:
        _swap(field, "type_name", "." + PACKAGE_PREFIX, "." + PRIVATE_PACKAGE_PREFIX)
    for nested in msg.nested_type:
        _rename_fields(nested)


def _swap(proto: message.Message, field: str, old: str, new: str) -> None:
    """Replace the prefix ``old`` of a name field with ``new``; leave other names, and unset fields, alone."""
    name: str = getattr(proto, field)
    if name.startswith(old):
        setattr(proto, field, new + name[len(old) :])
