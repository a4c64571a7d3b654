"""The request tag: a content hash that names a request for caching (upstream core-2.4).

Crossplane hashes the deterministic protobuf encoding of the request *before*
``meta`` is set, so the tag never covers itself. Deterministic encoding sorts
map keys, including every ``Struct.fields`` map, so equal requests built in a
different order get equal tags. The tag is computed once per step, after
bootstrap requirements are filled, and reused by every requirements iteration.
"""

from __future__ import annotations

import hashlib

from google.protobuf import message

from crossfn.proto.v1 import run_function_pb2 as fnv1

__all__ = ["tag", "tag_of_encoding"]


def tag(req: fnv1.RunFunctionRequest) -> str:
    """The lowercase hex SHA-256 of ``req`` encoded deterministically, ignoring ``meta``.

    An encoding failure gives ``""``, which the cache treats as "do not cache",
    as Crossplane does.
    """
    if req.HasField("meta"):
        req = _without_meta(req)
    try:
        data = req.SerializeToString(deterministic=True)
    except message.EncodeError:
        return ""
    return tag_of_encoding(data)


def tag_of_encoding(data: bytes) -> str:
    """The tag of a request whose deterministic encoding without ``meta`` is ``data``."""
    return hashlib.sha256(data).hexdigest()


def _without_meta(req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionRequest:
    out = fnv1.RunFunctionRequest()
    out.CopyFrom(req)
    out.ClearField("meta")
    return out
