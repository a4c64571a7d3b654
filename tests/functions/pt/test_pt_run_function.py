"""Conformance: function-patch-and-transform fn_test.go ``TestRunFunction``
(upstream pt-10.1), whole request to response."""

from __future__ import annotations

from typing import Any

import pytest
from ptcases import CD, ENV_GVK, ENV_KEY, TTL, XR, b64, env_context, fatal, inp, run, want, warning

from crossfn.functions.patch_and_transform import fn

TO_INT_X3 = [
    {"type": "convert", "convert": {"toType": "int64"}},
    {"type": "math", "math": {"type": "Multiply", "multiply": 3}},
]
X3_TO_STRING = [
    {"type": "math", "math": {"type": "Multiply", "multiply": 3}},
    {"type": "convert", "convert": {"toType": "string"}},
]
WIDGETS_TO_WATCHERS = {
    "type": "FromCompositeFieldPath",
    "fromFieldPath": "spec.widgets",
    "toFieldPath": "spec.watchers",
    "transforms": TO_INT_X3,
}
XR_WIDGETS: dict[str, Any] = {**XR, "spec": {"widgets": "10"}}
META = {"namespace": "default", "name": "cool-42"}


def _composite(resource: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"composite": {"resource": resource, **extra}}


CASES: list[Any] = [
    pytest.param(
        "An empty request fails validation with Go's message.",
        {},
        {
            "meta": TTL,
            "results": [
                fatal(
                    "invalid Function input: resources: Required value: resources or environment patches are required"
                )
            ],
        },
        id="NoInput",
    ),
    pytest.param(
        "A base template without patches is rendered as is.",
        {
            "input": inp(resources=[{"name": "cool-resource", "base": CD}]),
            "observed": _composite(XR),
            "desired": _composite(XR),
        },
        {
            "meta": TTL,
            "desired": {**_composite(XR), "resources": {"cool-resource": {"resource": CD}}},
            "context": env_context(),
        },
        id="RenderBaseTemplateWithoutPatches",
    ),
    pytest.param(
        "Desired resources from earlier functions are passed through untouched.",
        {
            "input": inp(resources=[{"name": "cool-resource", "base": CD}]),
            "observed": _composite(XR),
            "desired": {
                **_composite(XR),
                "resources": {"existing-resource": {"resource": {"kind": "ExistingCD"}}},
            },
            "context": env_context(),
        },
        {
            "meta": TTL,
            "desired": {
                **_composite(XR),
                "resources": {
                    "existing-resource": {"resource": {"kind": "ExistingCD"}},
                    "cool-resource": {"resource": CD},
                },
            },
            "context": env_context(),
        },
        id="DesiredResourcesArePassedThrough",
    ),
    pytest.param(
        "A patch from the XR is applied to the base, through convert and math transforms.",
        {
            "input": inp(resources=[{"name": "cool-resource", "base": CD, "patches": [WIDGETS_TO_WATCHERS]}]),
            "observed": _composite(XR_WIDGETS),
            "desired": _composite(XR_WIDGETS),
        },
        {
            "meta": TTL,
            "desired": {
                **_composite(XR_WIDGETS),
                "resources": {"cool-resource": {"resource": {**CD, "spec": {"watchers": 30}}}},
            },
            "context": env_context(),
        },
        id="PatchBaseTemplate",
    ),
    pytest.param(
        "A template without base patches the desired resource an earlier function produced.",
        {
            "input": inp(resources=[{"name": "cool-resource", "patches": [WIDGETS_TO_WATCHERS]}]),
            "observed": _composite(XR_WIDGETS),
            "desired": {**_composite(XR_WIDGETS), "resources": {"cool-resource": {"resource": CD}}},
        },
        {
            "meta": TTL,
            "desired": {
                **_composite(XR_WIDGETS),
                "resources": {"cool-resource": {"resource": {**CD, "spec": {"watchers": 30}}}},
            },
            "context": env_context(),
        },
        id="PatchDesiredResource",
    ),
    pytest.param(
        "A template without base and without an earlier desired resource is fatal.",
        {
            "input": inp(resources=[{"name": "cool-resource", "patches": [WIDGETS_TO_WATCHERS]}]),
            "observed": _composite(XR_WIDGETS),
            "desired": _composite(XR_WIDGETS),
        },
        {
            "meta": TTL,
            "desired": _composite(XR_WIDGETS),
            "results": [
                fatal(
                    'composed resource "cool-resource" has no base template, and was not produced by a previous Function in the pipeline'
                )
            ],
        },
        id="NothingToPatch",
    ),
    pytest.param(
        "A base replaces an earlier desired resource of the same name; nothing is merged.",
        {
            "input": inp(resources=[{"name": "cool-resource", "base": {**CD, "spec": {"widgets": 9001}}}]),
            "observed": _composite(XR),
            "desired": {
                **_composite(XR),
                "resources": {"cool-resource": {"resource": {**CD, "spec": {"watchers": 42}}}},
            },
        },
        {
            "meta": TTL,
            "desired": {
                **_composite(XR),
                "resources": {"cool-resource": {"resource": {**CD, "spec": {"widgets": 9001}}}},
            },
            "context": env_context(),
        },
        id="ReplaceDesiredResource",
    ),
    pytest.param(
        "An Optional patch whose source is missing is skipped silently.",
        {
            "input": inp(
                resources=[
                    {
                        "name": "cool-resource",
                        "base": {**CD, "spec": {}},
                        "patches": [
                            {
                                "type": "FromCompositeFieldPath",
                                "fromFieldPath": "spec.widgets",
                                "toFieldPath": "spec.watchers",
                            },
                            {
                                "type": "FromCompositeFieldPath",
                                "fromFieldPath": "spec.doesNotExist",
                                "toFieldPath": "spec.explode",
                            },
                        ],
                    }
                ]
            ),
            "observed": _composite(XR_WIDGETS),
        },
        {
            "meta": TTL,
            "desired": {
                **_composite(XR),
                "resources": {"cool-resource": {"resource": {**CD, "spec": {"watchers": "10"}}}},
            },
            "context": env_context(),
        },
        id="OptionalFieldPathNotFound",
    ),
    pytest.param(
        "Required patches with a missing source skip a new resource and warn on an existing one.",
        {
            "input": inp(
                resources=[
                    {
                        "name": "new-resource",
                        "base": CD,
                        "patches": [
                            {
                                "type": "FromCompositeFieldPath",
                                "fromFieldPath": "spec.doesNotExist",
                                "toFieldPath": "spec.explode",
                                "policy": {"fromFieldPath": "Required"},
                            }
                        ],
                    },
                    {
                        "name": "existing-resource",
                        "base": {**CD, "spec": {"targetObject": {"keep": "me"}}},
                        "patches": [
                            {
                                "type": "FromCompositeFieldPath",
                                "fromFieldPath": "spec.widgets",
                                "toFieldPath": "spec.watchers",
                            },
                            {
                                "type": "FromCompositeFieldPath",
                                "fromFieldPath": "spec.sourceObject",
                                "toFieldPath": "spec.targetObject",
                                "policy": {"toFieldPath": "MergeObjects"},
                            },
                            {
                                "type": "FromCompositeFieldPath",
                                "fromFieldPath": "spec.doesNotExist",
                                "toFieldPath": "spec.explode",
                                "policy": {"fromFieldPath": "Required"},
                            },
                        ],
                    },
                ]
            ),
            "observed": {
                **_composite({**XR, "spec": {"widgets": "10", "sourceObject": {"me": "too"}}}),
                "resources": {"existing-resource": {}},
            },
            "desired": _composite(XR_WIDGETS),
        },
        {
            "meta": TTL,
            "desired": {
                **_composite(XR_WIDGETS, ready="READY_FALSE"),  # type: ignore[dict-item]  # mypy joins the literal's types
                "resources": {
                    "existing-resource": {
                        "resource": {
                            **CD,
                            "spec": {"watchers": "10", "targetObject": {"me": "too", "keep": "me"}},
                        }
                    }
                },
            },
            "results": [
                warning(
                    'not adding new composed resource "new-resource" to desired state because "FromCompositeFieldPath" patch at index 0 '
                    "has 'policy.fromFieldPath: Required': spec.doesNotExist: no such field"
                ),
                warning(
                    'cannot render composed resource "existing-resource" "FromCompositeFieldPath" patch at index 2: '
                    "ignoring 'policy.fromFieldPath: Required' because 'to' resource already exists: spec.doesNotExist: no such field"
                ),
            ],
            "context": env_context(),
        },
        id="RequiredFieldPathNotFound",
    ),
    pytest.param(
        "A patch error other than not-found is fatal and names the template, type and index.",
        {
            "input": inp(
                resources=[
                    {
                        "name": "cool-resource",
                        "base": CD,
                        "patches": [
                            {
                                "type": "FromCompositeFieldPath",
                                "fromFieldPath": "spec.widgets",
                                "toFieldPath": "spec.watchers",
                            },
                            {
                                "type": "FromCompositeFieldPath",
                                "fromFieldPath": "spec.widgets[0]",
                                "toFieldPath": "spec.widgets[0]",
                            },
                        ],
                    }
                ]
            ),
            "observed": _composite(XR_WIDGETS),
            "desired": _composite(XR_WIDGETS),
        },
        {
            "meta": TTL,
            "desired": _composite(XR_WIDGETS),
            "results": [
                fatal(
                    'cannot render composed resource "cool-resource" "FromCompositeFieldPath" patch at index 1: spec.widgets: not an array'
                )
            ],
        },
        id="PatchErrorIsFatal",
    ),
    pytest.param(
        "An observed resource's name and namespace are copied to the desired one.",
        {
            "input": inp(resources=[{"name": "cool-resource", "base": CD}]),
            "observed": {
                **_composite(XR),
                "resources": {"cool-resource": {"resource": {**CD, "metadata": META}}},
            },
            "desired": _composite(XR),
        },
        {
            "meta": TTL,
            "desired": {
                **_composite(XR),
                "resources": {"cool-resource": {"resource": {**CD, "metadata": META}}},
            },
            "context": env_context(),
        },
        id="ObservedResourceKeepsItsName",
    ),
    pytest.param(
        "Connection details from an observed resource are merged into the XR's.",
        {
            "input": inp(
                resources=[
                    {
                        "name": "cool-resource",
                        "base": CD,
                        "connectionDetails": [
                            {
                                "type": "FromConnectionSecretKey",
                                "name": "very",
                                "fromConnectionSecretKey": "very",
                            }
                        ],
                    }
                ]
            ),
            "observed": {
                **_composite(XR),
                "resources": {
                    "cool-resource": {
                        "resource": {**CD, "metadata": META},
                        "connectionDetails": {"very": b64("secret")},
                    }
                },
            },
            "desired": _composite(XR, connectionDetails={"existing": b64("supersecretvalue")}),
        },
        {
            "meta": TTL,
            "desired": {
                **_composite(
                    XR, connectionDetails={"existing": b64("supersecretvalue"), "very": b64("secret")}
                ),
                "resources": {"cool-resource": {"resource": {**CD, "metadata": META}}},
            },
            "context": env_context(),
        },
        id="ExtractCompositeConnectionDetails",
    ),
    pytest.param(
        "A v2 XR (spec.crossplane) also gets its connection details as a composed Secret.",
        {
            "input": inp(
                resources=[
                    {
                        "name": "cool-resource",
                        "base": CD,
                        "connectionDetails": [
                            {
                                "type": "FromConnectionSecretKey",
                                "name": "very",
                                "fromConnectionSecretKey": "very",
                            }
                        ],
                    }
                ],
                writeConnectionSecretToRef={"name": "cool-conn-secret"},
            ),
            "observed": {
                **_composite(
                    {
                        **XR,
                        "metadata": {"namespace": "default", "name": "cool-xr-42"},
                        "spec": {"foo": "bar", "crossplane": {}},
                    }
                ),
                "resources": {
                    "cool-resource": {
                        "resource": {**CD, "metadata": META},
                        "connectionDetails": {"very": b64("secret")},
                    }
                },
            },
            "desired": _composite(XR, connectionDetails={"existing": b64("supersecretvalue")}),
        },
        {
            "meta": TTL,
            "desired": {
                **_composite(
                    XR, connectionDetails={"existing": b64("supersecretvalue"), "very": b64("secret")}
                ),
                "resources": {
                    "cool-resource": {"resource": {**CD, "metadata": META}},
                    "cool-xr-42-connection-secret": {
                        "resource": {
                            "apiVersion": "v1",
                            "kind": "Secret",
                            "metadata": {"name": "cool-conn-secret"},
                            "data": {"existing": "c3VwZXJzZWNyZXR2YWx1ZQ==", "very": "c2VjcmV0"},
                            "type": "connection.crossplane.io/v1alpha1",
                        },
                        "ready": "READY_TRUE",
                    },
                },
            },
            "context": env_context(),
        },
        id="ExtractCompositeConnectionDetailsV2XR",
    ),
    pytest.param(
        "ToCompositeFieldPath patches the desired XR from the observed composed resource.",
        {
            "input": inp(
                resources=[
                    {
                        "name": "cool-resource",
                        "base": CD,
                        "patches": [{**WIDGETS_TO_WATCHERS, "type": "ToCompositeFieldPath"}],
                    }
                ]
            ),
            "observed": {
                **_composite(XR),
                "resources": {
                    "cool-resource": {"resource": {**CD, "metadata": META, "spec": {"widgets": "10"}}}
                },
            },
            "desired": _composite(XR),
        },
        {
            "meta": TTL,
            "desired": {
                **_composite({**XR, "spec": {"watchers": 30}}),
                "resources": {"cool-resource": {"resource": {**CD, "metadata": META}}},
            },
            "context": env_context(),
        },
        id="PatchToComposite",
    ),
]


