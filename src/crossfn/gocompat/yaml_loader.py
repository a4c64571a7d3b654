"""Read YAML as Kubernetes' Go tools do (sigs.k8s.io/yaml over go-yaml), with PyYAML, within go-yaml's bounds.

This is the one YAML reading path of crossfn: render (every input file and
``--context-values``), validate, test and convert all go through
:func:`read_file` (or :func:`read_stream`) and :func:`load_all`, so one file
means the same thing to all of them and is refused by all of them alike.

:class:`Loader` is PyYAML's safe loader (the C one when libyaml is there)
that sees the values Kubernetes sees, which are go-yaml v2's, not PyYAML's
YAML 1.1 ones:

* plain scalars resolve as go-yaml v2 resolves them (``_yaml_resolve``):
  ``y``/``n``/``on``/``off`` are booleans, ``22:00`` is a string (no base 60),
  ``08`` is 8, ``0o17`` is 15, ``+.5`` is 0.5, ``1e3`` is a number, keys alike;
* timestamps stay strings (``2024-01-01T00:00:00Z``), as Kubernetes keeps them;
* explicit tags: ``!!int "3"`` is 3, ``!!int 1.5`` is go-yaml's error,
  ``!!binary`` is its decoded text, a tag go-yaml does not know (``!custom``,
  ``!!set``) decodes by the node's kind;
* map keys become the strings sigs.k8s.io/yaml makes of them (:func:`key_string`).

:func:`load_all` adds the bounds go-yaml has and PyYAML lacks, with go-yaml's
texts:

* collections nested deeper than :data:`MAX_DEPTH` (10,000, go-yaml's limit and
  the depth the Kubernetes API server's JSON decoder accepts) are
  ``yaml: exceeded max depth of 10000``. Without it libyaml's recursive
  composer overflows the C stack (a crash, not an error) at about 100,000;
* aliases may not do most of the work of a decode: go-yaml counts every node it
  decodes and fails with ``yaml: document contains excessive aliasing`` once
  more than 100 of more than 1,000 decodes came through aliases and their share
  passes :func:`allowed_alias_ratio` (``decode.go``). A 450-byte "billion laughs"
  file is refused in milliseconds instead of expanding to gigabytes;
* an anchor whose value contains an alias to itself is refused (go-yaml:
  ``anchor 'x' value contains itself``) instead of making a cyclic object.

:func:`read_file` refuses what is not a regular file (a FIFO would block
forever, ``/dev/zero`` never ends) and files larger than
:data:`MAX_FILE_BYTES`. Every failure is an :class:`~crossfn.errors.InputError`
with a one-line cause; callers add which file and which input it was.
"""

from __future__ import annotations

import base64
import codecs
import math
import os
import re
import stat
import struct
from typing import IO, Any

import yaml

from crossfn import errors
from crossfn.gocompat import _yaml_events, _yaml_resolve, strconv

__all__ = [
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "PLAIN_TAG",
    "Loader",
    "allowed_alias_ratio",
    "compose_first",
    "go_message",
    "key_string",
    "load_all",
    "plain_value",
    "read_file",
    "read_stream",
]

MAX_DEPTH = 10_000
"""Deepest nesting of collections accepted: go-yaml's ``max depth``, and Go's encoding/json's, which the
Kubernetes API server decodes request bodies with."""

MAX_FILE_BYTES = 32 * 1024 * 1024
"""Largest input file read: ten times the 3 MiB request body the Kubernetes API server accepts, so any
object a cluster can hold (and a generous benchmark) fits, while a runaway file fails at once."""

_ALIAS_RATIO_RANGE_LOW = 400_000
_ALIAS_RATIO_RANGE_HIGH = 4_000_000

_Base: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_PLAIN = "tag:crossfn.io,2026:go-plain"
"""The tag :class:`Loader` gives every plain scalar: resolved by go-yaml's rules when constructed."""
_MERGE = "tag:yaml.org,2002:merge"
PLAIN_TAG = _PLAIN
"""The tag of an unquoted scalar in :func:`compose_first`'s nodes (an explicit tag keeps its own)."""
_LONG_TAG = "tag:yaml.org,2002:"


