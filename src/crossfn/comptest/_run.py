"""Running test cases: build each case's render request, render it, and match the expectations.

Running happens in two passes so that bad input never leaves a half-written
report: :func:`run` first *prepares* every case (reads the files it names,
applies the patches, and lets :func:`crossfn.render.from_objects` check all
the inputs with render's own rules and texts), and only then renders them
one by one. Render gets objects, never files written for it: nothing is
written to disk, and an inline value reaches the function exactly as the
test file holds it. A preparation problem is an
:class:`~crossfn.errors.InputError` naming the test file and field; render's
messages name an input by the field it came from
(``spec.tests[0].inputs.xr.raw``), or by the user's own path.

A render failure (a fatal result, a timeout, a schema problem) is not bad
input: it fails that case and the run goes on.

An ``OperationTest`` case renders its Operation as ``crossfn render op -o -r -c``
does (:func:`crossfn.render.render_operation_inputs`): the expectations match the
Operation with its status, the applied resources, the ``Result`` documents and
the ``Context``.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from crossfn import errors, render, validate
from crossfn.comptest import _match, _model
from crossfn.sdk import fieldpath

__all__ = ["Failure", "Outcome", "Prepared", "prepare", "run", "run_prepared"]

Clock = Callable[[], float]

_INCLUDE = render.Include(function_results=True, full_xr=True, context=True)
"""A test sees every document render can print: the full XR, the results, the context."""


def _operation_include() -> render.OperationInclude:
    """An OperationTest sees every document ``render op`` can print: the results and the context too."""
    return render.OperationInclude(function_results=True, full_operation=True, context=True)


@dataclasses.dataclass(frozen=True)
class Failure:
    """Why one expected object matched nothing: a summary line and one line per mismatching field."""

    field: str
    """The expected object's field, relative to its test: ``assertions[0].chainsaw.resources[1]``."""
    summary: str
    details: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What happened to one case: passed, failed its assertions, or could not render (``error``)."""

    case: _model.AnyCase
    seconds: float
    failures: tuple[Failure, ...] = ()
    error: str | None = None
    """The render's error (``cannot render composite resource: ...``), one or more lines."""

    @property
    def passed(self) -> bool:
        return self.error is None and not self.failures


@dataclasses.dataclass(frozen=True)
class Prepared:
    """A case whose inputs loaded and passed render's checks."""

    case: _model.AnyCase
    inputs: render.Inputs | render.OperationInputs


def _delete(obj: dict[str, Any], path: str) -> None:
    """Remove the field at ``path`` if it exists (crossplane-runtime's ``DeleteField``: a missing field is fine)."""
    segments = fieldpath.parse(path)
    parent: Any = obj
    for seg in segments[:-1]:
        ok = isinstance(parent, dict) and isinstance(seg, str) and seg in parent
        ok = ok or (isinstance(parent, list) and isinstance(seg, int) and seg < len(parent))
        if not ok:
            return
        parent = parent[seg]
    last = segments[-1] if segments else None
    if isinstance(parent, dict) and isinstance(last, str):
        parent.pop(last, None)
    elif isinstance(parent, list) and isinstance(last, int) and last < len(parent):
        del parent[last]


def _xr(case: _model.Case) -> dict[str, Any]:
    """The case's XR with ``patches.addFields`` set, then ``patches.removeFields`` removed."""
    if case.xr.path is not None:
        if not case.xr.path.exists():
            raise errors.InputError(f"{case.xr.field}.path: no such file or directory: {case.xr.path}")
        if case.xr.path.is_dir():
            raise errors.InputError(f"{case.xr.field}.path: is a directory: {case.xr.path}")
        try:
            docs = render.load_documents(case.xr.path)
        except errors.InputError as exc:
            raise errors.InputError(f"{case.xr.field}.path: {exc}") from exc
        if not docs or not isinstance(docs[0], dict):
            raise errors.InputError(f"{case.xr.field}.path: {case.xr.path}: not a YAML object")
        xr: dict[str, Any] = docs[0]
    else:
        xr = json.loads(json.dumps(case.xr.raw))
    patches = f"{case.field}.patches"
    for path, value in case.add_fields.items():
        try:
            fieldpath.set_value(xr, path, value)
        except errors.FieldPathError as exc:
            raise errors.InputError(f"{patches}.addFields[{path}]: cannot set field: {exc}") from exc
    for path in case.remove_fields:
        try:
            _delete(xr, path)
        except errors.FieldPathError as exc:
            raise errors.InputError(f"{patches}.removeFields: cannot remove {path}: {exc}") from exc
    return xr


