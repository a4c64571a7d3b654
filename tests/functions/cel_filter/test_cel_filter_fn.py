"""cel-filter: upstream's fn_test.go cases, re-expressed, the README's expressions, and the error texts."""

from __future__ import annotations

from typing import Any

import pytest

from crossfn.functions import cel_filter
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import testing

V02 = cel_filter.compose
V01 = cel_filter.v0_1_1


def _input(*filters: tuple[str, str]) -> dict[str, Any]:
    return {
        "apiVersion": "filters.cel.crossplane.io/v1beta1",
        "kind": "Filters",
        **({"filters": [{"name": n, "expression": e} for n, e in filters]} if filters else {}),
    }


def _kept(fn: cel_filter.CelFilter, inp: dict[str, Any], **request: Any) -> tuple[list[str], list[str]]:
    rsp = testing.run(fn, testing.build_request(tag="hello", input=inp, **request))
    fatals = [r.message for r in rsp.results if r.severity == fnv1.SEVERITY_FATAL]
    return sorted(rsp.desired.resources), fatals


THREE: dict[str, dict[str, Any]] = {
    "matching-resource-a": {},
    "matching-resource-b": {},
    "non-matching-resource": {},
}


@pytest.mark.parametrize("fn", [V01, V02], ids=["v0.1.1", "v0.2.0"])
def test_empty_filters_does_nothing(fn: cel_filter.CelFilter) -> None:
    """EmptyFiltersDoesNothing: no filters, every desired resource stays."""
    assert _kept(fn, _input(), desired_resources=THREE) == (sorted(THREE), [])


@pytest.mark.parametrize("fn", [V01, V02], ids=["v0.1.1", "v0.2.0"])
def test_basic_filter(fn: cel_filter.CelFilter) -> None:
    """BasicFilter: both filters match; the second is false (widgets is 42), so both matching resources go."""
    inp = _input(
        ("matching-.*", "observed.composite.resource.spec.watchers == 42"),
        ("matching-.*", "observed.composite.resource.spec.widgets == 88"),
    )
    got = _kept(
        fn, inp, observed_composite={"spec": {"watchers": 42, "widgets": 42}}, desired_resources=THREE
    )
    assert got == (["non-matching-resource"], [])


OBSERVED: dict[str, Any] = {
    "observed_composite": {"spec": {"widgets": 42, "export": "S3", "tags": ["a", "b"]}},
    "observed_resources": {"bucket": {"spec": {"widgets": 42}}},
}
# (expression, kept, why): the README's examples and cel-go semantics cel-python needs help with.
EXPRESSIONS = [
    (
        "observed.composite.resource.spec.widgets == 42",
        True,
        "a Struct's number is a double; equal to the int 42",
    ),
    ("observed.composite.resource.spec.widgets != 42", False, "!= is the negation"),
    ("observed.composite.resource.spec.widgets == 42.5", False, "not every double is an int"),
    (
        'observed.composite.resource.spec.widgets == "42"',
        False,
        "a double and a string are unequal, not an error",
    ),
    ("42 in [observed.composite.resource.spec.widgets]", True, "in uses the same equality"),
    ('"bucket" in desired.resources', True, "map membership"),
    ('"nope" in desired.resources', False, "a missing key"),
    ('desired.resources["bucket"].resource.spec.widgets == 42', True, "the desired state"),
    (
        "observed.resources['bucket'].connection_details['user'] == b'admin'",
        True,
        "connection details are bytes",
    ),
    ("observed.resources['bucket'].connection_details['user'] == 'admin'", False, "bytes are not a string"),
    ('observed.composite.resource.spec.tags == ["a", "b"]', True, "lists compare element by element"),
    ("has(observed.composite.resource.spec.export)", True, "has() on a Struct field"),
    ("desired.resources.exists(n, n.startsWith('b'))", True, "macros over a map's keys"),
    ("size(context) == 0", True, "no context is an empty map"),
    ("desired.resources['bucket'].ready == 1", True, "ready is the enum's number"),
]


