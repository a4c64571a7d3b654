"""Which function-status-transformer release the built-in behaves as, and what that release did.

A :class:`Release` is the tag plus one property per behaviour that changed
between releases; the modules ask the property, never the tag. Releases that
behave alike (the same Go code built with the same Go release) share one
built-in object (``crossfn.functions._releases.status_transformer``). The Go
release is the CI's ``GO_VERSION``, which builds the image
(``golang:<GO_VERSION>``, which runs the local toolchain); it decides the
``text/template`` that messages are executed with.
"""

from __future__ import annotations

from crossfn.functions import _registry
from crossfn.gocompat.template import GoRelease

__all__ = ["Release"]


class Release(_registry.Behaviour):
    """One upstream release's behaviour (``version`` is the release it behaves as)."""

    @property
    def go(self) -> GoRelease:
        """Go 1.21 for v0.1.0, 1.23 from v0.2.0, 1.24 from v0.4.1."""
        if not self._since(0, 2, 0):
            return GoRelease("1.21")
        if not self._since(0, 4, 1):
            return GoRelease("1.23")
        return GoRelease("1.24")

    @property
    def protocol_v1(self) -> bool:
        """v0.4.0 (function-sdk-go v0.3.0): serves ``v1``; before, ``v1beta1`` (the request type errors name)."""
        return self._since(0, 4, 0)

    @property
    def matches_composite(self) -> bool:
        """v0.4.0: a matcher's ``includeCompositeAsResource`` matches the XR itself."""
        return self._since(0, 4, 0)

    @property
    def matches_extra_resources(self) -> bool:
        """v0.5.0: a matcher's ``includeExtraResources`` matches function-extra-resources' objects."""
        return self._since(0, 5, 0)
