"""The executor of Go's ``text/template`` (``text/template/exec.go``): a tree and data into text.

It walks the tree as Go's ``state`` does: ``dot`` is the current value, a
stack of variables holds ``$`` and what pipelines declare (a ``{{template}}``
starts a new stack), and every error names the template, the position and the
text of the node being evaluated (``template: NAME:LINE:COL: executing "NAME"
at <NODE>: ...``). Values are those of :mod:`._value`.

Bounds: Go stops recursive ``{{template}}`` calls at :data:`MAX_EXEC_DEPTH`
(``exceeded maximum template depth (100000)``), as here. Go bounds neither the
output nor the work; here an :class:`ExecLimits` does, with an error at the
node that crossed it, so a hostile template (a huge ``range``, an exponential
``{{template}}`` tree) ends in one line instead of exhausting the machine.
"""

from __future__ import annotations

import contextvars
import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from crossfn import errors
from crossfn.gocompat import fmt, gofunc, strconv, values
from crossfn.gocompat.template import _funcs, _node
from crossfn.gocompat.template._value import (
    INVALID,
    NIL_IFACE,
    Iface,
    TypedNil,
    elem,
    indirect,
    indirect_interface,
    type_of,
)

if TYPE_CHECKING:
    from crossfn.gocompat.template import Template

__all__ = ["MAX_EXEC_DEPTH", "ExecError", "ExecLimits", "execute"]

MAX_EXEC_DEPTH = 100000
"""Go's ``maxExecDepth``: templates within templates."""


class ExecError(errors.GoError):
    """A template that fails while it runs; the text is Go's (``template: NAME:LINE:COL: executing ...``)."""


@dataclasses.dataclass(frozen=True)
class ExecLimits:
    """What one execution may do. Go has neither limit; both are far above any real template's needs."""

    max_output: int = 64 * 1024 * 1024
    """Characters written: a composition's manifests are kilobytes; 64 MiB is beyond any gRPC message."""

    max_steps: int = 50_000_000
    """Nodes walked and range iterations: a 50-resource template takes some thousands."""


_MISSING = object()
"""Go's ``missingVal``: no value came down the pipeline."""


class _BreakSignal(Exception):  # noqa: N818 -- a control-flow signal ({{break}}), not an error
    pass


class _ContinueSignal(Exception):  # noqa: N818 -- a control-flow signal ({{continue}}), not an error
    pass


_INT_TYPES = frozenset({"int", "int8", "int16", "int32", "int64"})
_UINT_TYPES = frozenset({"uint", "uint8", "uint16", "uint32", "uint64", "uintptr"})
_FLOAT_TYPES = frozenset({"float32", "float64"})


def _can_be_nil(typ: str) -> bool:
    """Go's ``canBeNil``: whether an untyped nil is assignable to a parameter of type ``typ``."""
    return typ.startswith(("[]", "map[", "*", "func", "chan")) or typ in (
        gofunc.ANY,
        _funcs.RV,
        "error",
        "fmt.Stringer",
    )


def _zero(typ: str) -> Any:
    """The zero value of a nillable type (``reflect.Zero``)."""
    if typ == _funcs.RV:
        return INVALID
    if typ == gofunc.ANY:
        return NIL_IFACE
    return TypedNil(typ)


def _assignable(v: Any, typ: str) -> bool:
    if typ == gofunc.ANY:
        return True
    if isinstance(v, Iface):
        return False
    return type_of(v) == typ


@dataclasses.dataclass
class _Budget:
    """The work done and the text written so far, against the limits.

    An execution started while another runs on the same thread (a function
    such as function-go-templating's ``include`` executes a template) shares
    the outer one's budget, so nesting executions cannot multiply the limits.
    """

    limits: ExecLimits
    size: int = 0
    steps: int = 0


_BUDGET: contextvars.ContextVar[_Budget] = contextvars.ContextVar("crossfn.gocompat.template.budget")


@dataclasses.dataclass
class _Run:
    """One execution: its output and the budget it draws on."""

    out: list[str]
    budget: _Budget


