"""Go's ``fmt.Sprintf`` and ``%v``, for the values of the Go value model.

function-patch-and-transform formats user-written format strings (string
``Format``, combine ``string.fmt``) and renders any value with ``%v`` before
string operations (upstream pt-6.7). Users see the result, so
it must be Go's byte for byte, including its in-band errors:
``%!d(float64=10)`` for a verb the type does not support, ``%!s(MISSING)``,
``%!(EXTRA string=x)``, ``%!(NOVERB)``, ``%!s(BADINDEX)``.

The structure follows Go's ``fmt/print.go`` and ``fmt/format.go``: a format
loop (:meth:`_Printer.printf`) parses flags, width, precision and argument
indexes into :class:`_Flags`; each argument is printed by its type; lists and
maps recurse element by element with the same verb. Padding counts runes.

Divergence (docs/compatibility.md): ``%p`` prints an address in Go; crossfn has
none to print and reports ``%!p(<type>=<value>)`` for every value.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from crossfn.gocompat import strconv, values

__all__ = ["sprint", "sprint_args", "sprintf", "sprintln"]

_MAX_RUNE = 0x10FFFF
_U64 = (1 << 64) - 1  # Go converts integers to uint64 for %c, %q and %U


def sprintf(format: str, *args: Any) -> str:
    """Go's ``fmt.Sprintf(format, args...)``."""
    plain = _plain_strings(format, args)
    if plain is not None:
        return plain
    p = _Printer()
    p.printf(format, args)
    return "".join(p.buf)


def _plain_strings(format: str, args: tuple[Any, ...]) -> str | None:
    """``format`` printed when each directive is a bare ``%s`` or ``%v`` and its operand a ``str``, one
    operand per directive: Go prints such a string as it is. ``None`` for anything else (the full printer).

    Patch-and-transform's formats are mostly of this kind (``tier-%s``, ``%s/%s``); the printer's
    flag and verb parsing cost most of a patch's time for them.
    """
    pieces = format.split("%")
    if len(pieces) != len(args) + 1:
        return None
    out = [pieces[0]]
    for piece, arg in zip(pieces[1:], args, strict=True):
        if type(arg) is not str or not piece or piece[0] not in "sv":
            return None
        out.append(arg)
        out.append(piece[1:])
    return "".join(out)


def sprint(v: Any) -> str:
    """Go's ``fmt.Sprintf("%v", v)``: how Go code turns any value into text."""
    if isinstance(v, str):
        return v
    return sprintf("%v", v)


def sprint_args(*args: Any) -> str:
    """Go's ``fmt.Sprint(args...)``: a space between two operands when neither is a string."""
    p = _Printer()
    prev_string = False
    for k, arg in enumerate(args):
        is_string = isinstance(arg, str)
        if k and not is_string and not prev_string:
            p.buf.append(" ")
        p.f = _Flags()
        p.print_arg(arg, "v")
        prev_string = is_string
    return "".join(p.buf)


def sprintln(*args: Any) -> str:
    """Go's ``fmt.Sprintln(args...)``: operands separated by spaces, then a newline."""
    p = _Printer()
    for k, arg in enumerate(args):
        if k:
            p.buf.append(" ")
        p.f = _Flags()
        p.print_arg(arg, "v")
    p.buf.append("\n")
    return "".join(p.buf)


@dataclasses.dataclass
class _Flags:
    """One verb's flags, width and precision (Go's ``fmtFlags`` plus ``wid``/``prec``)."""

    plus: bool = False
    minus: bool = False
    sharp: bool = False
    space: bool = False
    zero: bool = False
    plus_v: bool = False
    sharp_v: bool = False
    wid: int | None = None
    prec: int | None = None


def _parse_num(s: str, start: int, end: int) -> tuple[int, bool, int]:
    """Go's ``parsenum``: an absurdly long number consumes the rest of the format."""
    num, isnum, i = 0, False, start
    while i < end and "0" <= s[i] <= "9":
        if num > 1_000_000:
            return 0, False, end
        num = num * 10 + ord(s[i]) - 48
        isnum = True
        i += 1
    return num, isnum, i


