"""The lexer of Go's ``text/template`` (``text/template/parse/lex.go``): text and actions into items.

The parser pulls one item at a time (:meth:`Lexer.next_item`); each call runs
state functions until one emits, as Go's does. Positions are indexes into the
template's text (the parser turns them into Go's byte columns for messages),
and every item carries the line it starts on, which is what parse errors
print. Trim markers (``{{- `` and `` -}}``) are handled here and never reach
the parser; comments are dropped unless the parser asks for them.

An error ends the scan: the error item is the last one, its value Go's text
(``unclosed action``, ``bad character U+0023 '#'``...).
"""

from __future__ import annotations

import dataclasses
import enum
import unicodedata
from collections.abc import Callable

from crossfn.gocompat import strconv

__all__ = ["EOF_RUNE", "Item", "ItemType", "Lexer"]


class ItemType(enum.IntEnum):
    """Go's ``itemType``, in Go's order: everything after ``KEYWORD`` is a keyword."""

    ERROR = 0
    BOOL = enum.auto()
    CHAR = enum.auto()
    CHAR_CONSTANT = enum.auto()
    COMMENT = enum.auto()
    COMPLEX = enum.auto()
    ASSIGN = enum.auto()
    DECLARE = enum.auto()
    EOF = enum.auto()
    FIELD = enum.auto()
    IDENTIFIER = enum.auto()
    LEFT_DELIM = enum.auto()
    LEFT_PAREN = enum.auto()
    NUMBER = enum.auto()
    PIPE = enum.auto()
    RAW_STRING = enum.auto()
    RIGHT_DELIM = enum.auto()
    RIGHT_PAREN = enum.auto()
    SPACE = enum.auto()
    STRING = enum.auto()
    TEXT = enum.auto()
    VARIABLE = enum.auto()
    KEYWORD = enum.auto()
    BLOCK = enum.auto()
    BREAK = enum.auto()
    CONTINUE = enum.auto()
    DOT = enum.auto()
    DEFINE = enum.auto()
    ELSE = enum.auto()
    END = enum.auto()
    IF = enum.auto()
    NIL = enum.auto()
    RANGE = enum.auto()
    TEMPLATE = enum.auto()
    WITH = enum.auto()


_KEYWORDS = {
    ".": ItemType.DOT,
    "block": ItemType.BLOCK,
    "break": ItemType.BREAK,
    "continue": ItemType.CONTINUE,
    "define": ItemType.DEFINE,
    "else": ItemType.ELSE,
    "end": ItemType.END,
    "if": ItemType.IF,
    "range": ItemType.RANGE,
    "nil": ItemType.NIL,
    "template": ItemType.TEMPLATE,
    "with": ItemType.WITH,
}

EOF_RUNE = ""
"""What :meth:`Lexer._next` returns at the end of the input (Go's ``eof``)."""

_SPACE_CHARS = " \t\r\n"
_LEFT_COMMENT = "/*"
_RIGHT_COMMENT = "*/"
_TRIM_MARKER_LEN = 2  # the marker plus the space before or after it


@dataclasses.dataclass(frozen=True, slots=True)
class Item:
    """One token: its type, where it starts (an index into the text), its text, and its line."""

    typ: ItemType
    pos: int
    val: str
    line: int

    def __str__(self) -> str:
        """Go's ``item.String``, as parse errors quote it: ``EOF``, ``<with>``, ``"x"``, ``"long strin"...``."""
        if self.typ == ItemType.EOF:
            return "EOF"
        if self.typ == ItemType.ERROR:
            return self.val
        if self.typ > ItemType.KEYWORD:
            return f"<{self.val}>"
        if len(self.val.encode("utf-8", "surrogateescape")) > 10:
            return strconv.quote(self.val[:10]) + "..."
        return strconv.quote(self.val)


def _is_space(r: str) -> bool:
    return r in (" ", "\t", "\r", "\n") and r != ""


def _is_alphanumeric(r: str) -> bool:
    """Go's ``isAlphaNumeric``: underscore, a Unicode letter or a decimal digit."""
    if r == "":
        return False
    if r == "_" or (r.isascii() and r.isalnum()):
        return True
    if r.isascii():
        return False
    category = unicodedata.category(r)
    return category[0] == "L" or category == "Nd"


def _has_left_trim_marker(s: str, i: int) -> bool:
    return len(s) - i >= 2 and s[i] == "-" and _is_space(s[i + 1])


def _has_right_trim_marker(s: str, i: int) -> bool:
    return len(s) - i >= 2 and _is_space(s[i]) and s[i + 1] == "-"


