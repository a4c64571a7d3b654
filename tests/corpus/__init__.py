"""Loading the shared corpus of real Crossplane configurations (``../shared/corpus``) for tests.

The corpus holds Compositions, XRDs, example XRs or claims and Functions files
copied unchanged from public repositories (its README lists them). Layouts
differ per repository, so :func:`examples` finds, for each Composition, the
documents that go with it. Every rule is here, in one place; nothing here
decides whether a Composition should render: tests do.

*Nearest first* means: the Composition's directory and then each parent up to
the repository's root in the corpus (each followed by a ``setup/`` directory
beside it, where Crossplane's e2e tests keep theirs), then the repository's
other directories, those sharing more of the Composition's path first, then in
path order. A repository is its directory in the corpus plus its *supplement*,
``supplement/<repository>/`` here: files of the same repository and commit the
corpus did not copy and some Composition needs (``supplement/README.md``).

**The XR**, the first of, nearest first:

1. a document of the Composition's ``compositeTypeRef`` (apiVersion and kind):
   the repository's own XR, used as shipped;
2. a claim of that XR's claim kind (the XRD's ``claimNames``, same group),
   turned into its XR as Crossplane v1's claim reconciler does: the claim's
   ``spec`` under the XR's apiVersion and kind, less the claim-only fields
   (``compositionRevisionRef`` unless the update policy is ``Manual``,
   ``compositeDeletePolicy``, ``resourceRef``, ``publishConnectionDetailsTo``,
   ``writeConnectionSecretToRef``), with ``spec.claimRef`` naming the claim, named
   after the claim, the claim's labels and ``crossplane.io/claim-name`` and
   ``crossplane.io/claim-namespace`` (a claim without a namespace is in ``default``);
3. an ``envsubst`` template of either (a document holding ``$NAME`` or
   ``${NAME}``, ``NAME`` in capitals), each variable replaced by its name in
   lower case with dashes (``$CLAIM_NAME`` is ``claim-name``), then as 1 or 2:
   templates are the repository's examples for a script that fills them in;
4. a bare XR of the ``compositeTypeRef``: ``metadata.name: example``.

An example outside the Composition's own directories is taken only if the API
server would take it under the Composition's XRD (it validates, unknown fields
aside, which the server drops): a repository may hold several XRDs of one kind,
one per provider family, and another family's example is not this one's.

An XR of 2, 3 or 4 stands for what the API server would hold: every ``required``
field missing under ``spec`` is filled in, recursively, with its schema's
``default``, else its first ``enum`` value, else by type: an object ``{}`` (then
its own required fields), an array ``[]``, a string the field's own name, an
integer or number its ``minimum`` or ``1``, a boolean ``false``; then the
schema's defaults are applied, as the API server applies them. It gets a
``metadata.uid``, as every object there has (a version-5 UUID of its apiVersion,
kind and name, so runs agree), and, when the Composition names
``writeConnectionSecretsToNamespace``, the ``spec.writeConnectionSecretToRef``
Crossplane v1 gives a new XR (its UID, in that namespace). An XR the repository
ships is used as it is.

**The XRDs**: for each apiVersion and kind, the XRD serving it, nearest first
(:attr:`Example.xrd` for the XR, :attr:`Example.xrd_files` for every kind).

**The Functions**: the ``Function`` documents of the nearest directory that has
any (a ``setup/`` directory beside counts); when they define every Function the
pipeline names, only those, as a user passes the files a guide names. Where no
directory has any, a ``Configuration`` package (``crossplane.yaml``) of the
repository stands in: each Function it ``dependsOn``, named as Crossplane's
package manager names a dependency (``<organisation>-<repository>``), tagged
``latest``: the package manager installs the highest version its constraint
allows, and ``latest`` is the newest release crossfn knows. Each Function loses
a ``render.crossplane.io/runtime: Development`` annotation (the functions' own
examples carry it for their authors): "as shipped" is without it. A legacy
Composition needs none.

**The resources render is given**, from the Composition's *setup*: its
directory, and the ``setup/`` directory beside it (a Composition in ``setup/``:
that directory alone), as Crossplane's end-to-end tests apply them to the
cluster before the test:

* observed resources: ``observed<S>.yaml`` for ``composition<T>.yaml`` when
  ``S`` is ``T`` or a non-empty ending of it (``observed-regex.yaml`` for
  ``composition-regex.yaml``, ``observed-deletion-sequencing.yaml`` for
  ``composition-with-deletion-sequencing.yaml``), as the examples' READMEs pass them;
* function credentials: the ``Secret`` documents;
* required (and extra) resources: every other document except Compositions,
  Functions, XRDs, CRDs, packages (``pkg.crossplane.io``,
  ``meta.pkg.crossplane.io``) and documents of the XR's or claim's kind; and,
  for a Composition that selects EnvironmentConfigs (a native
  ``spec.environment`` or a function-environment-configs step) when its setup
  holds none, the repository's EnvironmentConfigs (templates filled in as above).
  An EnvironmentConfig is given at both versions Crossplane's CRD serves
  (``v1alpha1`` and ``v1beta1``), as the API server answers for it at either.

**Where to render from**: the repository's root (:attr:`Example.workdir`), as its
READMEs run ``crossplane render``.

Files of printed output (``*expected-output*``) are never inputs.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import os
import re
import uuid
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from crossfn import errors, validate
from crossfn.render import _load, output
from crossfn.schemas import defaults, xrd

__all__ = ["Example", "available", "documents", "examples", "repositories", "root"]

_ENV = "CROSSFN_CORPUS"
SUPPLEMENT = Path(__file__).parent / "supplement"
"""Files of the corpus's repositories the corpus did not copy, which some of its Compositions need."""
_RUNTIME = "render.crossplane.io/runtime"
_PACKAGE_GROUPS = ("pkg.crossplane.io/", "meta.pkg.crossplane.io/")
_NOT_RESOURCES = {
    "Composition",
    "CompositeResourceDefinition",
    "CustomResourceDefinition",
    "Function",
    "Secret",
}
_CLAIM_ONLY = (
    "compositionRevisionRef",
    "compositeDeletePolicy",
    "resourceRef",
    "publishConnectionDetailsTo",
    "writeConnectionSecretToRef",
)
_CLAIM_NAME = "crossplane.io/claim-name"
_CLAIM_NAMESPACE = "crossplane.io/claim-namespace"
_VARIABLE = re.compile(r"\$\{([A-Z_][A-Z0-9_]*)\}|\$([A-Z_][A-Z0-9_]*)")
_ENVIRONMENT_CONFIGS = "function-environment-configs"
_ENVIRONMENT_CONFIG_APIS = ("apiextensions.crossplane.io/v1alpha1", "apiextensions.crossplane.io/v1beta1")


