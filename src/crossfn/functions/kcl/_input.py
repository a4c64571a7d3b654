"""function-kcl's step input (``KCLInput``, apiVersion ``krm.kcl.dev/v1alpha1``), decoded and validated as upstream does.

Upstream decodes the input with unknown members rejected (function-sdk-go's
``request.GetInput``) and then validates it (``KCLInput.Validate``); both
texts reach users as a Fatal result, so they are reproduced here. The decode
detail after ``cannot unmarshal JSON ...:`` follows Go's JSON v2 messages in
form (the member or the JSON pointer and the Go type), not always word for word.

Sources (krm-kcl's classification, in its order): ``oci://...``, a local
path (absolute or starting with ``.``), ``http(s)://...``, ``git::...`` and
``github.com/``, ``gitlab.com/``, ``bitbucket.org/`` addresses; anything else
is inline KCL code.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from typing import Any

from crossfn import errors

__all__ = ["Config", "Input", "Resource", "decode", "source_kind"]

TARGETS = ("Default", "PatchDesired", "PatchResources", "Resources", "XR")

_DECODE = (
    "cannot get Function input from *v1.RunFunctionRequest: cannot get function input *v1alpha1.KCLInput "
    "from *v1.RunFunctionRequest: cannot unmarshal JSON from *structpb.Struct into *v1alpha1.KCLInput: "
)


@dataclasses.dataclass(frozen=True)
class Config:
    """``spec.config``: how kcl runs the program (kcl run's flags)."""

    arguments: tuple[str, ...] = ()
    settings: tuple[str, ...] = ()
    overrides: tuple[str, ...] = ()
    path_selectors: tuple[str, ...] = ()
    vendor: bool = False
    sort_keys: bool = False
    show_hidden: bool = False
    disable_none: bool = False
    debug: bool = False
    strict_range_check: bool = False


@dataclasses.dataclass(frozen=True)
class Resource:
    """An entry of ``spec.resources`` (the PatchResources target's bases)."""

    name: str
    base: dict[str, Any] | None


@dataclasses.dataclass(frozen=True)
class Input:
    """A decoded ``KCLInput``; ``raw`` is the input as given, for ``option("resource_list").functionConfig``."""

    name: str
    source: str
    target: str
    params: dict[str, Any]
    resources: tuple[Resource, ...]
    dependencies: str
    config: Config
    raw: dict[str, Any]


# The Go types of KCLInput's fields, for decoding: a nested dict is a struct; "str", "bool", "[]str",
# "map" (RawExtension values), "any" and "resources" are leaves.
_CONFIG = {
    "arguments": "[]str", "settings": "[]str", "overrides": "[]str", "pathSelectors": "[]str",
    "vendor": "bool", "sortKeys": "bool", "showHidden": "bool", "disableNone": "bool", "debug": "bool",
    "strictRangeCheck": "bool",
}  # fmt: skip
_SPEC = {
    "source": "str", "config": _CONFIG, "credentials": {"url": "str", "username": "str", "password": "str"},
    "dependencies": "str", "params": "map", "resources": "resources", "target": "str",
}  # fmt: skip
_META = {
    k: "any"
    for k in (
        "name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
        "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations",
        "ownerReferences", "finalizers", "managedFields",
    )
}  # fmt: skip
_INPUT = {"apiVersion": "str", "kind": "str", "metadata": _META, "spec": _SPEC}
_GO_TYPES = {id(_INPUT): "v1alpha1.KCLInput", id(_SPEC): "v1alpha1.RunSpec", id(_CONFIG): "v1alpha1.ConfigSpec",
             id(_SPEC["credentials"]): "v1alpha1.CredSpec", id(_META): "v1.ObjectMeta"}  # fmt: skip


def _json_kind(v: object) -> str:
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int | float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def _check(value: object, schema: object, pointer: str) -> None:
    """Raise the decode error for the first member of ``value`` that ``schema`` does not accept."""
    if value is None or schema == "any":
        return
    if isinstance(schema, dict):
        if not isinstance(value, dict):
            raise _decode_error(
                f"cannot unmarshal JSON {_json_kind(value)} into Go {_GO_TYPES[id(schema)]}", pointer
            )
        for key, member in value.items():
            if key not in schema:
                raise errors.FunctionInputError(
                    f"{_DECODE}json: cannot unmarshal into Go {_GO_TYPES[id(schema)]}: unknown object member name "
                    f"{json.dumps(key)}" + (f" within {json.dumps(pointer)}" if pointer else "")
                )
            _check(member, schema[key], f"{pointer}/{key}")
        return
    want = {"str": str, "bool": bool, "[]str": list, "map": dict, "resources": list}[str(schema)]
    if not isinstance(value, want) or (want is not bool and isinstance(value, bool)):
        go = {"str": "string", "bool": "bool", "[]str": "[]string", "map": "map[string]runtime.RawExtension",
              "resources": "v1alpha1.ResourceList"}[str(schema)]  # fmt: skip
        raise _decode_error(f"cannot unmarshal JSON {_json_kind(value)} into Go {go}", pointer)
    if schema == "[]str" and isinstance(value, list):
        for i, item in enumerate(value):
            _check(item, "str", f"{pointer}/{i}")
    if schema == "resources" and isinstance(value, list):
        for i, item in enumerate(value):
            if not isinstance(item, dict):
                raise _decode_error(
                    f"cannot unmarshal JSON {_json_kind(item)} into Go v1alpha1.Resource", f"{pointer}/{i}"
                )
            for key in item:
                if key not in ("name", "base"):
                    raise errors.FunctionInputError(
                        f"{_DECODE}json: cannot unmarshal into Go v1alpha1.Resource: unknown object member name "
                        f"{json.dumps(key)} within {json.dumps(f'{pointer}/{i}')}"
                    )
            _check(item.get("name"), "str", f"{pointer}/{i}/name")
            base: object = item.get("base")
            if base is not None and not isinstance(base, dict):
                raise _decode_error(f"cannot unmarshal JSON {_json_kind(base)} into Go map[string]interface {{}}",
                                    f"{pointer}/{i}/base")  # fmt: skip


def _decode_error(what: str, pointer: str) -> errors.FunctionInputError:
    where = f" within {json.dumps(pointer)}" if pointer else ""
    return errors.FunctionInputError(f"{_DECODE}json: {what}{where}")


def _strings(value: object) -> tuple[str, ...]:
    return tuple(value) if isinstance(value, list) else ()


def decode(raw: Mapping[str, Any] | None, *, default_source: str = "") -> Input:
    """Decode and validate a step input as function-kcl does; no input decodes as an empty one.

    ``default_source`` stands in for an empty ``spec.source`` (upstream's
    ``FUNCTION_KCL_DEFAULT_SOURCE``). Raises :class:`crossfn.errors.FunctionInputError`
    with upstream's texts.
    """
    doc: dict[str, Any] = dict(raw or {})
    _check(doc, _INPUT, "")
    spec: Mapping[str, Any] = doc.get("spec") or {}
    meta: Mapping[str, Any] = doc.get("metadata") or {}
    config: Mapping[str, Any] = spec.get("config") or {}
    source = spec.get("source") or default_source
    target = spec.get("target") or "Default"
    resources = tuple(
        Resource(name=r.get("name") or "", base=r.get("base")) for r in spec.get("resources") or ()
    )
    _validate(source, target, resources)
    if target not in TARGETS:
        target = "Default"
    return Input(
        name=str(meta.get("name") or ""),
        source=source,
        target=target,
        params=dict(spec.get("params") or {}),
        resources=resources,
        dependencies=spec.get("dependencies") or "",
        config=Config(
            arguments=_strings(config.get("arguments")),
            settings=_strings(config.get("settings")),
            overrides=_strings(config.get("overrides")),
            path_selectors=_strings(config.get("pathSelectors")),
            vendor=bool(config.get("vendor")),
            sort_keys=bool(config.get("sortKeys")),
            show_hidden=bool(config.get("showHidden")),
            disable_none=bool(config.get("disableNone")),
            debug=bool(config.get("debug")),
            strict_range_check=bool(config.get("strictRangeCheck")),
        ),
        raw=doc,
    )


def _validate(source: str, target: str, resources: Sequence[Resource]) -> None:
    """``KCLInput.Validate``: its texts, as ``field.Required`` prints them."""
    prefix = "invalid function input: "
    if not source:
        raise errors.FunctionInputError(f"{prefix}spec.source: Required value: kcl source cannot be empty")
    if target != "PatchResources":
        return
    if not resources:
        raise errors.FunctionInputError(
            f"{prefix}spec.Resources: Required value: PatchResources target requires at least one resource"
        )
    for i, r in enumerate(resources):
        if not r.name:
            raise errors.FunctionInputError(
                f"{prefix}spec.Resources[{i}].name: Required value: name cannot be empty"
            )
        if r.base is None:
            raise errors.FunctionInputError(
                f"{prefix}spec.Resources[{i}].base: Required value: base cannot be empty"
            )


def source_kind(source: str) -> str:
    """``oci``, ``local``, ``url``, ``git`` or ``inline``, as krm-kcl classifies a source."""
    if source.startswith("oci://"):
        return "oci"
    if source.startswith(("/", ".")):
        return "local"
    if source.startswith(("http://", "https://")):
        return "url"
    if source.startswith(("git::", "github.com", "gitlab.com/", "bitbucket.org/")):
        return "git"
    return "inline"
