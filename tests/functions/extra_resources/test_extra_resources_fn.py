"""extra-resources: upstream's fn_test.go cases, re-expressed, and one case per release difference.

The first tables are function-extra-resources' own tests (v0.3.0's
``TestRunFunction``; its ``TestSortExtrasByFieldPath`` is the same table as
environment-configs', run in ``tests/functions/environment_configs``), run
against every release they hold for: the requirement field (``extra_resources``
before v0.3.0) and the Fatal target change with the release, the behaviour does
not. The last table has one case per row of ``crossfn.functions.extra_resources._releases``.
"""

from __future__ import annotations

from typing import Any

import pytest

from crossfn.functions import extra_resources
from crossfn.functions.extra_resources._releases import BEHAVIOURS, Behaviour
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource, response, testing

KEY = extra_resources.CONTEXT_KEY
EC = "apiextensions.crossplane.io/v1beta1"
XR = {"apiVersion": "test.crossplane.io/v1alpha1", "kind": "XR", "metadata": {"name": "my-xr"}}
ALL = list(BEHAVIOURS.values())


def _config(name: str, data: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": EC, "kind": "EnvironmentConfig", "metadata": {"name": name}, "data": data}


def _input(*sources: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "extra-resources.fn.crossplane.io/v1beta1",
        "kind": "Input",
        "spec": {"extraResources": list(sources), **spec},
    }


def _ref(into: str, name: str, **more: Any) -> dict[str, Any]:
    return {
        "type": "Reference",
        "kind": "EnvironmentConfig",
        "apiVersion": EC,
        "into": into,
        "ref": {"name": name},
        **more,
    }


def _sel(into: str, *matchers: dict[str, Any], **selector: Any) -> dict[str, Any]:
    return {
        "type": "Selector",
        "kind": "EnvironmentConfig",
        "apiVersion": EC,
        "into": into,
        "selector": {"matchLabels": list(matchers), **selector},
    }


FOO_BAR = {"type": "Value", "key": "foo", "value": "bar"}
MISSING_OPTIONAL = {
    "key": "someMoreFoo",
    "valueFromFieldPath": "spec.missingEnvSelectorLabel",
    "fromFieldPathPolicy": "Optional",
}
FROM_XR = {
    "key": "someMoreFoo",
    "valueFromFieldPath": "spec.existingEnvSelectorLabel",
    "fromFieldPathPolicy": "Required",
}
FIVE = (
    _ref("obj-0", "my-env-config"),
    _ref("obj-1", "my-second-env-config"),
    _sel("obj-2", FOO_BAR),
    _sel("obj-3", MISSING_OPTIONAL),
    _sel("obj-4", FROM_XR),
)


def _request(
    b: Behaviour,
    inp: dict[str, Any],
    *,
    xr: dict[str, Any] | None = None,
    fetched: dict[str, list[dict[str, Any]]] | None = None,
) -> fnv1.RunFunctionRequest:
    req = testing.build_request(tag="hello", observed_composite=xr or XR, input=inp)
    into = req.required_resources if b.required else req.extra_resources
    for name, items in (fetched or {}).items():
        into[name].SetInParent()
        for item in items:
            resource.fill_struct(into[name].items.add().resource, item)
    return req


def _run(b: Behaviour, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
    rsp = response.to(req)
    extra_resources.ExtraResources(b)(req, rsp)
    return rsp


def _requirements(rsp: fnv1.RunFunctionResponse, b: Behaviour) -> dict[str, dict[str, Any]]:
    got = rsp.requirements.resources if b.required else rsp.requirements.extra_resources
    return {k: testing.to_dict(v) for k, v in got.items()}


def _context(rsp: fnv1.RunFunctionResponse) -> Any:
    return resource.value_to_python(rsp.context.fields[KEY]) if KEY in rsp.context.fields else "absent"


def _fatals(rsp: fnv1.RunFunctionResponse) -> list[str]:
    return [r.message for r in rsp.results if r.severity == fnv1.SEVERITY_FATAL]


def _name(name: str) -> dict[str, Any]:
    return {"apiVersion": EC, "kind": "EnvironmentConfig", "matchName": name}


def _labels(labels: dict[str, str]) -> dict[str, Any]:
    return {"apiVersion": EC, "kind": "EnvironmentConfig", "matchLabels": {"labels": labels}}


@pytest.mark.parametrize("b", ALL, ids=[b.release for b in ALL])
def test_request_extra_resources(b: Behaviour) -> None:
    """RequestExtraResources: one requirement per source, named by ``into``; namespaces from v0.2.0."""
    xr = {**XR, "spec": {"existingEnvSelectorLabel": "someMoreBar", "existingBazLabel": "someMoreBar"}}
    namespaced = (
        {
            "type": "Reference",
            "kind": "Foo",
            "apiVersion": "test.crossplane.io/v1alpha1",
            "namespace": "my-namespace",
            "into": "obj-5",
            "ref": {"name": "my-foo"},
        },
        {
            "type": "Selector",
            "kind": "Bar",
            "apiVersion": "test.crossplane.io/v1alpha1",
            "namespace": "my-namespace",
            "into": "obj-6",
            "selector": {
                "matchLabels": [
                    {
                        "key": "someMoreBar",
                        "valueFromFieldPath": "spec.existingBazLabel",
                        "fromFieldPathPolicy": "Required",
                    }
                ]
            },
        },
    )
    want = {
        "obj-0": _name("my-env-config"),
        "obj-1": _name("my-second-env-config"),
        "obj-2": _labels({"foo": "bar"}),
        "obj-4": _labels({"someMoreFoo": "someMoreBar"}),
    }
    if not b.namespace:
        rsp = _run(b, _request(b, _input(*FIVE), xr=xr))
        assert _requirements(rsp, b) == want, "obj-3 is not requested: its only label is optional and missing"
        return
    rsp = _run(b, _request(b, _input(*FIVE, *namespaced), xr=xr))
    assert _requirements(rsp, b) == {
        **want,
        "obj-5": {
            "apiVersion": "test.crossplane.io/v1alpha1",
            "kind": "Foo",
            "matchName": "my-foo",
            "namespace": "my-namespace",
        },
        "obj-6": {
            "apiVersion": "test.crossplane.io/v1alpha1",
            "kind": "Bar",
            "matchLabels": {"labels": {"someMoreBar": "someMoreBar"}},
            "namespace": "my-namespace",
        },
    }
    assert not rsp.results
    assert _context(rsp) == "absent"


FOUND = {
    "obj-0": [_config("my-env-config", {"firstKey": "firstVal", "secondKey": "secondVal"})],
    "obj-1": [_config("my-second-env-config", {"secondKey": "secondVal-ok", "thirdKey": "thirdVal"})],
    "obj-2": [
        _config("my-third-env-config-b", {"fourthKey": "fourthVal-b"}),
        _config("my-third-env-config-a", {"fourthKey": "fourthVal-a"}),
    ],
    "obj-3": [_config("my-third-env-config", {"fifthKey": "fifthVal"})],
    "obj-4": [_config("my-fourth-env-config", {"sixthKey": "sixthVal"})],
}


@pytest.mark.parametrize("b", ALL, ids=[b.release for b in ALL])
def test_request_environment_configs_found(b: Behaviour) -> None:
    """RequestEnvironmentConfigsFound: the fetched resources land under their ``into``, a selector's sorted by name."""
    rsp = _run(
        b,
        _request(
            b, _input(*FIVE), xr={**XR, "spec": {"existingEnvSelectorLabel": "someMoreBar"}}, fetched=FOUND
        ),
    )
    assert set(_requirements(rsp, b)) == {"obj-0", "obj-1", "obj-2", "obj-4"}
    assert not rsp.results
    assert _context(rsp) == {
        "obj-0": FOUND["obj-0"],
        "obj-1": FOUND["obj-1"],
        "obj-2": [FOUND["obj-2"][1], FOUND["obj-2"][0]],
        "obj-3": FOUND["obj-3"],
        "obj-4": FOUND["obj-4"],
    }


@pytest.mark.parametrize("b", ALL, ids=[b.release for b in ALL])
def test_request_environment_configs_not_found_required(b: Behaviour) -> None:
    """RequestEnvironmentConfigsNotFoundRequired: the source's ``into`` was not answered: a Fatal result."""
    rsp = _run(b, _request(b, _input(_ref("obj-0", "my-env-config")), fetched={"environment-config-0": []}))
    prefix = (
        "verifying and sorting extra resources" if b.checks_are_results else "sorting and verifying results"
    )
    assert _fatals(rsp) == [f'{prefix}: cannot find expected extra resource "obj-0"']
    assert rsp.results[0].HasField("target") == b.sdk.targets
    assert _requirements(rsp, b) == {"obj-0": _name("my-env-config")}


WRAP_V1 = (
    "cannot get Function input from *v1.RunFunctionRequest: cannot get function input *v1beta1.Input from "
    "*v1.RunFunctionRequest: cannot unmarshal JSON from *structpb.Struct into *v1beta1.Input: "
)
NIL = "panic: runtime error: invalid memory address or nil pointer dereference"

# (release, input, request keywords, the Fatal results, why)
DIFFERENCES = [
    (
        "v0.0.2",
        _input(_sel("a", FOO_BAR, minMatch=2)),
        {"fetched": {"a": [_config("x", {})]}},
        ['sorting and verifying results: expected at least 2 extra resources "a", got 1'],
        "before v0.0.3 a failed check fails the call (the text of the error it returns)",
    ),
    (
        "v0.0.3",
        _input(_sel("a", FOO_BAR, minMatch=2)),
        {"fetched": {"a": [_config("x", {})]}},
        ['verifying and sorting extra resources: expected at least 2 extra resources "a", got 1'],
        "from v0.0.3 it is a Fatal result",
    ),
    (
        "v0.0.2",
        _input(_ref("a", "x")),
        {"fetched": {"a": []}},
        ["panic: runtime error: index out of range [0] with length 0"],
        "before v0.0.3 a required reference that matched nothing crashes",
    ),
    (
        "v0.0.3",
        _input(_ref("a", "x")),
        {"fetched": {"a": []}},
        ['verifying and sorting extra resources: Required extra resource "a" not found'],
        "v0.0.3 says so",
    ),
    (
        "v0.3.0",
        _input(_ref("a", "x")),
        {"fetched": {"a": [_config("x", {}), _config("y", {})]}},
        ['verifying and sorting extra resources: expected exactly one extra resource "a", got 2'],
        "a reference that matched two",
    ),
    (
        "v0.0.3",
        _input(_sel("a", {"type": "Value", "key": "k"})),
        {},
        [NIL],
        "before v0.1.0 a Value matcher without value crashes",
    ),
    (
        "v0.1.0",
        _input(_sel("a", {"type": "Value", "key": "k"})),
        {},
        ["could not build extra resource requirements: Value cannot be nil for type 'Value'"],
        "v0.1.0 checks",
    ),
    (
        "v0.1.0",
        _input(_sel("a", {"key": "k"})),
        {},
        [
            "could not build extra resource requirements: ValueFromFieldPath cannot be nil for type 'FromCompositeFieldPath'"
        ],
        "v0.1.0 checks the field path too",
    ),
    (
        "v0.1.0",
        _input(_ref("a", "x", namespace="ns")),
        {},
        [
            WRAP_V1
            + 'json: cannot unmarshal Go value of type v1beta1.ResourceSource: unknown name "namespace"'
        ],
        "namespace arrived in v0.2.0",
    ),
    (
        "v0.0.3",
        _input(_ref("a", "x"), bogus=True),
        {},
        [
            "cannot get Function input from *v1beta1.RunFunctionRequest: cannot get Function input %T from %T, into, "
            "req: cannot unmarshal JSON from *structpb.Struct into *v1beta1.Input: json: cannot unmarshal Go value "
            'of type v1beta1.InputSpec: unknown name "bogus"'
        ],
        "function-sdk-go v0.2.0's wrapper (its verbs printed literally) and strict decoding",
    ),
    (
        "v0.3.0",
        _input({"type": "Reference", "into": "a"}),
        {},
        [NIL],
        "a Reference without ref crashes upstream",
    ),
    (
        "v0.3.0",
        _input(_sel("a", FROM_XR)),
        {},
        [
            'could not build extra resource requirements: cannot get value from field path "spec.existingEnvSelectorLabel": '
            "spec: no such field"
        ],
        "a required label the XR lacks",
    ),
    (
        "v0.3.0",
        _input(_sel("a", FOO_BAR, sortByFieldPath="data.v")),
        {"fetched": {"a": [_config("x", {"v": True}), _config("y", {"v": False})]}},
        ['verifying and sorting extra resources: unsupported type "bool" for sorting'],
        "only numbers and strings sort",
    ),
]


@pytest.mark.parametrize(
    ("release", "inp", "kw", "want"),
    [d[:4] for d in DIFFERENCES],
    ids=[f"{d[0]}-{i}" for i, d in enumerate(DIFFERENCES)],
)
def test_release_differences(release: str, inp: dict[str, Any], kw: dict[str, Any], want: list[str]) -> None:
    """One case per difference between releases (the table in _releases) and per upstream error text."""
    b = BEHAVIOURS[release]
    assert _fatals(_run(b, _request(b, inp, **kw))) == want


@pytest.mark.parametrize("b", ALL, ids=[b.release for b in ALL])
def test_requirement_field(b: Behaviour) -> None:
    """v0.3.0 asks through requirements.resources and reads required_resources; earlier releases the extra ones."""
    rsp = _run(b, _request(b, _input(_ref("a", "x"))))
    asked = rsp.requirements.resources if b.required else rsp.requirements.extra_resources
    other = rsp.requirements.extra_resources if b.required else rsp.requirements.resources
    assert list(asked) == ["a"]
    assert not other
    req = _request(b, _input(_ref("a", "x")))
    wrong = req.extra_resources if b.required else req.required_resources
    resource.fill_struct(wrong["a"].items.add().resource, _config("x", {}))
    assert _context(_run(b, req)) == "absent", "answered in the other field, the release sees nothing fetched"


CONTEXTS = [
    pytest.param(
        _input(_sel("a", FOO_BAR, maxMatch=1, sortByFieldPath="data.n")),
        {"a": [_config("x", {"n": 2}), _config("y", {"n": 1})]},
        {"a": [_config("y", {"n": 1})]},
        "a selector's matches are sorted by the field path, then cut to maxMatch",
        id="SortAndCut",
    ),
    pytest.param(
        _input(_sel("a", FOO_BAR)),
        {"a": []},
        {},
        "a selector that matched nothing is left out of the context",
        id="EmptySelector",
    ),
    pytest.param(
        _input(_ref("a", "x"), policy={"resolution": "Optional"}),
        {"a": []},
        {},
        "an optional reference that matched nothing is left out",
        id="OptionalReference",
    ),
    pytest.param(
        _input(_ref("a", "x"), _sel("a", FOO_BAR)),
        {
            "a": [
                _config("x", {}),
            ]
        },
        {"a": [_config("x", {}), _config("x", {})]},
        "two sources with one into share the requirement and append to one list",
        id="SharedInto",
    ),
]


@pytest.mark.parametrize(("inp", "fetched", "want", "reason"), CONTEXTS)
def test_context(
    inp: dict[str, Any], fetched: dict[str, list[dict[str, Any]]], want: Any, reason: str
) -> None:
    b = BEHAVIOURS["v0.3.0"]
    rsp = _run(b, _request(b, inp, fetched=fetched))
    assert not rsp.results, reason
    assert _context(rsp) == want, reason


def test_served_objects_match_releases() -> None:
    """Every behaviour is reachable as a module object the registry names."""
    assert extra_resources.compose.b is BEHAVIOURS["v0.3.0"]
    for release, b in BEHAVIOURS.items():
        obj = getattr(extra_resources, "v" + release[1:].replace(".", "_"), None) or extra_resources.compose
        assert obj.b is b
