"""The engine's public surface is exactly its ``__all__``."""

import importlib


def test_all_names_resolve() -> None:
    engine = importlib.import_module("crossfn.engine")
    missing = [name for name in engine.__all__ if not hasattr(engine, name)]
    assert missing == [], "every name in __all__ must be importable from crossfn.engine"


def test_no_public_name_outside_all() -> None:
    engine = importlib.import_module("crossfn.engine")
    public = {n for n in vars(engine) if n.isidentifier() and not n.startswith("_") and n != "annotations"}
    assert public <= set(engine.__all__), f"public names missing from __all__: {public - set(engine.__all__)}"
