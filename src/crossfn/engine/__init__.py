"""crossfn.engine."""
