"""Build a RunFunctionResponse: the reply a function sends back to Crossplane.

``to(req)`` starts a response that passes the request's desired state and
context through, as the protocol demands. The result helpers add events.
"""

from __future__ import annotations

import datetime

from google.protobuf import duration_pb2

from crossfn.proto.v1 import run_function_pb2 as fnv1

__all__ = [
    "DEFAULT_TTL",
    "fatal",
    "normal",
    "to",
    "warning",
]

DEFAULT_TTL = datetime.timedelta(seconds=60)
"""How long Crossplane may cache a response by default, as in the official SDK."""


def to(req: fnv1.RunFunctionRequest, ttl: datetime.timedelta = DEFAULT_TTL) -> fnv1.RunFunctionResponse:
    """Start a response to ``req``: same tag, desired state and context passed through."""
    d = duration_pb2.Duration()
    d.FromTimedelta(ttl)
    rsp = fnv1.RunFunctionResponse(meta=fnv1.ResponseMeta(tag=req.meta.tag, ttl=d))
    rsp.desired.CopyFrom(req.desired)
    if req.HasField("context"):
        rsp.context.CopyFrom(req.context)
    return rsp


def _result(
    rsp: fnv1.RunFunctionResponse,
    severity: fnv1.Severity.ValueType,
    message: str,
    reason: str | None,
    target: fnv1.Target.ValueType | None,
) -> None:
    r = rsp.results.add(severity=severity, message=message)
    if reason is not None:
        r.reason = reason
    if target is not None:
        r.target = target


def normal(
    rsp: fnv1.RunFunctionResponse,
    message: str,
    *,
    reason: str | None = None,
    target: fnv1.Target.ValueType | None = None,
) -> None:
    """Add a Normal result: an informational event on the composite."""
    _result(rsp, fnv1.SEVERITY_NORMAL, message, reason, target)


def warning(
    rsp: fnv1.RunFunctionResponse,
    message: str,
    *,
    reason: str | None = None,
    target: fnv1.Target.ValueType | None = None,
) -> None:
    """Add a Warning result: the pipeline goes on, the composite gets a Warning event."""
    _result(rsp, fnv1.SEVERITY_WARNING, message, reason, target)


def fatal(
    rsp: fnv1.RunFunctionResponse,
    message: str,
    *,
    reason: str | None = None,
    target: fnv1.Target.ValueType | None = None,
) -> None:
    """Add a Fatal result: Crossplane stops the pipeline and keeps the resources as they are."""
    _result(rsp, fnv1.SEVERITY_FATAL, message, reason, target)