@pytest.mark.parametrize(("expression", "kept", "why"), EXPRESSIONS, ids=[e[0] for e in EXPRESSIONS])
def test_expressions(expression: str, kept: bool, why: str) -> None:
    req = testing.build_request(input=_input(("bucket", expression)), **OBSERVED)
    req.observed.resources["bucket"].connection_details["user"] = b"admin"
    resource = req.desired.resources["bucket"]
    resource.resource.update({"spec": {"widgets": 42}})
    resource.ready = fnv1.READY_TRUE
    rsp = testing.run(V02, req)
    assert not rsp.results, why
    assert ("bucket" in rsp.desired.resources) == kept, why


CAUSES = [
    (
        "observed.composite.resource.spec.export",
        'expression "observed.composite.resource.spec.export" must return a boolean, but will return dyn instead',
        "a Struct field is dyn: cel-go refuses it before evaluating",
    ),
    (
        "size(context)",
        'expression "size(context)" must return a boolean, but will return int instead',
        "an int",
    ),
    (
        "observed",
        'expression "observed" must return a boolean, but will return apiextensions.fn.proto.v1.State instead',
        "the message type by its full name",
    ),
    (
        "observed.foo == 1",
        "cannot type-check expression: ERROR: <input>:1:9: undefined field 'foo'\n | observed.foo == 1\n | ........^",
        "a field the State message lacks, marked at the dot",
    ),
    (
        "spec.x == 1 && bar",
        "cannot type-check expression: ERROR: <input>:1:1: undeclared reference to 'spec' (in container '')\n"
        " | spec.x == 1 && bar\n | ^\n"
        "ERROR: <input>:1:16: undeclared reference to 'bar' (in container '')\n | spec.x == 1 && bar\n"
        " | ...............^",
        "every undeclared variable, in order",
    ),
    (
        "observed.composite.resource.spec.missing == 1",
        "cannot evaluate CEL program: no such key: missing",
        "a missing key fails at run time",
    ),
]


@pytest.mark.parametrize(("expression", "cause", "why"), CAUSES, ids=[c[0] for c in CAUSES])
def test_errors(expression: str, cause: str, why: str) -> None:
    got = _kept(V02, _input(("x", expression)), **OBSERVED)
    assert got[1] == [f"cannot evaluate CEL expression {_q(expression)} for filter 0: {cause}"], why


def _q(s: str) -> str:
    return '"' + s.replace('"', '\\"') + '"'


def test_release_types() -> None:
    """v0.1.x was built on protocol v1beta1: its texts name that package and its SDK's wrapper."""
    got = _kept(V01, _input(("x", "observed")))
    assert got[1] == [
        'cannot evaluate CEL expression "observed" for filter 0: expression "observed" must return a boolean, '
        "but will return apiextensions.fn.proto.v1beta1.State instead"
    ]
    got = _kept(V01, {**_input(), "bogus": 1})
    assert got[1] == [
        "cannot get filters from *v1beta1.RunFunctionRequest: cannot get Function input %T from %T, into, req: "
        "cannot unmarshal JSON from *structpb.Struct into *v1beta1.Filters: json: cannot unmarshal Go value of "
        'type v1beta1.Filters: unknown name "bogus"'
    ]


def test_bad_name() -> None:
    """A name that is no Go regular expression is a Fatal result naming the anchored pattern."""
    got = _kept(V02, _input(("(", "true")))
    assert got[1] == [
        'cannot compile regular expression "^($" for filter 0: error parsing regexp: missing closing ): `^($`'
    ]


def test_first_failure_stops() -> None:
    """Filters are evaluated in order, even ones no resource matches; the first failure is the only result."""
    got = _kept(V02, _input(("nothing", "observed.foo == 1"), ("x", "nope")), desired_resources=THREE)
    assert got[0] == sorted(THREE), "a Fatal result leaves the desired state as it was"
    assert len(got[1]) == 1 and "for filter 0" in got[1][0]


def test_targets() -> None:
    """v0.2.0's SDK targets the composite with its Fatal results; v0.1.x's does not."""
    for fn, targeted in ((V02, True), (V01, False)):
        rsp = testing.run(fn, testing.build_request(input=_input(("x", "1"))))
        assert rsp.results[0].HasField("target") is targeted
