"""The plain data a Starlark ``main(req)`` sees, and the response dict it returns.

The request is protobuf's JSON shape with proto field names (``required_resources``,
``connection_details``), except that Struct numbers that are whole come back
as ints and ``bytes`` fields are *bytes values*. Every map is present even when
empty (``req["desired"]["resources"]`` on the first step, ``req["context"]``,
``req["input"]``, ``req["credentials"]``), so scripts need no defensive code.

Why bytes values are ``{"base64": "<standard base64>"}`` dicts: starlark-rust
has no bytes type, and starlark-pyo3 converts values through JSON, so a
connection detail or credential cannot reach a script as bytes. Decoding them
as UTF-8 mangles binary secrets (a DER certificate), and a bare base64 string
would be indistinguishable from text on the way back: ``response_to(req)``
hands the request's desired connection details back, and a returned string is
text. A tagged dict survives that round trip exactly, copies as it is, and
still works with ``json.encode`` and ``==``.

Values nested deeper than :data:`MAX_SCRIPT_DEPTH` levels of the request (an XR field 10,000
objects deep, which Kubernetes and the protocol accept) reach the script as a stand-in
``{"$crossfn-deep": "<token>:<n>"}`` (:class:`Stash`): the Starlark runtime converts at most
1,000 levels and its sandbox's JSON fewer. Wherever the script returns a stand-in unchanged
(``response_to(req)``, a copied field), the original value is put back; a script that
must read that far down cannot, and sees the stand-in.

The response is a dict with any of ``desired``, ``results``, ``conditions``,
``context``, ``requirements``, ``output`` and ``ttl``. A missing ``desired`` or
``context`` passes the request's through, as the protocol requires. ``ready``
may be a bool or an enum name, ``ttl`` seconds or a ``"60s"`` string; each
connection detail a string (sent as its UTF-8) or a bytes value.
"""

from __future__ import annotations

import base64
import datetime
import secrets
from collections.abc import Mapping
from typing import Any

from google.protobuf import duration_pb2, json_format, struct_pb2

from crossfn import errors
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource

__all__ = [
    "BYTES_KEY",
    "DEEP_KEY",
    "MAX_SCRIPT_DEPTH",
    "Stash",
    "apply_response",
    "bytes_value",
    "request_data",
]

DEEP_KEY = "$crossfn-deep"
"""The one key of a stand-in for a value nested too deep for the script (module docstring)."""

MAX_SCRIPT_DEPTH = 100
"""Levels of the request a script sees; deeper values are stand-ins. Well within the Starlark
runtime's 1,000 and the sandbox's JSON, and deeper than any field a script reads."""

BYTES_KEY = "base64"
"""The one key of a bytes value: ``{"base64": "<standard base64>"}``."""


def bytes_value(data: bytes) -> dict[str, str]:
    """The script-side form of ``data``; see the module docstring for why a tagged dict."""
    return {BYTES_KEY: base64.b64encode(data).decode("ascii")}


def _bytes_map(m: Mapping[str, bytes]) -> dict[str, dict[str, str]]:
    return {k: bytes_value(v) for k, v in m.items()}


def _resource(r: fnv1.Resource) -> dict[str, Any]:
    return {
        "resource": resource.struct_to_dict(r.resource),
        "connection_details": _bytes_map(r.connection_details),
        "ready": fnv1.Ready.Name(r.ready),
    }


def _credentials(c: fnv1.Credentials) -> dict[str, Any]:
    if not c.HasField("credential_data"):
        return {}
    return {"credential_data": {"data": _bytes_map(c.credential_data.data)}}


def _state(s: fnv1.State) -> dict[str, Any]:
    return {
        "composite": _resource(s.composite),
        "resources": {n: _resource(r) for n, r in s.resources.items()},
    }


def _resources(m: Mapping[str, fnv1.Resources]) -> dict[str, Any]:
    return {name: {"items": [_resource(r) for r in rs.items]} for name, rs in m.items()}


