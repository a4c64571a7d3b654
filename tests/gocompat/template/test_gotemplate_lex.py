"""Go's text/template lexer: the items of Go's lex tests (parse/lex_test.go), re-expressed."""

from __future__ import annotations

from typing import Any

import pytest

from crossfn.gocompat.template._lex import Item, ItemType, Lexer

T = ItemType
LEFT, RIGHT, SPACE, EOF = (T.LEFT_DELIM, "{{"), (T.RIGHT_DELIM, "}}"), (T.SPACE, " "), (T.EOF, "")


def collect(text: str, left: str = "", right: str = "") -> list[tuple[ItemType, str]]:
    lexer = Lexer(text, left, right, emit_comment=True)
    items = []
    while True:
        item = lexer.next_item()
        items.append((item.typ, item.val))
        if item.typ in (T.EOF, T.ERROR):
            return items


def case(name: str, text: str, items: list[tuple[ItemType, str]], reason: str) -> Any:
    return pytest.param(text, items, reason, id=name)


LEX = [
    case("Empty", "", [EOF], "no input is EOF alone"),
    case("Spaces", " \t\n", [(T.TEXT, " \t\n"), EOF], "space outside actions is text"),
    case(
        "TextWithComment",
        "hello-{{/* this is a comment */}}-world",
        [(T.TEXT, "hello-"), (T.COMMENT, "/* this is a comment */"), (T.TEXT, "-world"), EOF],
        "a comment is one item, without its delimiters",
    ),
    case(
        "Punctuation",
        "{{,@% }}",
        [LEFT, (T.CHAR, ","), (T.CHAR, "@"), (T.CHAR, "%"), SPACE, RIGHT, EOF],
        "printable ASCII punctuation is a char item each",
    ),
    case(
        "Parens",
        "{{((3))}}",
        [
            LEFT,
            (T.LEFT_PAREN, "("),
            (T.LEFT_PAREN, "("),
            (T.NUMBER, "3"),
            (T.RIGHT_PAREN, ")"),
            (T.RIGHT_PAREN, ")"),
            RIGHT,
            EOF,
        ],
        "parentheses nest",
    ),
    case("EmptyAction", "{{}}", [LEFT, RIGHT, EOF], "an empty action lexes; the parser rejects it"),
    case(
        "Block",
        '{{block "foo" .}}',
        [LEFT, (T.BLOCK, "block"), SPACE, (T.STRING, '"foo"'), SPACE, (T.DOT, "."), RIGHT, EOF],
        "block is a keyword",
    ),
    case(
        "Numbers",
        "{{1 02 0x14 -7.2i 1e3 +1.2e-4 1+2i 1_2 0x1.e_fp4}}",
        [
            LEFT,
            (T.NUMBER, "1"),
            SPACE,
            (T.NUMBER, "02"),
            SPACE,
            (T.NUMBER, "0x14"),
            SPACE,
            (T.NUMBER, "-7.2i"),
            SPACE,
            (T.NUMBER, "1e3"),
            SPACE,
            (T.NUMBER, "+1.2e-4"),
            SPACE,
            (T.COMPLEX, "1+2i"),
            SPACE,
            (T.NUMBER, "1_2"),
            SPACE,
            (T.NUMBER, "0x1.e_fp4"),
            RIGHT,
            EOF,
        ],
        "every number spelling Go accepts, complex as one item",
    ),
    case(
        "Characters",
        "{{'a' '\\n' '\\'' '本'}}",
        [
            LEFT,
            (T.CHAR_CONSTANT, "'a'"),
            SPACE,
            (T.CHAR_CONSTANT, "'\\n'"),
            SPACE,
            (T.CHAR_CONSTANT, "'\\''"),
            SPACE,
            (T.CHAR_CONSTANT, "'本'"),
            RIGHT,
            EOF,
        ],
        "character constants keep their quotes and escapes",
    ),
    case(
        "Dots",
        "{{.x . .2 .x.y.z}}",
        [
            LEFT,
            (T.FIELD, ".x"),
            SPACE,
            (T.DOT, "."),
            SPACE,
            (T.NUMBER, ".2"),
            SPACE,
            (T.FIELD, ".x"),
            (T.FIELD, ".y"),
            (T.FIELD, ".z"),
            RIGHT,
            EOF,
        ],
        "a dot before a digit starts a number; chained fields are one item each",
    ),
    case(
        "Variables",
        "{{$c := printf $ $hello $23 $var.Field .Method}}",
        [
            LEFT,
            (T.VARIABLE, "$c"),
            SPACE,
            (T.DECLARE, ":="),
            SPACE,
            (T.IDENTIFIER, "printf"),
            SPACE,
            (T.VARIABLE, "$"),
            SPACE,
            (T.VARIABLE, "$hello"),
            SPACE,
            (T.VARIABLE, "$23"),
            SPACE,
            (T.VARIABLE, "$var"),
            (T.FIELD, ".Field"),
            SPACE,
            (T.FIELD, ".Method"),
            RIGHT,
            EOF,
        ],
        "variables, declarations and field chains on variables",
    ),
    case(
        "Pipeline",
        'intro {{echo hi 1.2 |noargs|args 1 "hi"}} outro',
        [
            (T.TEXT, "intro "),
            LEFT,
            (T.IDENTIFIER, "echo"),
            SPACE,
            (T.IDENTIFIER, "hi"),
            SPACE,
            (T.NUMBER, "1.2"),
            SPACE,
            (T.PIPE, "|"),
            (T.IDENTIFIER, "noargs"),
            (T.PIPE, "|"),
            (T.IDENTIFIER, "args"),
            SPACE,
            (T.NUMBER, "1"),
            SPACE,
            (T.STRING, '"hi"'),
            RIGHT,
            (T.TEXT, " outro"),
            EOF,
        ],
        "pipes separate commands",
    ),
    case(
        "TrimBothSides",
        "hello- {{- 3 -}} -world",
        [(T.TEXT, "hello-"), LEFT, (T.NUMBER, "3"), RIGHT, (T.TEXT, "-world"), EOF],
        "trim markers eat the space next to them",
    ),
    case(
        "TrimAroundComment",
        "hello- {{- /* hello */ -}} -world",
        [(T.TEXT, "hello-"), (T.COMMENT, "/* hello */"), (T.TEXT, "-world"), EOF],
        "trim markers work around comments",
    ),
    case(
        "BadChar",
        "#{{\x01}}",
        [(T.TEXT, "#"), LEFT, (T.ERROR, "unrecognized character in action: U+0001")],
        "a control character in an action",
    ),
    case("UnclosedAction", "{{", [LEFT, (T.ERROR, "unclosed action")], "EOF inside an action"),
    case(
        "UnclosedQuote",
        '{{"\n"}}',
        [LEFT, (T.ERROR, "unterminated quoted string")],
        "a quoted string may not hold a newline",
    ),
    case("UnclosedRaw", "{{`xx}}", [LEFT, (T.ERROR, "unterminated raw quoted string")], "raw string to EOF"),
    case("BadNumber", "{{3k}}", [LEFT, (T.ERROR, 'bad number syntax: "3k"')], "a letter after digits"),
    case(
        "UnclosedParen",
        "{{(3}}",
        [LEFT, (T.LEFT_PAREN, "("), (T.NUMBER, "3"), (T.ERROR, "unclosed left paren")],
        "the right delimiter inside parentheses",
    ),
    case(
        "ExtraParen",
        "{{3)}}",
        [LEFT, (T.NUMBER, "3"), (T.ERROR, "unexpected right paren")],
        "a right parenthesis with none open",
    ),
    case(
        "BadComment",
        "hello-{{/*/}}-world",
        [(T.TEXT, "hello-"), (T.ERROR, "unclosed comment")],
        "a comment without its end",
    ),
    case(
        "CommentBeforeDelim",
        "hello-{{/* */ }}-world",
        [(T.TEXT, "hello-"), (T.ERROR, "comment ends before closing delimiter")],
        "a comment must end at the delimiter",
    ),
    case(
        "UnmatchedRight",
        "hello-{.}}-world",
        [(T.TEXT, "hello-{.}}-world"), EOF],
        "a lone right delimiter is text",
    ),
]


