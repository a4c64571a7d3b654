"""function-kcl's own function tests (``fn_test.go`` at v0.12.2), re-expressed: inputs and expected responses.

Each case runs the built-in on a request and compares the desired state,
results, conditions, requirements and context with what upstream expects.
"""

from __future__ import annotations

from typing import Any

import pytest
from google.protobuf import json_format
from kcl_support import desired, pool_limits, request, results, run

from crossfn.functions import kcl
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource

limits = pytest.fixture(scope="module")(pool_limits)

XR = {"apiVersion": "example.org/v1", "kind": "XR", "metadata": {"name": "cool-xr"}, "spec": {"count": 2}}
CD = {
    "apiVersion": "example.org/v1",
    "kind": "CD",
    "metadata": {"annotations": {"krm.kcl.dev/composition-resource-name": "cool-cd"}, "name": "cool-cd"},
}
BARE_XR = {"apiVersion": "example.org/v1", "kind": "XR"}
GENERATED = '{\n    apiVersion: "example.org/v1"\n    kind: "Generated"\n}'
PROCESS = "cannot process xr and state with the pipeline output in *v1.RunFunctionResponse: "


def _meta_items(kind: str, body: str) -> str:
    return f'items = [{{\n    apiVersion: "meta.krm.kcl.dev/v1alpha1"\n    kind: "{kind}"\n{body}\n}}]'


CONDITIONS = _meta_items(
    "Conditions",
    """    conditions = [{
        target: "CompositeAndClaim"
        force: False
        condition = {
            type: "DatabaseReady"
            status: "False"
            reason: "FailedToCreate"
            message: "Encountered an error creating the database"
        }
    },{
        target: "Composite"
        force: FORCE
        condition = {
            type: "DatabaseReady"
            status: "False"
            reason: "SECOND_REASON"
            message: "Encountered an error during validation"
        }
    }]""",
)
EVENTS = _meta_items(
    "Events",
    """    events = [{
        target: "CompositeAndClaim"
        event = {
            type: "Warning"
            reason: "ResourceLimitExceeded"
            message: "The resource limit has been exceeded"
        }
    },{
        target: "Composite"
        event = {
            type: "Warning"
            reason: "ValidationFailed"
            message: "The validation failed"
        }
    }]""",
)
EXTRA = """items = [
{
  apiVersion: "meta.krm.kcl.dev/v1alpha1"
  kind: "KIND"
  requirements = {"cool-KEY" = {apiVersion: "example.org/v1", kind: "COOLKIND", NAME: "cool-KEY"}}
},
{
  apiVersion: "meta.krm.kcl.dev/v1alpha1"
  kind: "KIND"
  requirements = {
    "another-cool-KEY" = {apiVersion: "example.org/v1", kind: "COOLKIND", matchLabels = {key: "value"}}
    "yet-another-cool-KEY" = {apiVersion: "example.org/v1", kind: "COOLKIND", NAME: "foo"}
  }
},
{
  apiVersion: "meta.krm.kcl.dev/v1alpha1"
  kind: "KIND"
  requirements = {"all-cool-resources" = {apiVersion: "example.org/v1", kind: "COOLKIND", matchLabels = {}}}
}
]"""
DUPLICATE_KEY = """items = [
{apiVersion: "meta.krm.kcl.dev/v1alpha1", kind: "KIND", requirements = {"cool-KEY" = {apiVersion: "example.org/v1", kind: "COOLKIND", NAME: "cool-KEY"}}}
{apiVersion: "meta.krm.kcl.dev/v1alpha1", kind: "KIND", requirements = {"cool-KEY" = {apiVersion: "example.org/v1", kind: "COOLKIND", NAME: "cool-KEY"}}}
]"""
DUPLICATE_NAMES = """items = [
{
    apiVersion: "example.org/v1"
    kind: "Generated"
    metadata = {
        name = "metadata-name"
        annotations = {"krm.kcl.dev/composition-resource-name": "duplicate-resource-name"}
    }
}
{
    apiVersion: "example.org/v1"
    kind: "Generated"
    metadata.name = "duplicate-resource-name"
}
]"""
DUPLICATE_MESSAGE = (
    f'{PROCESS}multiple composed resources with name "duplicate-resource-name" returned: Generated/metadata-name '
    'and Generated/duplicate-resource-name. Set different metadata.name or metadata.annotations."krm.kcl.dev/'
    'composition-resource-name" to distinguish them.'
)


