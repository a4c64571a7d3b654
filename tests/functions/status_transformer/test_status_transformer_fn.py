"""function-status-transformer: upstream's fn_test.go cases re-expressed (inputs, conditions and messages), per release."""

from __future__ import annotations

from typing import Any

import pytest
from google.protobuf import json_format

from crossfn.functions import status_transformer
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import response

SYNCED_ERROR = {
    "apiVersion": "some.example.com/v1alpha1",
    "kind": "Object",
    "metadata": {"name": "example-name"},
    "status": {
        "conditions": [
            {
                "message": "Something went wrong: some lower level error",
                "reason": "ReconcileError",
                "status": "False",
                "type": "Synced",
            }
        ]
    },
}
SYNCED_MATCHER = {
    "type": "Synced",
    "status": "False",
    "reason": "ReconcileError",
    "message": "Something went wrong: (?P<Error>.+)",
}
AVAILABLE = ("StatusTransformationSuccess", "STATUS_CONDITION_TRUE", "Available", None, "TARGET_COMPOSITE")


def _hook(matcher: dict[str, Any], message: str = "{{ .Error }}", **extra: Any) -> dict[str, Any]:
    return {
        "matchers": [{"resources": [{"name": "example-mr"}], **matcher}],
        "setConditions": [
            {
                "target": "Composite",
                "condition": {
                    "type": "CustomReady",
                    "status": "False",
                    "reason": "InternalError",
                    "message": message,
                },
            }
        ],
        **extra,
    }


def _run(
    hooks: Any,
    observed: dict[str, Any],
    release: str = "v0.5.1",
    xr: dict[str, Any] | None = None,
    context: dict[str, Any] | None = None,
) -> fnv1.RunFunctionResponse:
    body: dict[str, Any] = {
        "input": {
            "apiVersion": "function-status-transformer.fn.crossplane.io/v1beta1",
            "kind": "StatusTransformation",
            **({"statusConditionHooks": hooks} if not isinstance(hooks, dict) else hooks),
        },
        "observed": {
            "composite": {"resource": xr or {}},
            "resources": {k: {"resource": v} for k, v in observed.items()},
        },
    }
    if context is not None:
        body["context"] = context
    req = json_format.ParseDict(body, fnv1.RunFunctionRequest())
    rsp = response.to(req)
    status_transformer.StatusTransformer(release)(req, rsp)
    return rsp


def _conds(rsp: fnv1.RunFunctionResponse) -> list[tuple[Any, ...]]:
    return [
        (
            c.type,
            fnv1.Status.Name(c.status),
            c.reason,
            c.message if c.HasField("message") else None,
            fnv1.Target.Name(c.target),
        )
        for c in rsp.conditions
    ]


def _events(rsp: fnv1.RunFunctionResponse) -> list[tuple[Any, ...]]:
    return [
        (
            fnv1.Severity.Name(r.severity),
            r.message,
            r.reason if r.HasField("reason") else None,
            fnv1.Target.Name(r.target),
        )
        for r in rsp.results
    ]


def _failure(reason: str, message: str) -> tuple[Any, ...]:
    return ("StatusTransformationSuccess", "STATUS_CONDITION_FALSE", reason, message, "TARGET_COMPOSITE")


CUSTOM = (
    "CustomReady",
    "STATUS_CONDITION_FALSE",
    "InternalError",
    "some lower level error",
    "TARGET_COMPOSITE",
)

