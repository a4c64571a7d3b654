"""Reading ``CompositionTest`` files: discovery, YAML, and the checks of every field.

A PATH on the command line is a file or a directory. A directory means every
``*.yaml``/``*.yml`` file under it, recursively, in sorted order; documents
whose kind is not ``CompositionTest`` are skipped silently, and so is a file
that does not parse unless it mentions ``CompositionTest`` (a broken test file
must not pass unnoticed). A file named explicitly must parse and hold at
least one ``CompositionTest``.

YAML is read as Kubernetes reads it (through JSON): timestamps stay strings,
whole floats become integers, so ``1.33`` and ``"1.33"`` stay different.
Every problem is an :class:`~crossfn.errors.InputError` naming the file and
the field (``tests/x.yaml: spec.tests[0].inputs.xr: ...``). Neighbours:
``_model`` (what this produces), ``_run`` (what consumes it).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from crossfn import errors, render
from crossfn.comptest import _model
from crossfn.gocompat import yaml_loader

__all__ = ["API_VERSION", "KIND", "KINDS", "OPERATION_KIND", "load"]

API_VERSION = "test.crossplane.io/v1alpha1"
KIND = "CompositionTest"
OPERATION_KIND = "OperationTest"
KINDS = (KIND, OPERATION_KIND)
_NAMES = " or ".join(KINDS)
_DEFAULT_TIMEOUT = 30

_TEST_FIELDS = {"name", "id", "patches", "inputs", "assertions"}
_PATCH_FIELDS = {"xrd", "addFields", "removeFields"}
_INPUT_FIELDS = {
    "xr", "composition", "functions", "observedResources", "extraResources",
    "functionCredentialsPath", "context", "timeoutSeconds", "validate",
}  # fmt: skip
_OPERATION_TEST_FIELDS = {"name", "id", "inputs", "assertions"}
_OPERATION_INPUT_FIELDS = {
    "operation", "functions", "requiredResources", "watchedResource",
    "functionCredentialsPath", "context", "timeoutSeconds",
}  # fmt: skip
_EXPRESSION_KEY = re.compile(r"^(?:~[\w-]*\.)?\(.*\)$", re.DOTALL)


def _files(path: Path) -> Iterator[tuple[Path, bool]]:
    """The files ``path`` names, each with whether the user named it explicitly."""
    if path.is_dir():
        for p in sorted(path.rglob("*")):
            if p.is_file() and p.suffix in (".yaml", ".yml"):
                yield p, False
        return
    if not path.exists():
        raise errors.InputError(f"cannot read {path}: no such file or directory")
    yield path, True


def _mentions_tests(file: Path) -> bool:
    """Whether a file that does not parse looks like a test file (one that cannot be read is reported too)."""
    try:
        text = yaml_loader.read_file(file)
    except errors.InputError:
        return True
    return any(kind in text for kind in KINDS)


def _is_test(doc: Any) -> bool:
    return isinstance(doc, Mapping) and doc.get("kind") in KINDS


def load(paths: list[Path]) -> list[_model.AnyCase]:
    """Every test case in ``paths``, in file and document order; the first problem raises InputError."""
    cases: list[_model.AnyCase] = []
    for root in paths:
        found = 0
        for file, explicit in _files(root):
            try:
                docs = render.load_documents(file)
            except errors.InputError:
                if not explicit and not _mentions_tests(file):
                    continue
                raise
            tests = [(i, d) for i, d in enumerate(docs) if _is_test(d)]
            if explicit and not tests:
                raise errors.InputError(f"{file}: no {_NAMES} documents")
            for i, doc in tests:
                where = f"{file}: document {i + 1}" if len(docs) > 1 else str(file)
                cases.extend(_suite(file, where, doc))
            found += len(tests)
        if not found:
            raise errors.InputError(f"no {_NAMES} found in {root}")
    return cases


def _suite(file: Path, where: str, doc: Mapping[str, Any]) -> list[_model.AnyCase]:
    """The cases of one CompositionTest or OperationTest document."""
    if doc.get("apiVersion") != API_VERSION:
        raise errors.InputError(
            f"{where}: apiVersion: unsupported {errors.quote(str(doc.get('apiVersion', '')))} (want {API_VERSION})"
        )
    meta = doc.get("metadata")
    name = meta.get("name") if isinstance(meta, Mapping) else None
    suite = str(name) if name else file.stem
    tests = _object(doc.get("spec"), where, "spec").get("tests")
    if not isinstance(tests, list) or not tests:
        raise errors.InputError(f"{where}: spec.tests: must be a non-empty list")
    parse = _case if doc.get("kind") == KIND else _operation_case
    cases: list[_model.AnyCase] = [parse(file, where, suite, i, t) for i, t in enumerate(tests)]
    seen: dict[str, int] = {}
    for case in cases:
        if case.id is not None and seen.setdefault(case.id, case.index) != case.index:
            raise errors.InputError(f"{where}: {case.field}.id: duplicate id {errors.quote(case.id)}")
    return cases


def _object(value: Any, where: str, field: str, allowed: set[str] | None = None) -> Mapping[str, Any]:
    """``value`` as an object, with no keys outside ``allowed`` (typos fail rather than being ignored)."""
    if value is None:
        value = {}
    if not isinstance(value, Mapping):
        raise errors.InputError(f"{where}: {field}: must be an object")
    for key in value:
        if allowed is not None and key not in allowed:
            raise errors.InputError(f"{where}: {field}: unknown field {errors.quote(key)}")
    return value


def _case(file: Path, where: str, suite: str, index: int, raw: Any) -> _model.Case:
    """One ``spec.tests[index]`` entry, checked field by field."""
    field = f"spec.tests[{index}]"
    test = _object(raw, where, field, _TEST_FIELDS)
    name, test_id = _identity(test, where, field)
    base = file.parent
    ins = _object(test.get("inputs"), where, f"{field}.inputs", _INPUT_FIELDS)
    patches = _object(test.get("patches"), where, f"{field}.patches", _PATCH_FIELDS)
    at = f"{field}.inputs"

    def required(key: str, many: bool) -> _model.Source:
        if key not in ins:
            raise errors.InputError(f"{where}: {at}.{key}: required")
        return _source(ins[key], where, f"{at}.{key}", base, many=many)

    def optional(obj: Mapping[str, Any], key: str, prefix: str, many: bool) -> _model.Source | None:
        if obj.get(key) is None:
            return None
        return _source(obj[key], where, f"{prefix}.{key}", base, many=many)

    return _model.Case(
        file=file,
        where=where,
        suite=suite,
        index=index,
        name=name,
        id=test_id,
        xr=required("xr", many=False),
        composition=required("composition", many=False),
        functions=required("functions", many=True),
        observed=optional(ins, "observedResources", at, many=True),
        extra=optional(ins, "extraResources", at, many=True),
        xrd=optional(patches, "xrd", f"{field}.patches", many=False),
        credentials=_credentials_path(ins, base, where, at),
        context=dict(_object(ins.get("context"), where, f"{at}.context")),
        timeout=_timeout(ins.get("timeoutSeconds", _DEFAULT_TIMEOUT), where, f"{at}.timeoutSeconds"),
        validate=_flag(ins.get("validate", False), where, f"{at}.validate"),
        add_fields=dict(_object(patches.get("addFields"), where, f"{field}.patches.addFields")),
        remove_fields=_strings(patches.get("removeFields"), where, f"{field}.patches.removeFields"),
        expected=_assertions(test.get("assertions"), where, f"{field}.assertions"),
    )


def _operation_case(file: Path, where: str, suite: str, index: int, raw: Any) -> _model.OperationCase:
    """One ``spec.tests[index]`` entry of an OperationTest, checked field by field."""
    field = f"spec.tests[{index}]"
    test = _object(raw, where, field, _OPERATION_TEST_FIELDS)
    name, test_id = _identity(test, where, field)
    ins = _object(test.get("inputs"), where, f"{field}.inputs", _OPERATION_INPUT_FIELDS)
    at = f"{field}.inputs"
    base = file.parent

    def required(key: str, many: bool) -> _model.Source:
        if ins.get(key) is None:
            raise errors.InputError(f"{where}: {at}.{key}: required")
        return _source(ins[key], where, f"{at}.{key}", base, many=many)

    def optional(key: str, many: bool) -> _model.Source | None:
        return None if ins.get(key) is None else _source(ins[key], where, f"{at}.{key}", base, many=many)

    return _model.OperationCase(
        file=file,
        where=where,
        suite=suite,
        index=index,
        name=name,
        id=test_id,
        operation=required("operation", many=False),
        functions=required("functions", many=True),
        required=optional("requiredResources", many=True),
        watched=optional("watchedResource", many=False),
        credentials=_credentials_path(ins, base, where, at),
        context=dict(_object(ins.get("context"), where, f"{at}.context")),
        timeout=_timeout(ins.get("timeoutSeconds", _DEFAULT_TIMEOUT), where, f"{at}.timeoutSeconds"),
        expected=_assertions(test.get("assertions"), where, f"{field}.assertions"),
    )


def _identity(test: Mapping[str, Any], where: str, field: str) -> tuple[str, str | None]:
    """A test's ``name`` (required) and ``id``."""
    name = test.get("name")
    if not isinstance(name, str) or not name:
        raise errors.InputError(f"{where}: {field}.name: required")
    test_id = test.get("id")
    if test_id is not None and not isinstance(test_id, str):
        raise errors.InputError(f"{where}: {field}.id: must be a string")
    return name, test_id