class _Printer:
    def __init__(self) -> None:
        self.buf: list[str] = []
        self.f = _Flags()
        self.reordered = False
        self.good_arg_num = True

    # The format loop (Go's doPrintf).

    def printf(self, fmt: str, args: tuple[Any, ...]) -> None:
        end, arg_num, i = len(fmt), 0, 0
        self.reordered = False
        while i < end:
            self.good_arg_num = True
            start = i
            while i < end and fmt[i] != "%":
                i += 1
            if i > start:
                self.buf.append(fmt[start:i])
            if i >= end:
                break
            i, arg_num = self._one_verb(fmt, i + 1, args, arg_num)
            if i < 0:
                break
        if not self.reordered and arg_num < len(args):
            self.f = _Flags()
            self.buf.append("%!(EXTRA ")
            for k, arg in enumerate(args[arg_num:]):
                if k:
                    self.buf.append(", ")
                if arg is None:
                    self.buf.append("<nil>")
                else:
                    self.buf.append(values.type_name(arg) + "=")
                    self.print_arg(arg, "v")
            self.buf.append(")")

    def _one_verb(self, fmt: str, i: int, args: tuple[Any, ...], arg_num: int) -> tuple[int, int]:
        """Print one ``%`` directive starting after the ``%``; return the new index (-1: stop)."""
        end = len(fmt)
        f = self.f = _Flags()
        while i < end:
            c = fmt[i]
            if c == "#":
                f.sharp = True
            elif c == "0":
                f.zero = not f.minus
            elif c == "+":
                f.plus = True
            elif c == "-":
                f.minus, f.zero = True, False
            elif c == " ":
                f.space = True
            else:
                if "a" <= c <= "z" and arg_num < len(args):
                    # Go's fast path: flags and a lower-case verb, nothing else.
                    self._print_verb(args[arg_num], c)
                    return i + 1, arg_num + 1
                break
            i += 1
        arg_num, i, after_index = self._width_and_precision(fmt, i, args, arg_num)
        if not after_index:
            arg_num, i, after_index = self._arg_number(arg_num, fmt, i, len(args))
        if i >= end:
            self.buf.append("%!(NOVERB)")
            return -1, arg_num
        verb = fmt[i]
        i += 1
        if verb == "%":
            self.buf.append("%")
        elif not self.good_arg_num:
            self.buf.append(f"%!{verb}(BADINDEX)")
        elif arg_num >= len(args):
            self.buf.append(f"%!{verb}(MISSING)")
        else:
            self._print_verb(args[arg_num], verb)
            arg_num += 1
        return i, arg_num

    def _width_and_precision(
        self, fmt: str, i: int, args: tuple[Any, ...], arg_num: int
    ) -> tuple[int, int, bool]:
        """Parse ``[n]``, width and ``.precision`` (each possibly ``*``) into the flags."""
        end, f = len(fmt), self.f
        arg_num, i, after_index = self._arg_number(arg_num, fmt, i, len(args))
        if i < end and fmt[i] == "*":
            i += 1
            f.wid, arg_num = self._int_from_arg(args, arg_num)
            if f.wid is None:
                self.buf.append("%!(BADWIDTH)")
            elif f.wid < 0:
                f.wid, f.minus, f.zero = -f.wid, True, False
            after_index = False
        else:
            wid, present, i = _parse_num(fmt, i, end)
            f.wid = wid if present else None
            if after_index and present:
                self.good_arg_num = False
        if i + 1 < end and fmt[i] == ".":
            i += 1
            if after_index:
                self.good_arg_num = False
            arg_num, i, after_index = self._arg_number(arg_num, fmt, i, len(args))
            if i < end and fmt[i] == "*":
                i += 1
                f.prec, arg_num = self._int_from_arg(args, arg_num)
                if f.prec is not None and f.prec < 0:
                    f.prec = None
                    self.buf.append("%!(BADPREC)")
                elif f.prec is None:
                    self.buf.append("%!(BADPREC)")
                after_index = False
            else:
                prec, present, i = _parse_num(fmt, i, end)
                f.prec = prec if present else 0
        return arg_num, i, after_index

    def _print_verb(self, arg: Any, verb: str) -> None:
        if verb == "v":
            # %#v is Go syntax; %+v only names struct fields, so its plus is not a sign.
            self.f.sharp_v, self.f.sharp = self.f.sharp, False
            self.f.plus_v, self.f.plus = self.f.plus, False
        self.print_arg(arg, verb)

    def _arg_number(self, arg_num: int, fmt: str, i: int, num_args: int) -> tuple[int, int, bool]:
        """Go's ``argNumber``: an explicit ``[n]`` index, one-based."""
        if i >= len(fmt) or fmt[i] != "[":
            return arg_num, i, False
        self.reordered = True
        close = fmt.find("]", i + 1)
        if len(fmt) - i < 3 or close < 0:
            self.good_arg_num = False
            return arg_num, i + 1, False
        index, ok, newi = _parse_num(fmt, i + 1, close)
        width = close - i + 1
        if not ok or newi != close:
            self.good_arg_num = False
            return arg_num, i + width, False
        if 0 <= index - 1 < num_args:
            return index - 1, i + width, True
        self.good_arg_num = False
        return arg_num, i + width, True

    @staticmethod
    def _int_from_arg(args: tuple[Any, ...], arg_num: int) -> tuple[int | None, int]:
        if arg_num >= len(args):
            return None, arg_num
        arg = args[arg_num]
        if not values.is_go_int(arg) or abs(int(arg)) > 1_000_000:
            return None, arg_num + 1
        return int(arg), arg_num + 1

    # Printing one argument (Go's printArg and printValue).

    def print_arg(self, arg: Any, verb: str) -> None:
        if arg is None:
            if verb in "Tv":
                self._pad("<nil>")
            else:
                self._bad_verb(verb, None, top=True)
            return
        if verb == "T":
            self._fmt_s(values.type_name(arg))
            return
        if verb in "pw":
            self._bad_verb(verb, arg, top=True)
            return
        self._print_value(arg, verb, 0)

    def _print_value(self, v: Any, verb: str, depth: int) -> None:
        if v is None:
            if self.f.sharp_v:
                self.buf.append("interface {}(nil)")
            else:
                self._fmt_s("<nil>")
        elif isinstance(v, values.GoNamed):
            self._print_named(v, verb, depth)
        elif isinstance(v, bool):
            if verb in "tv":
                self._pad("true" if v else "false")
            else:
                self._bad_verb(verb, v)
        elif isinstance(v, int):
            self._fmt_integer(int(v), verb, v)
        elif isinstance(v, float):
            self._fmt_float(v, verb)
        elif isinstance(v, str):
            self._fmt_string(v, verb)
        elif isinstance(v, complex):
            self._fmt_complex(v, verb)
        elif isinstance(v, Mapping):
            self._print_map(v, verb, depth)
        elif isinstance(v, list | tuple):
            self._print_list(v, verb, depth)
        else:
            self._bad_verb(verb, v)

    def _print_named(self, v: values.GoNamed, verb: str, depth: int) -> None:
        """A named type: its ``String()`` for the string verbs (Go's handleMethods), else its value."""
        text = v.go_string()
        if text is not None and verb in "vsxXq" and not self.f.sharp_v:
            self._fmt_string(text, verb)
        elif isinstance(v, int):
            self._fmt_integer(int(v), verb, v)
        elif isinstance(v, str):
            self._fmt_string(str(v), verb)  # a named string type: its value
        else:
            self._print_struct(v, verb, depth)

    def _print_struct(self, v: values.GoNamed, verb: str, depth: int) -> None:
        """``{f1 f2}``, ``{Name:f1 ...}`` with ``%+v``, ``&`` before a pointer at the top level.

        Only exported fields are modelled, and ``%#v`` prints ``type{Name:value, ...}`` without
        Go's GoStringer (``time.Date(...)``); both are rare in what templates print.
        """
        fields = v.go_fields()
        if self.f.sharp_v:
            self.buf.append(v.go_type.lstrip("*") + "{")
        else:
            self.buf.append("&{" if v.go_kind == "ptr" and depth == 0 else "{")
        for k, (name, field) in enumerate(fields.items()):
            if k:
                self.buf.append(", " if self.f.sharp_v else " ")
            if self.f.plus_v or self.f.sharp_v:
                self.buf.append(name + ":")
            self._print_value(field, verb, depth + 1)
        self.buf.append("}")

    def _print_map(self, m: Mapping[Any, Any], verb: str, depth: int) -> None:
        sharp_v = self.f.sharp_v
        self.buf.append(values.type_name(m) + "{" if sharp_v else "map[")
        for k, key in enumerate(sorted(m, key=values.map_key_order)):
            if k:
                self.buf.append(", " if sharp_v else " ")
            self._print_value(key, verb, depth + 1)
            self.buf.append(":")
            self._print_value(m[key], verb, depth + 1)
        self.buf.append("}" if sharp_v else "]")

    def _print_list(self, items: list[Any] | tuple[Any, ...], verb: str, depth: int) -> None:
        sharp_v = self.f.sharp_v
        if isinstance(items, values.GoSlice) and items.elem == "uint8" and verb in "sqxX":
            self._fmt_string(values.from_bytes(bytes(int(b) for b in items)), verb)  # Go's fmtBytes
            return
        if sharp_v and values.is_nil(items):
            self.buf.append(values.type_name(items) + "(nil)")
            return
        self.buf.append(values.type_name(items) + "{" if sharp_v else "[")
        for k, item in enumerate(items):
            if k:
                self.buf.append(", " if sharp_v else " ")
            self._print_value(item, verb, depth + 1)
        self.buf.append("}" if sharp_v else "]")

    def _fmt_complex(self, v: complex, verb: str) -> None:
        """Go's ``fmtComplex``: ``(real+imagi)``, the imaginary part always signed."""
        if verb not in "vbgGxXfFeE":
            self._bad_verb(verb, v)
            return
        plus = self.f.plus
        self.buf.append("(")
        self._fmt_float(v.real, verb)
        self.f.plus = True
        self._fmt_float(v.imag, verb)
        self.buf.append("i)")
        self.f.plus = plus

    def _bad_verb(self, verb: str, v: Any, *, top: bool = False) -> None:
        """``%!<verb>(<type>=<value as %v>)``, or ``%!<verb>(<nil>)`` for a nil argument."""
        self.buf.append(f"%!{verb}(")
        if v is None and top:
            self.buf.append("<nil>")
        else:
            # The value prints with %v and the same flags: %+s on 8 gives %!s(int64=+8).
            self.buf.append(values.type_name(v) + "=")
            self._print_value(v, "v", 0)
        self.buf.append(")")

    # Padding (Go's fmt.pad and writePadding).

    def _padding(self, n: int) -> None:
        if n > 0:
            self.buf.append(("0" if self.f.zero else " ") * n)

    def _pad(self, s: str) -> None:
        f = self.f
        if not f.wid:
            self.buf.append(s)
            return
        width = f.wid - len(s)
        if f.minus:
            self.buf.append(s)
            self._padding(width)
        else:
            self._padding(width)
            self.buf.append(s)

    def _pad_no_zero(self, s: str) -> None:
        zero, self.f.zero = self.f.zero, False
        self._pad(s)
        self.f.zero = zero

    # Strings.

    def _truncate(self, s: str) -> str:
        return s[: self.f.prec] if self.f.prec is not None else s

    def _fmt_s(self, s: str) -> None:
        self._pad(self._truncate(s))

    def _fmt_string(self, s: str, verb: str) -> None:
        if verb == "v":
            self._fmt_q(s) if self.f.sharp_v else self._fmt_s(s)
        elif verb == "s":
            self._fmt_s(s)
        elif verb in "xX":
            self._fmt_sx(values.to_bytes(s), verb)
        elif verb == "q":
            self._fmt_q(s)
        else:
            self._bad_verb(verb, s)

    def _fmt_q(self, s: str) -> None:
        s = self._truncate(s)
        if self.f.sharp and strconv.can_backquote(s):
            self._pad("`" + s + "`")
        else:
            self._pad(strconv.quote(s, ascii_only=self.f.plus))

    def _fmt_sx(self, b: bytes, verb: str) -> None:
        """Hex of a string's bytes (Go's fmtSbx): ``% x`` spaces them, ``#`` adds 0x."""
        f = self.f
        length = min(len(b), f.prec) if f.prec is not None else len(b)
        prefix = "0" + verb
        if length == 0:
            if f.wid is not None:
                self._padding(f.wid)
            return
        width = 2 * length
        if f.space:
            width = (width * 2 if f.sharp else width) + length - 1
        elif f.sharp:
            width += 2
        digits = [f"{c:02x}" if verb == "x" else f"{c:02X}" for c in b[:length]]
        if f.space:
            text = " ".join((prefix if f.sharp else "") + d for d in digits)
        else:
            text = (prefix if f.sharp else "") + "".join(digits)
        if f.wid is not None and f.wid > width and not f.minus:
            self._padding(f.wid - width)
        self.buf.append(text)
        if f.wid is not None and f.wid > width and f.minus:
            self._padding(f.wid - width)

    # Integers.

    def _fmt_integer(self, n: int, verb: str, original: Any) -> None:
        bases = {"v": 10, "d": 10, "b": 2, "o": 8, "O": 8, "x": 16, "X": 16}
        if verb in bases:
            self._fmt_int_base(n, bases[verb], verb)
        elif verb == "c":
            self._pad(chr(_rune(n)))
        elif verb == "q":
            self._pad(strconv.quote_rune(_rune(n), ascii_only=self.f.plus))
        elif verb == "U":
            self._fmt_unicode(n & _U64)
        else:
            self._bad_verb(verb, original)

    def _fmt_int_base(self, n: int, base: int, verb: str) -> None:
        f = self.f
        negative, u = n < 0, abs(n)
        if f.prec is not None:
            prec = f.prec
            if prec == 0 and u == 0:
                zero, f.zero = f.zero, False
                self._padding(f.wid or 0)
                f.zero = zero
                return
        elif f.zero and f.wid is not None:
            prec = f.wid - (1 if negative or f.plus or f.space else 0)
        else:
            prec = 0
        digits = {10: str(u), 2: f"{u:b}", 8: f"{u:o}", 16: f"{u:x}" if verb != "X" else f"{u:X}"}[base]
        digits = digits.rjust(prec, "0")
        if f.sharp:
            if base == 2:
                digits = "0b" + digits
            elif base == 8 and digits[0] != "0":
                digits = "0" + digits
            elif base == 16:
                digits = "0" + verb + digits
        if verb == "O":
            digits = "0o" + digits
        if negative:
            digits = "-" + digits
        elif f.plus:
            digits = "+" + digits
        elif f.space:
            digits = " " + digits
        self._pad_no_zero(digits)

    def _fmt_unicode(self, u: int) -> None:
        f = self.f
        prec = f.prec if f.prec is not None and f.prec > 4 else 4
        text = "U+" + f"{u:X}".rjust(prec, "0")
        if f.sharp and u <= _MAX_RUNE and strconv.is_print(u):
            text += " '" + chr(u) + "'"
        self._pad_no_zero(text)

    # Floats (Go's fmtFloat).

    def _fmt_float(self, v: float, verb: str) -> None:
        defaults = {"v": ("g", -1), "b": ("b", -1), "g": ("g", -1), "G": ("G", -1), "x": ("x", -1)}
        defaults |= {"X": ("X", -1), "f": ("f", 6), "F": ("f", 6), "e": ("e", 6), "E": ("E", 6)}
        if verb not in defaults:
            self._bad_verb(verb, v)
            return
        fverb, prec = defaults[verb]
        if self.f.prec is not None:
            prec = self.f.prec
        num = strconv.format_float(v, fverb, prec)
        num = num if num[0] in "+-" else "+" + num
        f = self.f
        if f.space and num[0] == "+" and not f.plus:
            num = " " + num[1:]
        if num[1] in "IN":
            if num[1] == "N" and not f.space and not f.plus:
                num = num[1:]
            self._pad_no_zero(num)
            return
        if f.sharp and fverb != "b":
            num = _sharp_float(num, fverb, prec)
        if f.plus or num[0] != "+":
            if f.zero and f.wid is not None and f.wid > len(num):
                self.buf.append(num[0])
                self._padding(f.wid - len(num))
                self.buf.append(num[1:])
                return
            self._pad(num)
            return
        self._pad(num[1:])


def _rune(n: int) -> int:
    """The rune Go prints for an integer with %c or %q: invalid ones become U+FFFD."""
    u = n & _U64
    if u > _MAX_RUNE or 0xD800 <= u <= 0xDFFF:
        return 0xFFFD
    return u


def _sharp_float(num: str, verb: str, prec: int) -> str:
    """The ``#`` flag: force a decimal point, and keep trailing zeros for %g."""
    digits = (6 if prec == -1 else prec) if verb in "gGx" else 0
    tail = ""
    body = num
    for k in range(1, len(num)):
        ch = num[k]
        if ch in "pP" or (ch in "eE" and verb not in "xX"):
            body, tail = num[:k], num[k:]
            break
    has_point = "." in body
    seen_nonzero = False
    for ch in body[1:]:
        if ch == ".":
            continue
        if ch != "0":
            seen_nonzero = True
        if seen_nonzero:
            digits -= 1
    if not has_point:
        if len(body) == 2 and body[1] == "0":
            digits -= 1
        body += "."
    if digits > 0:
        body += "0" * digits
    return body + tail
