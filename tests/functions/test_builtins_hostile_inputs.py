"""Any step input gives a built-in's answer, never an exception of ours; null list items are Go's zero values.

A Composition's step input is decoded by each function as function-sdk-go
decodes it into the input's Go type: a ``null`` item of a list of structs is
the zero struct, of a list of strings the empty string, and the function goes
on with it (to its own error, or a crash upstream reports as ``panic: ...``).
The property test mutates one field of a working input of each built-in at a
time, and calls the built-in object itself: an exception escaping it would
reach the user as ``AttributeError: ...`` in a Fatal result.
"""

from __future__ import annotations

import asyncio
import copy
import inspect
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crossfn import functions
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import response, testing

_XR = {"apiVersion": "example.org/v1", "kind": "XR", "metadata": {"name": "x"}, "spec": {"a": 1, "team": "t"}}
_REQUEST: dict[str, Any] = {
    "observed_composite": _XR,
    "observed_resources": {
        "a": {
            "apiVersion": "v1", "kind": "C", "metadata": {"name": "a"},
            "status": {"conditions": [{"type": "Synced", "status": "False", "reason": "R", "message": "boom"}]},
        },
    },
    "desired_composite": {"apiVersion": "example.org/v1", "kind": "XR"},
    "desired_resources": {"a": {"apiVersion": "v1", "kind": "C"}, "b1": {"apiVersion": "v1", "kind": "C"}},
    "context": {"apiextensions.crossplane.io/environment": {"x": 1}},
}  # fmt: skip
_REQUIRED = {
    "environment-config-0": [
        {"apiVersion": "apiextensions.crossplane.io/v1beta1", "kind": "EnvironmentConfig",
         "metadata": {"name": "base"}, "data": {"a": 1}},
    ],
    "clusters": [{"apiVersion": "example.crossplane.io/v1", "kind": "XCluster", "metadata": {"name": "c"}}],
}  # fmt: skip

