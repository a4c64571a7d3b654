"""Go's ``regexp`` package, over RE2 (``google-re2``).

Go's regexp syntax is RE2's, so the matching itself is delegated to the RE2
library; this module adds what Go does differently around it:

* compile errors read as Go's: ``error parsing regexp: <code>: `<expr>```, with
  Go's names for the error codes (RE2 says ``no argument for repetition
  operator``, Go ``missing argument to repetition operator``);
* ``\\C`` (any byte) is RE2-only; Go rejects it as an invalid escape;
* subjects are Go strings, which may carry invalid UTF-8 as lone surrogates
  (:mod:`crossfn.gocompat.values`). Go matches each invalid byte as U+FFFD but
  returns the original bytes; so does :class:`Regexp`, by matching a copy in
  which each such byte is U+FFFD and slicing the original at the same places.

Matching runs on UTF-8 bytes when the subject is valid (RE2's fastest path);
the code-point path is only for subjects with invalid bytes.
"""

from __future__ import annotations

import functools
from typing import Any

import re2

from crossfn import errors
from crossfn.gocompat import unicode, values

__all__ = ["Regexp", "compile", "quote_meta"]

# RE2's error texts, as the Python binding reports them, and Go's names for the
# same error codes (regexp/syntax ErrorCode).
_GO_CODES = {
    "invalid escape sequence": "invalid escape sequence",
    "invalid character class range": "invalid character class range",
    "invalid character class": "invalid character class",
    "missing ]": "missing closing ]",
    "missing )": "missing closing )",
    "unexpected )": "unexpected )",
    "trailing \\": "trailing backslash at end of expression",
    "no argument for repetition operator": "missing argument to repetition operator",
    "invalid repetition size": "invalid repeat count",
    "bad repetition operator": "invalid nested repetition operator",
    "invalid perl operator": "invalid or unsupported Perl syntax",
    "invalid UTF-8": "invalid UTF-8",
    "invalid named capture group": "invalid named capture",
}

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # RE2 would otherwise log every bad pattern to stderr.


