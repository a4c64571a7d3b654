"""A rule's ``condition`` (function-sequencer v0.6.0): a CEL expression over the request.

Upstream declares three variables, as function-cel-filter does: ``observed``
and ``desired`` (``apiextensions.fn.proto.v1.State`` messages, so fields keep
their protobuf names: ``observed.composite.resource.spec``,
``desired.resources["x"].ready``, ``connection_details``) and ``context``
(a Struct). Here they are plain maps with every message field present, and
``ready`` the enum's number, evaluated by cel-python (:mod:`crossfn.gocompat.cel`)
within Kubernetes' cost limit.

cel-python has no type checker, so what cel-go rejects when it checks the
expression (an undeclared field, a non-bool type) shows up when it is
evaluated; a missing Struct key reads ``no such key: <key>``, as in cel-go.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

from crossfn import errors
from crossfn.gocompat import cel, celcost
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource

__all__ = ["ConditionError", "evaluate"]


class ConditionError(errors.CrossfnError):
    """The condition did not parse, failed, or gave no bool; the text follows upstream's wrapping."""


def _resource(r: fnv1.Resource) -> dict[str, Any]:
    return {
        "resource": resource.struct_to_dict(r.resource, integers=False),
        "connection_details": dict(r.connection_details),
        "ready": int(r.ready),
    }


def _state(s: fnv1.State) -> dict[str, Any]:
    return {
        "composite": _resource(s.composite),
        "resources": {k: _resource(v) for k, v in s.resources.items()},
    }


def variables(req: fnv1.RunFunctionRequest) -> dict[str, Any]:
    """The three variables, as plain data."""
    return {
        "observed": _state(req.observed),
        "desired": _state(req.desired),
        "context": resource.struct_to_dict(req.context, integers=False),
    }


def _to_cel(v: Any) -> Any:
    celpy = cel.module()
    if isinstance(v, bytes):
        return celpy.celtypes.BytesType(v)
    if isinstance(v, Mapping):
        return celpy.celtypes.MapType({celpy.celtypes.StringType(k): _to_cel(x) for k, x in v.items()})
    if isinstance(v, list):
        return celpy.celtypes.ListType([_to_cel(x) for x in v])
    return celpy.adapter.json_to_cel(v)


@functools.lru_cache(maxsize=128)
def _program(expr: str) -> Any:
    try:
        env = cel.environment()
    except errors.MissingExtraError as exc:
        raise ConditionError(f"cannot parse CEL condition: {exc}") from exc
    too_long = cel.size_error(expr)
    if too_long is not None:
        raise ConditionError(f"cannot parse CEL condition: {too_long}")
    try:
        return env.program(env.compile(expr))
    except Exception as exc:  # celpy raises parser- and lark-specific errors
        raise ConditionError(f"cannot parse CEL condition: {_one_line(exc)}") from exc


_NO_KEY = re.compile(r"no such member in mapping: '(.*)'")


def _one_line(exc: BaseException) -> str:
    text = exc.args[0] if exc.args and isinstance(exc.args[0], str) else str(exc)
    text = " ".join(text.split())
    m = _NO_KEY.fullmatch(text)
    return f"no such key: {m.group(1)}" if m else text


def evaluate(expr: str, req: fnv1.RunFunctionRequest) -> bool:
    """Whether the rule's sequence applies; :class:`ConditionError` with upstream's wrapping otherwise."""
    program = _program(expr)
    celpy = cel.module()
    data = variables(req)
    if celcost.exceeds(expr, data):
        raise ConditionError(f"cannot evaluate CEL condition: {celcost.LIMIT_EXCEEDED}")
    try:
        value = program.evaluate({k: _to_cel(v) for k, v in data.items()})
    except Exception as exc:  # CELEvalError and friends: anything the expression does wrong
        raise ConditionError(f"cannot evaluate CEL condition: {_one_line(exc)}") from exc
    if isinstance(value, celpy.evaluation.CELEvalError):
        raise ConditionError(f"cannot evaluate CEL condition: {_one_line(value)}")
    if not isinstance(value, celpy.celtypes.BoolType):
        raise ConditionError("CEL condition result is not bool")
    return bool(value)
