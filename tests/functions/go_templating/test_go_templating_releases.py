"""One case per difference between function-go-templating releases (``_release.Release``, docs/functions.md).

Each case renders the same request with the last release before a change and
the first after it, and states what each prints.
"""

from __future__ import annotations

import os
import pathlib
from typing import Any

import gtcases as g
import pytest

from crossfn import functions
from crossfn.functions import go_templating
from crossfn.functions.go_templating import _data, _release
from crossfn.functions.go_templating._release import Release


def _at(tag: str) -> go_templating.GoTemplating:
    major, minor, patch = (int(p) for p in tag[1:].split("."))
    return go_templating.GoTemplating(Release((major, minor, patch)))


def _run(tag: str, inp: dict[str, Any] | None, **kw: Any) -> dict[str, Any]:
    return g.run(g.request(inp, **kw), _at(tag))


CD_NAMED = (
    "apiVersion: example.org/v1\nkind: CD\nmetadata:\n  name: cd\n  annotations:\n"
    "    gotemplating.fn.crossplane.io/composition-resource-name: cd\n"
)
XR_KW: dict[str, Any] = {"observed": g.XR, "desired": g.XR}
JSON_THEN_YAML = (
    '{"apiVersion":"example.org/v1","kind":"CD","metadata":{"name":"a","annotations":{"$NAME":"a"}}}\n---\n'.replace(
        "$NAME", g.NAME
    )
    + CD_NAMED
)
UNKNOWN_FIELD = {"source": "Inline", "inline": {"template": CD_NAMED}, "foo": 1}
INPUT_ERROR_TAIL = 'json: cannot unmarshal Go value of type v1beta1.GoTemplate: unknown name "foo"'