def _read(source: _model.Source, *, many: bool) -> Any:
    """``source``'s object (or list of objects, ``many``): read from its file as render reads one, or the inline ``raw``."""
    if source.path is None:
        return source.raw
    if not source.path.exists():
        raise errors.InputError(f"{source.field}.path: no such file or directory: {source.path}")
    try:
        return render.load_documents(source.path) if many else render.load_one(source.path)
    except errors.InputError as exc:
        raise errors.InputError(f"{source.field}.path: {exc}") from exc


def _name(source: _model.Source) -> str:
    """How render's messages name ``source``: the user's path, or the field of an inline value."""
    return str(source.path) if source.path is not None else f"{source.field}.raw"


def _credentials(case: _model.AnyCase) -> list[dict[str, Any]]:
    if case.credentials is None:
        return []
    field = f"{case.field}.inputs.functionCredentialsPath"
    if not case.credentials.exists():
        raise errors.InputError(f"{field}: no such file or directory: {case.credentials}")
    try:
        return render.load_documents(case.credentials)
    except errors.InputError as exc:
        raise errors.InputError(f"{field}: {exc}") from exc


def _functions_dir_of(functions: _model.Source, file: Path) -> Path:
    path = functions.path
    if path is None:
        return file.parent
    return path if path.is_dir() else path.parent


def _prepare_operation(case: _model.OperationCase, *, allow_exec: bool) -> Prepared:
    """An OperationTest case's inputs, read and checked as ``render op`` checks its files."""
    sources = {
        "operation": case.operation, "functions": case.functions,
        "required_resources": case.required, "watched_resource": case.watched,
    }  # fmt: skip
    names = {key: _name(source) for key, source in sources.items() if source is not None}
    if case.credentials is not None:
        names["function_credentials"] = str(case.credentials)
    try:
        objects = render.OperationObjects(
            operation=_read(case.operation, many=False),
            functions=_read(case.functions, many=True),
            required_resources=_read(case.required, many=True) if case.required else (),
            watched_resource=_read(case.watched, many=False) if case.watched else None,
            function_credentials=_credentials(case),
            context=case.context,
            functions_dir=_functions_dir_of(case.functions, case.file),
            allow_exec=allow_exec,
            names=names,
        )
    except errors.CrossfnError as exc:
        raise errors.InputError(f"{case.where}: {exc}") from exc
    try:
        inputs = render.operation_from_objects(objects)
    except errors.CrossfnError as exc:
        raise errors.InputError(f"{case.where}: {case.field}.inputs: {exc}") from exc
    return Prepared(case=case, inputs=inputs)


def prepare(case: _model.AnyCase, *, allow_exec: bool = True) -> Prepared:
    """Read and check ``case``'s render inputs; nothing is written anywhere.

    ``allow_exec`` false refuses Functions that run code crossfn does not ship (``--no-exec``).
    """
    if isinstance(case, _model.OperationCase):
        return _prepare_operation(case, allow_exec=allow_exec)
    sources = {
        "xr": case.xr, "composition": case.composition, "functions": case.functions,
        "observed_resources": case.observed, "required_resources": case.extra, "xrd": case.xrd,
    }  # fmt: skip
    names = {key: _name(source) for key, source in sources.items() if source is not None}
    if case.credentials is not None:
        names["function_credentials"] = str(case.credentials)
    try:
        objects = render.Objects(
            xr=_xr(case),
            composition=_read(case.composition, many=False),
            functions=_read(case.functions, many=True),
            observed_resources=_read(case.observed, many=True) if case.observed else (),
            required_resources=_read(case.extra, many=True) if case.extra else (),
            xrd=_read(case.xrd, many=False) if case.xrd else None,
            function_credentials=_credentials(case),
            context=case.context,
            functions_dir=_functions_dir_of(case.functions, case.file),
            allow_exec=allow_exec,
            names=names,
        )
    except errors.CrossfnError as exc:
        raise errors.InputError(f"{case.where}: {exc}") from exc
    try:
        inputs = render.from_objects(objects)
    except errors.CrossfnError as exc:
        raise errors.InputError(f"{case.where}: {case.field}.inputs: {exc}") from exc
    return Prepared(case=case, inputs=inputs)


