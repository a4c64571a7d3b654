"""What one built-in stands in for: the upstream package, its releases, and which of them it behaves as.

Each built-in declares one :class:`Upstream` in a module of its own,
``crossfn.functions._releases.<name>.UPSTREAM``; :func:`crossfn.functions.resolve`
reads them. A declaration is data only (deciding imports no built-in), so adding
a built-in, or a release it now reproduces, is a change to that module and a
line in ``crossfn.functions._PACKAGES``.

Versions a user may pin, and how each is matched to a behaviour:

* a release tag ``vX.Y.Z`` (any build metadata after ``+`` ignored): the
  :class:`Span` that holds it, if any;
* a Go pseudo-version (``v0.0.0-20231101231317-cdb49945da4e``, or
  ``vX.Y.Z-0.<date>-<sha>`` and ``vX.Y.Z-pre.0.<date>-<sha>``), which the
  Upbound marketplace and ``up`` publish for builds of a commit: the release
  it follows by date (the highest release published at or before the build,
  so a build of the main branch is not matched to a patch release of an older
  branch published the same week), or the first release for a build older
  than every release;
* ``latest``: the newest release in :attr:`Upstream.releases`, named in the
  line so the user sees which;
* anything else (a pre-release such as ``v0.7.0-rc.1``, a digest, no tag, a
  branch name) cannot be matched to a behaviour: the package runs.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping

__all__ = ["Behaviour", "Match", "Release", "Span", "Upstream", "Version", "parse_version"]

Version = tuple[int, int, int]

_RELEASE = re.compile(r"v(\d+)\.(\d+)\.(\d+)(?:\+[0-9A-Za-z.-]+)?")
_PSEUDO = re.compile(
    r"v(\d+)\.(\d+)\.(\d+)-(?:(?:[0-9A-Za-z-]+\.)*0\.)?(\d{14})-([0-9a-f]{12})(?:\+[0-9A-Za-z.-]+)?"
)


def parse_version(tag: str) -> Version | None:
    """The ``(major, minor, patch)`` of a release tag; None for anything else (a pre-release included)."""
    m = _RELEASE.fullmatch(tag)
    return (int(m[1]), int(m[2]), int(m[3])) if m else None


@dataclasses.dataclass(frozen=True)
class Release:
    """One upstream release: its tag and the day it was published (``YYYY-MM-DD``, UTC)."""

    tag: str
    date: str

    @property
    def version(self) -> Version:
        v = parse_version(self.tag)
        if v is None:
            raise ValueError(f"not a release tag: {self.tag!r}")
        return v


@dataclasses.dataclass(frozen=True)
class Behaviour:
    """The release a built-in behaves as, asked by property.

    A built-in whose behaviour changed across releases subclasses this as its
    ``Release``, with one property per behaviour that changed, each named for
    what it decides, documented with the release that changed it and answered
    with :meth:`_since`: the built-in's modules ask the property, never the
    version.
    """

    version: Version

    def _since(self, major: int, minor: int, patch: int) -> bool:
        return self.version >= (major, minor, patch)

    @property
    def tag(self) -> str:
        return "v{}.{}.{}".format(*self.version)


@dataclasses.dataclass(frozen=True)
class Span:
    """Releases from ``since`` (inclusive) up to ``until`` (exclusive; "" for no end) run built-in ``key``.

    ``behaves`` finishes "behaves as ...", e.g. ``v0.8.0-v0.9.3`` or ``v0.5.2 and earlier: the Ready condition only``.
    """

    since: str
    until: str
    key: str
    behaves: str

    def holds(self, v: Version) -> bool:
        low = parse_version(self.since)
        high = parse_version(self.until) if self.until else None
        return low is not None and low <= v and (high is None or v < high)


@dataclasses.dataclass(frozen=True)
class Match:
    """The release a pinned version is matched to, and how it was matched ("" when it is that release)."""

    version: Version
    how: str


@dataclasses.dataclass(frozen=True)
class Upstream:
    """An upstream function package and the built-ins that stand in for its releases.

    ``objects`` maps each key a :class:`Span` names to its ``module:object``;
    the first key is the built-in ``crossfn function serve <key>`` serves.
    ``other`` says why a version no span holds runs the package. ``releases``
    lists upstream's releases in version order with their days: what
    pseudo-versions and ``latest`` (the highest) are matched against. ``any_version`` is for crossfn's own
    functions: every tag, or none, runs ``objects``' first key, silently.
    ``runs_code`` marks a built-in that runs code its input gives in a
    language crossfn cannot confine (Python): ``--no-exec`` refuses it.
    """

    org: str
    repo: str
    objects: Mapping[str, str]
    spans: tuple[Span, ...] = ()
    other: str = ""
    releases: tuple[Release, ...] = ()
    any_version: bool = False
    runs_code: bool = False

    @property
    def short(self) -> str:
        """The name users know: the repository without ``function-``."""
        return self.repo.removeprefix("function-")

    def span(self, v: Version) -> Span | None:
        return next((s for s in self.spans if s.holds(v)), None)

    def covered(self) -> str:
        """The versions some built-in behaves as, e.g. ``v0.1.4, v0.2.0 to v0.10.8``.

        Adjoining spans are joined; a span ends at the highest release below its
        ``until`` (or ``until`` itself, less than it, when no release is known).
        """
        runs: list[list[str]] = []
        for s in sorted(self.spans, key=lambda s: parse_version(s.since) or (0, 0, 0)):
            last = self._last_before(s.until) if s.until else "later"
            if runs and runs[-1][2] == s.since:
                runs[-1][1:] = [last, s.until]
            else:
                runs.append([s.since, last, s.until])
        return ", ".join(since if since == last else f"{since} to {last}" for since, last, _ in runs)

    def _last_before(self, until: str) -> str:
        high = parse_version(until)
        below = [r for r in self.releases if high is not None and r.version < high]
        return max(below, key=lambda r: r.version).tag if below else f"before {until}"

    def match(self, tag: str) -> Match | None:
        """The release ``tag`` behaves as, or None when it cannot be told (see the module docstring)."""
        v = parse_version(tag)
        if v is not None:
            return Match(v, "")
        if not self.releases:
            return None
        if tag == "latest":
            newest = max(self.releases, key=lambda r: r.version)
            return Match(
                newest.version, f"latest: the newest release crossfn knows, {newest.tag} of {newest.date}"
            )
        m = _PSEUDO.fullmatch(tag)
        if m is None:
            return None
        stamp = m[4]
        day = f"{stamp[0:4]}-{stamp[4:6]}-{stamp[6:8]}"
        before = [r for r in self.releases if r.date <= day]
        if before:
            r = max(before, key=lambda r: r.version)
            return Match(r.version, f"a build of {day}, after {r.tag} of {r.date}")
        first = min(self.releases, key=lambda r: r.date)
        return Match(first.version, f"a build of {day}, before the first release {first.tag} of {first.date}")
