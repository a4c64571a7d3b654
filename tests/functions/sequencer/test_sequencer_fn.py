"""function-sequencer, release by release: upstream's fn_test.go cases re-expressed, and each release's differences.

The requests use upstream's fixtures (an XR ``cool-xr`` and an MR ``cool-mr``);
expected Usage names and messages are upstream's.
"""

from __future__ import annotations

from typing import Any

import pytest
from google.protobuf import json_format

from crossfn.functions import sequencer
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource, response

XR = {"apiVersion": "example.org/v1", "kind": "XR", "metadata": {"name": "cool-xr"}, "spec": {"count": 2}}
MR = {"apiVersion": "example.org/v1", "kind": "MR", "metadata": {"name": "cool-mr"}}
NXR = {**XR, "metadata": {"name": "cool-xr", "namespace": "cool-namespace"}}
NMR = {**MR, "metadata": {"name": "cool-mr", "namespace": "cool-namespace"}}
T, U = "READY_TRUE", "READY_UNSPECIFIED"


def _usage(
    api: str, kind: str, name: str, of: dict[str, Any], by: dict[str, Any], *, ns: str = ""
) -> dict[str, Any]:
    meta = {"name": name, **({"namespace": ns} if ns else {})}

    def ref(o: dict[str, Any]) -> dict[str, Any]:
        return {
            "apiVersion": o["apiVersion"],
            "kind": o["kind"],
            "resourceRef": {"name": o["metadata"]["name"]},
        }

    return {
        "apiVersion": api,
        "kind": kind,
        "metadata": meta,
        "spec": {"by": ref(by), "of": ref(of), "reason": "dependency", "replayDeletion": True},
    }


UV1 = _usage(
    "apiextensions.crossplane.io/v1beta1", "Usage", "mr-cool-mr-xr-cool-xr-d9f469-dependency", XR, MR
)
UV2 = _usage(
    "protection.crossplane.io/v1beta1", "ClusterUsage", "mr-cool-mr-xr-cool-xr-d9f469-dependency", XR, MR
)
NUV2 = _usage(
    "protection.crossplane.io/v1beta1",
    "Usage",
    "mr-cool-mr-xr-cool-xr-d9f469-dependency",
    NXR,
    NMR,
    ns="cool-namespace",
)


def _res(obj: dict[str, Any], ready: str = U) -> dict[str, Any]:
    return {"resource": obj, "ready": ready}


def _run(
    release: str,
    inp: dict[str, Any],
    desired: dict[str, dict[str, Any]],
    observed: dict[str, dict[str, Any]] | None = None,
) -> fnv1.RunFunctionResponse:
    req = json_format.ParseDict(
        {
            "input": {"apiVersion": "sequencer.fn.crossplane.io/v1beta1", "kind": "Input", **inp},
            "observed": {"composite": {"resource": XR}, "resources": observed or {}},
            "desired": {"composite": {"resource": XR}, "resources": desired},
        },
        fnv1.RunFunctionRequest(),
    )
    rsp = response.to(req)
    sequencer.Sequencer(release)(req, rsp)
    return rsp


def _results(rsp: fnv1.RunFunctionResponse) -> list[tuple[str, str, str]]:
    return [
        (
            fnv1.Severity.Name(r.severity),
            r.message,
            fnv1.Target.Name(r.target) if r.HasField("target") else "",
        )
        for r in rsp.results
    ]


def _desired(rsp: fnv1.RunFunctionResponse) -> dict[str, tuple[dict[str, Any], str]]:
    return {
        k: (resource.struct_to_dict(v.resource), fnv1.Ready.Name(v.ready))
        for k, v in rsp.desired.resources.items()
    }


def _seq(*names: str, **rule: Any) -> dict[str, Any]:
    return {"rules": [{"sequence": list(names), **rule}]}


C = "TARGET_COMPOSITE"
N = "SEVERITY_NORMAL"
F = "SEVERITY_FATAL"

