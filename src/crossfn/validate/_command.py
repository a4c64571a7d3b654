"""``crossfn validate EXTENSIONS RESOURCES``: load, validate, report like ``crossplane beta validate``.

The text report keeps upstream's lines word for word and adds where each
object came from, as `` [file:line]`` at the end (upstream names no file)::

    [x] schema validation error example.org/v1, Kind=XNet, net : spec.region: Required value [xr.yaml:1]
    [x] CEL validation error example.org/v1, Kind=XNet, net : spec: Invalid value: "object": ... [xr.yaml:1]
    [✓] apps/v1, Kind=Deployment, web validated successfully [out.yaml:14]
    [!] could not find CRD/XRD for: example.org/v1, Kind=Other [out.yaml:40]
    Total 4 resources: 1 missing schemas, 1 success cases, 2 failure cases

Unlike upstream, built-in Kubernetes kinds are validated too (their schemas
ship with crossfn), and extension packages (Providers, Functions,
Configurations) cannot be fetched: their CRDs must be given as extensions.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import IO, Any

from crossfn import errors
from crossfn.gocompat import yaml_emitter
from crossfn.schemas import store as schema_store
from crossfn.validate import _load, _object, _problem

__all__ = ["Outcome", "Report", "run"]

_PACKAGE_GROUP = "pkg.crossplane.io/"


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What validation found for one object: its problems, or that its schema is missing."""

    document: _load.Document
    problems: tuple[_problem.Problem, ...]
    missing_schema: bool = False

    @property
    def resource(self) -> str:
        """``group/version, Kind=Kind, name``, upstream's way to name the object."""
        return f"{_object.gvk_string(self.document.obj)}, {_object.resource_name(self.document.obj)}"

    def to_json(self) -> dict[str, Any]:
        obj = self.document.obj
        metadata = _metadata(obj)
        status = "missing-schema" if self.missing_schema else ("invalid" if self.problems else "valid")
        return {
            "file": self.document.file,
            "line": self.document.line,
            "apiVersion": obj.get("apiVersion", ""),
            "kind": obj.get("kind", ""),
            "name": _object.resource_name(obj),
            "namespace": metadata.get("namespace", ""),
            "status": status,
            "problems": [p.to_json() for p in self.problems],
        }


@dataclasses.dataclass(frozen=True)
class Report:
    """The outcome of every object, in input order, and the packages whose schemas could not be used."""

    outcomes: tuple[Outcome, ...]
    skipped_packages: tuple[str, ...] = ()

    @property
    def missing(self) -> int:
        return sum(1 for o in self.outcomes if o.missing_schema)

    @property
    def failures(self) -> int:
        return sum(1 for o in self.outcomes if o.problems)

    @property
    def successes(self) -> int:
        return len(self.outcomes) - self.failures - self.missing

    def error(self, *, error_on_missing_schemas: bool = False) -> str | None:
        """Upstream's error when the run fails (exit 1), else ``None``."""
        if self.failures:
            return "cannot validate resources: could not validate all resources"
        if error_on_missing_schemas and self.missing:
            return "cannot validate resources: could not validate all resources, schema(s) missing"
        return None

    def text(self, *, skip_success: bool = False) -> str:
        """The text report: one line per problem, per missing schema and per valid object, then the total."""
        lines: list[str] = []
        for o in self.outcomes:
            where = f" [{o.document.location}]"
            if o.missing_schema:
                lines.append(f"[!] could not find CRD/XRD for: {_object.gvk_string(o.document.obj)}{where}")
            elif o.problems:
                for p in o.problems:
                    label = "CEL" if p.origin is _problem.Origin.CEL else "schema"
                    lines.append(f"[x] {label} validation error {o.resource} : {p.message}{where}")
            elif not skip_success:
                lines.append(f"[✓] {o.resource} validated successfully{where}")
        lines.append(
            f"Total {len(self.outcomes)} resources: {self.missing} missing schemas, "
            f"{self.successes} success cases, {self.failures} failure cases"
        )
        return "\n".join(lines) + "\n"

    def json(self) -> str:
        """The report as one JSON document (``--output json``)."""
        return json.dumps(self._document(), indent=2, sort_keys=False) + "\n"

    def yaml(self) -> str:
        """The same document as YAML, as sigs.k8s.io/yaml writes it (``--output yaml``)."""
        return yaml_emitter.to_yaml(self._document())

    def _document(self) -> dict[str, Any]:
        summary = {
            "total": len(self.outcomes),
            "missingSchemas": self.missing,
            "success": self.successes,
            "failure": self.failures,
        }
        doc = {
            "resources": [o.to_json() for o in self.outcomes],
            "summary": summary,
            "skippedPackages": list(self.skipped_packages),
        }
        return doc


