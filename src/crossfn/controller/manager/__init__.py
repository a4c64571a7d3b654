"""The manager: Crossplane's ``core start``, assembled in one place.

* ``_manager``: connect, install the CRDs, build the shared pieces (informers,
  event recorder, the engine's sources, the function runner stack), serve
  probes and metrics, start every controller (at once or while leading), and
  drain on SIGTERM; :func:`crossfn.controller.run` and
  :class:`crossfn.controller.Manager` are its;
* ``_leader``: leader election on a coordination.k8s.io Lease;
* ``_observability``: logs, the ``/healthz``, ``/readyz`` and ``/metrics``
  server, and the Prometheus implementation of the runtime's metrics.

The top of the controller: the only layer that imports the reconcilers, and
only through what their packages export. Its configuration is
:mod:`crossfn.controller._settings`, which stays at the package's top because
it is public (``crossfn.controller.Settings``) and must import cheaply.
"""
