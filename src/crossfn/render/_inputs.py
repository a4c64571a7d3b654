"""Render's inputs: load every file and check them in ``crossplane render``'s order (§3.3).

:func:`load` turns a :class:`~crossfn.render.Request` (paths and flags) into
:class:`Inputs` (objects), failing at the first problem with Crossplane's
exact text. The order matters: users and scripts see the same first error as
with ``crossplane render``. Steps 1 to 9 of §3.3 are the helpers below, in
order; step 10 (render under the timeout) is ``_render``'s.

Nothing here runs a function or starts a process.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crossfn import engine, errors
from crossfn.gocompat import yaml_loader
from crossfn.render import _legacy, _load, _runtimes

if TYPE_CHECKING:
    from crossfn.schemas import store as schema_store

__all__ = ["Inputs", "Request", "load", "pipeline_steps"]

_COMPOSITION_API = "apiextensions.crossplane.io/v1"
_FUNCTION_APIS = ("pkg.crossplane.io/v1", "pkg.crossplane.io/v1beta1")


@dataclasses.dataclass(frozen=True)
class Request:
    """What to render, as paths and flags: ``crossplane render``'s arguments (§3.2)."""

    composite_resource: Path
    composition: Path
    functions: Path
    context_files: Sequence[tuple[str, str]] = ()
    """``--context-files key=FILE`` pairs; a later key replaces an earlier one."""
    context_values: Sequence[tuple[str, str]] = ()
    """``--context-values key=VALUE`` pairs; they win over ``context_files`` for the same key."""
    include_function_results: bool = False
    include_full_xr: bool = False
    include_context: bool = False
    observed_resources: Path | None = None
    extra_resources: Sequence[Path] = ()
    """Every ``--extra-resources`` occurrence (Crossplane's classic CLI honours only the last)."""
    required_resources: Sequence[Path] = ()
    """Every ``-e/--required-resources`` occurrence."""
    required_schemas: Path | None = None
    function_credentials: Path | None = None
    function_annotations: Sequence[str] = ()
    """``-a KEY=VALUE``: set on every Function, after loading."""
    xrd: Path | None = None
    timeout: float = 60.0
    """Seconds for the whole render, as ``--timeout`` (default ``1m``)."""
    crds: Sequence[Path] = ()
    """``--crds``: files or directories (searched recursively) of CRDs and XRDs, for validation and required schemas."""
    allow_exec: bool = True
    """Whether Functions may run code crossfn does not ship: ``--no-exec`` refuses the Process and Docker
    runtimes and InProcess objects other than the built-ins (see docs/security.md)."""
    classic: bool = False
    """``--classic``: print classic render's output (Crossplane v2.2's ``crossplane render``) instead of the
    current CLI's (``crossplane render xr``, one reconcile of the XR controller; see docs/render.md)."""


@dataclasses.dataclass(frozen=True)
class Inputs:
    """Everything a render needs, loaded and checked."""

    xr: dict[str, Any]
    composition: dict[str, Any]
    functions: list[dict[str, Any]]
    functions_dir: Path
    """Where the Functions file lives: ``Process`` commands run there."""
    observed: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    extra: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    required: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    credentials: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    context: dict[str, Any] = dataclasses.field(default_factory=dict)
    schema_documents: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    """The ``-s`` OpenAPI v3 documents."""
    crd_documents: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    """The CRDs and XRDs of ``--crds``."""
    xrd_document: dict[str, Any] | None = None
    """The ``--xrd`` document, for ``--validate``."""
    notes: list[str] = dataclasses.field(default_factory=list)
    """What the user should know about how their inputs were read (a converted legacy Composition)."""


def _wrap(text: str, path: Path | str) -> str:
    return f"{text} {errors.quote(str(path))}"


def _meta(obj: Mapping[str, Any], key: str) -> Any:
    meta = obj.get("metadata")
    return meta.get(key) if isinstance(meta, Mapping) else None


