"""The one clock: what every timestamp and deadline in the engine and the controller reads by default.

Callers that need a fixed or fake time pass their own ``Clock`` instead.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable

__all__ = ["Clock", "utcnow"]

Clock = Callable[[], datetime.datetime]
"""A source of aware UTC datetimes."""


def utcnow() -> datetime.datetime:
    """The current time, aware, in UTC."""
    return datetime.datetime.now(datetime.UTC)
