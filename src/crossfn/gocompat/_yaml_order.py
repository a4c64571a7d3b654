"""go-yaml's natural order of string map keys, as its encoders sort a map (``sorter.go`` ``keyList.Less``).

Runs of digits compare as numbers (``a2`` before ``a10``), and where the
strings first differ a non-letter sorts before a letter. yaml.v3 changed one
thing: after an equal digit, a letter sorts first (``1a`` before ``1.``).
:mod:`crossfn.gocompat.yaml_emitter` (``sigs.k8s.io/yaml``, go-yaml v2) sorts
with :func:`v2_less`, :mod:`crossfn.gocompat.yaml_v3` with :func:`v3_less`.
"""

from __future__ import annotations

import unicodedata

__all__ = ["v2_less", "v3_less"]


def v2_less(a: str, b: str) -> bool:
    """go-yaml v2's order of two string keys."""
    return _less(a, b, letter_after_digit=False)


def v3_less(a: str, b: str) -> bool:
    """yaml.v3's order of two string keys."""
    return _less(a, b, letter_after_digit=True)


def _is_letter(ch: str) -> bool:
    return unicodedata.category(ch).startswith("L")


def _is_digit(ch: str) -> bool:
    return unicodedata.category(ch) == "Nd"


def _less(a: str, b: str, *, letter_after_digit: bool) -> bool:
    digits = False
    for i in range(min(len(a), len(b))):
        ca, cb = a[i], b[i]
        if ca == cb:
            digits = letter_after_digit and _is_digit(ca)
            continue
        al, bl = _is_letter(ca), _is_letter(cb)
        if al and bl:
            return ca < cb
        if al or bl:
            return al if digits else bl
        an = bn = 0
        if ca == "0" or cb == "0":
            j = i - 1
            while j >= 0 and _is_digit(a[j]):
                if a[j] != "0":
                    an = bn = 1
                    break
                j -= 1
        ai = i
        while ai < len(a) and _is_digit(a[ai]):
            an = an * 10 + ord(a[ai]) - 48
            ai += 1
        bi = i
        while bi < len(b) and _is_digit(b[bi]):
            bn = bn * 10 + ord(b[bi]) - 48
            bi += 1
        if an != bn:
            return an < bn
        if ai != bi:
            return ai < bi
        return ca < cb
    return len(a) < len(b)
