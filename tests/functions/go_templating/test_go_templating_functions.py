"""function-go-templating's template functions: upstream's function_maps_test.go re-expressed, then more.

The functions are called as a template calls them (their Go signatures are
checked by the engine) and, for the cases upstream tests on the Go function
itself, directly.
"""

from __future__ import annotations

import random
from typing import Any

import gtcases as g
import pytest

from crossfn import errors
from crossfn.functions.go_templating import _functions
from crossfn.functions.go_templating._release import CURRENT, Release
from crossfn.gocompat import gofunc, values
from crossfn.gocompat.template import Template, TypedNil


def _fn(name: str, release: Release = CURRENT) -> Any:
    tmpl = Template("manifests")
    return _functions.function_map(release, tmpl, random.Random(1))[name].fn


def _render(text: str, data: Any = None, release: Release = CURRENT) -> str:
    tmpl = Template("manifests", release=release.go)
    tmpl.funcs(_functions.function_map(release, tmpl, random.Random(1)))
    return tmpl.parse(text).execute(data)


COMPLETE = {
    "apiVersion": "dbforpostgresql.azure.upbound.io/v1beta1",
    "kind": "FlexibleServer",
    "spec": {"forProvider": {"storageMb": "32768"}},
    "status": {"atProvider": {"id": "abcdef"}},
}


def test_from_yaml() -> None:
    """UnmarshalYaml: a nested document; yaml.v3 reads booleans of YAML 1.2 only."""
    got = _fn("fromYaml")("\ncomplexDictionary:\n  scalar1: true\n  list:\n  - abc\n  - def")
    assert got == {"complexDictionary": {"scalar1": True, "list": ["abc", "def"]}}


def test_from_yaml_error() -> None:
    """UnmarshalYamlError: a tab where indentation is expected is an error."""
    with pytest.raises(errors.GoError, match=r"^yaml: "):
        _fn("fromYaml")("\ncomplexDictionary:\n\t  scalar1: true\n")


def test_to_yaml() -> None:
    """MarshalYaml: yaml.v3's four-space indentation, sequences indented in maps, keys sorted."""
    got = _fn("toYaml")({"complexDictionary": {"scalar1": True, "list": ["abc", "def"]}})
    assert got == "complexDictionary:\n    list:\n        - abc\n        - def\n    scalar1: true\n"


CONDITION_CASES = [
    (
        "GetCondition",
        {"resource": {"status": {"conditions": [{"type": "Ready", "status": "True"}]}}},
        ("Ready", "True"),
    ),
    (
        "GetConditionObservedResource",
        {"status": {"conditions": [{"type": "Ready", "status": "True"}]}},
        ("Ready", "True"),
    ),
    ("GetConditionUnknown", {"resource": {}}, ("Ready", "Unknown")),
    (
        "GetConditionNotFound",
        {"resource": {"status": {"conditions": [{"type": "NotReady", "status": "True"}]}}},
        ("Ready", "Unknown"),
    ),
]


@pytest.mark.parametrize(("name", "res", "want"), CONDITION_CASES, ids=[c[0] for c in CONDITION_CASES])
def test_get_resource_condition(name: str, res: dict[str, Any], want: tuple[str, str]) -> None:
    del name
    got = _fn("getResourceCondition")("Ready", res)
    assert (got.fields["Type"], got.fields["Status"]) == want
    assert got.fields["Reason"] == got.fields["Message"] == ""
    assert got.fields["ObservedGeneration"] == 0


def test_get_resource_condition_before_v0_11_reads_only_resource_status() -> None:
    """Before v0.11.0 a resource given as itself (``status`` at the top) was not read: Unknown."""
    res = {"status": {"conditions": [{"type": "Ready", "status": "True"}]}}
    got = _fn("getResourceCondition", Release((0, 10, 1)))("Ready", res)
    assert got.fields["Status"] == "Unknown"


