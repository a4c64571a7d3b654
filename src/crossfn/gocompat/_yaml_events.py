"""Build Python values straight from libyaml's event stream: the fast path of ``yaml_loader.load_all``.

PyYAML's own loader first composes a node per value (with two position marks
each), resolves every plain scalar through a list of regular expressions, then
constructs the values from the nodes: a 10 MB manifest took about ten seconds.
Here the values are built from the parser's events in one loop, without
nodes and without recursion, so the same file loads several times faster and
nesting costs no stack.

The result is what :class:`yaml_loader.Loader` would construct (plain
scalars resolved by the same function, same merge keys, keys turned into strings),
with go-yaml's bounds checked on the way: collections nested deeper than
``MAX_DEPTH``, aliases doing too much of the decoding, an alias to a
collection that is still open. Anything this loop does not handle, an
explicit tag (``!!binary``, ``!custom``) or a scalar PyYAML would refuse,
raises :class:`Unsupported` before a value is returned, and the caller
loads the text with PyYAML instead.

``as_json`` returns the values as a YAML -> JSON -> object round trip
gives them (what Kubernetes and Crossplane see): whole floats in the int64
range become ints, ints past it floats, and every alias is a copy, never a
shared object.
"""

from __future__ import annotations

import gc
import math
from collections.abc import Callable
from typing import Any

import yaml

from crossfn import errors
from crossfn.gocompat import strconv

__all__ = ["Unsupported", "build_all", "copy_tree"]

_RESOLVED_MAX = 1 << 16
"""Distinct plain scalars whose resolution :func:`build_all` remembers."""


class Unsupported(Exception):  # noqa: N818 -- a signal to fall back, never an error a user sees
    """The text uses something only PyYAML's full loader handles (an explicit tag, an unusual scalar)."""


def not_json(f: float) -> str:
    """sigs.k8s.io/yaml's error for a NaN or an infinity, which YAML holds and JSON does not."""
    return f"error converting YAML to JSON: json: unsupported value: {strconv.format_float(f, 'g', -1)}"


class _MergeKeyType:
    """The ``<<`` key: its value's mappings are merged into the mapping that holds it."""


_MergeKey = _MergeKeyType()


def copy_tree(value: Any) -> Any:
    """A deep copy of dicts and lists, without recursion."""
    if not isinstance(value, dict | list):
        return value
    root: Any = {} if isinstance(value, dict) else []
    stack = [(value, root)]
    while stack:
        source, target = stack.pop()
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for key, item in items:
            copied = item
            if isinstance(item, dict | list):
                copied = {} if isinstance(item, dict) else []
                stack.append((item, copied))
            if isinstance(target, dict):
                target[key] = copied
            else:
                target.append(copied)
    return root


def _jsonish(value: Any) -> Any:
    """A scalar as a YAML -> JSON -> object round trip returns it: a whole float in int64 range is an int,
    an int past it (a Go uint64) a float."""
    if type(value) is float and value.is_integer() and -(2**63) <= value < 2**63:
        return int(value)
    if type(value) is int and not -(2**63) <= value < 2**63:
        return float(value)
    return value


class _Frame:
    """An open collection: its value so far and what the next event adds to it."""

    __slots__ = ("anchor", "key", "merges", "size", "value")

    def __init__(self, value: dict[str, Any] | list[Any], anchor: str | None) -> None:
        self.value = value
        self.anchor = anchor
        self.key: Any = _NO_KEY
        self.merges: list[Any] = []
        self.size = 1


_NO_KEY = object()