def _load_xr(path: Path) -> dict[str, Any]:
    """The XR, refused when the fields the reconciler writes into (``metadata``, ``status.conditions``) are mistyped."""
    try:
        xr = _load.load_one(path)
    except errors.InputError as exc:
        raise errors.InputError(f"{_wrap('cannot load composite resource from', path)}: {exc}") from exc
    problem = engine.shape_problem(xr, status=True)
    if problem is not None:
        raise errors.InputError(f"{_wrap('cannot load composite resource from', path)}: {problem}")
    return xr


def _load_composition(path: Path) -> dict[str, Any]:
    what = _wrap("cannot load Composition from", path)
    try:
        comp = _load.load_one(path)
    except errors.InputError as exc:
        raise errors.InputError(f"{what}: {exc}") from exc
    if comp.get("apiVersion") != _COMPOSITION_API or comp.get("kind") != "Composition":
        raise errors.InputError(
            f"{what}: not a composition: {comp.get('kind', '')}/{_meta(comp, 'name') or ''}"
        )
    return comp


def pipeline_steps(comp: Mapping[str, Any]) -> list[engine.PipelineStep]:
    """The Composition's ``spec.pipeline``, parsed; a wrong type anywhere is an InputError naming the field."""
    pipeline = _load.object_at(comp, "spec").get("pipeline")
    if not isinstance(pipeline, list):
        raise errors.InputError("cannot parse Composition: spec.pipeline must be a list of steps")
    steps = []
    for i, d in enumerate(pipeline):
        if not isinstance(d, Mapping):
            raise errors.InputError(f"cannot parse Composition: spec.pipeline[{i}] must be an object")
        steps.append(engine.PipelineStep.from_dict(d, where=f"spec.pipeline[{i}]"))
    return steps


def _check_composition(xr: Mapping[str, Any], comp: Mapping[str, Any]) -> None:
    """§3.3 steps 3–6: type ref, selector labels, and Pipeline mode (or ``Resources``, which ``_legacy`` converts)."""
    spec = _load.object_at(comp, "spec")
    ref = _load.object_at(spec, "compositeTypeRef")
    if ref.get("kind") != xr.get("kind"):
        raise errors.InputError(
            f"composition's compositeTypeRef.kind ({ref.get('kind', '')}) does not match XR's kind ({xr.get('kind', '')})"
        )
    if ref.get("apiVersion") != xr.get("apiVersion"):
        raise errors.InputError(
            f"composition's compositeTypeRef.apiVersion ({ref.get('apiVersion', '')}) "
            f"does not match XR's apiVersion ({xr.get('apiVersion', '')})"
        )
    name = str(_meta(comp, "name") or "")
    selector = _load.object_at(xr, "spec", "crossplane", "compositionSelector", "matchLabels")
    labels = _load.object_at(comp, "metadata", "labels")
    for key, want in selector.items():
        if key not in labels:
            raise errors.InputError(
                f"composition {errors.quote(name)} is missing required label {errors.quote(key)}"
            )
        if labels[key] != want:
            raise errors.InputError(
                f"composition {errors.quote(name)} has incorrect value for label {errors.quote(key)}: "
                f"want {errors.quote(str(want))}, got {errors.quote(str(labels[key]))}"
            )
    if spec.get("mode") not in ("Pipeline", _legacy.LEGACY_MODE):
        raise errors.InputError(
            "render only supports Composition Function pipelines: "
            f"Composition {errors.quote(name)} must use spec.mode: Pipeline"
        )


def _load_functions(path: Path, annotations: Sequence[str]) -> list[dict[str, Any]]:
    """§3.3 step 7: the Functions, then ``-a`` overrides on every one of them."""
    what = _wrap("cannot load functions from", path)
    try:
        fns = _load.load_documents(path)
    except errors.InputError as exc:
        raise errors.InputError(f"{what}: {exc}") from exc
    for i, fn in enumerate(fns):
        if fn.get("apiVersion") not in _FUNCTION_APIS or fn.get("kind") != "Function":
            raise errors.InputError(f"{what}: not a function: {fn.get('kind', '')}/{_meta(fn, 'name') or ''}")
        problem = _metadata_problem(fn)
        if problem:
            raise errors.InputError(f"{what}: document {i + 1}: {problem}")
    _annotate(fns, annotations)
    return fns


