"""In-process functions that never return, for the render timeout tests."""

from __future__ import annotations

import threading
from typing import Any

RELEASE = threading.Event()
"""What ``stuck`` waits on; the tests set it when they are done."""


def runaway(req: Any, rsp: Any) -> None:
    """Loops in Python forever: an interrupt stops it."""
    while True:
        pass


def stuck(req: Any, rsp: Any) -> None:
    """Waits in one C call until released: only abandoning its thread frees the render."""
    RELEASE.wait()


async def blocking(req: Any, rsp: Any) -> None:
    """An async function that never awaits: it would block the loop it ran on."""
    while True:
        pass