def _env_case(patch_type: str, case_id: str) -> Any:
    return pytest.param(
        "An environment patch writes the desired XR from the environment.",
        {
            "input": inp(
                environment={
                    "patches": [
                        {
                            "type": patch_type,
                            "fromFieldPath": "widgets",
                            "toFieldPath": "spec.watchers",
                            "transforms": TO_INT_X3,
                        }
                    ]
                },
                resources=[{"name": "cool-resource", "base": CD}],
            ),
            "observed": _composite({"apiVersion": "example.org/v1", "kind": "CD", "spec": {}}),
            "context": env_context(widgets="10"),
        },
        {
            "meta": TTL,
            "desired": {
                **_composite({"apiVersion": "example.org/v1", "kind": "CD", "spec": {"watchers": 30}}),
                "resources": {"cool-resource": {"resource": CD}},
            },
            "context": env_context(widgets="10"),
        },
        id=case_id,
    )


def _env_write_case(patch_type: str, case_id: str, extra: list[dict[str, Any]] | None = None) -> Any:
    return pytest.param(
        "An environment patch writes the environment from the XR; Optional misses are skipped.",
        {
            "input": inp(
                environment={
                    "patches": [
                        {
                            "type": patch_type,
                            "fromFieldPath": "spec.watchers",
                            "toFieldPath": "widgets",
                            "transforms": X3_TO_STRING,
                        },
                        *(extra or []),
                    ]
                }
            ),
            "observed": _composite({"apiVersion": "example.org/v1", "kind": "CD", "spec": {"watchers": 10}}),
        },
        {
            "meta": TTL,
            "desired": _composite({"apiVersion": "example.org/v1", "kind": "CD"}),
            "context": env_context(widgets="30"),
        },
        id=case_id,
    )


