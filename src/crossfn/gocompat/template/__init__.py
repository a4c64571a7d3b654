"""Go's ``text/template``, byte for byte: parsing, executing and every error text.

function-go-templating renders a Composition's resources with Go's
``text/template``; crossfn renders the same templates here and must print what
Go prints, errors included (``template: manifests:3:14: executing "manifests"
at <.spec.x>: map has no entry for key "x"``). A :class:`Template` is Go's
``*template.Template``: :meth:`~Template.parse` text into it (``{{define}}``
and ``{{block}}`` add associated templates), add functions with
:meth:`~Template.funcs` (each a :class:`crossfn.gocompat.gofunc.Func`, whose
declared Go signature the executor checks arguments against, as Go's
reflection does), set :meth:`~Template.option`\\ s, and
:meth:`~Template.execute` it on data of the Go value model
(:mod:`crossfn.gocompat.values`).

The behaviour changed across Go releases in ways templates can see; a
:class:`GoRelease` picks the one to reproduce (function-go-templating's
releases were built with Go 1.21 to 1.25):

* Go 1.23: ``{{else with}}``;
* Go 1.24: ``range`` over an integer; ``call`` names its callee in errors;
* Go 1.25: a comparison across kinds names both types
  (``incompatible types for comparison: int64 and float64``).

Modules: ``_lex`` (items), ``_parse`` and ``_numbers`` (trees), ``_node``
(the tree and its text), ``_exec`` (execution), ``_funcs`` (the builtins),
``_value`` (what execution holds where Go holds a ``reflect.Value``).
Errors are :class:`ParseError` and :class:`ExecError`, both
:class:`crossfn.errors.GoError`. :class:`TypedNil` is how a function's nil map
or slice reaches the functions a template passes it to.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
import sys
import unicodedata
from collections.abc import Iterator, Mapping
from typing import Any

from crossfn import errors
from crossfn.gocompat import gofunc, strconv
from crossfn.gocompat.template import _exec, _funcs, _node, _parse
from crossfn.gocompat.template._exec import MAX_EXEC_DEPTH, ExecError, ExecLimits
from crossfn.gocompat.template._parse import ParseError
from crossfn.gocompat.template._value import TypedNil

__all__ = [
    "LATEST",
    "MAX_EXEC_DEPTH",
    "ExecError",
    "ExecLimits",
    "GoRelease",
    "OptionError",
    "ParseError",
    "Template",
    "TypedNil",
]


@dataclasses.dataclass(frozen=True)
class GoRelease:
    """The ``text/template`` of one Go release: what changed that a template can see."""

    version: str
    """``1.21``, ``1.25``...: the minor release."""

    @property
    def _minor(self) -> int:
        return int(self.version.split(".")[1])

    @property
    def else_with(self) -> bool:
        """``{{else with}}`` chains ``with`` as ``{{else if}}`` chains ``if`` (Go 1.23)."""
        return self._minor >= 23

    @property
    def range_over_int(self) -> bool:
        """``{{range 5}}`` iterates 0..4 (Go 1.24); before, ``range can't iterate over 5``."""
        return self._minor >= 24

    @property
    def call_names_callee(self) -> bool:
        """``call`` errors name the callee: ``non-function .x of type string`` (Go 1.24)."""
        return self._minor >= 24

    @property
    def typed_comparison_errors(self) -> bool:
        """``incompatible types for comparison: int and float64`` (Go 1.25); before, without the types."""
        return self._minor >= 25

    @classmethod
    def of(cls, version: str) -> GoRelease:
        """The release of a Go version (``go1.23.8``, ``1.24.10``, ``1.21``)."""
        m = re.fullmatch(r"(?:go)?1\.(\d+)(?:\.\d+)?", version)
        if m is None:
            raise ValueError(f"not a Go 1.x version: {version!r}")
        return cls(f"1.{int(m[1])}")


LATEST = GoRelease("1.25")
"""The newest Go release crossfn reproduces."""


class OptionError(errors.GoError):
    """An option :meth:`Template.option` does not know (Go panics with this text)."""


_MISSING_KEY = {"invalid": "default", "default": "default", "zero": "zero", "error": "error"}


@dataclasses.dataclass
class _Common:
    """What associated templates share (Go's ``common``): the set, the functions, the options."""

    release: GoRelease
    limits: ExecLimits
    templates: dict[str, Template] = dataclasses.field(default_factory=dict)
    funcs: dict[str, gofunc.Func] = dataclasses.field(default_factory=dict)
    builtins: dict[str, gofunc.Func] = dataclasses.field(default_factory=dict)
    missing_key: str = "default"


def _good_name(name: str) -> bool:
    """Go's ``goodName``: a letter or underscore, then letters, digits and underscores."""
    if not name:
        return False
    for i, c in enumerate(name):
        if c == "_":
            continue
        letter = unicodedata.category(c)[0] == "L"
        if i == 0 and not letter:
            return False
        if not letter and unicodedata.category(c) != "Nd":
            return False
    return True


