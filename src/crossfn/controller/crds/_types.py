"""How crossfn declares an API type, and how a declaration becomes a CRD's OpenAPI v3 schema.

Crossplane writes its API types as Go structs with kubebuilder markers and
generates its CRDs from them with controller-gen. crossfn declares the same
types as Python classes and generates its CRDs from them with
:func:`schema_of` (``scripts/generate_crds.py`` writes the files in ``crds/``),
so each kind's schema has one home, a type shared by several kinds (a
condition, a pipeline step) is written once, and the CRD files are never
edited by hand.

A type is a :class:`Struct` subclass whose class attributes are fields, in
the order they read best; each is a :class:`Field` (``String``, ``Integer``,
``Array``, ``Obj``, ...) carrying what the markers carry: ``required``,
``default``, ``enum``, CEL ``validations`` (``x-kubernetes-validations``),
list and map types. Options of the type itself (validations on the object,
``x-kubernetes-map-type``) are class keywords::

    class TypeReference(Struct):
        apiVersion = String(required=True)
        kind = String(required=True)

    class CompositionSpec(Struct, validations=[Rule("self.mode == 'Pipeline' && has(self.pipeline)", "...")]):
        compositeTypeRef = Obj(TypeReference, required=True, validations=[IMMUTABLE])

A field whose name is a Python keyword ends with ``_`` (``from_`` is
``from``). The schema follows controller-gen's conventions, so it compares
equal to Crossplane's: properties and ``required`` sorted, no descriptions
(Crossplane's field documentation is its prose, not ours; ``kubectl explain``
shows the types). Kubernetes' own types (a Deployment's spec) are not
redeclared: :class:`K8s` names one, and :func:`schema_of` takes it from the
Kubernetes definitions it is given (:mod:`._k8s`).
"""

from __future__ import annotations

import abc
import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

__all__ = [
    "IMMUTABLE",
    "Array",
    "Boolean",
    "Embedded",
    "Field",
    "Integer",
    "K8s",
    "K8sResolver",
    "Map",
    "Number",
    "Obj",
    "Rule",
    "String",
    "Struct",
    "Unstructured",
    "schema_of",
    "sort_schema",
]

Schema = dict[str, Any]
K8sResolver = Callable[[str], Schema]
"""Turns a Kubernetes definition name (``io.k8s.api.apps.v1.DeploymentSpec``) into its CRD schema."""


@dataclasses.dataclass(frozen=True)
class Rule:
    """One CEL rule of ``x-kubernetes-validations`` (a ``+kubebuilder:validation:XValidation`` marker)."""

    rule: str
    message: str = ""
    message_expression: str = ""
    reason: str = ""
    field_path: str = ""

    def to_dict(self) -> Schema:
        out: Schema = {"rule": self.rule}
        for key, value in (
            ("message", self.message),
            ("messageExpression", self.message_expression),
            ("reason", self.reason),
            ("fieldPath", self.field_path),
        ):
            if value:
                out[key] = value
        return out


IMMUTABLE = Rule("self == oldSelf", "Value is immutable")
"""Crossplane's rule for a field that never changes once set."""

_MISSING: Any = object()


class Field(abc.ABC):
    """A field of a :class:`Struct`: its type's schema and the markers on the field."""

    def __init__(
        self,
        *,
        required: bool = False,
        default: Any = _MISSING,
        enum: Sequence[Any] | None = None,
        validations: Sequence[Rule] = (),
        nullable: bool = False,
        **extra: Any,
    ) -> None:
        """``extra`` are schema keywords in Python spelling (``min_items=1`` is ``minItems: 1``)."""
        self.required = required
        self.default = default
        self.enum = list(enum) if enum is not None else None
        self.validations = list(validations)
        self.nullable = nullable
        self.extra = {_camel(k): v for k, v in extra.items()}

    @abc.abstractmethod
    def base(self, k8s: K8sResolver) -> Schema:
        """The schema of the field's type, before the field's own markers."""

    def schema(self, k8s: K8sResolver) -> Schema:
        out = self.base(k8s)
        if self.default is not _MISSING:
            out["default"] = self.default
        if self.enum is not None:
            out["enum"] = self.enum
        if self.nullable:
            out["nullable"] = True
        out.update(self.extra)
        if self.validations:
            out["x-kubernetes-validations"] = [
                *out.get("x-kubernetes-validations", ()),
                *(r.to_dict() for r in self.validations),
            ]
        return out


def _camel(name: str) -> str:
    """``min_items`` as ``minItems``; ``x_kubernetes_map_type`` as ``x-kubernetes-map-type``."""
    if name.startswith("x_"):
        return name.replace("_", "-")
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


class String(Field):
    def __init__(self, *, format: str = "", **kw: Any) -> None:
        super().__init__(**kw)
        self.format = format

    def base(self, k8s: K8sResolver) -> Schema:
        return {"type": "string", **({"format": self.format} if self.format else {})}


class Integer(Field):
    def __init__(self, *, format: str = "", **kw: Any) -> None:
        """``format`` is Go's width: ``int32`` or ``int64``."""
        super().__init__(**kw)
        self.format = format

    def base(self, k8s: K8sResolver) -> Schema:
        return {"type": "integer", **({"format": self.format} if self.format else {})}


class Number(Field):
    def base(self, k8s: K8sResolver) -> Schema:
        return {"type": "number"}


class Boolean(Field):
    def base(self, k8s: K8sResolver) -> Schema:
        return {"type": "boolean"}


