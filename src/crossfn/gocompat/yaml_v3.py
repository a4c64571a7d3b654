"""YAML as gopkg.in/yaml.v3 (v3.0.1) writes and reads it: ``yaml.Marshal`` and ``yaml.Unmarshal`` into ``any``.

function-go-templating's ``toYaml`` and ``fromYaml`` call these, so a template
that prints ``toYaml`` output sees v3's layout, not Kubernetes' (go-yaml v2 via
sigs.k8s.io/yaml, :mod:`crossfn.gocompat.yaml_emitter`):

* four spaces of indentation, and a sequence in a mapping is indented too
  (``a:\\n    - x``); a collection inside a sequence item starts after its
  ``- `` (two more columns), every other nested one at the next multiple of four;
* no line folding, however long a line;
* a string is quoted (``"..."``) when v3 would read it back as something else
  (``"true"``, ``"1.5"``, ``"2024-01-01"``) or when it is a YAML 1.1 boolean or
  base-60 float (``"yes"``, ``"1:30"``); single quotes when the emitter cannot
  write it plain (``'- x'``, ``'a: b'``); a literal block (``|-``) when it holds a
  newline; invalid UTF-8 as ``!!binary`` base64;
* integers as digits, floats as Go's ``FormatFloat(f, 'g', -1, 64)`` (``1e+06``)
  with ``.inf``/``-.inf``/``.nan``; map keys in v3's natural order (digit runs by
  value, with v3's tweak after equal digits).

Reading (:func:`unmarshal`) resolves plain scalars by YAML 1.2 as v3 does:
only ``true``/``false`` (three spellings) are booleans (``yes``, ``on``, ``y`` are
strings), integers are Go ``int`` (:class:`~crossfn.gocompat.values.GoInt`), or a
``uint64`` past int64, ``0o17`` and ``0b101`` are integers, timestamps are
``time.Time``; a mapping whose keys are all strings is ``map[string]interface {}``
(a dict), any other is ``map[interface {}]interface {}``
(:class:`~crossfn.gocompat.values.AnyKeyMap`).
Only the first document is read; a repeated key is v3's
``yaml: unmarshal errors:\\n  line N: mapping key "k" already defined at line M``.

A syntax error is worded as go-yaml words it for the common ones
(:func:`crossfn.gocompat.yaml_loader.go_message`); rarer ones keep PyYAML's
words (docs/compatibility.md).
"""

from __future__ import annotations

import base64
import math
from collections.abc import Mapping, Sequence
from typing import Any

import yaml

from crossfn import errors
from crossfn.gocompat import _yaml_order, gofunc, strconv, values, yaml_emitter, yaml_loader
from crossfn.gocompat import _yaml_resolve as v2resolve
from crossfn.gocompat import time as gotime

__all__ = ["marshal", "unmarshal"]

_BEST_INDENT = 4
_RFC3339_NANO = "2006-01-02T15:04:05.999999999Z07:00"
_MAX_SIMPLE_KEY = 128
_PLAIN, _SINGLE, _DOUBLE, _LITERAL = "plain", "single", "double", "literal"
_BREAKS = "\r\n\x85\u2028\u2029"


# --- writing ----------------------------------------------------------------------


def marshal(value: Any) -> str:
    """``yaml.Marshal(value)``; raises :class:`~crossfn.gocompat.gofunc.Panic` for a value v3 cannot marshal."""
    e = _Emitter()
    e.node(value, seq_item=False)
    if e.column > 0:
        e.put_break()
    return "".join(e.out)


def _is_break(ch: str) -> bool:
    return ch in _BREAKS


def _analysis(text: str) -> tuple[bool, bool, bool, bool]:
    """``(multiline, plain, single, block)``: libyaml's analysis as v3 runs it (a tab forbids plain and single)."""
    a = yaml_emitter._Analysis(text, tabs=True) if "\t" in text else yaml_emitter._analysis(text)
    return a.multiline, a.plain, a.single, a.block


