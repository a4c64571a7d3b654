"""huandu/xstrings, the case conversions behind Sprig's ``snakecase``, ``kebabcase`` and ``camelcase``.

``snakecase``/``kebabcase`` split a string into words (``HTTPServer`` is ``HTTP`` and ``Server``,
``Bld4Floor3rd`` is ``bld4``, ``floor``, ``3rd``) with xstrings' word scanner, which is the same
in 1.3.3 and 1.5.0. ``camelcase`` changed: Sprig v3.2.3 calls 1.3.3's ``ToCamelCase``, which
upper-cases each word's first rune and lower-cases the rest; v3.3.0 calls 1.5.0's
``ToPascalCase``, which lower-cases a word's inner runes only when the word starts upper-case
(``someWords`` stays ``SomeWords``). Runes are decoded as Go does, an invalid byte being
``utf8.RuneError``.
"""

from __future__ import annotations

import random

from crossfn.gocompat import unicode

_RUNE_ERROR = "\ufffd"
_INVALID, _NUMBER, _UPPER, _ALPHABET, _CONNECTOR, _PUNCT, _OTHER = range(7)


def _is_connector(r: str) -> bool:
    return r in "-_" or unicode.is_space(r)


def _is_alphabet(r: str) -> bool:
    """A letter but not a CJK ideograph (xstrings' ``isAlphabet``)."""
    if not unicode.is_letter(r):
        return False
    code = ord(r)
    if code < 0x3400:
        return True
    return not (0x4E00 <= code <= 0x9FCC or 0x3400 <= code <= 0x4D85 or 0x20000 <= code <= 0x2B81D)


def _decode(s: str) -> list[str]:
    """Runes with Go's decoding: an invalid byte (a lone surrogate here) is RuneError."""
    return [_RUNE_ERROR if "\ud800" <= c <= "\udfff" else c for c in s]


def _valid_rune(runes: list[str], i: int, prev: str) -> tuple[str, int]:
    """xstrings' ``nextValidRune``: the first valid rune from ``i`` and how many runes it took."""
    taken = 0
    while i + taken < len(runes):
        r = runes[i + taken]
        taken += 1
        if r != _RUNE_ERROR:
            return r, taken
    return prev, taken


def _next_word(runes: list[str], start: int) -> tuple[int, int, int]:
    """xstrings' ``nextWord``: the kind of word at ``start`` and where it ends."""
    end = len(runes)
    r, size = _valid_rune(runes, start, _RUNE_ERROR)
    offset = start + size
    if r == _RUNE_ERROR:
        return _INVALID, start, offset
    pos = offset

    def run(pred: object, r: str, pos: int, offset: int) -> tuple[str, int, int]:
        while pos < end:
            r, size = _valid_rune(runes, pos, r)
            if not pred(r):  # type: ignore[operator] # pred is a rune predicate
                break
            offset += size
            pos += size
        return r, pos, offset

    if _is_connector(r):
        _, _, offset = run(_is_connector, r, pos, offset)
        return _CONNECTOR, start, offset
    if unicode.is_punct(r):
        _, _, offset = run(unicode.is_punct, r, pos, offset)
        return _PUNCT, start, offset
    if unicode.is_upper(r):
        if pos >= end:
            return _UPPER, start, offset
        r, size = _valid_rune(runes, pos, r)
        if unicode.is_upper(r):
            prev_size = size
            offset += size
            pos += size
            while pos < end:
                r, size = _valid_rune(runes, pos, r)
                if not unicode.is_upper(r):
                    break
                prev_size = size
                offset += size
                pos += size
            # "HTTPStatus" is HTTP and Status: the last capital starts the next word.
            if pos < end and _is_alphabet(r):
                offset -= prev_size
        elif _is_alphabet(r):
            offset += size
            pos += size
            _, _, offset = run(lambda c: _is_alphabet(c) and not unicode.is_upper(c), r, pos, offset)
        return _UPPER, start, offset
    if _is_alphabet(r):
        _, _, offset = run(lambda c: _is_alphabet(c) and not unicode.is_upper(c), r, pos, offset)
        return _ALPHABET, start, offset
    if unicode.is_number(r):
        _, _, offset = run(unicode.is_number, r, pos, offset)
        return _NUMBER, start, offset
    while pos < end:
        r, size = _valid_rune(runes, pos, r)
        if size == 0 or _is_connector(r) or _is_alphabet(r) or unicode.is_number(r) or unicode.is_punct(r):
            break
        offset += size
        pos += size
    return _OTHER, start, offset


def _lower(out: list[str], kind: int, word: tuple[list[str], list[str]], connector: str) -> None:
    """xstrings' ``toLower``: connectors become ``connector``, upper-case runes lower-case; other
    words are written as they are, invalid bytes included (``word`` is the runes and the original)."""
    runes, original = word
    if kind not in (_UPPER, _CONNECTOR):
        out.extend(original)
        return
    for r in runes:
        if _is_connector(r):
            out.append(connector)
        elif unicode.is_upper(r):
            out.append(unicode.to_lower(r))
        else:
            out.append(r)


