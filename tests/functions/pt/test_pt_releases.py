"""Each difference between function-patch-and-transform releases, one case each (docs/functions.md's table).

A case runs the same request as the last release before a change and as the
release that made it, and says what each returned: facts read from the upstream
tags' sources (fn.go, patches.go, validate.go, transforms.go, the input types
and the function-sdk-go and crossplane-runtime versions each tag's go.mod pins).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from google.protobuf import json_format
from ptcases import CD, ENV_GVK, ENV_KEY, XR, inp

from crossfn.functions.patch_and_transform import PatchAndTransform, Release
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource, response

V = tuple[int, int, int]


def _run(version: V, req: dict[str, Any]) -> fnv1.RunFunctionResponse:
    msg = json_format.ParseDict(req, fnv1.RunFunctionRequest())
    rsp = response.to(msg)
    PatchAndTransform(Release(version))(msg, rsp)
    return rsp


def results(rsp: fnv1.RunFunctionResponse) -> list[tuple[str, str]]:
    """Each result's severity and message."""
    return [(fnv1.Severity.Name(r.severity), r.message) for r in rsp.results]


def cd(rsp: fnv1.RunFunctionResponse, name: str = "cd") -> dict[str, Any] | None:
    """A desired composed resource, None when it is not in the desired state."""
    if name not in rsp.desired.resources:
        return None
    return resource.struct_to_dict(rsp.desired.resources[name].resource)


def env(rsp: fnv1.RunFunctionResponse) -> dict[str, Any] | None:
    """The environment in the response's context, None when the key is absent."""
    if ENV_KEY not in rsp.context.fields:
        return None
    return resource.struct_to_dict(rsp.context.fields[ENV_KEY].struct_value)


def _req(
    resources: list[dict[str, Any]] | None = None,
    *,
    spec: dict[str, Any] | None = None,
    observed: dict[str, Any] | None = None,
    context: dict[str, Any] | None = None,
    **fields: Any,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "input": inp(**({"resources": resources} if resources is not None else {}), **fields),
        "observed": {"composite": {"resource": {**XR, "spec": spec or {}}}},
    }
    if observed:
        body["observed"]["resources"] = {k: {"resource": v} for k, v in observed.items()}
    if context is not None:
        body["context"] = context
    return body


def _one(*patches: dict[str, Any], base: dict[str, Any] | None = None, **extra: Any) -> list[dict[str, Any]]:
    return [{"name": "cd", "base": base or CD, "patches": list(patches), **extra}]


def fatal(message: str) -> list[tuple[str, str]]:
    return [("SEVERITY_FATAL", message)]


def warning(message: str) -> list[tuple[str, str]]:
    return [("SEVERITY_WARNING", message)]


RENDER = 'cannot render composed resource "cd" "FromCompositeFieldPath" patch at index 0: '
CX = {**CD, "spec": {"x": "from-xr"}}
ENV_CTX = {ENV_KEY: {**ENV_GVK, "a": "from-env"}}

