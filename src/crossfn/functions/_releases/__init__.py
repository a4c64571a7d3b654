"""What each built-in stands in for: one module per built-in, each an ``UPSTREAM`` (``crossfn.functions._registry``)."""
