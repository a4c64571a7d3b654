"""Numeric constants of Go's ``text/template``: one literal under every type that can hold it.

Go's ``parse.newNumber`` records a constant as int64, uint64, float64 and
complex128 wherever it fits, so the executor can give it the type a context
asks for (an ``int`` parameter, a ``float64`` one) and, without a context, the
type its spelling suggests (``3`` is ``int``, ``3.0`` ``float64``). Errors are
Go's: ``illegal number syntax: "0x"``, ``integer overflow: "99999999999999999999"``,
``malformed character constant: 'xx'``.
"""

from __future__ import annotations

import re

from crossfn import errors
from crossfn.gocompat import strconv
from crossfn.gocompat.template import _lex, _node

__all__ = ["new_number"]

_I64 = 1 << 63
_U64 = 1 << 64
_FLOAT = r"(?:0[xX][0-9a-fA-F]*\.?[0-9a-fA-F]*(?:[pP][+-]?[0-9]+)?|[0-9]*\.?[0-9]*(?:[eE][+-]?[0-9]+)?)"
_COMPLEX = re.compile(rf"\(?([+-]?{_FLOAT})([+-]{_FLOAT})i\)?")


def _fits_int64(f: float) -> bool:
    return f.is_integer() and -_I64 <= f < _I64


def _fits_uint64(f: float) -> bool:
    return f.is_integer() and 0 <= f < _U64


def _simplify_complex(n: _node.NumberNode) -> None:
    """The real types a complex constant also is: all need a zero imaginary part."""
    n.is_float = n.complex128.imag == 0
    if n.is_float:
        n.float64 = n.complex128.real
        n.is_int = _fits_int64(n.float64)
        if n.is_int:
            n.int64 = int(n.float64)
        n.is_uint = _fits_uint64(n.float64)
        if n.is_uint:
            n.uint64 = int(n.float64)


def _parse_complex(text: str) -> complex:
    m = _COMPLEX.fullmatch(text)
    if m is None:
        raise errors.GoError("expected integer")
    try:
        return complex(strconv.parse_float(m[1]), strconv.parse_float(m[2]))
    except errors.GoError:
        raise errors.GoError("expected integer") from None


def new_number(tree: _node.Tree, pos: int, text: str, typ: _lex.ItemType) -> _node.NumberNode:
    """Go's ``Tree.newNumber``; a :class:`crossfn.errors.GoError` with Go's text when it is not a number."""
    n = _node.NumberNode(tree, pos, text)
    if typ == _lex.ItemType.CHAR_CONSTANT:
        rune, tail = strconv.unquote_char(text[1:], text[0])
        if tail != "'":
            raise errors.GoError(f"malformed character constant: {text}")
        code = ord(rune)
        if 0xDC80 <= code <= 0xDCFF:  # a \\x or octal escape is its byte; a raw invalid byte is U+FFFD
            code = code - 0xDC00 if text[1] == "\\" else 0xFFFD
        n.int64 = n.uint64 = code
        n.float64 = float(code)
        n.is_int = n.is_uint = n.is_float = True
        return n
    if typ == _lex.ItemType.COMPLEX:
        n.complex128 = _parse_complex(text)
        n.is_complex = True
        _simplify_complex(n)
        return n
    if text.endswith("i"):
        try:
            f = strconv.parse_float(text[:-1])
        except errors.GoError:
            pass
        else:
            n.is_complex = True
            n.complex128 = complex(0, f)
            _simplify_complex(n)
            return n
    _integer_values(n, text)
    if n.is_int:
        n.is_float, n.float64 = True, float(n.int64)
    elif n.is_uint:
        n.is_float, n.float64 = True, float(n.uint64)
    else:
        _float_values(n, text)
    if not (n.is_int or n.is_uint or n.is_float):
        raise errors.GoError(f"illegal number syntax: {strconv.quote(text)}")
    return n


def _integer_values(n: _node.NumberNode, text: str) -> None:
    try:
        n.uint64 = strconv.parse_uint(text, 0)
        n.is_uint = True
    except errors.GoError:
        pass
    try:
        n.int64 = strconv.parse_int_base(text, 0)
        n.is_int = True
    except errors.GoError:
        return
    if n.int64 == 0:
        n.is_uint, n.uint64 = True, 0  # -0 is unsigned too


def _float_values(n: _node.NumberNode, text: str) -> None:
    try:
        f = strconv.parse_float(text)
    except errors.GoError:
        return
    if not any(c in text for c in ".eEpP"):
        # It parsed as a float but looks like an integer: one too large for any integer type.
        raise errors.GoError(f"integer overflow: {strconv.quote(text)}")
    n.is_float, n.float64 = True, f
    if not n.is_int and _fits_int64(f):
        n.is_int, n.int64 = True, int(f)
    if not n.is_uint and _fits_uint64(f):
        n.is_uint, n.uint64 = True, int(f)