def _go_string_style(s: str) -> tuple[str, str, str]:
    """``(text, tag, style)`` v3's ``stringv`` asks for."""
    tag = ""
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        tag = "!!binary"
        s = _base64_lines(values.to_bytes(s))
        quote = False
    else:
        rtag = _resolve_tag(s)
        quote = rtag != v2resolve.STR or v2resolve.is_base60_float(s) or s in _OLD_BOOLS
    if "\n" in s:
        return s, tag, _LITERAL
    return s, tag, _DOUBLE if quote else _PLAIN


_OLD_BOOLS = frozenset(
    ["y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "n", "N", "no", "No", "NO", "off", "Off", "OFF"]
)  # fmt: skip
"""YAML 1.1's booleans, which v3 reads as strings but quotes on output (``isOldBool``)."""


def _base64_lines(data: bytes) -> str:
    """v3's ``encodeBase64``: lines of 70 characters, each ending in a newline when there is more than one."""
    enc = base64.b64encode(data).decode("ascii")
    if len(enc) // 70 + 1 == 1:
        return enc
    return "".join(enc[i : i + 70] + "\n" for i in range(0, len(enc), 70))


def _float_text(f: float) -> str:
    if math.isnan(f):
        return ".nan"
    if math.isinf(f):
        return ".inf" if f > 0 else "-.inf"
    return strconv.format_float(f, "g", -1)


def _scalar(value: Any) -> tuple[str, str, str] | None:
    """``(text, tag, style)`` of a scalar value; None for a collection."""
    if value is None:
        return "null", "", _PLAIN
    if value is True:
        return "true", "", _PLAIN
    if value is False:
        return "false", "", _PLAIN
    if isinstance(value, int):
        return str(int(value)), "", _PLAIN
    if isinstance(value, float):
        return _float_text(value), "", _PLAIN
    if isinstance(value, str):
        return _go_string_style(value)
    return None


class _Emitter:
    """libyaml's block emitter as v3 configures it: indent 4, unlimited width, never indentless sequences."""

    def __init__(self) -> None:
        self.out: list[str] = []
        self.column = 0
        self.whitespace = True
        self.indention = True
        self.indent = -1
        self.indents: list[int] = []

    def put(self, text: str) -> None:
        self.out.append(text)
        self.column += len(text)

    def put_break(self) -> None:
        self.out.append("\n")
        self.column = 0
        self.indention = True

    def write_break(self, ch: str) -> None:
        if ch == "\n":
            self.put_break()
        else:
            self.out.append(ch)
            self.column = 0
            self.indention = True

    def write_indent(self) -> None:
        indent = max(self.indent, 0)
        if not self.indention or self.column > indent or (self.column == indent and not self.whitespace):
            self.put_break()
        if self.column < indent:
            self.put(" " * (indent - self.column))
        self.whitespace = True

    def indicator(self, text: str, *, need_ws: bool, is_ws: bool = False, is_indention: bool = False) -> None:
        if need_ws and not self.whitespace:
            self.put(" ")
        self.put(text)
        self.whitespace = is_ws
        self.indention = self.indention and is_indention

    def increase_indent(self, *, flow: bool, seq_item: bool) -> None:
        self.indents.append(self.indent)
        if self.indent < 0:
            self.indent = _BEST_INDENT if flow else 0
        elif seq_item:
            self.indent += 2  # the first indent inside a sequence only skips the "- "
        else:
            self.indent = _BEST_INDENT * ((self.indent + _BEST_INDENT) // _BEST_INDENT)

    def decrease_indent(self) -> None:
        self.indent = self.indents.pop()

    # nodes

    def node(self, value: Any, *, seq_item: bool, simple_key: bool = False) -> None:
        scalar = None if isinstance(value, values.GoNamed) else _scalar(value)
        if scalar is not None:
            self.node_scalar(*scalar, seq_item=seq_item, simple_key=simple_key)
            return
        if isinstance(value, values.GoNamed):
            self.named(value, seq_item=seq_item, simple_key=simple_key)
        elif isinstance(value, Mapping):
            if not value:
                self.empty("{", "}", seq_item)
                return
            self.mapping(_sorted_items(value), seq_item)
        elif isinstance(value, Sequence) and not isinstance(value, str | bytes):
            if not value:
                self.empty("[", "]", seq_item)
                return
            self.increase_indent(flow=False, seq_item=seq_item)
            for item in value:
                self.write_indent()
                self.indicator("-", need_ws=True, is_indention=True)
                self.node(item, seq_item=True)
            self.decrease_indent()
        else:
            raise gofunc.Panic(f"cannot marshal type: {values.type_name(value)}")

    def named(self, value: values.GoNamed, *, seq_item: bool, simple_key: bool) -> None:
        """A value of a named Go type, as v3's ``marshal`` dispatches on it."""
        if isinstance(value, gotime.Time):
            self.node_scalar(
                value.format(_RFC3339_NANO), "", _PLAIN, seq_item=seq_item, simple_key=simple_key
            )
            return
        if value.go_type == "time.Duration":
            text = value.go_string() or ""
            self.node_scalar(*_go_string_style(text), seq_item=seq_item, simple_key=simple_key)
            return
        if isinstance(value, int | str):  # a named number or string: its underlying value
            self.node(
                int(value) if isinstance(value, int) else str(value), seq_item=seq_item, simple_key=simple_key
            )
            return
        marshalled = value.go_json()
        if isinstance(marshalled, str):  # an encoding.TextMarshaler: its text
            self.node(marshalled, seq_item=seq_item, simple_key=simple_key)
            return
        # A struct's fields in declaration order, named in lower case (v3 reads no json tags).
        fields = [(name.lower(), v) for name, v in value.go_fields().items()]
        if not fields:
            self.empty("{", "}", seq_item)
            return
        self.mapping(fields, seq_item)

    def node_scalar(self, text: str, tag: str, style: str, *, seq_item: bool, simple_key: bool) -> None:
        self.increase_indent(flow=True, seq_item=seq_item)
        self.scalar(text, tag, style, simple_key=simple_key)
        self.decrease_indent()

    def empty(self, left: str, right: str, seq_item: bool) -> None:
        self.indicator(left, need_ws=True, is_ws=True)
        self.increase_indent(flow=True, seq_item=seq_item)
        self.decrease_indent()
        self.indicator(right, need_ws=False)

    def mapping(self, items: list[tuple[Any, Any]], seq_item: bool) -> None:
        self.increase_indent(flow=False, seq_item=seq_item)
        for key, value in items:
            self.write_indent()
            if self._simple_key(key):
                self.node(key, seq_item=False, simple_key=True)
                self.indicator(":", need_ws=False)
            else:
                self.indicator("?", need_ws=True, is_indention=True)
                self.node(key, seq_item=False)
                self.write_indent()
                self.indicator(":", need_ws=True, is_indention=True)
            self.node(value, seq_item=False)
        self.decrease_indent()

    @staticmethod
    def _simple_key(key: Any) -> bool:
        scalar = _scalar(key)
        if scalar is None:
            return isinstance(key, Mapping | list | tuple) and not key
        text, tag, _ = scalar
        if _analysis(text)[0]:
            return False
        return len(text.encode("utf-8", "surrogateescape")) + len(tag) <= _MAX_SIMPLE_KEY

    def scalar(self, text: str, tag: str, style: str, *, simple_key: bool) -> None:
        multiline, plain, single, block = _analysis(text)
        del multiline
        if style == _PLAIN and (not plain or (not text and simple_key)):
            style = _SINGLE
        if style == _SINGLE and not single:
            style = _DOUBLE
        if style == _LITERAL and (not block or simple_key):
            style = _DOUBLE
        if tag:
            self.indicator(tag, need_ws=True)
        if style == _PLAIN:
            if text and not self.whitespace:
                self.put(" ")
            self.put(text)
            if text:
                self.whitespace = False
            self.indention = False
        elif style == _SINGLE:
            self.single_quoted(text)
        elif style == _DOUBLE:
            self.double_quoted(text)
        else:
            self.literal(text)

    def single_quoted(self, text: str) -> None:
        self.indicator("'", need_ws=True)
        breaks = False
        for ch in text:
            if ch == " ":
                self.put(ch)
            elif _is_break(ch):
                if not breaks and ch == "\n":
                    self.put_break()
                self.write_break(ch)
                breaks = True
            else:
                if breaks:
                    self.write_indent()
                self.put("''" if ch == "'" else ch)
                self.indention = False
                breaks = False
        self.indicator("'", need_ws=False)
        self.whitespace = False
        self.indention = False

    def double_quoted(self, text: str) -> None:
        self.indicator('"', need_ws=True)
        for ch in text:
            if not yaml_emitter._printable(ch) or ch == "\ufeff" or _is_break(ch) or ch in '"\\':
                esc = yaml_emitter._ESCAPES.get(ch)
                self.put("\\" + esc if esc else yaml_emitter._hex_escape(ch))
            else:
                self.put(ch)
        self.indicator('"', need_ws=False)
        self.whitespace = False
        self.indention = False

    def literal(self, text: str) -> None:
        self.indicator("|", need_ws=True)
        if text[:1] == " " or _is_break(text[:1]):
            self.indicator(str(_BEST_INDENT), need_ws=False)
        if not text or not _is_break(text[-1]):
            self.indicator("-", need_ws=False)
        elif len(text) == 1 or _is_break(text[-2]):
            self.indicator("+", need_ws=False)
        self.whitespace = True
        breaks = True
        for ch in text:
            if _is_break(ch):
                self.write_break(ch)
                breaks = True
            else:
                if breaks:
                    self.write_indent()
                self.put(ch)
                self.indention = False
                breaks = False


def _resolve_tag(s: str) -> str:
    return _resolve(s)[0]


# --- v3's key order (sorter.go keyList.Less) -------------------------------------------

# reflect.Kind numbers: what v3 compares keys of different kinds by.
_KIND_BOOL, _KIND_INT, _KIND_UINT64, _KIND_FLOAT64, _KIND_INTERFACE, _KIND_STRING = 1, 2, 11, 14, 20, 24


def _kind(v: Any) -> int:
    if v is None:
        return _KIND_INTERFACE
    if isinstance(v, bool):
        return _KIND_BOOL
    if isinstance(v, values.GoInt):
        return _KIND_INT
    if isinstance(v, int):
        return 6 if -(1 << 63) <= v < (1 << 63) else _KIND_UINT64
    if isinstance(v, float):
        return _KIND_FLOAT64
    if isinstance(v, str):
        return _KIND_STRING
    return 25


def _key_float(v: Any) -> float | None:
    if isinstance(v, bool):
        return 1.0 if v else 0.0
    if isinstance(v, int | float):
        return float(v)
    return None


def _key_less(a: Any, b: Any) -> bool:
    af, bf = _key_float(a), _key_float(b)
    ak, bk = _kind(a), _kind(b)
    if af is not None and bf is not None:
        if af != bf:
            return af < bf
        if ak != bk:
            return ak < bk
        return bool(a < b)
    if ak != _KIND_STRING or bk != _KIND_STRING:
        return ak < bk
    return _yaml_order.v3_less(a, b)


class _Key:
    __slots__ = ("k",)

    def __init__(self, k: Any) -> None:
        self.k = k

    def __lt__(self, other: _Key) -> bool:
        return _key_less(self.k, other.k)


def _sorted_items(m: Mapping[Any, Any]) -> list[tuple[Any, Any]]:
    return sorted(m.items(), key=lambda kv: _Key(kv[0]))


# --- reading ------------------------------------------------------------------------

_MAP_TABLE: dict[str, tuple[str, Any]] = {
    **dict.fromkeys(["true", "True", "TRUE"], (v2resolve.BOOL, True)),
    **dict.fromkeys(["false", "False", "FALSE"], (v2resolve.BOOL, False)),
    **dict.fromkeys(["", "~", "null", "Null", "NULL"], (v2resolve.NULL, None)),
    **dict.fromkeys([".nan", ".NaN", ".NAN"], (v2resolve.FLOAT, math.nan)),
    **dict.fromkeys([".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"], (v2resolve.FLOAT, math.inf)),
    **dict.fromkeys(["-.inf", "-.Inf", "-.INF"], (v2resolve.FLOAT, -math.inf)),
}
_INT64 = 1 << 63
_UINT64 = 1 << 64
_MERGE = "!!merge"


def _int_value(v: int) -> Any:
    """An integer as v3 gives it to ``any``: Go ``int`` when it fits int64, else ``uint64`` (a Python int)."""
    return values.GoInt(v) if -_INT64 <= v < _INT64 else v


def _resolve(text: str) -> tuple[str, Any]:
    """v3's ``resolve("", text)``: the tag and value of a plain scalar."""
    if text in _MAP_TABLE:
        return _MAP_TABLE[text]
    if text == "<<":
        return _MERGE, "<<"
    first = text[:1]
    if first == ".":
        try:
            return v2resolve.FLOAT, strconv.parse_float(text)
        except errors.GoError:
            return v2resolve.STR, text
    if first and (first in "+-" or first.isdigit()):
        if first.isdigit() and v2resolve._is_timestamp(text):
            return v2resolve.TIMESTAMP, text
        plain = text.replace("_", "")
        number = v2resolve._go_int(plain)
        if number is not None:
            return v2resolve.INT, number
        if v2resolve._YAML_FLOAT.fullmatch(plain):
            try:
                return v2resolve.FLOAT, strconv.parse_float(plain)
            except errors.GoError:
                pass
    return v2resolve.STR, text


def _resolved(text: str) -> tuple[str, Any]:
    """The tag and the value v3 gives ``any`` for a plain scalar: ints as Go ``int``, timestamps as ``time.Time``."""
    rtag, v = _resolve(text)
    if rtag == v2resolve.TIMESTAMP:
        return rtag, _timestamp(text)
    if rtag == v2resolve.INT:
        return rtag, _int_value(v)
    return rtag, v


def unmarshal(text: str) -> Any:
    """``yaml.Unmarshal(text, &out)`` with ``out`` an ``any``: the first document's value (None when empty).

    Raises :class:`~crossfn.errors.GoError` with v3's text (module doc).
    """
    try:
        node = yaml_loader.compose_first(text)
    except errors.InputError as exc:
        raise errors.GoError(yaml_loader.go_message(exc)) from exc
    if node is None:
        return None
    reader = _Reader()
    value = reader.value(node)
    if reader.problems:
        raise errors.GoError("yaml: unmarshal errors:\n  " + "\n  ".join(reader.problems))
    return value


_LONG = "tag:yaml.org,2002:"


class _Reader:
    def __init__(self) -> None:
        self.problems: list[str] = []

    def value(self, node: yaml.Node) -> Any:
        if isinstance(node, yaml.ScalarNode):
            return self.scalar(node)[1]
        if isinstance(node, yaml.SequenceNode):
            return [self.value(item) for item in node.value]
        if isinstance(node, yaml.MappingNode):
            return self.mapping(node)
        raise errors.GoError(f"yaml: cannot decode {type(node).__name__}")

    def scalar(self, node: yaml.ScalarNode) -> tuple[str, Any]:
        tag = node.tag
        if tag == yaml_loader.PLAIN_TAG:
            return _resolved(node.value)
        short = "!!" + tag[len(_LONG) :] if tag.startswith(_LONG) else tag
        if short == _MERGE:
            return _MERGE, "<<"
        if short == "!!binary":
            return v2resolve.STR, _binary(node.value)
        if short in (v2resolve.BOOL, v2resolve.INT, v2resolve.FLOAT, v2resolve.NULL, v2resolve.TIMESTAMP):
            return self.tagged(short, node)
        return v2resolve.STR, node.value  # !!str, a quoted scalar, or a tag v3 does not resolve: the text

    @staticmethod
    def tagged(short: str, node: yaml.ScalarNode) -> tuple[str, Any]:
        if short not in (v2resolve.BOOL, v2resolve.INT, v2resolve.FLOAT, v2resolve.NULL, v2resolve.TIMESTAMP):
            return short, node.value  # a tag v3 does not resolve: the text
        rtag, v = _resolved(node.value)
        if rtag == short:
            return rtag, v
        if short == v2resolve.FLOAT and rtag == v2resolve.INT and -_INT64 <= v < _INT64:
            return v2resolve.FLOAT, float(v)
        raise errors.GoError(f"yaml: cannot decode {rtag} `{node.value}` as a {short}")

    def mapping(self, node: yaml.MappingNode) -> Any:
        self.duplicates(node.value)
        entries: list[tuple[Any, yaml.Node]] = []
        string_keys = True
        merge: yaml.Node | None = None
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                ktag, key = self.scalar(key_node)
            else:
                ktag, key = "", self.value(key_node)
            if ktag == _MERGE:
                merge = value_node  # v3 keeps the last
                continue
            if isinstance(key, list | dict):
                raise errors.GoError(f"yaml: invalid map key: {values.type_name(key)}")
            string_keys = string_keys and ktag == v2resolve.STR
            entries.append((key, value_node))
        out: dict[Any, Any] = {} if string_keys else values.AnyKeyMap()
        for key, value_node in entries:
            out[key] = self.value(value_node)
        if merge is not None:
            explicit = {key for key, _ in entries}
            for source in self.merged(merge):
                if not isinstance(out, values.AnyKeyMap) and not all(isinstance(k, str) for k in source):
                    out = values.AnyKeyMap(out)
                out.update((k, v) for k, v in source.items() if k not in explicit)
        return out

    def merged(self, node: yaml.Node) -> list[Mapping[Any, Any]]:
        """The mappings a ``<<`` merges, last first so earlier ones win."""
        if isinstance(node, yaml.MappingNode):
            return [self.mapping(node)]
        if isinstance(node, yaml.SequenceNode) and all(isinstance(n, yaml.MappingNode) for n in node.value):
            return [self.mapping(n) for n in reversed(node.value)]
        raise errors.GoError("yaml: map merge requires map or sequence of maps as the value")

    def duplicates(self, pairs: list[tuple[yaml.Node, yaml.Node]]) -> None:
        for i, (ki, _) in enumerate(pairs):
            for kj, _ in pairs[i + 1 :]:
                if type(ki) is type(kj) and isinstance(ki, yaml.ScalarNode) and ki.value == kj.value:
                    self.problems.append(
                        f"line {kj.start_mark.line + 1}: mapping key {_go_quote(str(kj.value))} "
                        f"already defined at line {ki.start_mark.line + 1}"
                    )


def _go_quote(s: str) -> str:
    return strconv.quote(s)


def _binary(text: str) -> str:
    try:
        data = base64.b64decode("".join(text.split()).encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError) as exc:
        raise errors.GoError("yaml: !!binary value contains invalid base64 data") from exc
    return values.from_bytes(data)


_TIMESTAMP_LAYOUTS = (
    "2006-1-2T15:4:5.999999999Z07:00",
    "2006-1-2t15:4:5.999999999Z07:00",
    "2006-1-2 15:4:5.999999999",
    "2006-1-2",
)


def _timestamp(text: str) -> Any:
    """A YAML timestamp as v3 gives it to ``any``: a ``time.Time`` (``parseTimestamp``'s layouts, UTC)."""
    for layout in _TIMESTAMP_LAYOUTS:
        try:
            return gotime.parse(layout, text)
        except errors.GoError:
            continue
    return text
