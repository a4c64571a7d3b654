"""environment-configs: merge EnvironmentConfigs into the pipeline's environment, as function-environment-configs.

Input: ``environmentconfigs.fn.crossplane.io/v1beta1`` ``Input`` whose
``spec.environmentConfigs`` lists sources: a ``Reference`` by name or a
``Selector`` by labels (values given, or read from the observed XR;
``Single`` mode wants exactly one match, ``Multiple`` sorts the matches by
``sortByFieldPath``, checks ``minMatch`` and keeps ``maxMatch``). Source ``i``
becomes requirement ``environment-config-<i>``; Crossplane fetches the
EnvironmentConfigs and calls again. The ``data`` of every selected config is
merged, in order, over the environment already in the context, over
``spec.defaultData`` (maps merged key by key, anything else replaced), and the
result is written to the context key ``apiextensions.crossplane.io/environment``
(with ``apiVersion: internal.crossplane.io/v1alpha1`` and ``kind: Environment``
when it has neither).

Two quirks of every release are kept: without ``environmentConfigs`` the
function does nothing (``defaultData`` alone is not written), and it writes
nothing until Crossplane has answered at least one requirement.

Each release's differences are one table (``_releases``), which
:class:`EnvironmentConfigs` follows. Where upstream crashes (a nil pointer:
``ref``, ``selector``, a matcher's ``value`` or ``valueFromFieldPath``
missing; before v0.0.7 a required ``Reference`` that matched nothing), crossfn
answers a Fatal result that starts ``panic:`` instead (docs/compatibility.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from crossfn import errors
from crossfn.functions import _gosdk, _selection
from crossfn.functions.environment_configs import _input
from crossfn.functions.environment_configs._releases import BEHAVIOURS, Behaviour
from crossfn.gocompat import json
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import fieldpath, request, resource

__all__ = ["ENVIRONMENT_KEY", "EnvironmentConfigs", "compose"]

ENVIRONMENT_KEY = request.ENVIRONMENT_KEY
"""The context key the environment is written to (and read from)."""


def _dict(s: Any) -> dict[str, Any]:
    """A Struct in Go's value model: every number a float64."""
    return resource.struct_to_dict(s, integers=False)


def _merge_maps(a: Mapping[str, Any], b: Mapping[str, Any]) -> dict[str, Any]:
    """Upstream's mergeMaps: ``b`` over ``a``; two maps under one key merge, anything else is replaced."""
    out = dict(a)
    for k, v in b.items():
        old = out.get(k)
        out[k] = _merge_maps(old, v) if isinstance(v, dict) and isinstance(old, dict) else v
    return out


def _gvk_empty(env: Mapping[str, Any]) -> bool:
    """Whether ``unstructured.GroupVersionKind()`` of ``env`` is empty (a malformed apiVersion reads as empty)."""
    api_version = env.get("apiVersion")
    kind = env.get("kind")
    av = api_version if isinstance(api_version, str) else ""
    if av.count("/") > 1:
        return True
    group, _, version = av.rpartition("/")
    return not (group or version or (kind if isinstance(kind, str) else ""))