_State = Callable[["Lexer"], "_State | None"]


class Lexer:
    """Go's ``lexer``: scans ``text`` between ``left`` and ``right`` delimiters, one item per call.

    ``break_ok``/``continue_ok`` are false when a function of that name exists
    (the word is then an identifier); ``emit_comment`` keeps comments as items.
    """

    def __init__(
        self,
        text: str,
        left: str = "",
        right: str = "",
        *,
        emit_comment: bool = False,
        break_ok: bool = True,
        continue_ok: bool = True,
    ) -> None:
        self.input = text
        self.left = left or "{{"
        self.right = right or "}}"
        self.emit_comment = emit_comment
        self.break_ok = break_ok
        self.continue_ok = continue_ok
        self.pos = 0
        self.start = 0
        self.at_eof = False
        self.paren_depth = 0
        self.line = 1
        self.start_line = 1
        self.inside_action = False
        self.item = Item(ItemType.EOF, 0, "EOF", 1)

    # Go's lexer primitives.

    def _next(self) -> str:
        if self.pos >= len(self.input):
            self.at_eof = True
            return EOF_RUNE
        r = self.input[self.pos]
        self.pos += 1
        if r == "\n":
            self.line += 1
        return r

    def _peek(self) -> str:
        r = self._next()
        self._backup()
        return r

    def _backup(self) -> None:
        if not self.at_eof and self.pos > 0:
            self.pos -= 1
            if self.input[self.pos] == "\n":
                self.line -= 1

    def _this_item(self, typ: ItemType) -> Item:
        item = Item(typ, self.start, self.input[self.start : self.pos], self.start_line)
        self.start = self.pos
        self.start_line = self.line
        return item

    def _emit(self, typ: ItemType) -> None:
        self.item = self._this_item(typ)

    def _ignore(self) -> None:
        self.line += self.input.count("\n", self.start, self.pos)
        self.start = self.pos
        self.start_line = self.line

    def _accept(self, valid: str) -> bool:
        r = self._next()
        if r != EOF_RUNE and r in valid:
            return True
        self._backup()
        return False

    def _accept_run(self, valid: str) -> None:
        while True:
            r = self._next()
            if r == EOF_RUNE or r not in valid:
                break
        self._backup()

    def _errorf(self, message: str) -> None:
        self.item = Item(ItemType.ERROR, self.start, message, self.start_line)
        self.start = 0
        self.pos = 0
        self.input = ""

    def next_item(self) -> Item:
        """The next item; after an error or EOF, EOF forever."""
        self.item = Item(ItemType.EOF, self.pos, "EOF", self.start_line)
        state: _State | None = _lex_inside_action if self.inside_action else _lex_text
        while state is not None:
            state = state(self)
        return self.item

    def at_right_delim(self) -> tuple[bool, bool]:
        """Whether the input is at a right delimiter, and whether a trim marker precedes it."""
        s, i = self.input, self.pos
        if _has_right_trim_marker(s, i) and s.startswith(self.right, i + _TRIM_MARKER_LEN):
            return True, True
        if s.startswith(self.right, i):
            return True, False
        return False, False

    def at_terminator(self) -> bool:
        """Whether what follows may end an identifier (Go's ``atTerminator``)."""
        r = self._peek()
        if _is_space(r):
            return True
        if r in (EOF_RUNE, ".", ",", "|", ":", ")", "("):
            return True
        return self.input.startswith(self.right, self.pos)


def _right_trim_length(s: str) -> int:
    return len(s) - len(s.rstrip(_SPACE_CHARS))


def _left_trim_length(s: str) -> int:
    return len(s) - len(s.lstrip(_SPACE_CHARS))


def _lex_text(lx: Lexer) -> _State | None:
    x = lx.input.find(lx.left, lx.pos)
    if x >= 0:
        if x > lx.pos:
            lx.pos = x
            trim = 0
            if _has_left_trim_marker(lx.input, lx.pos + len(lx.left)):
                trim = _right_trim_length(lx.input[lx.start : lx.pos])
            lx.pos -= trim
            lx.line += lx.input.count("\n", lx.start, lx.pos)
            item = lx._this_item(ItemType.TEXT)
            lx.pos += trim
            lx._ignore()
            if item.val:
                lx.item = item
                return None
        return _lex_left_delim
    lx.pos = len(lx.input)
    if lx.pos > lx.start:
        lx.line += lx.input.count("\n", lx.start, lx.pos)
        lx._emit(ItemType.TEXT)
        return None
    lx._emit(ItemType.EOF)
    return None