def camel_case_to_lower_case(s: str, connector: str) -> str:
    """xstrings' ``ToSnakeCase`` (``connector`` ``_``) and ``ToKebabCase`` (``-``)."""
    if not s:
        return ""
    runes, original = _decode(s), list(s)
    out: list[str] = []

    def word_at(pos: int) -> tuple[int, tuple[list[str], list[str]], int]:
        if pos >= len(runes):
            return _INVALID, ([], []), pos
        kind, start, stop = _next_word(runes, pos)
        return kind, (runes[start:stop], original[start:stop]), stop

    kind, word, pos = word_at(0)
    while pos < len(runes):
        if kind != _CONNECTOR:
            _lower(out, kind, word, connector)
        prev, last = kind, word
        kind, word, pos = word_at(pos)
        if prev == _NUMBER:
            while kind in (_ALPHABET, _NUMBER):
                _lower(out, kind, word, connector)
                kind, word, pos = word_at(pos)
            if kind not in (_INVALID, _PUNCT, _CONNECTOR):
                out.append(connector)
        elif prev == _CONNECTOR:
            _lower(out, prev, last, connector)
        elif prev == _PUNCT:
            pass
        elif kind != _NUMBER:
            if kind not in (_CONNECTOR, _PUNCT):
                out.append(connector)
        elif pos < len(runes):
            last = word
            kind, word, pos = word_at(pos)
            if kind != _ALPHABET:
                # A number is part of the word before it: "Bld4Floor" is bld4_floor.
                _lower(out, _NUMBER, last, connector)
                if kind not in (_CONNECTOR, _PUNCT):
                    out.append(connector)
            else:
                # Lower-case letters after a number start a new word with it: "HTTP2xx" is http_2xx.
                out.append(connector)
                _lower(out, _NUMBER, last, connector)
                while kind in (_ALPHABET, _NUMBER):
                    _lower(out, kind, word, connector)
                    kind, word, pos = word_at(pos)
                if kind not in (_INVALID, _CONNECTOR, _PUNCT):
                    out.append(connector)
    _lower(out, kind, word, connector)
    return "".join(out)


def to_camel_case_133(s: str) -> str:
    """xstrings 1.3.3 ``ToCamelCase``: words joined, each capitalised, inner runes lower-cased."""
    if not s:
        return ""
    runes = _decode(s)
    out: list[str] = []
    i = 0
    r0 = ""
    while i < len(runes):
        r0 = runes[i]
        i += 1
        if not _is_connector(r0):
            r0 = unicode.to_upper(r0)
            break
        out.append(r0)
    if i >= len(runes):
        # xstrings writes the last rune read once more, so "__" becomes "___".
        out.append(r0)
        return "".join(out)
    while i < len(runes):
        r1, r0 = r0, runes[i]
        i += 1
        if _is_connector(r0) and _is_connector(r1):
            out.append(r1)
            continue
        if _is_connector(r1):
            r0 = unicode.to_upper(r0)
        else:
            r0 = unicode.to_lower(r0)
            out.append(r1)
    out.append(r0)
    return "".join(out)


def to_pascal_case_150(s: str) -> str:
    """xstrings 1.5.0 ``ToPascalCase``: a word's inner runes are lower-cased only while it started upper-case."""
    if not s:
        return ""
    runes = _decode(s)
    out: list[str] = []
    first_upper = False
    i = 0
    r0 = ""
    while i < len(runes):
        r0 = runes[i]
        i += 1
        if not _is_connector(r0):
            first_upper = unicode.is_upper(r0)
            r0 = unicode.to_upper(r0)
            break
        out.append(r0)
    if i >= len(runes):
        out.append(r0)
        return "".join(out)
    while i < len(runes):
        r1, r0 = r0, runes[i]
        i += 1
        if _is_connector(r0) and _is_connector(r1):
            out.append(r1)
            continue
        if _is_connector(r1):
            first_upper = unicode.is_upper(r0)
            r0 = unicode.to_upper(r0)
        else:
            if first_upper:
                if unicode.is_upper(r0):
                    r0 = unicode.to_lower(r0)
                else:
                    first_upper = False
            out.append(r1)
    out.append(r0)
    return "".join(out)


def shuffle(s: str, rng: random.Random) -> str:
    """xstrings ``Shuffle``: the runes of ``s`` in a random order (Fisher-Yates, as xstrings draws)."""
    if not s:
        return s
    runes = _decode(s)
    for i in range(len(runes) - 1, 0, -1):
        j = rng.randrange(i + 1)
        runes[i], runes[j] = runes[j], runes[i]
    return "".join(runes)
