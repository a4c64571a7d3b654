"""cel-filter: drop desired composed resources whose filter's CEL expression is false, as function-cel-filter.

Input: ``cel.fn.crossplane.io/v1beta1`` ``Filters`` with ``filters``, each a
``name`` (a Go regular expression, anchored as ``^<name>$``, matched against
composition resource names) and an ``expression``. Every expression is
evaluated once, over the variables ``observed`` and ``desired`` (the
request's ``State`` messages: ``composite``, ``resources``, and in each
resource ``resource``, ``connection_details`` as bytes and ``ready`` as an
int) and ``context`` (a map). A desired composed resource that matches a
filter whose expression is false is removed; one that matches none stays.

Expressions are checked first as cel-go checks them (:mod:`crossfn.gocompat.celcheck`):
one whose type is not ``bool`` (a bare ``observed.composite.resource.spec.enabled``
is ``dyn``) is refused, as are unknown variables and fields. They are
evaluated with cel-python and cel-go's heterogeneous equality (a Struct's
numbers are doubles, and ``spec.widgets == 42`` holds for ``42.0``); an
expression past Kubernetes' per-call cost limit is not evaluated
(docs/compatibility.md lists the differences from cel-go).

Releases: v0.1.0 and v0.1.1 (function-sdk-go v0.2.0, protocol ``v1beta1``,
so the State type is ``apiextensions.fn.proto.v1beta1.State``) and v0.2.0
(function-sdk-go v0.6, protocol ``v1``; Fatal results target the XR). The
CEL expressions behave the same.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from crossfn import errors
from crossfn.functions import _gosdk
from crossfn.gocompat import cel, celcheck, celcost, regexp
from crossfn.gocompat import jsonstruct as js
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource

__all__ = ["CelFilter", "compose"]

_INPUT = js.Struct(
    "v1beta1.Filters",
    {
        "apiVersion": js.STRING,
        "kind": js.STRING,
        "metadata": js.ANY,
        "filters": js.Slice(js.Struct("v1beta1.Filter", {"name": js.STRING, "expression": js.STRING})),
    },
)


class CelError(errors.CrossfnError):
    """An expression that did not parse, check or evaluate; the text is cel-filter's ``Evaluate`` error."""


@functools.cache
def _declarations(proto: str) -> celcheck.Declarations:
    state = f"apiextensions.fn.proto.{proto}.State"
    res = f"apiextensions.fn.proto.{proto}.Resource"
    return celcheck.Declarations(
        variables={"observed": state, "desired": state, "context": "map(string, dyn)"},
        messages={
            state: {"composite": res, "resources": f"map(string, {res})"},
            res: {"resource": "map(string, dyn)", "connection_details": "map(string, bytes)", "ready": "int"},
        },
    )


def _one_line(exc: BaseException) -> str:
    text = exc.args[0] if exc.args and isinstance(exc.args[0], str) else str(exc)
    return " ".join(text.split())


def _position(source: str, line: int, column: int) -> int:
    starts = [0] + [i + 1 for i, ch in enumerate(source) if ch == "\n"]
    return starts[min(max(line, 1), len(starts)) - 1] + max(column, 1) - 1


def _eval_message(exc: BaseException) -> str:
    """A cel-python evaluation error in cel-go's words, where cel-go's are known."""
    kind = exc.args[1] if len(exc.args) > 1 else None
    if kind is KeyError:
        details = exc.args[2] if len(exc.args) > 2 else None
        message = exc.args[0] if exc.args else ""
        key = details[0] if details else str(message).rpartition(": ")[2].strip("'")
        return f"no such key: {key}"
    if kind is ZeroDivisionError:
        return "division by zero"
    if kind is TypeError and "overload" in str(exc.args[0]):
        return "no such overload"
    return _one_line(exc)


