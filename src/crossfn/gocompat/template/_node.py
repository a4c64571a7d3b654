"""The parse tree of Go's ``text/template`` (``text/template/parse/node.go``).

Every node knows its position (an index into the text it was parsed from) and
its :class:`Tree`, so an execution error can say where it happened
(:func:`error_context`). ``str(node)`` is Go's ``Node.String()``: the text Go
prints as an error's context (``<.foo.bar>``) and what parsing it again gives
back, so the tree round-trips through its own text.
"""

from __future__ import annotations

import abc
import dataclasses
from typing import Any

from crossfn.gocompat import strconv

__all__ = [
    "ActionNode",
    "BoolNode",
    "BranchNode",
    "BreakNode",
    "ChainNode",
    "CommandNode",
    "CommentNode",
    "ContinueNode",
    "DotNode",
    "ElseNode",
    "EndNode",
    "FieldNode",
    "IdentifierNode",
    "IfNode",
    "ListNode",
    "NilNode",
    "Node",
    "NumberNode",
    "PipeNode",
    "RangeNode",
    "StringNode",
    "TemplateNode",
    "TextNode",
    "Tree",
    "VariableNode",
    "WithNode",
    "error_context",
    "is_empty_tree",
]


@dataclasses.dataclass(eq=False)
class Tree:
    """One parsed template: its name, the top-level template's name (``parse_name``, what errors
    print), its root list and the full text it was parsed from."""

    name: str
    parse_name: str
    text: str
    root: ListNode | None = None


class Node(abc.ABC):
    """A node of the tree: ``pos`` indexes the text, ``tree`` is the tree it was parsed into."""

    __slots__ = ("pos", "tree")

    def __init__(self, tree: Tree, pos: int) -> None:
        self.tree = tree
        self.pos = pos

    @abc.abstractmethod
    def write(self, out: list[str], quote_text: bool) -> None:
        """Append the node's source text as Go's ``String`` methods write it."""

    def __str__(self) -> str:
        out: list[str] = []
        self.write(out, False)
        return "".join(out)

    def text(self, *, quote_text: bool = False) -> str:
        """Go's ``String()``; ``quote_text`` prints text nodes with ``%q`` as Go's parse tests do."""
        out: list[str] = []
        self.write(out, quote_text)
        return "".join(out)


class ListNode(Node):
    __slots__ = ("nodes",)

    def __init__(self, tree: Tree, pos: int) -> None:
        super().__init__(tree, pos)
        self.nodes: list[Node] = []

    def write(self, out: list[str], quote_text: bool) -> None:
        for n in self.nodes:
            n.write(out, quote_text)


class TextNode(Node):
    __slots__ = ("text_value",)

    def __init__(self, tree: Tree, pos: int, text: str) -> None:
        super().__init__(tree, pos)
        self.text_value = text

    def write(self, out: list[str], quote_text: bool) -> None:
        out.append(strconv.quote(self.text_value) if quote_text else self.text_value)


class CommentNode(Node):
    __slots__ = ("comment",)

    def __init__(self, tree: Tree, pos: int, text: str) -> None:
        super().__init__(tree, pos)
        self.comment = text

    def write(self, out: list[str], quote_text: bool) -> None:
        out.append("{{" + self.comment + "}}")


class IdentifierNode(Node):
    __slots__ = ("ident",)

    def __init__(self, tree: Tree, pos: int, ident: str) -> None:
        super().__init__(tree, pos)
        self.ident = ident

    def write(self, out: list[str], quote_text: bool) -> None:
        out.append(self.ident)


class VariableNode(Node):
    """``$x.Field...``: ``ident[0]`` is the variable (with its ``$``), the rest are fields."""

    __slots__ = ("ident",)

    def __init__(self, tree: Tree, pos: int, ident: str) -> None:
        super().__init__(tree, pos)
        self.ident = ident.split(".")

    def write(self, out: list[str], quote_text: bool) -> None:
        out.append(".".join(self.ident))


class DotNode(Node):
    __slots__ = ()

    def write(self, out: list[str], quote_text: bool) -> None:
        out.append(".")


