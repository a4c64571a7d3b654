"""hashicorp/go-version v1.9.0: ``NewVersion`` and ``Compare``, as kpm orders a module's tags.

kpm (kcl-lang/kpm, the package manager function-kcl runs) takes "the latest
version" of an OCI module as the greatest of its tags under this ordering
(``semver.LatestVersion``). Versions are read loosely: an optional ``v``, any
number of numeric segments (fewer than three are padded with zeros), then a
prerelease (``-beta.2``, or ``rc1`` straight after the numbers) and metadata
(``+build``), which never orders. ``1.2`` equals ``1.2.0.0``; a release is
greater than its prereleases; prerelease parts compare numerically when both
are numbers, a number is less than a word, and words compare as strings.
"""

from __future__ import annotations

import dataclasses
import functools

from crossfn import errors
from crossfn.gocompat import regexp, strconv

__all__ = ["Version", "new_version"]

_PATTERN = (
    r"^v?([0-9]+(\.[0-9]+)*?)"
    r"(-([0-9]+[0-9A-Za-z\-~]*(\.[0-9A-Za-z\-~]+)*)|(-?([A-Za-z\-~]+[0-9A-Za-z\-~]*(\.[0-9A-Za-z\-~]+)*)))?"
    r"(\+([0-9A-Za-z\-~]+(\.[0-9A-Za-z\-~]+)*))?"
    r"?$"
)


@functools.cache
def _regexp() -> regexp.Regexp:
    return regexp.compile(_PATTERN)


@dataclasses.dataclass(frozen=True)
class Version:
    """A parsed version: its numeric segments (at least three), prerelease, metadata and the text it came from."""

    segments: tuple[int, ...]
    prerelease: str
    metadata: str
    original: str

    def string(self) -> str:
        """Go's ``String``: the segments, ``-prerelease`` and ``+metadata`` as parsed (``v1.2`` is ``1.2.0``)."""
        out = ".".join(str(s) for s in self.segments)
        if self.prerelease:
            out += f"-{self.prerelease}"
        if self.metadata:
            out += f"+{self.metadata}"
        return out

    def compare(self, other: Version) -> int:
        """-1, 0 or 1 as this version is less than, equal to or greater than ``other`` (Go's ``Compare``)."""
        if self.string() == other.string():
            return 0
        if self.segments == other.segments:
            if not self.prerelease and not other.prerelease:
                return 0
            if not self.prerelease:
                return 1
            if not other.prerelease:
                return -1
            return _compare_prereleases(self.prerelease, other.prerelease)
        mine, theirs = self.segments, other.segments
        for i in range(max(len(mine), len(theirs))):
            if i >= len(mine):
                return -1 if any(theirs[i:]) else 0
            if i >= len(theirs):
                return 1 if any(mine[i:]) else 0
            if mine[i] != theirs[i]:
                return -1 if mine[i] < theirs[i] else 1
        return 0


def new_version(text: str) -> Version:
    """Go's ``NewVersion``; raises :class:`crossfn.errors.GoError` with its text for a malformed version."""
    m = _regexp().find_string_submatch(text)
    if m is None:
        raise errors.GoError(f"malformed version: {text}")
    segments: list[int] = []
    for part in m[1].split("."):
        try:
            segments.append(strconv.parse_int(part))
        except errors.GoError as exc:
            raise errors.GoError(f"error parsing version: {exc}") from exc
    segments += [0] * (3 - len(segments))
    return Version(tuple(segments), m[7] or m[4], m[10], text)


def _numeric(part: str) -> int | None:
    try:
        return strconv.parse_int(part)
    except errors.GoError:
        return None


def _compare_part(mine: str, theirs: str) -> int:
    if mine == theirs:
        return 0
    mine_n, theirs_n = _numeric(mine), _numeric(theirs)
    if not mine:
        return -1 if theirs_n is not None else 1
    if not theirs:
        return 1 if mine_n is not None else -1
    if mine_n is not None and theirs_n is None:
        return -1
    if mine_n is None and theirs_n is not None:
        return 1
    if mine_n is None and theirs_n is None:
        return 1 if mine > theirs else -1
    return 1 if (mine_n or 0) > (theirs_n or 0) else -1


def _compare_prereleases(mine: str, theirs: str) -> int:
    a, b = mine.split("."), theirs.split(".")
    for i in range(max(len(a), len(b))):
        c = _compare_part(a[i] if i < len(a) else "", b[i] if i < len(b) else "")
        if c:
            return c
    return 0
