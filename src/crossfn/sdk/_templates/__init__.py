"""Files ``crossfn init function`` writes, with ``{{name}}``, ``{{module}}`` and ``{{crossfn_version}}`` placeholders."""
