"""Render's inputs: load every file and check them in ``crossplane render``'s order (upstream core-3.3).

:func:`load` turns a :class:`~crossfn.render.Request` (paths and flags) into
:class:`Inputs` (objects), failing at the first problem with Crossplane's
exact text. The order matters: users and scripts see the same first error as
with ``crossplane render``. Steps 1 to 9 of upstream core-3.3 are the helpers below, in
order; step 10 (render under the timeout) is ``_render``'s.

The inputs ``crossfn render op`` takes too (required resources and schemas,
function credentials, the context) are read by :class:`PipelineFiles` and
checked by :class:`PipelineObjects`, which ``_op_inputs`` extends with its own
texts. Nothing here runs a function or starts a process.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from crossfn import engine, errors
from crossfn.gocompat import yaml_loader
from crossfn.render import _legacy, _load, _project, _runtimes

if TYPE_CHECKING:
    from crossfn.schemas import store as schema_store

__all__ = [
    "XR_CONTEXT",
    "ContextTexts",
    "Inputs",
    "Objects",
    "PipelineFiles",
    "PipelineObjects",
    "Request",
    "from_objects",
    "load",
    "pipeline_steps",
]

_COMPOSITION_API = "apiextensions.crossplane.io/v1"
_FUNCTION_APIS = ("pkg.crossplane.io/v1", "pkg.crossplane.io/v1beta1")


@dataclasses.dataclass(frozen=True)
class Request:
    """What to render, as paths and flags: ``crossplane render``'s arguments (upstream core-3.2)."""

    composite_resource: Path
    composition: Path
    functions: Path | None
    """A Functions file or directory; None renders in the project of :attr:`project_file` (``_project``)."""
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
    project_file: Path = Path(_project.DEFAULT_PROJECT_FILE)
    """``-f``: the project whose Functions render without a FUNCTIONS argument (``upbound.yaml`` beside it too)."""


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
    try:
        xr = _load.load_one(path)
    except errors.InputError as exc:
        raise errors.InputError(f"{_wrap('cannot load composite resource from', path)}: {exc}") from exc
    return _checked_xr(xr, path)


def _checked_xr(xr: dict[str, Any], label: Path | str) -> dict[str, Any]:
    """The XR, refused when the fields the reconciler writes into (``metadata``, ``status.conditions``) are mistyped."""
    problem = engine.shape_problem(xr, status=True)
    if problem is not None:
        raise errors.InputError(f"{_wrap('cannot load composite resource from', label)}: {problem}")
    return xr


def _load_composition(path: Path) -> dict[str, Any]:
    what = _wrap("cannot load Composition from", path)
    try:
        comp = _load.load_one(path)
    except errors.InputError as exc:
        raise errors.InputError(f"{what}: {exc}") from exc
    return _checked_composition(comp, what)


def _checked_composition(comp: dict[str, Any], what: str) -> dict[str, Any]:
    if comp.get("apiVersion") != _COMPOSITION_API or comp.get("kind") != "Composition":
        text = f"{what}: not a composition: {comp.get('kind', '')}/{_meta(comp, 'name') or ''}"
        if comp.get("kind") == "Composition":
            # Upstream's text alone reads as if the kind were wrong: say it is the apiVersion.
            text += (
                f" (apiVersion is {errors.quote(str(comp.get('apiVersion', '')))}; a Composition's is "
                f"{errors.quote(_COMPOSITION_API)})"
            )
        raise errors.InputError(text)
    return comp


def pipeline_steps(comp: Mapping[str, Any]) -> list[engine.PipelineStep]:
    """The Composition's ``spec.pipeline``, parsed; a wrong type anywhere is an InputError naming the field."""
    pipeline = _load.object_at(comp, "spec").get("pipeline")
    if pipeline is None:
        return []  # Go decodes a missing (or null) list as an empty one: zero steps, as `pipeline: []`
    if not isinstance(pipeline, list):
        raise errors.InputError("cannot parse Composition: spec.pipeline must be a list of steps")
    steps = []
    for i, d in enumerate(pipeline):
        if not isinstance(d, Mapping):
            raise errors.InputError(f"cannot parse Composition: spec.pipeline[{i}] must be an object")
        steps.append(engine.PipelineStep.from_dict(d, where=f"spec.pipeline[{i}]"))
    return steps


