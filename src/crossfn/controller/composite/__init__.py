"""The XR controller: Crossplane's ``apiextensions/composite``, around crossfn's engine.

One :class:`CompositeReconciler` serves the XRs of one XRD (controller
``composite/<xrd>``). One reconcile, top to bottom:

* ``_composite``: the reconcile itself (upstream core-2.1 steps 1–14): get the
  XR, admit it, delete or add the finalizer, then select, compose, watch,
  publish and write the status; every failure reported on the XR;
* ``_selection``: steps 7–8, which Composition and which CompositionRevision;
* ``_compose_io``: step 11, the I/O around ``engine.compose`` (observe, GC,
  ``resourceRefs``, server-side apply of the composed resources);
* ``_sources``: the engine's sources backed by the API server (required
  resources, OpenAPI schemas, credentials, kind scopes);
* ``_realtime``: step 12, the dependency tracker and the watches that wake an XR,
  collected once nothing needs them;
* ``_circuit``: the watch circuit breaker between every watch and the work queue
  (step 2's ``Responsive``);
* ``_connection``: step 13, a legacy XR's connection Secret;
* ``_polling``: step 14's requeue (poll interval, pipeline TTL, backoff).

Every field of the XR is read and written through the runtime's XR view
(:mod:`crossfn.controller.runtime._xr`), whose schema (v2 or legacy) the
reconciler decides once, from the XRD. Imports no other reconciler.
"""

from __future__ import annotations

from crossfn.controller.composite._circuit import CircuitSettings
from crossfn.controller.composite._composite import CompositeReconciler, CompositeSettings
from crossfn.controller.composite._sources import ApiSchemas, api_sources

__all__ = ["ApiSchemas", "CircuitSettings", "CompositeReconciler", "CompositeSettings", "api_sources"]