# (id, what changed, (tag, input, request keywords, messages of its results, other checks of the response))
DIFFERENCES: list[
    tuple[str, str, list[tuple[str, dict[str, Any] | None, dict[str, Any], list[str], dict[str, Any]]]]
] = [
    (
        "unknown-input-fields",
        "function-sdk-go v0.2.0 (v0.5.0) rejects unknown input fields; v0.4.0's SDK (v0.9.0) names the types",
        [
            ("v0.4.1", UNKNOWN_FIELD, XR_KW, [], {"composed": ["cd"]}),
            (
                "v0.5.0",
                UNKNOWN_FIELD,
                XR_KW,
                [
                    "cannot get Function input from *v1beta1.RunFunctionRequest: cannot get Function input %T from %T, "
                    "into, req: cannot unmarshal JSON from *structpb.Struct into *v1beta1.GoTemplate: "
                    + INPUT_ERROR_TAIL
                ],
                {},
            ),
            (
                "v0.9.0",
                UNKNOWN_FIELD,
                XR_KW,
                [
                    "cannot get Function input from *v1.RunFunctionRequest: cannot get function input "
                    "*v1beta1.GoTemplate from *v1.RunFunctionRequest: cannot unmarshal JSON from *structpb.Struct "
                    "into *v1beta1.GoTemplate: " + INPUT_ERROR_TAIL
                ],
                {},
            ),
        ],
    ),
    (
        "input-type-names",
        "v0.2.2 renamed the input type (Input to GoTemplate) and its source types; function-sdk-go v0.1.0's "
        "go-json-experiment names them",
        [
            (
                "v0.2.0",
                {"source": 5},
                {},
                [
                    "cannot get Function input from *v1beta1.RunFunctionRequest: cannot get Function input %T from %T, "
                    "into, req: cannot unmarshal JSON from *structpb.Struct into *v1beta1.Input: json: cannot unmarshal "
                    "JSON number into Go value of type v1beta1.InputSource"
                ],
                {},
            ),
            (
                "v0.2.2",
                {"source": 5},
                {},
                [
                    "cannot get Function input from *v1beta1.RunFunctionRequest: cannot get Function input %T from %T, "
                    "into, req: cannot unmarshal JSON from *structpb.Struct into *v1beta1.GoTemplate: json: cannot "
                    "unmarshal JSON number into Go value of type v1beta1.TemplateSource"
                ],
                {},
            ),
        ],
    ),
    (
        "results-target",
        "function-sdk-go v0.4.0 (v0.9.0): results name the composite as their target",
        [
            ("v0.8.0", {"source": "wrong"}, {}, ["invalid function input: invalid source: wrong"], {}),
            ("v0.9.0", {"source": "wrong"}, {}, ["invalid function input: invalid source: wrong"], {}),
        ],
    ),
    (
        "missing-inline",
        "v0.3.0 checks for inline and fileSystem (v0.2.x crashed); v0.12.0 mentions inline.templates",
        [
            (
                "v0.2.2",
                {"source": "Inline"},
                {},
                [
                    "function-go-templating v0.2.2 crashes on this input (source Inline without inline): "
                    "panic: runtime error: invalid memory address or nil pointer dereference"
                ],
                {},
            ),
            (
                "v0.3.0",
                {"source": "Inline"},
                {},
                ["invalid function input: inline.template should be provided"],
                {},
            ),
            (
                "v0.12.0",
                {"source": "Inline"},
                {},
                ["invalid function input: inline.template or inline.templates should be provided"],
                {},
            ),
        ],
    ),
    (
        "delims",
        "v0.4.0: delims.left and delims.right",
        [
            (
                "v0.3.0",
                {
                    "source": "Inline",
                    "inline": {"template": "[[ . ]]"},
                    "delims": {"left": "[[", "right": "]]"},
                },
                XR_KW,
                [
                    "cannot decode manifest: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array "
                    "into Go value of type map[string]interface {}"
                ],
                {},
            ),
            (
                "v0.4.0",
                {
                    "source": "Inline",
                    "inline": {"template": '[[ printf "%q" . ]]'},
                    "delims": {"left": "[[", "right": "]]"},
                },
                XR_KW,
                [
                    "cannot decode manifest: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string "
                    "into Go value of type map[string]interface {}"
                ],
                {},
            ),
        ],
    ),
    (
        "functions",
        "v0.3.0 added toYaml and friends (before: Sprig and randomChoice only)",
        [
            (
                "v0.2.2",
                g.inline("{{ toYaml . }}"),
                {},
                [
                    "invalid function input: cannot parse the provided templates: template: manifests:1: "
                    'function "toYaml" not defined'
                ],
                {},
            ),
            ("v0.3.0", g.inline("{{ toYaml .observed }}"), {}, [], {}),
        ],
    ),
    (
        "sprig-env",
        "v0.5.0 removed Sprig's env and expandenv; before, they read the function's (empty) environment",
        [
            ("v0.4.1", g.inline('{{ env "HOME" }}{{ expandenv "$HOME" }}'), XR_KW, [], {}),
            (
                "v0.5.0",
                g.inline('{{ env "HOME" }}'),
                XR_KW,
                [
                    'invalid function input: cannot parse the provided templates: template: manifests:1: function "env" not defined'
                ],
                {},
            ),
        ],
    ),
    (
        "sprig-version",
        "v0.6.0 moved to Sprig v3.3.0, which added sha512sum",
        [
            (
                "v0.5.0",
                g.inline('{{ sha512sum "x" }}'),
                XR_KW,
                [
                    "invalid function input: cannot parse the provided templates: template: manifests:1: "
                    'function "sha512sum" not defined'
                ],
                {},
            ),
            (
                "v0.6.0",
                g.inline('{{ $h := sha512sum "x" }}' + CD_NAMED),
                XR_KW,
                [],
                {"composed": ["cd"]},
            ),
        ],
    ),
    (
        "environment-source",
        "v0.11.0: source Environment",
        [
            (
                "v0.10.1",
                {"source": "Environment"},
                {},
                ["invalid function input: invalid source: Environment"],
                {},
            ),
            (
                "v0.11.0",
                {"source": "Environment"},
                {},
                ["invalid function input: environment.key should be provided"],
                {},
            ),
        ],
    ),
    (
        "options",
        "v0.12.0: options (and inline.templates); before, an unknown field",
        [
            (
                "v0.11.9",
                g.inline(CD_NAMED, options=["missingkey=error"]),
                XR_KW,
                [
                    "cannot get Function input from *v1.RunFunctionRequest: cannot get function input "
                    "*v1beta1.GoTemplate from *v1.RunFunctionRequest: cannot unmarshal JSON from *structpb.Struct "
                    'into *v1beta1.GoTemplate: json: cannot unmarshal Go value of type v1beta1.GoTemplate: unknown name "options"'
                ],
                {},
            ),
            ("v0.12.0", g.inline(CD_NAMED, options=["missingkey=error"]), XR_KW, [], {"composed": ["cd"]}),
        ],
    ),
    (
        "annotation-values",
        "v0.5.0 refuses annotations that are not strings; before, the annotations were not read at all",
        [
            (
                "v0.4.1",
                g.inline(CD_NAMED + "    x: 1\n"),
                XR_KW,
                [f'"CD" template is missing required "{g.NAME}" annotation'],
                {},
            ),
            (
                "v0.5.0",
                g.inline(CD_NAMED + "    x: 1\n"),
                XR_KW,
                [
                    "invalid annotations in resource 'example.org/v1, Kind=CD resource-name=cd': .metadata.annotations "
                    'accessor error: contains non-string value in the map under key "x": 1 is of the type int64, '
                    "expected string"
                ],
                {},
            ),
        ],
    ),
    (
        "yaml-error-context",
        "v0.12.0 names the line in the whole output, the document and the text there",
        [
            (
                "v0.11.9",
                g.inline(g.INVALID_YAML),
                XR_KW,
                [
                    "cannot decode manifest: error converting YAML to JSON: yaml: line 4: found character that cannot start any token"
                ],
                {},
            ),
            (
                "v0.12.0",
                g.inline(g.INVALID_YAML),
                XR_KW,
                [
                    "cannot decode manifest: error converting YAML to JSON: yaml: line 6 (document 1, line 4) "
                    "near: 'name: %!@#$%^&*()_+': found character that cannot start any token"
                ],
                {},
            ),
        ],
    ),
    (
        "json-then-yaml",
        "apimachinery 0.35 (v0.12.0) reads output that starts like JSON but is not a JSON stream as YAML",
        [
            (
                "v0.11.9",
                g.inline(JSON_THEN_YAML),
                XR_KW,
                ["cannot decode manifest: json: offset 3: invalid character '-' in numeric literal"],
                {},
            ),
            ("v0.12.0", g.inline(JSON_THEN_YAML), XR_KW, [], {"composed": ["a", "cd"]}),
        ],
    ),
    (
        "meta-kinds",
        "ExtraResources came with v0.6.0, Context with v0.7.0, ClaimConditions with v0.9.0",
        [
            (
                "v0.5.0",
                g.inline(g.EXTRA_RESOURCE),
                XR_KW,
                [
                    f'invalid kind "ExtraResources" for apiVersion "{g.META}" - must be CompositeConnectionDetails'
                ],
                {},
            ),
            ("v0.6.0", g.inline(g.EXTRA_RESOURCE), XR_KW, [], {"requirements": ["cool-extra-resource"]}),
            (
                "v0.6.0",
                g.inline(g.META_CONTEXT),
                XR_KW,
                [
                    f'invalid kind "Context" for apiVersion "{g.META}" - must be CompositeConnectionDetails or ExtraResources'
                ],
                {},
            ),
            (
                "v0.7.0",
                g.inline(g.META_CONTEXT),
                XR_KW,
                [],
                {"context": ["apiextensions.crossplane.io/environment"]},
            ),
            (
                "v0.8.0",
                g.inline(g.CLAIM_CONDITIONS),
                XR_KW,
                [
                    f'invalid kind "ClaimConditions" for apiVersion "{g.META}" - '
                    "must be one of CompositeConnectionDetails, Context or ExtraResources"
                ],
                {},
            ),
            ("v0.9.0", g.inline(g.CLAIM_CONDITIONS), XR_KW, [], {"conditions": 3}),
        ],
    ),
    (
        "named-xr",
        "v0.8.0: a document of the XR's kind with a name annotation is composed; before, it set the XR's status",
        [
            ("v0.7.0", g.inline(g.xr_with({g.NAME: "x"}, {"a": "b"})), XR_KW, [], {"status": {"a": "b"}}),
            ("v0.8.0", g.inline(g.xr_with({g.NAME: "x"}, {"a": "b"})), XR_KW, [], {"composed": ["x"]}),
        ],
    ),
    (
        "status-only-when-present",
        "v0.12.0 writes the XR's status only when there is one; before, always (an empty one too)",
        [
            ("v0.11.9", g.inline(g.XR), XR_KW, [], {"status": {}}),
            ("v0.12.0", g.inline(g.XR), XR_KW, [], {"status": None}),
        ],
    ),
    (
        "xr-ready",
        "v0.12.0 reads the XR document's ready annotation; before, only composed resources'",
        [
            ("v0.11.9", g.inline(g.xr_with({g.READY: "True"})), XR_KW, [], {"xr_ready": None}),
            ("v0.12.0", g.inline(g.xr_with({g.READY: "True"})), XR_KW, [], {"xr_ready": "READY_TRUE"}),
        ],
    ),
    (
        "namespaced-requirements",
        "v0.12.0: requirements go to resources too, with a namespace; before, extraResources only",
        [
            (
                "v0.11.9",
                g.inline(g.EXTRA_RESOURCE_NAMESPACED),
                XR_KW,
                [],
                {"requirement_kinds": ["extraResources"]},
            ),
            (
                "v0.12.0",
                g.inline(g.EXTRA_RESOURCE_NAMESPACED),
                XR_KW,
                [],
                {"requirement_kinds": ["resources"]},
            ),
        ],
    ),
    (
        "resources-to-context",
        "v0.12.0 copies the request's extra resources into the context",
        [
            (
                "v0.11.9",
                g.inline(CD_NAMED),
                {**XR_KW, "extra_resources": {"a": [g.XR]}},
                [],
                {"context": []},
            ),
            (
                "v0.12.0",
                g.inline(CD_NAMED),
                {**XR_KW, "extra_resources": {"a": [g.XR]}},
                [],
                {"context": ["apiextensions.crossplane.io/extra-resources"]},
            ),
        ],
    ),
]

