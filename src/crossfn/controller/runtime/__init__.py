"""What every reconciler runs on: controller-runtime's loop and caches, crossplane-runtime's helpers.

* ``_queue``: client-go's rate-limited work queue (de-duplication, delays,
  per-key backoff);
* ``_controller``: a work queue drained by a bounded pool of workers, and
  what a reconcile's result or error means next;
* ``_informer``: one cache per kind kept current by list and watch, the
  shared factory, and the Protocols reconcilers read them through;
* ``_metrics``: what a controller loop reports (reconciles, the work queue,
  Crossplane's ``engine_*`` counters), as seams with no-op defaults;
* ``_events``: Kubernetes Events, correlated as client-go does, never fatal;
* ``_conditions``: conditions on the objects the controllers own;
* ``_tracing``: a span per reconcile, when OpenTelemetry is in use;
* ``_xr``: the XR view, one composite resource read and written through its
  schema (legacy or modern), decided once (crossplane-runtime's
  ``composite.Unstructured``).

Imports only the Kubernetes client (``kube``); every reconciler imports its
modules directly.
"""