class Regexp:
    """A compiled Go regular expression."""

    __slots__ = ("_re", "_text_re", "expr")

    def __init__(self, expr: str, compiled: re2._Regexp[bytes]) -> None:
        self.expr = expr
        self._re = compiled
        self._text_re: re2._Regexp[str] | None = None

    @property
    def num_subexp(self) -> int:
        """The number of capture groups, Go's ``NumSubexp``."""
        return int(self._re.groups)

    @property
    def subexp_names(self) -> list[str]:
        """Each group's name, ``""`` for the whole match and unnamed groups (Go's ``SubexpNames``)."""
        names = [""] * (self.num_subexp + 1)
        for name, index in self._re.groupindex.items():
            names[index] = name.decode() if isinstance(name, bytes) else name
        return names

    def match_string(self, s: str) -> bool:
        """Whether the expression matches anywhere in ``s`` (Go's ``MatchString``)."""
        return self.find_string_submatch(s) is not None

    def find_string_submatch(self, s: str) -> list[str] | None:
        """The leftmost match and its groups, Go's ``FindStringSubmatch``.

        None means no match. A group that took no part in the match is ``""``,
        as Go returns it.
        """
        if not _has_invalid_bytes(s):
            m = self._re.search(s.encode())
            if m is None:
                return None
            return [g.decode() if g is not None else "" for g in (m.group(0), *m.groups())]
        # Match as Go sees it (U+FFFD per invalid byte), return the original bytes.
        shown = "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in s)
        if self._text_re is None:
            # Compiled on demand: only subjects with invalid bytes need it.
            self._text_re = re2.compile(self.expr, _OPTIONS)
        t = self._text_re.search(shown)
        if t is None:
            return None
        spans = [t.span(g) for g in range(self.num_subexp + 1)]
        return [s[a:b] if a >= 0 else "" for a, b in spans]

    def find_string(self, s: str) -> str:
        """The leftmost match, ``""`` when none (Go's ``FindString``)."""
        found = self.find_string_submatch(s)
        return found[0] if found else ""

    def find_all_string(self, s: str, n: int) -> list[str] | None:
        """Go's ``FindAllString``: at most ``n`` successive matches (all when negative), None when none.

        An empty match right after the previous match is skipped, as Go does (Python's ``re``
        keeps it).
        """
        subject = _Subject(self, s)
        found = [subject.text(span[0]) for span in subject.all_matches(n)]
        return found or None

    def find_all_string_submatch(self, s: str, n: int) -> list[list[str]] | None:
        """Go's ``FindAllStringSubmatch``: each match with its groups (``""`` for one that took no part)."""
        subject = _Subject(self, s)
        found = [
            [subject.text(span) if span[0] >= 0 else "" for span in spans] for spans in subject.all_matches(n)
        ]
        return found or None

    def replace_all_string(self, src: str, repl: str, *, literal: bool = False) -> str:
        """Go's ``ReplaceAllString`` (``ReplaceAllLiteralString`` with ``literal``): ``$1``, ``${name}``
        and ``$$`` expand as Go's ``Expand`` does, a malformed ``$`` stays as text."""
        subject = _Subject(self, src)
        out: list[str] = []
        last, pos, end = 0, 0, subject.length
        while pos <= end:
            spans = subject.match(pos)
            if spans is None:
                break
            start, stop = spans[0]
            out.append(subject.slice(last, start))
            if stop > last or start == 0:
                out.append(repl if literal else self._expand(repl, subject, spans))
            last = stop
            width = subject.width(pos)
            if pos + width > stop:
                pos += width
            elif pos + 1 > stop:
                pos += 1
            else:
                pos = stop
        out.append(subject.slice(last, end))
        return "".join(out)

    def _expand(self, template: str, subject: _Subject, spans: list[tuple[int, int]]) -> str:
        out: list[str] = []
        names = {name: index for index, name in enumerate(self.subexp_names) if name}
        while template:
            before, dollar, after = template.partition("$")
            if not dollar:
                break
            out.append(before)
            template = after
            if template[:1] == "$":
                out.append("$")
                template = template[1:]
                continue
            extracted = _extract(template)
            if extracted is None:
                out.append("$")
                continue
            name, num, template = extracted
            index = num if num >= 0 else names.get(name, -1)
            if 0 <= index < len(spans) and spans[index][0] >= 0:
                out.append(subject.text(spans[index]))
        out.append(template)
        return "".join(out)

    def split(self, s: str, n: int) -> list[str] | None:
        """Go's ``Split``: at most ``n`` pieces (all when negative); None, Go's nil, when ``n`` is 0."""
        if n == 0:
            return None
        if self.expr and not s:
            return [""]
        subject = _Subject(self, s)
        pieces: list[str] = []
        begin = end = 0
        for spans in subject.all_matches(n):
            if n > 0 and len(pieces) == n - 1:
                break
            end = spans[0][0]
            if spans[0][1] != 0:
                pieces.append(subject.slice(begin, end))
            begin = spans[0][1]
        if end != subject.length:
            pieces.append(subject.slice(begin, subject.length))
        return pieces


class _Subject:
    """A Go string as RE2 matches it: UTF-8 bytes when valid, else code points with each invalid
    byte shown as U+FFFD (one code point per byte, so positions slice the original)."""

    def __init__(self, regexp: Regexp, s: str) -> None:
        self.original = s
        self.invalid = _has_invalid_bytes(s)
        if self.invalid:
            shown = "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in s)
            if regexp._text_re is None:
                regexp._text_re = re2.compile(regexp.expr, _OPTIONS)
            self.re: Any = regexp._text_re
            self.subject: Any = shown
        else:
            self.re = regexp._re
            self.subject = s.encode()
        self.length = len(self.subject)
        self.groups = regexp.num_subexp

    def match(self, pos: int) -> list[tuple[int, int]] | None:
        m = self.re.search(self.subject, pos)
        if m is None:
            return None
        return [m.span(g) for g in range(self.groups + 1)]

    def width(self, pos: int) -> int:
        """The width of the rune at ``pos`` (0 at the end), as Go steps over it."""
        if pos >= self.length:
            return 0
        if self.invalid:
            return 1
        lead = self.subject[pos]
        return 1 if lead < 0xC0 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4

    def all_matches(self, n: int) -> list[list[tuple[int, int]]]:
        """Go's ``allMatches``: successive matches, stepping one rune past an empty one."""
        if n < 0:
            n = self.length + 1
        found: list[list[tuple[int, int]]] = []
        pos, prev_end = 0, -1
        while len(found) < n and pos <= self.length:
            spans = self.match(pos)
            if spans is None:
                break
            start, stop = spans[0]
            accept = True
            if stop == pos:
                if start == prev_end:
                    accept = False
                width = self.width(pos)
                pos = pos + width if width else self.length + 1
            else:
                pos = stop
            prev_end = stop
            if accept:
                found.append(spans)
        return found

    def slice(self, start: int, stop: int) -> str:
        if self.invalid:
            return str(self.original[start:stop])
        return str(self.subject[start:stop].decode())

    def text(self, span: tuple[int, int]) -> str:
        return self.slice(*span)


