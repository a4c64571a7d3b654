"""``crossfn render op``'s inputs: ``crossplane render op``'s files, read and checked in its order (upstream ops-5).

The order, and the first error a user sees, are the CLI's:

1. the Operation file: an ``Operation``, or a ``CronOperation`` or ``WatchOperation`` whose
   ``spec.operationTemplate`` becomes the Operation (named after the parent, as the CLI does;
   the controllers would generate a name and add a label), decoded as Go's typed structs decode
   it (``_optypes``);
2. each ``-e`` required-resources file or directory; 3. the ``--required-schemas`` directory;
4. the ``-w`` watched resource: exactly one, added to the required resources and named in every
   step's requirements as ``ops.crossplane.io/watched-resource`` (as a WatchOperation would);
5. the Functions, then the ``-a`` annotations on every one; 6. ``--function-credentials``;
7. the context: ``--context-files`` read, then every value parsed.

:func:`load` reads a :class:`Request` (paths and flags); :func:`from_objects` checks an
:class:`Objects` (dicts, for ``crossfn test``) with the same rules and texts, naming each input by
``Objects.names`` where a path would stand. Both give :class:`Inputs`.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from crossfn import engine, errors
from crossfn.gocompat import yaml_loader
from crossfn.render import _inputs, _optypes, _runtimes

__all__ = [
    "OPS_API_VERSION",
    "Inputs",
    "Objects",
    "Request",
    "from_objects",
    "load",
    "operation_from",
]

OPS_API_VERSION = "ops.crossplane.io/v1alpha1"
_TYPES = {
    "Operation": _optypes.OPERATION,
    "CronOperation": _optypes.CRON_OPERATION,
    "WatchOperation": _optypes.WATCH_OPERATION,
}


@dataclasses.dataclass(frozen=True)
class Request:
    """``crossplane render op``'s arguments and flags (upstream ops-5)."""

    operation: Path
    functions: Path
    context_files: Sequence[tuple[str, str]] = ()
    """``--context-files key=FILE`` pairs; a later key replaces an earlier one."""
    context_values: Sequence[tuple[str, str]] = ()
    """``--context-values key=VALUE`` pairs; they win over ``context_files`` for the same key."""
    include_function_results: bool = False
    include_full_operation: bool = False
    include_context: bool = False
    required_resources: Sequence[Path] = ()
    """Every ``-e/--required-resources`` occurrence."""
    required_schemas: Path | None = None
    watched_resource: Path | None = None
    function_credentials: Path | None = None
    function_annotations: Sequence[str] = ()
    timeout: float = 60.0
    """Seconds for the whole render, as ``--timeout`` (default ``1m``)."""
    allow_exec: bool = True
    """``--no-exec`` refuses Functions that run code crossfn does not ship (docs/security.md)."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class Objects:
    """What to render, as objects: the inputs of a :class:`Request`, for callers that hold them (``crossfn test``)."""

    operation: Mapping[str, Any]
    """An Operation, CronOperation or WatchOperation."""
    functions: Sequence[Mapping[str, Any]]
    required_resources: Sequence[Mapping[str, Any]] = ()
    watched_resource: Mapping[str, Any] | None = None
    function_credentials: Sequence[Mapping[str, Any]] = ()
    context: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    """Context keys and their values, parsed."""
    required_schemas: Sequence[Mapping[str, Any]] = ()
    """OpenAPI v3 documents."""
    function_annotations: Sequence[str] = ()
    functions_dir: Path = dataclasses.field(default_factory=Path.cwd)
    allow_exec: bool = True
    names: Mapping[str, str] = dataclasses.field(default_factory=dict)
    """How messages name each input, by field name (default: the field name)."""


@dataclasses.dataclass(frozen=True)
class Inputs:
    """Everything an Operation render needs, loaded and checked."""

    operation: dict[str, Any]
    """The Operation as Go's typed ``Operation`` holds it, the watched resource's requirement added."""
    functions: list[dict[str, Any]]
    functions_dir: Path
    required: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    """The ``-e`` resources, then the watched resource."""
    credentials: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    context: dict[str, Any] = dataclasses.field(default_factory=dict)
    seed_context: bool = False
    """Whether ``--context-files`` or ``--context-values`` were given (the CLI then seeds the context)."""
    schema_documents: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)


def _go_text(cause: str) -> str:
    """A typed decode's error as ``sigs.k8s.io/yaml`` words it around ``encoding/json``'s."""
    return f"error unmarshaling JSON: while decoding JSON: {cause}"


def _go_json(exc: errors.GoError) -> str:
    return _go_text(str(exc))


def _json_kind(v: object) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int | float):
        return "number"
    return "string" if isinstance(v, str) else "array"


def _group_version(api_version: str) -> str:
    """``schema.GroupVersion.String()`` of what ``FromAPIVersionAndKind`` parses: ``""`` when it does not parse."""
    return "" if api_version.count("/") > 1 else api_version


def operation_from(doc: Mapping[str, Any], label: str) -> dict[str, Any]:
    """The Operation ``doc`` (an Operation, CronOperation or WatchOperation) stands for, as the CLI loads it.

    A CronOperation or WatchOperation gives its template's metadata and spec, named after itself.
    ``label`` names the input in errors (a path, or the object's name in a test).
    """
    try:
        meta = _optypes.round_trip(doc, _optypes.TYPE_META)
    except errors.GoError as exc:
        raise errors.InputError(
            f"cannot unmarshal type metadata from {errors.quote(label)}: {_go_json(exc)}"
        ) from exc
    api_version, kind = str(meta.get("apiVersion") or ""), str(meta.get("kind") or "")
    st = _TYPES.get(kind) if api_version == OPS_API_VERSION else None
    if st is None:
        raise errors.InputError(f"not an operation type: {kind}/{_group_version(api_version)}")
    try:
        typed = _optypes.round_trip(doc, st)
    except errors.GoError as exc:
        raise errors.InputError(
            f"cannot unmarshal {kind} from {errors.quote(label)}: {_go_json(exc)}"
        ) from exc
    if kind == "Operation":
        return typed
    template = typed["spec"]["operationTemplate"]
    metadata = dict(template["metadata"])
    name = typed["metadata"].get("name")
    if name:
        metadata["name"] = name
    else:
        metadata.pop("name", None)
    op = {"apiVersion": api_version, "kind": "Operation", "metadata": metadata, "spec": template["spec"]}
    return _optypes.round_trip(op, _optypes.OPERATION)


class _Given(Protocol):
    """The inputs before they are checked, from files (:class:`_Files`) or given (:class:`_Objects`)."""

    functions_dir: Path

    def operation(self) -> dict[str, Any]: ...
    def required(self) -> list[dict[str, Any]]: ...
    def schemas(self) -> list[dict[str, Any]]: ...
    def watched(self) -> list[dict[str, Any]] | None: ...
    def functions(self, annotations: Sequence[str]) -> list[dict[str, Any]]: ...
    def credentials(self) -> list[dict[str, Any]]: ...
    def context(self) -> dict[str, Any]: ...
    def seeds_context(self) -> bool: ...


_CREDENTIALS = "cannot load function credentials from"
_CONTEXT = _inputs.ContextTexts(
    read="cannot build context data: cannot read context value for key {key}",
    parse="cannot parse context data: cannot unmarshal context value for key {key}",
)


class _Files(_inputs.PipelineFiles):
    """The inputs a :class:`Request` names, read from its files (``-e``, ``-s``, credentials and context as
    ``crossfn render`` reads them, with ``render op``'s texts)."""

    credentials_text = _CREDENTIALS
    context_texts = _CONTEXT

    def __init__(self, req: Request) -> None:
        super().__init__(req)
        self._req = req
        self.functions_dir = req.functions if req.functions.is_dir() else req.functions.parent

    def operation(self) -> dict[str, Any]:
        path = self._req.operation
        label = str(path)
        if not path.is_file():
            cause = (
                f"read {path}: is a directory" if path.is_dir() else f"open {path}: no such file or directory"
            )
            raise errors.InputError(f"cannot read operation file {errors.quote(label)}: {cause}")
        try:
            docs = yaml_loader.load_all(yaml_loader.read_file(path), as_json=True)
        except errors.InputError as exc:
            raise errors.InputError(
                f"cannot unmarshal type metadata from {errors.quote(label)}: {exc}"
            ) from exc
        doc = docs[0] if docs else None
        if doc is not None and not isinstance(doc, Mapping):
            cause = f"json: cannot unmarshal {_json_kind(doc)} into Go value of type v1.TypeMeta"
            raise errors.InputError(
                f"cannot unmarshal type metadata from {errors.quote(label)}: {_go_text(cause)}"
            )
        return operation_from(doc or {}, label)

    def watched(self) -> list[dict[str, Any]] | None:
        path = self._req.watched_resource
        return None if path is None else _inputs._load_many([path], "cannot load watched resource from")

    def functions(self, annotations: Sequence[str]) -> list[dict[str, Any]]:
        return _inputs._load_functions(self._req.functions, annotations)

    def seeds_context(self) -> bool:
        return bool(self._req.context_files or self._req.context_values)


class _Objects(_inputs.PipelineObjects):
    """The inputs of an :class:`Objects`, copied."""

    credentials_text = _CREDENTIALS

    def __init__(self, given: Objects) -> None:
        super().__init__(given)
        self._given = given

    def operation(self) -> dict[str, Any]:
        op = self._given.operation
        if not isinstance(op, Mapping):
            raise errors.InputError(
                f"cannot unmarshal type metadata from {errors.quote(self._label('operation'))}: not an object"
            )
        return operation_from(copy.deepcopy(dict(op)), self._label("operation"))

    def watched(self) -> list[dict[str, Any]] | None:
        if self._given.watched_resource is None:
            return None
        what = "cannot load watched resource from"
        return [_inputs._copy_object(self._given.watched_resource, self._label("watched_resource"), what)]

    def seeds_context(self) -> bool:
        return bool(self._given.context)


def load(req: Request) -> Inputs:
    """Load and check everything ``req`` names, in the CLI's order; the first problem raises InputError."""
    return _build(_Files(req), req.function_annotations, allow_exec=req.allow_exec)


def from_objects(objects: Objects) -> Inputs:
    """Check ``objects`` as :func:`load` checks files, in the same order and with the same texts."""
    return _build(_Objects(objects), objects.function_annotations, allow_exec=objects.allow_exec)


def _build(given: _Given, annotations: Sequence[str], *, allow_exec: bool) -> Inputs:
    op = given.operation()
    required = given.required()
    schemas = given.schemas()
    watched = given.watched()
    if watched is not None:
        if len(watched) != 1:
            raise errors.InputError(
                f"--watched-resource must contain exactly one resource, got {len(watched)}"
            )
        engine.inject_watched(op["spec"], watched[0])
        required.append(watched[0])
    fns = given.functions(annotations)
    notes = _runtimes.notes(fns)
    if not allow_exec:
        _runtimes.refuse_exec(_runtimes.plan(fns))
    creds = given.credentials()
    context, seed = given.context(), given.seeds_context()
    return Inputs(
        operation=op,
        functions=fns,
        functions_dir=given.functions_dir,
        required=required,
        credentials=creds,
        context=context,
        seed_context=seed,
        schema_documents=schemas,
        notes=notes,
    )
