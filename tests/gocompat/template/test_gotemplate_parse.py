"""Go's text/template parser: Go's parse tests (parse/parse_test.go), re-expressed as tables.

A tree prints as Go's ``Node.String()`` does, with text quoted (``%q``) as
Go's tests print it; parse errors carry Go's text.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from crossfn.gocompat.template import Template, _node, _parse
from crossfn.gocompat.template._lex import ItemType
from crossfn.gocompat.template._numbers import new_number
from crossfn.gocompat.template._parse import ParseError

FUNCS = {"printf", "contains"}


def parse_root(text: str, name: str = "test", *, paren_depth: int | None = None) -> str:
    trees = _parse.parse(name, text, has_function=FUNCS.__contains__)
    root = trees[name].root
    assert root is not None
    return root.text(quote_text=True)


def case(name: str, text: str, result: str | None, reason: str) -> Any:
    return pytest.param(text, result, reason, id=name)


PARSE = [
    case("Empty", "", "", "an empty template"),
    case("Comment", "{{/*\n\n\n*/}}", "", "a comment leaves nothing"),
    case("Spaces", " \t\n", '" \\t\\n"', "space is text"),
    case("Text", "some text", '"some text"', "text"),
    case("Field", "{{.X}}", "{{.X}}", "a field"),
    case("SimpleCommand", "{{printf}}", "{{printf}}", "a function call without arguments"),
    case("DollarInvocation", "{{$}}", "{{$}}", "the data"),
    case(
        "VariableInvocation",
        "{{with $x := 3}}{{$x 23}}{{end}}",
        "{{with $x := 3}}{{$x 23}}{{end}}",
        "a variable with arguments parses; executing it fails",
    ),
    case("VariableWithFields", "{{$.I}}", "{{$.I}}", "fields of a variable"),
    case("MultiWord", "{{printf `%d` 23}}", "{{printf `%d` 23}}", "a raw string keeps its quotes"),
    case("Pipeline", "{{.X|.Y}}", "{{.X | .Y}}", "pipes print with spaces"),
    case("PipelineWithDecl", "{{$x := .X|.Y}}", "{{$x := .X | .Y}}", "a declared pipeline"),
    case(
        "NestedPipeline",
        "{{.X (.Y .Z) (.A | .B .C) (.E)}}",
        "{{.X (.Y .Z) (.A | .B .C) (.E)}}",
        "parenthesized pipelines as arguments",
    ),
    case("FieldOfParens", "{{(.Y .Z).Field}}", "{{(.Y .Z).Field}}", "a field of a parenthesized pipeline"),
    case("SimpleIf", "{{if .X}}hello{{end}}", '{{if .X}}"hello"{{end}}', "if"),
    case("IfElse", "{{if .X}}true{{else}}false{{end}}", '{{if .X}}"true"{{else}}"false"{{end}}', "if/else"),
    case(
        "IfElseIf",
        "{{if .X}}true{{else if .Y}}false{{end}}",
        '{{if .X}}"true"{{else}}{{if .Y}}"false"{{end}}{{end}}',
        "else if nests an if in the else branch",
    ),
    case(
        "IfElseChain",
        "+{{if .X}}X{{else if .Y}}Y{{else if .Z}}Z{{end}}+",
        '"+"{{if .X}}"X"{{else}}{{if .Y}}"Y"{{else}}{{if .Z}}"Z"{{end}}{{end}}{{end}}"+"',
        "a chain of else ifs needs one end",
    ),
    case("SimpleRange", "{{range .X}}hello{{end}}", '{{range .X}}"hello"{{end}}', "range"),
    case(
        "NestedRange",
        "{{range .X}}hello{{range .Y}}goodbye{{end}}{{end}}",
        '{{range .X}}"hello"{{range .Y}}"goodbye"{{end}}{{end}}',
        "nested ranges",
    ),
    case(
        "RangeElse",
        "{{range .X}}true{{else}}false{{end}}",
        '{{range .X}}"true"{{else}}"false"{{end}}',
        "range with else",
    ),
    case("RangeOneVar", "{{range $x := .SI}}{{.}}{{end}}", "{{range $x := .SI}}{{.}}{{end}}", "one variable"),
    case(
        "RangeTwoVars",
        "{{range $x, $y := .SI}}{{.}}{{end}}",
        "{{range $x, $y := .SI}}{{.}}{{end}}",
        "two variables",
    ),
    case(
        "RangeBreak",
        "{{range .SI}}{{.}}{{ break }}{{end}}",
        "{{range .SI}}{{.}}{{break}}{{end}}",
        "break inside range",
    ),
    case(
        "RangeContinue",
        "{{range .SI}}{{.}}{{continue}}{{end}}",
        "{{range .SI}}{{.}}{{continue}}{{end}}",
        "continue inside range",
    ),
    case(
        "Constants",
        "{{range .SI 1 -3.2i true false 'a' nil}}{{end}}",
        "{{range .SI 1 -3.2i true false 'a' nil}}{{end}}",
        "constants print as written",
    ),
    case("Template", "{{template `x`}}", '{{template "x"}}', "a template name prints quoted"),
    case("TemplateArg", "{{template `x` .Y}}", '{{template "x" .Y}}', "a template call with data"),
    case("With", "{{with .X}}hello{{end}}", '{{with .X}}"hello"{{end}}', "with"),
    case(
        "WithElseWith",
        "{{with .X}}hello{{else with .Y}}goodbye{{end}}",
        '{{with .X}}"hello"{{else}}{{with .Y}}"goodbye"{{end}}{{end}}',
        "else with nests a with (Go 1.23)",
    ),
    case("TrimLeft", "x \r\n\t{{- 3}}", '"x"{{3}}', "a left trim marker"),
    case("TrimRight", "{{3 -}}\n\n\ty", '{{3}}"y"', "a right trim marker"),
    case("TrimExtraSpaces", "x\n{{-  3   -}}\ny", '"x"{{3}}"y"', "trim markers with more space inside"),
    case("CommentTrim", "x \r\n\t{{- /* */ -}}\n\n\ty", '"x""y"', "a comment with trim markers"),
    case("Block", '{{block "foo" .}}hello{{end}}', '{{template "foo" .}}', "a block is a template call"),
    case("NewlineInAssignment", "{{ $x \n := \n 1 \n }}", "{{$x := 1}}", "actions may span lines"),
    case("NewlineInPipeline", '{{\n"x"\n|\nprintf\n}}', '{{"x" | printf}}', "pipes across lines"),
    case("Assign", "{{$x := 0}}{{$x = 1}}{{$x}}", "{{$x := 0}}{{$x = 1}}{{$x}}", "assignment prints ="),
    case("RangeAssign", "{{range $x = 0}}{{$x}}{{end}}", "{{range $x = 0}}{{$x}}{{end}}", "range may assign"),
    case("SpaceBeforeArg", "{{$x:=.}}{{$x +2}}", "{{$x := .}}{{$x +2}}", "a signed number after a space"),
    case("ParenDepthOK", "{{ (( 1 )) }}", "{{((1))}}", "nested parentheses"),
]


@pytest.mark.parametrize(("text", "result", "reason"), PARSE)
def test_parse(text: str, result: str, reason: str) -> None:
    assert parse_root(text) == result, reason


@pytest.mark.parametrize(("text", "result", "reason"), PARSE)
def test_parsed_text_parses_again_to_itself(text: str, result: str, reason: str) -> None:
    """A tree's text is a template that parses to a tree with the same text (Go's TestParseCopy, in spirit)."""
    once = _parse.parse("t", text, has_function=FUNCS.__contains__)["t"].root
    assert once is not None
    again = _parse.parse("t", str(once), has_function=FUNCS.__contains__)["t"].root
    assert str(again) == str(once), reason


ERRORS = [
    case("UnclosedAction", "hello{{range", "template: test:1: unclosed action", "EOF in an action"),
    case("UnmatchedEnd", "{{end}}", "template: test:1: unexpected {{end}}", "end without a block"),
    case("UnmatchedElse", "{{else}}", "template: test:1: unexpected {{else}}", "else without a block"),
    case(
        "MultipleElse",
        "{{if .X}}1{{else}}2{{else}}3{{end}}",
        "template: test:1: expected end; found {{else}}",
        "two elses",
    ),
    case("MissingEnd", "hello{{range .x}}", "template: test:1: unexpected EOF", "a block to EOF"),
    case(
        "UndefinedFunction",
        "hello{{undefined}}",
        'template: test:1: function "undefined" not defined',
        "no such function",
    ),
    case("UndefinedVariable", "{{$x}}", 'template: test:1: undefined variable "$x"', "no such variable"),
    case(
        "VariableAfterEnd",
        "{{with $x := 4}}{{end}}{{$x}}",
        'template: test:1: undefined variable "$x"',
        "variables end with their block",
    ),
    case(
        "DeclareWithField",
        "{{with $x.Y := 4}}{{end}}",
        'template: test:1: undefined variable "$x"',
        "a field can't be declared",
    ),
    case(
        "TemplateWithField",
        "{{template .X}}",
        'template: test:1: unexpected ".X" in template clause',
        "a name must be a string",
    ),
    case(
        "InvalidPunctuation",
        "{{printf 3, 4}}",
        'template: test:1: unexpected "," in operand',
        "commas don't separate arguments",
    ),
    case(
        "MultidefOutsideRange",
        "{{with $v, $u := 3}}{{end}}",
        "template: test:1: too many declarations in with",
        "two variables only in range",
    ),
    case(
        "TooManyInRange",
        "{{range $u, $v, $w := 3}}{{end}}",
        "template: test:1: too many declarations in range",
        "at most two variables",
    ),
    case(
        "DotAfterParens",
        "{{printf (printf .).}}",
        "template: test:1: unexpected <.> in operand",
        "a dot after a parenthesis",
    ),
    case(
        "AdjacentArgs",
        "{{printf 3`x`}}",
        'template: test:1: unexpected "`x`" in operand',
        "arguments need space between",
    ),
    case(
        "ExtraEnd",
        "{{if .X}}a{{else if .Y}}b{{end}}{{end}}",
        "template: test:1: unexpected {{end}}",
        "else if needs one end",
    ),
    case(
        "BreakOutside",
        "{{range .}}{{end}} {{break}}",
        "template: test:1: {{break}} outside {{range}}",
        "break",
    ),
    case(
        "ContinueInElse",
        "{{range .}}{{else}}{{continue}}{{end}}",
        "template: test:1: {{continue}} outside {{range}}",
        "continue in a range's else",
    ),
    case("PlusAssign", "{{$x += 1}}{{$x}}", 'template: test:1: undefined variable "$x"', "no += operator"),
    case(
        "RangeDeclTwice",
        "{{range $x := $y := 3}}{{end}}",
        'template: test:1: undefined variable "$y"',
        ":= once",
    ),
    case("VarPlus", "{{$x:=.}}{{$x+2}}", "template: test:1: bad character U+002B '+'", "no arithmetic"),
    case(
        "DotAfterInt",
        "{{1.E}}",
        'template: test:1: illegal number syntax: "1.E"',
        "an exponent without digits",
    ),
    case(
        "DotAfterFloat",
        "{{0.1.E}}",
        'template: test:1: unexpected . after term "0.1"',
        "fields after a number",
    ),
    case(
        "DotAfterBool",
        "{{true.E}}",
        'template: test:1: unexpected . after term "true"',
        "fields after a bool",
    ),
    case(
        "DotAfterString",
        '{{"hello".guys}}',
        'template: test:1: unexpected . after term "\\"hello\\""',
        "fields after a string",
    ),
    case("DotAfterDot", "{{..E}}", 'template: test:1: unexpected . after term "."', "fields after dot"),
    case("DotAfterNil", "{{nil.E}}", 'template: test:1: unexpected . after term "nil"', "fields after nil"),
    case(
        "PipelineDot",
        "{{12|.}}",
        "template: test:1: non executable command in pipeline stage 2",
        "dot is not a command",
    ),
    case(
        "PipelineNumber",
        "{{.|12|printf}}",
        "template: test:1: non executable command in pipeline stage 2",
        "nor a number",
    ),
    case(
        "PipelineNil",
        "{{'c'|nil}}",
        "template: test:1: non executable command in pipeline stage 2",
        "nor nil",
    ),
    case(
        "EmptyPipeline",
        '{{printf "%d" ( ) }}',
        "template: test:1: missing value for parenthesized pipeline",
        "()",
    ),
    case(
        "BlockNoPipeline",
        '{{block "foo"}}hello{{end}}',
        "template: test:1: missing value for block clause",
        "block needs data",
    ),
    case("EmptyAction", "{{}}", "template: test:1: missing value for command", "an empty action"),
    case("Unclosed1", "line1\n{{", "template: test:2: unclosed action", "the line of the action"),
    case(
        "Unclosed3",
        'line1\n{{"x"\n"y"\n',
        "template: test:4: unclosed action started at test:2",
        "an action spanning lines names where it started",
    ),
    case("UnclosedComment", "{{/*}}", "template: test:1: unclosed comment", "comment"),
    case("LeftParen", "{{.X (1 2 3}}", "template: test:1: unclosed left paren", "paren to the delimiter"),
    case("IdChar", "{{a#}}", "template: test:1: bad character U+0023 '#'", "a character no identifier takes"),
    case("CharConst", "{{'a}}", "template: test:1: unterminated character constant", "char to the delimiter"),
    case("IllegalNumber", "{{0xi}}", 'template: test:1: illegal number syntax: "0xi"', "a hex prefix alone"),
    case(
        "MultiDefine",
        "{{define `a`}}a{{end}}{{define `a`}}b{{end}}",
        'template: test:1: template: multiple definition of template "a"',
        "one body per name",
    ),
    case("Eof", "{{range .X}}", "template: test:1: unexpected EOF", "range to EOF"),
    case(
        "DeclaredFieldVariable",
        "{{$x := 23}}{{with $x.y := 3}}{{$x 23}}{{end}}",
        'template: test:1: unexpected ":=" in operand',
        "a field is not a declaration",
    ),
    case("Multidecl", "{{$a,$b,$c := 23}}", "template: test:1: too many declarations in command", "commas"),
    case(
        "MultilineRaw", "{{ $v := `\n` }} {{", "template: test:2: unclosed action", "raw strings span lines"
    ),
    case(
        "RangeMissingValue",
        "{{range $k,}}{{end}}",
        "template: test:1: missing value for range",
        "nothing to range",
    ),
    case(
        "RangeNotVariable",
        "{{range $k, .}}{{end}}",
        "template: test:1: range can only initialize variables",
        "a field after the comma",
    ),
    case("BadStringEscape", '{{"\\q"}}', "template: test:1: invalid syntax", "strconv.Unquote's error"),
    case(
        "IntegerOverflow",
        "{{99999999999999999999}}",
        'template: test:1: integer overflow: "99999999999999999999"',
        "too big",
    ),
    case(
        "MalformedChar", "{{'xx'}}", "template: test:1: malformed character constant: 'xx'", "two characters"
    ),
]


@pytest.mark.parametrize(("text", "message", "reason"), ERRORS)
def test_parse_errors(text: str, message: str, reason: str) -> None:
    with pytest.raises(ParseError) as exc:
        _parse.parse("test", text, has_function=FUNCS.__contains__)
    assert str(exc.value) == message, reason


def test_else_with_before_go_1_23() -> None:
    """Before Go 1.23 ``{{else with}}`` is an error: with is unexpected after else."""
    with pytest.raises(ParseError, match=r"^template: t:1: unexpected <with> in else$"):
        _parse.parse(
            "t", "{{with .X}}a{{else with .Y}}b{{end}}", has_function=FUNCS.__contains__, else_with=False
        )


def test_paren_depth_limit() -> None:
    """Parentheses nest 10,000 deep (Go's maxStackDepth); one more is an error."""
    ok = "{{" + "(" * _parse.MAX_PAREN_DEPTH + "1" + ")" * _parse.MAX_PAREN_DEPTH + "}}"
    assert len(Template("t").parse(ok).execute(None)) == 1
    deep = "{{" + "(" * (_parse.MAX_PAREN_DEPTH + 1) + "1" + ")" * (_parse.MAX_PAREN_DEPTH + 1) + "}}"
    with pytest.raises(ParseError, match=r"^template: t:1: max expression depth exceeded$"):
        Template("t").parse(deep)


def test_control_depth_limit() -> None:
    """Control structures nest at most MAX_CONTROL_DEPTH deep (Go has no limit; crossfn's stack does)."""
    depth = _parse.MAX_CONTROL_DEPTH + 1
    with pytest.raises(ParseError, match=r"^template: t:1: max expression depth exceeded$"):
        Template("t").parse("{{if 1}}" * depth + "{{end}}" * depth)


NUMBERS = [
    # text, int64, uint64, float64, complex (None where the type cannot hold it)
    ("0", 0, 0, 0.0, None),
    ("-0", 0, 0, 0.0, None),
    ("73", 73, 73, 73.0, None),
    ("7_3", 73, 73, 73.0, None),
    ("0b10_010_01", 73, 73, 73.0, None),
    ("073", 0o73, 0o73, float(0o73), None),
    ("0o73", 0o73, 0o73, float(0o73), None),
    ("0x73", 0x73, 0x73, float(0x73), None),
    ("0x7_3", 0x73, 0x73, float(0x73), None),
    ("-73", -73, None, -73.0, None),
    ("+73", 73, None, 73.0, None),
    ("1e9", 1_000_000_000, 1_000_000_000, 1e9, None),
    ("-1e9", -1_000_000_000, None, -1e9, None),
    ("-1.2", None, None, -1.2, None),
    ("1e19", None, 10**19, 1e19, None),
    ("1e1_9", None, 10**19, 1e19, None),
    ("-1e19", None, None, -1e19, None),
    ("0x_1p4", 16, 16, 16.0, None),
    ("0x_1p-4", None, None, 1 / 16, None),
    ("4i", None, None, None, 4j),
    ("073i", None, None, None, 73j),
    ("0i", 0, 0, 0.0, 0j),
    ("-1.2+0i", None, None, -1.2, complex(-1.2, 0)),
    ("-12+0i", -12, None, -12.0, complex(-12, 0)),
    ("13+0i", 13, 13, 13.0, complex(13, 0)),
    ("0xdeadbeef", 0xDEADBEEF, 0xDEADBEEF, float(0xDEADBEEF), None),
    ("'a'", ord("a"), ord("a"), float(ord("a")), None),
    ("'\\n'", 10, 10, 10.0, None),
    ("'\\xFF'", 0xFF, 0xFF, 255.0, None),
    ("'パ'", 0x30D1, 0x30D1, float(0x30D1), None),
    ("'\\U000030d1'", 0x30D1, 0x30D1, float(0x30D1), None),
    ("0xef", 0xEF, 0xEF, float(0xEF), None),
]


@pytest.mark.parametrize(("text", "i", "u", "f", "c"), NUMBERS, ids=[n[0] for n in NUMBERS])
def test_numbers(text: str, i: int | None, u: int | None, f: float | None, c: complex | None) -> None:
    """A constant is every type that can hold it (Go's TestNumberParse)."""
    typ = ItemType.CHAR_CONSTANT if text[0] == "'" else ItemType.NUMBER
    if "+" in text[1:] and text.endswith("i"):
        typ = ItemType.COMPLEX
    n = new_number(_node.Tree("t", "t", text), 0, text, typ)
    assert (n.is_int, n.is_uint, n.is_float, n.is_complex) == (
        i is not None,
        u is not None,
        f is not None,
        c is not None,
    )
    if i is not None:
        assert n.int64 == i
    if u is not None:
        assert n.uint64 == u
    if f is not None:
        assert math.isclose(n.float64, f) and n.float64 == f
    if c is not None:
        assert n.complex128 == c


@pytest.mark.parametrize(
    "text", ["+-2", "0x123.", "1e.", "0xi.", "1+2.", "'x", "'xx'", "'433937734937734969526500969526500'"]
)
def test_bad_numbers(text: str) -> None:
    """Broken spellings are errors, never a number (Go's numberTests without values)."""
    typ = ItemType.CHAR_CONSTANT if text[0] == "'" else ItemType.NUMBER
    with pytest.raises(Exception) as exc:
        new_number(_node.Tree("t", "t", text), 0, text, typ)
    assert type(exc.value).__name__ == "GoError"


EMPTY = [
    ("", True),
    ("hello", False),
    (" \t\n \t\n", True),
    ("{{/* comment */}}", True),
    ('{{define "x"}}something{{end}}', True),
    ("{{define `x`}}something{{end}}\n\n{{define `y`}}something{{end}}\n\n", True),
    ("{{define `x`}}something{{end}}\nx\n{{define `y`}}something{{end}}\ny\n", False),
    ("{{define `x`}}something{{end}}{{if 3}}foo{{end}}", False),
]


@pytest.mark.parametrize(("text", "empty"), EMPTY)
def test_is_empty_tree(text: str, empty: bool) -> None:
    """Go's IsEmptyTree: only space, comments and definitions (which a later parse may replace)."""
    trees = _parse.parse("root", text, has_function=FUNCS.__contains__)
    assert _node.is_empty_tree(trees["root"].root) is empty


def test_block_defines_a_template() -> None:
    """A block is a template call in its parent and a definition of its own (Go's TestBlock)."""
    trees = _parse.parse("outer", 'a{{block "inner" .}}bar{{.}}baz{{end}}b', has_function=FUNCS.__contains__)
    assert str(trees["outer"].root) == 'a{{template "inner" .}}b'
    assert str(trees["inner"].root) == "bar{{.}}baz"


def test_comments_kept_when_asked() -> None:
    """With comments kept, they print as {{/*...*/}} (Go's TestParseWithComments)."""
    trees = _parse.parse(
        "t", "x \r\n\t{{- /* hi */ -}}\n\n\ty", has_function=FUNCS.__contains__, parse_comments=True
    )
    root = trees["t"].root
    assert root is not None
    assert root.text(quote_text=True) == '"x"{{/* hi */}}"y"'


def test_break_function_replaces_keyword() -> None:
    """A function named break makes {{break 20}} a call (Go's TestKeywordsAndFuncs)."""
    text = "{{range .X}}{{break 20}}{{end}}"
    _parse.parse("t", text, has_function={"break"}.__contains__)
    with pytest.raises(ParseError):
        _parse.parse("t", text, has_function=FUNCS.__contains__)


def test_error_context_counts_bytes() -> None:
    """The column of an execution error counts bytes, as Go's does, not characters; a field chain
    is where its last field starts (Go's parser gives the chain that position)."""
    tree = _parse.parse("t", "héllo {{.x.y}}", has_function=FUNCS.__contains__)["t"]
    assert tree.root is not None
    action = tree.root.nodes[1]
    assert isinstance(action, _node.ActionNode)
    assert _node.error_context(action.pipe.cmds[0].args[0]) == ("t:1:11", ".x.y")