def _lex_left_delim(lx: Lexer) -> _State | None:
    lx.pos += len(lx.left)
    trim = _has_left_trim_marker(lx.input, lx.pos)
    after_marker = _TRIM_MARKER_LEN if trim else 0
    if lx.input.startswith(_LEFT_COMMENT, lx.pos + after_marker):
        lx.pos += after_marker
        lx._ignore()
        return _lex_comment
    item = lx._this_item(ItemType.LEFT_DELIM)
    lx.inside_action = True
    lx.pos += after_marker
    lx._ignore()
    lx.paren_depth = 0
    lx.item = item
    return None


def _lex_comment(lx: Lexer) -> _State | None:
    lx.pos += len(_LEFT_COMMENT)
    x = lx.input.find(_RIGHT_COMMENT, lx.pos)
    if x < 0:
        lx._errorf("unclosed comment")
        return None
    lx.pos = x + len(_RIGHT_COMMENT)
    delim, trim = lx.at_right_delim()
    if not delim:
        lx._errorf("comment ends before closing delimiter")
        return None
    lx.line += lx.input.count("\n", lx.start, lx.pos)
    item = lx._this_item(ItemType.COMMENT)
    if trim:
        lx.pos += _TRIM_MARKER_LEN
    lx.pos += len(lx.right)
    if trim:
        lx.pos += _left_trim_length(lx.input[lx.pos :])
    lx._ignore()
    if lx.emit_comment:
        lx.item = item
        return None
    return _lex_text


def _lex_right_delim(lx: Lexer) -> _State | None:
    _, trim = lx.at_right_delim()
    if trim:
        lx.pos += _TRIM_MARKER_LEN
        lx._ignore()
    lx.pos += len(lx.right)
    item = lx._this_item(ItemType.RIGHT_DELIM)
    if trim:
        lx.pos += _left_trim_length(lx.input[lx.pos :])
        lx._ignore()
    lx.inside_action = False
    lx.item = item
    return None


def _lex_inside_action(lx: Lexer) -> _State | None:
    delim, _ = lx.at_right_delim()
    if delim:
        if lx.paren_depth == 0:
            return _lex_right_delim
        lx._errorf("unclosed left paren")
        return None
    r = lx._next()
    if r == EOF_RUNE:
        lx._errorf("unclosed action")
        return None
    if _is_space(r):
        lx._backup()  # put the space back in case it starts " -}}"
        return _lex_space
    if r == "=":
        lx._emit(ItemType.ASSIGN)
        return None
    if r == ":":
        if lx._next() != "=":
            lx._errorf("expected :=")
            return None
        lx._emit(ItemType.DECLARE)
        return None
    if r == "|":
        lx._emit(ItemType.PIPE)
        return None
    if r == '"':
        return _lex_quote
    if r == "`":
        return _lex_raw_quote
    if r == "$":
        return _lex_variable
    if r == "'":
        return _lex_char
    if r == "." and lx.pos < len(lx.input) and not "0" <= lx.input[lx.pos] <= "9":
        return _lex_field
    if r in "+-." or "0" <= r <= "9":
        lx._backup()
        return _lex_number
    if _is_alphanumeric(r):
        lx._backup()
        return _lex_identifier
    if r == "(":
        lx.paren_depth += 1
        lx._emit(ItemType.LEFT_PAREN)
        return None
    if r == ")":
        lx.paren_depth -= 1
        if lx.paren_depth < 0:
            lx._errorf("unexpected right paren")
            return None
        lx._emit(ItemType.RIGHT_PAREN)
        return None
    if r.isascii() and r.isprintable():
        lx._emit(ItemType.CHAR)
        return None
    lx._errorf(f"unrecognized character in action: {_rune_desc(r)}")
    return None


def _rune_desc(r: str) -> str:
    """Go's ``%#U`` of a rune: ``U+0023 '#'``, without the quoted form when unprintable."""
    code = ord(r)
    if 0xDC80 <= code <= 0xDCFF:  # an invalid byte decodes as U+FFFD
        code = 0xFFFD
    text = f"U+{code:04X}"
    if strconv.is_print(code):
        text += f" '{chr(code)}'"
    return text


def _lex_space(lx: Lexer) -> _State | None:
    spaces = 0
    while _is_space(lx._peek()):
        lx._next()
        spaces += 1
    # A space may begin a trim-marked right delimiter (" -}}").
    if _has_right_trim_marker(lx.input, lx.pos - 1) and lx.input.startswith(
        lx.right, lx.pos - 1 + _TRIM_MARKER_LEN
    ):
        lx._backup()
        if spaces == 1:
            return _lex_right_delim
    lx._emit(ItemType.SPACE)
    return None