@pytest.mark.parametrize(
    ("template", "want"),
    [
        ('{{ (getResourceCondition "Ready" .).Status }}', "True"),
        ('{{ (getResourceCondition "Ready" .).Reason }}', "Available"),
        ('{{ (getResourceCondition "Ready" .).LastTransitionTime }}', "2024-01-02 03:04:05 +0000 UTC"),
        ('{{ (getResourceCondition "Synced" .).Status }}', "Unknown"),
        ('{{ getResourceCondition "Ready" . }}', "{Ready True 2024-01-02 03:04:05 +0000 UTC Available  7}"),
        ('{{ if eq (getResourceCondition "Ready" .).Status "True" }}yes{{ end }}', "yes"),
    ],
)
def test_get_resource_condition_in_a_template(template: str, want: str) -> None:
    """The result is a Condition struct: fields by name, printed as Go prints the struct."""
    data = {
        "resource": {
            "status": {
                "conditions": [
                    {
                        "type": "Ready",
                        "status": "True",
                        "reason": "Available",
                        "lastTransitionTime": "2024-01-02T05:04:05+02:00",
                        "observedGeneration": 7,
                    }
                ]
            }
        }
    }
    assert _render(template, data) == want


def test_get_resource_condition_undecodable_status_is_unknown() -> None:
    """A status crossplane-runtime cannot decode (a bad time) is read as no conditions."""
    res = {
        "resource": {"status": {"conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": 5}]}}
    }
    assert _fn("getResourceCondition")("Ready", res).fields["Status"] == "Unknown"


def test_set_resource_name_annotation() -> None:
    assert (
        _fn("setResourceNameAnnotation")("test")
        == "gotemplating.fn.crossplane.io/composition-resource-name: test"
    )


INCLUDE_CASES = [
    (
        "ExecTemplate",
        '\n{{- define "test-template" -}}\nvalue: {{.}}\n{{- end }}\n{{- $var:= include "test-template" "val" -}}\n'
        "Must capture output: {{$var}}",
        "Must capture output: value: val",
        "",
    ),
    (
        "TemplateErrorCtxNotSet",
        '\n{{- define "test-template" -}}\nvalue: {{.}}\n{{- end }}\n{{- $var:= include "test-template" -}}\n'
        "Must capture output: {{$var}}\n",
        "",
        'template: manifests:5:11: executing "manifests" at <include>: wrong number of args for include: want 2 got 1',
    ),
    (
        "TemplateErrorTemplateNameNotSet",
        '\n{{- define "test-template" -}}\nvalue: {{.}}\n{{- end }}\n{{- $var:= include -}}\nMust capture output: {{$var}}\n',
        "",
        'template: manifests:5:11: executing "manifests" at <include>: wrong number of args for include: want 2 got 0',
    ),
    (
        "NoSuchTemplate",
        '{{ include "nope" . }}',
        "",
        'template: manifests:1:3: executing "manifests" at <include "nope" .>: error calling include: '
        'template: no template "nope" associated with template "manifests"',
    ),
]


@pytest.mark.parametrize(("name", "text", "want", "error"), INCLUDE_CASES, ids=[c[0] for c in INCLUDE_CASES])
def test_include(name: str, text: str, want: str, error: str) -> None:
    del name
    if error:
        with pytest.raises(errors.GoError) as exc:
            _render(text)
        assert str(exc.value) == error
    else:
        assert _render(text) == want


def test_include_recursion_is_bounded() -> None:
    """A template that includes itself stops after 1000 nested calls with upstream's error, not a crash."""
    text = '{{ define "r" }}{{ include "r" . }}{{ end }}{{ include "r" . }}'
    with pytest.raises(errors.GoError) as exc:
        _render(text)
    message = str(exc.value)
    assert message.endswith("rendering template has a nested reference name: r: unable to execute template")
    assert message.count("error calling include") == 1002


