"""Go's ``regexp`` package, over RE2 (``google-re2``).

Go's regexp syntax is RE2's, so the matching itself is delegated to the RE2
library; this module adds what Go does differently around it:

* compile errors read as Go's: ``error parsing regexp: <code>: `<expr>```, with
  Go's names for the error codes (RE2 says ``no argument for repetition
  operator``, Go ``missing argument to repetition operator``);
* subjects are Go strings, which may carry invalid UTF-8 as lone surrogates
  (:mod:`crossfn.gocompat.values`); matching runs on their bytes.

Divergences (docs/compatibility.md): RE2 accepts ``\\C`` (any byte) where Go
rejects it, and RE2's ``.`` does not match an invalid UTF-8 byte where Go's
matches it as U+FFFD.
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

    __slots__ = ("_re", "expr")

    def __init__(self, expr: str, compiled: re2._Regexp[bytes]) -> None:
        self.expr = expr
        self._re = compiled

    @property
    def num_subexp(self) -> int:
        """The number of capture groups, Go's ``NumSubexp``."""
        return int(self._re.groups)

    def match_string(self, s: str) -> bool:
        """Whether the expression matches anywhere in ``s`` (Go's ``MatchString``)."""
        return self._re.search(values.to_bytes(s)) is not None

    def find_string_submatch(self, s: str) -> list[str] | None:
        """The leftmost match and its groups, Go's ``FindStringSubmatch``.

        None means no match. A group that took no part in the match is ``""``,
        as Go returns it.
        """
        m = self._re.search(values.to_bytes(s))
        if m is None:
            return None
        groups = [m.group(0), *m.groups()]
        return [values.from_bytes(g) if g is not None else "" for g in groups]


def compile(expr: str) -> Regexp:
    """Compile ``expr`` with Go's syntax; raise :class:`errors.GoError` with Go's text."""
    return _compile(expr)


@functools.lru_cache(maxsize=512)
def _compile(expr: str) -> Regexp:
    # Compiling is the costly part and patterns repeat across resources.
    if any("\ud800" <= c <= "\udfff" for c in expr):
        # Invalid UTF-8 in a Go string; Go's parser rejects it the same way.
        raise errors.GoError(f"error parsing regexp: invalid UTF-8: `{expr}`")
    pattern = values.to_bytes(expr)
    try:
        compiled = re2.compile(pattern, _OPTIONS)
    except re2.error as e:
        raise errors.GoError(_go_message(e, expr)) from e
    return Regexp(expr, compiled)


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