def _check_composition(xr: Mapping[str, Any], comp: Mapping[str, Any]) -> None:
    """upstream core-3.3 steps 3–6: type ref, selector labels, and Pipeline mode (or ``Resources``, which
    ``_legacy`` converts)."""
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
    if _legacy.mode(comp) not in ("Pipeline", _legacy.LEGACY_MODE):
        raise errors.InputError(
            "render only supports Composition Function pipelines: "
            f"Composition {errors.quote(name)} must use spec.mode: Pipeline"
        )


def _load_functions(path: Path, annotations: Sequence[str]) -> list[dict[str, Any]]:
    """upstream core-3.3 step 7: the Functions, then ``-a`` overrides on every one of them."""
    what = _wrap("cannot load functions from", path)
    try:
        fns = _load.load_documents(path)
    except errors.InputError as exc:
        raise errors.InputError(f"{what}: {exc}") from exc
    return _checked_functions(fns, what, annotations)


def _checked_functions(
    fns: list[dict[str, Any]], what: str, annotations: Sequence[str]
) -> list[dict[str, Any]]:
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
    """upstream core-3.3 step 8: apply the XRD's OpenAPI defaults for the XR's version, keeping existing
    values; returns the XRD."""
    try:
        doc = _load.load_one(path)
    except errors.InputError as exc:
        raise errors.InputError(f"{_wrap('cannot load XRD from', path)}: {exc}") from exc
    return _apply_xrd(xr, doc)


def _apply_xrd(xr: dict[str, Any], doc: dict[str, Any]) -> dict[str, Any]:
    from crossfn.schemas import defaults, xrd  # noqa: PLC0415 -- only --xrd needs the schema machinery; keep startup fast

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


def _checked_observed(observed: list[dict[str, Any]], label: Path | str) -> list[dict[str, Any]]:
    """The ``-o`` resources, refused when their ``metadata`` (owner references included) is mistyped."""
    for i, obj in enumerate(observed):
        problem = engine.shape_problem(obj)
        if problem is not None:
            raise errors.InputError(
                f"{_wrap('cannot load observed composed resources from', label)}: document {i + 1}: {problem}"
            )
    return observed


@dataclasses.dataclass(frozen=True)
class ContextTexts:
    """How a context flag's errors read, each a template with ``{key}`` (the quoted key), for ``: <cause>``."""

    read: str
    """A ``--context-files`` file that cannot be read."""
    parse: str
    """A value that is not YAML or JSON."""


XR_CONTEXT = ContextTexts(
    read="cannot read context value for key {key}",
    parse="cannot render composite resource: cannot unmarshal YAML/JSON for context key {key}",
)
"""``crossplane render``'s texts: it reads the files before rendering and parses the values inside
``Render``, so a bad value is a render error (upstream core-3.5 step 3)."""


def _load_context(
    files: Sequence[tuple[str, str]], values: Sequence[tuple[str, str]], texts: ContextTexts
) -> dict[str, Any]:
    """Context keys from files, then inline values (which win), each parsed as YAML or JSON."""
    raw: dict[str, str] = {}
    for key, file in files:
        try:
            raw[key] = yaml_loader.read_file(file)
        except errors.InputError as exc:
            raise errors.InputError(f"{texts.read.format(key=errors.quote(key))}: {exc}") from exc
    raw.update(dict(values))
    out: dict[str, Any] = {}
    for key, text in raw.items():
        try:
            out[key] = _load.parse_value(text)
        except errors.InputError as exc:
            raise errors.InputError(f"{texts.parse.format(key=errors.quote(key))}: {exc}") from exc
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
                out.extend(_checked_crds(check, _load.load_documents(file), file))
        except errors.InputError as exc:
            raise errors.InputError(f"{what}: {exc}") from exc
    return out


def _checked_crds(
    check: schema_store.SchemaStore, docs: Sequence[dict[str, Any]], file: Path | str
) -> list[dict[str, Any]]:
    """The CRDs and XRDs among ``docs``, each added to ``check``; other documents are ignored."""
    from crossfn.schemas import store  # noqa: PLC0415 -- only --crds needs it; keep startup fast

    out = []
    for doc in docs:
        if store.is_extension(doc):
            _add_checked(check, doc, file)
            out.append(doc)
    return out