def _credentials_path(ins: Mapping[str, Any], base: Path, where: str, at: str) -> Path | None:
    creds = ins.get("functionCredentialsPath")
    if creds is not None and not isinstance(creds, str):
        raise errors.InputError(f"{where}: {at}.functionCredentialsPath: must be a string")
    return base / creds if creds else None


def _source(value: Any, where: str, field: str, base: Path, *, many: bool) -> _model.Source:
    """A ``Resource`` (``many=False``) or ``Resources``: exactly one of ``path`` and ``raw``."""
    obj = _object(value, where, field, {"path", "raw"})
    if ("path" in obj) == ("raw" in obj):
        raise errors.InputError(f"{where}: {field}: exactly one of path and raw is required")
    if "path" in obj:
        path = obj["path"]
        if not isinstance(path, str) or not path:
            raise errors.InputError(f"{where}: {field}.path: must be a non-empty string")
        return _model.Source(field=field, path=base / path)
    raw = obj["raw"]
    if many:
        if not isinstance(raw, list) or not all(isinstance(r, Mapping) for r in raw):
            raise errors.InputError(f"{where}: {field}.raw: must be a list of objects")
    elif not isinstance(raw, Mapping):
        raise errors.InputError(f"{where}: {field}.raw: must be an object")
    return _model.Source(field=field, raw=raw)


