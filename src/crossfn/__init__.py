"""crossfn: Crossplane composition functions in Python.

The package is layered, top to bottom: ``cli``; ``render`` and ``validate``;
``engine``, ``functions`` and ``schemas``; ``sdk``; ``gocompat``; ``proto``.
``errors`` is shared by all of them. The layers are import contracts checked in
CI (``lint-imports``). Importing ``crossfn`` itself imports nothing else, so the
command line starts fast.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