def _lex_identifier(lx: Lexer) -> _State | None:
    while True:
        r = lx._next()
        if _is_alphanumeric(r):
            continue
        lx._backup()
        word = lx.input[lx.start : lx.pos]
        if not lx.at_terminator():
            lx._errorf(f"bad character {_rune_desc(r)}")
            return None
        keyword = _KEYWORDS.get(word)
        if keyword is not None and keyword > ItemType.KEYWORD:
            if (keyword == ItemType.BREAK and not lx.break_ok) or (
                keyword == ItemType.CONTINUE and not lx.continue_ok
            ):
                lx._emit(ItemType.IDENTIFIER)
            else:
                lx._emit(keyword)
        elif word[0] == ".":
            lx._emit(ItemType.FIELD)
        elif word in ("true", "false"):
            lx._emit(ItemType.BOOL)
        else:
            lx._emit(ItemType.IDENTIFIER)
        return None


def _lex_field(lx: Lexer) -> _State | None:
    return _lex_field_or_variable(lx, ItemType.FIELD)


def _lex_variable(lx: Lexer) -> _State | None:
    if lx.at_terminator():
        lx._emit(ItemType.VARIABLE)
        return None
    return _lex_field_or_variable(lx, ItemType.VARIABLE)


def _lex_field_or_variable(lx: Lexer, typ: ItemType) -> _State | None:
    if lx.at_terminator():
        lx._emit(ItemType.VARIABLE if typ == ItemType.VARIABLE else ItemType.DOT)
        return None
    while True:
        r = lx._next()
        if not _is_alphanumeric(r):
            lx._backup()
            break
    if not lx.at_terminator():
        lx._errorf(f"bad character {_rune_desc(r) if r else 'U+FFFFFFFF'}")
        return None
    lx._emit(typ)
    return None


def _lex_char(lx: Lexer) -> _State | None:
    while True:
        r = lx._next()
        if r == "\\":
            r = lx._next()
            if r not in (EOF_RUNE, "\n"):
                continue
        if r in (EOF_RUNE, "\n"):
            lx._errorf("unterminated character constant")
            return None
        if r == "'":
            break
    lx._emit(ItemType.CHAR_CONSTANT)
    return None


def _lex_number(lx: Lexer) -> _State | None:
    if not _scan_number(lx):
        lx._errorf(f"bad number syntax: {strconv.quote(lx.input[lx.start : lx.pos])}")
        return None
    sign = lx._peek()
    if sign in ("+", "-") and sign != "":
        # Complex: 1+2i. No spaces, must end in 'i'.
        if not _scan_number(lx) or lx.input[lx.pos - 1] != "i":
            lx._errorf(f"bad number syntax: {strconv.quote(lx.input[lx.start : lx.pos])}")
            return None
        lx._emit(ItemType.COMPLEX)
        return None
    lx._emit(ItemType.NUMBER)
    return None


def _scan_number(lx: Lexer) -> bool:
    lx._accept("+-")
    digits = "0123456789_"
    if lx._accept("0"):
        if lx._accept("xX"):
            digits = "0123456789abcdefABCDEF_"
        elif lx._accept("oO"):
            digits = "01234567_"
        elif lx._accept("bB"):
            digits = "01_"
    lx._accept_run(digits)
    if lx._accept("."):
        lx._accept_run(digits)
    if len(digits) == 10 + 1 and lx._accept("eE"):
        lx._accept("+-")
        lx._accept_run("0123456789_")
    if len(digits) == 16 + 6 + 1 and lx._accept("pP"):
        lx._accept("+-")
        lx._accept_run("0123456789_")
    lx._accept("i")
    if _is_alphanumeric(lx._peek()):
        lx._next()
        return False
    return True


def _lex_quote(lx: Lexer) -> _State | None:
    while True:
        r = lx._next()
        if r == "\\":
            r = lx._next()
            if r not in (EOF_RUNE, "\n"):
                continue
        if r in (EOF_RUNE, "\n"):
            lx._errorf("unterminated quoted string")
            return None
        if r == '"':
            break
    lx._emit(ItemType.STRING)
    return None


def _lex_raw_quote(lx: Lexer) -> _State | None:
    while True:
        r = lx._next()
        if r == EOF_RUNE:
            lx._errorf("unterminated raw quoted string")
            return None
        if r == "`":
            break
    lx._emit(ItemType.RAW_STRING)
    return None
