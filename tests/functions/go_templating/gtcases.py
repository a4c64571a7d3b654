"""Shared fixtures for the go-templating tests: upstream's test documents, request builders, a runner."""

from __future__ import annotations

import json
import pathlib
from typing import Any

from google.protobuf import json_format

from crossfn.functions import go_templating
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource, response

TESTDATA = pathlib.Path(__file__).parent / "testdata"

NAME = "gotemplating.fn.crossplane.io/composition-resource-name"
READY = "gotemplating.fn.crossplane.io/ready"
META = "meta.gotemplating.fn.crossplane.io/v1alpha1"


def _j(text: str) -> str:
    """A test document with the annotation keys and the meta apiVersion filled in."""
    return text.replace("$NAME", NAME).replace("$READY", READY).replace("$META", META)


# The documents upstream's fn_test.go renders (facts: inputs and what they become).
INVALID_YAML = "\n---\napiVersion: example.org/v1\nkind: CD\nmetadata:\n  name: %!@#$%^&*()_+\n"
CD = _j(
    '{"apiVersion":"example.org/v1","kind":"CD","metadata":{"annotations":{"$NAME":"cool-cd"},"name":"cool-cd"}}'
)
CD_TMPL = _j(
    '{"apiVersion":"example.org/v1","kind":"CD","metadata":{"annotations":{"$NAME":"cool-cd"},"name":"cool-cd",'
    '"labels":{"belongsTo":{{.observed.composite.resource.metadata.name|quote}}}}}'
)
CD_MISSING_KEY_TMPL = '{"apiVersion":"example.org/v1","kind":"CD","metadata":{"name":"cool-cd","labels":{"belongsTo":{{.missing | quote }}}}}'
CD_WRONG_TMPL = '{"apiVersion":"example.org/v1","kind":"CD","metadata":{"name":"cool-cd","labels":{"belongsTo":{{.invalid-key}}}}}'
CD_MISSING_KIND = '{"apiVersion":"example.org/v1"}'
CD_MISSING_RESOURCE_NAME = '{"apiVersion":"example.org/v1","kind":"CD","metadata":{"name":"cool-cd"}}'
CD_WITH_READY_WRONG = _j(
    '{"apiVersion":"example.org/v1","kind":"CD","metadata":{"annotations":{"$NAME":"cool-cd","$READY":"wrongValue"},'
    '"name":"cool-cd"}}'
)
CD_WITH_READY_TRUE = _j(
    '{"apiVersion":"example.org/v1","kind":"CD","metadata":{"annotations":{"$NAME":"cool-cd","$READY":"True"},'
    '"name":"cool-cd"}}'
)
META_INVALID = _j('{"apiVersion":"$META","kind":"InvalidMeta"}')
META_CONDET = _j('{"apiVersion":"$META","kind":"CompositeConnectionDetails","data":{"key":"dmFsdWU="}}')
META_CONDET2 = _j('{"apiVersion":"$META","kind":"CompositeConnectionDetails","data":{"key2":"ZXVsYXY="}}')
META_CONTEXT_INVALID = _j('{"apiVersion":"$META","kind":"Context","data": 1 }')
META_CONTEXT = _j(
    '{"apiVersion":"$META","kind":"Context","data":{"apiextensions.crossplane.io/environment":{ "new":"value"}}}'
)

XR = '{"apiVersion":"example.org/v1","kind":"XR","metadata":{"name":"cool-xr"},"spec":{"count":2}}'
XR_WITH_STATUS = '{"apiVersion":"example.org/v1","kind":"XR","metadata":{"name":"cool-xr"},"spec":{"count":2},"status":{"ready":"true"}}'
XR_NESTED_FOO = (
    '{"apiVersion":"example.org/v1","kind":"XR","metadata":{"name":"cool-xr"},"spec":{"count":2},'
    '"status":{"state":{"foo":"bar"}}}'
)
XR_NESTED_BAZ = (
    '{"apiVersion":"example.org/v1","kind":"XR","metadata":{"name":"cool-xr"},"spec":{"count":2},'
    '"status":{"state":{"baz":"qux"}}}'
)
XR_RECURSIVE_TMPL = _j(
    '{"apiVersion":"example.org/v1","kind":"XR","metadata":{"annotations":{"$NAME":"recursive-xr"},"name":"recursive-xr",'
    '"labels":{"belongsTo":{{.observed.composite.resource.metadata.name|quote}}}},"spec":{"count":2}}'
)


def xr_with(annotations: dict[str, str], status: dict[str, Any] | None = None) -> str:
    doc: dict[str, Any] = {
        "apiVersion": "example.org/v1",
        "kind": "XR",
        "metadata": {"annotations": annotations, "name": "cool-xr"},
        "spec": {"count": 2},
    }
    if status is not None:
        doc["status"] = status
    return json.dumps(doc, separators=(",", ":"))