@pytest.mark.parametrize(
    ("release", "path_name", "want"),
    [
        (CURRENT, "flexserver", COMPLETE),
        (CURRENT, "flex.server", COMPLETE),
        (CURRENT, "missingResource", None),
        (Release((0, 8, 0)), "flexserver", COMPLETE),
        (Release((0, 8, 0)), "flex.server", None),
    ],
    ids=[
        "RetrieveCompleteResource",
        "RetrieveCompleteResourceWithDots",
        "ResourceNotFound",
        "v0.8.0",
        "v0.8.0-dots",
    ],
)
def test_get_composed_resource(release: Release, path_name: str, want: Any) -> None:
    """Names with dots work from v0.9.0 (a bracketed field path); before, the dots split the path."""
    req = {
        "observed": {
            "resources": {"flexserver": {"resource": COMPLETE}, "flex.server": {"resource": COMPLETE}}
        }
    }
    if path_name == "missingResource":
        req = {"observed": {"resources": {}}}
    assert _fn("getComposedResource", release)(req, path_name) == want


def test_get_composite_resource() -> None:
    xr = {
        "apiVersion": "example.crossplane.io/v1beta1",
        "kind": "XR",
        "metadata": {"name": "example"},
        "spec": {"key": "value"},
    }
    assert _fn("getCompositeResource")({"observed": {"composite": {"resource": xr}}}) == xr
    assert _fn("getCompositeResource")({"observed": {"composite": {}}}) is None


def test_a_missing_resource_is_a_nil_map_in_templates() -> None:
    """A nil map prints ``map[]``, is false, and reading a key of it is ``<no value>``, as in Go."""
    text = '{{ $r := getComposedResource . "x" }}{{ $r }}|{{ if $r }}y{{ else }}n{{ end }}|{{ $r.spec }}'
    assert _render(text, {"observed": {}}) == "map[]|n|<no value>"


EXTRA_CASES = [
    ("RetrieveCompleteResource", {"requiredResources": {"flexserver": {"items": [COMPLETE]}}}, [COMPLETE]),
    ("RetrieveExtraResource", {"extraResources": {"flexserver": {"items": [COMPLETE]}}}, [COMPLETE]),
    ("ResourceNotFound", {"requiredResources": {"flexserver": {"items": []}}}, []),
    ("NoExtraResources", {}, None),
]


@pytest.mark.parametrize(("name", "req", "want"), EXTRA_CASES, ids=[c[0] for c in EXTRA_CASES])
def test_get_extra_resources(name: str, req: dict[str, Any], want: Any) -> None:
    del name
    assert _fn("getExtraResources")(req, "flexserver") == want


def test_get_extra_resources_before_v0_12_reads_extra_resources_only() -> None:
    assert _fn("getExtraResources", Release((0, 11, 9)))(EXTRA_CASES[0][1], "flexserver") is None


CONTEXT_KEY = "apiextensions.crossplane.io/extra-resources"
FROM_CONTEXT_CASES = [
    (
        "RetrieveCompleteResource",
        {"context": {CONTEXT_KEY: {"flexserver": {"items": [COMPLETE]}}}},
        [COMPLETE],
    ),
    ("ResourceNotFound", {"context": {CONTEXT_KEY: {"flexserver": {"items": []}}}}, []),
    ("NoExtraResources", {}, None),
]


@pytest.mark.parametrize(("name", "req", "want"), FROM_CONTEXT_CASES, ids=[c[0] for c in FROM_CONTEXT_CASES])
def test_get_extra_resources_from_context(name: str, req: dict[str, Any], want: Any) -> None:
    del name
    assert _fn("getExtraResourcesFromContext")(req, "flexserver") == want


def test_get_credential_data() -> None:
    """RetrieveFunctionCredential / FunctionCredentialNotFound, from the request as templates see it."""
    req = {"credentials": {"foo-creds": {"credentialData": {"data": {"password": "c2VjcmV0"}}}}}
    got = _fn("getCredentialData")(req, "foo-creds")
    assert values.type_name(got) == "map[string][]uint8"
    assert [bytes(int(b) for b in v) for v in got.values()] == [b"secret"]
    assert _fn("getCredentialData")({"credentials": {}}, "foo-creds") is None
    assert _fn("getCredentialData")({"notARequest": 1}, "foo-creds") is None


