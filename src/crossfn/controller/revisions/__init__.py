"""revisions."""
