"""crossfn.functions."""