def run(
    extensions: str,
    resources: str,
    *,
    old_resources: str | None = None,
    stdin: IO[str] | None = None,
) -> Report:
    """Validate every object of ``resources`` against the schemas of ``extensions``.

    Raises :class:`~crossfn.errors.InputError` when a source cannot be
    loaded (upstream's ``cannot load extensions from "<src>": ...``) or both
    sources are standard input.
    """
    if extensions == "-" and resources == "-":
        raise errors.InputError("cannot use stdin for both extensions and resources")
    ext_docs = _load_source("extensions", extensions, stdin)
    res_docs = _load_source("resources", resources, stdin)
    old_docs = _load_source("old resources", old_resources, stdin) if old_resources else []
    store = schema_store.SchemaStore()
    skipped: list[str] = []
    for d in ext_docs:
        if schema_store.is_extension(d.obj):
            try:
                store.add(d.obj)
            except errors.InputError as exc:
                raise errors.InputError(f"cannot prepare extensions: {d.location}: {exc}") from exc
        elif str(d.obj.get("apiVersion", "")).startswith(_PACKAGE_GROUP):
            skipped.append(f"{d.obj.get('kind', '')} {_object.resource_name(d.obj)}")
    if ext_docs and not any(_prepares(d.obj) for d in ext_docs):
        raise errors.InputError(_no_extensions(extensions, res_docs))
    old = {_key(d.obj): d.obj for d in old_docs}
    outcomes = []
    for d in res_docs:
        problems = _object.validate_resource(d.obj, store, old=old.get(_key(d.obj)))
        outcomes.append(Outcome(d, tuple(problems or ()), missing_schema=problems is None))
    return Report(tuple(outcomes), tuple(skipped))


def _prepares(obj: Mapping[str, Any]) -> bool:
    """Whether an extension document contributes schemas: a CRD, XRD, OpenAPI document or package."""
    api_version = str(obj.get("apiVersion", ""))
    return (
        schema_store.is_extension(obj)
        or api_version.startswith(_PACKAGE_GROUP)
        or api_version.startswith("meta.pkg.crossplane.io/")
    )


def _no_extensions(source: str, resources: list[_load.Document]) -> str:
    """The error for EXTENSIONS that hold documents but no schema at all (upstream ignores them and
    reports every resource's schema missing, exit status 0): usually the two arguments swapped."""
    text = (
        f"cannot load extensions from {errors.quote(source)}: it holds no CRD, XRD, OpenAPI document "
        "or package"
    )
    if any(_prepares(d.obj) for d in resources):
        text += "; RESOURCES does: are the arguments swapped? (crossfn validate EXTENSIONS RESOURCES)"
    return text


def _load_source(what: str, source: str, stdin: IO[str] | None) -> list[_load.Document]:
    try:
        return _load.load(source, stdin=stdin)
    except errors.InputError as exc:
        raise errors.InputError(f"cannot load {what} from {errors.quote(source)}: {exc}") from exc


def _key(obj: Mapping[str, Any]) -> tuple[str, str, str, str]:
    metadata = _metadata(obj)
    return (
        str(obj.get("apiVersion", "")),
        str(obj.get("kind", "")),
        str(metadata.get("name", "")),
        str(metadata.get("namespace", "")),
    )


def _metadata(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    metadata = obj.get("metadata")
    return metadata if isinstance(metadata, Mapping) else {}
