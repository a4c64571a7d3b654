"""The ``RunFunctionResponse`` each function-dummy release can read from its input: the protocol its SDK vendored.

function-dummy parses its input's ``response`` with ``protojson`` into the
``RunFunctionResponse`` of the function-sdk-go it was built with, so a field
that build did not have is an ``unknown field`` error:

* v0.2.0 to v0.3.0 (function-sdk-go v0.1.0, protocol ``v1beta1`` of November
  2023): ``meta`` (``tag``, ``ttl``), ``desired``, ``results`` (``severity``,
  ``message``) and ``context``;
* v0.4.0 and v0.4.1 (function-sdk-go of July 2025, protocol ``v1``): also
  ``requirements``, ``conditions``, ``output``, and a result's ``reason`` and
  ``target``. That build called the requirements' first field ``resources``
  (later releases renamed it back to ``extraResources`` and added a new
  ``resources``), so ``requirements.resources`` here asks for *extra*
  resources, as on the wire; it has no ``schemas``.
"""

from __future__ import annotations

from crossfn.gocompat.protojson import Field, Schema

__all__ = ["V1", "V1BETA1"]

_READY = ("READY_UNSPECIFIED", "READY_TRUE", "READY_FALSE")
_SEVERITY = ("SEVERITY_UNSPECIFIED", "SEVERITY_FATAL", "SEVERITY_WARNING", "SEVERITY_NORMAL")
_TARGET = ("TARGET_UNSPECIFIED", "TARGET_COMPOSITE", "TARGET_COMPOSITE_AND_CLAIM")
_STATUS = (
    "STATUS_CONDITION_UNSPECIFIED",
    "STATUS_CONDITION_UNKNOWN",
    "STATUS_CONDITION_TRUE",
    "STATUS_CONDITION_FALSE",
)

_STATE = (Field("composite", "message", "Resource"), Field("resources", "message", "Resource", map=True))
_RESOURCE = (
    Field("resource", "struct"),
    Field("connection_details", "bytes", map=True),
    Field("ready", "enum", "Ready"),
)
_META = (Field("tag", "string"), Field("ttl", "duration"))

V1BETA1 = Schema(
    messages={
        "RunFunctionResponse": (
            Field("meta", "message", "ResponseMeta"),
            Field("desired", "message", "State"),
            Field("results", "message", "Result", repeated=True),
            Field("context", "struct"),
        ),
        "ResponseMeta": _META,
        "State": _STATE,
        "Resource": _RESOURCE,
        "Result": (Field("severity", "enum", "Severity"), Field("message", "string")),
    },
    enums={"Ready": _READY, "Severity": _SEVERITY},
)
"""function-sdk-go v0.1.0's ``apiextensions.fn.proto.v1beta1``."""

_MATCH = "apiextensions.fn.proto.v1.ResourceSelector.match"

V1 = Schema(
    messages={
        "RunFunctionResponse": (
            Field("meta", "message", "ResponseMeta"),
            Field("desired", "message", "State"),
            Field("results", "message", "Result", repeated=True),
            Field("context", "struct"),
            Field("requirements", "message", "Requirements"),
            Field("conditions", "message", "Condition", repeated=True),
            Field("output", "struct"),
        ),
        "ResponseMeta": _META,
        "State": _STATE,
        "Resource": _RESOURCE,
        "Result": (
            Field("severity", "enum", "Severity"),
            Field("message", "string"),
            Field("reason", "string"),
            Field("target", "enum", "Target"),
        ),
        "Requirements": (Field("resources", "message", "ResourceSelector", map=True, to="extra_resources"),),
        "ResourceSelector": (
            Field("api_version", "string"),
            Field("kind", "string"),
            Field("match_name", "string", oneof=_MATCH),
            Field("match_labels", "message", "MatchLabels", oneof=_MATCH),
            Field("namespace", "string"),
        ),
        "MatchLabels": (Field("labels", "string", map=True),),
        "Condition": (
            Field("type", "string"),
            Field("status", "enum", "Status"),
            Field("reason", "string"),
            Field("message", "string"),
            Field("target", "enum", "Target"),
        ),
    },
    enums={"Ready": _READY, "Severity": _SEVERITY, "Target": _TARGET, "Status": _STATUS},
)
"""The ``apiextensions.fn.proto.v1`` of function-sdk-go ``v0.5.0-rc.0.0.20250714235217-725c26e2e877``."""
