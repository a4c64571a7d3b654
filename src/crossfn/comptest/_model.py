"""The parsed form of a ``CompositionTest`` file: what ``_load`` produces and ``_run`` consumes.

Every object remembers where it came from (the test file, and the field path
inside it such as ``spec.tests[0].inputs.xr``), because every error the
harness reports about an input must name the test file and field (an inline
input has no file of its own).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

__all__ = ["AnyCase", "Case", "Expected", "OperationCase", "Source"]


@dataclasses.dataclass(frozen=True)
class Source:
    """One input given as a file (``path``, already resolved against the test file's directory) or inline (``raw``)."""

    field: str
    """Where it is declared, such as ``spec.tests[0].inputs.xr``."""
    path: Path | None = None
    raw: Any = None
    """An object (``Resource``) or a list of objects (``Resources``) when ``path`` is None."""


@dataclasses.dataclass(frozen=True)
class Expected:
    """One partial object of a chainsaw assertion: some rendered document must match it."""

    field: str
    """Where it is declared, such as ``spec.tests[0].assertions[0].chainsaw.resources[1]``."""
    resource: dict[str, Any]


@dataclasses.dataclass(frozen=True)
class Case:
    """One entry of ``spec.tests``: the render inputs, the patches to the XR and the expected objects."""

    file: Path
    """The test file, as the user named it (relative paths stay relative in messages)."""
    where: str
    """The file, plus ``document N`` when the file holds several documents: the prefix of every error."""
    suite: str
    """The CompositionTest's ``metadata.name`` (the file's stem if it has none)."""
    index: int
    name: str
    id: str | None
    xr: Source
    composition: Source
    functions: Source
    observed: Source | None = None
    extra: Source | None = None
    xrd: Source | None = None
    credentials: Path | None = None
    context: dict[str, Any] = dataclasses.field(default_factory=dict)
    timeout: float = 30.0
    """``timeoutSeconds``: the whole render, functions included, must finish within it."""
    validate: bool = False
    add_fields: dict[str, Any] = dataclasses.field(default_factory=dict)
    remove_fields: tuple[str, ...] = ()
    expected: tuple[Expected, ...] = ()

    @property
    def field(self) -> str:
        """This case's field path in its file."""
        return f"spec.tests[{self.index}]"

    @property
    def full_name(self) -> str:
        """The name the report prints: ``<suite>/<test name>``."""
        return f"{self.suite}/{self.name}"


@dataclasses.dataclass(frozen=True)
class OperationCase:
    """One entry of an ``OperationTest``'s ``spec.tests``: the Operation's render inputs and the expected objects."""

    file: Path
    where: str
    suite: str
    index: int
    name: str
    id: str | None
    operation: Source
    """An Operation, CronOperation or WatchOperation, as ``crossfn render op`` takes it."""
    functions: Source
    required: Source | None = None
    watched: Source | None = None
    """crossfn's addition: the resource a WatchOperation saw change (``render op -w``)."""
    credentials: Path | None = None
    context: dict[str, Any] = dataclasses.field(default_factory=dict)
    timeout: float = 30.0
    expected: tuple[Expected, ...] = ()

    @property
    def field(self) -> str:
        """This case's field path in its file."""
        return f"spec.tests[{self.index}]"

    @property
    def full_name(self) -> str:
        """The name the report prints: ``<suite>/<test name>``."""
        return f"{self.suite}/{self.name}"


AnyCase = Case | OperationCase
"""A test case of either kind; the report reads only what both have."""
