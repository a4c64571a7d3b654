"""A Crossplane composition function."""