@pytest.mark.parametrize(("text", "items", "reason"), LEX)
def test_lex(text: str, items: list[tuple[ItemType, str]], reason: str) -> None:
    assert collect(text) == items, reason


DELIMS = [
    case(
        "Punctuation",
        "$$,@%{{}}@@",
        [
            (T.LEFT_DELIM, "$$"),
            (T.CHAR, ","),
            (T.CHAR, "@"),
            (T.CHAR, "%"),
            (T.CHAR, "{"),
            (T.CHAR, "{"),
            (T.CHAR, "}"),
            (T.CHAR, "}"),
            (T.RIGHT_DELIM, "@@"),
            EOF,
        ],
        "with other delimiters the default ones are characters",
    ),
    case(
        "DelimsLikeMarkers",
        "{{- .x -}} {{- - .x - -}}",
        [
            (T.LEFT_DELIM, "{{- "),
            (T.FIELD, ".x"),
            (T.RIGHT_DELIM, " -}}"),
            (T.LEFT_DELIM, "{{- "),
            (T.FIELD, ".x"),
            (T.RIGHT_DELIM, " -}}"),
            EOF,
        ],
        "delimiters that contain trim markers, and trim markers after them",
    ),
]


@pytest.mark.parametrize(("text", "items", "reason"), DELIMS)
def test_lex_delims(text: str, items: list[tuple[ItemType, str]], reason: str) -> None:
    left, right = ("$$", "@@") if text.startswith("$$") else ("{{- ", " -}}")
    assert collect(text, left, right) == items, reason


