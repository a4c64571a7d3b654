"""Composition revisions: Crossplane's ``apiextensions/composition`` and the revision's pipeline check.

* ``_revisions``: :class:`CompositionReconciler` makes one CompositionRevision
  per distinct Composition (``revisions/composition...``), and
  :class:`RevisionReconciler` sets each revision's ``ValidPipeline`` condition
  from its Functions' existence and the capabilities of their active revisions
  (``revision/compositionrevision...``).

The XR controller only reads revisions (through the informers); imports no
other reconciler.
"""

from __future__ import annotations

from crossfn.controller.revisions._revisions import CompositionReconciler, RevisionReconciler

__all__ = ["CompositionReconciler", "RevisionReconciler"]
