"""Write YAML byte for byte as sigs.k8s.io/yaml does (go-yaml v2 over libyaml's emitter rules).

Kubernetes' tools (``crossplane render``, ``kubectl get -o yaml``, the JSON
serializer in YAML mode) write an object with Go's ``encoding/json``, then
``sigs.k8s.io/yaml``, which decodes that JSON with its fork of go-yaml v2 and
encodes it again. So the bytes follow go-yaml v2's rules, not PyYAML's:

* map keys in go-yaml's "natural" order (``sorter.go``): digit runs compare as
  numbers, non-letters sort before letters;
* a string is quoted only if, unquoted, go-yaml would read it as something
  else (``"True"``, ``"y"``, ``"1.5"``, ``"2024-01-01T00:00:00Z"``, ``""``,
  the same ``_yaml_resolve`` rules the loader reads with), or looks like a
  YAML 1.1 base-60 float (``"1:30"``), or if the emitter cannot write it plain
  (``'Unready resources: a, b'``); strings with a line break become literal
  blocks (``|-``) when they can;
* plain and quoted scalars fold at column 80, as libyaml's emitter does;
* numbers as Go prints them after the float64 round trip through JSON
  (:func:`number`): whole numbers in the int64 range as integers, whole
  numbers up to 2^64 as the digits ``encoding/json`` wrote (go-yaml reads them
  back as a uint64), others with ``strconv.FormatFloat(f, 'g', -1, 64)``
  (``1e+06``, ``1.5e-07``, ``1.2345678901234567e+20``);
* empty maps and lists in flow style (``{}``, ``[]``), sequences in a map not
  indented.

This module is a small emitter of exactly that, written from libyaml's
documented emitter rules; PyYAML cannot be configured to match them. It is
pure (no I/O) and takes plain JSON-like data.

Known limit: a map key longer than 128 characters or containing a line break
uses YAML's explicit ``? key`` form, as go-yaml does; such keys do not occur in
Kubernetes objects and are only lightly tested.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

from crossfn.gocompat import _yaml_order, _yaml_resolve, strconv

__all__ = ["needs_quotes", "number", "sorted_items", "to_yaml", "to_yaml_stream"]

_BEST_WIDTH = 80
_BEST_INDENT = 2
_MAX_SIMPLE_KEY = 128

_PLAIN, _SINGLE, _DOUBLE, _LITERAL = "plain", "single", "double", "literal"

# --- scalar analysis (libyaml yaml_emitter_analyze_scalar) ----------------------

_BREAKS = "\n\r\x85\u2028\u2029"
_SIMPLE = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9_./ -]*[A-Za-z0-9_./-])?")
"""Strings that start with an alphanumeric and hold no indicator, break or edge space: always plain-safe."""


def _printable(ch: str) -> bool:
    cp = ord(ch)
    return (
        cp == 0x0A or 0x20 <= cp <= 0x7E or 0xA0 <= cp <= 0xD7FF or (0xE000 <= cp <= 0xFFFD and cp != 0xFEFF)
    )


class _Analysis:
    """What the emitter may do with one scalar: which styles it allows.

    ``tabs``: go-yaml v3's rule for a tab (no plain or single-quoted scalar, but a literal
    block may hold one); for libyaml and go-yaml v2 a tab is a special character (double quotes).
    """

    __slots__ = ("block", "multiline", "plain", "single")

    def __init__(self, value: str, *, tabs: bool = False) -> None:
        if not value:
            self.multiline, self.plain, self.single, self.block = False, True, True, False
            return
        if _SIMPLE.fullmatch(value):
            # Most Kubernetes strings: nothing an indicator scan could object to.
            self.multiline, self.plain, self.single, self.block = False, True, True, True
            return
        block_ind = line_breaks = special = tab = False
        leading_space = leading_break = trailing_space = trailing_break = False
        break_space = space_break = previous_space = previous_break = False
        if value.startswith(("---", "...")):
            block_ind = True
        preceded_by_ws = True
        n = len(value)
        for i, ch in enumerate(value):
            followed_by_ws = i + 1 >= n or value[i + 1] in " \t"
            # Only block context is emitted, so only block indicators matter.
            if i == 0:
                if ch in "#,[]{}&*!|>'\"%@`" or (ch in "?:-" and followed_by_ws):
                    block_ind = True
            elif (ch == ":" and followed_by_ws) or (ch == "#" and preceded_by_ws):
                block_ind = True
            if tabs and ch == "\t":
                tab = True
            elif not _printable(ch):
                special = True
            if ch == " ":
                leading_space = leading_space or i == 0
                trailing_space = trailing_space or i == n - 1
                break_space = break_space or previous_break
                previous_space, previous_break = True, False
            elif ch in _BREAKS:
                line_breaks = True
                leading_break = leading_break or i == 0
                trailing_break = trailing_break or i == n - 1
                space_break = space_break or previous_space
                previous_space, previous_break = False, True
            else:
                previous_space = previous_break = False
            preceded_by_ws = ch in " \t" or ch in _BREAKS
        self.multiline = line_breaks
        self.plain = self.single = self.block = True
        if leading_space or leading_break or trailing_space or trailing_break:
            self.plain = False
        if trailing_space:
            self.block = False
        if break_space:
            self.plain = self.single = False
        if space_break or special:
            self.plain = self.single = self.block = False
        if tab:
            self.plain = self.single = False
        if line_breaks or block_ind:
            self.plain = False


_ANALYSES: dict[str, _Analysis] = {}
_ANALYSES_MAX = 1 << 16


def _analysis(value: str) -> _Analysis:
    """``_Analysis(value)``, remembered: keys and many values repeat across a large document."""
    found = _ANALYSES.get(value)
    if found is None:
        found = _Analysis(value)
        if len(_ANALYSES) < _ANALYSES_MAX:
            _ANALYSES[value] = found
    return found


def _scalar(value: object) -> tuple[str, str]:
    """The text of a scalar and the style go-yaml asks the emitter for."""
    if value is None:
        return "null", _PLAIN
    if value is True:
        return "true", _PLAIN
    if value is False:
        return "false", _PLAIN
    if isinstance(value, int | float):
        return number(value), _PLAIN
    if isinstance(value, str):
        if "\n" in value:
            return value, _LITERAL
        return value, _DOUBLE if needs_quotes(value) else _PLAIN
    raise TypeError(f"cannot write {type(value).__name__} as YAML")


# --- the emitter (libyaml's block-style writer, the parts go-yaml uses) -------------


_SCALAR_TYPES = frozenset({str, int, float, bool, type(None)})


class _Emitter:
    """Writes one document; mirrors libyaml's column, whitespace and indention state."""

    def __init__(self) -> None:
        self.out: list[str] = []
        self.column = 0
        self.whitespace = True
        self.indention = True

    def put(self, text: str) -> None:
        self.out.append(text)
        self.column += len(text)

    def put_break(self) -> None:
        self.out.append("\n")
        self.column = 0

    def write_indent(self, indent: int) -> None:
        if not self.indention or self.column > indent or (self.column == indent and not self.whitespace):
            self.put_break()
        if self.column < indent:
            self.put(" " * (indent - self.column))
        self.whitespace = True
        self.indention = True

    def indicator(self, text: str, *, need_ws: bool, is_ws: bool = False, is_indention: bool = False) -> None:
        if need_ws and not self.whitespace:
            self.put(" ")
        self.put(text)
        self.whitespace = is_ws
        self.indention = self.indention and is_indention

    # nodes

    def node(self, value: object, indent: int, *, in_mapping: bool, simple_key: bool = False) -> None:
        """Emit a node whose parent has indentation ``indent``."""
        kind = type(
            value
        )  # exact types first: isinstance against the ABCs is slow, and most values are plain
        if kind is dict or (kind not in _SCALAR_TYPES and kind is not list and isinstance(value, Mapping)):
            if not value:
                self.indicator("{", need_ws=True, is_ws=True)
                self.indicator("}", need_ws=False)
                return
            self.mapping(cast(Mapping[str, Any], value), indent + _BEST_INDENT)
        elif kind is list or (
            kind not in _SCALAR_TYPES and isinstance(value, Sequence) and kind is not bytes
        ):
            if not value:
                self.indicator("[", need_ws=True, is_ws=True)
                self.indicator("]", need_ws=False)
                return
            indentless = in_mapping and not self.indention
            self.sequence(cast(Sequence[Any], value), indent if indentless else indent + _BEST_INDENT)
        else:
            text, style = _scalar(value)
            self.scalar(text, style, indent + _BEST_INDENT, simple_key=simple_key)

    def mapping(self, m: Mapping[str, Any], indent: int) -> None:
        for key, value in sorted_items(m):
            if not isinstance(key, str):
                raise TypeError(f"cannot write a {type(key).__name__} map key as YAML")
            self.write_indent(indent)
            if len(key) <= _MAX_SIMPLE_KEY and not _analysis(key).multiline:
                self.node(key, indent, in_mapping=True, simple_key=True)
                self.indicator(":", need_ws=False)
            else:
                self.indicator("?", need_ws=True, is_indention=True)
                self.node(key, indent, in_mapping=True)
                self.write_indent(indent)
                self.indicator(":", need_ws=True, is_indention=True)
            self.node(value, indent, in_mapping=True)

    def sequence(self, items: Sequence[Any], indent: int) -> None:
        for item in items:
            self.write_indent(indent)
            self.indicator("-", need_ws=True, is_indention=True)
            self.node(item, indent, in_mapping=False)

    def scalar(self, text: str, style: str, indent: int, *, simple_key: bool) -> None:
        a = _analysis(text)
        if style == _PLAIN and (not a.plain or (not text and simple_key)):
            style = _SINGLE
        if style == _SINGLE and not a.single:
            style = _DOUBLE
        if style == _LITERAL and (not a.block or simple_key):
            style = _DOUBLE
        breaks = not simple_key
        if style == _PLAIN:
            self.plain(text, indent, breaks)
        elif style == _SINGLE:
            self.single_quoted(text, indent, breaks)
        elif style == _DOUBLE:
            self.double_quoted(text, indent, breaks)
        else:
            self.literal(text, indent)

    def plain(self, text: str, indent: int, breaks: bool) -> None:
        if not self.whitespace:
            self.put(" ")
        if not breaks or " " not in text or self.column + len(text) <= _BEST_WIDTH:
            # No space can sit past the fold column: write it whole.
            self.put(text)
            self.whitespace = False
            self.indention = False
            return
        spaces = False
        for i, ch in enumerate(text):
            if ch == " ":
                nxt = text[i + 1 : i + 2]
                if breaks and not spaces and self.column > _BEST_WIDTH and nxt != " ":
                    self.write_indent(indent)
                else:
                    self.put(ch)
                spaces = True
            else:
                self.put(ch)
                self.indention = False
                spaces = False
        self.whitespace = False
        self.indention = False

    def single_quoted(self, text: str, indent: int, breaks: bool) -> None:
        self.indicator("'", need_ws=True)
        if "'" not in text and (not breaks or " " not in text or self.column + len(text) <= _BEST_WIDTH):
            self.put(text)
        else:
            spaces = False
            last = len(text) - 1
            for i, ch in enumerate(text):
                if ch == " ":
                    nxt = text[i + 1 : i + 2]
                    if breaks and not spaces and self.column > _BEST_WIDTH and 0 < i < last and nxt != " ":
                        self.write_indent(indent)
                    else:
                        self.put(ch)
                    spaces = True
                else:
                    self.put("''" if ch == "'" else ch)
                    self.indention = False
                    spaces = False
        self.end_quoted("'")

    def double_quoted(self, text: str, indent: int, breaks: bool) -> None:
        self.indicator('"', need_ws=True)
        if _SIMPLE.fullmatch(text) and (
            not breaks or " " not in text or self.column + len(text) <= _BEST_WIDTH
        ):
            self.put(text)
        else:
            spaces = False
            last = len(text) - 1
            for i, ch in enumerate(text):
                if not _printable(ch) or ch == "\ufeff" or ch in _BREAKS or ch in '"\\':
                    esc = _ESCAPES.get(ch)
                    self.put("\\" + esc if esc else _hex_escape(ch))
                    spaces = False
                elif ch == " ":
                    if breaks and not spaces and self.column > _BEST_WIDTH and 0 < i < last:
                        self.write_indent(indent)
                        if text[i + 1] == " ":
                            self.put("\\")
                    else:
                        self.put(ch)
                    spaces = True
                else:
                    self.put(ch)
                    spaces = False
        self.end_quoted('"')

    def end_quoted(self, quote: str) -> None:
        """Close a quoted scalar: nothing that follows counts as whitespace or indention."""
        self.indicator(quote, need_ws=False)
        self.whitespace = False
        self.indention = False

    def literal(self, text: str, indent: int) -> None:
        self.indicator("|", need_ws=True)
        if text[:1] in (" ", *_BREAKS):
            self.indicator(str(_BEST_INDENT), need_ws=False)
        last = text[-1:]
        if last not in _BREAKS:
            self.indicator("-", need_ws=False)
        elif len(text) == 1 or text[-2] in _BREAKS:
            self.indicator("+", need_ws=False)
        self.put_break()
        self.indention = True
        self.whitespace = True
        at_break = True
        for ch in text:
            if ch in _BREAKS:
                if ch == "\n":
                    self.put_break()
                else:  # libyaml copies other line breaks as they are
                    self.out.append(ch)
                    self.column = 0
                self.indention = True
                at_break = True
            else:
                if at_break:
                    self.write_indent(indent)
                self.put(ch)
                self.indention = False
                at_break = False