class NilNode(Node):
    __slots__ = ()

    def write(self, out: list[str], quote_text: bool) -> None:
        out.append("nil")


class FieldNode(Node):
    """``.A.B``: the identifiers without their dots."""

    __slots__ = ("ident",)

    def __init__(self, tree: Tree, pos: int, ident: str) -> None:
        super().__init__(tree, pos)
        self.ident = ident[1:].split(".")

    def write(self, out: list[str], quote_text: bool) -> None:
        for f in self.ident:
            out.append("." + f)


class ChainNode(Node):
    """A term followed by fields: ``(pipeline).A.B``, ``fn.A``."""

    __slots__ = ("field", "node")

    def __init__(self, tree: Tree, pos: int, node: Node) -> None:
        super().__init__(tree, pos)
        self.node = node
        self.field: list[str] = []

    def add(self, field: str) -> None:
        self.field.append(field[1:])

    def write(self, out: list[str], quote_text: bool) -> None:
        if isinstance(self.node, PipeNode):
            out.append("(")
            self.node.write(out, quote_text)
            out.append(")")
        else:
            self.node.write(out, quote_text)
        for f in self.field:
            out.append("." + f)


class BoolNode(Node):
    __slots__ = ("true",)

    def __init__(self, tree: Tree, pos: int, true: bool) -> None:
        super().__init__(tree, pos)
        self.true = true

    def write(self, out: list[str], quote_text: bool) -> None:
        out.append("true" if self.true else "false")


class NumberNode(Node):
    """A numeric constant, parsed under every type that can hold it (Go's ideal constants)."""

    __slots__ = (
        "complex128",
        "float64",
        "int64",
        "is_complex",
        "is_float",
        "is_int",
        "is_uint",
        "number_text",
        "uint64",
    )

    def __init__(self, tree: Tree, pos: int, text: str) -> None:
        super().__init__(tree, pos)
        self.number_text = text
        self.is_int = self.is_uint = self.is_float = self.is_complex = False
        self.int64 = 0
        self.uint64 = 0
        self.float64 = 0.0
        self.complex128 = 0j

    def write(self, out: list[str], quote_text: bool) -> None:
        out.append(self.number_text)


class StringNode(Node):
    __slots__ = ("quoted", "value")

    def __init__(self, tree: Tree, pos: int, quoted: str, value: str) -> None:
        super().__init__(tree, pos)
        self.quoted = quoted
        self.value = value

    def write(self, out: list[str], quote_text: bool) -> None:
        out.append(self.quoted)


class CommandNode(Node):
    __slots__ = ("args",)

    def __init__(self, tree: Tree, pos: int) -> None:
        super().__init__(tree, pos)
        self.args: list[Node] = []

    def write(self, out: list[str], quote_text: bool) -> None:
        for i, arg in enumerate(self.args):
            if i:
                out.append(" ")
            if isinstance(arg, PipeNode):
                out.append("(")
                arg.write(out, quote_text)
                out.append(")")
                continue
            arg.write(out, quote_text)


class PipeNode(Node):
    """A pipeline with its declared (or, with ``is_assign``, assigned) variables."""

    __slots__ = ("cmds", "decl", "is_assign", "line")

    def __init__(self, tree: Tree, pos: int, line: int) -> None:
        super().__init__(tree, pos)
        self.line = line
        self.is_assign = False
        self.decl: list[VariableNode] = []
        self.cmds: list[CommandNode] = []

    def write(self, out: list[str], quote_text: bool) -> None:
        if self.decl:
            for i, v in enumerate(self.decl):
                if i:
                    out.append(", ")
                v.write(out, quote_text)
            out.append(" = " if self.is_assign else " := ")
        for i, c in enumerate(self.cmds):
            if i:
                out.append(" | ")
            c.write(out, quote_text)


class ActionNode(Node):
    __slots__ = ("line", "pipe")

    def __init__(self, tree: Tree, pos: int, line: int, pipe: PipeNode) -> None:
        super().__init__(tree, pos)
        self.line = line
        self.pipe = pipe

    def write(self, out: list[str], quote_text: bool) -> None:
        out.append("{{")
        self.pipe.write(out, quote_text)
        out.append("}}")


