"""Function packages: Crossplane's ``pkg`` controllers for Functions, and how the controller calls them.

* ``_functions``: how one Function is reached, decided per call (in-process
  built-in, ``crossfn.io/endpoint``, or its active FunctionRevision's
  endpoint over mTLS), and the function runner stack the XR controllers share;
* ``_functionrevisions``: revisions and status of Functions crossfn runs
  itself (built-ins, annotated endpoints);
* ``_packages``: revisions of Functions run as packages (Crossplane's Function
  controller), and ``core init``'s package setup;
* ``_package_runtime``: the active revision of a package as a Deployment, a
  Service and TLS Secrets (Crossplane's package runtime), whose certificates
  ``runtime._tls`` makes.

Imports no other reconciler.
"""

from __future__ import annotations

from crossfn.controller.packages._functionrevisions import FunctionRevisionKeeper
from crossfn.controller.packages._functions import CALL_SLOT_WAIT, FunctionTransport, build_runner, load_tls
from crossfn.controller.packages._package_runtime import FunctionRuntimeReconciler
from crossfn.controller.packages._packages import (
    RUNTIME_CONFIG_API_VERSION,
    FunctionPackageReconciler,
    initialize,
)

__all__ = [
    "CALL_SLOT_WAIT",
    "RUNTIME_CONFIG_API_VERSION",
    "FunctionPackageReconciler",
    "FunctionRevisionKeeper",
    "FunctionRuntimeReconciler",
    "FunctionTransport",
    "build_runner",
    "initialize",
    "load_tls",
]