def _add_checked(check: schema_store.SchemaStore, doc: dict[str, Any], file: Path | str) -> None:
    try:
        check.add(doc)
    except errors.InputError as exc:
        raise errors.InputError(f"{file}: {exc}") from exc


def _checked_credentials(creds: list[dict[str, Any]], what: str, where: Path | str) -> list[dict[str, Any]]:
    """``creds``, each a v1 Secret whose values decode, as ``crossplane render`` decodes each into a
    ``corev1.Secret`` when it loads them (before any function runs, whether a step uses them or not)."""
    for i, c in enumerate(creds):
        if c.get("apiVersion") != "v1" or c.get("kind") != "Secret":
            raise errors.InputError(
                f"{_wrap(what, where)}: document {i + 1} is a {c.get('kind', '')}, not a v1 Secret"
            )
        _load.secret_data(c, f"{_wrap(what, where)}: document {i + 1}")
    return creds


class _Flags(Protocol):
    """The flags both renders take (``crossfn render``'s :class:`Request`, ``render op``'s)."""

    @property
    def required_resources(self) -> Sequence[Path]: ...
    @property
    def required_schemas(self) -> Path | None: ...
    @property
    def function_credentials(self) -> Path | None: ...
    @property
    def context_files(self) -> Sequence[tuple[str, str]]: ...
    @property
    def context_values(self) -> Sequence[tuple[str, str]]: ...


class PipelineFiles:
    """The inputs both renders read from files the same way: ``-e``, ``-s``, credentials, the context.

    Each render's own reader (:class:`_Files` here, ``_op_inputs``') adds its
    inputs; ``credentials_text`` and ``context_texts`` are its error texts.
    """

    credentials_text = "cannot load secrets from"
    context_texts = XR_CONTEXT

    def __init__(self, flags: _Flags) -> None:
        self._flags = flags

    def required(self) -> list[dict[str, Any]]:
        return _load_many(self._flags.required_resources, "cannot load required resources from")

    def schemas(self) -> list[dict[str, Any]]:
        path = self._flags.required_schemas
        return _load_schemas(path) if path else []

    def credentials(self) -> list[dict[str, Any]]:
        path = self._flags.function_credentials
        if not path:
            return []
        return _checked_credentials(_load_many([path], self.credentials_text), self.credentials_text, path)

    def context(self) -> dict[str, Any]:
        return _load_context(self._flags.context_files, self._flags.context_values, self.context_texts)


class _Given(Protocol):
    """Render's inputs before they are checked, read from files (:class:`_Files`) or given (:class:`_Objects`).

    Each method reads (or copies) one input and checks what belongs to it, in
    :func:`_build`'s order, so a file is read at the same point as ``crossplane
    render`` reads it and the first problem is the same either way.
    """

    functions_dir: Path

    def xr(self) -> dict[str, Any]: ...
    def composition(self) -> dict[str, Any]: ...
    def composition_label(self) -> Path | str: ...
    def functions(self, annotations: Sequence[str]) -> list[dict[str, Any]]: ...
    def xrd(self, xr: dict[str, Any]) -> dict[str, Any] | None: ...
    def credentials(self) -> list[dict[str, Any]]: ...
    def observed(self) -> list[dict[str, Any]]: ...
    def extra(self) -> list[dict[str, Any]]: ...
    def required(self) -> list[dict[str, Any]]: ...
    def context(self) -> dict[str, Any]: ...
    def schemas(self) -> list[dict[str, Any]]: ...
    def crds(self) -> list[dict[str, Any]]: ...