class Loader(_Base):  # type: ignore[valid-type,misc] # the base is chosen at import time (libyaml or pure Python)
    """PyYAML's safe loader resolving scalars as go-yaml v2 does, and keys as strings (module doc)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[str, Any]:
        """PyYAML's mapping with keys as sigs.k8s.io/yaml makes them JSON keys (:func:`key_string`).

        Keys are turned into strings one by one, before they meet in a dict, so
        ``true`` and ``1`` stay two keys as they are in Go (Python holds them equal).
        """
        if not isinstance(node, yaml.MappingNode):
            raise yaml.constructor.ConstructorError(
                None, None, f"expected a mapping node, but found {node.id}", node.start_mark
            )
        self.flatten_mapping(node)
        mapping: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=deep)
            if not isinstance(key, str):
                if isinstance(key, list | dict):
                    raise yaml.constructor.ConstructorError(
                        "while constructing a mapping",
                        node.start_mark,
                        "found unhashable key",
                        key_node.start_mark,
                    )
                key = key_string(key)
            mapping[key] = self.construct_object(value_node, deep=deep)
        return mapping

    def flatten_mapping(self, node: yaml.MappingNode) -> None:
        """Merge keys as the event path merges them: explicit keys win, then later ``<<`` keys over earlier
        ones, and within one ``<<: [a, b]`` earlier mappings over later ones (PyYAML 6.0.4 lets the first win)."""
        merge: list[tuple[yaml.Node, yaml.Node]] = []
        index = 0
        while index < len(node.value):
            key_node, value_node = node.value[index]
            if key_node.tag != _MERGE:
                index += 1
                continue
            del node.value[index]
            maps = value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
            for submap in reversed(maps):
                if not isinstance(submap, yaml.MappingNode):
                    raise yaml.constructor.ConstructorError(
                        "while constructing a mapping", node.start_mark,
                        f"expected a mapping or list of mappings for merging, but found {submap.id}",
                        submap.start_mark,
                    )  # fmt: skip
                self.flatten_mapping(submap)
                merge.extend(submap.value)
        if merge:
            node.value = merge + node.value


def plain_value(text: str) -> Any:
    """The value go-yaml v2 gives an unquoted scalar (``_yaml_resolve``): ``y`` is true, ``08`` is 8.0."""
    return _yaml_resolve.resolve(text)[1]


def _construct_plain(loader: Loader, node: yaml.ScalarNode) -> Any:
    return plain_value(loader.construct_scalar(node))


def _construct_tagged(loader: Loader, node: yaml.ScalarNode) -> Any:
    """A scalar with an explicit standard tag (``!!int "3"``), checked against the tag as go-yaml does."""
    tag = "!!" + node.tag[len(_LONG_TAG) :]
    try:
        return _yaml_resolve.resolve(loader.construct_scalar(node), tag)[1]
    except errors.GoError as exc:
        raise errors.InputError(
            f"line {node.start_mark.line + 1} column {node.start_mark.column + 1}: {exc}"
        ) from exc


def _construct_by_kind(loader: Loader, node: yaml.Node) -> Any:
    """A node whose tag go-yaml does not resolve (``!custom``, ``!!set``): decoded by its kind, as go-yaml does."""
    if isinstance(node, yaml.MappingNode):
        return loader.construct_mapping(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    return loader.construct_scalar(node)


def _construct_binary(loader: Loader, node: yaml.ScalarNode) -> str:
    """``!!binary``: go-yaml decodes the base64 into a string; JSON writes its invalid UTF-8 bytes as U+FFFD."""
    try:
        data = base64.b64decode(loader.construct_scalar(node).encode("ascii"), validate=False)
    except (ValueError, UnicodeEncodeError) as exc:
        raise errors.InputError("yaml: !!binary value contains invalid base64 data") from exc
    return data.decode("utf-8", errors=_GO_UTF8)


def _replace_each_byte(exc: UnicodeError) -> tuple[str, int]:
    """Go's ``utf8.DecodeRune`` error: one U+FFFD per invalid byte (Python replaces whole sequences)."""
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    return "\ufffd", exc.start + 1


_GO_UTF8 = "crossfn-go-utf8"
codecs.register_error(_GO_UTF8, _replace_each_byte)