def request_data(req: fnv1.RunFunctionRequest) -> dict[str, Any]:
    """The request as plain data for ``main(req)``; every map present."""
    return {
        "meta": {
            "tag": req.meta.tag,
            "capabilities": [fnv1.Capability.Name(c) for c in req.meta.capabilities],
        },
        "observed": _state(req.observed),
        "desired": _state(req.desired),
        "input": resource.struct_to_dict(req.input),
        "context": resource.struct_to_dict(req.context),
        "required_resources": _resources(req.required_resources),
        "extra_resources": _resources(req.extra_resources),
        "credentials": {name: _credentials(c) for name, c in req.credentials.items()},
        "required_schemas": {
            name: {"openapi_v3": resource.struct_to_dict(s.openapi_v3) if s.HasField("openapi_v3") else None}
            for name, s in req.required_schemas.items()
        },
    }


class Stash:
    """The values cut from a request below :data:`MAX_SCRIPT_DEPTH`, put back into the response."""

    def __init__(self) -> None:
        self._token = secrets.token_hex(8)
        self._values: list[Any] = []

    def cut(self, data: Any, depth: int = MAX_SCRIPT_DEPTH) -> Any:
        """``data`` with every dict or list more than ``depth`` levels down replaced by a stand-in
        (in place, without recursion)."""
        level: list[Any] = [data]
        for _ in range(depth):
            below: list[Any] = []
            for container in level:
                items = container.values() if isinstance(container, dict) else container
                below.extend(v for v in items if isinstance(v, dict | list))
            level = below
            if not level:
                return data
        for container in level:
            keys = container.keys() if isinstance(container, dict) else range(len(container))
            for key in list(keys):
                value = container[key]
                if isinstance(value, dict | list):
                    container[key] = {DEEP_KEY: f"{self._token}:{len(self._values)}"}
                    self._values.append(value)
        return data

    def restore(self, rsp: fnv1.RunFunctionResponse) -> None:
        """Put the cut values back wherever a stand-in is in ``rsp``'s Structs (without recursion)."""
        if not self._values:
            return
        roots: list[struct_pb2.Struct] = [rsp.desired.composite.resource, rsp.context, rsp.output]
        roots += [r.resource for r in rsp.desired.resources.values()]
        pending: list[struct_pb2.Value] = [v for root in roots for v in root.fields.values()]
        while pending:
            value = pending.pop()
            kind = value.WhichOneof("kind")
            if kind == "struct_value":
                original = self._original(value.struct_value)
                if original is not None:
                    value.CopyFrom(_value_of(original))
                else:
                    pending.extend(value.struct_value.fields.values())
            elif kind == "list_value":
                pending.extend(value.list_value.values)

    def _original(self, struct: struct_pb2.Struct) -> Any:
        if len(struct.fields) != 1 or DEEP_KEY not in struct.fields:
            return None
        token, _, index = struct.fields[DEEP_KEY].string_value.partition(":")
        if token != self._token or not index.isdigit() or int(index) >= len(self._values):
            return None
        return self._values[int(index)]


def _value_of(original: Any) -> struct_pb2.Value:
    """A Struct Value of a value as deep as Kubernetes accepts (the CLI raises Python's recursion limit)."""
    return resource.dict_to_struct({"v": original}).fields["v"]


_READY = {True: "READY_TRUE", False: "READY_FALSE", None: "READY_UNSPECIFIED"}
_FIELDS = frozenset({"desired", "results", "conditions", "context", "requirements", "output", "ttl"})


def _wire_resource(where: str, r: Any) -> Any:
    if not isinstance(r, Mapping):
        raise errors.FunctionInputError(f"{where} must be a dict with a resource, not {type(r).__name__}")
    out = dict(r)
    ready = out.get("ready")
    if isinstance(ready, bool) or ready is None:
        out["ready"] = _READY[ready]
    details = out.get("connection_details")
    if isinstance(details, Mapping):
        out["connection_details"] = {
            k: _wire_detail(f"{where}.connection_details[{k}]", v) for k, v in details.items()
        }
    return out


