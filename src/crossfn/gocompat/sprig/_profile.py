"""What differs between the Sprig releases crossfn stands in for: one table that the code reads.

function-go-templating builds Sprig into its binary with the library versions its ``go.mod``
resolves, and those libraries, not only Sprig's own code, decide what a template prints:

====================  ===================  ===================================================
Sprig                 v3.2.3               v3.3.0
====================  ===================  ===================================================
function-go-templ.    v0.2.0 .. v0.5.0     v0.6.0 and later
``sha512sum``         absent               present
``camelcase``         xstrings 1.3.3         xstrings 1.5.0 ``ToPascalCase``: keeps the case of
                      ``ToCamelCase``:     a word's inner letters (``someWords`` → ``SomeWords``
                      lowers them          where 1.3.3 gives ``Somewords``)
spf13/cast            1.3.1                1.7.0: ``"1.0"`` is an integer, ``time.Month`` a number
Masterminds/semver    3.2.0                3.3.0 (function-go-templating v0.6..v0.8), 3.3.1
                                           (v0.9..v0.11, strict about leading zeros), 3.4.0
                                           (v0.12: coerces again, lower-case error texts)
mergo                 imdario 0.3.16       dario.cat 1.0.1/1.0.2: the same for maps
====================  ===================  ===================================================

Sprig's ``semver`` version is not fixed by Sprig's, so it is a separate choice of
:func:`crossfn.gocompat.sprig.txt_func_map` that defaults to the one Sprig pins.
"""

from __future__ import annotations

import dataclasses

__all__ = ["PROFILES", "SEMVER_VERSIONS", "Profile"]

SEMVER_VERSIONS = ("v3.2.0", "v3.3.0", "v3.3.1", "v3.4.0")


@dataclasses.dataclass(frozen=True)
class Profile:
    """One Sprig release and the behaviour of the libraries it runs with."""

    sprig: str
    semver: str
    cast_trims_zero_decimal: bool
    """spf13/cast 1.5+: ``"12.0"`` and ``"12.00"`` convert to 12 (1.3.1 gives 0); nil and
    ``time.Month``/``time.Weekday`` convert to numbers."""
    pascal_camelcase: bool
    """Sprig v3.3.0's ``camelcase`` is xstrings 1.5's ``ToPascalCase``; v3.2.3's is 1.3.3's ``ToCamelCase``."""
    sha512sum: bool


PROFILES = {
    "v3.2.3": Profile(
        "v3.2.3", "v3.2.0", cast_trims_zero_decimal=False, pascal_camelcase=False, sha512sum=False
    ),
    "v3.3.0": Profile(
        "v3.3.0", "v3.3.0", cast_trims_zero_decimal=True, pascal_camelcase=True, sha512sum=True
    ),
}
