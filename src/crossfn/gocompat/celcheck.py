"""cel-go's type check, as far as a program that checks its expressions shows it to users.

cel-python (:mod:`.cel`) evaluates without checking types; cel-go checks an
expression against its declared variables first. A Go program that insists on
a result type (function-cel-filter wants a ``bool``) reports the checked type,
and the checker's errors reach users. :func:`check` gives both for the cases
that matter in practice:

* the result type, printed as cel-go prints a type (``bool``, ``int``, ``dyn``,
  ``map(string, dyn)``, ``list(int)``, a message's full name);
* ``undeclared reference to '<name>' (in container '')`` for a variable or
  function nobody declared;
* ``undefined field '<field>'`` for a field a declared message lacks, and
  ``type '<t>' does not support field selection`` for a select on a scalar;
* ``found no matching overload for '_[_]' applied to '(<t>, <t>)'`` for
  indexing a message.

Errors are formatted as cel-go's ``Issues.Err()``: ``ERROR: <input>:<line>:<col>:
<message>``, the source line and a caret under the column, one block per
error, sorted by position. Other static type errors cel-go reports (an
operator over two mismatched concrete types, ``1 == "a"``) are not checked
here: such an expression is evaluated instead, where cel-go refuses it.

A ``google.protobuf.Struct`` is ``map(string, dyn)`` and an enum field
``int``, as in cel-go. The declarations say which variables exist and which
fields each message type has (:class:`Declarations`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from crossfn import errors

__all__ = ["BOOL", "DYN", "CheckError", "Declarations", "check", "display"]

DYN = "dyn"
"""cel-go's name for the dynamic type (a Struct field, a map(string, dyn) value)."""
BOOL = "bool"
"""cel-go's name for the bool type."""
_ERROR = "*error*"

_LITERALS = {
    "INT_LIT": "int",
    "UINT_LIT": "uint",
    "FLOAT_LIT": "double",
    "STRING_LIT": "string",
    "MLSTRING_LIT": "string",
    "BYTES_LIT": "bytes",
    "BOOL_LIT": "bool",
    "NULL_LIT": "null_type",
}
# The standard library's functions (no extensions): the result type of each.
_GLOBALS = {
    "size": "int",
    "int": "int",
    "uint": "uint",
    "double": "double",
    "string": "string",
    "bytes": "bytes",
    "bool": "bool",
    "dyn": DYN,
    "type": "type",
    "duration": "google.protobuf.Duration",
    "timestamp": "google.protobuf.Timestamp",
    "matches": "bool",
}
_MEMBERS = {
    "size": "int",
    "matches": "bool",
    "startsWith": "bool",
    "endsWith": "bool",
    "contains": "bool",
    **{
        f"get{unit}": "int"
        for unit in (
            "Date",
            "DayOfMonth",
            "DayOfWeek",
            "DayOfYear",
            "FullYear",
            "Hours",
            "Milliseconds",
            "Minutes",
            "Month",
            "Seconds",
        )
    },
}
_TYPE_NAMES = frozenset(
    {"int", "uint", "double", "string", "bytes", "bool", "list", "map", "null_type", "type", "dyn"}
)
_BOOL_MACROS = frozenset({"all", "exists", "exists_one"})


class CheckError(errors.CrossfnError):
    """cel-go's checker refused the expression; the text is ``Issues.Err()``'s."""


@dataclasses.dataclass(frozen=True)
class Declarations:
    """The variables an expression may name (name -> type) and each message type's fields (name -> type)."""

    variables: Mapping[str, str]
    messages: Mapping[str, Mapping[str, str]]


def _params(t: str) -> list[str]:
    """The parameters of ``list(a)`` or ``map(a, b)``, split at the top level."""
    inner = t[t.index("(") + 1 : -1]
    out, depth, start = [], 0, 0
    for i, ch in enumerate(inner):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            out.append(inner[start:i].strip())
            start = i + 1
    out.append(inner[start:].strip())
    return out


