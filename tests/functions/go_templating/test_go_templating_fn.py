"""function-go-templating v0.12.2's fn_test.go re-expressed: each request and the whole response it gets.

Upstream's test reads files from an embedded file system, whose missing files
say ``file does not exist``; the function itself reads the container's (an
``os.Open`` file system), which says ``no such file or directory``, as here.
"""

from __future__ import annotations

from typing import Any

import gtcases as g
import pytest

from crossfn.functions import go_templating

TTL = {"ttl": "60s"}
XR_OUT = g.obj(g.XR)


def _desired(xr: Any = XR_OUT, resources: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"composite": {"resource": xr, **extra}}
    if resources:
        out["resources"] = resources
    return out


def _cd(labels: dict[str, str] | None = None, ready: str = "") -> dict[str, Any]:
    meta: dict[str, Any] = {"annotations": {}, "name": "cool-cd"}
    if labels:
        meta["labels"] = labels
    out: dict[str, Any] = {"resource": {"apiVersion": "example.org/v1", "kind": "CD", "metadata": meta}}
    if ready:
        out["ready"] = ready
    return out


_BY_NAME = {"apiVersion": "example.org/v1", "kind": "CoolExtraResource", "matchName": "cool-extra-resource"}
_EXTRA_REQUIREMENTS = {
    "cool-extra-resource": _BY_NAME,
    "another-cool-extra-resource": {
        "apiVersion": "example.org/v1",
        "kind": "CoolExtraResource",
        "matchLabels": {"labels": {"key": "value"}},
    },
    "yet-another-cool-extra-resource": {
        "apiVersion": "example.org/v1",
        "kind": "CoolExtraResource",
        "matchName": "foo",
    },
    "all-cool-resources": {"apiVersion": "example.org/v1", "kind": "CoolExtraResource", "matchLabels": {}},
}
_COOL_EXTRA = '{"apiVersion": "example.org/v1","kind":"CoolExtraResource","metadata":{"name":"cool-extra-resource"},"spec":{}}'
_EXISTING_EXTRA = {
    "apiVersion": "example.org/v1",
    "kind": "CoolExtraResource",
    "metadata": {"name": "existing-extra-resource"},
    "spec": {},
}
_CONFIGMAP = (
    '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cool-extra-resource", "namespace": "default"}, '
    '"data": {"a": "b"}}'
)
_ENV_TEMPLATE = (
    "apiVersion: example.org/v1\nkind: CD\nmetadata:\n  name: cool-cd\n  annotations:\n"
    "    gotemplating.fn.crossplane.io/composition-resource-name: cool-cd\n  labels:\n"
    "    belongsTo: {{ .observed.composite.resource.metadata.name|quote }}"
)
_KEY = "userkey/go-template"
_WITH_XR: dict[str, Any] = {"observed": g.XR, "desired": g.XR}


def _xr(status: dict[str, Any] | None = None) -> dict[str, Any]:
    out = g.obj(g.XR)
    if status is not None:
        out["status"] = status
    return out


