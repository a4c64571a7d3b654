"""The claim controller: Crossplane's ``apiextensions/claim`` (claims bound to legacy XRs).

One :class:`ClaimReconciler` serves the claims of one XRD that offers them; the
XRD controller starts it as ``claim/<xrd>`` through the factory the manager
gives it.

* ``_claims``: the reconcile, in Crossplane's order (pause, binding, deletion
  with the claim's ``compositeDeletePolicy``, finalizer, sync, conditions);
* ``_claim_sync``: binding a claim to its XR and keeping the two in step
  (name the XR, update the claim first, server-side apply the XR, status back);
* ``_connection``: the claim's copy of its XR's connection Secret.

The claim reconciler reads its XR through the runtime's XR view (always
legacy); the syncer copies the claim's spec to the XR's field by field, as
Crossplane's does. Imports no other reconciler.
"""

from __future__ import annotations

from crossfn.controller.claim._claims import ClaimReconciler

__all__ = ["ClaimReconciler"]