def _check(case: _model.AnyCase, docs: Sequence[Mapping[str, Any]]) -> tuple[Failure, ...]:
    """A failure for every expected object that no rendered document matches."""
    out: list[Failure] = []
    for expected in case.expected:
        if any(not _match.mismatches(expected.resource, d) for d in docs):
            continue
        field = expected.field.removeprefix(f"{case.field}.")
        want = _match.describe(expected.resource)
        best = _match.closest(expected.resource, docs)
        if best is None:
            rendered = ", ".join(_match.describe(d) for d in docs) or "nothing"
            what = " ".join(str(w) for w in (expected.resource.get("apiVersion"), want) if w)
            out.append(Failure(field, f"no rendered {what} (rendered: {rendered})"))
            continue
        doc, found = best
        summary = f"no rendered object matches {want}; closest is {_match.describe(doc)}:"
        out.append(Failure(field, summary, tuple(str(m) for m in found)))
    return tuple(out)


def run_prepared(
    prepared: Prepared,
    *,
    note: Callable[[str], None] = lambda _: None,
    clock: Clock = time.perf_counter,
) -> Outcome:
    """Render one prepared case and match its expectations; a render failure becomes the outcome's error."""
    case = prepared.case
    start = clock()
    try:
        docs = _render(prepared, note)
    except errors.CrossfnError as exc:
        return Outcome(case, clock() - start, error=str(exc))
    return Outcome(case, clock() - start, failures=_check(case, docs))


def _render(prepared: Prepared, note: Callable[[str], None]) -> list[Any]:
    """The documents a case renders: ``render op -o -r -c`` for an Operation, classic ``render -x -r -c`` else."""
    case, inputs = prepared.case, prepared.inputs
    if isinstance(inputs, render.OperationInputs):
        return render.render_operation_inputs(
            inputs, include=_operation_include(), timeout=case.timeout, note=note
        )
    # Tests match classic render's output (generateName, Ready only), as the
    # CompositionTest format's expectations are written (see docs/testing.md).
    validator = validate.validate_render if isinstance(case, _model.Case) and case.validate else None
    rendered = render.render_inputs(
        inputs, output=render.CLASSIC, include=_INCLUDE, timeout=case.timeout, note=note, validator=validator
    )
    return [d for d in rendered if d is not None]  # a null Context document matches nothing


def run(
    cases: Sequence[_model.AnyCase],
    *,
    note: Callable[[str], None] = lambda _: None,
    clock: Clock = time.perf_counter,
    allow_exec: bool = True,
    progress: Callable[[Outcome], None] = lambda _: None,
) -> list[Outcome]:
    """Prepare every case (any bad input raises before anything renders), then render and check each in order.

    ``note`` receives what render tells the user about their inputs (a legacy
    Composition rendered as a Pipeline); ``clock`` times each case; ``allow_exec``
    false refuses every Function that would run code crossfn does not ship;
    ``progress`` receives each outcome as soon as its case has run.
    """
    prepared = [prepare(case, allow_exec=allow_exec) for case in cases]
    outcomes = []
    for p in prepared:
        outcome = run_prepared(p, note=note, clock=clock)
        progress(outcome)
        outcomes.append(outcome)
    return outcomes
