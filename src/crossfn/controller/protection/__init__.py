"""Usages: Crossplane's ``protection`` controllers, and the webhook that keeps a used resource.

* ``_usages``: Usage, ClusterUsage and the legacy Usage read through one
  view; which Usages protect an object (the finder both sides share); the
  details annotation and the in-use message, in Crossplane's words;
* ``_reconciler``: the Usage controllers (``usage/usage.protection.crossplane.io``,
  ``usage/clusterusage.protection.crossplane.io``,
  ``usage/usage.apiextensions.crossplane.io``): the in-use label, the owner
  reference to the using resource, ``Ready``, and replayed deletion;
* ``_webhook``: the validating admission webhook that denies deleting a used
  resource, its HTTPS server, its serving certificate and its
  ValidatingWebhookConfiguration.

Imports no other reconciler.
"""

from __future__ import annotations

from crossfn.controller.protection._reconciler import UsageReconciler, controller_name
from crossfn.controller.protection._usages import KINDS, Finder
from crossfn.controller.protection._webhook import (
    ServingCertificate,
    WebhookServer,
    configuration,
    ensure_certificate,
    load_certificate,
    register,
    register_webhook,
    review,
    serving_certificate,
)

__all__ = [
    "KINDS",
    "Finder",
    "ServingCertificate",
    "UsageReconciler",
    "WebhookServer",
    "configuration",
    "controller_name",
    "ensure_certificate",
    "load_certificate",
    "register",
    "register_webhook",
    "review",
    "serving_certificate",
]
