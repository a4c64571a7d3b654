"""The parser of Go's ``text/template`` (``text/template/parse/parse.go``): items into trees.

:func:`parse` returns every tree a text defines (the top-level one and each
``{{define}}``/``{{block}}``), as Go's ``parse.Parse`` does. The grammar, the
three-token lookahead and every error text are Go's; an error is one
:class:`ParseError` whose text is ``template: NAME:LINE: ...`` with the line
of the last token read.

Bounds: parenthesised pipelines nest at most :data:`MAX_PAREN_DEPTH` deep (Go's
``maxStackDepth``, error ``max expression depth exceeded``). Control
structures Go leaves unbounded (its goroutine stacks grow); Python's do not,
so ``if``/``range``/``with``/``block`` nest at most
:data:`MAX_CONTROL_DEPTH` deep, with the same message (docs/compatibility.md).
"""

from __future__ import annotations

from collections.abc import Callable

from crossfn import errors
from crossfn.gocompat import strconv
from crossfn.gocompat.template import _lex, _node, _numbers
from crossfn.gocompat.template._lex import ItemType

__all__ = ["MAX_CONTROL_DEPTH", "MAX_PAREN_DEPTH", "ParseError", "parse"]

MAX_PAREN_DEPTH = 10000
"""Go's ``maxStackDepth``: nested parenthesised pipelines."""

MAX_CONTROL_DEPTH = 10000
"""Nested control structures; Go has no limit (see the module docstring)."""


class ParseError(errors.GoError):
    """A template that does not parse; the text is Go's (``template: NAME:LINE: ...``)."""


