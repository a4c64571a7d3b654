"""Crossplane's API types: the CRDs crossfn serves (package data, ``*.yaml`` here) and their installation.

* ``_types`` declares API types as Python classes and renders their OpenAPI
  schemas as controller-gen does; ``_core``, ``_apiextensions``, ``_pkg``,
  ``_ops`` and ``_protection`` are Crossplane's types, group by group, each
  with its ``KINDS``; ``_k8s`` renders the Kubernetes types a kind embeds;
  ``_kind`` and ``_kinds`` make a CRD of each kind (``scripts/generate_crds.py``
  writes the files).
* ``_crds``: the manifests, ``install`` (what ``crossfn controller init`` and
  the start of ``crossfn controller run`` do: compare with what is served,
  create or upgrade only crossfn's own, refuse to replace another manager's,
  then wait for ``Established``), and reading a CRD's ``Established`` and
  ``NamesAccepted`` conditions, which the XRD controller uses for the CRDs it
  generates.

Imports only the Kubernetes client.
"""
