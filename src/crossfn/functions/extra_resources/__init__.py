"""extra-resources: fetch resources into the pipeline's context, as function-extra-resources.

Input: ``extra-resources.fn.crossplane.io/v1beta1`` ``Input`` whose
``spec.extraResources`` lists sources, each with ``apiVersion``, ``kind`` and
``into`` (the requirement's name and the key of the result): a ``Reference``
by name or a ``Selector`` by labels (values given, or read from the observed
XR; the matches are sorted by ``sortByFieldPath``, checked against
``minMatch`` and cut to ``maxMatch``). Once Crossplane has fetched them, the
context key ``apiextensions.crossplane.io/extra-resources`` holds
``{<into>: [<resource>, ...]}`` (a source that matched nothing is left out).

Each release's differences are one table (``_releases``), which
:class:`ExtraResources` follows. Where upstream crashes (a nil pointer: ``ref``
or ``selector`` missing, and before v0.1.0 a matcher without its value;
before v0.0.3 a required ``Reference`` that matched nothing), crossfn answers a
Fatal result that starts ``panic:``; where v0.0.1 and v0.0.2 fail the call
itself, a Fatal result with the error's text (docs/compatibility.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from crossfn import errors
from crossfn.functions import _gosdk, _selection
from crossfn.functions.extra_resources import _input
from crossfn.functions.extra_resources._releases import BEHAVIOURS, Behaviour
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource

__all__ = ["CONTEXT_KEY", "ExtraResources", "compose"]

CONTEXT_KEY = "apiextensions.crossplane.io/extra-resources"
"""The context key the fetched resources are written to."""


def _dict(s: Any) -> dict[str, Any]:
    """A Struct in Go's value model: every number a float64."""
    return resource.struct_to_dict(s, integers=False)


class ExtraResources:
    """The function, behaving as one upstream release (a :class:`~._releases.Behaviour`)."""

    def __init__(self, behaviour: Behaviour) -> None:
        self.b = behaviour
        self._type = _input.input_type(namespace=behaviour.namespace)

    def __call__(self, req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        self.b.sdk.run(self._run, req, rsp)

    def _run(self, req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
        try:
            inp = self.b.sdk.get_input(_dict(req.input), self._type)
        except errors.FunctionInputError as exc:
            raise _gosdk.Fatal(f"cannot get Function input from {self.b.sdk.request_type}: {exc}") from exc
        spec: dict[str, Any] = inp.get("spec") or {}
        # A null item is Go's zero ResourceSource.
        sources: list[dict[str, Any]] = [s or {} for s in spec.get("extraResources") or []]
        self._require(rsp, sources, _dict(req.observed.composite.resource))
        fetched = _selection.fetched(req, required=self.b.required)
        if not fetched:
            return
        try:
            found = self._verify(spec, sources, fetched)
        except _selection.Panic as exc:
            raise _gosdk.Fatal(f"panic: {exc}") from exc
        except errors.CrossfnError as exc:
            prefix = (
                "verifying and sorting extra resources"
                if self.b.checks_are_results
                else "sorting and verifying results"
            )
            raise _gosdk.Fatal(f"{prefix}: {exc}") from exc
        resource.fill_struct(rsp.context, {CONTEXT_KEY: found})

    def _require(
        self, rsp: fnv1.RunFunctionResponse, sources: Sequence[Mapping[str, Any]], xr: dict[str, Any]
    ) -> None:
        """Upstream's buildRequirements: one selector per source that can be asked for, named by its ``into``."""
        selectors: dict[str, fnv1.ResourceSelector] = {}
        try:
            for source in sources:
                selector = _selection.selector(
                    source,
                    xr,
                    api_version=source.get("apiVersion", ""),
                    kind=source.get("kind", ""),
                    checks_nil=self.b.checks_nil,
                    namespace=source["namespace"] if self.b.namespace and "namespace" in source else None,
                )
                if selector is not None:
                    selectors[source.get("into", "")] = selector
        except _selection.Panic as exc:
            raise _gosdk.Fatal(f"panic: {exc}") from exc
        except errors.CrossfnError as exc:
            raise _gosdk.Fatal(f"could not build extra resource requirements: {exc}") from exc
        _selection.request(rsp, selectors, required=self.b.required)

    def _verify(
        self,
        spec: Mapping[str, Any],
        sources: Sequence[Mapping[str, Any]],
        fetched: Mapping[str, list[dict[str, Any]]],
    ) -> dict[str, list[dict[str, Any]]]:
        """Upstream's verifyAndSortExtras: the resources of each source, checked, sorted and cut."""
        optional = (spec.get("policy") or {}).get("resolution") == "Optional"
        out: dict[str, list[dict[str, Any]]] = {}
        for source in sources:
            name = source.get("into", "")
            if name not in fetched:
                raise errors.CrossfnError(f"cannot find expected extra resource {errors.quote(name)}")
            items = fetched[name]
            kind = source.get("type") or "Reference"
            if kind == "Reference":
                if not items:
                    if optional:
                        continue
                    if not self.b.checks_are_results:
                        raise _selection.Panic(_selection.INDEX_OUT_OF_RANGE)
                    raise errors.CrossfnError(f"Required extra resource {errors.quote(name)} not found")
                if len(items) > 1:
                    raise errors.CrossfnError(
                        f"expected exactly one extra resource {errors.quote(name)}, got {len(items)}"
                    )
                out.setdefault(name, []).append(items[0])
            elif kind == "Selector":
                out.setdefault(name, []).extend(self._matches(name, source["selector"], items))
                if not out[name]:
                    del out[name]
        return out

    @staticmethod
    def _matches(name: str, selector: Mapping[str, Any], items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        low = selector.get("minMatch")
        if low is not None and len(items) < low:
            raise errors.CrossfnError(
                f"expected at least {low} extra resources {errors.quote(name)}, got {len(items)}"
            )
        ordered = _selection.sort_by_field_path(
            items, selector.get("sortByFieldPath") or "metadata.name", kinds=False
        )
        high = selector.get("maxMatch")
        return ordered if high is None else ordered[:high]


def _behaves_as(release: str) -> ExtraResources:
    return ExtraResources(BEHAVIOURS[release])


compose = _behaves_as("v0.3.0")
"""function-extra-resources v0.3.0."""
v0_0_2 = _behaves_as("v0.0.2")
v0_0_3 = _behaves_as("v0.0.3")
v0_1_0 = _behaves_as("v0.1.0")
v0_2_0 = _behaves_as("v0.2.0")
