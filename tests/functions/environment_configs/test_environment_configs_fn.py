"""environment-configs: upstream's fn_test.go cases, re-expressed, and one case per release difference.

The first tables are function-environment-configs' own tests (v0.7.1's
``TestRunFunction`` and ``TestSortRequiredByFieldPath``), run against every
release they hold for: the requirement field (``extra_resources`` before
v0.7.0), the EnvironmentConfig version asked for and the Fatal target change
with the release, the behaviour does not. The last table has one case per row
of ``crossfn.functions.environment_configs._releases``.
"""

from __future__ import annotations

from typing import Any

import pytest

from crossfn import errors
from crossfn.functions import _selection, environment_configs
from crossfn.functions.environment_configs._releases import BEHAVIOURS, Behaviour
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource, response, testing

ENV = environment_configs.ENVIRONMENT_KEY
XR = {"apiVersion": "test.crossplane.io/v1alpha1", "kind": "XR", "metadata": {"name": "my-xr"}}


def _config(name: str, data: dict[str, Any] | None = None, **more: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "apiVersion": "apiextensions.crossplane.io/v1beta1",
        "kind": "EnvironmentConfig",
        "metadata": {"name": name, **more},
    }
    if data is not None:
        body["data"] = data
    return body


def _input(*sources: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "template.fn.crossplane.io/v1beta1",
        "kind": "Input",
        "spec": {"environmentConfigs": list(sources), **spec},
    }


REF: dict[str, Any] = {"type": "Reference", "ref": {"name": "my-env-config"}}
REF2: dict[str, Any] = {"type": "Reference", "ref": {"name": "my-second-env-config"}}
MULTI_FOO_BAR: dict[str, Any] = {
    "type": "Selector",
    "selector": {"mode": "Multiple", "matchLabels": [{"type": "Value", "key": "foo", "value": "bar"}]},
}
SINGLE_MISSING_OPTIONAL: dict[str, Any] = {
    "type": "Selector",
    "selector": {
        "mode": "Single",
        "matchLabels": [
            {
                "key": "someMoreFoo",
                "valueFromFieldPath": "spec.missingEnvSelectorLabel",
                "fromFieldPathPolicy": "Optional",
            }
        ],
    },
}
SINGLE_FROM_XR: dict[str, Any] = {
    "type": "Selector",
    "selector": {
        "mode": "Single",
        "matchLabels": [
            {
                "key": "someMoreFoo",
                "valueFromFieldPath": "spec.existingEnvSelectorLabel",
                "fromFieldPathPolicy": "Required",
            }
        ],
    },
}
FIVE_SOURCES = (REF, REF2, MULTI_FOO_BAR, SINGLE_MISSING_OPTIONAL, SINGLE_FROM_XR)


def _request(
    b: Behaviour,
    inp: dict[str, Any],
    *,
    xr: dict[str, Any] | None = None,
    fetched: dict[str, list[dict[str, Any]]] | None = None,
    context: dict[str, Any] | None = None,
) -> fnv1.RunFunctionRequest:
    req = testing.build_request(tag="hello", observed_composite=xr or {}, input=inp, context=context)
    into = req.required_resources if b.required else req.extra_resources
    for name, items in (fetched or {}).items():
        into[name].SetInParent()
        for item in items:
            resource.fill_struct(into[name].items.add().resource, item)
    return req