ROWS = [(name, why, *row) for name, why, rows in DIFFERENCES for row in rows]


@pytest.mark.parametrize("row", ROWS, ids=[f"{r[0]}-{r[2]}-{i}" for i, r in enumerate(ROWS)])
def test_release_difference(row: tuple[Any, ...]) -> None:
    _, why, tag, inp, kw, want_messages, checks = row
    out = _run(tag, inp, **kw)
    assert g.messages(out) == want_messages, why
    targeted = _at(tag).release.results_target_composite
    for result in out.get("results", []):
        assert ("target" in result) == targeted, why
    if "composed" in checks:
        assert sorted(g.composed(out)) == checks["composed"], why
    if "requirements" in checks:
        assert sorted(out["requirements"]["extraResources"]) == checks["requirements"], why
    if "requirement_kinds" in checks:
        assert sorted(out["requirements"]) == checks["requirement_kinds"], why
    if "context" in checks:
        assert sorted(out.get("context", {})) == checks["context"], why
    if "conditions" in checks:
        assert len(out["conditions"]) == checks["conditions"], why
    if "status" in checks:
        assert out["desired"]["composite"]["resource"].get("status") == checks["status"], why
    if "xr_ready" in checks:
        assert out["desired"]["composite"].get("ready") == checks["xr_ready"], why