def _extract(template: str) -> tuple[str, int, str] | None:
    """Go's ``extract``: the name after ``$`` (``1``, ``name``, ``{name}``), its number or -1, the rest."""
    brace = template[:1] == "{"
    body = template[1:] if brace else template
    i = 0
    while i < len(body) and (unicode.is_letter(body[i]) or unicode.is_digit(body[i]) or body[i] == "_"):
        i += 1
    if i == 0:
        return None
    name = body[:i]
    if brace:
        if body[i : i + 1] != "}":
            return None
        i += 1
    num = -1
    if name.isascii() and name.isdigit() and len(name) <= 9 and not (name[0] == "0" and len(name) > 1):
        num = int(name)
    return name, num, body[i:]


_META = frozenset("\\.+*?()|[]{}^$")


def quote_meta(s: str) -> str:
    """Go's ``QuoteMeta``: every regexp metacharacter escaped."""
    return "".join("\\" + c if c in _META else c for c in s)


def _has_invalid_bytes(s: str) -> bool:
    return not s.isascii() and any("\ud800" <= c <= "\udfff" for c in s)


def compile(expr: str) -> Regexp:
    """Compile ``expr`` with Go's syntax; raise :class:`errors.GoError` with Go's text."""
    return _compile(expr)


@functools.lru_cache(maxsize=512)
def _compile(expr: str) -> Regexp:
    # Compiling is the costly part and patterns repeat across resources.
    if _has_invalid_bytes(expr):
        # Invalid UTF-8 in a Go string; Go's parser rejects it the same way.
        shown = "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in expr)
        raise errors.GoError(f"error parsing regexp: invalid UTF-8: `{shown}`")
    try:
        compiled = re2.compile(expr.encode(), _OPTIONS)
    except re2.error as e:
        raise errors.GoError(_go_message(e, expr)) from e
    if _has_any_byte_escape(expr):
        raise errors.GoError("error parsing regexp: invalid escape sequence: `\\C`")
    return Regexp(expr, compiled)


def _has_any_byte_escape(expr: str) -> bool:
    """Whether ``expr`` uses RE2's ``\\C`` (outside ``\\Q...\\E`` literal text)."""
    i, quoted = 0, False
    while i < len(expr) - 1:
        pair = expr[i : i + 2]
        if quoted:
            quoted = pair != "\\E"
            i += 2 if not quoted else 1
            continue
        if pair == "\\Q":
            quoted = True
        elif pair == "\\C":
            return True
        i += 2 if expr[i] == "\\" else 1
    return False


def _go_message(e: Exception, expr: str) -> str:
    """Turn RE2's ``<code>: <arg>`` into Go's ``error parsing regexp: <code>: `<arg>```."""
    text = e.args[0] if e.args else ""
    if isinstance(text, bytes):
        text = values.from_bytes(text)
    text = str(text)
    for re2_code in sorted(_GO_CODES, key=len, reverse=True):
        if text.startswith(re2_code + ": ") or text == re2_code:
            arg = text[len(re2_code) + 2 :]
            return f"error parsing regexp: {_GO_CODES[re2_code]}: `{arg}`"
    if "too large" in text:
        return f"error parsing regexp: expression too large: `{expr}`"
    return f"error parsing regexp: {text}: `{expr}`"