def evaluate(expression: str, variables: Mapping[str, Any], proto: str) -> bool:
    """cel-filter's Evaluate: parse, check (a ``bool`` result), evaluate ``expression`` over plain-data variables."""
    env = cel.environment()
    too_long = cel.size_error(expression)
    if too_long is not None:
        raise CelError(f"cannot parse expression: {too_long}")
    try:
        tree = env.compile(expression)
    except Exception as exc:  # celpy raises its parse error, or lark's
        pos = _position(expression, getattr(exc, "line", 1) or 1, getattr(exc, "column", 1) or 1)
        raise CelError(
            f"cannot parse expression: {celcheck.display(expression, pos, 'Syntax error: unexpected input')}"
        ) from exc
    try:
        output = celcheck.check(expression, tree, _declarations(proto))
    except celcheck.CheckError as exc:
        raise CelError(f"cannot type-check expression: {exc}") from exc
    if output != celcheck.BOOL:
        raise CelError(
            f"expression {errors.quote(expression)} must return a boolean, but will return {output} instead"
        )
    if celcost.exceeds(expression, variables):
        raise CelError(f"cannot evaluate CEL program: {celcost.LIMIT_EXCEEDED}")
    celpy = cel.module()
    activation = {k: cel.value(v) for k, v in variables.items()}
    try:
        value = env.program(tree, functions=cel.go_equality()).evaluate(activation)
    except Exception as exc:  # CELEvalError and friends: anything the expression does wrong at run time
        raise CelError(f"cannot evaluate CEL program: {_eval_message(exc)}") from exc
    # Upstream wraps a nil error here ("expression did not return a bool"), which is no error: false.
    return isinstance(value, celpy.celtypes.BoolType) and bool(value)


def _resource(r: fnv1.Resource) -> dict[str, Any]:
    return {
        "resource": resource.struct_to_dict(r.resource, integers=False),
        "connection_details": dict(r.connection_details),
        "ready": int(r.ready),
    }


def _state(s: fnv1.State) -> dict[str, Any]:
    return {
        "composite": _resource(s.composite),
        "resources": {name: _resource(r) for name, r in s.resources.items()},
    }


class CelFilter:
    """function-cel-filter built with one function-sdk-go (``sdk``): ``v1beta1`` or ``v1`` types in its texts."""

    def __init__(self, sdk: _gosdk.SDK) -> None:
        self.sdk = sdk

    def __call__(self, req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        self.sdk.run(self._run, req, rsp)

    def _run(self, req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        try:
            inp = self.sdk.get_input(resource.struct_to_dict(req.input, integers=False), _INPUT)
        except errors.FunctionInputError as exc:
            raise _gosdk.Fatal(f"cannot get filters from {self.sdk.request_type}: {exc}") from exc
        filters: list[dict[str, Any]] = [f or {} for f in inp.get("filters") or []]  # null: Go's zero Filter
        variables = {
            "observed": _state(req.observed),
            "desired": _state(req.desired),
            "context": resource.struct_to_dict(req.context, integers=False),
        }
        checks: list[tuple[regexp.Regexp, bool]] = []
        for i, f in enumerate(filters):
            pattern = "^" + f.get("name", "") + "$"
            try:
                rx = regexp.compile(pattern)
            except errors.GoError as exc:
                raise _gosdk.Fatal(
                    f"cannot compile regular expression {errors.quote(pattern)} for filter {i}: {exc}"
                ) from exc
            expression = f.get("expression", "")
            try:
                include = evaluate(expression, variables, self.sdk.proto)
            except (CelError, errors.MissingExtraError) as exc:
                raise _gosdk.Fatal(
                    f"cannot evaluate CEL expression {errors.quote(expression)} for filter {i}: {exc}"
                ) from exc
            checks.append((rx, include))
        for name in list(rsp.desired.resources):
            if any(rx.match_string(name) and not include for rx, include in checks):
                del rsp.desired.resources[name]


compose = CelFilter(_gosdk.V0_4_0)
"""function-cel-filter v0.2.0."""

v0_1_1 = CelFilter(_gosdk.V0_2_0)
"""function-cel-filter v0.1.0 and v0.1.1."""
