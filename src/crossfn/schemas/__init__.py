"""Kind schemas: CRDs, XRDs, OpenAPI v3 documents and built-in Kubernetes kinds.

One store serves both users of schemas: the engine answers a function's
required schemas from it (through the engine's ``SchemaSource`` protocol,
which :class:`crossfn.schemas.store.SchemaStore` satisfies structurally), and
:mod:`crossfn.validate` validates objects with it. The engine's discovery
source finds kinds with :mod:`~crossfn.schemas.openapi` too, so this package
sits one layer below the engine and imports nothing above it (an import
contract checks it). It reads package data and files only when a function
asks it to (never at import time) and never imports ``yaml``: the engine,
which reads no files, can import it.

Modules, one concept each:

* :mod:`~crossfn.schemas.openapi`: find a kind in OpenAPI v3 group-version
  documents, flatten ``$ref``s, load ``-s DIR``;
* :mod:`~crossfn.schemas.xrd`: the CRDs Crossplane generates from an XRD;
* :mod:`~crossfn.schemas.defaults`: the API server's structural defaulting;
* :mod:`~crossfn.schemas.builtin`: built-in Kubernetes kinds, offline;
* :mod:`~crossfn.schemas.store`: the store itself.
"""

from __future__ import annotations

__all__ = ["builtin", "defaults", "openapi", "store", "xrd"]

from crossfn.schemas import builtin, defaults, openapi, store, xrd
