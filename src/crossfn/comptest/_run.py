"""Running test cases: build each case's render request, render it, and match the expectations.

Running happens in two passes so that bad input never leaves a half-written
report: :func:`run` first *prepares* every case (loads the XR, applies the
patches, writes inline ``raw`` inputs to a private temporary directory and
lets :func:`crossfn.render.load` check all the inputs with render's own
rules and texts), and only then renders them one by one. A preparation
problem is an :class:`~crossfn.errors.InputError` naming the test file and
field; temporary paths in render's messages are replaced by the field they
came from (``spec.tests[0].inputs.xr.raw``), or by the user's own path.

A render failure (a fatal result, a timeout, a schema problem) is not bad
input: it fails that case and the run goes on.
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from crossfn import errors, render, validate
from crossfn.comptest import _match, _model
from crossfn.gocompat import yaml_emitter
from crossfn.sdk import fieldpath

__all__ = ["Failure", "Outcome", "Prepared", "prepare", "run", "run_prepared"]

Clock = Callable[[], float]


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

    case: _model.Case
    seconds: float
    failures: tuple[Failure, ...] = ()
    error: str | None = None
    """The render's error (``cannot render composite resource: ...``), one or more lines."""

    @property
    def passed(self) -> bool:
        return self.error is None and not self.failures


@dataclasses.dataclass(frozen=True)
class Prepared:
    """A case whose inputs loaded: the render request, and how to name its temporary files."""

    case: _model.Case
    request: render.Request
    labels: Mapping[str, str]


def _relabel(text: str, labels: Mapping[str, str]) -> str:
    """``text`` with every temporary path replaced by what the user knows it as."""
    for temp, label in sorted(labels.items(), key=lambda kv: -len(kv[0])):
        text = text.replace(temp, label)
    return text


def _write(path: Path, docs: Sequence[Any]) -> Path:
    # Written as Go writes YAML, so render's loader (go-yaml's rules) reads back exactly these values.
    path.write_text(yaml_emitter.to_yaml_stream(docs), encoding="utf-8")
    return path


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


def _materialise(source: _model.Source, temp: Path, labels: dict[str, str], *, many: bool) -> Path:
    """A path render can read for ``source``: the user's file, or the inline ``raw`` written to ``temp``."""
    if source.path is not None:
        if not source.path.exists():
            raise errors.InputError(f"{source.field}.path: no such file or directory: {source.path}")
        return source.path
    labels[str(temp)] = f"{source.field}.raw"
    return _write(temp, source.raw if many else [source.raw])


def _optional(source: _model.Source | None, temp: Path, labels: dict[str, str], *, many: bool) -> Path | None:
    """:func:`_materialise` for an optional input."""
    return None if source is None else _materialise(source, temp, labels, many=many)


def prepare(case: _model.Case, temp: Path, *, allow_exec: bool = True) -> Prepared:
    """Build and check ``case``'s render request, writing what it needs under ``temp`` (which must exist).

    ``allow_exec`` false refuses Functions that run code crossfn does not ship (``--no-exec``).
    """
    labels: dict[str, str] = {}
    try:
        xr_file = _write(temp / "xr.yaml", [_xr(case)])
        labels[str(xr_file)] = str(case.xr.path) if case.xr.path else f"{case.xr.field}.raw"
        if case.credentials is not None and not case.credentials.exists():
            raise errors.InputError(
                f"{case.field}.inputs.functionCredentialsPath: no such file or directory: {case.credentials}"
            )
        req = render.Request(
            composite_resource=xr_file,
            composition=_materialise(case.composition, temp / "composition.yaml", labels, many=False),
            functions=_materialise(case.functions, temp / "functions.yaml", labels, many=True),
            observed_resources=_optional(case.observed, temp / "observed.yaml", labels, many=True),
            required_resources=[
                p for p in [_optional(case.extra, temp / "extra.yaml", labels, many=True)] if p
            ],
            xrd=_optional(case.xrd, temp / "xrd.yaml", labels, many=False),
            function_credentials=case.credentials,
            context_values=[(k, json.dumps(v)) for k, v in case.context.items()],
            include_function_results=True,
            include_full_xr=True,
            include_context=True,
            timeout=case.timeout,
            allow_exec=allow_exec,
        )
    except errors.CrossfnError as exc:
        raise errors.InputError(f"{case.where}: {exc}") from exc
    try:
        render.load(req)
    except errors.CrossfnError as exc:
        raise errors.InputError(f"{case.where}: {case.field}.inputs: {_relabel(str(exc), labels)}") from exc
    return Prepared(case=case, request=req, labels=labels)


def _check(case: _model.Case, docs: Sequence[Mapping[str, Any]]) -> tuple[Failure, ...]:
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
        docs = render.render(
            prepared.request, note=note, validator=validate.validate_render if case.validate else None
        )
    except errors.CrossfnError as exc:
        return Outcome(case, clock() - start, error=_relabel(str(exc), prepared.labels))
    return Outcome(case, clock() - start, failures=_check(case, docs))


def run(
    cases: Sequence[_model.Case],
    *,
    note: Callable[[str], None] = lambda _: None,
    clock: Clock = time.perf_counter,
    allow_exec: bool = True,
) -> list[Outcome]:
    """Prepare every case (any bad input raises before anything renders), then render and check each in order.

    ``note`` receives what render tells the user about their inputs (a legacy
    Composition rendered as a Pipeline); ``clock`` times each case; ``allow_exec``
    false refuses every Function that would run code crossfn does not ship.
    """
    with tempfile.TemporaryDirectory(prefix="crossfn-test-") as tmp:
        prepared: list[Prepared] = []
        for n, case in enumerate(cases):
            temp = Path(tmp) / str(n)
            temp.mkdir()
            prepared.append(prepare(case, temp, allow_exec=allow_exec))
        return [run_prepared(p, note=note, clock=clock) for p in prepared]
