"""Where Sprig's functions get what is not in their arguments: randomness, the clock, the environment, DNS."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Mapping

from crossfn.gocompat import time as gotime

__all__ = ["Sources"]


def _no_environment() -> Mapping[str, str]:
    return {}


@dataclasses.dataclass(frozen=True)
class Sources:
    """The nondeterministic inputs of Sprig's functions, injectable so that tests are deterministic."""

    rand: random.Random = dataclasses.field(default_factory=random.SystemRandom)
    """Every random choice: ``randAlphaNum`` and friends, ``randInt``, ``shuffle``, ``uuidv4``,
    ``randBytes``, AES IVs, certificate serial numbers. The operating system's entropy by default,
    as Go's ``crypto/rand``; a seeded :class:`random.Random` makes a test repeatable. (Key pairs
    come from the ``cryptography`` library's own generator.)"""

    now: Callable[[], gotime.Time] = gotime.now
    """``time.Now`` for ``now``, ``ago``, ``date`` of a non-time, certificates' validity."""

    environ: Mapping[str, str] = dataclasses.field(default_factory=_no_environment)
    """What ``env`` and ``expandenv`` read. Empty by default: a function runs in its own container,
    and a render must never leak the variables of the machine it runs on into a manifest."""

    lookup_host: Callable[[str], list[str]] | None = None
    """``net.LookupHost`` for ``getHostByName``. None (the default) makes ``getHostByName`` fail
    with an error that names it: a render does no DNS lookups, whose answers would differ from
    the cluster's."""