_TEMPLATE = (
    "apiVersion: v1\nkind: CM\nmetadata:\n  annotations:\n"
    "    gotemplating.fn.crossplane.io/composition-resource-name: a\n"
)
INPUTS: dict[str, dict[str, Any]] = {
    "go-templating": {
        "apiVersion": "gotemplating.fn.crossplane.io/v1beta1", "kind": "GoTemplate", "source": "Inline",
        "inline": {"template": _TEMPLATE, "templates": [_TEMPLATE]}, "delims": {"left": "{{", "right": "}}"},
        "options": ["missingkey=zero"],
    },
    "sequencer": {
        "apiVersion": "sequencer.fn.crossplane.io/v1beta1", "kind": "Input",
        "rules": [{"sequence": ["a", "b.*"], "condition": "true"}], "enableDeletionSequencing": True,
        "resetCompositeReadiness": True, "cacheTTL": "10s",
    },
    "status-transformer": {
        "apiVersion": "function-status-transformer.fn.crossplane.io/v1beta1", "kind": "StatusTransformation",
        "statusConditionHooks": [{
            "matchers": [{"resources": [{"name": "a.*"}],
                          "conditions": [{"type": "Synced", "status": "False", "message": "(?P<Error>.+)"}]}],
            "setConditions": [{"target": "CompositeAndClaim", "condition": {
                "type": "StorageReady", "status": "False", "reason": "SyncFailed", "message": "{{ .Error }}"}}],
            "createEvents": [{"target": "Composite", "event": {
                "type": "Warning", "reason": "R", "message": "{{ .Error }}"}}],
        }],
    },
    "environment-configs": {
        "apiVersion": "environmentconfigs.fn.crossplane.io/v1beta1", "kind": "Input",
        "spec": {
            "defaultData": {"region": "x"}, "policy": {"resolution": "Optional"},
            "environmentConfigs": [
                {"type": "Reference", "ref": {"name": "base"}},
                {"type": "Selector", "toFieldPath": "teams", "selector": {
                    "mode": "Multiple", "minMatch": 1, "maxMatch": 2, "sortByFieldPath": "data.priority",
                    "matchLabels": [{"key": "team", "type": "FromCompositeFieldPath",
                                     "valueFromFieldPath": "spec.team", "fromFieldPathPolicy": "Optional"}]}},
            ],
        },
    },
    "extra-resources": {
        "apiVersion": "extra-resources.fn.crossplane.io/v1beta1", "kind": "Input",
        "spec": {"extraResources": [
            {"kind": "XCluster", "apiVersion": "example.crossplane.io/v1", "namespace": "default",
             "into": "clusters", "type": "Selector", "selector": {
                 "minMatch": 1, "maxMatch": 2, "sortByFieldPath": "metadata.name",
                 "matchLabels": [{"key": "type", "type": "Value", "value": "cluster"}]}},
            {"kind": "XCluster", "apiVersion": "example.crossplane.io/v1", "into": "one", "type": "Reference",
             "ref": {"name": "x"}},
        ]},
    },
    "cel-filter": {
        "apiVersion": "cel.fn.crossplane.io/v1beta1", "kind": "Filters",
        "filters": [{"name": "a", "expression": "observed.composite.resource.spec.a == 1"}],
    },
    "dummy": {
        "apiVersion": "dummy.fn.crossplane.io/v1beta1", "kind": "Response",
        "response": {
            "desired": {"resources": {"a": {"resource": {"apiVersion": "v1", "kind": "C"}, "ready": "READY_TRUE"}}},
            "results": [{"severity": "SEVERITY_NORMAL", "message": "hi"}], "context": {"k": 1},
            "conditions": [{"type": "A", "status": "STATUS_CONDITION_TRUE", "reason": "R"}],
        },
    },
    "auto-ready": {
        "apiVersion": "autoready.fn.crossplane.io/v1beta1", "kind": "Input",
        "celHealthCheckCustomization": {"v1_C": "object.status.conditions.size() > 0"},
    },
}  # fmt: skip
"""A working input of each cheap in-process built-in (kcl and python run in sandbox processes: their own suites)."""


def _run(name: str, inp: Any, *, required: bool = True) -> fnv1.RunFunctionResponse:
    """Call the built-in object itself, so an exception it raises fails the test (the SDK would hide it)."""
    req = testing.build_request(input=inp, required_resources=_REQUIRED if required else None, **_REQUEST)
    rsp = response.to(req)
    out = functions.load(name)(req, rsp)  # type: ignore[operator] # every built-in object is a compose callable
    if inspect.isawaitable(out):
        asyncio.run(out)  # type: ignore[arg-type] # an awaitable from an async built-in
    return rsp


def _fatal(rsp: fnv1.RunFunctionResponse) -> str:
    return next((r.message for r in rsp.results if r.severity == fnv1.SEVERITY_FATAL), "")