class BranchNode(Node):
    """``if``, ``range`` and ``with``: a pipeline, a list and an optional else list."""

    __slots__ = ("else_list", "line", "list", "pipe")
    keyword = ""

    def __init__(  # noqa: PLR0917 -- Go's newIf/newRange/newWith take these six
        self, tree: Tree, pos: int, line: int, pipe: PipeNode, lst: ListNode, else_list: ListNode | None
    ) -> None:
        super().__init__(tree, pos)
        self.line = line
        self.pipe = pipe
        self.list = lst
        self.else_list = else_list

    def write(self, out: list[str], quote_text: bool) -> None:
        out.append("{{" + self.keyword + " ")
        self.pipe.write(out, quote_text)
        out.append("}}")
        self.list.write(out, quote_text)
        if self.else_list is not None:
            out.append("{{else}}")
            self.else_list.write(out, quote_text)
        out.append("{{end}}")


class IfNode(BranchNode):
    __slots__ = ()
    keyword = "if"


class RangeNode(BranchNode):
    __slots__ = ()
    keyword = "range"


class WithNode(BranchNode):
    __slots__ = ()
    keyword = "with"


class BreakNode(Node):
    __slots__ = ("line",)

    def __init__(self, tree: Tree, pos: int, line: int) -> None:
        super().__init__(tree, pos)
        self.line = line

    def write(self, out: list[str], quote_text: bool) -> None:
        out.append("{{break}}")


class ContinueNode(Node):
    __slots__ = ("line",)

    def __init__(self, tree: Tree, pos: int, line: int) -> None:
        super().__init__(tree, pos)
        self.line = line

    def write(self, out: list[str], quote_text: bool) -> None:
        out.append("{{continue}}")


class TemplateNode(Node):
    __slots__ = ("line", "name", "pipe")

    def __init__(self, tree: Tree, pos: int, line: int, name: str, pipe: PipeNode | None) -> None:
        super().__init__(tree, pos)
        self.line = line
        self.name = name
        self.pipe = pipe

    def write(self, out: list[str], quote_text: bool) -> None:
        out.append("{{template " + strconv.quote(self.name))
        if self.pipe is not None:
            out.append(" ")
            self.pipe.write(out, quote_text)
        out.append("}}")


class EndNode(Node):
    """``{{end}}``: ends a list; never left in a tree."""

    __slots__ = ()

    def write(self, out: list[str], quote_text: bool) -> None:
        out.append("{{end}}")


class ElseNode(Node):
    """``{{else}}``: ends a list; never left in a tree."""

    __slots__ = ("line",)

    def __init__(self, tree: Tree, pos: int, line: int) -> None:
        super().__init__(tree, pos)
        self.line = line

    def write(self, out: list[str], quote_text: bool) -> None:
        out.append("{{else}}")


_GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
"""Go's ``unicode.IsSpace`` runes, what ``bytes.TrimSpace`` trims."""


def is_empty_tree(n: Any) -> bool:
    """Go's ``IsEmptyTree``: nothing but space and comments (a definition may then be replaced)."""
    if n is None or isinstance(n, CommentNode):
        return True
    if isinstance(n, ListNode):
        return all(is_empty_tree(x) for x in n.nodes)
    if isinstance(n, TextNode):
        return not n.text_value.strip(_GO_SPACE)
    return False


def error_context(n: Node) -> tuple[str, str]:
    """Go's ``Tree.ErrorContext``: ``NAME:LINE:COL`` (the column in bytes) and the node's text."""
    text = n.tree.text[: n.pos]
    newline = text.rfind("\n")
    line_start = 0 if newline < 0 else newline + 1
    col = len(text[line_start:].encode("utf-8", "surrogateescape"))
    if newline < 0:
        col = len(text.encode("utf-8", "surrogateescape"))
    line = 1 + text.count("\n")
    return f"{n.tree.parse_name}:{line}:{col}", str(n)
