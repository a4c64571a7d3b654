"""Whatever the input, go-templating answers with a response: desired state or one Fatal result, never an
exception; hostile templates are stopped by bounds, each with an error naming the template, line and column."""

from __future__ import annotations

from typing import Any

import gtcases as g
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crossfn.functions import go_templating
from crossfn.gocompat import template as gotemplate
from crossfn.sdk import resource

_PIECES = [
    "{{", "}}", "{{-", "-}}", " ", "\n", "---\n", ".", "$", "$x", ":=", "=", "|", "(", ")", '"', "`",
    "if", "else", "end", "range", "with", "define", "template", "block", "break", "continue",
    "len", "index", "printf", "toYaml", "fromYaml", "include", "getComposedResource", "eq", "not", "and",
    ".observed", ".observed.composite.resource", ".spec", "1", "-1", "1.5", "0x1F", "nil", "true",
    "apiVersion: v1\n", "kind: A\n", "metadata:\n", "  annotations:\n",
    "    gotemplating.fn.crossplane.io/composition-resource-name: a\n", "{", "}", "[", "]", ":", "#", "'",
    "gotemplating.fn.crossplane.io/ready: maybe\n", "apiVersion: meta.gotemplating.fn.crossplane.io/v1alpha1\n",
    "kind: Context\n", "kind: ExtraResources\n", "kind: ClaimConditions\n", "data: 1\n", "\t", "\x00", "é",
]  # fmt: skip

_TEMPLATES = st.lists(st.sampled_from(_PIECES), max_size=40).map("".join)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)


def _check(out: dict[str, Any]) -> None:
    results = out.get("results", [])
    assert len(results) <= 1
    for r in results:
        assert r["severity"] == "SEVERITY_FATAL"
        assert r["message"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_TEMPLATES, st.sampled_from(list(go_templating._release.GROUPS)))
def test_any_template_gives_a_response(template: str, group: tuple[str, str, str]) -> None:
    major, minor, patch = (int(p) for p in group[0][1:].split("."))
    fn = go_templating.GoTemplating(go_templating.Release((major, minor, patch)))
    _check(g.run(g.request(g.inline(template), observed=g.XR, desired=g.XR), fn))


@settings(max_examples=200, deadline=None)
@given(_JSON)
def test_any_input_gives_a_response(inp: Any) -> None:
    inp = inp if isinstance(inp, dict) else {"source": inp}
    _check(g.run(g.request(inp, observed=g.XR)))


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=8), _JSON, max_size=4))
def test_any_observed_xr_gives_a_response(spec: dict[str, Any]) -> None:
    template = "{{ range $k, $v := .observed.composite.resource.spec }}{{ $k }}{{ toYaml $v }}{{ end }}"
    req = g.request(g.inline(template), observed=g.XR)
    req.observed.composite.resource.fields["spec"].struct_value.CopyFrom(resource.dict_to_struct(spec))
    _check(g.run(req))


LIMITS = gotemplate.ExecLimits(max_output=1_000_000, max_steps=50_000)

HOSTILE = [
    (
        "recursive template",
        '{{ define "r" }}{{ template "r" . }}{{ end }}{{ template "r" . }}',
        'cannot execute template: template: manifests:1:28: executing "r" at <{{template "r" .}}>: '
        "exceeded maximum template depth (100000)",
    ),
    (
        "huge range",
        "{{ range $i, $x := .observed.composite.resource.spec.big }}{{ range $x }}x{{ end }}{{ end }}",
        "execution took more than 50000 steps",
    ),
    (
        "huge output",
        '{{ range 1000000 }}{{ printf "%0100d" 1 }}{{ end }}',
        "output is larger than 1000000 characters",
    ),
    (
        "deep nesting",
        "{{ if 1 }}" * 10_001 + "{{ end }}" * 10_001,
        "invalid function input: cannot parse the provided templates: template: manifests:1: max expression depth exceeded",
    ),
    (
        "recursive include",
        '{{ define "r" }}{{ include "r" . }}{{ end }}{{ include "r" . }}',
        "rendering template has a nested reference name: r: unable to execute template",
    ),
]


@pytest.mark.parametrize(("name", "template", "want"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_templates_are_bounded(name: str, template: str, want: str) -> None:
    """Each is stopped by a bound with one Fatal result (the suite's timeout bounds the time)."""
    fn = go_templating.GoTemplating(limits=None if name == "recursive template" else LIMITS)
    req = g.request(g.inline(template), observed=g.XR)
    big = [[1] * 300] * 300
    req.observed.composite.resource.fields["spec"].struct_value.CopyFrom(
        resource.dict_to_struct({"big": big})
    )
    out = g.run(req, fn)
    (message,) = g.messages(out)
    assert want in message, name