CLAIM_CONDITIONS = _j(
    '{"apiVersion":"$META","kind":"ClaimConditions","conditions":['
    '{"type":"TestCondition","status":"False","reason":"InstallFail","message":"failed to install","target":"ClaimAndComposite"},'
    '{"type":"ConditionTrue","status":"True","reason":"this condition is true","message":"we are true","target":"Composite"},'
    '{"type":"DatabaseReady","status":"True","reason":"Ready","message":"Database is ready"}]}'
)
CLAIM_CONDITIONS_RESERVED = _j(
    '{"apiVersion":"$META","kind":"ClaimConditions","conditions":[{"type":"Ready","status":"False","reason":"InstallFail",'
    '"message":"I am using a reserved Condition","target":"ClaimAndComposite"}]}'
)
EXTRA_RESOURCE = _j(
    '{"apiVersion":"$META","kind":"ExtraResources","requirements":{"cool-extra-resource":{"apiVersion":"example.org/v1",'
    '"kind":"CoolExtraResource","matchName":"cool-extra-resource"}}}'
)
EXTRA_RESOURCES = "\n".join(
    [
        EXTRA_RESOURCE,
        _j(
            '{"apiVersion":"$META","kind":"ExtraResources","requirements":{"another-cool-extra-resource":{"apiVersion":'
            '"example.org/v1","kind":"CoolExtraResource","matchLabels":{"key": "value"}},"yet-another-cool-extra-resource":'
            '{"apiVersion":"example.org/v1","kind":"CoolExtraResource","matchName":"foo"}}}'
        ),
        _j(
            '{"apiVersion":"$META","kind":"ExtraResources","requirements":{"all-cool-resources":{"apiVersion":"example.org/v1",'
            '"kind":"CoolExtraResource","matchLabels":{}}}}'
        ),
    ]
)
EXTRA_RESOURCES_DUPLICATED = "\n".join(
    [
        EXTRA_RESOURCE,
        _j(
            '{"apiVersion":"$META","kind":"ExtraResources","requirements":{"cool-extra-resource":{"apiVersion":"example.org/v1",'
            '"kind":"CoolExtraResource","matchName":"another-cool-extra-resource"}}}'
        ),
    ]
)
EXTRA_RESOURCE_NAMESPACED = _j(
    '{"apiVersion":"$META","kind":"ExtraResources","requirements":{"cool-extra-resource":{"apiVersion":"v1",'
    '"kind":"ConfigMap","matchName":"cool-extra-resource","namespace":"default"}}}'
)


def obj(text: str) -> dict[str, Any]:
    return dict(json.loads(text))


def inline(template: str, **extra: Any) -> dict[str, Any]:
    return {"source": "Inline", "inline": {"template": template}, **extra}


def request(
    inp: dict[str, Any] | None = None,
    *,
    tag: str = "",
    observed: str | None = None,
    observed_resources: dict[str, str] | None = None,
    desired: str | None = None,
    desired_resources: dict[str, str] | None = None,
    context: dict[str, Any] | None = None,
    extra_resources: dict[str, list[str]] | None = None,
    required_resources: dict[str, list[str]] | None = None,
) -> fnv1.RunFunctionRequest:
    req = fnv1.RunFunctionRequest()
    if tag:
        req.meta.tag = tag
    if inp is not None:
        req.input.CopyFrom(resource.dict_to_struct(inp))
    if observed is not None:
        req.observed.composite.resource.CopyFrom(resource.dict_to_struct(obj(observed)))
    for name, text in (observed_resources or {}).items():
        req.observed.resources[name].resource.CopyFrom(resource.dict_to_struct(obj(text)))
    if desired is not None:
        req.desired.composite.resource.CopyFrom(resource.dict_to_struct(obj(desired)))
    for name, text in (desired_resources or {}).items():
        req.desired.resources[name].resource.CopyFrom(resource.dict_to_struct(obj(text)))
    if context is not None:
        req.context.CopyFrom(resource.dict_to_struct(context))
    for name, items in (extra_resources or {}).items():
        rs = req.extra_resources[name]
        for text in items:
            rs.items.add().resource.CopyFrom(resource.dict_to_struct(obj(text)))
    for name, items in (required_resources or {}).items():
        rs = req.required_resources[name]
        for text in items:
            rs.items.add().resource.CopyFrom(resource.dict_to_struct(obj(text)))
    return req


def run(req: fnv1.RunFunctionRequest, fn: Any = None) -> dict[str, Any]:
    """The response as protojson's dict, as a compose function's response starts (crossfn.sdk.function)."""
    rsp = response.to(req, empty_context=False)
    (fn or go_templating.compose)(req, rsp)
    out = json_format.MessageToDict(rsp)
    if out.get("desired") == {}:
        del out["desired"]  # Go's response has no desired state when the request had none
    return out


def fatal(message: str, *, composite_target: bool = True) -> dict[str, Any]:
    result: dict[str, Any] = {"severity": "SEVERITY_FATAL", "message": message}
    if composite_target:
        result["target"] = "TARGET_COMPOSITE"
    return result


def messages(out: dict[str, Any]) -> list[str]:
    return [r["message"] for r in out.get("results", [])]


def composed(out: dict[str, Any]) -> dict[str, Any]:
    return {name: r.get("resource") for name, r in out.get("desired", {}).get("resources", {}).items()}