# (release, input, desired, observed, want results, want desired names -> ready, reason)
CASES = [
    pytest.param(
        "v0.6.0",
        _seq("first", "second"),
        {"first": _res(MR), "second": _res(MR)},
        {"first": _res(MR), "second": _res(MR)},
        [],
        {"first": U, "second": U},
        "resources that already exist are never held back",
        id="ObservedAreSkipped",
    ),
    pytest.param(
        "v0.6.0",
        _seq("first", "second"),
        {"second": _res(MR)},
        None,
        [(N, 'Delaying creation of resource(s) matching "second" because "first" does not exist yet', C)],
        {},
        "a resource waits for an earlier one that is not desired",
        id="FirstNotCreated",
    ),
    pytest.param(
        "v0.6.0",
        _seq("first", "second"),
        {"first": _res(MR), "second": _res(MR)},
        None,
        [
            (
                N,
                'Delaying creation of resource(s) matching "second" because "first" is not fully ready (0 of 1)',
                C,
            )
        ],
        {"first": U},
        "a resource waits for an earlier one that is not ready",
        id="FirstNotReady",
    ),
    pytest.param(
        "v0.6.0",
        _seq("first", "second"),
        {"first": _res(MR, T), "second": _res(MR)},
        None,
        [],
        {"first": T, "second": U},
        "a ready predecessor lets the next resource be created",
        id="FirstReady",
    ),
    pytest.param(
        "v0.6.0",
        _seq("first-.*", "second"),
        {"first-0": _res(MR, T), "first-1": _res(MR), "second": _res(MR)},
        None,
        [
            (
                N,
                'Delaying creation of resource(s) matching "second" because "first-.*" is not fully ready (1 of 2)',
                C,
            )
        ],
        {"first-0": T, "first-1": U},
        "every resource a pattern matches must be ready",
        id="SequenceRegexNotAllReady",
    ),
    pytest.param(
        "v0.6.0",
        _seq("first", "^second"),
        {"first": _res(MR), "second-0": _res(MR), "second-1": _res(MR), "third": _res(MR)},
        {"second-1": _res(MR)},
        [
            (
                N,
                'Delaying creation of resource(s) matching "^second" because "first" is not fully ready (0 of 1)',
                C,
            )
        ],
        {"first": U, "second-1": U, "third": U},
        "an anchored pattern is used as written; a matching resource that exists is kept",
        id="SequenceRegexAlreadyPrefixed",
    ),
    pytest.param(
        "v0.6.0",
        _seq("^(", "second"),
        {"first-0": _res(MR, T), "second": _res(MR, T)},
        None,
        [(F, "cannot compile regex ^(: error parsing regexp: missing closing ): `^(`", C)],
        {"first-0": T, "second": T},
        "an invalid pattern is a Fatal result and leaves the desired state alone",
        id="SequenceRegexInvalidRegex",
    ),
    pytest.param(
        "v0.6.0",
        {
            **_seq("first", "second"),
            "enableDeletionSequencing": True,
            "replayDeletion": True,
            "usageVersion": "v1",
        },
        {"first": _res(XR, T), "second": _res(MR, T)},
        {"first": _res(XR, T), "second": _res(MR, T)},
        [],
        {"first": T, "second": T, "second-first-usage": T},
        "an existing pair gets a Crossplane v1 Usage",
        id="FirstReadyUsageV1",
    ),
    pytest.param(
        "v0.6.0",
        {
            **_seq("first", "second"),
            "enableDeletionSequencing": True,
            "replayDeletion": True,
            "usageVersion": "v2",
        },
        {"first": _res(NXR, T), "second": _res(NMR, T)},
        {"first": _res(NXR, T), "second": _res(NMR, T)},
        [],
        {"first": T, "second": T, "second-first-usage": T},
        "a namespaced pair gets a namespaced v2 Usage",
        id="FirstReadyUsageV2Namespaced",
    ),
    pytest.param(
        "v0.6.0",
        {**_seq("first-.*", "second-.*"), "enableDeletionSequencing": True, "usageVersion": "v2"},
        {"first-foo": _res(XR, T), "second-foo": _res(MR, T)},
        {"second-foo": _res(MR, T)},
        [],
        {"first-foo": T, "second-foo": T},
        "v0.6.0 makes no Usage for a predecessor that does not exist yet",
        id="DeletionSequencingBeforeResourceNotObserved",
    ),
    pytest.param(
        "v0.5.0",
        {**_seq("first-.*", "second-.*"), "enableDeletionSequencing": True, "usageVersion": "v2"},
        {"first-foo": _res(XR, T), "second-foo": _res(MR, T)},
        {"second-foo": _res(MR, T)},
        [(F, "panic: runtime error: invalid memory address or nil pointer dereference", C)],
        {"first-foo": T, "second-foo": T},
        "v0.5.0 crashes on the same request (fixed in v0.6.0); crossfn reports it as a Fatal result",
        id="V050DeletionSequencingBeforeResourceNotObservedPanics",
    ),
    pytest.param(
        "v0.6.0",
        {**_seq("first", "second", "third"), "resetCompositeReadiness": True},
        {"first": _res(MR), "second": _res(MR), "third": _res(MR)},
        {"first": _res(MR), "second": _res(MR)},
        [
            (
                N,
                'Delaying creation of resource(s) matching "third" because "first" is not fully ready (0 of 1)',
                C,
            )
        ],
        {"first": U, "second": U},
        "resetCompositeReadiness marks the XR not ready when a resource is held back",
        id="MarkCompositeNotReady",
    ),
    pytest.param(
        "v0.6.0",
        _seq("first", "second", condition="observed.composite.resource.spec.count == 999.0"),
        {"first": _res(MR), "second": _res(MR)},
        None,
        [
            (
                N,
                'Skipping sequence [first second]: condition "observed.composite.resource.spec.count == 999.0" evaluated to false',
                C,
            )
        ],
        {"first": U, "second": U},
        "a false condition skips the whole sequence",
        id="ConditionFalseSkipsSequence",
    ),
    pytest.param(
        "v0.6.0",
        _seq("first", "second", condition="observed.composite.resource.spec.count == 2.0"),
        {"first": _res(MR), "second": _res(MR)},
        None,
        [
            (
                N,
                'Delaying creation of resource(s) matching "second" because "first" is not fully ready (0 of 1)',
                C,
            )
        ],
        {"first": U},
        "a true condition sequences as usual",
        id="ConditionTrueRunsNormally",
    ),
    pytest.param(
        "v0.6.0",
        _seq("first", "second", condition="observed.composite.resource.spec.count"),
        {"first": _res(MR), "second": _res(MR)},
        None,
        [
            (
                F,
                'cannot evaluate condition "observed.composite.resource.spec.count" for sequence [first second]: '
                "CEL condition result is not bool",
                C,
            )
        ],
        {"first": U, "second": U},
        "a condition that gives no bool is a Fatal result",
        id="NonBoolResult",
    ),
    pytest.param(
        "v0.6.0",
        _seq("first", "second", condition="observed.composite.resource.spec.missing == true"),
        {"first": _res(MR), "second": _res(MR)},
        None,
        [
            (
                F,
                'cannot evaluate condition "observed.composite.resource.spec.missing == true" for sequence '
                "[first second]: cannot evaluate CEL condition: no such key: missing",
                C,
            )
        ],
        {"first": U, "second": U},
        "a missing field is cel-go's no such key",
        id="ConditionMissingKey",
    ),
    pytest.param(
        "v0.6.0",
        _seq("first", "second", deleteOnly=True),
        {"first": _res(MR), "second": _res(MR)},
        None,
        [],
        {"first": U, "second": U},
        "deleteOnly never holds a resource back",
        id="DeleteOnlySkipsCreationBlocking",
    ),
    pytest.param(
        "v0.6.0",
        {**_seq("first", "second"), "cacheTTL": "5x"},
        {"second": _res(XR)},
        None,
        [(F, 'cannot set cacheTTL: time: unknown unit "x" in duration "5x"', C)],
        {"second": U},
        "an invalid cacheTTL is a Fatal result",
        id="InvalidCacheTTL",
    ),
    # Older releases.
    pytest.param(
        "v0.1.2",
        _seq("first", "second"),
        {"first": _res(MR), "second": _res(MR)},
        None,
        [
            (
                N,
                'Delaying creation of resource "second" because "first" is not ready or does not exist yet',
                "",
            )
        ],
        {"first": U},
        "v0.1.x: exact names, its own message, results without a target",
        id="V01FirstNotReady",
    ),
    pytest.param(
        "v0.1.2",
        _seq("first-.*", "second"),
        {"first-0": _res(MR, T), "second": _res(MR)},
        None,
        [
            (
                N,
                'Delaying creation of resource "second" because "first-.*" is not ready or does not exist yet',
                "",
            )
        ],
        {"first-0": T},
        "v0.1.x reads names literally: a pattern matches nothing",
        id="V01NoRegex",
    ),
    pytest.param(
        "v0.2.0",
        _seq("first", "second"),
        {"first-0": _res(MR, T), "first": _res(MR, T), "second": _res(MR)},
        None,
        [],
        {"first-0": T, "first": T, "second": U},
        "v0.2.0 patterns are unanchored: first matches first-0 too",
        id="V020Unanchored",
    ),
    pytest.param(
        "v0.2.0",
        _seq("first", "sec.*"),
        {"first": _res(MR), "second": _res(MR)},
        None,
        [(N, 'Delaying creation of resource "sec.*" because "first" is not fully ready (0 of 1)', "")],
        {"first": U, "second": U},
        "v0.2.0 removes only the resource named exactly as the waiting name",
        id="V020RemovesExactName",
    ),
    pytest.param(
        "v0.2.0",
        _seq("(", "second"),
        {"second": _res(MR)},
        None,
        [(F, 'panic: regexp: Compile("("): error parsing regexp: missing closing ): `(`', "")],
        {"second": U},
        "v0.2.0 compiles with MustCompile and crashes on an invalid pattern",
        id="V020InvalidPanics",
    ),
    pytest.param(
        "v0.2.1",
        _seq("(", "second"),
        {"second": _res(MR)},
        None,
        [(F, "cannot compile regex ^($: error parsing regexp: missing closing ): `^($`", "")],
        {"second": U},
        "v0.2.1 names the anchored pattern in its error",
        id="V021InvalidAnchored",
    ),
    pytest.param(
        "v0.2.2",
        _seq("first", "sec.*"),
        {"first": _res(MR), "second": _res(MR), "sec": _res(MR)},
        {"second": _res(MR)},
        [
            (
                N,
                'Delaying creation of resource(s) matching "sec.*" because "first" is not fully ready (0 of 1)',
                "",
            )
        ],
        {"first": U},
        "v0.2.2 removes every match, even one that exists",
        id="V022RemovesObservedMatches",
    ),
    pytest.param(
        "v0.3.0",
        _seq("first", "sec.*"),
        {"first": _res(MR), "second": _res(MR), "sec": _res(MR)},
        {"second": _res(MR)},
        [
            (
                N,
                'Delaying creation of resource(s) matching "sec.*" because "first" is not fully ready (0 of 1)',
                "",
            )
        ],
        {"first": U, "second": U},
        "v0.2.3 and v0.3.0 keep matches that exist",
        id="V030KeepsObservedMatches",
    ),
    pytest.param(
        "v0.2.2",
        _seq("first", "("),
        {"first": _res(MR)},
        None,
        [
            (
                N,
                'Delaying creation of resource(s) matching "(" because "first" is not fully ready (0 of 1)',
                "",
            ),
            (F, "panic: runtime error: invalid memory address or nil pointer dereference", ""),
        ],
        {"first": U},
        "v0.2.2 to v0.3.0 ignore a waiting pattern's compile error and crash on it",
        id="V022InvalidWaitingPanics",
    ),
    pytest.param(
        "v0.3.0",
        {"rules": [{"sequence": ["first", "second"]}], "unknownField": 1},
        {"second": _res(MR)},
        None,
        [(N, 'Delaying creation of resource(s) matching "second" because "first" does not exist yet', "")],
        {},
        "up to v0.3.0 unknown input fields are ignored",
        id="V030LenientInput",
    ),
    pytest.param(
        "v0.3.0",
        {"rules": "x"},
        {"second": _res(MR)},
        None,
        [
            (
                F,
                "cannot get Function input from *v1beta1.RunFunctionRequest: cannot get Function input %T from %T, "
                "into, req: cannot unmarshal JSON from *structpb.Struct into *v1beta1.Input: json: cannot unmarshal "
                "JSON string into Go value of type []v1beta1.SequencingRule",
                "",
            )
        ],
        {"second": U},
        "up to v0.3.0 a wrong type is go-json-experiment's error (function-sdk-go v0.1.0), under its wrappers",
        id="V030InputTypeError",
    ),
    pytest.param(
        "v0.3.0",
        {"Rules": [{"sequence": ["first", "second"]}]},
        {"second": _res(MR)},
        None,
        [],
        {"second": U},
        "go-json-experiment matches names exactly: Rules is an unknown field, skipped, so there are no rules",
        id="V030NamesMatchExactly",
    ),
    pytest.param(
        "v0.4.0",
        {"rules": [{"sequence": ["first", "second"]}], "unknownField": 1},
        {"second": _res(MR)},
        None,
        [
            (
                F,
                "cannot get Function input from *v1.RunFunctionRequest: cannot get function input *v1beta1.Input from "
                "*v1.RunFunctionRequest: cannot unmarshal JSON from *structpb.Struct into *v1beta1.Input: json: cannot "
                'unmarshal Go value of type v1beta1.Input: unknown name "unknownField"',
                C,
            )
        ],
        {"second": U},
        "from v0.4.0 unknown input fields are rejected",
        id="V040StrictInput",
    ),
    pytest.param(
        "v0.5.0",
        {"rules": [{"sequence": ["first", "second"], "condition": "true"}]},
        {"second": _res(MR)},
        None,
        [
            (
                F,
                "cannot get Function input from *v1.RunFunctionRequest: cannot get function input *v1beta1.Input from "
                "*v1.RunFunctionRequest: cannot unmarshal JSON from *structpb.Struct into *v1beta1.Input: json: cannot "
                'unmarshal Go value of type v1beta1.SequencingRule: unknown name "condition"',
                C,
            )
        ],
        {"second": U},
        "condition arrived in v0.6.0: v0.5.0 rejects it",
        id="V050NoCondition",
    ),
]


