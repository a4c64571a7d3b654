"""``x-kubernetes-validations``: CEL rules, evaluated as the API server evaluates them.

Each rule of a schema node is evaluated with ``self`` bound to the (pruned,
defaulted) value at that node, its numbers typed by the schema (``number``
fields are doubles even when written ``2``); a rule that mentions ``oldSelf`` is a
transition rule and runs only when an old object is given (``--old-resources``)
and has a value there, unless the rule sets ``optionalOldSelf``. Rules run
for every element of ``items`` and every value of ``additionalProperties``.

A rule that evaluates to ``false`` gives ``<path>: Invalid value: "<schema
type>": <message>`` (the API server's text), where the message is the rule's
``messageExpression`` result, else its ``message``, else ``failed rule:
<rule>``; ``fieldPath`` extends the path, ``reason`` picks the error type.

The CEL library is cel-python (``celpy``, the ``cel`` extra), crossfn's one CEL
interpreter: function-auto-ready uses it too, and :mod:`crossfn.gocompat.celcost`
reads its parse trees. Kubernetes' string and list extension functions that it
lacks are supplied below. Programs are compiled once per rule text and cached
for the process.

Each evaluation is bounded by Kubernetes' per-call cost limit, estimated before
evaluating (:mod:`crossfn.gocompat.celcost`): a rule past it gives the API
server's "call cost exceeds limit" error, and no further rules of that object
run.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import re
from collections.abc import Callable, Mapping
from typing import Any

from crossfn.gocompat import cel, celcost
from crossfn.validate import _problem

__all__ = ["check_rules"]

_Problem = _problem.Problem
_T = _problem.ErrorType
_REASONS = {
    "FieldValueRequired": _T.REQUIRED,
    "FieldValueForbidden": _T.FORBIDDEN,
    "FieldValueDuplicate": _T.DUPLICATE,
    "FieldValueInvalid": _T.INVALID,
}
_ABSENT = object()


def _is_sorted(items: list[Any]) -> bool:
    return all(a <= b for a, b in itertools.pairwise(items))


def _index_of(s: str, sub: str) -> int:
    return s.find(sub)


def _last_index_of(s: str, sub: str) -> int:
    return s.rfind(sub)


# Kubernetes' CEL libraries (k8s.io/apiserver/pkg/cel/library and cel-go's
# strings extension) that the interpreter does not provide itself. A method call
# (``s.lowerAscii()``) passes its receiver first; results go back through
# :func:`_returning` as CEL values.
_EXTENSIONS: dict[str, Callable[..., Any]] = {
    "lowerAscii": lambda s: s.lower(),
    "upperAscii": lambda s: s.upper(),
    "trim": lambda s: s.strip(),
    "replace": lambda s, old, new: s.replace(old, new),
    "split": lambda s, sep: s.split(sep),
    "join": lambda items, sep="": sep.join(items),
    "indexOf": _index_of,
    "lastIndexOf": _last_index_of,
    "isSorted": _is_sorted,
    "sum": sum,
}


@functools.cache
def _functions() -> dict[str, Callable[..., Any]]:
    to_cel = cel.module().adapter.json_to_cel
    return {name: _returning(fn, to_cel) for name, fn in _EXTENSIONS.items()}


def _returning(fn: Callable[..., Any], to_cel: Callable[[Any], Any]) -> Callable[..., Any]:
    def call(*args: Any) -> Any:
        return to_cel(fn(*args))

    return call


@functools.lru_cache(maxsize=4096)
def _compile(expression: str) -> tuple[Any, bool] | str:
    """A compiled program and whether it reads ``oldSelf``, or the compile error's text."""
    env = cel.environment()
    try:
        tree = env.compile(expression)
    except Exception as exc:  # celpy raises parser- and lark-specific errors
        text = exc.args[0] if exc.args and isinstance(exc.args[0], str) else str(exc)
        return f"compilation failed: {' '.join(text.split())}"
    return env.program(tree, functions=_functions()), _reads_old_self(tree)


def _reads_old_self(tree: Any) -> bool:
    return any(
        getattr(node, "data", None) == "ident" and str(node.children[0]) == "oldSelf"
        for node in tree.iter_subtrees()
    )


def check_rules(value: Any, schema: Mapping[str, Any], path: str, *, old: Any = _ABSENT) -> list[_Problem]:
    """Every failed CEL rule of ``value`` under ``schema``, outermost first."""
    out: list[_Problem] = []
    if old is not _ABSENT:
        old = _typed(old, schema)
    # A rule past the cost limit ends the object's validation, as in the API server.
    with contextlib.suppress(_OutOfBudget):
        _walk(_typed(value, schema), schema, path, old, out)
    return out


class _OutOfBudget(Exception):  # noqa: N818 -- control flow inside this module
    """A rule passed the per-call cost limit: the API server runs no further rules."""


def _typed(value: Any, schema: Any) -> Any:
    """``value`` with numbers typed as CEL sees them: ``number`` fields are doubles, ``integer`` fields ints.

    YAML gives ``2`` for a ``number`` field; the API server's CEL sees
    ``2.0``, and CEL does not mix ints and doubles in arithmetic.
    """
    schema = schema if isinstance(schema, dict) else {}
    if isinstance(value, dict):
        props = schema.get("properties")
        props = props if isinstance(props, dict) else {}
        extra = schema.get("additionalProperties")
        return {k: _typed(v, props.get(k, extra)) for k, v in value.items()}
    if isinstance(value, list):
        items = schema.get("items")
        return [_typed(v, items) for v in value]
    if isinstance(value, bool):
        return value
    kind = schema.get("type")
    if kind == "number" and isinstance(value, int):
        return float(value)
    if kind == "integer" and isinstance(value, float) and value.is_integer() and -(2**63) <= value < 2**63:
        return int(value)  # past int64 it stays a double, as the API server's JSON decode leaves it
    return value