# (id, reason, (before, after) releases, request, what to look at, want before, want after)
CASES: list[
    tuple[str, str, tuple[V, V], dict[str, Any], Callable[[fnv1.RunFunctionResponse], Any], Any, Any]
] = [
    (
        "UnknownFieldsRejected",
        "v0.4.0 (function-sdk-go v0.2.0) rejects unknown input fields; v0.3.0 ignored them",
        ((0, 3, 0), (0, 4, 0)),
        _req(_one(base=CD), unknown=True),
        results,
        [],
        fatal('cannot get Function input: input: unknown field "unknown"'),
    ),
    (
        "EnvironmentIntroduced",
        "v0.1.4 knows no environment: it ignores environment.patches, and its SDK started the response "
        "without the request's context, so the context ends there",
        ((0, 1, 4), (0, 2, 0)),
        _req(
            _one(base=CD),
            spec={"x": "v"},
            context=ENV_CTX,
            environment={
                "patches": [{"type": "ToEnvironmentFieldPath", "fromFieldPath": "spec.x", "toFieldPath": "b"}]
            },
        ),
        lambda rsp: (rsp.HasField("context"), env(rsp)),
        (False, None),
        (True, {**ENV_GVK, "a": "from-env", "b": "v"}),
    ),
    (
        "MergeObjectPolicy",
        "v0.4.0 added policy.toFieldPath; v0.3.0 decoded it away and replaced",
        ((0, 3, 0), (0, 4, 0)),
        _req(
            _one(
                {
                    "fromFieldPath": "spec.o",
                    "toFieldPath": "spec.o",
                    "policy": {"toFieldPath": "MergeObject"},
                },
                base={**CD, "spec": {"o": {"keep": 1}}},
            ),
            spec={"o": {"new": 2}},
        ),
        lambda rsp: (cd(rsp) or {}).get("spec"),
        {"o": {"new": 2}},
        {"o": {"keep": 1, "new": 2}},
    ),
    (
        "MergeObjectsPolicies",
        "v0.5.0 added MergeObjects and the other Merge*/ForceMerge* policies; v0.4.0 found them invalid",
        ((0, 4, 0), (0, 5, 0)),
        _req(
            _one(
                {
                    "fromFieldPath": "spec.o",
                    "toFieldPath": "spec.o",
                    "policy": {"toFieldPath": "MergeObjects"},
                },
                base={**CD, "spec": {"o": {"keep": 1}}},
            ),
            spec={"o": {"new": 2}},
        ),
        lambda rsp: results(rsp) or (cd(rsp) or {}).get("spec"),
        fatal(
            "invalid Function input: resources[0].patches[0].policy.toFieldPathPolicy: "
            'Invalid value: "MergeObjects": unknown toFieldPathPolicy'
        ),
        {"o": {"keep": 1, "new": 2}},
    ),
    (
        "JoinStrict",
        "v0.7.0 added the Join and Replace string transforms; to v0.6.0 (strict) their fields are unknown",
        ((0, 6, 0), (0, 7, 0)),
        _req(
            _one(
                {
                    "fromFieldPath": "spec.l",
                    "toFieldPath": "spec.s",
                    "transforms": [
                        {"type": "string", "string": {"type": "Join", "join": {"separator": "-"}}}
                    ],
                }
            ),
            spec={"l": ["a", "b"]},
        ),
        lambda rsp: results(rsp) or (cd(rsp) or {}).get("spec"),
        fatal(
            'cannot get Function input: resources[0].patches[0].transforms[0].string: unknown field "join"'
        ),
        {"s": "a-b"},
    ),
    (
        "ReplaceLenient",
        "before v0.4.0 the replace field decodes away and Replace is an unknown string transform type",
        ((0, 3, 0), (0, 7, 0)),
        _req(
            _one(
                {
                    "fromFieldPath": "spec.s",
                    "toFieldPath": "spec.s",
                    "transforms": [
                        {
                            "type": "string",
                            "string": {"type": "Replace", "replace": {"search": "a", "replace": "b"}},
                        }
                    ],
                }
            ),
            spec={"s": "aa"},
        ),
        lambda rsp: results(rsp) or (cd(rsp) or {}).get("spec"),
        fatal(
            "invalid Function input: resources[0].patches[0].transforms[0].string.type: "
            'Invalid value: "Replace": unknown string transform type'
        ),
        {"s": "bb"},
    ),
    (
        "ConnectionSecret",
        "v0.10.0 composes a Secret for a v2 XR's connection details; v0.9.x did not",
        ((0, 9, 3), (0, 10, 0)),
        {
            "input": inp(
                resources=[
                    {
                        "name": "cd",
                        "base": CD,
                        "connectionDetails": [{"name": "k", "type": "FromValue", "value": "v"}],
                    }
                ]
            ),
            "observed": {
                "composite": {"resource": {**XR, "metadata": {"name": "xr"}, "spec": {"crossplane": {}}}},
                "resources": {"cd": {"resource": CD}},
            },
        },
        lambda rsp: sorted(rsp.desired.resources),
        ["cd"],
        ["cd", "xr-connection-secret"],
    ),
    (
        "WriteConnectionSecretToRef",
        "writeConnectionSecretToRef came with v0.10.0: an unknown field to v0.9.x",
        ((0, 9, 3), (0, 10, 0)),
        _req(_one(), writeConnectionSecretToRef={"name": "s"}),
        results,
        fatal('cannot get Function input: input: unknown field "writeConnectionSecretToRef"'),
        [],
    ),
    (
        "PatchOrder",
        "v0.3.0 applies patches in the order written; v0.2.x applied the ones from the XR, then from the environment",
        ((0, 2, 0), (0, 3, 0)),
        _req(
            _one(
                {"type": "FromEnvironmentFieldPath", "fromFieldPath": "a", "toFieldPath": "spec.x"},
                {"fromFieldPath": "spec.x", "toFieldPath": "spec.x"},
            ),
            spec={"x": "from-xr"},
            context=ENV_CTX,
        ),
        lambda rsp: (cd(rsp) or {}).get("spec"),
        {"x": "from-env"},
        {"x": "from-xr"},
    ),
    (
        "PatchErrorFatal",
        "from v0.3.0 a failing patch is Fatal; v0.2.x warned and left the resource out",
        ((0, 2, 0), (0, 3, 0)),
        _req(
            _one(
                {
                    "fromFieldPath": "spec.r",
                    "toFieldPath": "spec.r",
                    "transforms": [{"type": "map", "map": {"US": "x"}}],
                }
            ),
            spec={"r": "EU"},
        ),
        lambda rsp: (results(rsp), cd(rsp)),
        (
            warning(
                'cannot render FromComposite patches for composed resource "cd": cannot apply the '
                '"FromCompositeFieldPath" patch at index 0: transform at index 0 returned error: '
                "map transform could not resolve: key EU is not found in map"
            ),
            None,
        ),
        (
            fatal(
                RENDER
                + "transform at index 0 returned error: map transform could not resolve: key EU is not found in map"
            ),
            None,
        ),
    ),
    (
        "RequiredMissing",
        "a Required source that is missing: v0.2.x warned with the patch error, v0.3.0 says why it leaves it out",
        ((0, 2, 0), (0, 3, 0)),
        _req(
            _one(
                {
                    "fromFieldPath": "spec.missing",
                    "toFieldPath": "spec.x",
                    "policy": {"fromFieldPath": "Required"},
                }
            )
        ),
        results,
        warning(
            'cannot render FromComposite patches for composed resource "cd": cannot apply the '
            '"FromCompositeFieldPath" patch at index 0: spec.missing: no such field'
        ),
        warning(
            'not adding new composed resource "cd" to desired state because "FromCompositeFieldPath" patch at '
            "index 0 has 'policy.fromFieldPath: Required': spec.missing: no such field"
        ),
    ),
    (
        "ValidationPrintsWrittenType",
        "v0.2.x validated a patch without fromFieldPath printing its type as written (none); v0.3.0 the default",
        ((0, 2, 0), (0, 3, 0)),
        _req(_one({"toFieldPath": "spec.x"})),
        results,
        fatal(
            "invalid Function input: resources[0].patches[0].fromFieldPath: Required value: "
            "fromFieldPath must be set for patch type "
        ),
        fatal(
            "invalid Function input: resources[0].patches[0].fromFieldPath: Required value: "
            "fromFieldPath must be set for patch type FromCompositeFieldPath"
        ),
    ),
    (
        "CombineValidatedUpFront",
        "v0.3.0 validates a combine before running; v0.2.x found a combine without variables when applying it",
        ((0, 2, 0), (0, 3, 0)),
        _req(
            _one(
                {
                    "type": "CombineFromComposite",
                    "toFieldPath": "spec.x",
                    "combine": {"strategy": "string", "variables": [], "string": {"fmt": "%s"}},
                }
            )
        ),
        results,
        warning(
            'cannot render FromComposite patches for composed resource "cd": cannot apply the '
            '"CombineFromComposite" patch at index 0: combine patch types require at least one variable'
        ),
        fatal(
            "invalid Function input: resources[0].patches[0].combine.variables: Required value: "
            "at least one variable must be provided"
        ),
    ),
    (
        "EnvironmentPatchTypesFlipped",
        "environment patches were *Environment types in v0.2.x and the Composite ones from v0.3.0",
        ((0, 2, 0), (0, 3, 0)),
        _req(
            _one(),
            spec={"x": "v"},
            context=ENV_CTX,
            environment={
                "patches": [{"type": "FromCompositeFieldPath", "fromFieldPath": "spec.x", "toFieldPath": "b"}]
            },
        ),
        lambda rsp: results(rsp) or env(rsp),
        fatal(
            'invalid Function input: environment.patches[0][type]: Invalid value: "FromCompositeFieldPath": '
            "invalid environment patch type"
        ),
        {**ENV_GVK, "a": "from-env", "b": "v"},
    ),
    (
        "EnvironmentFieldPathPatchTypes",
        "v0.6.0 allows From/ToEnvironmentFieldPath among environment patches",
        ((0, 5, 0), (0, 6, 0)),
        _req(
            _one(),
            spec={"x": "v"},
            context=ENV_CTX,
            environment={
                "patches": [{"type": "ToEnvironmentFieldPath", "fromFieldPath": "spec.x", "toFieldPath": "b"}]
            },
        ),
        lambda rsp: results(rsp) or env(rsp),
        fatal(
            'invalid Function input: environment.patches[0][type]: Invalid value: "ToEnvironmentFieldPath": '
            "invalid environment patch type"
        ),
        {**ENV_GVK, "a": "from-env", "b": "v"},
    ),
    (
        "GroupedEnvironmentPasses",
        "v0.2.x ran every environment patch to the environment, then every one from it",
        ((0, 2, 0), (0, 3, 0)),
        _req(
            _one(),
            spec={"x": "v"},
            context={ENV_KEY: {**ENV_GVK, "b": "old"}},
            environment={
                "patches": [
                    {"type": "FromEnvironmentFieldPath", "fromFieldPath": "b", "toFieldPath": "status.b"},
                    {"type": "ToEnvironmentFieldPath", "fromFieldPath": "spec.x", "toFieldPath": "b"},
                ]
            },
        ),
        lambda rsp: results(rsp) or resource.struct_to_dict(rsp.desired.composite.resource).get("status"),
        {"b": "v"},
        fatal(
            'invalid Function input: environment.patches[0][type]: Invalid value: "FromEnvironmentFieldPath": '
            "invalid environment patch type"
        ),
    ),
    (
        "PatchSetInPatchSet",
        "a PatchSet patch inside a PatchSet: found resolving in v0.2.x, by validation from v0.3.0",
        ((0, 2, 0), (0, 3, 0)),
        _req(
            _one({"type": "PatchSet", "patchSetName": "s"}),
            patchSets=[{"name": "s", "patches": [{"type": "PatchSet", "patchSetName": "s"}]}],
        ),
        results,
        fatal("cannot resolve PatchSets: a patch in a PatchSet cannot be of type PatchSet"),
        fatal(
            'invalid Function input: patches[0].type: Invalid value: "PatchSet": '
            "patch type *v1beta1.PatchSetPatch does not support patch of type PatchSet"
        ),
    ),
    (
        "PoliciesValidated",
        "v0.4.0 rejects an unknown policy.fromFieldPath; v0.3.0 read it as Optional",
        ((0, 3, 0), (0, 4, 0)),
        _req(
            _one(
                {
                    "fromFieldPath": "spec.missing",
                    "toFieldPath": "spec.x",
                    "policy": {"fromFieldPath": "Sometimes"},
                }
            )
        ),
        lambda rsp: results(rsp) or cd(rsp),
        CD,
        fatal(
            "invalid Function input: resources[0].patches[0].policy.fromFieldPathPolicy: "
            'Invalid value: "Sometimes": unknown fromFieldPathPolicy'
        ),
    ),
    (
        "EnvironmentPatchesSuffice",
        "v0.6.0 accepts an input with environment patches and no resources",
        ((0, 5, 0), (0, 6, 0)),
        _req(
            None,
            spec={"x": "v"},
            context=ENV_CTX,
            environment={"patches": [{"fromFieldPath": "spec.x", "toFieldPath": "b"}]},
        ),
        lambda rsp: results(rsp) or env(rsp),
        fatal("invalid Function input: resources: Required value: resources is required"),
        {**ENV_GVK, "a": "from-env", "b": "v"},
    ),
    (
        "MathTypeDefault",
        "v0.1.4 read a math transform without type as Multiply; v0.2.0 requires the type",
        ((0, 1, 4), (0, 2, 0)),
        _req(
            _one(
                {
                    "fromFieldPath": "spec.n",
                    "toFieldPath": "spec.n",
                    "transforms": [{"type": "math", "math": {"multiply": 3}}],
                }
            ),
            spec={"n": 2},
        ),
        lambda rsp: results(rsp) or (cd(rsp) or {}).get("spec"),
        {"n": 6},
        fatal(
            "invalid Function input: resources[0].patches[0].transforms[0].math.type: Required value: "
            "math transform type is required"
        ),
    ),
    (
        "StringTypeDefault",
        "v0.1.4 validated a string transform without type as Format (and then could not resolve it)",
        ((0, 1, 4), (0, 2, 0)),
        _req(
            _one(
                {
                    "fromFieldPath": "spec.s",
                    "toFieldPath": "spec.s",
                    "transforms": [{"type": "string", "string": {"fmt": "%s!"}}],
                }
            ),
            spec={"s": "a"},
        ),
        results,
        warning(
            'cannot render FromComposite patches for composed resource "cd": cannot apply the '
            '"FromCompositeFieldPath" patch at index 0: transform at index 0 returned error: '
            "string transform could not resolve: type  is not supported for string transform type"
        ),
        fatal(
            "invalid Function input: resources[0].patches[0].transforms[0].string.type: Required value: "
            "string transform type is required"
        ),
    ),
    (
        "ConnectionDetailTypeText",
        "v0.2.0 says 'connection detail type is required'; v0.1.4 said 'type is required'",
        ((0, 1, 4), (0, 2, 0)),
        _req(_one(connectionDetails=[{"name": "k", "value": "v"}])),
        results,
        fatal(
            "invalid Function input: resources[0].connectionDetails[0].type: Required value: type is required"
        ),
        fatal(
            "invalid Function input: resources[0].connectionDetails[0].type: Required value: "
            "connection detail type is required"
        ),
    ),
    (
        "BaseIdentity",
        "up to v0.3.0 rendering the base reset its metadata.name and namespace; v0.4.0 keeps them",
        ((0, 3, 0), (0, 4, 0)),
        _req(_one(base={**CD, "metadata": {"name": "fixed", "namespace": "ns", "labels": {"l": "v"}}})),
        lambda rsp: (cd(rsp) or {}).get("metadata"),
        {"labels": {"l": "v"}},
        {"name": "fixed", "namespace": "ns", "labels": {"l": "v"}},
    ),
    (
        "BaseParseError",
        "up to v0.3.0 a base that did not parse said 'cannot unmarshal JSON data'",
        ((0, 3, 0), (0, 4, 0)),
        _req(_one(base={"apiVersion": "example.org/v1"})),
        results,
        fatal(
            'cannot parse base template of composed resource "cd": cannot unmarshal JSON data: '
            """Object 'Kind' is missing in '{"apiVersion":"example.org/v1"}'"""
        ),
        fatal(
            'cannot parse base template of composed resource "cd": '
            """Object 'Kind' is missing in '{"apiVersion":"example.org/v1"}'"""
        ),
    ),
    (
        "OptionalEnvironmentPatch",
        "v0.4.0 skips an environment patch whose source is missing; v0.3.0 failed",
        ((0, 3, 0), (0, 4, 0)),
        _req(
            _one(),
            context=ENV_CTX,
            environment={"patches": [{"fromFieldPath": "spec.missing", "toFieldPath": "b"}]},
        ),
        results,
        fatal(
            'cannot apply the "FromCompositeFieldPath" environment patch at index 0: spec.missing: no such field'
        ),
        [],
    ),
    (
        "NullOnThePath",
        "crossplane-runtime v1.15.1 (P&T v0.4.0) reads a path through a null as missing; before, not an object",
        ((0, 3, 0), (0, 4, 0)),
        _req(_one({"fromFieldPath": "spec.a.b", "toFieldPath": "spec.x"}), spec={"a": None}),
        lambda rsp: results(rsp) or cd(rsp),
        fatal(RENDER + "spec.a: not an object"),
        CD,
    ),
    (
        "NullBeforeWildcard",
        "crossplane-runtime v1.15 (P&T v0.4.0) reads a wildcard over a null as not found, which an Optional "
        "patch skips; before, unexpected wildcard usage",
        ((0, 3, 0), (0, 4, 0)),
        _req(
            _one({"fromFieldPath": "spec.r", "toFieldPath": "spec.l[*].x"}, base={**CD, "spec": {"l": None}}),
            spec={"r": "v"},
        ),
        results,
        fatal(
            RENDER
            + 'cannot expand wildcards for segments: "spec.l[*].x": "spec.l": unexpected wildcard usage'
        ),
        [],
    ),
    (
        "EnvironmentKind",
        "v0.6.0 gives an environment without apiVersion and kind the internal Environment GVK",
        ((0, 5, 0), (0, 6, 0)),
        _req(
            _one(),
            spec={"x": "v"},
            environment={"patches": [{"fromFieldPath": "spec.x", "toFieldPath": "b"}]},
        ),
        lambda rsp: results(rsp) or env(rsp),
        fatal(
            'cannot apply the "FromCompositeFieldPath" environment patch at index 0: cannot patch to object: '
            """Object 'Kind' is missing in '{"b":"v"}'"""
        ),
        {**ENV_GVK, "b": "v"},
    ),
    (
        "EmptyEnvironmentWrittenBack",
        "before v0.6.0 a run without an environment wrote back an empty one",
        ((0, 5, 0), (0, 6, 0)),
        _req(_one()),
        env,
        {},
        ENV_GVK,
    ),
    (
        "CombinePolicy",
        "v0.8.0 writes Combine* patches with their policy.toFieldPath; before, they replaced",
        ((0, 7, 0), (0, 8, 0)),
        _req(
            _one(
                {
                    "type": "CombineFromComposite",
                    "toFieldPath": "spec.o",
                    "combine": {
                        "strategy": "string",
                        "variables": [{"fromFieldPath": "spec.v"}],
                        "string": {"fmt": '{"new":"%s"}'},
                    },
                    "transforms": [{"type": "convert", "convert": {"toType": "object", "format": "json"}}],
                    "policy": {"toFieldPath": "MergeObjects"},
                },
                base={**CD, "spec": {"o": {"keep": 1}}},
            ),
            spec={"v": "x"},
        ),
        lambda rsp: (cd(rsp) or {}).get("spec"),
        {"o": {"new": "x"}},
        {"o": {"keep": 1, "new": "x"}},
    ),
    (
        "UnreadyWhenSkipped",
        "v0.8.0 marks the desired XR not ready when a Required patch leaves a resource out",
        ((0, 7, 0), (0, 8, 0)),
        _req(
            _one(
                {
                    "fromFieldPath": "spec.missing",
                    "toFieldPath": "spec.x",
                    "policy": {"fromFieldPath": "Required"},
                }
            )
        ),
        lambda rsp: fnv1.Ready.Name(rsp.desired.composite.ready),
        "READY_UNSPECIFIED",
        "READY_FALSE",
    ),
    (
        "ResultTarget",
        "function-sdk-go v0.4.0 (P&T v0.8.0) names the composite as the results' target",
        ((0, 7, 0), (0, 8, 0)),
        _req(
            _one(
                {
                    "fromFieldPath": "spec.missing",
                    "toFieldPath": "spec.x",
                    "policy": {"fromFieldPath": "Required"},
                }
            )
        ),
        lambda rsp: [r.HasField("target") and fnv1.Target.Name(r.target) for r in rsp.results],
        [False],
        ["TARGET_COMPOSITE"],
    ),
]


@pytest.mark.parametrize(
    ("releases", "req", "look", "before", "after"),
    [pytest.param(*c[2:], id=c[0]) for c in CASES],
)
def test_release_difference(
    releases: tuple[V, V],
    req: dict[str, Any],
    look: Callable[[fnv1.RunFunctionResponse], Any],
    before: Any,
    after: Any,
) -> None:
    old, new = releases
    assert look(_run(old, req)) == before
    assert look(_run(new, req)) == after


def test_every_case_has_a_reason() -> None:
    assert all(c[1] for c in CASES)
    assert len({c[0] for c in CASES}) == len(CASES)


@pytest.mark.parametrize(
    ("first", "last"),
    [((0, 2, 0), (0, 2, 1)), ((0, 8, 0), (0, 9, 3)), ((0, 10, 0), (0, 10, 8))],
    ids=["v0.2.x", "v0.8.0-v0.9.3", "v0.10.x"],
)
def test_same_code_same_behaviour(first: V, last: V) -> None:
    """Releases whose Go code is the same answer every case the same."""
    for c in CASES:
        assert _run(first, c[3]) == _run(last, c[3]), c[0]