def test_alphanumeric_right_delimiter() -> None:
    """A right delimiter that starts with a letter ends an identifier (Go's atTerminator)."""
    assert collect("{{hub .host hub}}", "{{hub", "hub}}") == [
        (T.LEFT_DELIM, "{{hub"),
        SPACE,
        (T.FIELD, ".host"),
        SPACE,
        (T.RIGHT_DELIM, "hub}}"),
        EOF,
    ]


POSITIONS = [
    pytest.param(
        "0123{{hello}}xyz",
        [
            (T.TEXT, 0, "0123", 1),
            (T.LEFT_DELIM, 4, "{{", 1),
            (T.IDENTIFIER, 6, "hello", 1),
            (T.RIGHT_DELIM, 11, "}}", 1),
            (T.TEXT, 13, "xyz", 1),
            (T.EOF, 16, "", 1),
        ],
        id="Sample",
    ),
    pytest.param(
        "{{x -}}\n{{y}}",
        [
            (T.LEFT_DELIM, 0, "{{", 1),
            (T.IDENTIFIER, 2, "x", 1),
            (T.RIGHT_DELIM, 5, "}}", 1),
            (T.LEFT_DELIM, 8, "{{", 2),
            (T.IDENTIFIER, 10, "y", 2),
            (T.RIGHT_DELIM, 11, "}}", 2),
            (T.EOF, 13, "", 2),
        ],
        id="TrimAfter",
    ),
    pytest.param(
        "{{x}}\n{{- y}}",
        [
            (T.LEFT_DELIM, 0, "{{", 1),
            (T.IDENTIFIER, 2, "x", 1),
            (T.RIGHT_DELIM, 3, "}}", 1),
            (T.LEFT_DELIM, 6, "{{", 2),
            (T.IDENTIFIER, 10, "y", 2),
            (T.RIGHT_DELIM, 11, "}}", 2),
            (T.EOF, 13, "", 2),
        ],
        id="TrimBefore",
    ),
    pytest.param(
        '{{/*\n*/}}\n{{undefinedFunction "test"}}',
        [
            (T.COMMENT, 2, "/*\n*/", 1),
            (T.TEXT, 9, "\n", 2),
            (T.LEFT_DELIM, 10, "{{", 3),
            (T.IDENTIFIER, 12, "undefinedFunction", 3),
            (T.SPACE, 29, " ", 3),
            (T.STRING, 30, '"test"', 3),
            (T.RIGHT_DELIM, 36, "}}", 3),
            (T.EOF, 38, "", 3),
        ],
        id="LongComment",
    ),
]


@pytest.mark.parametrize(("text", "items"), POSITIONS)
def test_positions_and_lines(text: str, items: list[tuple[ItemType, int, str, int]]) -> None:
    """Positions and lines are what parse errors print: each item's, exactly as Go's lexer gives them."""
    lexer = Lexer(text, emit_comment=True)
    got = []
    while True:
        item = lexer.next_item()
        got.append((item.typ, item.pos, item.val, item.line))
        if item.typ in (T.EOF, T.ERROR):
            break
    assert got == items


@pytest.mark.parametrize(
    ("item", "text"),
    [
        (Item(T.EOF, 0, "", 1), "EOF"),
        (Item(T.ERROR, 0, "unclosed action", 1), "unclosed action"),
        (Item(T.WITH, 0, "with", 1), "<with>"),
        (Item(T.STRING, 0, '"x"', 1), '"\\"x\\""'),
        (Item(T.TEXT, 0, "a long piece of text", 1), '"a long pie"...'),
    ],
    ids=["EOF", "Error", "Keyword", "Quoted", "Truncated"],
)
def test_item_text(item: Item, text: str) -> None:
    """How parse errors quote an item: EOF, the error, <keyword>, %q, or %.10q... past ten bytes."""
    assert str(item) == text


def test_break_is_an_identifier_when_a_function_has_its_name() -> None:
    """With a function named break, the word is that function, not the keyword (Go's TestKeywordsAndFuncs)."""
    items = []
    lexer = Lexer("{{break}}", break_ok=False)
    while (item := lexer.next_item()).typ != T.EOF:
        items.append(item.typ)
    assert items == [T.LEFT_DELIM, T.IDENTIFIER, T.RIGHT_DELIM]