class _State:
    """Go's ``state``: the template running, the node at hand and the variables, for one template call."""

    __slots__ = ("depth", "node", "run", "tmpl", "vars")

    def __init__(self, tmpl: Template, run: _Run, vars: list[list[Any]], depth: int) -> None:
        self.tmpl = tmpl
        self.run = run
        self.vars = vars
        self.depth = depth
        self.node: _node.Node | None = None

    # Errors.

    def errorf(self, message: str) -> ExecError:
        """The error to raise, in Go's form for the node at hand."""
        name = self.tmpl.name
        if self.node is None:
            return ExecError(f"template: {name}: {message}")
        location, context = _node.error_context(self.node)
        return ExecError(f"template: {location}: executing {strconv.quote(name)} at <{context}>: {message}")

    def step(self) -> None:
        budget = self.run.budget
        budget.steps += 1
        if budget.steps > budget.limits.max_steps:
            raise self.errorf(f"execution took more than {budget.limits.max_steps} steps")

    def write(self, text: str) -> None:
        budget = self.run.budget
        budget.size += len(text)
        if budget.size > budget.limits.max_output:
            raise self.errorf(f"output is larger than {budget.limits.max_output} characters")
        self.run.out.append(text)

    # Variables.

    def set_var(self, name: str, value: Any) -> None:
        for v in reversed(self.vars):
            if v[0] == name:
                v[1] = value
                return
        raise self.errorf(f"undefined variable: {name}")

    def var_value(self, name: str) -> Any:
        for v in reversed(self.vars):
            if v[0] == name:
                return v[1]
        raise self.errorf(f"undefined variable: {name}")

    # Walking the tree.

    def walk(self, dot: Any, node: _node.Node) -> None:
        self.node = node
        self.step()
        if isinstance(node, _node.TextNode):
            self.write(node.text_value)
        elif isinstance(node, _node.ActionNode):
            # Variables an action declares persist to the end of the enclosing block.
            val = self.eval_pipeline(dot, node.pipe)
            if not node.pipe.decl:
                self.print_value(node, val)
        elif isinstance(node, _node.ListNode):
            for n in node.nodes:
                self.walk(dot, n)
        elif isinstance(node, (_node.IfNode, _node.WithNode)):
            self.walk_if_or_with(node, dot)
        elif isinstance(node, _node.RangeNode):
            self.walk_range(dot, node)
        elif isinstance(node, _node.TemplateNode):
            self.walk_template(dot, node)
        elif isinstance(node, _node.BreakNode):
            raise _BreakSignal
        elif isinstance(node, _node.ContinueNode):
            raise _ContinueSignal
        elif not isinstance(node, _node.CommentNode):
            raise self.errorf(f"unknown node: {node}")

    def walk_if_or_with(self, node: _node.BranchNode, dot: Any) -> None:
        mark = len(self.vars)
        try:
            val = self.eval_pipeline(dot, node.pipe)
            is_true, ok = _funcs.is_true(indirect_interface(val))
            if not ok:
                raise self.errorf(f"if/with can't use {fmt.sprint(val)}")
            if is_true:
                self.walk(val if isinstance(node, _node.WithNode) else dot, node.list)
            elif node.else_list is not None:
                self.walk(dot, node.else_list)
        finally:
            del self.vars[mark:]

    def walk_range(self, dot: Any, r: _node.RangeNode) -> None:
        self.node = r
        mark0 = len(self.vars)
        try:
            val, _ = indirect(self.eval_pipeline(dot, r.pipe))
            if not self._range_items(r, val) and r.else_list is not None:
                self.walk(dot, r.else_list)
        except _BreakSignal:
            pass
        finally:
            del self.vars[mark0:]

    def _range_items(self, r: _node.RangeNode, val: Any) -> bool:
        """Run the body once per element; whether there was any (else the ``{{else}}`` runs)."""
        mark = len(self.vars)
        if isinstance(val, (list, tuple)):
            for i, item in enumerate(val):
                self._one_iteration(r, mark, values.GoInt(i), elem(val, item))
            return bool(val)
        if isinstance(val, Mapping):
            for key in sorted(val, key=values.map_key_order):
                self._one_iteration(r, mark, key, elem(val, val[key]))
            return bool(val)
        if val is INVALID or val is None or isinstance(val, TypedNil):
            return False
        if self.tmpl.release.range_over_int and isinstance(val, int) and not isinstance(val, bool):
            if len(r.pipe.decl) > 1:
                raise self.errorf(f"can't use {fmt.sprint(val)} to iterate over more than one variable")
            make = type(val)
            for i in range(int(val)):
                self._one_iteration(r, mark, INVALID, make(i))
            return int(val) > 0
        raise self.errorf(f"range can't iterate over {fmt.sprint(val)}")

    def _one_iteration(self, r: _node.RangeNode, mark: int, index: Any, item: Any) -> None:
        self.step()
        decl = r.pipe.decl
        if decl:
            if r.pipe.is_assign:
                self.set_var(decl[0].ident[0], index if len(decl) > 1 else item)
            else:
                self.vars[-1][1] = item  # lexically the second variable if there are two
        if len(decl) > 1:
            if r.pipe.is_assign:
                self.set_var(decl[1].ident[0], item)
            else:
                self.vars[-2][1] = index
        try:
            self.walk(item, r.list)
        except _ContinueSignal:
            pass
        finally:
            del self.vars[mark:]

    def walk_template(self, dot: Any, t: _node.TemplateNode) -> None:
        self.node = t
        tmpl = self.tmpl.lookup(t.name)
        if tmpl is None or tmpl.tree is None:
            raise self.errorf(f"template {strconv.quote(t.name)} not defined")
        if self.depth == MAX_EXEC_DEPTH:
            raise self.errorf(f"exceeded maximum template depth ({MAX_EXEC_DEPTH})")
        # Variables declared by the pipeline persist; the called template inherits none.
        dot = self.eval_pipeline(dot, t.pipe)
        state = _State(tmpl, self.run, [["$", dot]], self.depth + 1)
        assert tmpl.tree.root is not None
        state.walk(dot, tmpl.tree.root)

    # Evaluating pipelines.

    def eval_pipeline(self, dot: Any, pipe: _node.PipeNode | None) -> Any:
        if pipe is None:
            return INVALID
        self.node = pipe
        value: Any = _MISSING
        for cmd in pipe.cmds:
            value = self.eval_command(dot, cmd, value)
            if isinstance(value, Iface):  # look inside an interface {}
                value = INVALID if value.v is None else value.v
        for variable in pipe.decl:
            if pipe.is_assign:
                self.set_var(variable.ident[0], value)
            else:
                self.vars.append([variable.ident[0], value])
        return value

    def not_a_function(self, args: Sequence[_node.Node] | None, final: Any) -> None:
        if (args is not None and len(args) > 1) or final is not _MISSING:
            assert args is not None
            raise self.errorf(f"can't give argument to non-function {args[0]}")

    def eval_command(self, dot: Any, cmd: _node.CommandNode, final: Any) -> Any:
        first = cmd.args[0]
        if isinstance(first, _node.FieldNode):
            return self.eval_field_node(dot, first, cmd.args, final)
        if isinstance(first, _node.ChainNode):
            return self.eval_chain_node(dot, first, cmd.args, final)
        if isinstance(first, _node.IdentifierNode):
            return self.eval_function(dot, first, cmd, cmd.args, final)
        if isinstance(first, _node.PipeNode):
            # A parenthesized pipeline: its arguments are inside it; nothing may come down the pipe.
            self.not_a_function(cmd.args, final)
            return self.eval_pipeline(dot, first)
        if isinstance(first, _node.VariableNode):
            return self.eval_variable_node(dot, first, cmd.args, final)
        self.node = first
        self.not_a_function(cmd.args, final)
        if isinstance(first, _node.BoolNode):
            return first.true
        if isinstance(first, _node.DotNode):
            return dot
        if isinstance(first, _node.NilNode):
            raise self.errorf("nil is not a command")
        if isinstance(first, _node.NumberNode):
            return self.ideal_constant(first)
        if isinstance(first, _node.StringNode):
            return first.value
        raise self.errorf(f"can't evaluate command {strconv.quote(str(first))}")

    def ideal_constant(self, constant: _node.NumberNode) -> Any:
        """A number without a type to fit: its spelling decides (``3`` int, ``3.0`` float64)."""
        self.node = constant
        text = constant.number_text
        if constant.is_complex:
            return constant.complex128
        if (
            constant.is_float
            and not _is_hex_int(text)
            and not text.startswith("'")
            and any(c in text for c in ".eEpP")
        ):
            return constant.float64
        if constant.is_int:
            return values.GoInt(constant.int64)
        if constant.is_uint:
            raise self.errorf(f"{text} overflows int")
        return INVALID

    def eval_field_node(
        self, dot: Any, field: _node.FieldNode, args: Sequence[_node.Node] | None, final: Any
    ) -> Any:
        self.node = field
        return self.eval_field_chain(dot, dot, field, field.ident, args=args, final=final)

    def eval_chain_node(
        self, dot: Any, chain: _node.ChainNode, args: Sequence[_node.Node] | None, final: Any
    ) -> Any:
        self.node = chain
        if not chain.field:
            raise self.errorf("internal error: no fields in evalChainNode")
        if isinstance(chain.node, _node.NilNode):
            raise self.errorf(f"indirection through explicit nil in {chain}")
        pipe = self.eval_arg(dot, None, chain.node)
        return self.eval_field_chain(dot, pipe, chain, chain.field, args=args, final=final)

    def eval_variable_node(
        self, dot: Any, variable: _node.VariableNode, args: Sequence[_node.Node] | None, final: Any
    ) -> Any:
        self.node = variable
        value = self.var_value(variable.ident[0])
        if len(variable.ident) == 1:
            self.not_a_function(args, final)
            return value
        return self.eval_field_chain(dot, value, variable, variable.ident[1:], args=args, final=final)

    def eval_field_chain(
        self,
        dot: Any,
        receiver: Any,
        node: _node.Node,
        ident: Sequence[str],
        *,
        args: Sequence[_node.Node] | None,
        final: Any,
    ) -> Any:
        for name in ident[:-1]:
            receiver = self.eval_field(dot, name, node, receiver, args=None, final=_MISSING)
        return self.eval_field(dot, ident[-1], node, receiver, args=args, final=final)

    def eval_function(
        self,
        dot: Any,
        node: _node.IdentifierNode,
        cmd: _node.Node,
        args: Sequence[_node.Node] | None,
        final: Any,
    ) -> Any:
        self.node = node
        name = node.ident
        found = self.tmpl.find_function(name)
        if found is None:
            raise self.errorf(f"{strconv.quote(name)} is not a defined function")
        fn, is_builtin = found
        return self.eval_call(dot, fn, cmd, name, is_builtin=is_builtin, args=args, final=final)

    def eval_field(
        self,
        dot: Any,
        field_name: str,
        node: _node.Node,
        receiver: Any,
        *,
        args: Sequence[_node.Node] | None,
        final: Any,
    ) -> Any:
        """``.Field`` of ``receiver``: a map's element by that key, or a struct's field."""
        if receiver is INVALID:
            if self.tmpl.missing_key == "error":
                raise self.errorf(f"nil data; no entry for key {strconv.quote(field_name)}")
            return INVALID
        typ = type_of(receiver)
        receiver, is_nil = indirect(receiver)
        if is_nil:
            raise self.errorf(f"nil pointer evaluating {typ}.{field_name}")
        if isinstance(receiver, values.GoNamed):
            method = receiver.go_methods().get(field_name)
            if method is not None:
                return self.eval_call(dot, method, node, field_name, is_builtin=False, args=args, final=final)
        has_args = (args is not None and len(args) > 1) or final is not _MISSING
        fields = receiver.go_fields() if isinstance(receiver, values.GoNamed) else {}
        if field_name in fields:
            if has_args:
                raise self.errorf(f"{field_name} has arguments but cannot be invoked as function")
            return fields[field_name]
        nil_map = isinstance(receiver, TypedNil) and receiver.is_map
        if isinstance(receiver, Mapping) or nil_map:
            if has_args:
                raise self.errorf(f"{field_name} is not a method but has arguments")
            if not nil_map and field_name in receiver:
                return elem(receiver, receiver[field_name])
            if self.tmpl.missing_key == "zero":
                return elem(receiver, None)
            if self.tmpl.missing_key == "error":
                raise self.errorf(f"map has no entry for key {strconv.quote(field_name)}")
            return INVALID
        raise self.errorf(f"can't evaluate field {field_name} in type {typ}")

    # Calls.

    def eval_call(
        self,
        dot: Any,
        fn: gofunc.Func,
        node: _node.Node,
        name: str,
        *,
        is_builtin: bool,
        args: Sequence[_node.Node] | None,
        final: Any,
    ) -> Any:
        args = list(args[1:]) if args is not None else []
        params = fn.params
        num_in = len(args) + (final is not _MISSING)
        num_fixed = len(args)
        if fn.variadic:
            num_fixed = len(params) - 1
            if num_in < num_fixed:
                raise self.errorf(
                    f"wrong number of args for {name}: want at least {len(params) - 1} got {len(args)}"
                )
        elif num_in != len(params):
            raise self.errorf(f"wrong number of args for {name}: want {len(params)} got {num_in}")
        if is_builtin and name in ("and", "or"):
            return self._and_or(dot, name, params[0], args, final)
        argv: list[Any] = []
        i = 0
        while i < num_fixed and i < len(args):
            argv.append(self.eval_arg(dot, params[i], args[i]))
            i += 1
        if fn.variadic:
            for arg in args[i:]:
                argv.append(self.eval_arg(dot, params[-1], arg))
        if final is not _MISSING:
            t = params[-1]
            if fn.variadic and num_in - 1 < num_fixed:
                t = params[num_in - 1]  # the final value fills a fixed parameter
            argv.append(self.validate_type(final, t))
        if is_builtin and name == "call" and self.tmpl.release.call_names_callee:
            callee = str(args[0]) if args else _value_string(final)
            call_args = [callee, *argv]
            body: Callable[..., Any] = _funcs.call_named
        else:
            call_args = [
                a if p == _funcs.RV else _plain(a)
                for a, p in zip(argv, _param_types(fn, len(argv)), strict=True)
            ]
            body = fn.fn
        try:
            result = body(*call_args)
        except errors.GoError as exc:
            self.node = node
            raise self.errorf(f"error calling {name}: {exc}") from None
        return _result(fn.returns, result)

    def _and_or(self, dot: Any, name: str, arg_type: str, args: Sequence[_node.Node], final: Any) -> Any:
        """``and``/``or``: evaluate only until the answer is known; the deciding value is the result."""
        v: Any = INVALID
        for arg in args:
            v = self.eval_arg(dot, arg_type, arg)
            if _funcs.truth(v) == (name == "or"):
                return v
        if final is not _MISSING:
            v = self.validate_type(final, arg_type)
        return v

    def validate_type(self, value: Any, typ: str | None) -> Any:
        """Go's ``validateType``: ``value`` as an argument of type ``typ`` (None: any)."""
        if value is INVALID:
            if typ is None:
                return INVALID
            if _can_be_nil(typ):
                return _zero(typ)
            raise self.errorf(f"invalid value; expected {typ}")
        if typ is None or typ == _funcs.RV or _assignable(value, typ):
            return value
        if isinstance(value, Iface) and value.v is not None:
            value = value.v
            if _assignable(value, typ):
                return value
        raise self.errorf(f"wrong type for value; expected {typ}; got {type_of(value)}")

    def eval_arg(self, dot: Any, typ: str | None, n: _node.Node) -> Any:
        self.node = n
        if isinstance(n, _node.DotNode):
            return self.validate_type(dot, typ)
        if isinstance(n, _node.NilNode):
            if typ is not None and _can_be_nil(typ):
                return _zero(typ)
            raise self.errorf(f"cannot assign nil to {typ}")
        if isinstance(n, _node.FieldNode):
            return self.validate_type(self.eval_field_node(dot, n, [n], _MISSING), typ)
        if isinstance(n, _node.VariableNode):
            return self.validate_type(self.eval_variable_node(dot, n, None, _MISSING), typ)
        if isinstance(n, _node.PipeNode):
            return self.validate_type(self.eval_pipeline(dot, n), typ)
        if isinstance(n, _node.IdentifierNode):
            return self.validate_type(self.eval_function(dot, n, n, None, _MISSING), typ)
        if isinstance(n, _node.ChainNode):
            return self.validate_type(self.eval_chain_node(dot, n, None, _MISSING), typ)
        if typ is None:
            raise self.errorf(f"can't handle {n} for arg of type <nil>")
        if typ == "bool":
            if isinstance(n, _node.BoolNode):
                return n.true
            raise self.errorf(f"expected bool; found {n}")
        if typ in ("complex64", "complex128"):
            if isinstance(n, _node.NumberNode) and n.is_complex:
                return n.complex128
            raise self.errorf(f"expected complex; found {n}")
        if typ in _FLOAT_TYPES:
            if isinstance(n, _node.NumberNode) and n.is_float:
                return n.float64
            raise self.errorf(f"expected float; found {n}")
        if typ in _INT_TYPES:
            if isinstance(n, _node.NumberNode) and n.is_int:
                return values.GoInt(n.int64) if typ == "int" else n.int64
            raise self.errorf(f"expected integer; found {n}")
        if typ in (gofunc.ANY, _funcs.RV):
            return self.eval_empty_interface(dot, n)
        if typ == "string":
            if isinstance(n, _node.StringNode):
                return n.value
            raise self.errorf(f"expected string; found {n}")
        if typ in _UINT_TYPES:
            if isinstance(n, _node.NumberNode) and n.is_uint:
                return values.Uint8(n.uint64) if typ == "uint8" else n.uint64
            raise self.errorf(f"expected unsigned integer; found {n}")
        raise self.errorf(f"can't handle {n} for arg of type {typ}")

    def eval_empty_interface(self, dot: Any, n: _node.Node) -> Any:
        self.node = n
        if isinstance(n, _node.BoolNode):
            return n.true
        if isinstance(n, _node.NumberNode):
            return self.ideal_constant(n)
        if isinstance(n, _node.StringNode):
            return n.value
        raise self.errorf(f"can't handle assignment of {n} to empty interface argument")

    # Printing.

    def print_value(self, n: _node.Node, v: Any) -> None:
        self.node = n
        if v is INVALID:
            self.write("<no value>")
        elif isinstance(v, TypedNil):
            self.write(v.text())
        else:
            self.write(fmt.sprint(v))


