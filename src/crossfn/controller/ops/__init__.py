"""Operations: Crossplane's ``internal/controller/ops``, behind ``--enable-operations`` (upstream ops-1–ops-4).

* ``_operation``: :class:`OperationReconciler` (``ops/operation.ops.crossplane.io``) runs each
  Operation's pipeline once, to completion, through :func:`crossfn.engine.reconcile_operation`;
* ``_cron``: :class:`CronOperationReconciler` (``ops/cronoperation.ops.crossplane.io``) creates
  Operations on a cron schedule (:mod:`crossfn.gocompat.cron`);
* ``_watch``: :class:`WatchOperationReconciler`
  (``watchoperation/watchoperation.ops.crossplane.io``) starts a ``watched/<name>`` controller per
  WatchOperation, which creates an Operation for each change of a watched resource;
* ``_lifecycle``: the pure decisions over a parent's Operations (history, names, new Operations);
  ``_parent``: what the two parent controllers do alike.

The manager wires them through this package's exports; they import no other reconciler.
"""

from __future__ import annotations

from crossfn.controller.ops._cron import CONTROLLER_NAME as CRON_CONTROLLER_NAME
from crossfn.controller.ops._cron import CronOperationReconciler
from crossfn.controller.ops._lifecycle import API_VERSION
from crossfn.controller.ops._operation import CONTROLLER_NAME as OPERATION_CONTROLLER_NAME
from crossfn.controller.ops._operation import OperationReconciler
from crossfn.controller.ops._watch import CONTROLLER_NAME as WATCH_CONTROLLER_NAME
from crossfn.controller.ops._watch import WatchOperationReconciler, watched_controller_name

__all__ = [
    "API_VERSION",
    "CRON_CONTROLLER_NAME",
    "OPERATION_CONTROLLER_NAME",
    "WATCH_CONTROLLER_NAME",
    "CronOperationReconciler",
    "OperationReconciler",
    "WatchOperationReconciler",
    "watched_controller_name",
]