def _run(b: Behaviour, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
    rsp = response.to(req)
    environment_configs.EnvironmentConfigs(b)(req, rsp)
    return rsp


def _requirements(rsp: fnv1.RunFunctionResponse, b: Behaviour) -> dict[str, dict[str, Any]]:
    got = rsp.requirements.resources if b.required else rsp.requirements.extra_resources
    return {k: testing.to_dict(v) for k, v in got.items()}


def _by_name(b: Behaviour, name: str) -> dict[str, Any]:
    return {"apiVersion": b.api_version, "kind": "EnvironmentConfig", "matchName": name}


def _by_labels(b: Behaviour, labels: dict[str, str]) -> dict[str, Any]:
    return {"apiVersion": b.api_version, "kind": "EnvironmentConfig", "matchLabels": {"labels": labels}}


def _env(rsp: fnv1.RunFunctionResponse) -> Any:
    value, present = (
        (resource.value_to_python(rsp.context.fields[ENV]), True)
        if ENV in rsp.context.fields
        else (None, False)
    )
    return value if present else "absent"


def _fatals(rsp: fnv1.RunFunctionResponse) -> list[str]:
    return [r.message for r in rsp.results if r.severity == fnv1.SEVERITY_FATAL]


# Releases whose behaviour upstream's v0.7.1 tests hold for (every release from v0.5.0: the optional
# selector that was never requested is skipped, which earlier releases reported as an error).
SKIPPING = [b for b in BEHAVIOURS.values() if b.skips_unrequested]
ALL = list(BEHAVIOURS.values())


@pytest.mark.parametrize("b", ALL, ids=[b.release for b in ALL])
def test_request_environment_configs(b: Behaviour) -> None:
    """RequestEnvironmentConfigs: one requirement per source; the optional label that is missing asks for nothing."""
    xr = {**XR, "spec": {"existingEnvSelectorLabel": "someMoreBar"}}
    rsp = _run(b, _request(b, _input(*FIVE_SOURCES), xr=xr))
    assert _requirements(rsp, b) == {
        "environment-config-0": _by_name(b, "my-env-config"),
        "environment-config-1": _by_name(b, "my-second-env-config"),
        "environment-config-2": _by_labels(b, {"foo": "bar"}),
        "environment-config-4": _by_labels(b, {"someMoreFoo": "someMoreBar"}),
    }, "environment-config-3 is not requested: its only label is optional and missing"
    assert _env(rsp) == "absent", "nothing is fetched yet, so nothing is written"
    assert not rsp.results


FOUND = {
    "environment-config-0": [_config("my-env-config", {"firstKey": "firstVal", "secondKey": "secondVal"})],
    "environment-config-1": [
        _config("my-second-env-config", {"secondKey": "secondVal-ok", "thirdKey": "thirdVal"})
    ],
    "environment-config-2": [
        _config("my-third-env-config-b", {"fourthKey": "fourthVal-b"}),
        _config("my-third-env-config-a", {"fourthKey": "fourthVal-a"}),
    ],
    "environment-config-3": [_config("my-third-env-config", {"fifthKey": "fifthVal"})],
    "environment-config-4": [_config("my-fourth-env-config", {"sixthKey": "sixthVal"})],
}


@pytest.mark.parametrize("b", ALL, ids=[b.release for b in ALL])
def test_request_environment_configs_found(b: Behaviour) -> None:
    """RequestEnvironmentConfigsFound: requirements again, and the configs merged in order (the sort puts -a first)."""
    xr = {**XR, "spec": {"existingEnvSelectorLabel": "someMoreBar"}}
    rsp = _run(b, _request(b, _input(*FIVE_SOURCES), xr=xr, fetched=FOUND))
    assert set(_requirements(rsp, b)) == {f"environment-config-{i}" for i in (0, 1, 2, 4)}
    assert _env(rsp) == {
        "apiVersion": "internal.crossplane.io/v1alpha1",
        "kind": "Environment",
        "firstKey": "firstVal",
        "secondKey": "secondVal-ok",
        "thirdKey": "thirdVal",
        "fourthKey": "fourthVal-b",
        "fifthKey": "fifthVal",
        "sixthKey": "sixthVal",
    }
    assert not rsp.results


NOT_FOUND = {
    "v0.0.4": "panic: runtime error: index out of range [0] with length 0",
    "v0.0.5": "panic: runtime error: index out of range [0] with length 0",
    "v0.0.6": "panic: runtime error: index out of range [0] with length 0",
    "v0.1.0": 'cannot get selected environment configs: Required environment config "environment-config-0" not found',
    "v0.2.0": 'cannot get selected environment configs: Required environment config "my-env-config" not found',
    "v0.4.0": 'cannot get selected environment configs: Required environment config "my-env-config" not found',
    "v0.6.0": 'cannot get selected environment configs: cannot process environment config "my-env-config" by '
    'reference, "environment-config-0": Required environment config "my-env-config" not found',
    "v0.7.1": 'cannot get selected environment configs: cannot process environment config "my-env-config" by '
    'reference, "environment-config-0": Required environment config "my-env-config" not found',
}


@pytest.mark.parametrize("b", ALL, ids=[b.release for b in ALL])
def test_request_environment_configs_not_found_required(b: Behaviour) -> None:
    """RequestEnvironmentConfigsNotFoundRequired: a Fatal result; before v0.0.7 upstream crashed instead."""
    rsp = _run(b, _request(b, _input(REF), xr=XR, fetched={"environment-config-0": []}))
    assert _fatals(rsp) == [NOT_FOUND[b.release]]
    assert rsp.results[0].HasField("target") == b.sdk.targets, "function-sdk-go v0.4.0 targets the composite"
    assert _requirements(rsp, b) == {"environment-config-0": _by_name(b, "my-env-config")}
    assert _env(rsp) == "absent"


@pytest.mark.parametrize("b", ALL, ids=[b.release for b in ALL])
def test_not_found_optional(b: Behaviour) -> None:
    """A Reference that matched nothing under ``policy.resolution: Optional`` is skipped, in every release."""
    inp = _input(REF, REF2, policy={"resolution": "Optional"})
    fetched = {
        "environment-config-0": [],
        "environment-config-1": [_config("my-second-env-config", {"k": "v"})],
    }
    rsp = _run(b, _request(b, inp, xr=XR, fetched=fetched))
    assert not rsp.results
    assert _env(rsp) == {"apiVersion": "internal.crossplane.io/v1alpha1", "kind": "Environment", "k": "v"}


OPTIONAL_NOT_PROVIDED = [
    pytest.param(
        {"mode": "Multiple", "minMatch": 0, "maxMatch": 1},
        id="SelectorWithOptionalFieldPathNotProvided",
    ),
    pytest.param({"mode": "Single"}, id="SelectorSingleModeWithOptionalFieldPathNotProvided"),
]


@pytest.mark.parametrize("selector", OPTIONAL_NOT_PROVIDED)
@pytest.mark.parametrize("b", SKIPPING, ids=[b.release for b in SKIPPING])
def test_selector_with_optional_field_path_not_provided(b: Behaviour, selector: dict[str, Any]) -> None:
    """From v0.5.0 a selector whose optional label is missing was never requested and is skipped."""
    matchers = [{"key": "epd", "valueFromFieldPath": "spec.epd.name", "fromFieldPathPolicy": "Optional"}]
    inp = _input(
        {"type": "Reference", "ref": {"name": "base-env-config"}},
        {"type": "Selector", "selector": {**selector, "matchLabels": matchers}},
    )
    fetched = {"environment-config-0": [_config("base-env-config", {"baseKey": "baseVal"})]}
    rsp = _run(b, _request(b, inp, xr={**XR, "spec": {"presentField": "value"}}, fetched=fetched))
    assert _requirements(rsp, b) == {"environment-config-0": _by_name(b, "base-env-config")}
    assert not rsp.results
    assert _env(rsp) == {
        "apiVersion": "internal.crossplane.io/v1alpha1",
        "kind": "Environment",
        "baseKey": "baseVal",
    }


@pytest.mark.parametrize("b", ALL, ids=[b.release for b in ALL])
def test_merge_environment_configs(b: Behaviour) -> None:
    """MergeEnvironmentConfigs: configs over the context's environment over defaultData."""
    context = {
        ENV: {
            "apiVersion": "internal.crossplane.io/v1alpha1",
            "kind": "Environment",
            "a": "only-from-input",
            "e": "overridden-from-input-ok",
            "f": "overridden-from-env-config-1",
            "g": "overridden-from-env-config-2",
        }
    }
    default = {"b": "only-from-default", "e": "overridden-from-input", "f": "overridden-from-env-config-2"}
    fetched = {
        "environment-config-0": [
            _config(
                "my-env-config",
                {
                    "c": "only-from-env-config-1",
                    "f": "overridden-from-env-config-1-ok",
                    "h": "override-from-env-config-1",
                },
            )
        ],
        "environment-config-1": [
            _config(
                "my-second-env-config",
                {
                    "d": "only-from-env-config-1",
                    "g": "overridden-from-env-config-2-ok",
                    "h": "override-from-env-config-1-ok",
                },
            )
        ],
    }
    rsp = _run(b, _request(b, _input(REF, REF2, defaultData=default), fetched=fetched, context=context))
    assert not rsp.results
    assert _env(rsp) == {
        "apiVersion": "internal.crossplane.io/v1alpha1",
        "kind": "Environment",
        "a": "only-from-input",
        "b": "only-from-default",
        "c": "only-from-env-config-1",
        "d": "only-from-env-config-1",
        "e": "overridden-from-input-ok",
        "f": "overridden-from-env-config-1-ok",
        "g": "overridden-from-env-config-2-ok",
        "h": "override-from-env-config-1-ok",
    }


def test_to_field_path() -> None:
    """ToFieldPath (v0.7.0): each source's data lands at its toFieldPath, nested paths merge."""
    b = BEHAVIOURS["v0.7.1"]
    inp = _input(
        {"type": "Reference", "ref": {"name": "foo"}, "toFieldPath": "foo"},
        {**MULTI_FOO_BAR, "toFieldPath": "foo.bar"},
        defaultData={"a": "from-default"},
    )
    fetched = {
        "environment-config-0": [_config("foo", {"a": "from-foo"})],
        "environment-config-1": [
            _config("first", {"a": "from-label-select-first"}),
            _config("second", {"b": "from-label-select-second"}),
        ],
    }
    rsp = _run(b, _request(b, inp, fetched=fetched))
    assert _requirements(rsp, b) == {
        "environment-config-0": _by_name(b, "foo"),
        "environment-config-1": _by_labels(b, {"foo": "bar"}),
    }
    assert _env(rsp) == {
        "apiVersion": "internal.crossplane.io/v1alpha1",
        "kind": "Environment",
        "a": "from-default",
        "foo": {"a": "from-foo", "bar": {"a": "from-label-select-first", "b": "from-label-select-second"}},
    }


def _at(path: str, value: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    head, _, rest = path.partition(".")
    out[head] = {rest: value}
    return out


SORTS = [
    pytest.param(
        [_at("metadata.name", "c"), _at("metadata.name", "a"), _at("metadata.name", "b")],
        "metadata.name",
        [_at("metadata.name", "a"), _at("metadata.name", "b"), _at("metadata.name", "c")],
        "",
        id="SortByString",
    ),
    pytest.param(
        [_at("data.someInt", 3.0), _at("data.someInt", 1.0), _at("data.someInt", 2.0)],
        "data.someInt",
        [_at("data.someInt", 1.0), _at("data.someInt", 2.0), _at("data.someInt", 3.0)],
        "",
        id="SortByInt",
    ),
    pytest.param(
        [_at("data.f", 1.3), _at("data.f", 1.1), _at("data.f", 1.2), _at("data.f", 1.4)],
        "data.f",
        [_at("data.f", 1.1), _at("data.f", 1.2), _at("data.f", 1.3), _at("data.f", 1.4)],
        "",
        id="SortByFloat",
    ),
    pytest.param(
        [_at("data.someInt", 3.0), _at("data.someInt", 1.0), _at("data.someInt", "2")],
        "data.someInt",
        None,
        'cannot sort values of different types "float64" and "string"',
        id="InconsistentTypeSortByInt",
    ),
    pytest.param(
        [_at("metadata.name", "c"), _at("metadata.name", "a")],
        "",
        None,
        "cannot sort by empty field path",
        id="EmptyPath",
    ),
    pytest.param(
        [_at("metadata.name", "c"), _at("metadata.name", "a"), _at("metadata.name", "b")],
        "metadata.invalid",
        [_at("metadata.name", "c"), _at("metadata.name", "a"), _at("metadata.name", "b")],
        "",
        id="InvalidPathAll",
    ),
    pytest.param(
        [_at("metadata.name", "c"), _at("metadata.invalid", "a"), _at("metadata.name", "b")],
        "metadata.name",
        [_at("metadata.invalid", "a"), _at("metadata.name", "b"), _at("metadata.name", "c")],
        "",
        id="InvalidPathSome",
    ),
]


@pytest.mark.parametrize(("items", "path", "want", "error"), SORTS)
def test_sort_required_by_field_path(
    items: list[dict[str, Any]], path: str, want: list[dict[str, Any]] | None, error: str
) -> None:
    """TestSortRequiredByFieldPath: sorted by the value at the path; a missing value sorts as the zero value."""
    if error:
        with pytest.raises(errors.CrossfnError, match=f"^{error}$"):
            _selection.sort_by_field_path(items, path, kinds=True)
        return
    assert _selection.sort_by_field_path(items, path, kinds=True) == want


def _fatal_of(release: str, inp: dict[str, Any], **kw: Any) -> list[str]:
    b = BEHAVIOURS[release]
    return _fatals(_run(b, _request(b, inp, **kw)))


WRAP_V1BETA1 = (
    "cannot get Function input from *v1beta1.RunFunctionRequest: cannot get Function input %T from %T, into, req: "
    "cannot unmarshal JSON from *structpb.Struct into *v1beta1.Input: "
)
WRAP_V1 = (
    "cannot get Function input from *v1.RunFunctionRequest: cannot get function input *v1beta1.Input from "
    "*v1.RunFunctionRequest: cannot unmarshal JSON from *structpb.Struct into *v1beta1.Input: "
)
NO_SUCH = "panic: runtime error: invalid memory address or nil pointer dereference"

# (release, input, request keywords, the Fatal results, why)
DIFFERENCES = [
    ("v0.0.4", _input(REF, bogus=1), {}, [], "January 2024's function-sdk-go ignores unknown input fields"),
    (
        "v0.0.5",
        _input(REF, bogus=1),
        {},
        [WRAP_V1BETA1 + 'json: cannot unmarshal Go value of type v1beta1.InputSpec: unknown name "bogus"'],
        "function-sdk-go v0.2.0 rejects unknown input fields",
    ),
    (
        "v0.0.5",
        _input(REF, policy={"resolve": "Always"}),
        {},
        [],
        "crossplane-runtime's policy knows resolve",
    ),
    (
        "v0.0.6",
        _input(REF, policy={"resolve": "Always"}),
        {},
        [WRAP_V1BETA1 + 'json: cannot unmarshal Go value of type v1beta1.Policy: unknown name "resolve"'],
        "v0.0.6's own policy has resolution only",
    ),
    (
        "v0.6.0",
        _input({**REF, "toFieldPath": "x"}),
        {},
        [
            WRAP_V1
            + 'json: cannot unmarshal Go value of type v1beta1.EnvironmentSource: unknown name "toFieldPath"'
        ],
        "toFieldPath arrived in v0.7.0",
    ),
    (
        "v0.7.1",
        _input({**MULTI_FOO_BAR, "selector": {**MULTI_FOO_BAR["selector"], "maxMatch": -1}}),
        {},
        [
            WRAP_V1 + "json: cannot unmarshal JSON number into Go value of type uint64: "
            'cannot parse "-1" as unsigned integer: invalid syntax'
        ],
        "maxMatch is a uint64",
    ),
    (
        "v0.4.0",
        _input(REF, MULTI_FOO_BAR, SINGLE_MISSING_OPTIONAL),
        {"fetched": {"environment-config-0": [_config("my-env-config", {})], "environment-config-1": []}},
        [
            'cannot get selected environment configs: cannot find expected extra resource "environment-config-2"'
        ],
        "before v0.5.0 a source that was not requested fails once anything was fetched",
    ),
    (
        "v0.4.0",
        _input({**MULTI_FOO_BAR, "selector": {**MULTI_FOO_BAR["selector"], "minMatch": 2}}),
        {"fetched": {"environment-config-0": [_config("a", {})]}},
        [
            'cannot get selected environment configs: expected at least 2 extra resources "environment-config-0", got 1'
        ],
        "before v0.5.0 the minMatch text names the requirement",
    ),
    (
        "v0.6.0",
        _input({**MULTI_FOO_BAR, "selector": {**MULTI_FOO_BAR["selector"], "minMatch": 2}}),
        {"fetched": {"environment-config-0": [_config("a", {})]}},
        [
            'cannot get selected environment configs: cannot process environment config "environment-config-0" '
            "by selector: expected at least 2 extra resources, got 1"
        ],
        "from v0.5.0 the wrapper names the requirement",
    ),
    (
        "v0.7.1",
        _input(SINGLE_FROM_XR),
        {"xr": {**XR, "spec": {"existingEnvSelectorLabel": "x"}}, "fetched": {"environment-config-0": []}},
        [
            'cannot get selected environment configs: cannot process environment config "environment-config-0" '
            "by selector: expected exactly one required resource, got 0"
        ],
        "v0.7.0 says required resource",
    ),
    (
        "v0.1.0",
        _input(SINGLE_FROM_XR),
        {"xr": {**XR, "spec": {"existingEnvSelectorLabel": "x"}}, "fetched": {"environment-config-0": []}},
        [
            'cannot get selected environment configs: expected exactly one extra resource "environment-config-0", got 0'
        ],
        "Single mode wants exactly one match",
    ),
    (
        "v0.1.0",
        _input(REF),
        {"fetched": {"environment-config-0": [_config("a", {}), _config("b", {})]}},
        [
            'cannot get selected environment configs: expected exactly one extra resource "environment-config-0", got 2'
        ],
        "before v0.2.0 a Reference with two matches names the requirement",
    ),
    (
        "v0.2.0",
        _input(REF),
        {"fetched": {"environment-config-0": [_config("a", {}), _config("b", {})]}},
        [
            'cannot get selected environment configs: expected exactly one extra resource "my-env-config", got 2'
        ],
        "from v0.2.0 it names the EnvironmentConfig",
    ),
    (
        "v0.7.1",
        _input({**MULTI_FOO_BAR, "selector": {**MULTI_FOO_BAR["selector"], "sortByFieldPath": "data.m"}}),
        {"fetched": {"environment-config-0": [_config("a", {"m": {}}), _config("b", {"m": {}})]}},
        [
            'cannot get selected environment configs: cannot process environment config "environment-config-0" '
            'by selector: unsupported type "map" for sorting'
        ],
        "v0.7.0 names the reflect.Kind",
    ),
    (
        "v0.6.0",
        _input({**MULTI_FOO_BAR, "selector": {**MULTI_FOO_BAR["selector"], "sortByFieldPath": "data.m"}}),
        {"fetched": {"environment-config-0": [_config("a", {"m": {}}), _config("b", {"m": {}})]}},
        [
            'cannot get selected environment configs: cannot process environment config "environment-config-0" '
            'by selector: unsupported type "map[string]interface {}" for sorting'
        ],
        "before v0.7.0 it names the reflect.Type",
    ),
    (
        "v0.7.1",
        _input({**MULTI_FOO_BAR, "selector": {**MULTI_FOO_BAR["selector"], "mode": "Many"}}),
        {"fetched": {"environment-config-0": []}},
        [
            'cannot get selected environment configs: cannot process environment config "environment-config-0" '
            'by selector: unknown selector mode "Many"'
        ],
        "an unknown mode is caught when the configs are chosen",
    ),
    ("v0.7.1", _input({"type": "Reference"}), {}, [NO_SUCH], "a Reference without ref crashes upstream"),
    ("v0.7.1", _input({"type": "Selector"}), {}, [NO_SUCH], "a Selector without selector crashes upstream"),
    (
        "v0.7.1",
        _input({"type": "Selector", "selector": {"matchLabels": [{"type": "Value", "key": "k"}]}}),
        {},
        [NO_SUCH],
        "a Value matcher without value crashes upstream",
    ),
    (
        "v0.7.1",
        _input(SINGLE_FROM_XR),
        {"xr": XR},
        [
            'cannot build requirements: cannot get value from field path "spec.existingEnvSelectorLabel": '
            "spec: no such field"
        ],
        "a required label the XR lacks fails the requirements",
    ),
    (
        "v0.7.1",
        _input(REF),
        {"fetched": {"environment-config-0": [_config("my-env-config")]}},
        [
            'cannot merge environment data: cannot get data from environment config "my-env-config": data: no such field'
        ],
        "a config without data fails the merge",
    ),
    (
        "v0.7.1",
        _input(REF),
        {"fetched": {"environment-config-0": [{**_config("my-env-config"), "data": "x"}]}},
        [
            'cannot merge environment data: cannot get data from environment config "my-env-config": cannot '
            "unmarshal value from JSON: json: cannot unmarshal string into Go value of type map[string]interface {}"
        ],
        "data must be a map",
    ),
]


@pytest.mark.parametrize(
    ("release", "inp", "kw", "want"),
    [d[:4] for d in DIFFERENCES],
    ids=[f"{d[0]}-{i}" for i, d in enumerate(DIFFERENCES)],
)
def test_release_differences(release: str, inp: dict[str, Any], kw: dict[str, Any], want: list[str]) -> None:
    """One case per difference between releases (the table in _releases) and per upstream error text."""
    assert _fatal_of(release, inp, **kw) == want


@pytest.mark.parametrize(
    ("release", "api_version"),
    [("v0.2.0", "apiextensions.crossplane.io/v1alpha1"), ("v0.4.0", "apiextensions.crossplane.io/v1beta1")],
)
def test_requirement_api_version(release: str, api_version: str) -> None:
    """v0.3.0 moved the requirements from EnvironmentConfig v1alpha1 to v1beta1."""
    b = BEHAVIOURS[release]
    rsp = _run(b, _request(b, _input(REF)))
    assert rsp.requirements.extra_resources["environment-config-0"].api_version == api_version


@pytest.mark.parametrize("b", ALL, ids=[b.release for b in ALL])
def test_requirement_field(b: Behaviour) -> None:
    """v0.7.0 asks through requirements.resources and reads required_resources; earlier releases the extra ones."""
    rsp = _run(b, _request(b, _input(REF)))
    asked = rsp.requirements.resources if b.required else rsp.requirements.extra_resources
    other = rsp.requirements.extra_resources if b.required else rsp.requirements.resources
    assert list(asked) == ["environment-config-0"]
    assert not other
    # Answered in the other field, the release sees nothing fetched and writes no environment.
    req = _request(b, _input(REF))
    wrong = req.extra_resources if b.required else req.required_resources
    resource.fill_struct(
        wrong["environment-config-0"].items.add().resource, _config("my-env-config", {"k": "v"})
    )
    assert _env(_run(b, req)) == "absent"


QUIRKS = [
    pytest.param(
        {
            "apiVersion": "template.fn.crossplane.io/v1beta1",
            "kind": "Input",
            "spec": {"defaultData": {"a": 1}},
        },
        {},
        "absent",
        "without environmentConfigs the function does nothing, defaultData included",
        id="DefaultDataAlone",
    ),
    pytest.param(
        _input(REF, defaultData={"a": 1}),
        {},
        "absent",
        "until Crossplane answers a requirement nothing is written",
        id="NothingFetchedYet",
    ),
    pytest.param(
        _input(REF),
        {"fetched": {"environment-config-0": [_config("c", {"apiVersion": "a/b/c", "kind": "K"})]}},
        {"apiVersion": "internal.crossplane.io/v1alpha1", "kind": "Environment"},
        "an apiVersion Go cannot parse reads as an empty GVK and is replaced",
        id="MalformedAPIVersion",
    ),
    pytest.param(
        _input(REF),
        {"fetched": {"environment-config-0": [_config("c", {"kind": "Mine", "n": 1})]}},
        {"kind": "Mine", "n": 1},
        "a kind alone makes the GVK non-empty: nothing is added",
        id="KindOnly",
    ),
    pytest.param(
        _input(REF),
        {"fetched": {"environment-config-0": [_config("c", {"n": {"m": 1}})]}, "context": {ENV: "not a map"}},
        {"apiVersion": "internal.crossplane.io/v1alpha1", "kind": "Environment", "n": {"m": 1}},
        "an environment in the context that is not a map counts as empty",
        id="ContextNotAMap",
    ),
]


@pytest.mark.parametrize(("inp", "kw", "want", "reason"), QUIRKS)
def test_quirks(inp: dict[str, Any], kw: dict[str, Any], want: Any, reason: str) -> None:
    b = BEHAVIOURS["v0.7.1"]
    rsp = _run(b, _request(b, inp, **kw))
    assert not rsp.results, reason
    assert _env(rsp) == want, reason


def test_served_objects_match_releases() -> None:
    """Every behaviour is reachable as a module object the registry names."""
    assert environment_configs.compose.b is BEHAVIOURS["v0.7.1"]
    for release, b in BEHAVIOURS.items():
        obj = (
            getattr(environment_configs, "v" + release[1:].replace(".", "_"), None)
            or environment_configs.compose
        )
        assert obj.b is b
