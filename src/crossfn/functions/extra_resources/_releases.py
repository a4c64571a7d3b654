"""How each function-extra-resources release behaves: the one table the code and ``docs/functions.md`` follow.

Every release is a :class:`Behaviour`; ``crossfn.functions._releases.extra_resources``
maps release spans onto these keys. The facts come from the upstream tags'
``fn.go`` and ``input/v1beta1`` and the function-sdk-go each one vendors:

=========  ==========================================================================
release    what changed
=========  ==========================================================================
v0.0.1     resources by name or labels (values given or read from the XR) through
           ``requirements.extra_resources``, sorted and cut to ``maxMatch``, written to
           the context key ``apiextensions.crossplane.io/extra-resources`` under each
           source's ``into``; function-sdk-go v0.2.0 (strict input); a failed check
           (``minMatch``, a required reference that matched more than one) fails the
           call itself instead of giving a result, and one that matched nothing
           crashes; v0.0.2 is the same
v0.0.3     those checks are Fatal results; a required reference that matched nothing
           is ``Required extra resource "<into>" not found``
v0.1.0     protocol v1, function-sdk-go v0.4.0 (results target the composite); a
           matcher without ``value`` or ``valueFromFieldPath`` is an error, not a crash
v0.2.0     ``namespace``: look for namespaced resources in one namespace
v0.3.0     ``requirements.resources`` and ``required_resources`` (Crossplane v2)
=========  ==========================================================================
"""

from __future__ import annotations

import dataclasses

from crossfn.functions import _gosdk

__all__ = ["BEHAVIOURS", "Behaviour"]


@dataclasses.dataclass(frozen=True)
class Behaviour:
    """One release's behaviour; each field is one row of the module table."""

    release: str
    sdk: _gosdk.SDK
    checks_are_results: bool
    """A failed check is a Fatal result (v0.0.3); before, the call fails (and nothing matched crashes)."""
    checks_nil: bool = False
    """A matcher without its value is an error (v0.1.0); before, a crash."""
    namespace: bool = False
    """``namespace`` in the input and the selectors (v0.2.0)."""
    required: bool = False
    """Crossplane v2's required resources (v0.3.0)."""


_V002 = Behaviour("v0.0.2", sdk=_gosdk.V0_2_0, checks_are_results=False)
_V003 = dataclasses.replace(_V002, release="v0.0.3", checks_are_results=True)
_V010 = dataclasses.replace(_V003, release="v0.1.0", sdk=_gosdk.V0_4_0, checks_nil=True)
_V020 = dataclasses.replace(_V010, release="v0.2.0", namespace=True)
_V030 = dataclasses.replace(_V020, release="v0.3.0", required=True)

BEHAVIOURS: dict[str, Behaviour] = {b.release: b for b in (_V002, _V003, _V010, _V020, _V030)}
"""Each behaviour by the newest release that has it."""
