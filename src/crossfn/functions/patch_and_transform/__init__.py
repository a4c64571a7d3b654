"""function-patch-and-transform, behaviour-identical, in Python, as each upstream release behaves.

:func:`compose` is the function (crossfn SDK convention: ``compose(req, rsp)``
with ``rsp`` started by :func:`crossfn.sdk.response.to`), as the newest release
behaves; ``compose_v0_1`` to ``compose_v0_8`` behave as the earlier releases
(:mod:`.release` says what changed when; ``crossfn.functions.resolve`` picks one
by the pinned version). ``crossfn render`` runs them in-process and
``crossfn function serve patch-and-transform`` serves the newest.

Modules, one concept each: ``input`` (strict decoding), ``validation`` (Go's
messages), ``patches`` (one patch), ``composed`` (one template), ``connection``
(connection details and the v2 Secret), ``readiness``, ``environment``,
``transforms`` (every transform), ``release`` (what each release did),
``convert`` (legacy ``mode: Resources`` Compositions to Pipelines), ``fn`` (the run).
"""

from __future__ import annotations

from crossfn.functions.patch_and_transform.fn import PatchAndTransform, compose
from crossfn.functions.patch_and_transform.release import Release

__all__ = [
    "PatchAndTransform",
    "Release",
    "compose",
    "compose_v0_1",
    "compose_v0_2",
    "compose_v0_3",
    "compose_v0_4",
    "compose_v0_5",
    "compose_v0_6",
    "compose_v0_7",
    "compose_v0_8",
]

compose_v0_1 = PatchAndTransform(Release((0, 1, 4)))
"""v0.1.4, the development build upstream's README pinned (commit 659dad3)."""
compose_v0_2 = PatchAndTransform(Release((0, 2, 0)))
"""v0.2.0 and v0.2.1 (the same code)."""
compose_v0_3 = PatchAndTransform(Release((0, 3, 0)))
compose_v0_4 = PatchAndTransform(Release((0, 4, 0)))
compose_v0_5 = PatchAndTransform(Release((0, 5, 0)))
compose_v0_6 = PatchAndTransform(Release((0, 6, 0)))
compose_v0_7 = PatchAndTransform(Release((0, 7, 0)))
compose_v0_8 = PatchAndTransform(Release((0, 8, 0)))
"""v0.8.0 to v0.9.3 (the same code)."""
