"""crossfn.validate."""