def _wire_detail(where: str, value: Any) -> str:
    """One connection detail as protobuf JSON's base64: a string is text (UTF-8), a bytes value exact."""
    if isinstance(value, str):
        return base64.b64encode(value.encode()).decode("ascii")
    if isinstance(value, Mapping) and set(value) == {BYTES_KEY} and isinstance(value[BYTES_KEY], str):
        try:
            data = base64.b64decode(value[BYTES_KEY], validate=True)
        except ValueError as exc:  # binascii.Error, or non-ASCII text
            raise errors.FunctionInputError(f"{where}: {BYTES_KEY}: invalid base64: {exc}") from exc
        return base64.b64encode(data).decode("ascii")
    raise errors.FunctionInputError(
        f'{where} must be a string or a bytes value {{"{BYTES_KEY}": ...}}, not {_describe(value)}'
    )


def _describe(value: Any) -> str:
    if isinstance(value, Mapping):
        return f"a dict with keys {', '.join(sorted(map(str, value))) or '(none)'}"
    return type(value).__name__


def _wire_state(state: Any) -> Any:
    if not isinstance(state, Mapping):
        raise errors.FunctionInputError(f"desired must be a dict, not {type(state).__name__}")
    out = dict(state)
    if "composite" in out:
        out["composite"] = _wire_resource("desired.composite", out["composite"])
    resources = out.get("resources")
    if isinstance(resources, Mapping):
        out["resources"] = {n: _wire_resource(f"desired.resources[{n}]", r) for n, r in resources.items()}
    return out


_MAX_TTL_SECONDS = 315_576_000_000


def _ttl(value: Any) -> datetime.timedelta:
    if isinstance(value, int | float) and not isinstance(value, bool):
        # A protobuf Duration spans ±10,000 years; past that (or NaN) there is no TTL to send.
        if not -_MAX_TTL_SECONDS <= value <= _MAX_TTL_SECONDS:
            raise errors.FunctionInputError(f"ttl: want at most {_MAX_TTL_SECONDS} seconds, got {value}")
        return datetime.timedelta(seconds=value)
    if isinstance(value, str):
        d = duration_pb2.Duration()
        try:
            d.FromJsonString(value)
        except ValueError as exc:
            raise errors.FunctionInputError(f"ttl: {exc}") from exc
        return d.ToTimedelta()
    raise errors.FunctionInputError(
        f"ttl must be seconds or a string such as 60s, not {type(value).__name__}"
    )


def apply_response(data: Mapping[str, Any], rsp: fnv1.RunFunctionResponse) -> None:
    """Write what ``main`` returned into ``rsp`` (started by ``response.to``).

    Raises FunctionInputError with a one-line reason when the dict has an
    unknown field or a field protobuf cannot take.
    """
    unknown = sorted(set(data) - _FIELDS)
    if unknown:
        raise errors.FunctionInputError(
            f"unknown response field {errors.quote(unknown[0])} (want one of {', '.join(sorted(_FIELDS))})"
        )
    body = {k: v for k, v in data.items() if k != "ttl" and v is not None}
    if "desired" in body:
        body["desired"] = _wire_state(body["desired"])
    parsed = fnv1.RunFunctionResponse()
    try:
        # Two message levels per JSON level (Value, Struct) plus the envelope: what a script sees and returns.
        json_format.ParseDict(body, parsed, max_recursion_depth=2 * MAX_SCRIPT_DEPTH + 50)
    except json_format.ParseError as exc:
        raise errors.FunctionInputError(f"cannot use what main returned: {exc}") from exc
    if "desired" in body:
        rsp.desired.CopyFrom(parsed.desired)
    if "context" in body:
        rsp.context.CopyFrom(parsed.context)
    rsp.results.extend(parsed.results)
    rsp.conditions.extend(parsed.conditions)
    if parsed.HasField("requirements"):
        rsp.requirements.CopyFrom(parsed.requirements)
    if parsed.HasField("output"):
        rsp.output.CopyFrom(parsed.output)
    if data.get("ttl") is not None:
        rsp.meta.ttl.FromTimedelta(_ttl(data["ttl"]))
