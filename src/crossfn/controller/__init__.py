"""Crossplane's composition controllers on a Kubernetes API server, driving crossfn's engine.

``crossfn controller run`` reconciles CompositeResourceDefinitions, Compositions
(into CompositionRevisions), Functions (and their package Deployments), claims,
Operations (with ``--enable-operations``) and composite resources (XRs) on a real
API server, the way Crossplane's core does, and composes each XR with the same
engine that ``crossfn render`` uses. See ``docs/controller.md``.

Embedding: build a :class:`Settings` and ``await run(settings)`` (until SIGTERM),
or drive a :class:`Manager` (``start``/``stop``) yourself. The settings load
nothing heavy; :func:`run` and :class:`Manager` load the Kubernetes client on
first use, so importing this package stays cheap for the command line.
"""

from __future__ import annotations

import typing as _typing

from crossfn import _lazy
from crossfn import extras as _extras
from crossfn.controller._settings import (
    ClusterSettings,
    FeatureSettings,
    FunctionSettings,
    LeaderElectionSettings,
    ObservabilitySettings,
    PackageSettings,
    ReconcileSettings,
    Settings,
    WebhookSettings,
)

_extras.require("controller", "crossfn.controller")  # without the extra: one line naming it

if _typing.TYPE_CHECKING:
    from crossfn.controller.manager._manager import Manager as Manager
    from crossfn.controller.manager._manager import run as run

_LAZY = {"Manager": "manager._manager", "run": "manager._manager"}
"""Names whose module (and the Kubernetes client behind it) loads on first access.
The one list of them (:mod:`crossfn._lazy`).
"""

_lazy.install(__name__, _LAZY, globals())

__all__ = [
    "ClusterSettings",
    "FeatureSettings",
    "FunctionSettings",
    "LeaderElectionSettings",
    "ObservabilitySettings",
    "PackageSettings",
    "ReconcileSettings",
    "Settings",
    "WebhookSettings",
    # and the lazy names: listed once, in _LAZY
]
__all__ += list(_LAZY)
