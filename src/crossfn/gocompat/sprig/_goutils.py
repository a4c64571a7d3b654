"""Masterminds/goutils 1.1.1, the string helpers behind Sprig's ``abbrev``, ``wrap``, ``initials``,
``nospace``, ``untitle``, ``swapcase`` and the ``rand*`` strings.

goutils indexes Go strings by *byte*: ``abbrev`` and ``wrap`` count bytes, so they can cut a
multi-byte character in two (the result then holds invalid UTF-8, carried as
:mod:`crossfn.gocompat.values` does), and ``initials`` and ``nospace`` turn each byte of a
non-ASCII character into a rune of its own (``initials "Émile"`` is ``Ã``). That is what the
function prints, so it is what these print.
"""

from __future__ import annotations

import random

from crossfn import errors
from crossfn.gocompat import unicode, values


def _b(s: str) -> bytes:
    return values.to_bytes(s)


def _s(b: bytes) -> str:
    return values.from_bytes(b)


def abbreviate_full(s: str, offset: int, max_width: int) -> str:
    """goutils ``AbbreviateFull``: at most ``max_width`` bytes with ``...`` markers."""
    data = _b(s)
    if not data:
        return ""
    if max_width < 4:
        raise errors.GoError("stringutils illegal argument: Minimum abbreviation width is 4")
    if len(data) <= max_width:
        return s
    offset = min(offset, len(data))
    if len(data) - offset < max_width - 3:
        offset = len(data) - (max_width - 3)
    if offset <= 4:
        return _s(data[: max_width - 3]) + "..."
    if max_width < 7:
        raise errors.GoError("stringutils illegal argument: Minimum abbreviation width with offset is 7")
    if offset + max_width - 3 < len(data):
        try:
            return "..." + abbreviate_full(_s(data[offset:]), 0, max_width - 3)
        except errors.GoError:
            return "..."
    return "..." + _s(data[len(data) - (max_width - 3) :])


def delete_white_space(s: str) -> str:
    """goutils ``DeleteWhiteSpace``: every byte that is a space as a rune goes; the rest are runes."""
    data = _b(s)
    kept = [chr(b) for b in data if not unicode.is_space(chr(b))]
    if len(kept) == len(data):
        return s
    return "".join(kept)


def initials(s: str) -> str:
    """goutils ``Initials``: the first byte, as a rune, of each whitespace-separated word."""
    out: list[str] = []
    last_was_gap = True
    for b in _b(s):
        ch = chr(b)
        if unicode.is_space(ch):
            last_was_gap = True
        elif last_was_gap:
            out.append(ch)
            last_was_gap = False
    return "".join(out)


def _runes(s: str) -> list[str]:
    """``[]rune(s)``: an invalid byte becomes U+FFFD."""
    return ["\ufffd" if "\ud800" <= c <= "\udfff" else c for c in s]


def uncapitalize(s: str) -> str:
    """goutils ``Uncapitalize``: the first rune of each whitespace-separated word in lower case."""
    if not s:
        return s
    out: list[str] = []
    next_word = True
    for c in _runes(s):
        if unicode.is_space(c):
            next_word = True
            out.append(c)
        elif next_word:
            out.append(unicode.to_lower(c))
            next_word = False
        else:
            out.append(c)
    return "".join(out)


def swap_case(s: str) -> str:
    """goutils ``SwapCase``: upper and title to lower; lower to title after space, else to upper."""
    if not s:
        return s
    out: list[str] = []
    whitespace = True
    for c in _runes(s):
        if unicode.is_upper(c) or unicode.is_title(c):
            out.append(unicode.to_lower(c))
            whitespace = False
        elif unicode.is_lower(c):
            out.append(unicode.to_title(c) if whitespace else unicode.to_upper(c))
            whitespace = False
        else:
            out.append(c)
            whitespace = unicode.is_space(c)
    return "".join(out)


def wrap_custom(s: str, wrap_length: int, new_line: str, wrap_long_words: bool) -> str:
    """goutils ``WrapCustom``: break lines at spaces so each is at most ``wrap_length`` bytes."""
    data = _b(s)
    if not data:
        return ""
    newline = _b(new_line) if new_line else b"\n"
    wrap_length = max(wrap_length, 1)
    out = bytearray()
    offset, length = 0, len(data)
    while length - offset > wrap_length:
        if data[offset] == 0x20:
            offset += 1
            continue
        end = wrap_length + offset + 1
        space = data.rfind(b" ", offset, end)
        if space >= offset:
            out += data[offset:space] + newline
            offset = space + 1
        elif wrap_long_words:
            out += data[offset : wrap_length + offset] + newline
            offset += wrap_length
        else:
            end = wrap_length + offset
            space = data.find(b" ", end)
            if space == -1:
                out += data[offset:]
                offset = length
            else:
                out += data[offset:space] + newline
                offset = space + 1
    out += data[offset:]
    return _s(bytes(out))


_MAX_INT32 = (1 << 31) - 1


def crypto_random(
    rng: random.Random, count: int, *, start: int = 0, end: int = 0, letters: bool, numbers: bool
) -> str:
    """goutils ``CryptoRandom`` over code points ``start`` to ``end`` (0, 0: printable ASCII when
    letters or numbers are asked for, else every code point); a negative count is an error."""
    if count == 0:
        return ""
    if count < 0:
        raise errors.GoError(
            f"randomstringutils illegal argument: Requested random string length {count} is less than 0."
        )
    if start == 0 and end == 0:
        if not letters and not numbers:
            end = _MAX_INT32
        else:
            start, end = ord(" "), ord("z") + 1
    gap = end - start
    out: list[str] = []
    while len(out) < count:
        code = rng.randrange(gap) + start
        if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
            continue  # Go pairs surrogates into one rune; outside ASCII ranges only, which Sprig never asks
        ch = chr(code)
        if (
            (letters and unicode.is_letter(ch))
            or (numbers and unicode.is_digit(ch))
            or not (letters or numbers)
        ):
            out.append(ch)
    return "".join(out)
