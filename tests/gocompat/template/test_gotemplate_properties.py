"""Properties of the text/template engine: trees round-trip through their text, no input ends in
anything but Go's one-line errors, and hostile templates stop within bounds."""

from __future__ import annotations

from typing import Any

import pytest
from gotemplate_cases import FUNCS, G
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crossfn import errors
from crossfn.gocompat.template import ExecError, ExecLimits, ParseError, Template

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# A grammar of templates: every one parses.
_IDENT = st.sampled_from(["a", "b", "x", "Items", "spec", "name"])
_FIELD = st.lists(_IDENT, min_size=1, max_size=3).map(lambda xs: "." + ".".join(xs))
_CONST = st.one_of(
    st.integers(-1000, 1000).map(str),
    st.sampled_from(["1.5", "0x1f", "'a'", "true", "false", "1e3"]),
    st.text(st.characters(codec="utf-8", exclude_characters='"\\\n'), max_size=6).map(lambda s: f'"{s}"'),
)
_OPERAND = st.one_of(_FIELD, _CONST, st.just("."), st.just("$"), _FIELD.map(lambda f: "$" + f))


def _command(operand: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    call = st.tuples(
        st.sampled_from(["print", "len", "not", "eq", "printf", "index", "and", "or"]),
        st.lists(operand, max_size=3),
    )
    return st.one_of(operand, call.map(lambda c: " ".join([c[0], *c[1]])))


_PIPELINE = st.recursive(
    _command(_OPERAND),
    lambda inner: st.one_of(
        st.tuples(inner, _command(_OPERAND)).map(
            lambda p: f"{p[0]} | {p[1].split()[0]}" if p[1].split()[0].isalpha() else p[0]
        ),
        inner.map(lambda p: f"print ({p})"),
    ),
    max_leaves=4,
)
_TEXT = st.text(st.characters(codec="utf-8", exclude_characters="{}"), max_size=8)


def _body(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.tuples(st.sampled_from(["if", "with", "range"]), _PIPELINE, children, st.booleans(), children).map(
            lambda t: f"{{{{{t[0]} {t[1]}}}}}{t[2]}" + (f"{{{{else}}}}{t[4]}" if t[3] else "") + "{{end}}"
        ),
        st.lists(children, max_size=3).map("".join),
    )


TEMPLATES = st.recursive(
    st.one_of(_TEXT, _PIPELINE.map(lambda p: f"{{{{{p}}}}}"), st.just("{{/* c */}}"), st.just("{{- . -}}")),
    _body,
    max_leaves=8,
)


@SETTINGS
@given(TEMPLATES)
def test_text_of_a_tree_parses_to_the_same_tree(text: str) -> None:
    """Parse, print, parse, print: the second text is the first (Go's String() is the template)."""
    try:
        tree = Template("t").funcs(FUNCS).parse(text).tree
    except ParseError:
        return  # e.g. a variable the grammar used without declaring it
    assert tree is not None and tree.root is not None
    printed = str(tree.root)
    again = Template("t").funcs(FUNCS).parse(printed).tree
    assert again is not None and again.root is not None
    assert str(again.root) == printed


_PIECES = st.one_of(
    st.sampled_from([*"{}()|.$:=,'\"`- \n\t", "{{", "}}", "{{-", "-}}", "/*", "*/"]),
    st.sampled_from(["if", "else", "end", "range", "with", "define", "template", "block", "break", "nil"]),
    st.sampled_from([" .a", " $x", " 1", " 1.5", ' "s"', " print", " index", " len", " eq", " and"]),
    st.characters(codec="utf-8"),
)
_ANY_TEXT = st.lists(_PIECES, max_size=40).map("".join)
_DATA = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.floats(allow_nan=False), st.text(max_size=4)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_IDENT, inner, max_size=3)),
    max_leaves=6,
)


@SETTINGS
@given(_ANY_TEXT, _DATA)
def test_any_input_is_output_or_one_go_error(text: str, data: Any) -> None:
    """No text and no data ends in anything but output or Go's error: one line, ``template: ...``."""
    limits = ExecLimits(max_output=10_000, max_steps=10_000)
    try:
        out = Template("t", limits=limits).funcs(FUNCS).parse(text).execute(data)
    except errors.GoError as exc:
        message = str(exc)
        assert message.startswith("template: "), message
    else:
        assert isinstance(out, str)


def test_huge_range_stops_at_the_step_limit() -> None:
    """A range over a huge count stops with one error instead of running for hours."""
    limits = ExecLimits(max_steps=10_000)
    with pytest.raises(
        ExecError, match=r'^template: t:1:\d+: executing "t" at <.*>: execution took more than 10000 steps$'
    ):
        Template("t", limits=limits).parse("{{range .}}{{end}}").execute(G(10**12))


def test_output_is_bounded() -> None:
    """Output beyond the limit is an error naming the node that crossed it; nothing partial is returned."""
    limits = ExecLimits(max_output=1000)
    with pytest.raises(ExecError, match=r"output is larger than 1000 characters$"):
        Template("t", limits=limits).parse("{{range .}}0123456789{{end}}").execute(list(range(200)))


def test_exponential_templates_are_bounded() -> None:
    """Templates calling each other twice per level (2^40 calls) end at the step limit."""
    text = "".join(
        f'{{{{define "t{i}"}}}}{{{{template "t{i + 1}"}}}}{{{{template "t{i + 1}"}}}}{{{{end}}}}'
        for i in range(40)
    )
    text += '{{define "t40"}}x{{end}}{{template "t0"}}'
    with pytest.raises(ExecError, match="execution took more than 100000 steps"):
        Template("t", limits=ExecLimits(max_steps=100_000)).parse(text).execute(None)


def test_nested_executions_share_the_budget() -> None:
    """A function that executes a template (as include does) draws on the caller's budget, not a new one."""
    from crossfn.gocompat import gofunc

    t = Template("t", limits=ExecLimits(max_steps=5_000))

    def include(name: str, data: Any) -> str:
        return t.execute_template(name, data)

    t.funcs({"include": gofunc.Func(include, ("string", gofunc.ANY), returns="string", returns_error=True)})
    t.parse(
        '{{define "loop"}}{{range .}}{{include "inner" .}}{{end}}{{end}}{{define "inner"}}{{range 100}}{{end}}{{end}}'
    )
    with pytest.raises(ExecError, match="execution took more than 5000 steps"):
        t.execute_template("loop", list(range(1000)))


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    """Ten thousand nested ifs are at the parser's bound; more is one error line."""
    depth = 10_001
    with pytest.raises(ParseError, match="max expression depth exceeded"):
        Template("t").parse("{{if 1}}" * depth + "{{end}}" * depth)


def test_public_surface() -> None:
    """The package exports what its docstring describes, each documented; the modules under it are private."""
    import crossfn.gocompat.template as pkg

    assert set(pkg.__all__) == {
        "LATEST",
        "MAX_EXEC_DEPTH",
        "ExecError",
        "ExecLimits",
        "GoRelease",
        "OptionError",
        "ParseError",
        "Template",
        "TypedNil",
    }
    for name in pkg.__all__:
        obj = getattr(pkg, name)
        if isinstance(obj, type):
            assert obj.__doc__, name