# Every plain scalar but the merge key gets _PLAIN, resolved when constructed (PyYAML's YAML 1.1 table is unused).
Loader.yaml_implicit_resolvers = {"<": [(_MERGE, re.compile(r"^<<$"))], None: [(_PLAIN, re.compile(""))]}
Loader.add_constructor(_PLAIN, _construct_plain)
Loader.add_constructor(
    _MERGE, lambda loader, node: loader.construct_scalar(node)
)  # "<<" as a value is a string
for _tag in ("int", "float", "bool", "null", "timestamp", "str"):
    Loader.add_constructor(_LONG_TAG + _tag, _construct_tagged)
for _tag in ("set", "omap", "pairs"):
    Loader.add_constructor(_LONG_TAG + _tag, _construct_by_kind)
Loader.add_constructor(_LONG_TAG + "binary", _construct_binary)
Loader.add_constructor(None, _construct_by_kind)


def key_string(key: Any) -> str:
    """A YAML map key as the JSON object key sigs.k8s.io/yaml makes of it (``yamlToJSON``).

    Booleans are ``true``/``false``, integers their digits, floats Go's
    ``FormatFloat(f, 'g', -1, 32)`` (``1.5``, ``1e+20``, ``.inf``). A null key
    and an integer past int64 (a Go ``uint64``) are refused, as sigs.k8s.io/yaml
    refuses them.
    """
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int) and -(2**63) <= key < 2**63:
        return str(key)
    if isinstance(key, float):
        text = strconv.format_float(_float32_shortest(key), "g", -1)
        return {"+Inf": ".inf", "-Inf": "-.inf", "NaN": ".nan"}.get(text, text)
    go_type = "uint64" if isinstance(key, int) else "<nil>" if key is None else type(key).__name__
    raise errors.InputError(f"error converting YAML to JSON: unsupported map key of type {go_type}")


def _float32_shortest(f: float) -> float:
    """The float64 whose shortest digits are those of ``float32(f)``'s shortest round trip."""
    if math.isnan(f) or math.isinf(f):
        return f
    try:
        single = struct.unpack("f", struct.pack("f", f))[0]
    except OverflowError:
        return math.copysign(math.inf, f)
    for digits in range(1, 10):
        candidate = float(f"{single:.{digits - 1}e}")
        if struct.unpack("f", struct.pack("f", candidate))[0] == single:
            return candidate
    return float(single)


# --- reading bytes ------------------------------------------------------------