@pytest.mark.parametrize(
    ("tag", "template", "want"),
    [
        ("v0.8.0", "{{ range 2 }}x{{ end }}", "range can't iterate over 2"),
        ("v0.11.1", "{{ range 2 }}{{ end }}", ""),
        ("v0.8.0", "{{ with .a }}{{ else with .observed }}{{ end }}", "unexpected <with> in else"),
        ("v0.9.0", "{{ with .a }}{{ else with .observed }}{{ end }}", ""),
        ("v0.11.4", "{{ eq 1 1.5 }}", "error calling eq: incompatible types for comparison"),
        ("v0.11.5", "{{ eq 1 1.5 }}", "error calling eq: incompatible types for comparison: int and float64"),
    ],
)
def test_go_release(tag: str, template: str, want: str) -> None:
    """The Go release that built each: {{else with}} (1.23), range over an integer (1.24), typed comparison errors (1.25)."""
    out = _run(tag, g.inline(template), observed=g.XR)
    got = g.messages(out)
    if want:
        assert len(got) == 1 and want in got[0], got
    else:
        assert got == []


def _tree(root: pathlib.Path) -> pathlib.Path:
    """A directory as a ConfigMap volume lays it out: files are links into a hidden timestamped directory."""
    data = root / "..2024_01_01_00_00_00.000000001"
    data.mkdir(parents=True)
    (data / "cd.yaml").write_text(CD_NAMED)
    (root / "..data").symlink_to(data.name)
    (root / "cd.yaml").symlink_to(os.path.join("..data", "cd.yaml"))
    return root


