"""How each function-sequencer release behaves: the one table the code and ``docs/functions.md`` follow.

Every release is a :class:`Behaviour`; ``crossfn.functions._releases.sequencer``
maps release spans onto these keys. The facts come from the upstream tags'
``fn.go`` and the function-sdk-go each one vendors:

=========  ==========================================================================
release    what changed
=========  ==========================================================================
v0.1.0     exact resource names; a resource waits until every earlier one is
           desired and ``READY_TRUE``
v0.2.0     names are regular expressions, unanchored, compiled with ``MustCompile``
           (an invalid one crashes the function); "(N of M)" readiness messages
v0.2.1     anchored with ``^...$`` unless the name starts with ``^`` or ends with
           ``$``; an invalid one is a Fatal result naming the anchored pattern
v0.2.2     "resource(s) matching" messages; every desired resource matching a
           waiting name is removed; the Fatal result names the pattern as written
v0.2.3     a matching resource that already exists is kept (v0.3.0 is the same)
v0.4.0     function-sdk-go v0.5: strict input decoding, results target the
           composite; ``enableDeletionSequencing`` (Usages), ``replayDeletion``,
           ``usageVersion``, ``resetCompositeReadiness``
v0.5.0     an observed Usage is never the user of another Usage
v0.6.0     rules get ``condition`` (CEL) and ``deleteOnly``; ``cacheTTL``;
           Usages for every observed pair of neighbours, before creation checks
=========  ==========================================================================
"""

from __future__ import annotations

import dataclasses

__all__ = ["BEHAVIOURS", "Behaviour"]


@dataclasses.dataclass(frozen=True)
class Behaviour:
    """One release's behaviour; each field is one row of the module table."""

    release: str
    names: str
    """``exact``, ``regexp`` (unanchored, MustCompile) or ``anchored``."""
    wording: int
    """1: "is not ready or does not exist yet"; 2: "(N of M)"; 3: "resource(s) matching"."""
    fatal_names_anchored: bool = False
    """v0.2.1 names the anchored pattern in its compile error."""
    removes_matches: bool = False
    keeps_observed: bool = False
    usages: str = ""
    """``""`` (none), ``v0.4.0``, ``v0.5.0`` or ``v0.6.0``: how deletion sequencing makes Usages."""
    resets_readiness: bool = False
    rule_options: bool = False
    """``condition``, ``deleteOnly`` and ``cacheTTL`` (v0.6.0)."""
    sdk: str = "v0.1.0"
    """function-sdk-go: v0.1.0 skips unknown input fields and targets nothing; later ones reject them and
    target the XR."""

    @property
    def strict_sdk(self) -> bool:
        return self.sdk != "v0.1.0"


_V020 = Behaviour("v0.2.0", names="regexp", wording=2)
_V022 = Behaviour("v0.2.2", names="anchored", wording=3, removes_matches=True)
_V030 = dataclasses.replace(_V022, release="v0.3.0", keeps_observed=True)
_V040 = dataclasses.replace(_V030, release="v0.4.0", usages="v0.4.0", resets_readiness=True, sdk="v0.5.0")

BEHAVIOURS: dict[str, Behaviour] = {
    "v0.1.2": Behaviour("v0.1.2", names="exact", wording=1),
    "v0.2.0": _V020,
    "v0.2.1": dataclasses.replace(_V020, release="v0.2.1", names="anchored", fatal_names_anchored=True),
    "v0.2.2": _V022,
    "v0.3.0": _V030,
    "v0.4.0": _V040,
    "v0.5.0": dataclasses.replace(_V040, release="v0.5.0", usages="v0.5.0"),
    "v0.6.0": dataclasses.replace(_V040, release="v0.6.0", usages="v0.6.0", rule_options=True, sdk="v0.7.1"),
}
"""Each behaviour by the newest release that has it."""