def _is_hex_int(s: str) -> bool:
    return len(s) > 2 and s[0] == "0" and s[1] in "xX" and not any(c in s for c in "pP")


def _plain(v: Any) -> Any:
    """An argument as a function receives it: the value inside an interface, None for any nil."""
    if isinstance(v, Iface):
        return v.v
    if isinstance(v, TypedNil) and v.go_type.startswith("[]"):
        return values.GoSlice(elem=v.go_type[2:], nil=True)
    if v is INVALID or isinstance(v, TypedNil):
        return None
    return v


def _param_types(fn: gofunc.Func, n: int) -> list[str]:
    """The declared type of each of ``n`` arguments (the last parameter repeats when variadic)."""
    params = list(fn.params)
    if fn.variadic:
        return params[:-1] + [params[-1]] * (n - len(params) + 1)
    return params


def _value_string(v: Any) -> str:
    """Go's ``reflect.Value.String()``: a string's text, ``<T Value>`` for anything else."""
    if isinstance(v, str):
        return v
    if v is INVALID:
        return "<invalid Value>"
    return f"<{type_of(v)} Value>"


def _result(returns: str, result: Any) -> Any:
    """A function's result as the executor holds it: in an interface when it returns ``interface {}``."""
    if returns == _funcs.RV:
        return result
    if returns == gofunc.ANY:
        return NIL_IFACE if result is None else Iface(result)
    if returns == "int" and isinstance(result, int) and not isinstance(result, (bool, values.GoInt)):
        return values.GoInt(result)
    if result is None:
        return TypedNil(returns) if _can_be_nil(returns) else NIL_IFACE
    return result


def execute(tmpl: Template, data: Any, limits: ExecLimits) -> str:
    """Run ``tmpl`` on ``data`` (Go's ``Template.Execute``); the text it writes."""
    value = INVALID if data is None else data
    outer = _BUDGET.get(None)
    budget = outer if outer is not None else _Budget(limits)
    run = _Run([], budget)
    state = _State(tmpl, run, [["$", value]], 0)
    if tmpl.tree is None or tmpl.tree.root is None:
        raise state.errorf(f"{strconv.quote(tmpl.name)} is an incomplete or empty template")
    token = _BUDGET.set(budget)
    try:
        state.walk(value, tmpl.tree.root)
    finally:
        _BUDGET.reset(token)
    return "".join(run.out)