def _requirements_source(kind: str, key: str, name_field: str, template: str = EXTRA) -> str:
    return (
        template.replace("COOLKIND", "Cool" + kind.removesuffix("s"))
        .replace("KIND", kind)
        .replace("KEY", key)
        .replace("NAME", name_field)
    )


def _selectors(kind: str, key: str) -> dict[str, Any]:
    return {
        f"cool-{key}": {"apiVersion": "example.org/v1", "kind": f"Cool{kind}", "matchName": f"cool-{key}"},
        f"another-cool-{key}": {"apiVersion": "example.org/v1", "kind": f"Cool{kind}", "matchLabels": {"labels": {"key": "value"}}},
        f"yet-another-cool-{key}": {"apiVersion": "example.org/v1", "kind": f"Cool{kind}", "matchName": "foo"},
        "all-cool-resources": {"apiVersion": "example.org/v1", "kind": f"Cool{kind}", "matchLabels": {}},
    }  # fmt: skip


CASES: list[Any] = [
    pytest.param(
        request(GENERATED, target="Resources", xr=BARE_XR),
        {"composite": BARE_XR, "resources": {"": {"apiVersion": "example.org/v1", "kind": "Generated"}}},
        "A bare config is one item; without a name it is desired under the empty name",
        id="ResponseIsReturned",
    ),
    pytest.param(
        request(
            'items = [{ \n    apiVersion: "sql.gcp.upbound.io/v1beta1"\n    kind: "DatabaseInstance"\n    spec: {\n'
            '        forProvider: {\n            project: "test-project"\n            settings: [{databaseFlags: [{\n'
            '                name: "log_checkpoints"\n                value: "on"\n            }]}]\n        }\n    }\n}]\n',
            xr=BARE_XR,
        ),
        {
            "composite": BARE_XR,
            "resources": {
                "": {
                    "apiVersion": "sql.gcp.upbound.io/v1beta1",
                    "kind": "DatabaseInstance",
                    "spec": {
                        "forProvider": {
                            "project": "test-project",
                            "settings": [{"databaseFlags": [{"name": "log_checkpoints", "value": "on"}]}],
                        }
                    },
                }
            },
        },
        "Without a target the items go through the Default target, nested lists intact",
        id="DatabaseInstance",
    ),
    pytest.param(
        request(
            '{\n    apiVersion: "example.org/v1"\n    kind: "Generated"\n metadata.annotations = '
            '{"krm.kcl.dev/composition-resource-name": "custom-composition-resource-name"}\n}',
            target="Default",
            xr=BARE_XR,
        ),
        {
            "composite": BARE_XR,
            "resources": {
                "custom-composition-resource-name": {
                    "apiVersion": "example.org/v1",
                    "kind": "Generated",
                    "metadata": {"annotations": {}},
                }
            },
        },
        "The name annotation names the resource and is removed, leaving empty annotations",
        id="CustomCompositionResourceNameIsSet",
    ),
    pytest.param(
        request(
            'items = [\n{\n    apiVersion: "example.org/v1"\n    kind: "Generated"\n metadata.annotations = '
            '{"krm.kcl.dev/composition-resource-name": "custom-composition-resource-name-0"}\n}\n{\n'
            '    apiVersion: "example.org/v1"\n    kind: "Generated"\n metadata.annotations = '
            '{"krm.kcl.dev/composition-resource-name": "custom-composition-resource-name-1"}\n}\n]\n',
            xr=BARE_XR,
        ),
        {
            "composite": BARE_XR,
            "resources": {
                f"custom-composition-resource-name-{i}": {
                    "apiVersion": "example.org/v1",
                    "kind": "Generated",
                    "metadata": {"annotations": {}},
                }
                for i in (0, 1)
            },
        },
        "Several items with different names are several desired resources",
        id="MultipleResource",
    ),
    pytest.param(
        request(
            _requirements_source("ExtraResources", "extra-resource", "matchName"),
            target="Default",
            xr=XR,
            desired_xr=XR,
            desired={"cool-cd": CD},
        ),
        {
            "composite": XR,
            "resources": {"cool-cd": CD},
            "requirements": {"extraResources": _selectors("ExtraResource", "extra-resource")},
        },
        "ExtraResources items become requirements; empty matchLabels match everything",
        id="ExtraResources",
    ),
    pytest.param(
        request(
            'items = [{ apiVersion: "meta.krm.kcl.dev/v1alpha1", kind: "ExtraResources", requirements = { '
            '"cool-ns-resource-matchname" = { apiVersion: "example.m.org/v1", kind: "CoolExtraResource", '
            'matchNamespace: "cool-ns-scoped-ns", matchName: "cool-ns-scoped-resource" } } }]',
            target="Default",
            xr=XR,
            desired_xr=XR,
        ),
        {
            "composite": XR,
            "resources": {},
            "requirements": {
                "extraResources": {
                    "cool-ns-resource-matchname": {
                        "apiVersion": "example.m.org/v1",
                        "kind": "CoolExtraResource",
                        "namespace": "cool-ns-scoped-ns",
                        "matchName": "cool-ns-scoped-resource",
                    }
                }
            },
        },
        "matchNamespace selects a namespace",
        id="ExtraResourcesNamespacedMatchName",
    ),
    pytest.param(
        request(
            'items = [v.Resource for v in option("params").extraResources["cool1"]]\n',
            target="Default",
            extra_resources={"cool1": {"items": [{"resource": XR}, {"resource": CD}]}},
        ),
        {
            "composite": {"apiVersion": "", "kind": ""},
            "resources": {
                "cool-xr": XR,
                "cool-cd": {**CD, "metadata": {"annotations": {}, "name": "cool-cd"}},
            },
        },
        "option('params').extraResources holds the request's extra resources",
        id="ExtraResourcesIn",
    ),
    pytest.param(
        request(
            _requirements_source("ExtraResources", "extra-resource", "matchName", DUPLICATE_KEY),
            target="Default",
            xr=XR,
            desired_xr=XR,
            desired={"cool-cd": CD},
        ),
        {
            "composite": XR,
            "resources": {"cool-cd": CD},
            "results": [("SEVERITY_FATAL", f'{PROCESS}duplicate extra resource key "cool-extra-resource"')],
        },
        "A requirement key given twice fails the step; the desired state is unchanged",
        id="DuplicateExtraResourceKey",
    ),
    pytest.param(
        request(
            _requirements_source("RequiredResources", "required-resource", "name"),
            target="Default",
            xr=XR,
            desired_xr=XR,
            desired={"cool-cd": CD},
        ),
        {
            "composite": XR,
            "resources": {"cool-cd": CD},
            "requirements": {"resources": _selectors("RequiredResource", "required-resource")},
        },
        "RequiredResources items become requirements.resources",
        id="RequiredResources",
    ),
    pytest.param(
        request(
            'items = [{ apiVersion: "meta.krm.kcl.dev/v1alpha1", kind: "RequiredResources", requirements = { '
            '"cool-ns-resource-matchname" = { apiVersion: "example.m.org/v1", kind: "CoolRequiredResource", '
            'namespace: "cool-ns-scoped-ns", name: "cool-ns-scoped-resource" } } }]',
            target="Default",
            xr=XR,
            desired_xr=XR,
        ),
        {
            "composite": XR,
            "resources": {},
            "requirements": {
                "resources": {
                    "cool-ns-resource-matchname": {
                        "apiVersion": "example.m.org/v1",
                        "kind": "CoolRequiredResource",
                        "namespace": "cool-ns-scoped-ns",
                        "matchName": "cool-ns-scoped-resource",
                    }
                }
            },
        },
        "namespace selects a namespace for required resources",
        id="RequiredResourcesNamespacedName",
    ),
    pytest.param(
        request(
            'items = [v.Resource for v in option("params").requiredResources["cool1"]]\n',
            target="Default",
            required_resources={"cool1": {"items": [{"resource": XR}, {"resource": CD}]}},
        ),
        {
            "composite": {"apiVersion": "", "kind": ""},
            "resources": {
                "cool-xr": XR,
                "cool-cd": {**CD, "metadata": {"annotations": {}, "name": "cool-cd"}},
            },
        },
        "option('params').requiredResources holds the request's required resources",
        id="RequiredResourcesIn",
    ),
    pytest.param(
        request(
            _requirements_source("RequiredResources", "required-resource", "name", DUPLICATE_KEY),
            target="Default",
            xr=XR,
            desired_xr=XR,
            desired={"cool-cd": CD},
        ),
        {
            "composite": XR,
            "resources": {"cool-cd": CD},
            "results": [
                ("SEVERITY_FATAL", f'{PROCESS}duplicate required resource key "cool-required-resource"')
            ],
        },
        "A required resource key given twice fails the step",
        id="DuplicateRequiredResourceKey",
    ),
    pytest.param(
        request(xr=BARE_XR),
        {"composite": BARE_XR, "resources": {"": {"apiVersion": "example.org/v1", "kind": "Generated"}}},
        "Without input the default source runs",
        id="EmptyInputWithDefaultSource",
    ),
    pytest.param(
        request(xr=BARE_XR),
        {
            "results": [
                (
                    "SEVERITY_FATAL",
                    "invalid function input: spec.source: Required value: kcl source cannot be empty",
                )
            ]
        },
        "Without input and without a default source the step fails",
        id="EmptyInputWithoutDefaultSource",
    ),
    pytest.param(
        request(
            CONDITIONS.replace("FORCE", "False").replace("SECOND_REASON", "FailedToValidate"),
            target="Default",
        ),
        {
            "composite": {"apiVersion": "", "kind": ""},
            "resources": {},
            "conditions": [
                {
                    "type": "DatabaseReady",
                    "status": "STATUS_CONDITION_FALSE",
                    "reason": "FailedToCreate",
                    "message": "Encountered an error creating the database",
                    "target": "TARGET_COMPOSITE_AND_CLAIM",
                }
            ],
        },
        "A second condition of the same type without force is dropped",
        id="SetConditions",
    ),
    pytest.param(
        request(
            CONDITIONS.replace("FORCE", "True").replace("SECOND_REASON", "DatabaseValidation"),
            target="Default",
        ),
        {
            "composite": {"apiVersion": "", "kind": ""},
            "resources": {},
            "conditions": [
                {
                    "type": "DatabaseReady",
                    "status": "STATUS_CONDITION_FALSE",
                    "reason": "FailedToCreate",
                    "message": "Encountered an error creating the database",
                    "target": "TARGET_COMPOSITE_AND_CLAIM",
                },
                {
                    "type": "DatabaseReady",
                    "status": "STATUS_CONDITION_FALSE",
                    "reason": "DatabaseValidation",
                    "message": "Encountered an error during validation",
                    "target": "TARGET_COMPOSITE",
                },
            ],
        },
        "A forced condition of the same type is added after the first",
        id="OberwriteCondition",
    ),
    pytest.param(
        request(EVENTS, target="Default"),
        {
            "composite": {"apiVersion": "", "kind": ""},
            "resources": {},
            "results": [
                ("SEVERITY_WARNING", "The resource limit has been exceeded"),
                ("SEVERITY_WARNING", "The validation failed"),
            ],
            "result_details": [
                ("ResourceLimitExceeded", "TARGET_COMPOSITE_AND_CLAIM"),
                ("ValidationFailed", "TARGET_COMPOSITE"),
            ],
        },
        "Events become results with their reason and target",
        id="SetEvents",
    ),
    pytest.param(
        request(_meta_items("Context", '    data = {contextField: "contextValue"}'), target="Default"),
        {
            "composite": {"apiVersion": "", "kind": ""},
            "resources": {},
            "context": {"contextField": "contextValue"},
        },
        "A Context item sets context keys",
        id="SetContext",
    ),
    pytest.param(
        request(
            _meta_items("Context", '    data = {contextField: "contextValue"}'),
            target="Default",
            context={"inputContext": "valueFromPreviousContext"},
        ),
        {
            "composite": {"apiVersion": "", "kind": ""},
            "resources": {},
            "context": {"contextField": "contextValue", "inputContext": "valueFromPreviousContext"},
        },
        "A Context item merges over the request's context",
        id="MergeContext",
    ),
    pytest.param(
        request(DUPLICATE_NAMES, xr=BARE_XR),
        {"results": [("SEVERITY_FATAL", DUPLICATE_MESSAGE)]},
        "Two items of one name fail the Default target, naming both",
        id="DuplicateNameError",
    ),
    pytest.param(
        request(
            '[{\n    apiVersion: "example.org/v1"\n    kind: "XR"\n metadata.name = "cool-xr"\n},{\n'
            '    apiVersion: "example.org/v1"\n    kind: "Generated"\n metadata.name = "cool-xr"\n}]',
            target="Default",
            xr=BARE_XR,
        ),
        {
            "composite": {**BARE_XR, "status": {}},
            "resources": {
                "cool-xr": {
                    "apiVersion": "example.org/v1",
                    "kind": "Generated",
                    "metadata": {"name": "cool-xr"},
                }
            },
        },
        "An item of the XR's kind patches the XR's status; it does not take a resource name",
        id="ComposedSameNameAsXR",
    ),
    pytest.param(
        request(DUPLICATE_NAMES, target="Resources", xr=BARE_XR),
        {"results": [("SEVERITY_FATAL", DUPLICATE_MESSAGE)]},
        "Two items of one name fail the Resources target too",
        id="ResourcesTargetDuplicateNameError",
    ),
]