def _metadata_problem(obj: Mapping[str, Any]) -> str | None:
    """What is wrong with the types in ``obj``'s metadata, the fields render reads and writes."""
    meta = obj.get("metadata")
    if meta is None:
        return None
    if not isinstance(meta, Mapping):
        return "metadata must be an object"
    if not isinstance(meta.get("name", ""), str):
        return "metadata.name must be a string"
    for key in ("annotations", "labels"):
        if not isinstance(meta.get(key) or {}, Mapping):
            return f"metadata.{key} must be an object"
    return None


def _annotate(fns: Sequence[dict[str, Any]], annotations: Sequence[str]) -> None:
    """Set the ``-a KEY=VALUE`` annotations on every Function (again on those a legacy Composition adds)."""
    overrides: dict[str, str] = {}
    for a in annotations:
        key, sep, value = a.partition("=")
        if not sep or not key:
            raise errors.InputError(
                "cannot apply function annotation overrides: "
                f"invalid function annotation format {errors.quote(a)}, expected key=value"
            )
        overrides[key] = value
    for fn in fns:
        if overrides:
            meta = fn["metadata"] = fn.get("metadata") or {}
            meta["annotations"] = {**(meta.get("annotations") or {}), **overrides}


def _default_from_xrd(xr: dict[str, Any], path: Path) -> dict[str, Any]:
    """§3.3 step 8: apply the XRD's OpenAPI defaults for the XR's version, keeping existing values; returns the XRD."""
    from crossfn.schemas import defaults, xrd  # noqa: PLC0415 -- only --xrd needs the schema machinery; keep startup fast

    try:
        doc = _load.load_one(path)
    except errors.InputError as exc:
        raise errors.InputError(f"{_wrap('cannot load XRD from', path)}: {exc}") from exc
    try:
        crd = xrd.crd_from_xrd(doc)
    except errors.InputError as exc:
        raise errors.InputError(
            f"cannot derive composite CRD from XRD {errors.quote(str(_meta(doc, 'name') or ''))}: {exc}"
        ) from exc
    try:
        schema = xrd.version_schema(crd, str(xr.get("apiVersion", "")))
        defaults.apply_defaults(xr, schema)
    except errors.InputError as exc:
        raise errors.InputError(
            f"cannot default values for XR {errors.quote(str(_meta(xr, 'name') or ''))}: {exc}"
        ) from exc
    return doc


