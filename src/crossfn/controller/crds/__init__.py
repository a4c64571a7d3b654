"""Crossplane's API types: the CRDs crossfn serves (package data, ``*.yaml`` here) and their installation.

* ``_crds``: the manifests, ``install`` (what ``crossfn controller init`` and
  the start of ``crossfn controller run`` do: server-side apply, then wait for
  ``Established``), and reading a CRD's ``Established`` and ``NamesAccepted``
  conditions, which the XRD controller uses for the CRDs it generates.

Imports only the Kubernetes client.
"""
