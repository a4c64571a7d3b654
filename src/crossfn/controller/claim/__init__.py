"""claim."""
