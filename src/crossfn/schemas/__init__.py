"""crossfn.schemas."""
