"""crossfn.render."""