CASES = [
    pytest.param(
        [
            _hook(
                {"conditions": [SYNCED_MATCHER]},
                createEvents=[
                    {
                        "target": "Composite",
                        "event": {"type": "Normal", "reason": "InternalError", "message": "{{ .Error }}"},
                    }
                ],
            )
        ],
        {"example-mr": SYNCED_ERROR},
        "v0.5.1",
        [CUSTOM, AVAILABLE],
        [("SEVERITY_NORMAL", "some lower level error", "InternalError", "TARGET_COMPOSITE")],
        "regex groups fill the condition and event templates",
        id="CapturesRegexGroups",
    ),
    pytest.param(
        [_hook({"conditions": [SYNCED_MATCHER]})],
        {},
        "v0.5.1",
        [AVAILABLE],
        [],
        "no resource to match: the hook does not fire",
        id="HandlesMissingResources",
    ),
    pytest.param(
        [_hook({"conditions": []})],
        {"example-mr": SYNCED_ERROR},
        "v0.5.1",
        [AVAILABLE],
        [],
        "a matcher without conditions never matches",
        id="NoMatchConditions",
    ),
    pytest.param(
        [_hook({"conditions": [{**SYNCED_MATCHER, "message": "a bad regex (?!)"}]})],
        {"example-mr": SYNCED_ERROR},
        "v0.5.1",
        [
            _failure(
                "MatchFailure",
                "cannot match resources, statusConditionHookIndex: 0, matchConditionIndex: 0: "
                "cannot compile message regex: error parsing regexp: invalid or unsupported Perl syntax: `(?!`",
            )
        ],
        [],
        "a bad message regex is a MatchFailure",
        id="MatchRegexFailureMessage",
    ),
    pytest.param(
        [
            {
                **_hook({"conditions": [SYNCED_MATCHER]}),
                "matchers": [{"resources": [{"name": "(?!"}], "conditions": [SYNCED_MATCHER]}],
            }
        ],
        {"example-mr": SYNCED_ERROR},
        "v0.5.1",
        [
            _failure(
                "MatchFailure",
                "cannot match resources, statusConditionHookIndex: 0, matchConditionIndex: 0: "
                "cannot compile resource key regex, resourcesIndex: 0: error parsing regexp: invalid or "
                "unsupported Perl syntax: `(?!`",
            )
        ],
        [],
        "a bad resource name regex is a MatchFailure",
        id="MatchRegexFailureResourceName",
    ),
    pytest.param(
        [_hook({"conditions": [SYNCED_MATCHER]}, message="{{ .Error }")],
        {"example-mr": SYNCED_ERROR},
        "v0.5.1",
        [
            _failure(
                "SetConditionFailure",
                "cannot set condition, statusConditionHookIndex: 0, setConditionIndex: 0: "
                'cannot parse template: template: :1: unexpected "}" in operand',
            )
        ],
        [],
        "a template that does not parse is a SetConditionFailure",
        id="TemplateParseFailure",
    ),
    pytest.param(
        {"object": "not valid"},
        {},
        "v0.5.1",
        [
            _failure(
                "InputFailure",
                "cannot get Function input from *v1.RunFunctionRequest: cannot get function input "
                "*v1beta1.StatusTransformation from *v1.RunFunctionRequest: cannot unmarshal JSON from "
                "*structpb.Struct into *v1beta1.StatusTransformation: json: cannot unmarshal Go value of type "
                'v1beta1.StatusTransformation: unknown name "object"',
            )
        ],
        [],
        "unknown input fields are rejected",
        id="BadInput",
    ),
    pytest.param(
        [_hook({"conditions": [SYNCED_MATCHER]}, createEvents=[{"event": {"type": "Bad", "message": "m"}}])],
        {"example-mr": SYNCED_ERROR},
        "v0.5.1",
        [
            CUSTOM,
            _failure(
                "SetConditionFailure",
                "cannot create event, statusConditionHookIndex: 0, createEventIndex: 0: "
                "invalid type Bad, must be one of [Normal, Warning]",
            ),
        ],
        [],
        "an invalid event type fails that event only",
        id="InvalidEventType",
    ),
    pytest.param(
        [_hook({"conditions": [SYNCED_MATCHER]}, createEvents=[{"event": {"message": "m {{ .Error }}"}}])],
        {"example-mr": SYNCED_ERROR},
        "v0.5.1",
        [CUSTOM, AVAILABLE],
        [("SEVERITY_NORMAL", "m some lower level error", None, "TARGET_COMPOSITE")],
        "an event without a type is Normal and targets the composite",
        id="DefaultEventType",
    ),
    pytest.param(
        [_hook({"conditions": [{"type": "Synced", "status": "False"}]}, message="no groups: {{ .Error }}")],
        {"example-mr": SYNCED_ERROR},
        "v0.5.1",
        [
            (
                "CustomReady",
                "STATUS_CONDITION_FALSE",
                "InternalError",
                "no groups: {{ .Error }}",
                "TARGET_COMPOSITE",
            ),
            AVAILABLE,
        ],
        [],
        "without captured groups the message is not a template at all",
        id="NoGroupsNoTemplate",
    ),
    pytest.param(
        [
            _hook({"conditions": [SYNCED_MATCHER]}),
            {
                **_hook({"conditions": [SYNCED_MATCHER]}, message="second"),
                "setConditions": [
                    {
                        "condition": {
                            "type": "CustomReady",
                            "status": "True",
                            "reason": "Second",
                            "message": "second",
                        }
                    }
                ],
            },
        ],
        {"example-mr": SYNCED_ERROR},
        "v0.5.1",
        [CUSTOM, AVAILABLE],
        [],
        "a condition type already set is not set again unless forced",
        id="ConditionOverrideLogic",
    ),
    pytest.param(
        [
            {
                "matchers": [
                    {"includeCompositeAsResource": True, "conditions": [{"type": "Ready", "status": "False"}]}
                ],
                "setConditions": [
                    {"condition": {"type": "XRNotReady", "status": "True", "reason": "Matched"}}
                ],
            }
        ],
        {},
        "v0.5.1",
        [("XRNotReady", "STATUS_CONDITION_TRUE", "Matched", None, "TARGET_COMPOSITE"), AVAILABLE],
        [],
        "the XR itself can be matched from v0.4.0",
        id="MatchTheCompositeResource",
    ),
    pytest.param(
        [{"matchers": [{"includeCompositeAsResource": True, "conditions": [{"type": "Ready"}]}]}],
        {},
        "v0.3.0",
        [
            _failure(
                "InputFailure",
                "cannot get Function input from *v1beta1.RunFunctionRequest: cannot get function "
                "input *v1beta1.StatusTransformation from *v1beta1.RunFunctionRequest: cannot unmarshal JSON from "
                "*structpb.Struct into *v1beta1.StatusTransformation: json: cannot unmarshal Go value of type "
                'v1beta1.Matcher: unknown name "includeCompositeAsResource"',
            )
        ],
        [],
        "v0.1.0 to v0.3.0 do not know includeCompositeAsResource",
        id="V030NoComposite",
    ),
    pytest.param(
        [
            {
                "matchers": [
                    {
                        "includeExtraResources": True,
                        "resources": [{"name": "x"}],
                        "conditions": [{"type": "Ready"}],
                    }
                ]
            }
        ],
        {},
        "v0.4.1",
        [
            _failure(
                "InputFailure",
                "cannot get Function input from *v1.RunFunctionRequest: cannot get function "
                "input *v1beta1.StatusTransformation from *v1.RunFunctionRequest: cannot unmarshal JSON from "
                "*structpb.Struct into *v1beta1.StatusTransformation: json: cannot unmarshal Go value of type "
                'v1beta1.Matcher: unknown name "includeExtraResources"',
            )
        ],
        [],
        "v0.4.x does not know includeExtraResources",
        id="V041NoExtraResources",
    ),
]


