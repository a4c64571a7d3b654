"""The input, ``StatusTransformation``, decoded strictly as every release's function-sdk-go does.

All releases vendor a function-sdk-go that rejects unknown fields
(:mod:`crossfn.gocompat.jsonstruct`), so a field a release does not know is
an ``InputFailure``: ``includeCompositeAsResource`` arrived in v0.4.0,
``includeExtraResources`` in v0.5.0. v0.1.0 to v0.3.0 served the v1beta1
protocol, which shows in the request type the error names.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from crossfn import errors
from crossfn.functions.status_transformer._release import Release
from crossfn.gocompat import jsonstruct as js
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource

__all__ = ["ConditionMatcher", "Hook", "Matcher", "decode"]

_STATUS = js.Scalar("string", "v1.ConditionStatus")
_TARGET = js.Scalar("string", "v1beta1.Target")
_CONDITION_MATCHER = js.Struct(
    "v1beta1.ConditionMatcher",
    {"type": js.STRING, "status": _STATUS, "reason": js.STRING, "message": js.STRING},
)
_MATCHER_FIELDS: dict[str, js.Type] = {
    "name": js.STRING,
    "type": js.Scalar("string", "v1beta1.MatchType"),
    "resources": js.Slice(js.Struct("v1beta1.ResourceMatcher", {"name": js.STRING})),
    "conditions": js.Slice(_CONDITION_MATCHER),
}
_SET_CONDITION = js.Struct(
    "v1beta1.SetCondition",
    {
        "target": _TARGET,
        "force": js.BOOL,
        "condition": js.Struct(
            "v1beta1.Condition",
            {"type": js.STRING, "status": _STATUS, "reason": js.STRING, "message": js.STRING},
        ),
    },
)
_CREATE_EVENT = js.Struct(
    "v1beta1.CreateEvent",
    {
        "target": _TARGET,
        "event": js.Struct(
            "v1beta1.Event",
            {"type": js.Scalar("string", "v1beta1.EventType"), "reason": js.STRING, "message": js.STRING},
        ),
    },
)


def _schema(release: Release) -> js.Struct:
    matcher: dict[str, js.Type] = dict(_MATCHER_FIELDS)
    if release.matches_composite:
        matcher["includeCompositeAsResource"] = js.BOOL
    if release.matches_extra_resources:
        matcher["includeExtraResources"] = js.BOOL
    hook = js.Struct(
        "v1beta1.StatusConditionHook",
        {
            "matchers": js.Slice(js.Struct("v1beta1.Matcher", matcher)),
            "setConditions": js.Slice(_SET_CONDITION),
            "createEvents": js.Slice(_CREATE_EVENT),
        },
    )
    return js.Struct(
        "v1beta1.StatusTransformation",
        {
            "apiVersion": js.STRING,
            "kind": js.STRING,
            "metadata": js.ANY,
            "statusConditionHooks": js.Slice(hook),
        },
    )


@dataclasses.dataclass(frozen=True)
class ConditionMatcher:
    type: str
    status: str | None
    reason: str | None
    message: str | None


@dataclasses.dataclass(frozen=True)
class Matcher:
    type: str | None
    resources: tuple[str, ...]
    conditions: tuple[ConditionMatcher, ...]
    include_composite: bool
    include_extra: bool


@dataclasses.dataclass(frozen=True)
class SetCondition:
    target: str | None
    force: bool
    type: str
    status: str
    reason: str
    message: str | None


@dataclasses.dataclass(frozen=True)
class Event:
    target: str | None
    type: str | None
    reason: str | None
    message: str


@dataclasses.dataclass(frozen=True)
class Hook:
    matchers: tuple[Matcher, ...]
    set_conditions: tuple[SetCondition, ...]
    events: tuple[Event, ...]


@dataclasses.dataclass(frozen=True)
class Input:
    hooks: tuple[Hook, ...]


def _o(v: object) -> dict[str, Any]:
    """A decoded object (a null list element is Go's zero value: no fields)."""
    return v if isinstance(v, dict) else {}


def _matcher(m: dict[str, Any]) -> Matcher:
    conds = tuple(
        ConditionMatcher(str(c.get("type", "")), c.get("status"), c.get("reason"), c.get("message"))
        for c in map(_o, m.get("conditions", []) or [])
    )
    return Matcher(
        type=m.get("type"),
        resources=tuple(str(_o(r).get("name", "")) for r in m.get("resources", []) or []),
        conditions=conds,
        include_composite=bool(m.get("includeCompositeAsResource", False)),
        include_extra=bool(m.get("includeExtraResources", False)),
    )


def decode(req: fnv1.RunFunctionRequest, release: Release) -> Input:
    """The step's input; FunctionInputError with upstream's full message when it does not decode."""
    raw = resource.struct_to_dict(req.input, integers=False) if req.HasField("input") else {}
    try:
        v = js.decode(raw, _schema(release), decoder=js.STRICT)
    except errors.GoError as exc:
        req_type = "*v1.RunFunctionRequest" if release.protocol_v1 else "*v1beta1.RunFunctionRequest"
        raise errors.FunctionInputError(
            f"cannot get Function input from {req_type}: cannot get function input "
            f"*v1beta1.StatusTransformation from {req_type}: cannot unmarshal JSON from *structpb.Struct into "
            f"*v1beta1.StatusTransformation: {exc}"
        ) from exc
    hooks = []
    for h in map(_o, v.get("statusConditionHooks", [])):
        sets = []
        for sc in map(_o, h.get("setConditions", []) or []):
            c = _o(sc.get("condition"))
            sets.append(
                SetCondition(
                    sc.get("target"),
                    bool(sc.get("force", False)),
                    str(c.get("type", "")),
                    str(c.get("status", "")),
                    str(c.get("reason", "")),
                    c.get("message"),
                )
            )
        events = []
        for ce in map(_o, h.get("createEvents", []) or []):
            e = _o(ce.get("event"))
            events.append(Event(ce.get("target"), e.get("type"), e.get("reason"), str(e.get("message", ""))))
        matchers = tuple(_matcher(m) for m in map(_o, h.get("matchers", []) or []))
        hooks.append(Hook(matchers, tuple(sets), tuple(events)))
    return Input(tuple(hooks))
