"""Every Crossplane kind crossfn serves: one table, one line per kind.

This is Crossplane's ``cluster/crds/`` as a table. The CRD files in this
package are rendered from it by ``scripts/generate_crds.py`` (``--check`` in
CI), and :mod:`._crds` installs whatever files are there. Adding a kind is a
line in its group module's ``KINDS``, then running the script.
"""

from __future__ import annotations

from typing import Any

from crossfn.controller.crds import _apiextensions, _ops, _pkg, _protection
from crossfn.controller.crds._kind import Kind
from crossfn.controller.crds._types import K8sResolver

__all__ = ["KINDS", "file_name", "render"]

KINDS: tuple[Kind, ...] = (*_apiextensions.KINDS, *_ops.KINDS, *_pkg.KINDS, *_protection.KINDS)
"""Crossplane's 21 kinds, in the order of their file names."""


def file_name(kind: Kind) -> str:
    """The package data file of a kind's CRD, as Crossplane names its own: ``<group>_<plural>.yaml``."""
    return f"{kind.group}_{kind.plural_name}.yaml"


def render(k8s: K8sResolver) -> dict[str, dict[str, Any]]:
    """Every kind's CRD by file name; ``k8s`` resolves the Kubernetes types some kinds embed."""
    return {file_name(kind): kind.crd(k8s) for kind in KINDS}