# (id, reason, input, request keywords, the response upstream's test wants)
CASES: list[tuple[str, str, dict[str, Any] | None, dict[str, Any], dict[str, Any]]] = [
    (
        "WrongInputSourceType",
        "a source that is none of Inline, FileSystem, Environment is refused",
        {"source": "wrong"},
        {},
        {"meta": TTL, "results": [g.fatal("invalid function input: invalid source: wrong")]},
    ),
    (
        "NoInput",
        "without an input there is no source",
        None,
        {},
        {"meta": TTL, "results": [g.fatal("invalid function input: source is required")]},
    ),
    (
        "WrongInlineInput",
        "Inline needs inline.template or inline.templates",
        {"source": "Inline"},
        {},
        {
            "meta": TTL,
            "results": [
                g.fatal("invalid function input: inline.template or inline.templates should be provided")
            ],
        },
    ),
    (
        "WrongFileSystemInput",
        "FileSystem needs fileSystem.dirPath",
        {"source": "FileSystem"},
        {},
        {"meta": TTL, "results": [g.fatal("invalid function input: fileSystem.dirPath should be provided")]},
    ),
    (
        "WrongEnvironmentInput",
        "Environment needs environment.key",
        {"source": "Environment"},
        {},
        {"meta": TTL, "results": [g.fatal("invalid function input: environment.key should be provided")]},
    ),
    (
        "NoResourceNameAnnotation",
        "a composed resource must name itself",
        g.inline(g.CD_MISSING_RESOURCE_NAME),
        {},
        {
            "meta": TTL,
            "results": [g.fatal(f'"CD" template is missing required "{g.NAME}" annotation')],
        },
    ),
    (
        "CannotDecodeManifest",
        "an object without a kind is refused, named by its JSON",
        g.inline(g.CD_MISSING_KIND),
        {},
        {
            "meta": TTL,
            "results": [
                g.fatal(f"cannot decode manifest: Object 'Kind' is missing in '{g.CD_MISSING_KIND}'")
            ],
        },
    ),
    (
        "CannotParseTemplate",
        "a template that does not parse is Go's parse error; the desired state passes through",
        g.inline(g.CD_WRONG_TMPL),
        _WITH_XR,
        {
            "meta": TTL,
            "results": [
                g.fatal(
                    "invalid function input: cannot parse the provided templates: template: manifests:1: "
                    "bad character U+002D '-'"
                )
            ],
            "desired": _desired(),
        },
    ),
    (
        "ResponseIsReturnedWithNoChange",
        "a composed resource is rewritten with its name annotation removed",
        g.inline(g.CD),
        {"tag": "nochange", **_WITH_XR, "desired_resources": {"cool-cd": g.CD}},
        {"meta": {"tag": "nochange", **TTL}, "desired": _desired(resources={"cool-cd": _cd()})},
    ),
    (
        "ResponseIsReturnedWithTemplating",
        "a template reads the observed XR",
        g.inline(g.CD_TMPL),
        {"tag": "templates", **_WITH_XR},
        {
            "meta": {"tag": "templates", **TTL},
            "desired": _desired(resources={"cool-cd": _cd({"belongsTo": "cool-xr"})}),
        },
    ),
    (
        "ResponseIsReturnedWithTemplatingUsingTheTemplatesField",
        "inline.templates is joined into one template",
        {"source": "Inline", "inline": {"templates": [g.CD_TMPL]}},
        {"tag": "templates", **_WITH_XR},
        {
            "meta": {"tag": "templates", **TTL},
            "desired": _desired(resources={"cool-cd": _cd({"belongsTo": "cool-xr"})}),
        },
    ),
    (
        "UpdateDesiredCompositeStatus",
        "a document of the XR's kind sets the desired XR's status",
        g.inline(g.XR_WITH_STATUS),
        {"tag": "status", **_WITH_XR},
        {"meta": {"tag": "status", **TTL}, "desired": _desired(_xr({"ready": "true"}))},
    ),
    (
        "UpdateDesiredCompositeNestedStatus",
        "the XR's status is merged into the desired one, nested maps too",
        g.inline(g.XR_NESTED_BAZ),
        {"tag": "status", "observed": g.XR_NESTED_FOO, "desired": g.XR_NESTED_FOO},
        {"meta": {"tag": "status", **TTL}, "desired": _desired(_xr({"state": {"foo": "bar", "baz": "qux"}}))},
    ),
    (
        "MergeDesiredCompositeStatus",
        "two XR documents (a JSON stream) merge their statuses",
        g.inline(g.XR_NESTED_FOO + g.XR_NESTED_BAZ),
        _WITH_XR,
        {"meta": TTL, "desired": _desired(_xr({"state": {"foo": "bar", "baz": "qux"}}))},
    ),
    (
        "ResponseIsReturnedWithTemplatedXR",
        "a document of the XR's kind with a name annotation is a composed resource",
        g.inline(g.XR_RECURSIVE_TMPL),
        {"tag": "status", **_WITH_XR},
        {
            "meta": {"tag": "status", **TTL},
            "desired": _desired(
                resources={
                    "recursive-xr": {
                        "resource": {
                            "apiVersion": "example.org/v1",
                            "kind": "XR",
                            "metadata": {
                                "annotations": {},
                                "name": "recursive-xr",
                                "labels": {"belongsTo": "cool-xr"},
                            },
                            "spec": {"count": 2},
                        }
                    }
                }
            ),
        },
    ),
    (
        "ResponseIsReturnedWithTemplatingFS",
        "every file of the directory is read; hidden directories are skipped",
        {"source": "FileSystem", "fileSystem": {"dirPath": str(g.TESTDATA / "templates")}},
        {"tag": "templates", **_WITH_XR},
        {
            "meta": {"tag": "templates", **TTL},
            "desired": _desired(resources={"cool-cd": _cd({"belongsTo": "cool-xr"})}),
        },
    ),
    (
        "CannotReadTemplatesFromFS",
        "a directory that does not exist is the open error",
        {"source": "FileSystem", "fileSystem": {"dirPath": "testdata/wrong"}},
        {},
        {
            "meta": TTL,
            "results": [
                g.fatal(
                    "invalid function input: cannot read tmpl from the folder {testdata/wrong}: "
                    "open testdata/wrong: no such file or directory"
                )
            ],
        },
    ),
    (
        "ResponseIsReturnedWithTemplatingEnvironment",
        "the template can come from the pipeline's environment",
        {"source": "Environment", "environment": {"key": _KEY}},
        {
            "tag": "templates",
            **_WITH_XR,
            "context": {"apiextensions.crossplane.io/environment": {_KEY: _ENV_TEMPLATE}},
        },
        {
            "meta": {"tag": "templates", **TTL},
            "context": {"apiextensions.crossplane.io/environment": {_KEY: _ENV_TEMPLATE}},
            "desired": _desired(resources={"cool-cd": _cd({"belongsTo": "cool-xr"})}),
        },
    ),
    (
        "CannotReadTemplatesFromEnvironment",
        "the environment must be in the context",
        {"source": "Environment", "environment": {"key": _KEY}},
        {"context": {}},
        {
            "meta": TTL,
            "context": {},
            "results": [
                g.fatal(
                    "invalid function input: cannot read tmpl from the environment: "
                    "apiextensions.crossplane.io/environment key does not exist in context"
                )
            ],
        },
    ),
    (
        "CannotReadTemplatesFromEnvironmentKey",
        "the key must be in the environment",
        {"source": "Environment", "environment": {"key": _KEY}},
        {"context": {"apiextensions.crossplane.io/environment": {}}},
        {
            "meta": TTL,
            "context": {"apiextensions.crossplane.io/environment": {}},
            "results": [
                g.fatal(
                    f"invalid function input: cannot read tmpl from the environment: key: {_KEY} does not exist"
                )
            ],
        },
    ),
    (
        "ReadyStatusAnnotationNotValid",
        "the ready annotation is True, False or Unspecified",
        g.inline(g.CD_WITH_READY_WRONG),
        _WITH_XR,
        {
            "meta": TTL,
            "results": [
                g.fatal(
                    f'invalid function input: invalid "{g.READY}" annotation value "wrongValue": '
                    "must be True, False, or Unspecified"
                )
            ],
            "desired": _desired(),
        },
    ),
    (
        "ReadyStatusAnnotation",
        "the ready annotation makes the composed resource ready, and is removed",
        g.inline(g.CD_WITH_READY_TRUE),
        {"observed": g.XR, "observed_resources": {"cool-cd": g.CD}, "desired": g.XR},
        {"meta": TTL, "desired": _desired(resources={"cool-cd": _cd(ready="READY_TRUE")})},
    ),
    (
        "InvalidMetaKind",
        "a meta kind the release does not know",
        g.inline(g.META_INVALID),
        _WITH_XR,
        {
            "meta": TTL,
            "results": [
                g.fatal(
                    f'invalid kind "InvalidMeta" for apiVersion "{g.META}" - '
                    "must be one of CompositeConnectionDetails, Context or ExtraResources"
                )
            ],
            "desired": _desired(),
        },
    ),
    (
        "ClaimConditionsError",
        "Ready, Synced and Healthy are Crossplane's conditions",
        g.inline(g.CLAIM_CONDITIONS_RESERVED),
        _WITH_XR,
        {
            "meta": TTL,
            "results": [g.fatal("cannot set ClaimCondition type: Ready is a reserved Crossplane Condition")],
            "desired": _desired(),
        },
    ),
    (
        "ClaimConditions",
        "conditions are set; only CompositeAndClaim targets the claim (ClaimAndComposite is the composite)",
        g.inline(g.CLAIM_CONDITIONS),
        _WITH_XR,
        {
            "meta": TTL,
            "conditions": [
                {
                    "type": "TestCondition",
                    "status": "STATUS_CONDITION_FALSE",
                    "reason": "InstallFail",
                    "message": "failed to install",
                    "target": "TARGET_COMPOSITE",
                },
                {
                    "type": "ConditionTrue",
                    "status": "STATUS_CONDITION_TRUE",
                    "reason": "this condition is true",
                    "message": "we are true",
                    "target": "TARGET_COMPOSITE",
                },
                {
                    "type": "DatabaseReady",
                    "status": "STATUS_CONDITION_TRUE",
                    "reason": "Ready",
                    "message": "Database is ready",
                    "target": "TARGET_COMPOSITE",
                },
            ],
            "desired": _desired(),
        },
    ),
    (
        "CompositeConnectionDetails",
        "connection details are base64 in the document, bytes on the XR",
        g.inline(g.META_CONDET),
        _WITH_XR,
        {"meta": TTL, "desired": _desired(connectionDetails={"key": "dmFsdWU="})},
    ),
    (
        "MergeCompositeConnectionDetails",
        "several documents add up",
        g.inline(g.META_CONDET + g.META_CONDET2),
        _WITH_XR,
        {"meta": TTL, "desired": _desired(connectionDetails={"key": "dmFsdWU=", "key2": "ZXVsYXY="})},
    ),
    (
        "ContextInvalidData",
        "a Context document's data must be an object",
        g.inline(g.META_CONTEXT_INVALID),
        _WITH_XR,
        {
            "meta": TTL,
            "results": [
                g.fatal(
                    "cannot get Contexts from input: cannot unmarshal value from JSON: json: cannot unmarshal "
                    "number into Go value of type map[string]interface {}"
                )
            ],
            "desired": _desired(),
        },
    ),
    (
        "Context",
        "a Context document's data is merged into the context",
        g.inline(g.META_CONTEXT),
        _WITH_XR,
        {
            "meta": TTL,
            "desired": _desired(),
            "context": {"apiextensions.crossplane.io/environment": {"new": "value"}},
        },
    ),
    (
        "ExtraResources",
        "requirements from several documents, by name and by labels",
        g.inline(g.EXTRA_RESOURCES),
        {**_WITH_XR, "desired_resources": {"cool-cd": g.CD}},
        {
            "meta": TTL,
            "requirements": {"extraResources": _EXTRA_REQUIREMENTS, "resources": _EXTRA_REQUIREMENTS},
            "desired": _desired(resources={"cool-cd": {"resource": g.obj(g.CD)}}),
        },
    ),
    (
        "DuplicateExtraResourceKey",
        "two documents may not ask for the same key",
        g.inline(g.EXTRA_RESOURCES_DUPLICATED),
        {**_WITH_XR, "desired_resources": {"cool-cd": g.CD}},
        {
            "meta": TTL,
            "results": [g.fatal('duplicate extra resource key "cool-extra-resource"')],
            "desired": _desired(resources={"cool-cd": {"resource": g.obj(g.CD)}}),
        },
    ),
    (
        "InvalidTemplateOption",
        "an option Go's Template.Option does not know (it panics)",
        g.inline(g.CD_MISSING_KEY_TMPL, options=["missingoption=nothing"]),
        {"observed": g.XR},
        {
            "meta": TTL,
            "results": [
                g.fatal(
                    "cannot apply template options: panic occurred while applying template options: "
                    "unrecognized option: missingoption=nothing"
                )
            ],
        },
    ),
    (
        "CompositeResourceReadyTrue",
        "the XR's ready annotation sets the desired XR's readiness",
        g.inline(g.xr_with({g.READY: "True"})),
        _WITH_XR,
        {"meta": TTL, "desired": _desired(ready="READY_TRUE")},
    ),
    (
        "CompositeResourceReadyFalse",
        "False too",
        g.inline(g.xr_with({g.READY: "False"})),
        _WITH_XR,
        {"meta": TTL, "desired": _desired(ready="READY_FALSE")},
    ),
    (
        "CompositeResourceReadyUnspecified",
        "Unspecified leaves it unspecified",
        g.inline(g.xr_with({g.READY: "Unspecified"})),
        _WITH_XR,
        {"meta": TTL, "desired": _desired()},
    ),
    (
        "CompositeResourceReadyInvalid",
        "the XR's ready annotation is checked too",
        g.inline(g.xr_with({g.READY: "wrongValue"})),
        _WITH_XR,
        {
            "meta": TTL,
            "results": [
                g.fatal(
                    f'invalid function input: invalid "{g.READY}" annotation value "wrongValue": '
                    "must be True, False, or Unspecified"
                )
            ],
            "desired": _desired(),
        },
    ),
    (
        "CompositeResourceWithResourceNameTreatedAsComposed",
        "an XR document with a name annotation is composed, ready as it says",
        g.inline(g.xr_with({g.NAME: "xr-as-composed", g.READY: "True"})),
        _WITH_XR,
        {
            "meta": TTL,
            "desired": _desired(
                resources={
                    "xr-as-composed": {
                        "resource": {
                            "apiVersion": "example.org/v1",
                            "kind": "XR",
                            "metadata": {"annotations": {}, "name": "cool-xr"},
                            "spec": {"count": 2},
                        },
                        "ready": "READY_TRUE",
                    }
                }
            ),
        },
    ),
    (
        "CompositeResourceReadyTrueWithStatus",
        "readiness and status together",
        g.inline(g.xr_with({g.READY: "True"}, {"phase": "Ready", "message": "Composite resource is ready"})),
        _WITH_XR,
        {
            "meta": TTL,
            "desired": _desired(
                _xr({"phase": "Ready", "message": "Composite resource is ready"}), ready="READY_TRUE"
            ),
        },
    ),
    (
        "CompositeResourceStatusMerging",
        "the template's status is merged with the desired XR's",
        g.inline(g.xr_with({g.READY: "False"}, {"phase": "Updating", "newField": "added"})),
        {"observed": g.XR, "desired": g.XR_NESTED_FOO},
        {
            "meta": TTL,
            "desired": _desired(
                _xr({"state": {"foo": "bar"}, "phase": "Updating", "newField": "added"}), ready="READY_FALSE"
            ),
        },
    ),
    (
        "TemplateOptionsMissingKeyError",
        "missingkey=error makes a missing key Go's execution error",
        g.inline(g.CD_MISSING_KEY_TMPL, options=["missingkey=error"]),
        {"observed": g.XR},
        {
            "meta": TTL,
            "results": [
                g.fatal(
                    'cannot execute template: template: manifests:1:96: executing "manifests" at <.missing>: '
                    'map has no entry for key "missing"'
                )
            ],
        },
    ),
    (
        "PrintYamlErrorLine",
        "a YAML error names the line in the whole output, the document, and the text there",
        g.inline(g.INVALID_YAML),
        _WITH_XR,
        {
            "meta": TTL,
            "results": [
                g.fatal(
                    "cannot decode manifest: error converting YAML to JSON: yaml: line 6 (document 1, line 4) "
                    "near: 'name: %!@#$%^&*()_+': found character that cannot start any token"
                )
            ],
            "desired": _desired(),
        },
    ),
    (
        "AddExtraResourcesToContext",
        "required resources are added to the context under the extra-resources key",
        g.inline(g.EXTRA_RESOURCE),
        {"required_resources": {"cool-extra-resource": [_COOL_EXTRA]}},
        {
            "meta": TTL,
            "context": {
                "apiextensions.crossplane.io/extra-resources": {
                    "cool-extra-resource": {"items": [{"resource": g.obj(_COOL_EXTRA)}]}
                }
            },
            "desired": _desired({}),
            "requirements": {
                "extraResources": {"cool-extra-resource": _BY_NAME},
                "resources": {"cool-extra-resource": _BY_NAME},
            },
        },
    ),
    (
        "MergeExtraResourcesToContext",
        "extra resources are merged with those already in the context",
        g.inline(g.EXTRA_RESOURCE),
        {
            "context": {
                "apiextensions.crossplane.io/extra-resources": {
                    "existing-extra-resource": {"items": [{"resource": _EXISTING_EXTRA}]}
                }
            },
            "extra_resources": {"cool-extra-resource": [_COOL_EXTRA]},
        },
        {
            "meta": TTL,
            "context": {
                "apiextensions.crossplane.io/extra-resources": {
                    "existing-extra-resource": {"items": [{"resource": _EXISTING_EXTRA}]},
                    "cool-extra-resource": {"items": [{"resource": g.obj(_COOL_EXTRA)}]},
                }
            },
            "desired": _desired({}),
            "requirements": {
                "extraResources": {"cool-extra-resource": _BY_NAME},
                "resources": {"cool-extra-resource": _BY_NAME},
            },
        },
    ),
    (
        "NamespacedExtraResource",
        "a namespaced requirement is a required resource only",
        g.inline(g.EXTRA_RESOURCE_NAMESPACED),
        {"required_resources": {"cool-extra-resource": [_CONFIGMAP]}},
        {
            "meta": TTL,
            "context": {
                "apiextensions.crossplane.io/extra-resources": {
                    "cool-extra-resource": {"items": [{"resource": g.obj(_CONFIGMAP)}]}
                }
            },
            "desired": _desired({}),
            "requirements": {
                "resources": {
                    "cool-extra-resource": {
                        "apiVersion": "v1",
                        "kind": "ConfigMap",
                        "matchName": "cool-extra-resource",
                        "namespace": "default",
                    }
                }
            },
        },
    ),
]


@pytest.mark.parametrize(("name", "reason", "inp", "kw", "want"), CASES, ids=[c[0] for c in CASES])
def test_run_function(
    name: str, reason: str, inp: dict[str, Any] | None, kw: dict[str, Any], want: dict[str, Any]
) -> None:
    del name
    got = g.run(g.request(inp, **kw))
    assert got == want, reason


def test_default_source() -> None:
    """Without an input, the default directory (upstream's flag) is read, here one that does not exist."""
    fn = go_templating.GoTemplating(default_source="does/not/exist")
    got = g.run(g.request(None), fn)
    assert g.messages(got) == [
        "invalid function input: cannot read tmpl from the folder {does/not/exist}: "
        "open does/not/exist: no such file or directory"
    ]


def test_default_source_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The compose object reads FUNCTION_GO_TEMPLATING_DEFAULT_SOURCE, as upstream's flag does."""
    monkeypatch.setenv("FUNCTION_GO_TEMPLATING_DEFAULT_SOURCE", str(g.TESTDATA / "templates"))
    got = g.run(g.request(None, **_WITH_XR))
    assert g.composed(got) == {"cool-cd": _cd({"belongsTo": "cool-xr"})["resource"]}
