"""Go's ``base32.StdEncoding``: encoding, and decoding with Go's error offsets.

Sprig's ``b32dec`` prints the decoder's error in place of a result (``illegal base32 data at
input byte 3``), so the offset must be Go's. Go strips ``\\r`` and ``\\n`` from the whole input
first and counts offsets in what remains; padding must be complete and of a valid length.
"""

from __future__ import annotations

import base64 as _pybase64

from crossfn import errors
from crossfn.gocompat import values

__all__ = ["std_decode", "std_encode"]

_ALPHABET = {c: i for i, c in enumerate(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")}
_PAD = ord("=")


def std_encode(data: bytes) -> str:
    """``base32.StdEncoding.EncodeToString`` (RFC 4648, padded; Python's encoder is Go's)."""
    return _pybase64.b32encode(data).decode("ascii")


def _corrupt(offset: int) -> errors.GoError:
    return errors.GoError(f"illegal base32 data at input byte {offset}")


def std_decode(s: str) -> bytes:
    """``base32.StdEncoding.DecodeString``; raise :class:`errors.GoError` with Go's text."""
    src = values.to_bytes(s).replace(b"\r", b"").replace(b"\n", b"")
    total, pos = len(src), 0
    out = bytearray()
    end = False
    while pos < total and not end:
        quantum: list[int] = []
        length = 8
        while len(quantum) < 8:
            if pos >= total:
                raise _corrupt(total - len(quantum))
            c = src[pos]
            pos += 1
            remaining = total - pos
            if c == _PAD and len(quantum) >= 2 and remaining < 8:
                j = len(quantum)
                if remaining + j < 7:
                    raise _corrupt(total)
                for k in range(7 - j):
                    if remaining > k and src[pos + k] != _PAD:
                        raise _corrupt(pos + k - 1)
                length, end = j, True
                if length in (1, 3, 6):
                    raise _corrupt(pos - 1)
                break
            if c not in _ALPHABET:
                raise _corrupt(pos - 1)
            quantum.append(_ALPHABET[c])
        d = quantum + [0] * (8 - len(quantum))
        packed = [
            (d[0] << 3 | d[1] >> 2) & 0xFF,
            (d[1] << 6 | d[2] << 1 | d[3] >> 4) & 0xFF,
            (d[3] << 4 | d[4] >> 1) & 0xFF,
            (d[4] << 7 | d[5] << 2 | d[6] >> 3) & 0xFF,
            (d[6] << 5 | d[7]) & 0xFF,
        ]
        out += bytes(packed[: {8: 5, 7: 4, 5: 3, 4: 2, 2: 1}[length]])
    return bytes(out)