def _same(types: list[str]) -> str:
    """The common type of a list's elements (or a ternary's branches): one type, else ``dyn``."""
    known = [t for t in types if t != _ERROR]
    return known[0] if known and all(t == known[0] for t in known) else DYN


class _Checker:
    def __init__(self, source: str, decls: Declarations) -> None:
        self.source = source
        self.decls = decls
        self.problems: list[tuple[int, str]] = []
        self.scopes: list[dict[str, str]] = [dict(decls.variables)]

    def report(self, pos: int, message: str) -> str:
        self.problems.append((pos, message))
        return _ERROR

    # --- the grammar's chain of levels ---------------------------------------------------------

    def expr(self, t: Any) -> str:
        kids = t.children
        if len(kids) == 3:
            self.node(kids[0])
            return _same([self.node(kids[1]), self.node(kids[2])])
        return self.node(kids[0])

    def node(self, t: Any) -> str:
        method = getattr(self, f"_{t.data}", None)
        if method is not None:
            result: str = method(t)
            return result
        if len(t.children) == 1:
            return self.node(t.children[0])
        return self._binary(t)

    def _binary(self, t: Any) -> str:
        """``a op b``: the left operand is the op node's only child."""
        op, right = t.children
        left = self.node(op.children[0])
        rt = self.node(right)
        if t.data in ("conditionalor", "conditionaland") or op.data.startswith("relation_"):
            return BOOL
        if _ERROR in (left, rt):
            return _ERROR
        if left == rt:
            return left
        known = [x for x in (left, rt) if x != DYN]
        return known[0] if len(known) == 1 else DYN

    def _conditionalor(self, t: Any) -> str:
        if len(t.children) == 1:
            return self.node(t.children[0])
        for kid in t.children:
            self.node(kid)
        return BOOL

    _conditionaland = _conditionalor

    def _unary(self, t: Any) -> str:
        if len(t.children) == 1:
            return self.node(t.children[0])
        op, operand = t.children
        inner = self.node(operand)
        return BOOL if op.data == "unary_not" else inner

    def _expr(self, t: Any) -> str:
        return self.expr(t)

    def _paren_expr(self, t: Any) -> str:
        return self.expr(t.children[0])

    # --- members --------------------------------------------------------------------------------

    def _member_dot(self, t: Any) -> str:
        operand, field = t.children
        return self.select(self.node(operand), str(field), self._dot(field))

    def select(self, on: str, field: str, pos: int) -> str:
        if on in (_ERROR, DYN):
            return on
        if on.startswith("map("):
            return _params(on)[1]
        fields = self.decls.messages.get(on)
        if fields is None:
            return self.report(pos, f"type '{on}' does not support field selection")
        if field not in fields:
            return self.report(pos, f"undefined field '{field}'")
        return fields[field]

    def _dot(self, token: Any) -> int:
        """The position of the ``.`` before ``token`` (cel-go reports a select there)."""
        return self.source.rfind(".", 0, token.start_pos)

    def _open(self, token: Any) -> int:
        """The position of the ``(`` after a function's name (cel-go reports a call there)."""
        return self.source.find("(", token.end_pos)

    def _member_index(self, t: Any) -> str:
        operand, index = t.children
        on = self.node(operand)
        key = self.expr(index)
        if on in (_ERROR, DYN):
            return on
        if on.startswith(("list(", "map(")):
            return _params(on)[-1]
        if on in self.decls.messages:
            bracket = self.source.rfind("[", 0, self._start(index))
            return self.report(bracket, f"found no matching overload for '_[_]' applied to '({on}, {key})'")
        return DYN

    def _member_dot_arg(self, t: Any) -> str:
        operand, name, *rest = t.children
        args = rest[0].children if rest else []
        fn = str(name)
        if fn in _BOOL_MACROS or fn in ("map", "filter"):
            return self._comprehension(self.node(operand), fn, args)
        self.node(operand)
        for a in args:
            self.expr(a)
        if fn in _MEMBERS:
            return _MEMBERS[fn]
        return self.report(self._open(name), f"undeclared reference to '{fn}' (in container '')")

    def _comprehension(self, over: str, fn: str, args: list[Any]) -> str:
        var = _only_token(args[0]) if args else ""
        element = DYN
        if over.startswith(("list(", "map(")):
            element = _params(over)[0]
        self.scopes.append({var: element})
        types = [self.expr(a) for a in args[1:]]
        self.scopes.pop()
        if fn in _BOOL_MACROS:
            return BOOL
        if fn == "filter":
            return f"list({element})"
        return f"list({types[-1] if types else DYN})"

    def _member_object(self, t: Any) -> str:
        for kid in t.children[1:]:
            for sub in kid.children:
                if hasattr(sub, "data"):
                    self.expr(sub)
        return DYN

    # --- primaries ------------------------------------------------------------------------------

    def _ident(self, t: Any) -> str:
        token = t.children[0]
        name = str(token)
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        if name in _TYPE_NAMES:
            return "type"
        return self.report(token.start_pos, f"undeclared reference to '{name}' (in container '')")

    def _ident_arg(self, t: Any) -> str:
        name, *rest = t.children
        args = rest[0].children if rest else []
        fn = str(name)
        if fn == "has":
            return self._has(args)
        for a in args:
            self.expr(a)
        if fn in _GLOBALS:
            return _GLOBALS[fn]
        return self.report(self._open(name), f"undeclared reference to '{fn}' (in container '')")

    def _has(self, args: list[Any]) -> str:
        for a in args:
            self.expr(a)
        return BOOL

    def _dot_ident(self, t: Any) -> str:
        return self._ident(t)

    def _dot_ident_arg(self, t: Any) -> str:
        return self._ident_arg(t)

    def _literal(self, t: Any) -> str:
        return _LITERALS.get(t.children[0].type, DYN)

    def _list_lit(self, t: Any) -> str:
        items = [self.expr(e) for e in t.children[0].children] if t.children else []
        return f"list({_same(items)})"

    def _map_lit(self, t: Any) -> str:
        parts = [self.expr(e) for e in t.children[0].children] if t.children else []
        return f"map({_same(parts[0::2])}, {_same(parts[1::2])})"

    def _start(self, t: Any) -> int:
        meta = getattr(t, "meta", None)
        if meta is not None and not meta.empty:
            return int(meta.start_pos)
        return 0


