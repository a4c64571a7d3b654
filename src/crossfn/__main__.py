"""``python -m crossfn`` runs the command line."""

from crossfn.cli import entrypoint

entrypoint()