_ESCAPES = {
    "\x00": "0", "\x07": "a", "\x08": "b", "\t": "t", "\n": "n", "\x0b": "v", "\x0c": "f",
    "\r": "r", "\x1b": "e", '"': '"', "\\": "\\", "\x85": "N", "\xa0": "_",
    "\u2028": "L", "\u2029": "P",
}  # fmt: skip


def _hex_escape(ch: str) -> str:
    cp = ord(ch)
    if cp <= 0xFF:
        return f"\\x{cp:02X}"
    if cp <= 0xFFFF:
        return f"\\u{cp:04X}"
    return f"\\U{cp:08X}"


def to_yaml(doc: Any) -> str:
    """One value (an object, as a rule) as ``sigs.k8s.io/yaml`` writes it, ending in a newline."""
    e = _Emitter()
    if isinstance(doc, Mapping):
        if not doc:
            return "{}\n"
        e.mapping(doc, 0)
    elif isinstance(doc, list | tuple):
        if not doc:
            return "[]\n"
        e.sequence(doc, 0)
    else:
        e.node(doc, 0, in_mapping=False)
    if not (e.indention and e.column == 0):
        e.put_break()
    return "".join(e.out)


def to_yaml_stream(docs: Iterable[Any]) -> str:
    """Documents as one YAML stream, each after a ``---`` line (how ``crossplane render`` prints them)."""
    return "".join("---\n" + to_yaml(d) for d in docs)