def read_file(path: str | os.PathLike[str]) -> str:
    """The text of a regular file of at most :data:`MAX_FILE_BYTES`, as UTF-8.

    The file is opened without blocking and checked on the open descriptor, so a
    FIFO neither blocks nor is read, and a device such as ``/dev/zero`` is refused
    before a byte is read.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise errors.InputError(f"open {os.fspath(path)}: {_os_cause(exc)}") from exc
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        if stat.S_ISDIR(mode):
            raise errors.InputError(f"read {os.fspath(path)}: is a directory")
        raise errors.InputError(f"cannot read {os.fspath(path)}: not a regular file")
    with os.fdopen(fd, "rb") as f:
        try:
            data = f.read(MAX_FILE_BYTES + 1)
        except OSError as exc:
            raise errors.InputError(f"read {os.fspath(path)}: {_os_cause(exc)}") from exc
    return _text(data, os.fspath(path))


def read_stream(stream: IO[str] | IO[bytes], name: str = "standard input") -> str:
    """At most :data:`MAX_FILE_BYTES` of an already open stream (standard input), as text."""
    try:
        data = stream.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise errors.InputError(f"read {name}: {_os_cause(exc)}") from exc
    except UnicodeDecodeError as exc:
        raise errors.InputError(f"cannot read {name}: not UTF-8 text") from exc
    if isinstance(data, str):
        if len(data) > MAX_FILE_BYTES:
            raise errors.InputError(_too_large(name))
        return data
    return _text(data, name)


def _text(data: bytes, name: str) -> str:
    if len(data) > MAX_FILE_BYTES:
        raise errors.InputError(_too_large(name))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise errors.InputError(f"cannot read {name}: not UTF-8 text") from exc


def _too_large(name: str) -> str:
    return f"cannot read {name}: larger than the {MAX_FILE_BYTES // (1024 * 1024)} MiB an input may have"


def _os_cause(exc: OSError) -> str:
    return (exc.strerror or str(exc)).lower()


# --- parsing ------------------------------------------------------------------


def load_all(text: str, *, as_json: bool = False) -> list[Any]:
    """Every document of a YAML stream (``None`` for an empty one), within go-yaml's bounds (module doc).

    ``as_json`` returns the values a YAML -> JSON -> object round trip gives,
    as Kubernetes reads manifests: whole floats in the int64 range are ints,
    integers past it floats (``12345678901234567890`` is 1.2345678901234567e19),
    every alias is a copy. Raises
    :class:`~crossfn.errors.InputError` whose text is the problem on one line:
    ``line 3 column 5: ...`` for a syntax error, go-yaml's own text for a bound.
    """
    for loader_class in (Loader, _DeepLoader):
        loader = loader_class(text)
        try:
            return _yaml_events.build_all(
                loader,
                plain_value,
                key_string=key_string,
                max_depth=MAX_DEPTH,
                excessive=_excessive,
                as_json=as_json,
            )
        except _yaml_events.Unsupported:
            break  # an explicit tag, or an error PyYAML words best: its full loader below
        except yaml.YAMLError as exc:
            if _LIBYAML_NESTING in str(exc) and loader_class is not _DeepLoader:
                continue  # nested past libyaml's 1,000 levels: PyYAML's own parser has no such limit
            raise errors.InputError(_problem(exc)) from exc
        finally:
            loader.dispose()
    docs = _load_nodes(text)
    return [_to_json(doc) for doc in docs] if as_json else docs


class _DeepLoader(yaml.SafeLoader):
    """:class:`Loader` on PyYAML's pure-Python parser, for documents nested deeper than libyaml allows."""

    construct_mapping = Loader.construct_mapping  # type: ignore[assignment] # keys are str, a narrower Hashable
    flatten_mapping = Loader.flatten_mapping

    # PyYAML's scanner looks at every open level's possible simple key for every token, which is
    # quadratic in a deep flow collection (100 KB nested 9,000 deep took 20 s). The keys are saved in
    # order of position, so the oldest comes first: the nearest is the first, and stale ones are a prefix.

    def next_possible_simple_key(self) -> int | None:
        """The token number of the nearest possible simple key (PyYAML's, without the scan)."""
        for key in self.possible_simple_keys.values():
            return int(key.token_number)
        return None

    def stale_possible_simple_keys(self) -> None:
        """Drop possible simple keys that are no longer possible (PyYAML's, stopping at the first live one)."""
        keys = self.possible_simple_keys
        while keys:
            level = next(iter(keys))
            key = keys[level]
            if key.line == self.line and self.index - key.index <= 1024:
                return
            if key.required:
                raise yaml.scanner.ScannerError(
                    "while scanning a simple key", key.mark, "could not find expected ':'", self.get_mark()
                )
            del keys[level]


_DeepLoader.yaml_implicit_resolvers = Loader.yaml_implicit_resolvers
_DeepLoader.yaml_constructors = Loader.yaml_constructors
_LIBYAML_NESTING = "exceeded maximum nesting depth"
"""libyaml's error past its 1,000 levels (``MAX_NESTING_LEVEL``); go-yaml and Kubernetes accept 10,000."""


def _load_nodes(text: str) -> list[Any]:
    """PyYAML's full loader: node graph, then values; the bounds are checked on the graph."""
    _check_depth(text)
    loader = Loader(text)
    try:
        docs: list[Any] = []
        while loader.check_node():
            node = loader.get_node()
            if _may_alias(text):
                _check_aliases(node)
            docs.append(loader.construct_document(node))
        return docs
    except yaml.YAMLError as exc:
        raise errors.InputError(_problem(exc)) from exc
    finally:
        loader.dispose()


