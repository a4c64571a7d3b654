"""The XR's Ready condition, from what the functions said about readiness (upstream core-2.15, core-3.6).

Crossplane never inspects a composed resource's own conditions: a composed
resource is ready only when a function marked it READY_TRUE. The XR is ready
when all are, unless the desired composite's ``ready`` overrides it.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable

from crossfn.engine import _model
from crossfn.proto.v1 import run_function_pb2 as fnv1

__all__ = ["ready_condition", "stable_n_and_some_more"]


def stable_n_and_some_more(n: int, names: Iterable[str]) -> str:
    """Crossplane's ``StableNAndSomeMore``: sorted names, at most ``n``, then ``and N more``."""
    ordered = sorted(names)
    if len(ordered) <= n:
        if len(ordered) <= 2:
            return ", ".join(ordered)
        return ", ".join(ordered[:-1]) + ", and " + ordered[-1]
    return ", ".join(ordered[:n]) + f", and {len(ordered) - n} more"


def ready_condition(
    override: fnv1.Ready.ValueType,
    unready: Iterable[str],
    now: datetime.datetime | None,
) -> _model.Condition:
    """The XR's Ready condition.

    READY_TRUE gives ``Available``, READY_FALSE ``Creating`` with no message;
    unspecified derives it: ``Creating`` with ``Unready resources: …`` when any
    composed resource is not ready, else ``Available``. This is both the
    controller's rule and classic render's matrix.
    """
    if override == fnv1.READY_TRUE:
        return _model.Condition("Ready", "True", "Available", last_transition_time=now)
    if override == fnv1.READY_FALSE:
        return _model.Condition("Ready", "False", "Creating", last_transition_time=now)
    names = list(unready)
    if names:
        message = f"Unready resources: {stable_n_and_some_more(3, names)}"
        return _model.Condition("Ready", "False", "Creating", message, last_transition_time=now)
    return _model.Condition("Ready", "True", "Available", last_transition_time=now)