def _only_token(t: Any) -> str:
    """The identifier a chain of one-child nodes ends in (a comprehension's variable)."""
    while hasattr(t, "children") and t.children:
        t = t.children[0]
    return str(t)


_WIDE_DOT = "\uff0e"
_WIDE_CARET = "\uff3e"


def display(source: str, pos: int, message: str) -> str:
    """One cel-go error block: ``ERROR: <input>:<line>:<col>: <message>``, the line, a caret under the column."""
    line_no = source.count("\n", 0, pos) + 1
    line_start = source.rfind("\n", 0, pos) + 1
    column = pos - line_start
    text = source[line_start:].split("\n", 1)[0].replace("\t", " ")
    marks = "".join(
        _WIDE_DOT if len(ch.encode("utf-8", "surrogatepass")) > 1 else "." for ch in text[:column]
    )
    here = text[column : column + 1]
    caret = _WIDE_CARET if here and len(here.encode("utf-8", "surrogatepass")) > 1 else "^"
    return f"ERROR: <input>:{line_no}:{column + 1}: {message}\n | {text}\n | {marks}{caret}"


def check(source: str, tree: Any, decls: Declarations) -> str:
    """The type cel-go's checker gives ``source`` (parsed by cel-python as ``tree``); raise CheckError if it refuses it."""
    checker = _Checker(source, decls)
    result = checker.expr(tree)
    if checker.problems:
        blocks = [display(source, pos, msg) for pos, msg in sorted(checker.problems, key=lambda p: p[0])]
        raise CheckError("\n".join(blocks))
    return result