@pytest.mark.parametrize(("hooks", "observed", "release", "conditions", "events", "reason"), CASES)
def test_status_transformer(
    *,
    hooks: Any,
    observed: dict[str, Any],
    release: str,
    conditions: list[Any],
    events: list[Any],
    reason: str,
) -> None:
    xr = {
        "apiVersion": "x/v1",
        "kind": "XR",
        "status": {"conditions": [{"type": "Ready", "status": "False"}]},
    }
    rsp = _run(hooks, observed, release, xr=xr)
    assert _conds(rsp) == conditions, reason
    assert _events(rsp) == events, reason


DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "example", "namespace": "default"},
    "status": {"conditions": [{"type": "Available", "status": "True"}]},
}
EXTRA_HOOK = [
    {
        "matchers": [
            {
                "includeExtraResources": True,
                "resources": [{"name": "extra-resource.IntoKey.apps.Deployment.default.example"}],
                "conditions": [{"type": "Available", "status": "True"}],
            }
        ],
        "setConditions": [{"condition": {"type": "CustomReady", "status": "True", "reason": "Matched"}}],
    }
]
MATCHED = ("CustomReady", "STATUS_CONDITION_TRUE", "Matched", None, "TARGET_COMPOSITE")

EXTRA = [
    pytest.param(
        {"apiextensions.crossplane.io/extra-resources": {"IntoKey": [DEPLOYMENT]}},
        [MATCHED, AVAILABLE],
        "extra resources are named extra-resource.<into>.<group>.<kind>.<namespace>.<name>",
        id="MatchExtraResources",
    ),
    pytest.param(
        {},
        [AVAILABLE],
        "no extra resources in the context: nothing to match",
        id="TryToMatchExtraResourcesWhenNoneExist",
    ),
    pytest.param(
        {"apiextensions.crossplane.io/extra-resources": 1},
        [_failure("InputFailure", "cannot load extra-resources: unexpected extra-resources type: float64")],
        "a context value that is not a map is an InputFailure",
        id="ExtraResourcesInvalidType",
    ),
    pytest.param(
        {"apiextensions.crossplane.io/extra-resources": {"IntoKey": "x"}},
        [
            _failure(
                "InputFailure",
                "cannot load extra-resources: unexpected extra-resources value type for IntoKey: string",
            )
        ],
        "a key whose value is not a list is an InputFailure",
        id="ExtraResourcesInvalidValueForObjectType",
    ),
    pytest.param(
        {"apiextensions.crossplane.io/extra-resources": {"IntoKey": [1]}},
        [
            _failure(
                "InputFailure",
                "cannot load extra-resources: unexpected extra-resources value type for IntoKey [0]: float64",
            )
        ],
        "a list item that is not an object is an InputFailure",
        id="ExtraResourcesInvalidValueForObject",
    ),
]


@pytest.mark.parametrize(("context", "conditions", "reason"), EXTRA)
def test_extra_resources(context: dict[str, Any], conditions: list[Any], reason: str) -> None:
    assert _conds(_run(EXTRA_HOOK, {}, context=context)) == conditions, reason