def _selector_dict(sel: fnv1.ResourceSelector) -> dict[str, Any]:
    return json_format.MessageToDict(sel)


@pytest.mark.parametrize(("req", "want", "reason"), CASES)
def test_run_function(
    limits: kcl.Limits, req: fnv1.RunFunctionRequest, want: dict[str, Any], reason: str
) -> None:
    default = GENERATED if reason.startswith("Without input the default source") else None
    fn = kcl.Kcl(limits=limits, default_source=default)
    rsp = run(fn, req)
    assert results(rsp) == want.get("results", []), reason
    if "composite" in want:
        assert resource.struct_to_dict(rsp.desired.composite.resource) == want["composite"], reason
    if "resources" in want:
        assert desired(rsp) == want["resources"], reason
    if "requirements" in want:
        got = {
            k: {n: _selector_dict(s) for n, s in v.items()}
            for k, v in (
                ("extraResources", rsp.requirements.extra_resources),
                ("resources", rsp.requirements.resources),
            )
            if v
        }
        assert got == want["requirements"], reason
    else:
        assert not rsp.HasField("requirements"), reason
    conditions = [json_format.MessageToDict(c, preserving_proto_field_name=True) for c in rsp.conditions]
    assert conditions == want.get("conditions", []), reason
    if "result_details" in want:
        assert [(r.reason, fnv1.Target.Name(r.target)) for r in rsp.results] == want["result_details"], reason
    if "context" in want:
        assert resource.struct_to_dict(rsp.context) == want["context"], reason