def compose_first(text: str) -> yaml.Node | None:
    """The node graph of the first document of ``text`` (None when there is none), within go-yaml's bounds.

    For readers with rules of their own (go-yaml v3's, :mod:`crossfn.gocompat.yaml_v3`): an unquoted
    scalar's tag is :data:`PLAIN_TAG`, a ``<<`` key's YAML's merge tag, anything else its explicit
    tag or the default one; later documents are not read, as Go's ``yaml.Unmarshal`` reads only the
    first. Raises :class:`~crossfn.errors.InputError` for a syntax error (``line L column C: ...``), a
    document nested deeper than :data:`MAX_DEPTH`, or one whose aliases do too much of the decoding.
    """
    _check_depth(text)
    loader = Loader(text)
    try:
        if not loader.check_node():
            return None
        node: yaml.Node = loader.get_node()
    except yaml.YAMLError as exc:
        raise errors.InputError(_problem(exc)) from exc
    finally:
        loader.dispose()
    if _may_alias(text):
        _check_aliases(node)
    return node


def _to_json(value: Any) -> Any:
    """A value from :func:`_load_nodes` as a YAML -> JSON -> object round trip returns it."""
    if isinstance(value, dict):
        return {key_string(k): _to_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_to_json(v) for v in value]
    if isinstance(value, float) and value.is_integer() and -(2**63) <= value < 2**63:
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**63:
        return float(value)  # a uint64: JSON numbers past int64 decode as float64
    if isinstance(value, float) and not math.isfinite(value):
        raise errors.InputError(_yaml_events.not_json(value))
    if value is None or isinstance(value, str | int | float | bool):
        return value
    raise errors.InputError(f"cannot convert {type(value).__name__} to JSON")