@pytest.mark.parametrize(("release", "inp", "desired", "observed", "results", "want", "reason"), CASES)
def test_sequencer(
    *,
    release: str,
    inp: dict[str, Any],
    desired: dict[str, dict[str, Any]],
    observed: dict[str, dict[str, Any]] | None,
    results: list[tuple[str, str, str]],
    want: dict[str, str],
    reason: str,
) -> None:
    rsp = _run(release, inp, desired, observed)
    assert _results(rsp) == results, reason
    assert {k: ready for k, (_, ready) in _desired(rsp).items()} == want, reason


USAGES = [
    pytest.param("v1", XR, MR, UV1, "a v1 Usage", id="V1"),
    pytest.param("v2", XR, MR, UV2, "a cluster-scoped v2 ClusterUsage", id="V2Cluster"),
    pytest.param("", XR, MR, UV2, "no usageVersion is v2", id="DefaultV2"),
    pytest.param(
        "v2", NXR, NMR, NUV2, "a namespaced v2 Usage in the namespace of the used resource", id="V2Namespaced"
    ),
]


@pytest.mark.parametrize(("version", "first", "second", "want", "reason"), USAGES)
@pytest.mark.parametrize("release", ["v0.4.0", "v0.5.0", "v0.6.0"])
def test_usage_objects(
    *,
    release: str,
    version: str,
    first: dict[str, Any],
    second: dict[str, Any],
    want: dict[str, Any],
    reason: str,
) -> None:
    inp = {
        **_seq("first", "second"),
        "enableDeletionSequencing": True,
        "replayDeletion": True,
        "usageVersion": version,
    }
    both = {"first": _res(first, T), "second": _res(second, T)}
    rsp = _run(release, inp, both, both)
    assert _desired(rsp)["second-first-usage"] == (want, T), reason