@contextlib.contextmanager
def _recursion_room(frames: int) -> Iterator[None]:
    """Let Python recurse as deep as Go's limits need, for the duration of a parse or an execution.

    Nesting is recursion in both Go and here; Go's goroutine stacks grow to
    reach Go's limits, and Python (3.11+) keeps Python-to-Python calls off the
    C stack, so a higher limit costs only memory for the frames in use. The
    caller's limit is put back afterwards (unless someone changed it since):
    a library does not keep the interpreter's global settings changed.
    """
    old = sys.getrecursionlimit()
    if old >= frames:
        yield
        return
    sys.setrecursionlimit(frames)
    try:
        yield
    finally:
        if sys.getrecursionlimit() == frames:
            sys.setrecursionlimit(old)


_PARSE_FRAMES = 8 * max(_parse.MAX_PAREN_DEPTH, _parse.MAX_CONTROL_DEPTH) + 10_000
_EXEC_FRAMES = 8 * MAX_EXEC_DEPTH + 10_000


class Template:
    """Go's ``*template.Template``: a named template, associated with those it defines or is parsed with."""

    def __init__(
        self,
        name: str,
        *,
        release: GoRelease = LATEST,
        limits: ExecLimits | None = None,
        _common: _Common | None = None,
    ) -> None:
        self.name = name
        self.tree: _node.Tree | None = None
        self.left = ""
        self.right = ""
        if _common is None:
            _common = _Common(release, limits or ExecLimits())
            _common.builtins = _funcs.builtins(
                typed_comparison_errors=release.typed_comparison_errors,
                call_names_callee=release.call_names_callee,
            )
        self._common = _common

    @property
    def release(self) -> GoRelease:
        return self._common.release

    @property
    def missing_key(self) -> str:
        """``default``, ``zero`` or ``error``: what reading a missing map key does."""
        return self._common.missing_key

    def new(self, name: str) -> Template:
        """An empty template associated with this one, with its delimiters (Go's ``Template.New``)."""
        t = Template(name, _common=self._common)
        t.left, t.right = self.left, self.right
        return t

    def delims(self, left: str, right: str) -> Template:
        """Action delimiters for later :meth:`parse` calls; "" means the default ``{{``/``}}``."""
        self.left, self.right = left, right
        return self

    def funcs(self, funcs: Mapping[str, gofunc.Func]) -> Template:
        """Add functions, replacing any of the same name; a name Go would refuse raises :class:`crossfn.errors.GoError`."""
        for name in funcs:
            if not _good_name(name):
                raise errors.GoError(f"function name {strconv.quote(name)} is not a valid identifier")
        self._common.funcs.update(funcs)
        return self

    def option(self, *opts: str) -> Template:
        """Go's ``Template.Option``: ``missingkey=default|invalid|zero|error``; anything else is an :class:`OptionError`."""
        for opt in opts:
            if opt == "":
                raise OptionError("empty option string")
            key, eq, value = opt.partition("=")
            if not eq or key != "missingkey" or value not in _MISSING_KEY:
                raise OptionError(f"unrecognized option: {opt}")
            self._common.missing_key = _MISSING_KEY[value]
        return self

    def lookup(self, name: str) -> Template | None:
        """The associated template of that name, if any."""
        return self._common.templates.get(name)

    def templates(self) -> list[Template]:
        return list(self._common.templates.values())

    def find_function(self, name: str) -> tuple[gofunc.Func, bool] | None:
        """The function a name calls, and whether it is a builtin (added functions come first)."""
        fn = self._common.funcs.get(name)
        if fn is not None:
            return fn, False
        fn = self._common.builtins.get(name)
        if fn is not None:
            return fn, True
        return None

    def has_function(self, name: str) -> bool:
        return name in self._common.funcs or name in _funcs.BUILTIN_NAMES

    def parse(self, text: str) -> Template:
        """Parse ``text`` as this template's body; its definitions join the set (Go's ``Template.Parse``).

        A definition with only space and comments does not replace an existing one.
        """
        with _recursion_room(_PARSE_FRAMES):
            trees = _parse.parse(
                self.name,
                text,
                left=self.left,
                right=self.right,
                has_function=self.has_function,
                else_with=self.release.else_with,
            )
        for name, tree in trees.items():
            self._add_parse_tree(name, tree)
        return self

    def _add_parse_tree(self, name: str, tree: _node.Tree) -> None:
        nt = self if name == self.name else self.new(name)
        old = self._common.templates.get(name)
        if old is not None and _node.is_empty_tree(tree.root) and old.tree is not None:
            if nt.tree is None:
                nt.tree = tree
            return
        self._common.templates[name] = nt
        nt.tree = tree

    def execute(self, data: Any) -> str:
        """Run the template on ``data``; the text it writes, or an :class:`ExecError`."""
        try:
            with _recursion_room(_EXEC_FRAMES):
                return _exec.execute(self, data, self._common.limits)
        except RecursionError:
            raise ExecError(f"template: {self.name}: nesting too deep to execute") from None

    def execute_template(self, name: str, data: Any) -> str:
        """Run the associated template ``name`` (Go's ``ExecuteTemplate``)."""
        tmpl = self.lookup(name)
        if tmpl is None:
            raise ExecError(
                f"template: no template {strconv.quote(name)} associated with template {strconv.quote(self.name)}"
            )
        return tmpl.execute(data)