class _Builder:
    """One YAML stream's documents, built event by event (see the module doc)."""

    def __init__(
        self,
        key_string: Callable[[Any], str],
        max_depth: int,
        excessive: Callable[[int, int], bool],
        as_json: bool,
    ) -> None:
        self._key_string = key_string
        self._max_depth = max_depth
        self._excessive = excessive
        self._as_json = as_json
        self.stack: list[_Frame] = []
        self.open: dict[str, int] = {}
        """Anchors of collections still open: an alias to one would make a cycle."""
        self.anchors: dict[str, tuple[Any, int]] = {}
        self.root: Any = None
        self.decodes = 0
        self.aliased = 0
        self.resolve: Callable[[str], Any] = str
        # Plain scalars repeat (keys above all): resolve each text once, and share the one string object.
        self._resolved: dict[str, Any] = {}
        self._mark: Any = None

    def start_document(self) -> None:
        self.anchors, self.root, self.decodes, self.aliased = {}, None, 1, 0

    def scalar(self, event: yaml.ScalarEvent) -> None:
        """A scalar: resolved (plain ones by go-yaml's rules, each text once), then added where it belongs."""
        if event.tag is not None:
            raise Unsupported(event.tag)
        text = event.value
        value: Any = text
        if event.implicit[0]:
            value = self._resolved.get(text, _NO_KEY)
            if value is _NO_KEY:
                value = _MergeKey if text == "<<" else self.resolve(text)
                if self._as_json:
                    value = _jsonish(value)
                if len(self._resolved) < _RESOLVED_MAX:
                    self._resolved[text] = value
        self.decodes += 1
        if event.anchor is not None:
            self.anchors[event.anchor] = (value, 1)
        self._mark = event.start_mark
        self.add(value, 1)

    def start(self, event: yaml.CollectionStartEvent, value: dict[str, Any] | list[Any]) -> None:
        if event.tag is not None and not event.implicit:
            raise Unsupported(event.tag)
        if len(self.stack) >= self._max_depth:
            raise errors.InputError(f"yaml: exceeded max depth of {self._max_depth}")
        self.decodes += 1
        if event.anchor is not None:
            self.open[event.anchor] = self.open.get(event.anchor, 0) + 1
        self.stack.append(_Frame(value, event.anchor))

    def end(self) -> None:
        frame = self.stack.pop()
        value = frame.value
        if frame.merges:
            value = self._merged(frame)
        if frame.anchor is not None:
            self.open[frame.anchor] -= 1
            self.anchors[frame.anchor] = (value, frame.size)
        self.add(value, frame.size)

    def alias(self, event: yaml.AliasEvent) -> None:
        name = str(event.anchor)
        if self.open.get(name):
            raise errors.InputError(f"yaml: anchor {name!r} value contains itself")
        if name not in self.anchors:
            raise Unsupported(name)  # PyYAML's own error names the position
        value, size = self.anchors[name]
        self.decodes += 1 + size
        self.aliased += size
        if self._excessive(self.decodes, self.aliased):
            raise errors.InputError("yaml: document contains excessive aliasing")
        self._mark = event.start_mark
        self.add(copy_tree(value) if self._as_json else value, 1 + size)

    def add(self, value: Any, size: int) -> None:
        """Put a finished value (``size`` decodes) into the open collection, or make it the document.

        With ``as_json``, a NaN or an infinity anywhere but a key (which becomes ``.nan``) is refused,
        as the JSON of the round trip cannot hold it.
        """
        if self._as_json and type(value) is float and not math.isfinite(value) and not self._at_key():
            mark = self._mark
            raise errors.InputError(f"line {mark.line + 1} column {mark.column + 1}: {not_json(value)}")
        if not self.stack:
            self.root = "<<" if value is _MergeKey else value
            return
        frame = self.stack[-1]
        frame.size += size
        container = frame.value
        if value is _MergeKey and (type(container) is list or frame.key is not _NO_KEY):
            value = "<<"  # the merge key's text anywhere but a key is a string
        if type(container) is list:
            container.append(value)
            return
        if frame.key is _NO_KEY:
            if isinstance(value, dict | list):
                raise Unsupported("a collection as a key")  # PyYAML: found unhashable key
            frame.key = value if type(value) is str or value is _MergeKey else self._key_string(value)
            return
        key, frame.key = frame.key, _NO_KEY
        if key is _MergeKey:
            frame.merges.append(value)
        else:
            container[key] = value

    def _at_key(self) -> bool:
        """Whether the next value added is a mapping's key."""
        return bool(self.stack) and type(self.stack[-1].value) is dict and self.stack[-1].key is _NO_KEY

    @staticmethod
    def _merged(frame: _Frame) -> dict[str, Any]:
        """PyYAML's merge: explicit keys win, then earlier merged mappings over later ones."""
        pairs: list[tuple[str, Any]] = []
        for source in frame.merges:
            maps = source if isinstance(source, list) else [source]
            if not all(isinstance(m, dict) for m in maps):
                raise Unsupported("merge of a non-mapping")  # PyYAML's error names the position
            for m in reversed(maps):
                pairs.extend(m.items())
        merged = dict(pairs)
        merged.update(frame.value)
        return merged


def build_all(
    loader: Any,
    resolve: Callable[[str], Any],
    *,
    key_string: Callable[[Any], str],
    max_depth: int,
    excessive: Callable[[int, int], bool],
    as_json: bool,
) -> list[Any]:
    """Every document of the stream ``loader`` parses (``None`` for an empty one).

    Raises :class:`Unsupported` for what only PyYAML's full loader handles,
    ``errors.InputError`` for go-yaml's bounds, and PyYAML's ``YAMLError`` for
    a syntax error.
    """
    builder = _Builder(key_string, max_depth, excessive, as_json)
    builder.resolve = resolve
    docs: list[Any] = []
    handlers: dict[type, Callable[[Any], Any]] = {
        yaml.ScalarEvent: builder.scalar,
        yaml.MappingStartEvent: lambda event: builder.start(event, {}),
        yaml.SequenceStartEvent: lambda event: builder.start(event, []),
        yaml.MappingEndEvent: lambda _: builder.end(),
        yaml.SequenceEndEvent: lambda _: builder.end(),
        yaml.AliasEvent: builder.alias,
        yaml.DocumentStartEvent: lambda _: builder.start_document(),
        yaml.DocumentEndEvent: lambda _: docs.append(builder.root),
        yaml.StreamStartEvent: lambda _: None,
    }
    gc_was_enabled = gc.isenabled()
    gc.disable()  # a million new objects and no cycles: the collector would only rescan them, again and again
    try:
        while True:
            event = loader.get_event()
            handler = handlers.get(type(event))
            if handler is None:  # the stream's end
                return docs
            handler(event)
    finally:
        if gc_was_enabled:
            gc.enable()