def _walk(value: Any, schema: Mapping[str, Any], path: str, old: Any, out: list[_Problem]) -> None:
    if value is None:
        return
    rules = schema.get("x-kubernetes-validations")
    if isinstance(rules, list):
        for rule in rules:
            if isinstance(rule, dict) and isinstance(rule.get("rule"), str):
                try:
                    problem = _evaluate(rule, value, schema, path, old)
                except _OutOfBudget as stop:
                    out.append(stop.args[0])
                    raise
                if problem is not None:
                    out.append(problem)
    if isinstance(value, dict):
        props = schema.get("properties")
        props = props if isinstance(props, dict) else {}
        extra = schema.get("additionalProperties")
        for name, item in value.items():
            sub = props.get(name, extra)
            if isinstance(sub, dict):
                old_item = old.get(name, _ABSENT) if isinstance(old, dict) else _ABSENT
                _walk(item, sub, f"{path}.{name}" if path else name, old_item, out)
    elif isinstance(value, list):
        items = schema.get("items")
        if isinstance(items, dict):
            for i, item in enumerate(value):
                old_item = old[i] if isinstance(old, list) and i < len(old) else _ABSENT
                _walk(item, items, f"{path}[{i}]", old_item, out)


def _evaluate(
    rule: Mapping[str, Any], value: Any, schema: Mapping[str, Any], path: str, old: Any
) -> _Problem | None:
    text = rule["rule"]
    shown = str(schema.get("type", ""))
    compiled = _compile(text)
    if isinstance(compiled, str):
        return _Problem(path, _T.INTERNAL, f"rule {text!r}: {compiled}", origin=_problem.Origin.CEL)
    program, transition = compiled
    activation: dict[str, Any] = {"self": value}
    if transition:
        if old is _ABSENT and not rule.get("optionalOldSelf"):
            return None
        activation["oldSelf"] = None if old is _ABSENT else old
    if celcost.exceeds(text, activation):
        detail = (
            f"'{celcost.LIMIT_EXCEEDED}': no further validation rules will be run "
            f"due to call cost exceeds limit for rule: {_rule_error_string(rule)}"
        )
        raise _OutOfBudget(_Problem(path, _T.INVALID, detail, shown, origin=_problem.Origin.CEL))
    context = _context(activation)
    result = _run(program, context)
    if isinstance(result, _Failed):
        detail = f"{result.text} evaluating rule: {text}"
        return _Problem(path, _T.INVALID, detail, shown, origin=_problem.Origin.CEL)
    if result is True:
        return None
    if result is not False:
        detail = f"rule did not evaluate to a boolean: {text}"
        return _Problem(path, _T.INVALID, detail, shown, origin=_problem.Origin.CEL)
    field_path = rule.get("fieldPath")
    if isinstance(field_path, str) and field_path:
        path = (
            f"{path}{field_path}" if field_path.startswith(("[", ".")) or not path else f"{path}.{field_path}"
        )
        path = path.lstrip(".")
    kind = _REASONS.get(str(rule.get("reason", "")), _T.INVALID)
    return _Problem(path, kind, _message(rule, context), shown, origin=_problem.Origin.CEL)


def _context(activation: dict[str, Any]) -> dict[str, Any]:
    to_cel = cel.module().adapter.json_to_cel
    return {name: to_cel(value) for name, value in activation.items()}


class _Failed:
    """An evaluation error, as cel-go words it."""

    def __init__(self, text: str) -> None:
        self.text = text


def _run(program: Any, context: dict[str, Any]) -> Any:
    """The program's result as a Python bool or str where it is one, else a CEL value or :class:`_Failed`."""
    celpy = cel.module()
    try:
        result = program.evaluate(context)
    except celpy.CELEvalError as exc:
        return _Failed(_error_text(exc))
    except (
        KeyError,
        TypeError,
        ValueError,
        RuntimeError,
        ZeroDivisionError,
        OverflowError,
        RecursionError,
    ) as exc:
        return _Failed(_one_line(str(exc)))
    if isinstance(result, celpy.CELEvalError):
        return _Failed(_error_text(result))
    if isinstance(result, celpy.celtypes.BoolType):
        return bool(result)
    if isinstance(result, str):
        return str(result)
    return result


def _message(rule: Mapping[str, Any], context: Any) -> str:
    expression = rule.get("messageExpression")
    if isinstance(expression, str) and expression:
        compiled = _compile(expression)
        if not isinstance(compiled, str):
            text = _run(compiled[0], context)
            if isinstance(text, str) and text.strip():
                return text
    message = rule.get("message")
    if isinstance(message, str) and message:
        return message
    return f"failed rule: {rule['rule']}"


def _rule_error_string(rule: Mapping[str, Any]) -> str:
    """The API server's ``ruleErrorString``: the rule's message if it has one, else the rule."""
    message = rule.get("message")
    if isinstance(message, str) and message.strip():
        return message.strip()
    return str(rule["rule"]).strip()


_QUOTED = re.compile(r"'([^']*)'")


def _error_text(error: BaseException) -> str:
    """cel-go's text for a celpy ``CELEvalError`` (its args: message, Python exception class, its args)."""
    message, cause = [*error.args, "", None][:2]
    message = str(message)
    if cause is KeyError:
        key = _QUOTED.search(message)
        return f"no such key: {key.group(1) if key else message}"
    if cause is IndexError:
        return "index out of range"
    if cause is ZeroDivisionError:
        return "division by zero"
    if "no matching overload" in message or "no such overload" in message:
        return "no such overload"
    return _one_line(message)


def _one_line(text: str) -> str:
    return " ".join(text.split())