class Unstructured(Field):
    """An object of any shape (``x-kubernetes-preserve-unknown-fields``): a ``map[string]any``."""

    def __init__(self, *, type: str = "object", **kw: Any) -> None:
        """``type=""`` for any JSON value (Go's ``apiextensionsv1.JSON``)."""
        super().__init__(**kw)
        self.type = type

    def base(self, k8s: K8sResolver) -> Schema:
        out: Schema = {"type": self.type} if self.type else {}
        out["x-kubernetes-preserve-unknown-fields"] = True
        return out


class Embedded(Field):
    """A whole Kubernetes object of any kind (``runtime.RawExtension`` with ``EmbeddedResource``)."""

    def base(self, k8s: K8sResolver) -> Schema:
        return {
            "type": "object",
            "x-kubernetes-embedded-resource": True,
            "x-kubernetes-preserve-unknown-fields": True,
        }


class Map(Field):
    """``map[string]T``: an object whose values are all of one type."""

    def __init__(self, values: Field | type[Struct], **kw: Any) -> None:
        super().__init__(**kw)
        self.values = _field(values)

    def base(self, k8s: K8sResolver) -> Schema:
        return {"type": "object", "additionalProperties": self.values.schema(k8s)}


class Array(Field):
    """``[]T``; ``list_type`` (``atomic``, ``set``, ``map``) and ``map_keys`` are the list markers."""

    def __init__(
        self,
        items: Field | type[Struct],
        *,
        list_type: str = "",
        map_keys: Sequence[str] = (),
        **kw: Any,
    ) -> None:
        super().__init__(**kw)
        self.items = _field(items)
        self.list_type = list_type
        self.map_keys = list(map_keys)

    def base(self, k8s: K8sResolver) -> Schema:
        out: Schema = {"type": "array", "items": self.items.schema(k8s)}
        if self.map_keys:
            out["x-kubernetes-list-map-keys"] = self.map_keys
        if self.list_type:
            out["x-kubernetes-list-type"] = self.list_type
        return out


class Obj(Field):
    """A field whose type is a :class:`Struct`."""

    def __init__(self, type_: type[Struct], **kw: Any) -> None:
        super().__init__(**kw)
        self.type_ = type_

    def base(self, k8s: K8sResolver) -> Schema:
        return self.type_.__api_schema__(k8s)


class K8s(Field):
    """A Kubernetes API type (``io.k8s.api.apps.v1.DeploymentSpec``), as controller-gen renders it."""

    def __init__(self, definition: str, **kw: Any) -> None:
        super().__init__(**kw)
        self.definition = definition

    def base(self, k8s: K8sResolver) -> Schema:
        return k8s(self.definition)


def _field(t: Field | type[Struct]) -> Field:
    return t if isinstance(t, Field) else Obj(t)


class Struct:
    """An API type: its fields are the class attributes that are :class:`Field` s (module docstring).

    What the class knows about itself lives in dunder names, so that no API
    field (``schema``, ``fields``) can shadow it.
    """

    __api_fields__: ClassVar[dict[str, Field]] = {}
    __api_rules__: ClassVar[list[Rule]] = []
    __api_extra__: ClassVar[Schema] = {}

    def __init_subclass__(
        cls,
        *,
        validations: Sequence[Rule] = (),
        map_type: str = "",
        preserve_unknown: bool = False,
        **kw: Any,
    ) -> None:
        super().__init_subclass__(**kw)
        own = {_api_name(name): value for name, value in vars(cls).items() if isinstance(value, Field)}
        inherited: dict[str, Field] = {}
        for base in reversed(cls.__mro__[1:]):
            inherited.update(vars(base).get("__api_fields__", {}))
        cls.__api_fields__ = {**inherited, **own}
        cls.__api_rules__ = list(validations)
        extra: Schema = {}
        if map_type:
            extra["x-kubernetes-map-type"] = map_type
        if preserve_unknown:
            extra["x-kubernetes-preserve-unknown-fields"] = True
        cls.__api_extra__ = extra

    @classmethod
    def __api_schema__(cls, k8s: K8sResolver) -> Schema:
        """This type's OpenAPI v3 schema (controller-gen's shape)."""
        fields = cls.__api_fields__
        out: Schema = {"type": "object"}
        if fields:
            out["properties"] = {name: f.schema(k8s) for name, f in sorted(fields.items())}
        required = sorted(name for name, f in fields.items() if f.required)
        if required:
            out["required"] = required
        out.update(cls.__api_extra__)
        if cls.__api_rules__:
            out["x-kubernetes-validations"] = [r.to_dict() for r in cls.__api_rules__]
        return out


def _api_name(attribute: str) -> str:
    """The API field an attribute declares: a keyword's trailing ``_`` dropped (``from_`` is ``from``)."""
    return attribute[:-1] if attribute.endswith("_") and not attribute.startswith("_") else attribute


def schema_of(t: Field | type[Struct], k8s: K8sResolver | None = None) -> Schema:
    """The OpenAPI v3 schema of a type or field; ``k8s`` resolves :class:`K8s` fields (none: they fail)."""
    return _field(t).schema(k8s or _no_k8s)


def _no_k8s(definition: str) -> Schema:
    raise LookupError(f"no Kubernetes definitions to resolve {definition}")


def sort_schema(schema: Mapping[str, Any]) -> Schema:
    """``schema`` with every mapping's keys sorted, as controller-gen writes them."""
    return {k: _sorted(v) for k, v in sorted(schema.items())}


def _sorted(value: Any) -> Any:
    if isinstance(value, Mapping):
        return sort_schema(value)
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value