@pytest.mark.parametrize(
    ("tag", "want_messages", "want_composed"),
    [
        ("v0.4.0", [], ["cd"]),  # the hidden directory's copy is read too: the same name twice, the last wins
        ("v0.4.1", [], ["cd"]),
        ("v0.5.0", [], ["cd"]),
    ],
)
def test_file_system_configmap_layout(
    tmp_path: pathlib.Path, tag: str, want_messages: list[str], want_composed: list[str]
) -> None:
    root = _tree(tmp_path / "templates")
    out = _run(tag, {"source": "FileSystem", "fileSystem": {"dirPath": str(root)}}, **XR_KW)
    assert g.messages(out) == want_messages
    assert sorted(g.composed(out)) == want_composed


def test_file_system_hidden_directories(tmp_path: pathlib.Path) -> None:
    """v0.4.1 stopped entering hidden directories: a template there counts before, not after."""
    root = tmp_path / "t"
    (root / ".hidden").mkdir(parents=True)
    (root / ".hidden" / "x.yaml").write_text(CD_NAMED.replace("cd\n", "hidden\n"))
    (root / "a.yaml").write_text(CD_NAMED)
    inp = {"source": "FileSystem", "fileSystem": {"dirPath": str(root)}}
    assert sorted(g.composed(_run("v0.4.0", inp, **XR_KW))) == ["cd", "hidden"]
    assert sorted(g.composed(_run("v0.4.1", inp, **XR_KW))) == ["cd"]


@pytest.mark.parametrize(
    ("tag", "op"),
    [("v0.4.0", "lstat"), ("v0.4.1", "lstat"), ("v0.5.0", "open")],
)
def test_file_system_missing_directory(tag: str, op: str) -> None:
    """filepath.Walk and WalkDir lstat the root (v0.4.x); fs.WalkDir over os.Open opens it (v0.5.0)."""
    out = _run(tag, {"source": "FileSystem", "fileSystem": {"dirPath": "no/such"}})
    assert g.messages(out) == [
        f"invalid function input: cannot read tmpl from the folder {{no/such}}: {op} no/such: no such file or directory"
    ]


def _data_keys(tag: str, kw: dict[str, Any], *, credentials: bool = False) -> set[str]:
    req = g.request(None, **kw)
    if credentials:
        req.credentials["c"].credential_data.data["k"] = b"v"
    major, minor, patch = (int(p) for p in tag[1:].split("."))
    return set(_data.request_map(req, Release((major, minor, patch))))


def test_template_data_per_protocol() -> None:
    """What templates see of the request: extraResources from v0.5.0, credentials from v0.9.0,
    requiredResources (and extraResources as its alias) from v0.12.0."""
    extra = {**XR_KW, "extra_resources": {"e": [g.XR]}}
    assert "extraResources" not in _data_keys("v0.4.1", extra)
    assert "extraResources" in _data_keys("v0.5.0", extra)
    assert "credentials" not in _data_keys("v0.8.0", XR_KW, credentials=True)
    assert "credentials" in _data_keys("v0.9.0", XR_KW, credentials=True)
    required = {**XR_KW, "required_resources": {"r": [g.XR]}}
    assert "requiredResources" not in _data_keys("v0.11.9", required)
    assert {"requiredResources", "extraResources"} <= _data_keys("v0.12.0", required)


def test_every_group_is_registered() -> None:
    """Each group of releases behaves as its first release, and resolve picks its object."""
    for since, until, behaves in _release.GROUPS:
        decision = functions.resolve(f"xpkg.upbound.io/crossplane-contrib/function-go-templating:{since}")
        assert decision is not None and decision.builtin is not None, since
        obj = functions.load(decision.builtin)
        assert isinstance(obj, go_templating.GoTemplating)
        assert obj.release.tag == (since if decision.builtin != "go-templating" else "v0.12.2"), behaves
        assert until > since or until.count(".") == 2
