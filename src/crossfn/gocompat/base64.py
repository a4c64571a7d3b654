"""Go's ``base64.StdEncoding.DecodeString``, with Go's error offsets.

Python's decoder accepts and rejects nearly the same inputs but reports no
position; Go's message names the first bad byte (``illegal base64 data at input
byte 20``), and users see it in a FromBase64 transform's error. Go skips ``\\r``
and ``\\n`` anywhere, requires padding, and rejects anything after it.
Encoding needs nothing special: Python's ``base64.b64encode`` is Go's.
"""

from __future__ import annotations

import base64 as _pybase64
import string

from crossfn import errors
from crossfn.gocompat import values

__all__ = ["std_decode", "std_decode_prefix", "std_encode"]

_ALPHABET = {
    c: i
    for i, c in enumerate((string.ascii_uppercase + string.ascii_lowercase + string.digits + "+/").encode())
}
_NEWLINES = b"\r\n"
_PAD = ord("=")


def std_encode(data: bytes) -> str:
    """``base64.StdEncoding.EncodeToString``: padded standard base64 (Python's encoder is Go's)."""
    return _pybase64.b64encode(data).decode("ascii")


def std_decode(s: str) -> bytes:
    """Decode standard, padded base64; raise :class:`errors.GoError` with Go's text."""
    src = values.to_bytes(s)
    out = bytearray()
    si = 0
    while si < len(src):
        si = _quantum(src, si, out)
    return bytes(out)


def _corrupt(offset: int) -> errors.GoError:
    return errors.GoError(f"illegal base64 data at input byte {offset}")


def _quantum(src: bytes, si: int, out: bytearray) -> int:
    """Decode one 4-character quantum starting at ``si``; return where the next one starts."""
    sextets: list[int] = []
    trailing_error: int | None = None
    while len(sextets) < 4:
        if si == len(src):
            if not sextets:
                return si
            raise _corrupt(si - len(sextets))
        c = src[si]
        si += 1
        if c in _ALPHABET:
            sextets.append(_ALPHABET[c])
            continue
        if c in _NEWLINES:
            continue
        if c != _PAD or len(sextets) < 2:
            raise _corrupt(si - 1)
        if len(sextets) == 2:
            # "==" is expected; the first "=" is consumed.
            while si < len(src) and src[si] in _NEWLINES:
                si += 1
            if si == len(src):
                raise _corrupt(len(src))
            if src[si] != _PAD:
                raise _corrupt(si - 1)
            si += 1
        while si < len(src) and src[si] in _NEWLINES:
            si += 1
        if si < len(src):
            trailing_error = si
        break
    value = 0
    for k in range(4):
        value = value << 6 | (sextets[k] if k < len(sextets) else 0)
    out.extend(value.to_bytes(3, "big")[: len(sextets) - 1])
    if trailing_error is not None:
        raise _corrupt(trailing_error)
    return si


def std_decode_prefix(s: str) -> bytes:
    """What Go's ``DecodeString`` returns beside an error: the bytes of the quanta before the bad byte.

    Callers that ignore the error (``d, _ := base64.StdEncoding.DecodeString(v)``) keep these.
    """
    src = values.to_bytes(s)
    out = bytearray()
    si = 0
    try:
        while si < len(src):
            si = _quantum(src, si, out)
    except errors.GoError:
        pass
    return bytes(out)