# --- which strings need quotes, how numbers print --------------------------------


def needs_quotes(s: str) -> bool:
    """Whether go-yaml's encoder quotes ``s`` (``encode.go`` ``stringv``): unquoted, go-yaml would read it as
    something other than a string, or it looks like a YAML 1.1 base-60 float, which other parsers would misread."""
    return not _yaml_resolve.is_string(s) or _yaml_resolve.is_base60_float(s)


_INT64 = 1 << 63
_UINT64 = 1 << 64


def number(value: int | float) -> str:
    """A number as sigs.k8s.io/yaml prints it once it has been a float64 in JSON (the Kubernetes round trip).

    Integers in the int64 range print as they are. Anything else is a float64:
    ``encoding/json`` writes a whole one below 1e21 as digits, which go-yaml
    reads back as an int when they fit 64 bits (``12345678901234567890`` prints
    as ``12345678901234567000``) and as a float otherwise; floats print as
    ``strconv.FormatFloat(f, 'g', -1, 64)`` with go-yaml's ``.inf``/``.nan``.
    """
    if isinstance(value, int):
        if -_INT64 <= value < _INT64:
            return str(value)
        try:
            value = float(value)
        except OverflowError:
            raise ValueError(f"cannot write {value} as YAML: out of float64 range") from None
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    if value.is_integer() and -_INT64 <= value < _UINT64:
        return strconv.format_float(value, "f", -1) if value >= _INT64 else str(int(value))
    return strconv.format_float(value, "g", -1)


# --- natural key order (go-yaml v2 sorter.go keyList.Less: _yaml_order) -------------


class _Key:
    __slots__ = ("s",)

    def __init__(self, s: str) -> None:
        self.s = s

    def __lt__(self, other: _Key) -> bool:
        return _yaml_order.v2_less(self.s, other.s)


_LETTERS = re.compile(r"[A-Za-z]*")


def sorted_items(m: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The entries of ``m`` in go-yaml's natural key order."""
    if all(isinstance(k, str) and _LETTERS.fullmatch(k) for k in m):
        # For ASCII letters alone go-yaml's order is plain string order.
        return sorted(m.items())
    return sorted(m.items(), key=lambda kv: _Key(kv[0]))