class EnvironmentConfigs:
    """The function, behaving as one upstream release (a :class:`~._releases.Behaviour`)."""

    def __init__(self, behaviour: Behaviour) -> None:
        self.b = behaviour
        self._type = _input.input_type(
            resolve_policy=behaviour.resolve_policy, to_field_path=behaviour.required
        )

    @property
    def _word(self) -> str:
        return "required" if self.b.required else "extra"

    def __call__(self, req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        self.b.sdk.run(self._run, req, rsp)

    def _run(self, req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        try:
            inp = self.b.sdk.get_input(_dict(req.input), self._type)
        except errors.FunctionInputError as exc:
            raise _gosdk.Fatal(f"cannot get Function input from {self.b.sdk.request_type}: {exc}") from exc
        spec: dict[str, Any] = inp.get("spec") or {}
        found: list[dict[str, Any] | None] | None = spec.get("environmentConfigs")
        if found is None:
            return
        sources = [s or {} for s in found]  # a null item is Go's zero EnvironmentSource
        self._require(rsp, sources, _dict(req.observed.composite.resource))
        fetched = _selection.fetched(req, required=self.b.required)
        if not fetched:
            return
        env, has_env = request.get_context_key(req, ENVIRONMENT_KEY)
        try:
            selected = self._select(spec, sources, fetched)
        except (errors.CrossfnError, _selection.Panic) as exc:
            raise _gosdk.Fatal(_panic_or(exc, "cannot get selected environment configs")) from exc
        try:
            merged = self._merge(selected)
        except errors.CrossfnError as exc:
            raise _gosdk.Fatal(f"cannot merge environment data: {exc}") from exc
        if has_env:
            merged = _merge_maps(_go_floats(env) if isinstance(env, dict) else {}, merged)
        if spec.get("defaultData") is not None:
            merged = _merge_maps(_go_floats(spec["defaultData"]), merged)
        if _gvk_empty(merged):
            merged["apiVersion"] = "internal.crossplane.io/v1alpha1"
            merged["kind"] = "Environment"
        resource.fill_struct(rsp.context, {ENVIRONMENT_KEY: merged})

    def _require(
        self, rsp: fnv1.RunFunctionResponse, sources: Sequence[Mapping[str, Any]], xr: dict[str, Any]
    ) -> None:
        """Upstream's buildRequirements: one selector per source that can be asked for."""
        selectors: dict[str, fnv1.ResourceSelector] = {}
        try:
            for i, source in enumerate(sources):
                selector = _selection.selector(
                    source, xr, api_version=self.b.api_version, kind="EnvironmentConfig", checks_nil=False
                )
                if selector is not None:
                    selectors[f"environment-config-{i}"] = selector
        except (errors.CrossfnError, _selection.Panic) as exc:
            raise _gosdk.Fatal(_panic_or(exc, "cannot build requirements")) from exc
        _selection.request(rsp, selectors, required=self.b.required)

    def _select(
        self,
        spec: Mapping[str, Any],
        sources: Sequence[Mapping[str, Any]],
        fetched: Mapping[str, list[dict[str, Any]]],
    ) -> list[tuple[str, dict[str, Any]]]:
        """Upstream's getSelectedEnvConfigs: the chosen EnvironmentConfigs, each with its ``toFieldPath``."""
        optional = (spec.get("policy") or {}).get("resolution") == "Optional"
        out: list[tuple[str, dict[str, Any]]] = []
        for i, source in enumerate(sources):
            name = f"environment-config-{i}"
            if name not in fetched:
                if self.b.skips_unrequested:
                    continue
                raise errors.CrossfnError(f"cannot find expected extra resource {errors.quote(name)}")
            items = fetched[name]
            to = source.get("toFieldPath", "")
            kind = source.get("type") or "Reference"
            if kind == "Reference":
                out.extend(
                    (to, c) for c in self._by_reference(name, source["ref"].get("name", ""), items, optional)
                )
            elif kind == "Selector":
                out.extend((to, c) for c in self._by_selector(name, source["selector"], items))
        return out

    def _by_reference(
        self, name: str, ref: str, items: list[dict[str, Any]], optional: bool
    ) -> list[dict[str, Any]]:
        shown = ref if self.b.not_found == "name" else name
        try:
            if not items:
                if optional:
                    return []
                if self.b.not_found == "panic":
                    raise _selection.Panic(_selection.INDEX_OUT_OF_RANGE)
                raise errors.CrossfnError(f"Required environment config {errors.quote(shown)} not found")
            if len(items) > 1:
                raise errors.CrossfnError(
                    f"expected exactly one {self._word} resource {errors.quote(shown)}, got {len(items)}"
                )
        except errors.CrossfnError as exc:
            if not self.b.skips_unrequested:
                raise
            raise errors.CrossfnError(
                f"cannot process environment config {errors.quote(ref)} by reference, {errors.quote(name)}: {exc}"
            ) from exc
        return items[:1]

    def _by_selector(
        self, name: str, selector: Mapping[str, Any], items: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        try:
            return self._matches(name, selector, items)
        except errors.CrossfnError as exc:
            if not self.b.skips_unrequested:
                raise
            raise errors.CrossfnError(
                f"cannot process environment config {errors.quote(name)} by selector: {exc}"
            ) from exc

    def _matches(
        self, name: str, selector: Mapping[str, Any], items: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        # Before v0.5.0 the texts name the requirement; from v0.5.0 the wrapper does.
        named = "" if self.b.skips_unrequested else f" {errors.quote(name)}"
        mode = selector.get("mode") or "Single"
        if mode == "Single":
            if len(items) != 1:
                raise errors.CrossfnError(
                    f"expected exactly one {self._word} resource{named}, got {len(items)}"
                )
            return items
        if mode != "Multiple":
            raise errors.CrossfnError(f"unknown selector mode {errors.quote(mode)}")
        low = selector.get("minMatch")
        if low is not None and len(items) < low:
            raise errors.CrossfnError(
                f"expected at least {low} {self._word} resources{named}, got {len(items)}"
            )
        ordered = _selection.sort_by_field_path(
            items, selector.get("sortByFieldPath") or "metadata.name", kinds=self.b.required
        )
        high = selector.get("maxMatch")
        return list(ordered if high is None else ordered[:high])

    @staticmethod
    def _merge(selected: Sequence[tuple[str, Mapping[str, Any]]]) -> dict[str, Any]:
        """Upstream's mergeEnvConfigsData: each config's ``data`` (under its ``toFieldPath``) over the last.

        From v0.7.0 the configs are grouped by ``toFieldPath`` and the groups
        merged in Go's map order, which is random; crossfn merges them in the
        order each path first appears.
        """
        groups: dict[str, list[Mapping[str, Any]]] = {}
        for to, config in selected:
            groups.setdefault(to, []).append(config)
        merged: dict[str, Any] = {}
        for to, configs in groups.items():
            for c in configs:
                merged = _merge_maps(merged, _data(c, to))
        return merged


def _config_name(c: Mapping[str, Any]) -> str:
    meta = c.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    return name if isinstance(name, str) else ""


def _data(c: Mapping[str, Any], to: str) -> dict[str, Any]:
    """A config's ``data`` as a map: at ``to`` when set, else the map itself (missing is an error)."""
    data: dict[str, Any] = {}
    if to:
        try:
            fieldpath.set_value(data, to, c.get("data"))
        except errors.FieldPathError as exc:
            raise errors.CrossfnError(
                f"cannot get data from environment config {_config_name(c)} into path {errors.quote(to)}"
            ) from exc
        return data
    try:
        value = fieldpath.get_value(c, "data")
    except errors.FieldPathError as exc:
        raise errors.CrossfnError(
            f"cannot get data from environment config {errors.quote(_config_name(c))}: {exc}"
        ) from exc
    if value is None:
        return data
    if not isinstance(value, dict):
        raise errors.CrossfnError(
            f"cannot get data from environment config {errors.quote(_config_name(c))}: "
            f"cannot unmarshal value from JSON: {json.type_error(value, 'map[string]interface {}')}"
        )
    return dict(value)


def _go_floats(v: Any) -> Any:
    """A value read without Go's number model, in it: whole numbers become float64, as a Struct carries them."""
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return float(v)
    if isinstance(v, dict):
        return {k: _go_floats(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_go_floats(x) for x in v]
    return v


def _panic_or(exc: BaseException, wrap: str) -> str:
    """A crash as Go prints its first line, or the error wrapped as upstream wraps it."""
    if isinstance(exc, _selection.Panic):
        return f"panic: {exc}"
    return f"{wrap}: {exc}"


def _behaves_as(release: str) -> EnvironmentConfigs:
    return EnvironmentConfigs(BEHAVIOURS[release])


compose = _behaves_as("v0.7.1")
"""function-environment-configs v0.7.0 to v0.7.2 (v0.7.2 behaves as v0.7.1: ``_releases.environment_configs``)."""
v0_0_4 = _behaves_as("v0.0.4")
v0_0_5 = _behaves_as("v0.0.5")
v0_0_6 = _behaves_as("v0.0.6")
v0_1_0 = _behaves_as("v0.1.0")
v0_2_0 = _behaves_as("v0.2.0")
v0_4_0 = _behaves_as("v0.4.0")
v0_6_0 = _behaves_as("v0.6.0")