def _timeout(value: Any, where: str, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise errors.InputError(f"{where}: {field}: must be a whole number of seconds, at least 1")
    return float(value)


def _flag(value: Any, where: str, field: str) -> bool:
    if not isinstance(value, bool):
        raise errors.InputError(f"{where}: {field}: must be true or false")
    return value


def _strings(value: Any, where: str, field: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise errors.InputError(f"{where}: {field}: must be a list of field paths")
    return tuple(value)


def _assertions(value: Any, where: str, field: str) -> tuple[_model.Expected, ...]:
    """The expected objects of every ``chainsaw`` assertion, in order."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise errors.InputError(f"{where}: {field}: must be a list")
    out: list[_model.Expected] = []
    for i, item in enumerate(value):
        at = f"{field}[{i}]"
        assertion = _object(item, where, at, {"type", "chainsaw"})
        if assertion.get("type") != "chainsaw":
            kind = errors.quote(str(assertion.get("type", "")))
            raise errors.InputError(
                f'{where}: {at}.type: unsupported assertion type {kind} (want "chainsaw")'
            )
        chainsaw = _object(assertion.get("chainsaw"), where, f"{at}.chainsaw", {"resources"})
        resources = chainsaw.get("resources")
        if not isinstance(resources, list) or not resources:
            raise errors.InputError(f"{where}: {at}.chainsaw.resources: must be a non-empty list")
        for j, resource in enumerate(resources):
            rat = f"{at}.chainsaw.resources[{j}]"
            if not isinstance(resource, Mapping):
                raise errors.InputError(f"{where}: {rat}: must be an object")
            _reject_expressions(resource, where, rat)
            out.append(_model.Expected(field=rat, resource=dict(resource)))
    return tuple(out)


def _reject_expressions(value: Any, where: str, field: str) -> None:
    """Chainsaw's JMESPath keys (``(expr)``, ``~.(expr)``) and values (``($binding)``) are not supported.

    Refusing them says so at once; treating them as plain text would only
    fail later, with a baffling diff.
    """
    if isinstance(value, str) and value.startswith("(") and value.endswith(")"):
        raise errors.InputError(
            f"{where}: {field}: value {errors.quote(value)}: JMESPath expressions are not supported (use plain values)"
        )
    if isinstance(value, list):
        for i, item in enumerate(value):
            _reject_expressions(item, where, f"{field}[{i}]")
    if not isinstance(value, Mapping):
        return
    for key, item in value.items():
        if _EXPRESSION_KEY.match(key):
            raise errors.InputError(
                f"{where}: {field}: key {errors.quote(key)}: JMESPath expressions are not supported (use plain values)"
            )
        _reject_expressions(item, where, f"{field}.{key}")
