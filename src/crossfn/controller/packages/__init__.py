"""packages."""