@functools.cache
def _find_root() -> Path | None:
    given = os.environ.get(_ENV)
    if given:
        return Path(given)
    for parent in Path(__file__).resolve().parents:
        candidate = parent / "shared" / "corpus"
        if (candidate / "README.md").is_file():
            return candidate
    return None


def available() -> bool:
    """Whether this machine has the corpus (for parametrizing at collection time)."""
    return _find_root() is not None


def root() -> Path:
    """The corpus directory (``$CROSSFN_CORPUS``, else ``shared/corpus`` beside an ancestor of this file).

    Without one the calling test is skipped, except under CI, where the corpus is always beside the
    clone and its absence fails the test.
    """
    found = _find_root()
    if found is None:
        if os.environ.get("CI"):
            pytest.fail(
                "the shared corpus is missing (set CROSSFN_CORPUS or put shared/corpus beside the repo)"
            )
        pytest.skip("no shared corpus on this machine (set CROSSFN_CORPUS)")
    return found


def repositories() -> list[str]:
    """Every repository's directory in the corpus (``_crds`` and other ``_`` directories are not one)."""
    top = _find_root()
    if top is None:
        return []
    return sorted(p.name for p in top.iterdir() if p.is_dir() and not p.name.startswith("_"))


@functools.cache
def documents(path: Path) -> tuple[dict[str, Any], ...]:
    """The YAML documents of one file, read as Crossplane reads them; mappings only, nulls skipped."""
    try:
        docs = _load.load_documents(path)
    except errors.InputError:  # a file crossfn cannot read (a Helm template, a list) is not an input here
        return ()
    return tuple(d for d in docs if isinstance(d, dict))