NULL_ITEMS = [
    pytest.param(
        "go-templating", {**INPUTS["go-templating"], "options": [None]},
        "cannot apply template options: panic occurred while applying template options: empty option string",
        "a null option is Go's empty string, which Template.Option refuses with a panic upstream recovers",
        id="GoTemplatingOption",
    ),
    pytest.param(
        "cel-filter", {**INPUTS["cel-filter"], "filters": [None]},
        'cannot evaluate CEL expression "" for filter 0: cannot parse expression: ERROR: <input>:1:1: '
        "Syntax error: unexpected input\n | \n | ^",
        "a null filter is the zero Filter: its empty expression does not parse", id="CelFilterFilter",
    ),
    pytest.param(
        "environment-configs", {**INPUTS["environment-configs"], "spec": {"environmentConfigs": [None]}},
        "panic: runtime error: invalid memory address or nil pointer dereference",
        "a null source is the zero EnvironmentSource: a Reference without ref, which crashes upstream",
        id="EnvironmentConfigsSource",
    ),
    pytest.param(
        "environment-configs",
        {**INPUTS["environment-configs"], "spec": {"environmentConfigs": [
            {"type": "Selector", "selector": {"matchLabels": [None]}}]}},
        "panic: runtime error: invalid memory address or nil pointer dereference",
        "a null matcher is the zero matcher: FromCompositeFieldPath without valueFromFieldPath",
        id="EnvironmentConfigsMatcher",
    ),
    pytest.param(
        "extra-resources", {**INPUTS["extra-resources"], "spec": {"extraResources": [None]}},
        "panic: runtime error: invalid memory address or nil pointer dereference",
        "a null source is the zero ResourceSource: a Reference without ref", id="ExtraResourcesSource",
    ),
    pytest.param(
        "extra-resources",
        {**INPUTS["extra-resources"], "spec": {"extraResources": [
            {"type": "Selector", "into": "x", "selector": {"matchLabels": [None]}}]}},
        "could not build extra resource requirements: ValueFromFieldPath cannot be nil for type "
        "'FromCompositeFieldPath'",
        "a null matcher is the zero matcher, which v0.1.0 and later check", id="ExtraResourcesMatcher",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("name", "inp", "want", "reason"), NULL_ITEMS)
def test_null_list_items_are_go_zero_values(name: str, inp: dict[str, Any], want: str, reason: str) -> None:
    assert _fatal(_run(name, inp, required=False)) == want, reason


LONG = "true" + " && true" * 12_500
CEL_SIZE = [
    pytest.param(
        "cel-filter", {**INPUTS["cel-filter"], "filters": [{"name": "a", "expression": LONG}]},
        f'cannot evaluate CEL expression "{LONG}" for filter 0: cannot parse expression: ERROR: <input>:-1:0: '
        "expression code point size exceeds limit: size: 100004, limit 100000",
        "cel-go's parser refuses more than 100,000 code points before parsing", id="CelFilter",
    ),
    pytest.param(
        "sequencer", {**INPUTS["sequencer"], "rules": [{"sequence": ["a", "b.*"], "condition": LONG}]},
        "cannot parse CEL condition: ERROR: <input>:-1:0: expression code point size exceeds limit: "
        "size: 100004, limit 100000",
        "the sequencer's condition parses with the same limit", id="Sequencer",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("name", "inp", "want", "reason"), CEL_SIZE)
def test_cel_expressions_over_cel_gos_size_limit(
    name: str, inp: dict[str, Any], want: str, reason: str
) -> None:
    assert want in _fatal(_run(name, inp)), reason


_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False), st.text(max_size=10),
    st.sampled_from(["", "\x00", "(", "[", ".*", "a.b", "spec[", "{{", "{{ .x }}", "1e400", "9" * 30,
                     "Optional", "Selector", "Reference", "Value", "Multiple"]),
)  # fmt: skip
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=10,
)


def _paths(doc: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _paths(v, (*prefix, i))


def _mutated(doc: Any, path: tuple[Any, ...], value: Any, delete: bool) -> Any:
    """``doc`` with the field at ``path`` replaced by ``value`` (or deleted from its object); an input is an object."""
    if not path:
        return value if isinstance(value, dict) else {"apiVersion": value}
    out = copy.deepcopy(doc)
    target = out
    for step in path[:-1]:
        target = target[step]
    if delete and isinstance(target, dict):
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return out


_MUTATIONS = st.sampled_from(sorted(INPUTS)).flatmap(
    lambda name: st.tuples(st.just(name), st.sampled_from(list(_paths(INPUTS[name]))), _VALUES, st.booleans())
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_MUTATIONS)
def test_any_mutated_input_gets_the_functions_answer(
    mutation: tuple[str, tuple[Any, ...], Any, bool],
) -> None:
    """One field of a working input given any value (or removed): an answer, at most one Fatal result."""
    name, path, value, delete = mutation
    rsp = _run(name, _mutated(INPUTS[name], path, value, delete))
    assert sum(r.severity == fnv1.SEVERITY_FATAL for r in rsp.results) <= 1
