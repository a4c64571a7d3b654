"""``crossfn trace``: an XR's or claim's tree of composed resources on a live cluster, as ``crossplane trace`` shows it.

Crossplane's CLI traces a resource by reading it and then, recursively, what
it references (a claim its XR, an XR its composed resources, nested XRs
theirs), and prints the tree with each object's Synced and Ready conditions
(crossplane/cli ``cmd/crossplane/trace``). The modules, in the order a trace
uses them:

* ``_mapping``: the ``TYPE[.VERSION][.GROUP]`` argument to a kind, through discovery;
* ``_load``: reading the root (or every object of a kind) and the tree under it;
* ``_resource``: a node, and which objects are its children;
* ``_print``: the ``default``, ``wide``, ``json``, ``yaml`` and ``dot`` outputs.

The command (``crossfn.cli.trace``) reads through the controller's Kubernetes
client; everything here takes any :class:`Reader`. Packages (Functions,
Providers, Configurations) are not traced: crossfn's cluster has no package
lock to find their dependencies in.
"""

from __future__ import annotations

from crossfn.trace._load import DEFAULT_CONCURRENCY, Reader, load_tree, read_all
from crossfn.trace._mapping import Mapping, resolve
from crossfn.trace._print import render
from crossfn.trace._resource import Failure, Ref, Resource

__all__ = [
    "DEFAULT_CONCURRENCY",
    "Failure",
    "Mapping",
    "Reader",
    "Ref",
    "Resource",
    "load_tree",
    "read_all",
    "render",
    "resolve",
]