class _Parser:
    def __init__(
        self,
        tree: _node.Tree,
        lexer: _lex.Lexer,
        tree_set: dict[str, _node.Tree],
        has_function: Callable[[str], bool],
        *,
        else_with: bool,
        check_funcs: bool,
    ) -> None:
        self.tree = tree
        self.lex = lexer
        self.tree_set = tree_set
        self.has_function = has_function
        self.else_with = else_with
        self.check_funcs = check_funcs
        self.token: list[_lex.Item] = [_lex.Item(ItemType.EOF, 0, "", 1)] * 3
        self.peek_count = 0
        self.vars = ["$"]
        self.action_line = 0
        self.range_depth = 0
        self.stack_depth = 0
        self.control_depth = 0

    def sub(self, name: str) -> _Parser:
        """A parser for a ``define``/``block`` body, sharing this one's lexer and tree set."""
        tree = _node.Tree(name, self.tree.parse_name, self.tree.text)
        p = _Parser(
            tree,
            self.lex,
            self.tree_set,
            self.has_function,
            else_with=self.else_with,
            check_funcs=self.check_funcs,
        )
        p.control_depth = self.control_depth
        return p

    # Tokens.

    def next(self) -> _lex.Item:
        if self.peek_count > 0:
            self.peek_count -= 1
        else:
            self.token[0] = self.lex.next_item()
        return self.token[self.peek_count]

    def backup(self) -> None:
        self.peek_count += 1

    def backup2(self, t1: _lex.Item) -> None:
        self.token[1] = t1
        self.peek_count = 2

    def backup3(self, t2: _lex.Item, t1: _lex.Item) -> None:
        self.token[1] = t1
        self.token[2] = t2
        self.peek_count = 3

    def peek(self) -> _lex.Item:
        if self.peek_count > 0:
            return self.token[self.peek_count - 1]
        self.peek_count = 1
        self.token[0] = self.lex.next_item()
        return self.token[0]

    def next_non_space(self) -> _lex.Item:
        while True:
            token = self.next()
            if token.typ != ItemType.SPACE:
                return token

    def peek_non_space(self) -> _lex.Item:
        token = self.next_non_space()
        self.backup()
        return token

    # Errors.

    def errorf(self, message: str) -> ParseError:
        """The error to raise: Go's ``errorf`` prefixes the top-level name and the last token's line."""
        self.tree.root = None
        return ParseError(f"template: {self.tree.parse_name}:{self.token[0].line}: {message}")

    def expect(self, expected: ItemType, context: str) -> _lex.Item:
        token = self.next_non_space()
        if token.typ != expected:
            raise self.unexpected(token, context)
        return token

    def expect_one_of(self, e1: ItemType, e2: ItemType, context: str) -> _lex.Item:
        token = self.next_non_space()
        if token.typ not in (e1, e2):
            raise self.unexpected(token, context)
        return token

    def unexpected(self, token: _lex.Item, context: str) -> ParseError:
        if token.typ == ItemType.ERROR:
            extra = ""
            if self.action_line not in (0, token.line):
                extra = f" in action started at {self.tree.parse_name}:{self.action_line}"
                if token.val.endswith(" action"):
                    extra = extra[len(" in action") :]  # avoid "action in action"
            return self.errorf(f"{token}{extra}")
        return self.errorf(f"unexpected {token} in {context}")

    # Structure.

    def parse(self) -> None:
        """The top level: text, actions and ``{{define}}``, to EOF."""
        self.tree.root = _node.ListNode(self.tree, self.peek().pos)
        while self.peek().typ != ItemType.EOF:
            if self.peek().typ == ItemType.LEFT_DELIM:
                delim = self.next()
                if self.next_non_space().typ == ItemType.DEFINE:
                    self.sub("definition").parse_definition()
                    continue
                self.backup2(delim)
            n = self.text_or_action()
            if isinstance(n, (_node.EndNode, _node.ElseNode)):
                raise self.errorf(f"unexpected {n}")
            self.tree.root.nodes.append(n)

    def add(self) -> None:
        """Install this tree in the set, unless a non-empty tree of that name is there."""
        existing = self.tree_set.get(self.tree.name)
        if existing is None or _node.is_empty_tree(existing.root):
            self.tree_set[self.tree.name] = self.tree
            return
        if not _node.is_empty_tree(self.tree.root):
            raise self.errorf(f"template: multiple definition of template {strconv.quote(self.tree.name)}")

    def parse_definition(self) -> None:
        context = "define clause"
        name = self.expect_one_of(ItemType.STRING, ItemType.RAW_STRING, context)
        self.tree.name = self.unquote(name.val)
        self.expect(ItemType.RIGHT_DELIM, context)
        self.tree.root, end = self.item_list()
        if not isinstance(end, _node.EndNode):
            raise self.errorf(f"unexpected {end} in {context}")
        self.add()

    def item_list(self) -> tuple[_node.ListNode, _node.Node]:
        """``textOrAction*`` up to ``{{end}}`` or ``{{else}}``, returned separately."""
        lst = _node.ListNode(self.tree, self.peek_non_space().pos)
        while self.peek_non_space().typ != ItemType.EOF:
            n = self.text_or_action()
            if isinstance(n, (_node.EndNode, _node.ElseNode)):
                return lst, n
            lst.nodes.append(n)
        raise self.errorf("unexpected EOF")

    def text_or_action(self) -> _node.Node:
        token = self.next_non_space()
        if token.typ == ItemType.TEXT:
            return _node.TextNode(self.tree, token.pos, token.val)
        if token.typ == ItemType.LEFT_DELIM:
            self.action_line = token.line
            try:
                return self.action()
            finally:
                self.action_line = 0
        if token.typ == ItemType.COMMENT:
            return _node.CommentNode(self.tree, token.pos, token.val)
        raise self.unexpected(token, "input")

    def action(self) -> _node.Node:
        token = self.next_non_space()
        typ = token.typ
        if typ == ItemType.BLOCK:
            return self.block_control()
        if typ == ItemType.BREAK:
            return self.break_control(token.pos, token.line, "break")
        if typ == ItemType.CONTINUE:
            return self.break_control(token.pos, token.line, "continue")
        if typ == ItemType.ELSE:
            return self.else_control()
        if typ == ItemType.END:
            return _node.EndNode(self.tree, self.expect(ItemType.RIGHT_DELIM, "end").pos)
        if typ in (ItemType.IF, ItemType.RANGE, ItemType.WITH):
            return self.control(typ)
        if typ == ItemType.TEMPLATE:
            return self.template_control()
        self.backup()
        token = self.peek()
        return _node.ActionNode(
            self.tree, token.pos, token.line, self.pipeline("command", ItemType.RIGHT_DELIM)
        )

    def break_control(self, pos: int, line: int, word: str) -> _node.Node:
        token = self.next_non_space()
        if token.typ != ItemType.RIGHT_DELIM:
            raise self.unexpected(token, "{{" + word + "}}")
        if self.range_depth == 0:
            raise self.errorf("{{" + word + "}} outside {{range}}")
        if word == "break":
            return _node.BreakNode(self.tree, pos, line)
        return _node.ContinueNode(self.tree, pos, line)

    def pipeline(self, context: str, end: ItemType) -> _node.PipeNode:
        token = self.peek_non_space()
        pipe = _node.PipeNode(self.tree, token.pos, token.line)
        while True:  # Go's "decls:" label: a range may declare two variables
            v = self.peek_non_space()
            if v.typ != ItemType.VARIABLE:
                break
            self.next()
            # Three-token lookahead: in "$x foo" the token after the space tells a use from a declaration.
            token_after_variable = self.peek()
            nxt = self.peek_non_space()
            if nxt.typ in (ItemType.ASSIGN, ItemType.DECLARE):
                pipe.is_assign = nxt.typ == ItemType.ASSIGN
                self.next_non_space()
                pipe.decl.append(_node.VariableNode(self.tree, v.pos, v.val))
                self.vars.append(v.val)
                break
            if nxt.typ == ItemType.CHAR and nxt.val == ",":
                self.next_non_space()
                pipe.decl.append(_node.VariableNode(self.tree, v.pos, v.val))
                self.vars.append(v.val)
                if context == "range" and len(pipe.decl) < 2:
                    if self.peek_non_space().typ in (
                        ItemType.VARIABLE,
                        ItemType.RIGHT_DELIM,
                        ItemType.RIGHT_PAREN,
                    ):
                        continue  # the second variable of a range
                    raise self.errorf("range can only initialize variables")
                raise self.errorf(f"too many declarations in {context}")
            if token_after_variable.typ == ItemType.SPACE:
                self.backup3(v, token_after_variable)
            else:
                self.backup2(v)
            break
        while True:
            token = self.next_non_space()
            if token.typ == end:
                self.check_pipeline(pipe, context)
                return pipe
            if token.typ in _OPERAND_STARTS:
                self.backup()
                pipe.cmds.append(self.command())
                continue
            raise self.unexpected(token, context)

    def check_pipeline(self, pipe: _node.PipeNode, context: str) -> None:
        if not pipe.cmds:
            raise self.errorf(f"missing value for {context}")
        for i, c in enumerate(pipe.cmds[1:]):
            if isinstance(c.args[0], _NON_EXECUTABLE):
                raise self.errorf(f"non executable command in pipeline stage {i + 2}")

    def control(self, typ: ItemType) -> _node.Node:
        """``if``, ``range`` and ``with``: Go's ``parseControl`` and the node it builds."""
        context = {ItemType.IF: "if", ItemType.RANGE: "range", ItemType.WITH: "with"}[typ]
        if self.control_depth >= MAX_CONTROL_DEPTH:
            raise self.errorf("max expression depth exceeded")
        self.control_depth += 1
        mark = len(self.vars)
        try:
            pipe = self.pipeline(context, ItemType.RIGHT_DELIM)
            if context == "range":
                self.range_depth += 1
            lst, nxt = self.item_list()
            if context == "range":
                self.range_depth -= 1
            else_list = None
            if isinstance(nxt, _node.ElseNode):
                else_list = self.else_branch(context, nxt)
        finally:
            del self.vars[mark:]
            self.control_depth -= 1
        cls = {"if": _node.IfNode, "range": _node.RangeNode, "with": _node.WithNode}[context]
        return cls(self.tree, pipe.pos, pipe.line, pipe, lst, else_list)

    def else_branch(self, context: str, else_node: _node.Node) -> _node.ListNode:
        """After ``{{else}}``: ``{{else if}}`` (and, from Go 1.23, ``{{else with}}``) nest a new control."""
        chained = {"if": ItemType.IF, "with": ItemType.WITH}.get(context)
        if chained is not None and self.peek().typ == chained:
            self.next()
            else_list = _node.ListNode(self.tree, else_node.pos)
            else_list.nodes.append(self.control(chained))
            return else_list
        else_list, nxt = self.item_list()
        if not isinstance(nxt, _node.EndNode):
            raise self.errorf(f"expected end; found {nxt}")
        return else_list

    def else_control(self) -> _node.Node:
        peek = self.peek_non_space()
        if peek.typ == ItemType.IF or (self.else_with and peek.typ == ItemType.WITH):
            # "{{else if ..." is "{{else}}{{if ...": leave the keyword for the enclosing control.
            return _node.ElseNode(self.tree, peek.pos, peek.line)
        token = self.expect(ItemType.RIGHT_DELIM, "else")
        return _node.ElseNode(self.tree, token.pos, token.line)

    def block_control(self) -> _node.Node:
        context = "block clause"
        token = self.next_non_space()
        name = self.template_name(token, context)
        pipe = self.pipeline(context, ItemType.RIGHT_DELIM)
        block = self.sub(name)
        if block.control_depth >= MAX_CONTROL_DEPTH:
            raise self.errorf("max expression depth exceeded")
        block.control_depth += 1
        block.tree.root, end = block.item_list()
        if not isinstance(end, _node.EndNode):
            raise self.errorf(f"unexpected {end} in {context}")
        block.add()
        return _node.TemplateNode(self.tree, token.pos, token.line, name, pipe)

    def template_control(self) -> _node.Node:
        context = "template clause"
        token = self.next_non_space()
        name = self.template_name(token, context)
        pipe = None
        if self.next_non_space().typ != ItemType.RIGHT_DELIM:
            self.backup()
            pipe = self.pipeline(context, ItemType.RIGHT_DELIM)
        return _node.TemplateNode(self.tree, token.pos, token.line, name, pipe)

    def template_name(self, token: _lex.Item, context: str) -> str:
        if token.typ in (ItemType.STRING, ItemType.RAW_STRING):
            return self.unquote(token.val)
        raise self.unexpected(token, context)

    # Commands and operands.

    def command(self) -> _node.CommandNode:
        cmd = _node.CommandNode(self.tree, self.peek_non_space().pos)
        while True:
            self.peek_non_space()  # skip leading spaces
            operand = self.operand()
            if operand is not None:
                cmd.args.append(operand)
            token = self.next()
            if token.typ == ItemType.SPACE:
                continue
            if token.typ in (ItemType.RIGHT_DELIM, ItemType.RIGHT_PAREN):
                self.backup()
            elif token.typ != ItemType.PIPE:
                raise self.unexpected(token, "operand")
            break
        if not cmd.args:
            raise self.errorf("empty command")
        return cmd

    def operand(self) -> _node.Node | None:
        node = self.term()
        if node is None:
            return None
        if self.peek().typ == ItemType.FIELD:
            chain = _node.ChainNode(self.tree, self.peek().pos, node)
            while self.peek().typ == ItemType.FIELD:
                chain.add(self.next().val)
            # Fields after a field or variable lengthen it; literals take none.
            if isinstance(node, _node.FieldNode):
                return _node.FieldNode(self.tree, chain.pos, str(chain))
            if isinstance(node, _node.VariableNode):
                return _node.VariableNode(self.tree, chain.pos, str(chain))
            if isinstance(
                node, (_node.BoolNode, _node.StringNode, _node.NumberNode, _node.NilNode, _node.DotNode)
            ):
                raise self.errorf(f"unexpected . after term {strconv.quote(str(node))}")
            return chain
        return node

    def term(self) -> _node.Node | None:
        token = self.next_non_space()
        typ = token.typ
        if typ == ItemType.IDENTIFIER:
            if self.check_funcs and not self.has_function(token.val):
                raise self.errorf(f"function {strconv.quote(token.val)} not defined")
            return _node.IdentifierNode(self.tree, token.pos, token.val)
        if typ == ItemType.DOT:
            return _node.DotNode(self.tree, token.pos)
        if typ == ItemType.NIL:
            return _node.NilNode(self.tree, token.pos)
        if typ == ItemType.VARIABLE:
            return self.use_var(token.pos, token.val)
        if typ == ItemType.FIELD:
            return _node.FieldNode(self.tree, token.pos, token.val)
        if typ == ItemType.BOOL:
            return _node.BoolNode(self.tree, token.pos, token.val == "true")
        if typ in (ItemType.CHAR_CONSTANT, ItemType.COMPLEX, ItemType.NUMBER):
            try:
                return _numbers.new_number(self.tree, token.pos, token.val, typ)
            except errors.GoError as exc:
                raise self.errorf(str(exc)) from None
        if typ == ItemType.LEFT_PAREN:
            if self.stack_depth >= MAX_PAREN_DEPTH:
                raise self.errorf("max expression depth exceeded")
            self.stack_depth += 1
            try:
                return self.pipeline("parenthesized pipeline", ItemType.RIGHT_PAREN)
            finally:
                self.stack_depth -= 1
        if typ in (ItemType.STRING, ItemType.RAW_STRING):
            return _node.StringNode(self.tree, token.pos, token.val, self.unquote(token.val))
        self.backup()
        return None

    def use_var(self, pos: int, name: str) -> _node.Node:
        v = _node.VariableNode(self.tree, pos, name)
        if v.ident[0] in self.vars:
            return v
        raise self.errorf(f"undefined variable {strconv.quote(v.ident[0])}")

    def unquote(self, text: str) -> str:
        try:
            return strconv.unquote(text)
        except errors.GoError as exc:
            raise self.errorf(str(exc)) from None


