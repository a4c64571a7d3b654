"""The RBAC manager's per-XRD ClusterRoles (Crossplane's ``rbac/definition``), with ``--manage-rbac``.

* ``_rbac``: :class:`RbacReconciler` renders and applies the four ClusterRoles
  of each XRD, the one that aggregates to the controller included.

Imports no other reconciler.
"""

from __future__ import annotations

from crossfn.controller.rbac._rbac import RbacReconciler

__all__ = ["RbacReconciler"]
