"""function-patch-and-transform, behaviour-identical, in Python.

:func:`compose` is the function (crossfn SDK convention: ``compose(req, rsp)``
with ``rsp`` started by :func:`crossfn.sdk.response.to`); ``crossfn render`` runs
it in-process for any package named ``function-patch-and-transform`` and
``crossfn function serve patch-and-transform`` serves it.

Modules, one concept each: ``input`` (strict decoding), ``validation`` (Go's
messages), ``patches`` (one patch), ``composed`` (one template), ``connection``
(connection details and the v2 Secret), ``readiness``, ``environment``,
``transforms`` (every transform), ``convert`` (legacy ``mode: Resources``
Compositions to Pipelines), ``fn`` (the run).
"""

from __future__ import annotations

from crossfn.functions.patch_and_transform.fn import compose

__all__ = ["compose"]