class _Files(PipelineFiles):
    """The inputs a :class:`Request` names, read from its files."""

    def __init__(self, req: Request) -> None:
        super().__init__(req)
        self._req = req
        fns = req.functions
        if fns is None:
            self.functions_dir = req.project_file.resolve().parent
        else:
            self.functions_dir = fns if fns.is_dir() else fns.parent

    def xr(self) -> dict[str, Any]:
        return _load_xr(self._req.composite_resource)

    def composition(self) -> dict[str, Any]:
        return _load_composition(self._req.composition)

    def composition_label(self) -> Path:
        return self._req.composition

    def functions(self, annotations: Sequence[str]) -> list[dict[str, Any]]:
        if self._req.functions is None:
            fns, self.functions_dir = _project.project_functions(self._req.project_file)
            return _checked_functions(
                fns, _wrap("cannot load project functions from", self._req.project_file), annotations
            )
        return _load_functions(self._req.functions, annotations)

    def xrd(self, xr: dict[str, Any]) -> dict[str, Any] | None:
        return _default_from_xrd(xr, self._req.xrd) if self._req.xrd is not None else None

    def observed(self) -> list[dict[str, Any]]:
        path = self._req.observed_resources
        if not path:
            return []
        return _checked_observed(_load_many([path], "cannot load observed composed resources from"), path)

    def extra(self) -> list[dict[str, Any]]:
        return _load_many(self._req.extra_resources, "cannot load extra resources from")

    def crds(self) -> list[dict[str, Any]]:
        return _load_crds(self._req.crds)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Objects:
    """What to render, as objects rather than files: for callers that hold them (``crossfn test``, a controller).

    The same inputs as :class:`Request`, checked with the same rules and texts
    (:func:`from_objects`). Messages name an input by its ``names`` entry (the
    field name by default: ``cannot load Composition from "composition": ...``),
    where a file's path would stand. Render copies what it changes.
    """

    xr: Mapping[str, Any]
    composition: Mapping[str, Any]
    functions: Sequence[Mapping[str, Any]]
    observed_resources: Sequence[Mapping[str, Any]] = ()
    extra_resources: Sequence[Mapping[str, Any]] = ()
    required_resources: Sequence[Mapping[str, Any]] = ()
    function_credentials: Sequence[Mapping[str, Any]] = ()
    """v1 Secrets."""
    context: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    """Context keys and their values (``--context-values``, parsed)."""
    required_schemas: Sequence[Mapping[str, Any]] = ()
    """OpenAPI v3 documents (``-s``)."""
    crds: Sequence[Mapping[str, Any]] = ()
    """CRDs and XRDs (``--crds``); other documents are ignored."""
    xrd: Mapping[str, Any] | None = None
    function_annotations: Sequence[str] = ()
    functions_dir: Path = dataclasses.field(default_factory=Path.cwd)
    """Where ``Process`` commands run and in-process modules are looked for first."""
    allow_exec: bool = True
    names: Mapping[str, str] = dataclasses.field(default_factory=dict)
    """How messages name each input, by field name: ``{"composition": "spec.tests[0].inputs.composition.raw"}``."""


def _copy_object(value: object, label: str, what: str) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise errors.InputError(f"{_wrap(what, label)}: not an object")
    return copy.deepcopy(dict(value))


def _copy_objects(values: Sequence[object], label: str, what: str) -> list[dict[str, Any]]:
    if isinstance(values, str | bytes | Mapping):
        raise errors.InputError(f"{_wrap(what, label)}: not a list of objects")
    out = []
    for i, v in enumerate(values):
        if not isinstance(v, Mapping):
            raise errors.InputError(f"{_wrap(what, label)}: document {i + 1} is not an object")
        out.append(copy.deepcopy(dict(v)))
    return out


class _PipelineGiven(Protocol):
    """What both renders' ``Objects`` hold for :class:`PipelineObjects`."""

    @property
    def functions(self) -> Sequence[Mapping[str, Any]]: ...
    @property
    def required_resources(self) -> Sequence[Mapping[str, Any]]: ...
    @property
    def required_schemas(self) -> Sequence[Mapping[str, Any]]: ...
    @property
    def function_credentials(self) -> Sequence[Mapping[str, Any]]: ...
    @property
    def context(self) -> Mapping[str, Any]: ...
    @property
    def functions_dir(self) -> Path: ...
    @property
    def names(self) -> Mapping[str, str]: ...


class PipelineObjects:
    """The inputs both renders take as objects, copied and checked as :class:`PipelineFiles` reads them.

    Messages name an input by its ``names`` entry, where a file's path would stand.
    """

    credentials_text = "cannot load secrets from"

    def __init__(self, given: _PipelineGiven) -> None:
        self._pipeline = given
        self.functions_dir = given.functions_dir

    def _label(self, field: str) -> str:
        return self._pipeline.names.get(field, field)

    def functions(self, annotations: Sequence[str]) -> list[dict[str, Any]]:
        what = "cannot load functions from"
        fns = _copy_objects(self._pipeline.functions, self._label("functions"), what)
        return _checked_functions(fns, _wrap(what, self._label("functions")), annotations)

    def required(self) -> list[dict[str, Any]]:
        what = "cannot load required resources from"
        return _copy_objects(self._pipeline.required_resources, self._label("required_resources"), what)

    def schemas(self) -> list[dict[str, Any]]:
        what = "cannot load required schemas from"
        return _copy_objects(self._pipeline.required_schemas, self._label("required_schemas"), what)

    def credentials(self) -> list[dict[str, Any]]:
        label = self._label("function_credentials")
        creds = _copy_objects(self._pipeline.function_credentials, label, self.credentials_text)
        return _checked_credentials(creds, self.credentials_text, label)

    def context(self) -> dict[str, Any]:
        return copy.deepcopy(dict(self._pipeline.context))