def _from_env(extra: list[dict[str, Any]], xr_spec: dict[str, Any], watchers: int, case_id: str) -> Any:
    return pytest.param(
        "Composed patches read the environment; later patches see (and may shadow) earlier writes.",
        {
            "input": inp(
                resources=[
                    {
                        "name": "cool-resource",
                        "base": CD,
                        "patches": [
                            {
                                "type": "FromEnvironmentFieldPath",
                                "fromFieldPath": "widgets",
                                "toFieldPath": "spec.watchers",
                                "transforms": TO_INT_X3,
                            },
                            *extra,
                        ],
                    }
                ]
            ),
            "observed": _composite({"apiVersion": "example.org/v1", "kind": "CD", "spec": xr_spec}),
            "context": env_context(widgets="10"),
        },
        {
            "meta": TTL,
            "desired": {
                **_composite({"apiVersion": "example.org/v1", "kind": "CD"}),
                "resources": {"cool-resource": {"resource": {**CD, "spec": {"watchers": watchers}}}},
            },
            "context": env_context(widgets="10"),
        },
        id=case_id,
    )


SHADOW = [
    {"type": "FromCompositeFieldPath", "fromFieldPath": "spec.watchers", "toFieldPath": "spec.watchers"}
]
MISSING = {
    "type": "FromCompositeFieldPath",
    "fromFieldPath": "spec.doesNotExist",
    "toFieldPath": "doesNotExist",
}