def _yaml_files(directory: Path) -> list[Path]:
    if not directory.is_dir():
        return []
    return sorted(
        p
        for p in directory.iterdir()
        if p.is_file() and p.suffix in (".yaml", ".yml") and "expected-output" not in p.name
    )


def _docs_in(directory: Path) -> Iterator[tuple[Path, dict[str, Any]]]:
    for f in _yaml_files(directory):
        for d in documents(f):
            yield f, d


@dataclasses.dataclass(frozen=True)
class Example:
    """One Composition of the corpus and what goes with it (the module's docstring says how each is found)."""

    path: Path
    """The file holding the Composition."""
    composition: dict[str, Any]
    xr: dict[str, Any]
    """The XR: the repository's, derived from a claim, a template or the XRD (:attr:`xr_from` says which)."""
    functions: list[dict[str, Any]]
    """The Functions, as shipped less the Development runtime annotation."""
    xr_from: str
    """Where the XR came from: ``xr <file>``, ``claim <file>``, ``xr template <file>``, ``claim template
    <file>`` (paths from the repository's directory), or ``compositeTypeRef``."""
    functions_from: str = ""
    """``<file>``..., ``dependsOn <file>``, or ``""`` (none found)."""
    xrd: dict[str, Any] | None = None
    """The XRD defining the XR's kind, nearest first; ``None`` when the repository has none."""
    observed: tuple[Path, ...] = ()
    """The observed-resources file, if the Composition has one."""
    required: tuple[dict[str, Any], ...] = ()
    """Required (and extra) resources render is given."""
    credentials: tuple[dict[str, Any], ...] = ()
    """The Secrets of the setup: function credentials."""
    xrd_files: Mapping[tuple[str, str], Path] = dataclasses.field(default_factory=dict)
    """(apiVersion, kind) -> the file of the XRD defining it, for every XRD of the repository, nearest first
    (repositories hold several XRDs of one kind for different provider families)."""

    @property
    def name(self) -> str:
        """``<corpus-relative path>:<Composition name>``, unique across the corpus."""
        meta = self.composition.get("metadata") or {}
        return f"{self.path.relative_to(root())}:{meta.get('name', '')}"

    @property
    def legacy(self) -> bool:
        """Native patch-and-transform: ``mode: Resources``, or ``spec.resources`` with no ``spec.mode``."""
        spec = self.composition.get("spec") or {}
        return spec.get("mode", "Resources" if "resources" in spec else None) == "Resources"

    @property
    def repository(self) -> str:
        """The repository's directory in the corpus."""
        return self.path.relative_to(root()).parts[0]

    def render_arguments(self, tmp: Path) -> list[str]:
        """``crossfn render``'s arguments for this Composition as shipped (no mode or output flags).

        The files the repository ships are passed as they are when they hold exactly the documents
        used; the rest (a derived XR, Functions less an annotation, the setup's resources) are written
        into ``tmp`` as render prints YAML. The XRD goes with ``--xrd`` (render then knows a legacy XR).
        """
        base = root() / self.repository
        xr_file = base / self.xr_from.partition(" ")[2] if self.xr_from.startswith("xr ") else None
        fns_file = (
            base / self.functions_from if self.functions_from and " " not in self.functions_from else None
        )
        args = [
            str(_written(tmp, "xr.yaml", [self.xr], xr_file)),
            str(_written(tmp, "composition.yaml", [self.composition], self.path)),
            str(_written(tmp, "functions.yaml", self.functions, fns_file)),
        ]
        for observed in self.observed:
            args += ["--observed-resources", str(observed)]
        if self.required:
            args += ["--required-resources", str(_written(tmp, "required.yaml", self.required))]
        if self.credentials:
            args += ["--function-credentials", str(_written(tmp, "credentials.yaml", self.credentials))]
        if self.xrd is not None:
            args += ["--xrd", str(self.xrd_file(tmp))]
        return args

    def xrd_file(self, tmp: Path) -> Path:
        """A file holding just the XR's XRD: the repository's own when it holds nothing else."""
        assert self.xrd is not None
        shipped = self.xrd_files.get((str(self.xr.get("apiVersion")), str(self.xr.get("kind"))))
        return _written(tmp, "xrd.yaml", [self.xrd], shipped)

    @property
    def workdir(self) -> Path:
        """Where to render from: the repository's root, as its READMEs run ``crossplane render``; the
        supplement's copy of it when there is one (it holds the files the corpus did not copy, such as a
        KCL program a Composition names by a path relative to that root)."""
        supplement = SUPPLEMENT / self.repository
        return supplement if supplement.is_dir() else root() / self.repository


