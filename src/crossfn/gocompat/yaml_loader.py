"""Read YAML as Kubernetes' Go tools do (sigs.k8s.io/yaml over go-yaml), with PyYAML.

:class:`Loader` is PyYAML's safe loader (the C one when libyaml is there) with
two differences that make Python see the values Crossplane sees:

* no timestamp type: ``2024-01-01T00:00:00Z`` stays a string, as Kubernetes
  keeps it;
* exponent floats without a dot (``1e3``, ``5e-324``) are numbers, as go-yaml
  reads them; PyYAML's YAML 1.1 pattern needs the dot.

Every command that reads users' manifests (render, validate, test) loads with
it, so one file means the same thing to all of them.
"""

from __future__ import annotations

import re

import yaml

__all__ = ["Loader"]

_Base: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class Loader(_Base):  # type: ignore[valid-type,misc] # the base is chosen at import time (libyaml or pure Python)
    """PyYAML's safe loader reading timestamps as strings and ``1e3`` as a number (see the module doc)."""


Loader.yaml_implicit_resolvers = {
    key: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for key, resolvers in _Base.yaml_implicit_resolvers.items()
}
# Checked after PyYAML's own float pattern.
Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9]+|\.[0-9]+|[0-9]+\.[0-9]*)[eE][-+]?[0-9]+$"),
    list("-+0123456789."),
)