_OPERAND_STARTS = frozenset(
    {
        ItemType.BOOL,
        ItemType.CHAR_CONSTANT,
        ItemType.COMPLEX,
        ItemType.DOT,
        ItemType.FIELD,
        ItemType.IDENTIFIER,
        ItemType.NUMBER,
        ItemType.NIL,
        ItemType.RAW_STRING,
        ItemType.STRING,
        ItemType.VARIABLE,
        ItemType.LEFT_PAREN,
    }
)
_NON_EXECUTABLE = (_node.BoolNode, _node.DotNode, _node.NilNode, _node.NumberNode, _node.StringNode)


def parse(
    name: str,
    text: str,
    *,
    left: str = "",
    right: str = "",
    has_function: Callable[[str], bool],
    else_with: bool = True,
    parse_comments: bool = False,
    check_funcs: bool = True,
) -> dict[str, _node.Tree]:
    """Every tree ``text`` defines, the top-level one under ``name`` (Go's ``parse.Parse``).

    ``has_function`` says whether a name is a function (builtin or added);
    ``else_with`` is Go 1.23's ``{{else with}}``. Raises :class:`ParseError`.
    """
    tree_set: dict[str, _node.Tree] = {}
    tree = _node.Tree(name, name, text)
    lexer = _lex.Lexer(
        text,
        left,
        right,
        emit_comment=parse_comments,
        break_ok=not has_function("break"),
        continue_ok=not has_function("continue"),
    )
    p = _Parser(tree, lexer, tree_set, has_function, else_with=else_with, check_funcs=check_funcs)
    try:
        p.parse()
        p.add()
    except RecursionError:
        raise ParseError(f"template: {name}:{p.token[0].line}: max expression depth exceeded") from None
    return tree_set