class _Objects(PipelineObjects):
    """The inputs of an :class:`Objects`, copied."""

    def __init__(self, given: Objects) -> None:
        super().__init__(given)
        self._given = given

    def xr(self) -> dict[str, Any]:
        label = self._label("xr")
        return _checked_xr(_copy_object(self._given.xr, label, "cannot load composite resource from"), label)

    def composition(self) -> dict[str, Any]:
        what = "cannot load Composition from"
        comp = _copy_object(self._given.composition, self._label("composition"), what)
        return _checked_composition(comp, _wrap(what, self._label("composition")))

    def composition_label(self) -> str:
        return self._label("composition")

    def xrd(self, xr: dict[str, Any]) -> dict[str, Any] | None:
        if self._given.xrd is None:
            return None
        return _apply_xrd(xr, _copy_object(self._given.xrd, self._label("xrd"), "cannot load XRD from"))

    def observed(self) -> list[dict[str, Any]]:
        what = "cannot load observed composed resources from"
        label = self._label("observed_resources")
        return _checked_observed(_copy_objects(self._given.observed_resources, label, what), label)

    def extra(self) -> list[dict[str, Any]]:
        what = "cannot load extra resources from"
        return _copy_objects(self._given.extra_resources, self._label("extra_resources"), what)

    def crds(self) -> list[dict[str, Any]]:
        label = self._label("crds")
        docs = _copy_objects(self._given.crds, label, "cannot load CRDs from")
        if not docs:
            return []
        from crossfn.schemas import store  # noqa: PLC0415 -- only --crds needs it; keep startup fast

        try:
            return _checked_crds(store.SchemaStore(builtins=False), docs, label)
        except errors.InputError as exc:
            raise errors.InputError(f"{_wrap('cannot load CRDs from', label)}: {exc}") from exc


def load(req: Request) -> Inputs:
    """Load and check everything ``req`` names, in
    upstream core-3.3's order; the first problem raises InputError."""
    return _build(_Files(req), req.function_annotations, allow_exec=req.allow_exec)


def from_objects(objects: Objects) -> Inputs:
    """Check ``objects`` as :func:`load` checks files, in the same order and with the same texts."""
    return _build(_Objects(objects), objects.function_annotations, allow_exec=objects.allow_exec)


def _build(given: _Given, annotations: Sequence[str], *, allow_exec: bool) -> Inputs:
    """upstream core-3.3 steps 1–9 in order; each input is read when its step comes."""
    xr = given.xr()
    comp = given.composition()
    _check_composition(xr, comp)
    fns = given.functions(annotations)
    notes: list[str] = []
    if _legacy.mode(comp) == _legacy.LEGACY_MODE:
        comp, fns, note = _legacy.to_pipeline(comp, fns)
        _annotate(fns, annotations)
        notes.append(note)
    notes.extend(_runtimes.notes(fns))
    if not allow_exec:
        _runtimes.refuse_exec(_runtimes.plan(fns))
    try:
        pipeline_steps(comp)
    except errors.InputError as exc:
        raise errors.InputError(
            f"{_wrap('cannot load Composition from', given.composition_label())}: {exc}"
        ) from exc
    xrd_doc = given.xrd(xr)
    creds = given.credentials()
    observed = given.observed()
    return Inputs(
        xr=xr,
        composition=comp,
        functions=fns,
        functions_dir=given.functions_dir,
        observed=observed,
        extra=given.extra(),
        required=given.required(),
        credentials=creds,
        context=given.context(),
        schema_documents=given.schemas(),
        crd_documents=given.crds(),
        xrd_document=xrd_doc,
        notes=notes,
    )