MODES = [
    ("AnyResourceMatchesAnyCondition", True, "one resource with one condition is enough"),
    ("AnyResourceMatchesAllConditions", False, "no single resource has both conditions"),
    ("AllResourcesMatchAnyCondition", True, "each resource has one of the conditions"),
    ("AllResourcesMatchAllConditions", False, "no resource has both"),
]


@pytest.mark.parametrize(("mode", "fires", "reason"), MODES, ids=[m[0] for m in MODES])
def test_match_types(mode: str, fires: bool, reason: str) -> None:
    def obj(ctype: str) -> dict[str, Any]:
        return {
            "apiVersion": "x/v1",
            "kind": "MR",
            "status": {"conditions": [{"type": ctype, "status": "True"}]},
        }

    hooks = [
        {
            "matchers": [
                {
                    "type": mode,
                    "resources": [{"name": "mr-.*"}],
                    "conditions": [{"type": "A", "status": "True"}, {"type": "B", "status": "True"}],
                }
            ],
            "setConditions": [{"condition": {"type": "Fired", "status": "True", "reason": "R"}}],
        }
    ]
    got = _conds(_run(hooks, {"mr-a": obj("A"), "mr-b": obj("B")}))
    assert (("Fired", "STATUS_CONDITION_TRUE", "R", None, "TARGET_COMPOSITE") in got) is fires, reason


def _set_failure(message: str) -> tuple[Any, ...]:
    return _failure(
        "SetConditionFailure",
        f"cannot set condition, statusConditionHookIndex: 0, setConditionIndex: 0: {message}",
    )


# (message template, release, the condition message or the failure)
MESSAGES = [
    pytest.param(
        "{{ . }}",
        "v0.5.1",
        "map[Error:some lower level error]",
        "dot is the map[string]string of groups",
        id="DotIsTheGroups",
    ),
    pytest.param(
        "{{ .Missing }}",
        "v0.5.1",
        "<no value>",
        "a group no expression captured is Go's missing map key",
        id="MissingGroup",
    ),
    pytest.param(
        '{{ printf "%q" .Error | len }}',
        "v0.5.1",
        "24",
        "Go's builtins and pipelines run",
        id="BuiltinsAndPipelines",
    ),
    pytest.param("{{ if .Error }}failed{{ end }}", "v0.5.1", "failed", "if runs", id="ControlActions"),
    pytest.param(
        "{{ .Error | upper }}",
        "v0.5.1",
        _set_failure('cannot parse template: template: :1: function "upper" not defined'),
        "upstream adds no functions (no Sprig)",
        id="NoSprig",
    ),
    pytest.param(
        "x\n{{ .Error.Field }}",
        "v0.5.1",
        _set_failure(
            'cannot execute template: template: :2:9: executing "" at <.Error.Field>: '
            "can't evaluate field Field in type string"
        ),
        "an execution error names the line and column of the field that fails",
        id="ExecuteError",
    ),
    pytest.param(
        "{{ range 2 }}{{ . }}{{ end }}",
        "v0.4.1",
        "01",
        "v0.4.1 was built with Go 1.24: range over an int",
        id="RangeIntGo124",
    ),
    pytest.param(
        "{{ range 2 }}{{ . }}{{ end }}",
        "v0.4.0",
        _set_failure(
            'cannot execute template: template: :1:9: executing "" at <2>: range can\'t iterate over 2'
        ),
        "v0.4.0 was built with Go 1.23",
        id="RangeIntGo123",
    ),
    pytest.param(
        "{{ with .No }}{{ else with .Error }}{{ . }}{{ end }}",
        "v0.3.0",
        "some lower level error",
        "v0.2.0 to v0.3.0 were built with Go 1.23: else with",
        id="ElseWithGo123",
    ),
    pytest.param(
        "{{ with .No }}{{ else with .Error }}{{ . }}{{ end }}",
        "v0.1.0",
        _set_failure("cannot parse template: template: :1: unexpected <with> in else"),
        "v0.1.0 was built with Go 1.21",
        id="ElseWithGo121",
    ),
]


@pytest.mark.parametrize(("message", "release", "want", "reason"), MESSAGES)
def test_message_templates(message: str, release: str, want: str | tuple[Any, ...], reason: str) -> None:
    """Messages are Go's text/template of each release's Go, with no functions added and no options set."""
    got = _conds(
        _run(
            [_hook({"conditions": [SYNCED_MATCHER]}, message=message)], {"example-mr": SYNCED_ERROR}, release
        )
    )
    if isinstance(want, tuple):
        assert got == [want], reason
        return
    assert got == [
        ("CustomReady", "STATUS_CONDITION_FALSE", "InternalError", want, "TARGET_COMPOSITE"),
        AVAILABLE,
    ], reason
