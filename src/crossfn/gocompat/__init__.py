"""crossfn.gocompat."""
