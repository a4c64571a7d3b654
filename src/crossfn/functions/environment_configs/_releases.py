"""How each function-environment-configs release behaves: the one table the code and ``docs/functions.md`` follow.

Every release is a :class:`Behaviour`; ``crossfn.functions._releases.environment_configs``
maps release spans onto these keys. The facts come from the upstream tags'
``fn.go`` and ``input/v1beta1`` and the function-sdk-go each one vendors:

=========  ==========================================================================
release    what changed
=========  ==========================================================================
v0.0.3     EnvironmentConfigs by name or labels through ``requirements.extra_resources``
           (``apiextensions.crossplane.io/v1alpha1``), merged in order over the
           context's environment over ``defaultData``; function-sdk-go of January 2024:
           unknown input fields are ignored; ``policy`` is crossplane-runtime's (``resolve``
           and ``resolution``); a required ``Reference`` that matched nothing crashes
v0.0.5     function-sdk-go v0.2.0: unknown input fields are rejected
v0.0.6     ``policy`` has ``resolution`` only (``policy.resolve`` is now unknown)
v0.0.7     a required ``Reference`` that matched nothing is a Fatal result naming
           the requirement (``environment-config-0``); v0.1.0 is the same
v0.2.0     protocol v1, function-sdk-go v0.4.0 (results target the composite); the
           Reference errors name the EnvironmentConfig
v0.3.0     requirements ask for ``apiextensions.crossplane.io/v1beta1``; v0.4.0 is the same
v0.5.0     a config that was not requested (all its labels optional and missing) is
           skipped, not an error; errors name the config (``cannot process environment
           config ...``); v0.6.0 is the same
v0.7.0     ``requirements.resources`` and ``required_resources`` (Crossplane v2),
           ``toFieldPath``, "required resource" wording; v0.7.1 is the same
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
    resolve_policy: bool
    """``policy`` is crossplane-runtime's ``Policy``, with ``resolve`` (up to v0.0.5)."""
    not_found: str
    """A required ``Reference`` that matched nothing: ``panic`` (crash), ``requirement`` (a Fatal naming
    ``environment-config-<i>``) or ``name`` (a Fatal naming the EnvironmentConfig)."""
    api_version: str
    """The EnvironmentConfig version requirements ask for."""
    skips_unrequested: bool = False
    """A config with no requirement is skipped (v0.5.0); before, ``cannot find expected extra resource``."""
    required: bool = False
    """Crossplane v2's required resources, ``toFieldPath`` and the "required resource" wording (v0.7.0)."""


_V003 = Behaviour(
    "v0.0.4",
    sdk=_gosdk.V0_1_0,
    resolve_policy=True,
    not_found="panic",
    api_version="apiextensions.crossplane.io/v1alpha1",
)
_V005 = dataclasses.replace(_V003, release="v0.0.5", sdk=_gosdk.V0_2_0)
_V006 = dataclasses.replace(_V005, release="v0.0.6", resolve_policy=False)
_V010 = dataclasses.replace(_V006, release="v0.1.0", not_found="requirement")
_V020 = dataclasses.replace(_V010, release="v0.2.0", sdk=_gosdk.V0_4_0, not_found="name")
_V040 = dataclasses.replace(_V020, release="v0.4.0", api_version="apiextensions.crossplane.io/v1beta1")
_V060 = dataclasses.replace(_V040, release="v0.6.0", skips_unrequested=True)
_V071 = dataclasses.replace(_V060, release="v0.7.1", required=True)

BEHAVIOURS: dict[str, Behaviour] = {
    b.release: b for b in (_V003, _V005, _V006, _V010, _V020, _V040, _V060, _V071)
}
"""Each behaviour by the newest release that has it."""
