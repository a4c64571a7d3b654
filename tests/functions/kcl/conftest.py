"""The function-kcl tests' one worker pool."""

from __future__ import annotations

import datetime
from collections.abc import Iterator

import pytest

from crossfn.functions import kcl


@pytest.fixture(scope="session")
def limits() -> Iterator[kcl.Limits]:
    """Small, quick limits shared by every test: two workers, 5 s, 512 MiB."""
    lim = kcl.Limits(timeout=datetime.timedelta(seconds=5), memory_limit=512 << 20, max_output=1 << 20, workers=2)
    yield lim
    lim.close()