@pytest.mark.parametrize(
    ("template", "want"),
    [
        ('{{ index (getCredentialData . "c") "password" }}', "[115 101 99 114 101 116]"),
        ('{{ printf "%s" (index (getCredentialData . "c") "password") }}', "secret"),
        ('{{ index (getCredentialData . "c") "password" | toString }}', "secret"),
        ('{{ printf "%T" (getCredentialData . "c") }}', "map[string][]uint8"),
    ],
)
def test_credential_data_in_a_template(template: str, want: str) -> None:
    """[]byte values print as bytes with %v, as text with %s and through Sprig's toString, as in Go."""
    from crossfn.gocompat import sprig

    tmpl = Template("manifests")
    tmpl.funcs(_functions.function_map(CURRENT, tmpl, random.Random(1)))
    tmpl.funcs(sprig.txt_func_map())
    data = {"credentials": {"c": {"credentialData": {"data": {"password": "c2VjcmV0"}}}}}
    assert tmpl.parse(template).execute(data) == want


def test_random_choice() -> None:
    """A choice among the arguments (random, as upstream's, so only membership is certain); none panics."""
    choose = _fn("randomChoice")
    assert {choose("a", "b", "c") for _ in range(50)} <= {"a", "b", "c"}
    with pytest.raises(gofunc.Panic, match="invalid argument to Intn"):
        choose()


@pytest.mark.parametrize(
    ("release", "present", "absent"),
    [
        (Release((0, 2, 0)), {"randomChoice"}, {"toYaml", "include", "getComposedResource"}),
        (
            Release((0, 3, 0)),
            {"toYaml", "fromYaml", "getResourceCondition", "setResourceNameAnnotation"},
            {"include"},
        ),
        (Release((0, 4, 0)), {"include"}, {"getComposedResource", "getCompositeResource"}),
        (Release((0, 5, 0)), {"getComposedResource", "getCompositeResource"}, {"getExtraResources"}),
        (Release((0, 11, 0)), {"getExtraResources", "getCredentialData"}, {"getExtraResourcesFromContext"}),
        (CURRENT, {"getExtraResourcesFromContext"}, set()),
    ],
    ids=lambda v: v.tag if isinstance(v, Release) else None,
)
def test_functions_per_release(release: Release, present: set[str], absent: set[str]) -> None:
    """Each release has the functions it added; a template naming a later one does not parse."""
    names = set(_functions.function_map(release, Template("t"), random.Random(0)))
    assert present <= names
    assert not absent & names


def test_to_yaml_of_a_nil_map_and_a_typed_nil() -> None:
    assert _fn("toYaml")(TypedNil("map[string]interface {}")) == "{}\n"
    assert _fn("toYaml")(TypedNil("[]interface {}")) == "[]\n"
    assert _fn("toYaml")(None) == "null\n"


@pytest.mark.parametrize(
    ("template", "want"),
    [
        ('{{ range $k, $v := fromYaml "10: a\\n9: x\\nb: c" }}{{ $k }}={{ $v }};{{ end }}', "9=x;10=a;b=c;"),
        ('{{ index (fromYaml "1: a\\nb: c") 1 }}', "a"),
        ('{{ (fromYaml "1: a\\nb: c").b }}', "c"),
        ('{{ printf "%T" (fromYaml "1: a") }}', "map[interface {}]interface {}"),
        ('{{ toYaml (fromYaml "2: b\\n1: a") }}', "1: a\n2: b\n"),
    ],
)
def test_from_yaml_non_string_keys(template: str, want: str) -> None:
    """A mapping with a key that is not a string is a map[interface {}]interface {}: indexed by any key,
    ranged over in Go's key order, written back by toYaml."""
    assert _render(template) == want


def test_from_yaml_values_are_go_values() -> None:
    """Integers are Go ints (``%T`` prints int), so they compare with template constants."""
    assert (
        _render('{{ $v := fromYaml "a: 3" }}{{ printf "%T" $v.a }}{{ if eq $v.a 3 }} three{{ end }}')
        == "int three"
    )
    assert isinstance(_fn("fromYaml")("a: 3")["a"], values.GoInt)
    assert g.NAME == _functions.NAME_ANNOTATION