def test_observed_usage_gets_no_usage_from_v050() -> None:
    """v0.5.0 stopped treating an observed Usage matched by a pattern as a user (v0.4.0 made one for it);
    ``.*`` also matches ``first`` itself, which then uses itself, in both."""
    inp = {**_seq("first", ".*"), "enableDeletionSequencing": True, "usageVersion": "v1"}
    desired = {"first": _res(XR, T), "u": _res(UV1)}
    observed = {"first": _res(XR, T), "u": _res(UV1)}
    got = {r: set(_desired(_run(r, inp, desired, observed))) for r in ("v0.4.0", "v0.5.0")}
    assert got["v0.4.0"] == {"first", "u", "first-first-usage", "u-first-usage"}
    assert got["v0.5.0"] == {"first", "u", "first-first-usage"}


def test_connection_details_are_dropped_readiness_kept() -> None:
    """function-sdk-go rewrites the desired resources from their objects and readiness only."""
    req = json_format.ParseDict(
        {
            "input": _seq("first", "second"),
            "desired": {
                "resources": {"first": {"resource": MR, "ready": T, "connection_details": {"k": "dg=="}}}
            },
        },
        fnv1.RunFunctionRequest(),
    )
    rsp = response.to(req)
    sequencer.compose(req, rsp)
    assert rsp.desired.resources["first"].ready == fnv1.READY_TRUE
    assert dict(rsp.desired.resources["first"].connection_details) == {}


def test_usage_name_is_cut_to_63_characters() -> None:
    """Long names are cut on bytes and end in a dash before the hash and suffix (upstream name.go)."""
    from crossfn.functions.sequencer import _usage

    assert _usage.usage_name("mr-cool-mr-xr-cool-xr") == "mr-cool-mr-xr-cool-xr-d9f469-dependency"
    long = _usage.usage_name("a" * 80)
    assert len(long) == 63
    assert long.startswith("a" * 45 + "-") and long.endswith("-dependency")
