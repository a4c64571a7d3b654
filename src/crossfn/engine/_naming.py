"""Names for composed resources: Crossplane's deterministic ChildName and name checks
(upstream core-2.10 steps 6–7).

Since v2.0 a composed resource without a name gets
``<generateName><sha256(ownerUID + compositionResourceName)[:12]>``, trimmed so
the result fits a 63-character label-safe name. The same XR and resource name
always give the same composed name, which is what makes re-renders and
re-reconciles stable. Random names remain only as a fallback for owners
without a UID.
"""

from __future__ import annotations

import hashlib
import random
import re

__all__ = ["child_name", "random_name", "valid_name"]

_MAX_NAME = 63
_SUFFIX = 12
_RANDOM_CHARS = "bcdfghjklmnpqrstvwxz2456789"  # apiserver's alphabet: no vowels, no look-alikes
_RFC1123 = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_RFC1123_RBAC = re.compile(r"^[a-z0-9:]([-a-z0-9:]*[a-z0-9:])?(\.[a-z0-9:]([-a-z0-9:]*[a-z0-9:])?)*$")
_RBAC_KINDS = frozenset({"Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"})


def child_name(generate_name: str, owner_uid: str, child: str) -> str:
    """The deterministic name of composed resource ``child`` of the owner with ``owner_uid``.

    ``generate_name`` gets exactly one trailing ``-`` (none when empty). When
    prefix and suffix exceed 63 characters the prefix is cut to 51, then to 50
    plus ``-`` if the cut does not already end in ``-``.
    """
    suffix = hashlib.sha256((owner_uid + child).encode()).hexdigest()[:_SUFFIX]
    prefix = generate_name
    if prefix and not prefix.endswith("-"):
        prefix += "-"
    if len(prefix) + len(suffix) <= _MAX_NAME:
        return prefix + suffix
    prefix = prefix[: _MAX_NAME - _SUFFIX]
    if not prefix.endswith("-"):
        prefix = prefix[: _MAX_NAME - _SUFFIX - 1] + "-"
    return prefix + suffix


def random_name(generate_name: str, rng: random.Random) -> str:
    """An apiserver-style generated name: the prefix plus 5 random characters."""
    return generate_name[: _MAX_NAME - 5] + "".join(rng.choice(_RANDOM_CHARS) for _ in range(5))


def valid_name(name: str, api_version: str, kind: str) -> bool:
    """Whether ``name`` is an RFC 1123 subdomain; RBAC role kinds may also contain ``:``."""
    if not name or len(name) > 253:
        return False
    group = api_version.rpartition("/")[0]
    if group == "rbac.authorization.k8s.io" and kind in _RBAC_KINDS:
        return _RFC1123_RBAC.match(name) is not None
    return _RFC1123.match(name) is not None