def _problem(exc: yaml.YAMLError) -> str:
    """PyYAML's error on one line: where, then what."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or getattr(exc, "context", None) or str(exc)
    problem = " ".join(str(problem).split())
    if mark is not None:
        return f"line {mark.line + 1} column {mark.column + 1}: {problem}"
    return problem


_GO_PROBLEMS: tuple[tuple[str, str, str], ...] = (
    # (PyYAML's problem starts with, in the context of (or ""), libyaml's text)
    ("found character", "", "found character that cannot start any token"),
    ("mapping values are not allowed", "", "mapping values are not allowed in this context"),
    ("block sequence entries are not allowed", "", "block sequence entries are not allowed in this context"),
    ("found unknown escape character", "", "found unknown escape character"),
    ("expected alphabetic or numeric character", "", "did not find expected alphabetic or numeric character"),
    ("expected a comment or a line break", "", "did not find expected comment or line break"),
    ("expected <block end>", "while parsing a block mapping", "did not find expected key"),
    ("expected <block end>", "while parsing a block collection", "did not find expected '-' indicator"),
    ("expected ',' or ']'", "", "did not find expected ',' or ']'"),
    ("expected ',' or '}'", "", "did not find expected ',' or '}'"),
    ("expected the node content", "", "did not find expected node content"),
    ("expected '<document start>'", "", "did not find expected <document start>"),
    ("found undefined tag handle", "", "found undefined tag handle"),
)


def go_message(exc: errors.InputError) -> str:
    """An error of this module as go-yaml words it: ``yaml: line 4: found character that cannot start any token``.

    libyaml's texts for the common syntax errors (PyYAML's words them a little
    differently), and go-yaml's line rule: a scanner error names the line of
    the problem, a parser error the line before it (libyaml's 0-based mark), and
    a problem on the first line none. Other texts keep PyYAML's words.
    """
    cause = exc.__cause__
    if not isinstance(cause, yaml.MarkedYAMLError):
        text = str(exc)
        return text if text.startswith("yaml: ") else f"yaml: {text}"
    problem = " ".join(str(cause.problem or cause.context or "").split())
    context = " ".join(str(cause.context or "").split())
    for start, within, go_text in _GO_PROBLEMS:
        if problem.startswith(start) and (not within or context.startswith(within)):
            problem = go_text
            break
    line = 0
    problem_mark, context_mark = cause.problem_mark, cause.context_mark
    if problem_mark is not None and problem_mark.line != 0:
        line = problem_mark.line + (1 if isinstance(cause, yaml.scanner.ScannerError) else 0)
    elif context_mark is not None and context_mark.line != 0:
        line = context_mark.line
    return f"yaml: line {line}: {problem}" if line else f"yaml: {problem}"


def _check_depth(text: str) -> None:
    """Refuse collections nested deeper than :data:`MAX_DEPTH` before libyaml's recursive composer sees them.

    Flow nesting needs an opening bracket per level and block nesting a column of
    indentation per level, so a text with fewer brackets than the limit and short
    lines cannot be too deep; only other texts pay for an event scan.
    """
    brackets = text.count("[") + text.count("{")
    if brackets + _longest_line(text) + 2 < MAX_DEPTH:
        return
    try:
        _scan_depth(Loader(text))
    except yaml.YAMLError as exc:
        if _LIBYAML_NESTING not in str(exc):
            raise errors.InputError(_problem(exc)) from exc
        try:  # go-yaml's limit is ten times libyaml's: count on with PyYAML's parser
            _scan_depth(_DeepLoader(text))
        except yaml.YAMLError as deep:
            raise errors.InputError(_problem(deep)) from deep
        raise errors.InputError(
            _problem(exc)
        ) from exc  # within go-yaml's bound, but past what libyaml composes


def _scan_depth(loader: Any) -> None:
    depth = 0
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    raise errors.InputError(f"yaml: exceeded max depth of {MAX_DEPTH}")
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    finally:
        loader.dispose()


def _longest_line(text: str) -> int:
    longest, start = 0, 0
    while True:
        end = text.find("\n", start)
        if end < 0:
            return max(longest, len(text) - start)
        longest = max(longest, end - start)
        start = end + 1


_ANCHOR = re.compile(r"(?:^|[\s,\[{])&[^\s,\[\]{}]")


def _may_alias(text: str) -> bool:
    """Whether ``text`` could hold an anchor at all (an alias needs one); most inputs have none."""
    return _ANCHOR.search(text) is not None


def allowed_alias_ratio(decodes: int) -> float:
    """The share of decodes aliases may account for, as go-yaml's ``allowedAliasRatio`` scales it."""
    if decodes <= _ALIAS_RATIO_RANGE_LOW:
        return 0.99
    if decodes >= _ALIAS_RATIO_RANGE_HIGH:
        return 0.10
    span = _ALIAS_RATIO_RANGE_HIGH - _ALIAS_RATIO_RANGE_LOW
    return 0.99 - 0.89 * ((decodes - _ALIAS_RATIO_RANGE_LOW) / span)


def _excessive(decodes: int, aliased: int) -> bool:
    return aliased > 100 and decodes > 1000 and aliased / decodes > allowed_alias_ratio(decodes)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _check_aliases(root: yaml.Node) -> None:
    """Count decodes as go-yaml would, without expanding a single alias.

    PyYAML shares an aliased node instead of copying it, so the document is
    walked once in order: the first time a node is met is its definition (one
    decode), each later reference is an alias (one decode for the alias, then
    every decode of the target's expansion, all aliased). The size of each
    expansion is known once its node is finished, and the share only grows
    during an expansion, so checking at its end is checking at every step.
    """
    size: dict[int, int] = {}
    open_nodes = {id(root)}
    decodes, aliased = 2, 0  # the document node and the root
    # Each entry: a node's id, its children, the next child to visit, the decodes of its subtree so far.
    stack: list[list[Any]] = [[id(root), _children(root), 0, 1]]
    while stack:
        top = stack[-1]
        key, children, index = top[0], top[1], top[2]
        if index == len(children):
            stack.pop()
            open_nodes.discard(key)
            size[key] = top[3]
            if stack:
                stack[-1][3] += top[3]
            continue
        top[2] = index + 1
        child = children[index]
        child_key = id(child)
        if child_key in open_nodes:
            raise errors.InputError("yaml: anchor value contains itself")
        if child_key in size:  # an alias: the alias node, then its whole target again
            expansion = size[child_key]
            decodes += 1 + expansion
            aliased += expansion
            if _excessive(decodes, aliased):
                raise errors.InputError("yaml: document contains excessive aliasing")
            top[3] += 1 + expansion
            continue
        decodes += 1
        open_nodes.add(child_key)
        stack.append([child_key, _children(child), 0, 1])
