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

import re2

from crossfn import errors
from crossfn.gocompat import values

__all__ = ["Regexp", "compile"]

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