def _load_many(paths: Sequence[Path], text: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for p in paths:
        try:
            out.extend(_load.load_documents(p))
        except errors.InputError as exc:
            raise errors.InputError(f"{_wrap(text, p)}: {exc}") from exc
    return out


def _load_observed(path: Path) -> list[dict[str, Any]]:
    """The ``-o`` resources, refused when their ``metadata`` (owner references included) is mistyped."""
    text = "cannot load observed composed resources from"
    observed = _load_many([path], text)
    for i, obj in enumerate(observed):
        problem = engine.shape_problem(obj)
        if problem is not None:
            raise errors.InputError(f"{_wrap(text, path)}: document {i + 1}: {problem}")
    return observed


def _load_context(files: Sequence[tuple[str, str]], values: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """Context keys from files, then inline values, each parsed as YAML or JSON (§3.5 step 3).

    Upstream reads the files before rendering (``cannot read context value for
    key %q``) and parses the values inside ``Render``, so a bad value is a
    render error: ``cannot render composite resource: cannot unmarshal
    YAML/JSON for context key %q``.
    """
    raw: dict[str, str] = {}
    for key, file in files:
        try:
            raw[key] = yaml_loader.read_file(file)
        except errors.InputError as exc:
            raise errors.InputError(f"cannot read context value for key {errors.quote(key)}: {exc}") from exc
    raw.update(dict(values))
    out: dict[str, Any] = {}
    for key, text in raw.items():
        try:
            out[key] = _load.parse_value(text)
        except errors.InputError as exc:
            raise errors.InputError(
                f"cannot render composite resource: cannot unmarshal YAML/JSON for context key {errors.quote(key)}: {exc}"
            ) from exc
    return out


def _load_schemas(path: Path) -> list[dict[str, Any]]:
    from crossfn.schemas import openapi  # noqa: PLC0415 -- only -s needs it; keep startup fast

    try:
        return openapi.load_documents(path)
    except errors.InputError as exc:
        raise errors.InputError(f"{_wrap('cannot load required schemas from', path)}: {exc}") from exc


def _crd_files(path: Path) -> list[Path]:
    """``--crds`` PATH: a file, or a directory's ``*.yaml``, ``*.yml`` and ``*.json`` files at any depth."""
    if not path.is_dir():
        return [path]
    files = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in (".yaml", ".yml", ".json"))
    if not files:
        raise errors.InputError(f"no YAML or JSON files found in {errors.quote(str(path))}")
    return files


def _load_crds(paths: Sequence[Path]) -> list[dict[str, Any]]:
    """The CRDs and XRDs of ``--crds``, each checked by a schema store; other documents are ignored.

    A directory may hold whole packages (``crossplane.yaml``, examples), so
    only extensions count, as in ``crossfn validate``.
    """
    if not paths:
        return []
    from crossfn.schemas import store  # noqa: PLC0415 -- only --crds needs it; keep startup fast

    check = store.SchemaStore(builtins=False)
    out: list[dict[str, Any]] = []
    for path in paths:
        what = _wrap("cannot load CRDs from", path)
        try:
            for file in _crd_files(path):
                for doc in _load.load_documents(file):
                    if store.is_extension(doc):
                        _add_checked(check, doc, file)
                        out.append(doc)
        except errors.InputError as exc:
            raise errors.InputError(f"{what}: {exc}") from exc
    return out


def _add_checked(check: schema_store.SchemaStore, doc: dict[str, Any], file: Path) -> None:
    try:
        check.add(doc)
    except errors.InputError as exc:
        raise errors.InputError(f"{file}: {exc}") from exc


def load(req: Request) -> Inputs:
    """Load and check everything ``req`` names, in §3.3's order; the first problem raises InputError."""
    xr = _load_xr(req.composite_resource)
    comp = _load_composition(req.composition)
    _check_composition(xr, comp)
    fns = _load_functions(req.functions, req.function_annotations)
    notes: list[str] = []
    if _load.object_at(comp, "spec").get("mode") == _legacy.LEGACY_MODE:
        comp, fns, note = _legacy.to_pipeline(comp, fns)
        _annotate(fns, req.function_annotations)
        notes.append(note)
    notes.extend(_runtimes.notes(fns))
    if not req.allow_exec:
        _runtimes.refuse_exec(_runtimes.plan(fns))
    try:
        pipeline_steps(comp)
    except errors.InputError as exc:
        raise errors.InputError(f"{_wrap('cannot load Composition from', req.composition)}: {exc}") from exc
    xrd_doc = _default_from_xrd(xr, req.xrd) if req.xrd is not None else None
    creds = _load_many(
        [req.function_credentials] if req.function_credentials else [], "cannot load secrets from"
    )
    for i, c in enumerate(creds):
        if c.get("apiVersion") != "v1" or c.get("kind") != "Secret":
            raise errors.InputError(
                f"{_wrap('cannot load secrets from', req.function_credentials or '')}: document {i + 1} "
                f"is a {c.get('kind', '')}, not a v1 Secret"
            )
    observed = _load_observed(req.observed_resources) if req.observed_resources else []
    return Inputs(
        xr=xr,
        composition=comp,
        functions=fns,
        functions_dir=req.functions if req.functions.is_dir() else req.functions.parent,
        observed=observed,
        extra=_load_many(req.extra_resources, "cannot load extra resources from"),
        required=_load_many(req.required_resources, "cannot load required resources from"),
        credentials=creds,
        context=_load_context(req.context_files, req.context_values),
        schema_documents=_load_schemas(req.required_schemas) if req.required_schemas else [],
        crd_documents=_load_crds(req.crds),
        xrd_document=xrd_doc,
        notes=notes,
    )
