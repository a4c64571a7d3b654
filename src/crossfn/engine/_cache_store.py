"""Where the response cache keeps entries: a bounded in-memory LRU, or Crossplane's on-disk layout
(upstream core-2.19).

An entry is a deadline plus the response, stored as bytes so no caller can
mutate a cached message. The disk store writes Crossplane's
``CachedRunFunctionResponse`` (``deadline = 1``, ``response = 2``) to
``<dir>/<function>/<tag>`` through a temporary file and an atomic rename, so
a crossfn controller and Crossplane can share a cache directory format. The
record is generated from ``crossfn/proto/cache/v1alpha1/cached_response.proto``.

This is the engine's only file access, and only when a caller opts in by
passing a :class:`DiskStore`.
"""

from __future__ import annotations

import collections
import dataclasses
import datetime
import os
import tempfile
from pathlib import Path
from typing import Protocol

from crossfn.proto import wire
from crossfn.proto.cache.v1alpha1 import cached_response_pb2 as cachepb
from crossfn.proto.v1 import run_function_pb2 as fnv1

__all__ = ["DiskStore", "Entry", "MemoryStore", "ResponseStore"]


@dataclasses.dataclass(frozen=True)
class Entry:
    """A cached response and when it stops being valid (``None``: never valid, e.g. an empty file)."""

    deadline: datetime.datetime | None
    response: bytes


class ResponseStore(Protocol):
    """Keeps cached responses by function name and request tag."""

    def get(self, function: str, tag: str) -> Entry | None:
        """The entry, or ``None`` when there is none. Unreadable entries raise."""
        ...

    def put(self, function: str, tag: str, entry: Entry) -> int:
        """Store ``entry``; returns the bytes written."""
        ...


class MemoryStore:
    """A least-recently-used in-memory store holding at most ``max_entries`` responses."""

    def __init__(self, max_entries: int = 1024) -> None:
        self._max = max_entries
        self._entries: collections.OrderedDict[tuple[str, str], Entry] = collections.OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, function: str, tag: str) -> Entry | None:
        entry = self._entries.get((function, tag))
        if entry is not None:
            self._entries.move_to_end((function, tag))
        return entry

    def put(self, function: str, tag: str, entry: Entry) -> int:
        self._entries[(function, tag)] = entry
        self._entries.move_to_end((function, tag))
        while len(self._entries) > self._max:
            self._entries.popitem(last=False)
        return len(entry.response)


class DiskStore:
    """Crossplane's cache directory: ``<root>/<function>/<tag>``, directories mode 0700."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self._root = Path(root)

    def _path(self, function: str, tag: str) -> Path:
        """The entry's file; names that would leave the cache directory are refused."""
        for part in (function, tag):
            if not part or part in (".", "..") or "/" in part or "\\" in part or "\x00" in part:
                raise ValueError(f"cannot cache under {part!r}: not a plain file name")
        return self._root / function / tag

    def get(self, function: str, tag: str) -> Entry | None:
        try:
            data = self._path(function, tag).read_bytes()
        except FileNotFoundError:
            return None
        return decode(data)

    def put(self, function: str, tag: str, entry: Entry) -> int:
        data = encode(entry)
        directory = self._path(function, tag).parent
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{tag}.")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, self._path(function, tag))
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return len(data)

    def collect_garbage(self, now: datetime.datetime) -> dict[str, tuple[int, int]]:
        """Delete expired or unreadable entries and empty directories.

        Returns, per function, the entries and bytes deleted. Crossplane runs
        this every minute; scheduling it is the caller's.
        """
        deleted: dict[str, tuple[int, int]] = {}
        if not self._root.is_dir():
            return deleted
        for directory in [d for d in self._root.iterdir() if d.is_dir()]:
            count = freed = 0
            for path in [p for p in directory.iterdir() if p.is_file()]:
                try:
                    data = path.read_bytes()
                    deadline = decode(data).deadline
                except (OSError, ValueError):
                    deadline, data = None, b""
                if deadline is None or now > deadline:
                    path.unlink(missing_ok=True)
                    count, freed = count + 1, freed + len(data)
            if count:
                deleted[directory.name] = (count, freed)
            if not any(directory.iterdir()):
                directory.rmdir()
        return deleted


def encode(entry: Entry) -> bytes:
    """Serialise an entry as Crossplane's ``CachedRunFunctionResponse``."""
    msg = cachepb.CachedRunFunctionResponse(response=entry.response)
    if entry.deadline is not None:
        msg.deadline.FromDatetime(entry.deadline.astimezone(datetime.UTC).replace(tzinfo=None))
    data: bytes = msg.SerializeToString()
    return data


def decode(data: bytes) -> Entry:
    """Parse a ``CachedRunFunctionResponse``; raises ``ValueError`` on garbage."""
    try:
        msg = cachepb.CachedRunFunctionResponse.FromString(data)
        wire.parse(fnv1.RunFunctionResponse, msg.response)
    except Exception as exc:  # protobuf's DecodeError differs between runtimes
        raise ValueError(f"cannot decode cached response: {exc}") from exc
    deadline = msg.deadline.ToDatetime(tzinfo=datetime.UTC) if msg.HasField("deadline") else None
    return Entry(deadline=deadline, response=msg.response)
