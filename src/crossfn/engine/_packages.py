"""Function packages: which revision of a Function is active, where it listens, what it can do.

Crossplane reaches a Function through its *active* FunctionRevision (the one
with ``spec.desiredState: Active``, labelled ``pkg.crossplane.io/package:
<function>``): the gRPC target is its ``status.endpoint`` (upstream core-2.5), and a
Composition revision is valid only when every function it uses advertises the
``composition`` capability (upstream core-2.1 step 9). A controller lists revisions with its
client and hands them here; the decisions are pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from crossfn import errors

__all__ = ["LABEL_PACKAGE", "active_endpoint", "check_capabilities"]

LABEL_PACKAGE = "pkg.crossplane.io/package"
_NON_ALNUM = re.compile(r"[^a-z0-9]")


def _package(rev: Mapping[str, Any]) -> str | None:
    labels = (rev.get("metadata") or {}).get("labels") or {}
    value = labels.get(LABEL_PACKAGE)
    return str(value) if value else None


def _active(rev: Mapping[str, Any]) -> bool:
    return (rev.get("spec") or {}).get("desiredState") == "Active"


def _name(rev: Mapping[str, Any]) -> str:
    return str((rev.get("metadata") or {}).get("name") or "")


def active_endpoint(revisions: Iterable[Mapping[str, Any]], function: str) -> str:
    """The gRPC target of ``function``'s active revision, with Crossplane's errors."""
    for rev in revisions:
        if _package(rev) != function or not _active(rev):
            continue
        endpoint = str((rev.get("status") or {}).get("endpoint") or "")
        if not endpoint:
            raise errors.FunctionRunError(
                f"cannot determine gRPC target: active FunctionRevision {errors.quote(_name(rev))} has an empty status.endpoint"
            )
        return endpoint
    raise errors.FunctionRunError(
        "cannot find an active FunctionRevision (a FunctionRevision with spec.desiredState: Active)"
    )


def _fuzzy(capability: str) -> str:
    return _NON_ALNUM.sub("", capability.lower())


def check_capabilities(
    revisions: Iterable[Mapping[str, Any]], functions: Iterable[str], required: Iterable[str]
) -> None:
    """Raise when an active revision of one of ``functions`` lacks a ``required`` capability.

    Matching ignores case and anything but letters and digits. A revision
    listing no capabilities counts as a composition function. Revisions of
    other packages, inactive ones and unlabelled ones are ignored.
    """
    wanted = set(functions)
    need = list(required)
    for rev in revisions:
        pkg = _package(rev)
        if pkg is None or pkg not in wanted or not _active(rev):
            continue
        listed = [str(c) for c in (rev.get("status") or {}).get("capabilities") or []]
        have = {_fuzzy(c) for c in listed} if listed else {"composition"}
        missing = [c for c in need if _fuzzy(c) not in have]
        if missing:
            raise errors.InputError(
                f"function {errors.quote(pkg)} (active revision {errors.quote(_name(rev))}) "
                f"is missing required capabilities: {', '.join(missing)}"
            )
