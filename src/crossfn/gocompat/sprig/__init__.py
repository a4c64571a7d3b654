"""Sprig v3's template functions (Masterminds/sprig), as function-go-templating gives them to templates.

:func:`txt_func_map` is Sprig's ``TxtFuncMap`` (``GenericFuncMap``; function-go-templating calls
``FuncMap``, the same functions for ``html/template``) at one of the two releases
function-go-templating pins: v3.2.3 (its v0.2.0 to v0.5.0) and v3.3.0 (v0.6.0 on), with the
libraries each ran with (:mod:`._profile` is the one table of what differs). Each entry is a
:class:`~crossfn.gocompat.gofunc.Func` declaring Sprig's Go signature, so the template engine
checks and converts arguments as Go's ``text/template`` does and reports a returned error or a
panic as ``error calling NAME: ...``.

Values follow :mod:`crossfn.gocompat.values`. Results Go types beyond JSON's are typed:
``splitList`` a ``[]string`` (:class:`~crossfn.gocompat.values.GoSlice`), ``split`` a
``map[string]string``, ``now`` a :class:`crossfn.gocompat.time.Time` whose methods templates call,
``semver`` a ``*semver.Version``, ``genCA`` a ``sprig.certificate`` with ``.Cert`` and ``.Key``.

What does not come from the arguments comes from :class:`Sources`: randomness, the clock, the
environment ``env`` reads (empty by default), and DNS, which ``getHostByName`` uses only when given
one; without it, it fails naming itself (a render does no DNS lookups). Keys, certificates, AES and
bcrypt need the ``crypto`` extra; without it those functions fail with a line naming the extra.

Every function of Sprig's map is here: 210 at v3.2.3, 211 at v3.3.0 (``sha512sum``). Deliberate
differences, each in docs/compatibility.md: ``keys`` and ``values`` follow the keys' byte order
where Go's map order is random; ``Local`` is UTC, as in the function's container; random outputs
cannot equal Go's random ones; texts of errors from parsing malformed certificates and keys come
from the ``cryptography`` library after Sprig's own prefix.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from crossfn.gocompat import gofunc
from crossfn.gocompat.sprig import (
    _crypto,
    _dates,
    _defaults,
    _dicts,
    _lists,
    _numeric,
    _os,
    _profile,
    _regex,
    _semver,
    _strings,
)
from crossfn.gocompat.sprig._crypto import Certificate
from crossfn.gocompat.sprig._semver import Version
from crossfn.gocompat.sprig._sources import Sources

__all__ = ["SEMVER_VERSIONS", "VERSIONS", "Certificate", "Sources", "Version", "txt_func_map"]

VERSIONS = tuple(_profile.PROFILES)
"""The Sprig releases :func:`txt_func_map` behaves as: ``v3.2.3`` and ``v3.3.0``."""

SEMVER_VERSIONS = _profile.SEMVER_VERSIONS
"""The Masterminds/semver releases ``semver`` and ``semverCompare`` can behave as."""

_STACK_OVERFLOW = "runtime: goroutine stack exceeds 1000000000-byte limit"

_MODULES = (_strings, _lists, _dicts, _numeric, _defaults, _regex, _dates, _crypto, _os)


def txt_func_map(
    version: str = "v3.3.0", *, semver: str | None = None, sources: Sources | None = None
) -> dict[str, gofunc.Func]:
    """Sprig's ``TxtFuncMap`` at ``version``, a new dict on each call (callers may add and delete).

    ``semver`` picks the Masterminds/semver release (:data:`SEMVER_VERSIONS`) when the binary being
    stood in for resolved another than the one Sprig pins (function-go-templating v0.9 built with
    3.3.1, v0.12 with 3.4.0); ``sources`` injects randomness, the clock, the environment and DNS.
    Raises ValueError for a version this module does not know.
    """
    if version not in _profile.PROFILES:
        raise ValueError(f"unknown Sprig version {version!r}: known are {', '.join(VERSIONS)}")
    profile = _profile.PROFILES[version]
    if semver is not None:
        if semver not in SEMVER_VERSIONS:
            raise ValueError(f"unknown semver version {semver!r}: known are {', '.join(SEMVER_VERSIONS)}")
        profile = _profile.Profile(
            profile.sprig,
            semver,
            cast_trims_zero_decimal=profile.cast_trims_zero_decimal,
            pascal_camelcase=profile.pascal_camelcase,
            sha512sum=profile.sha512sum,
        )
    given = sources if sources is not None else Sources()
    table: dict[str, gofunc.Func] = {}
    for module in _MODULES:
        table |= module.functions(profile, given)
    table |= _semver_functions(profile)
    return {name: _guarded(func) for name, func in table.items()}


def _semver_functions(profile: _profile.Profile) -> dict[str, gofunc.Func]:
    library = profile.semver

    def compare(constraint: str, version: str) -> bool:
        constraints = _semver.new_constraint(constraint, library)
        return constraints.check(_semver.new_version(version, library))

    return {
        "semver": gofunc.Func(
            lambda v: _semver.new_version(v, library), ("string",), "*semver.Version", returns_error=True
        ),
        "semverCompare": gofunc.Func(compare, ("string", "string"), "bool", returns_error=True),
    }


def _guarded(func: gofunc.Func) -> gofunc.Func:
    """``func`` with Python's recursion limit reported as Go's stack overflow: a map that contains
    itself, merged or copied, recurses forever in Go too."""
    body: Callable[..., Any] = func.fn

    @functools.wraps(body)
    def call(*args: Any) -> Any:
        try:
            return body(*args)
        except RecursionError:
            raise gofunc.Panic(_STACK_OVERFLOW) from None

    return gofunc.Func(call, func.params, func.returns, func.variadic, func.returns_error)