CASES += [
    _env_case("ToCompositeFieldPath", "PatchToCompositeWithEnvironmentPatches"),
    _env_write_case("FromCompositeFieldPath", "EnvironmentPatchToEnvironment"),
    _env_case("FromEnvironmentFieldPath", "PatchToCompositeSupportsFromEnvironmentFieldPath"),
    _env_write_case("ToEnvironmentFieldPath", "EnvironmentPatchSupportsToEnvironmentFieldPath"),
    _env_write_case(
        "FromCompositeFieldPath",
        "EnvironmentPatchOptionalNotFoundSkipped",
        [MISSING, {**MISSING, "policy": {"fromFieldPath": "Optional"}}],
    ),
    pytest.param(
        "A Required environment patch with a missing source is fatal; the context is the request's.",
        {
            "input": inp(
                environment={
                    "patches": [
                        {
                            "type": "FromCompositeFieldPath",
                            "fromFieldPath": "spec.watchers",
                            "toFieldPath": "widgets",
                            "transforms": X3_TO_STRING,
                        },
                        {**MISSING, "policy": {"fromFieldPath": "Required"}},
                    ]
                }
            ),
            "observed": _composite({"apiVersion": "example.org/v1", "kind": "CD", "spec": {"watchers": 10}}),
            "context": env_context(),
        },
        {
            "meta": TTL,
            "results": [
                fatal(
                    'cannot apply the "FromCompositeFieldPath" environment patch at index 1: spec.doesNotExist: no such field'
                )
            ],
            "context": env_context(),
        },
        id="EnvironmentPatchRequiredNotFoundError",
    ),
    _from_env([], {}, 30, "PatchComposedResourceFromEnvironment"),
    _from_env(SHADOW, {}, 30, "PatchComposedResourceFromEnvironmentShadowedNotSet"),
    _from_env(SHADOW, {"watchers": 42}, 42, "PatchComposedResourceFromEnvironmentShadowedSet"),
    pytest.param(
        "Environment patches alone are a valid input.",
        {
            "input": inp(
                environment={
                    "patches": [
                        {
                            "type": "FromCompositeFieldPath",
                            "fromFieldPath": "spec.widgets",
                            "toFieldPath": "envKey",
                        }
                    ]
                }
            ),
            "observed": _composite(XR_WIDGETS),
        },
        {"meta": TTL, "desired": _composite(XR), "context": {ENV_KEY: {**ENV_GVK, "envKey": "10"}}},
        id="OnlyEnvironmentPatchesIsAllowed",
    ),
]


@pytest.mark.parametrize(("reason", "req", "expected"), CASES)
def test_run_function(reason: str, req: dict[str, Any], expected: dict[str, Any]) -> None:
    """TestRunFunction: each upstream case, compared as whole responses."""
    assert run(req) == want(expected), reason


@pytest.mark.parametrize(("reason", "req", "expected"), CASES)
def test_run_function_again_with_the_input_decoded_once(
    reason: str, req: dict[str, Any], expected: dict[str, Any]
) -> None:
    """The same input bytes are decoded once and shared by later calls: a run leaves the shared
    input as it found it, so a second run of each case answers as the first."""
    first = run(req)
    assert run(req) == first == want(expected), reason


def test_the_same_input_is_decoded_once() -> None:
    req = {
        "input": inp(resources=[{"name": "r", "base": CD}]),
        "observed": _composite(XR),
        "desired": _composite(XR),
    }
    run(req)
    before = fn._decoded.cache_info()
    run(req)
    after = fn._decoded.cache_info()
    assert (after.hits - before.hits, after.misses - before.misses) == (1, 0)
