"""Crossplane's composition controllers on a Kubernetes API server, driving crossfn's engine.

``crossfn controller run`` reconciles CompositeResourceDefinitions, Compositions
(into CompositionRevisions), Functions and composite resources (XRs) on a real
API server, the way Crossplane's core does, and composes each XR with the same
engine that ``crossfn render`` uses. See ``docs/controller.md``.
"""

from __future__ import annotations

__all__: list[str] = []