def _written(tmp: Path, name: str, docs: Sequence[dict[str, Any]], shipped: Path | None = None) -> Path:
    """``shipped`` when it holds exactly ``docs``, else a file of ``docs`` in ``tmp`` as render prints YAML."""
    if shipped is not None and shipped.is_file() and documents(shipped) == tuple(docs):
        return shipped
    path = tmp / name
    path.write_text(output.yaml_stream(docs) if docs else "")
    return path


def _type_of(doc: Mapping[str, Any]) -> tuple[str, str]:
    return str(doc.get("apiVersion") or ""), str(doc.get("kind") or "")


def _variables(value: Any) -> bool:
    """Whether a document holds an ``envsubst`` variable anywhere."""
    if isinstance(value, str):
        return _VARIABLE.search(value) is not None
    if isinstance(value, Mapping):
        return any(_variables(k) or _variables(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_variables(v) for v in value)
    return False


def _filled(value: Any) -> Any:
    """A template with each ``$NAME`` and ``${NAME}`` replaced by ``name`` in lower case with dashes."""
    if isinstance(value, str):
        return _VARIABLE.sub(lambda m: (m[1] or m[2]).lower().replace("_", "-"), value)
    if isinstance(value, Mapping):
        return {_filled(k): _filled(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_filled(v) for v in value]
    return value


def _ancestors(path: Path, top: Path) -> list[Path]:
    out = [path.parent]
    while out[-1] != top and top in out[-1].parents:
        out.append(out[-1].parent)
    return out


@functools.cache
def _repository_dirs(base: Path) -> tuple[Path, ...]:
    """Every directory of the repository holding YAML, then those of its supplement (``supplement/README.md``)."""
    supplement = SUPPLEMENT / base.name
    return (
        *sorted({p.parent for p in base.rglob("*.y*ml")}),
        *sorted({p.parent for p in supplement.rglob("*.y*ml")}),
    )


def _rel(path: Path, base: Path) -> str:
    """A file's path in its repository (a supplement file's too)."""
    supplement = SUPPLEMENT / base.name
    return str(path.relative_to(supplement if supplement in path.parents else base))


def _nearest_first(dirs: list[Path], base: Path) -> list[Path]:
    """``dirs`` (each followed by a ``setup/`` beside it), then the repository's other directories, those
    sharing more of the first directory's path first (then in path order)."""
    near = [s for d in dirs for s in (d, d / "setup") if s == d or s.is_dir()]
    here = dirs[0].parts

    def shared(d: Path) -> int:
        return next((i for i, (a, b) in enumerate(zip(here, d.parts, strict=False)) if a != b), len(d.parts))

    rest = sorted((d for d in _repository_dirs(base) if d not in near), key=lambda d: (-shared(d), d))
    return [*near, *rest]


def _xrds(dirs: list[Path], base: Path) -> dict[tuple[str, str], tuple[Path, dict[str, Any]]]:
    """(apiVersion, kind) -> the XRD defining it (and its file), for each version it serves, nearest first."""
    out: dict[tuple[str, str], tuple[Path, dict[str, Any]]] = {}
    for d in _nearest_first(dirs, base):
        for f, doc in _docs_in(d):
            if doc.get("kind") == "CompositeResourceDefinition":
                spec = doc.get("spec") or {}
                kind = str((spec.get("names") or {}).get("kind"))
                for v in spec.get("versions") or ():
                    out.setdefault((f"{spec.get('group')}/{(v or {}).get('name')}", kind), (f, doc))
    return out


def _claim_kind(found: dict[str, Any] | None) -> str:
    claims = ((found or {}).get("spec") or {}).get("claimNames") or {}
    return str(claims.get("kind") or "")


def _xr_of_claim(claim: Mapping[str, Any], want: tuple[str, str]) -> dict[str, Any]:
    """The XR Crossplane's claim reconciler (v1) makes of ``claim``, as far as composing it goes."""
    meta = claim.get("metadata") or {}
    name = str(meta.get("name") or "")
    namespace = str(meta.get("namespace") or "default")
    labels = {**(meta.get("labels") or {}), _CLAIM_NAME: name, _CLAIM_NAMESPACE: namespace}
    xr: dict[str, Any] = {
        "apiVersion": want[0],
        "kind": want[1],
        "metadata": {"name": name, "labels": labels},
    }
    spec = claim.get("spec")
    manual = isinstance(spec, Mapping) and spec.get("compositionUpdatePolicy") == "Manual"
    dropped = [k for k in _CLAIM_ONLY if not (manual and k == "compositionRevisionRef")]
    body = (
        {k: copy.deepcopy(v) for k, v in spec.items() if k not in dropped}
        if isinstance(spec, Mapping)
        else {}
    )
    body["claimRef"] = {
        "apiVersion": str(claim.get("apiVersion") or ""),
        "kind": str(claim.get("kind") or ""),
        "name": name,
        "namespace": namespace,
    }
    xr["spec"] = body
    return xr


def _candidates(
    want: tuple[str, str], claim_kind: str, dirs: list[Path], base: Path, *, templates: bool
) -> Iterator[tuple[dict[str, Any], str, bool]]:
    """Each example XR or claim of the Composition's type, nearest first: (XR, where from, whether near).

    Near is in the Composition's own directories (:func:`_ancestors`, each with a ``setup/``).
    """
    group = want[0].rpartition("/")[0]
    label = " template" if templates else ""
    near = set(_nearest_first(dirs, base)[: len(dirs) * 2])
    for d in _nearest_first(dirs, base):
        found = [(f, doc) for f, doc in _docs_in(d) if _variables(doc) == templates]
        for f, doc in found:
            if _type_of(doc) == want:
                yield (_filled(doc) if templates else doc), f"xr{label} {_rel(f, base)}", d in near
        for f, doc in found:
            api, kind = _type_of(doc)
            if claim_kind and kind == claim_kind and api.rpartition("/")[0] == group:
                claim = _filled(doc) if templates else doc
                yield _xr_of_claim(claim, want), f"claim{label} {_rel(f, base)}", d in near


def _fits(xr: Mapping[str, Any], found: Mapping[str, Any] | None) -> bool:
    """Whether the API server would take ``xr`` under ``found``'s schema: no problem but unknown
    fields (which it drops)."""
    if found is None:
        return True
    try:
        schema = xrd.version_schema(xrd.crd_from_xrd(found), str(xr.get("apiVersion") or ""))
    except errors.CrossfnError:
        return False
    problems = validate.validate_object(xr, schema)
    return all(
        p.type is validate.ErrorType.INVALID and str(p.detail).startswith("unknown field") for p in problems
    )


def _placeholder(name: str, schema: Mapping[str, Any]) -> Any:
    if "default" in schema:
        return copy.deepcopy(schema["default"])
    if schema.get("enum"):
        return copy.deepcopy(schema["enum"][0])
    kind = schema.get("type")
    if kind == "object":
        value: dict[str, Any] = {}
        _fill_required(value, schema)
        return value
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        return schema.get("minimum", 1)
    if kind == "boolean":
        return False
    return name


def _fill_required(obj: dict[str, Any], schema: Mapping[str, Any]) -> None:
    props = schema.get("properties") or {}
    for name in schema.get("required") or ():
        if name not in obj and name in props:
            obj[name] = _placeholder(name, props[name])
    for name, value in obj.items():
        if isinstance(value, dict) and name in props:
            _fill_required(value, props[name])


def _as_stored(xr: dict[str, Any], found: Mapping[str, Any] | None) -> dict[str, Any]:
    """The XR as the API server would store it: required ``spec`` fields filled in, defaults applied."""
    if found is None:
        return xr
    try:
        schema = xrd.version_schema(xrd.crd_from_xrd(found), str(xr.get("apiVersion") or ""))
    except errors.CrossfnError:
        return xr
    out = copy.deepcopy(xr)
    spec_schema = (schema.get("properties") or {}).get("spec") or {}
    if isinstance(out.get("spec"), dict) or "spec" not in out:
        out.setdefault("spec", {})
        _fill_required(out["spec"], spec_schema)
    defaults.apply_defaults(out, schema)
    return out


def _xr_for(
    comp: Mapping[str, Any], dirs: list[Path], base: Path, found: dict[str, Any] | None
) -> tuple[dict[str, Any], str]:
    ref = (comp.get("spec") or {}).get("compositeTypeRef") or {}
    want = (str(ref.get("apiVersion") or ""), str(ref.get("kind") or ""))
    claim_kind = _claim_kind(found)
    made: tuple[dict[str, Any], str] | None = None
    for templates in (False, True):
        for candidate, where, near in _candidates(want, claim_kind, dirs, base, templates=templates):
            stored = candidate if where.startswith("xr ") else _as_stored(candidate, found)
            if near or _fits(stored, found):
                made = (candidate, where)
                break
        if made is not None:
            break
    if made is not None and made[1].startswith("xr "):
        return made
    if made is None:
        bare = {"apiVersion": want[0], "kind": want[1], "metadata": {"name": "example"}, "spec": {}}
        made = (bare, "compositeTypeRef")
    xr = _as_stored(made[0], found)
    meta = xr.setdefault("metadata", {})
    uid = meta.setdefault(
        "uid", str(uuid.uuid5(uuid.NAMESPACE_URL, f"{want[0]}/{want[1]}/{meta.get('name', '')}"))
    )
    namespace = (comp.get("spec") or {}).get("writeConnectionSecretsToNamespace")
    if namespace and isinstance(xr.get("spec"), dict) and "writeConnectionSecretToRef" not in xr["spec"]:
        xr["spec"]["writeConnectionSecretToRef"] = {"name": uid, "namespace": namespace}
    return xr, made[1]


def _without_development(fn: Mapping[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(dict(fn))
    annotations = (out.get("metadata") or {}).get("annotations")
    if isinstance(annotations, dict) and annotations.get(_RUNTIME) == "Development":
        del annotations[_RUNTIME]
    return out


def _dependencies(base: Path) -> tuple[list[dict[str, Any]], str]:
    """The Functions a Configuration package of the repository depends on, as its package manager installs them."""
    for f in sorted(base.rglob("crossplane.yaml")):
        for doc in documents(f):
            if _type_of(doc) != ("meta.pkg.crossplane.io/v1", "Configuration"):
                continue
            fns = []
            for dep in (doc.get("spec") or {}).get("dependsOn") or ():
                package = str((dep or {}).get("function") or "")
                if package:
                    org, _, repo = package.partition("/")[2].partition("/")
                    fns.append(
                        {
                            "apiVersion": "pkg.crossplane.io/v1",
                            "kind": "Function",
                            "metadata": {"name": f"{org}-{repo}"},
                            "spec": {"package": f"{package}:latest"},
                        }
                    )
            return fns, f"dependsOn {_rel(f, base)}"
    return [], ""


def _functions_for(comp: Mapping[str, Any], dirs: list[Path], base: Path) -> tuple[list[dict[str, Any]], str]:
    spec = comp.get("spec") or {}
    pipeline = spec.get("pipeline")
    steps: list[Any] = pipeline if isinstance(pipeline, list) else []
    wanted = {str((s.get("functionRef") or {}).get("name") or "") for s in steps if isinstance(s, Mapping)}
    if not wanted:
        return [], ""
    for d in dirs:
        fns = [(f, doc) for f, doc in _docs_in(d) if doc.get("kind") == "Function"]
        if not fns and (d / "setup").is_dir():
            fns = [(f, doc) for f, doc in _docs_in(d / "setup") if doc.get("kind") == "Function"]
        if fns:
            named = [(f, doc) for f, doc in fns if (doc.get("metadata") or {}).get("name") in wanted]
            found = {(doc.get("metadata") or {}).get("name") for _, doc in named}
            chosen = named if found == wanted else fns
            files = sorted({_rel(f, base) for f, _ in chosen})
            return [_without_development(doc) for _, doc in chosen], " ".join(files)
    return _dependencies(base)


def _setup_dirs(path: Path) -> list[Path]:
    here = path.parent
    if here.name == "setup":
        return [here]
    return [here, here / "setup"] if (here / "setup").is_dir() else [here]


def _observed_for(path: Path) -> tuple[Path, ...]:
    stem = path.stem
    if not stem.startswith("composition"):
        return ()
    want = stem.removeprefix("composition")
    best: Path | None = None
    for f in _yaml_files(path.parent):
        if not f.stem.startswith("observed"):
            continue
        have = f.stem.removeprefix("observed")
        if (have == want or (have and want.endswith(have))) and (
            best is None or len(have) > len(best.stem.removeprefix("observed"))
        ):
            best = f
    return (best,) if best is not None else ()


def _selects_environment(comp: Mapping[str, Any], fns: list[dict[str, Any]]) -> bool:
    spec = comp.get("spec") or {}
    if spec.get("environment"):
        return True
    env_fns = {
        (f.get("metadata") or {}).get("name")
        for f in fns
        if _ENVIRONMENT_CONFIGS in str((f.get("spec") or {}).get("package") or "")
    }
    pipeline = spec.get("pipeline")
    steps: list[Any] = pipeline if isinstance(pipeline, list) else []
    return any(((s or {}).get("functionRef") or {}).get("name") in env_fns for s in steps)


def _resources_for(
    path: Path, comp: Mapping[str, Any], xr_types: set[tuple[str, str]], fns: list[dict[str, Any]], base: Path
) -> tuple[tuple[dict[str, Any], ...], tuple[dict[str, Any], ...]]:
    required: list[dict[str, Any]] = []
    credentials: list[dict[str, Any]] = []
    for d in _setup_dirs(path):
        for f, doc in _docs_in(d):
            api, kind = _type_of(doc)
            if f.stem.startswith("observed") or api.startswith(_PACKAGE_GROUPS):
                continue
            if kind == "Secret" and api == "v1":
                credentials.append(doc)
            elif kind not in _NOT_RESOURCES and (api.rpartition("/")[0], kind) not in xr_types:
                required.append(_filled(doc) if _variables(doc) else doc)
    if _selects_environment(comp, fns) and not any(d.get("kind") == "EnvironmentConfig" for d in required):
        for d in _repository_dirs(base):
            for _, doc in _docs_in(d):
                if doc.get("kind") == "EnvironmentConfig":
                    required.append(_filled(doc) if _variables(doc) else doc)
    return tuple(_served(required)), tuple(credentials)


def _served(resources: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The resources as the API server serves them: an EnvironmentConfig at each version Crossplane's CRD serves."""
    out: list[dict[str, Any]] = []
    for r in resources:
        out.append(r)
        api = r.get("apiVersion")
        if r.get("kind") == "EnvironmentConfig" and api in _ENVIRONMENT_CONFIG_APIS:
            other = next(a for a in _ENVIRONMENT_CONFIG_APIS if a != api)
            if not any(
                _type_of(o) == (other, "EnvironmentConfig") and _named(o) == _named(r) for o in resources
            ):
                out.append({**r, "apiVersion": other})
    return out


def _named(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("name") or "")


def examples(*subdirs: str) -> list[Example]:
    """Every Composition under the corpus's ``subdirs`` (each a repository's directory), in path order."""
    top = _find_root()
    if top is None:
        return []
    out: list[Example] = []
    for sub in subdirs:
        base = top / sub
        for f in sorted(base.rglob("*.y*ml")):
            for doc in documents(f):
                if doc.get("kind") != "Composition":
                    continue
                dirs = _ancestors(f, base)
                ref = (doc.get("spec") or {}).get("compositeTypeRef") or {}
                want = (str(ref.get("apiVersion") or ""), str(ref.get("kind") or ""))
                xrds = _xrds(dirs, base)
                found = xrds[want][1] if want in xrds else None
                xr, xr_from = _xr_for(doc, dirs, base, found)
                fns, fns_from = _functions_for(doc, dirs, base)
                group = want[0].rpartition("/")[0]
                xr_types = {(group, want[1]), (group, _claim_kind(found))}
                required, credentials = _resources_for(f, doc, xr_types, fns, base)
                out.append(
                    Example(
                        path=f,
                        composition=doc,
                        xr=xr,
                        functions=fns,
                        xr_from=xr_from,
                        functions_from=fns_from,
                        xrd=found,
                        observed=_observed_for(f),
                        required=required,
                        credentials=credentials,
                        xrd_files={k: f for k, (f, _) in xrds.items()},
                    )
                )
    return out
