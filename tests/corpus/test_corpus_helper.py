"""The rules ``corpus`` derives inputs by (its docstring states them), each on a small case of its own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import corpus

XRD: dict[str, Any] = {
    "apiVersion": "apiextensions.crossplane.io/v1",
    "kind": "CompositeResourceDefinition",
    "metadata": {"name": "xthings.example.org"},
    "spec": {
        "group": "example.org",
        "names": {"kind": "XThing", "plural": "xthings"},
        "claimNames": {"kind": "Thing", "plural": "things"},
        "versions": [
            {
                "name": "v1",
                "served": True,
                "referenceable": True,
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "properties": {
                            "spec": {
                                "type": "object",
                                "required": ["region", "size", "count", "on", "tags", "network", "mode"],
                                "properties": {
                                    "region": {"type": "string"},
                                    "size": {"type": "string", "enum": ["small", "large"]},
                                    "count": {"type": "integer", "minimum": 3},
                                    "on": {"type": "boolean"},
                                    "tags": {"type": "array", "items": {"type": "string"}},
                                    "network": {
                                        "type": "object",
                                        "required": ["cidr"],
                                        "properties": {
                                            "cidr": {"type": "string"},
                                            "ipv6": {"type": "boolean"},
                                        },
                                    },
                                    "mode": {"type": "string", "default": "fast"},
                                    "optional": {"type": "string"},
                                    "level": {"type": "integer", "default": 2},
                                },
                            }
                        },
                    }
                },
            }
        ],
    },
}


FILLED = [
    ("$CLAIM_NAME", "claim-name", "a bare variable"),
    ("${REGION}", "region", "a braced variable"),
    ("arn:aws:${AWS_ACCOUNT}:$ROLE_NAME", "arn:aws:aws-account:role-name", "several in one string"),
    (
        "${schema.spec.image}",
        "${schema.spec.image}",
        "lower case is not envsubst's (KRO's CEL, go templates)",
    ),
    ("$1 and $", "$1 and $", "no name"),
]


@pytest.mark.parametrize(("text", "want", "reason"), FILLED, ids=[c[2] for c in FILLED])
def test_templates_are_filled_with_their_variables_names(text: str, want: str, reason: str) -> None:
    assert corpus._filled({"a": [text]}) == {"a": [want]}, reason
    assert corpus._variables({"a": [text]}) == (text != want), reason


def test_claim_becomes_its_xr_as_crossplane_makes_it() -> None:
    claim: dict[str, Any] = {
        "apiVersion": "example.org/v1",
        "kind": "Thing",
        "metadata": {"name": "mine", "labels": {"team": "a"}},
        "spec": {
            "region": "eu",
            "compositionSelector": {"matchLabels": {"x": "y"}},
            "compositionRevisionRef": {"name": "r1"},
            "compositeDeletePolicy": "Foreground",
            "resourceRef": {"name": "other"},
            "publishConnectionDetailsTo": {"name": "s"},
            "writeConnectionSecretToRef": {"name": "s"},
        },
    }
    xr = corpus._xr_of_claim(claim, ("example.org/v1", "XThing"))
    assert xr == {
        "apiVersion": "example.org/v1",
        "kind": "XThing",
        "metadata": {
            "name": "mine",
            "labels": {
                "team": "a",
                "crossplane.io/claim-name": "mine",
                "crossplane.io/claim-namespace": "default",
            },
        },
        "spec": {
            "region": "eu",
            "compositionSelector": {"matchLabels": {"x": "y"}},
            "claimRef": {
                "apiVersion": "example.org/v1",
                "kind": "Thing",
                "name": "mine",
                "namespace": "default",
            },
        },
    }
    manual = {**claim, "spec": {**claim["spec"], "compositionUpdatePolicy": "Manual"}}
    kept = corpus._xr_of_claim(manual, ("example.org/v1", "XThing"))["spec"]
    assert kept["compositionRevisionRef"] == {"name": "r1"}, "a Manual update policy propagates the revision"


def test_required_fields_are_filled_deterministically() -> None:
    xr = corpus._as_stored({"apiVersion": "example.org/v1", "kind": "XThing", "metadata": {"name": "x"}}, XRD)
    assert xr["spec"] == {
        "region": "region",
        "size": "small",
        "count": 3,
        "on": False,
        "tags": [],
        "network": {"cidr": "cidr"},
        "mode": "fast",
        "level": 2,
    }
    given = corpus._as_stored(
        {"apiVersion": "example.org/v1", "kind": "XThing", "spec": {"region": "us"}}, XRD
    )
    assert given["spec"]["region"] == "us", "what the XR has is kept"


def test_an_example_fits_the_xrd_unless_the_server_rejects_it() -> None:
    base = {"apiVersion": "example.org/v1", "kind": "XThing", "metadata": {"name": "x"}}
    stored = corpus._as_stored(base, XRD)
    assert corpus._fits(stored, XRD)
    assert corpus._fits({**stored, "spec": {**stored["spec"], "extra": 1}}, XRD), "unknown fields are dropped"
    assert not corpus._fits({**stored, "spec": {**stored["spec"], "tags": {"a": "b"}}}, XRD), "a wrong type"
    assert corpus._fits(base, None), "without an XRD anything goes"


OBSERVED = [
    ("composition.yaml", ["observed.yaml", "observed-regex.yaml"], "observed.yaml"),
    ("composition-regex.yaml", ["observed.yaml", "observed-regex.yaml"], "observed-regex.yaml"),
    (
        "composition-with-deletion-sequencing.yaml",
        ["observed-deletion-sequencing.yaml"],
        "observed-deletion-sequencing.yaml",
    ),
    ("composition-conditional.yaml", ["observed.yaml", "observed-regex.yaml"], None),
    ("composition-k8s.yaml", ["observed-k8s.yaml"], "observed-k8s.yaml"),
    ("my-composition.yaml", ["observed.yaml"], None),
]


@pytest.mark.parametrize(("composition", "files", "want"), OBSERVED, ids=[c[0] for c in OBSERVED])
def test_observed_resources_pair_with_their_composition(
    tmp_path: Path, composition: str, files: list[str], want: str | None
) -> None:
    for name in [composition, *files]:
        (tmp_path / name).write_text("{}\n")
    found = corpus._observed_for(tmp_path / composition)
    assert found == ((tmp_path / want,) if want else ())


def test_environment_configs_are_served_at_both_versions() -> None:
    alpha = {
        "apiVersion": "apiextensions.crossplane.io/v1alpha1",
        "kind": "EnvironmentConfig",
        "metadata": {"name": "a"},
    }
    beta = {
        "apiVersion": "apiextensions.crossplane.io/v1beta1",
        "kind": "EnvironmentConfig",
        "metadata": {"name": "b"},
    }
    other = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}
    served = corpus._served([alpha, beta, other])
    assert served == [
        alpha,
        {**alpha, "apiVersion": "apiextensions.crossplane.io/v1beta1"},
        beta,
        {**beta, "apiVersion": "apiextensions.crossplane.io/v1alpha1"},
        other,
    ]
    assert corpus._served([alpha, {**alpha, "apiVersion": beta["apiVersion"]}]) == [
        alpha,
        {**alpha, "apiVersion": beta["apiVersion"]},
    ], "one already given at the other version is not doubled"


def test_development_runtime_annotation_only_is_removed() -> None:
    fn = {
        "metadata": {
            "name": "f",
            "annotations": {
                "render.crossplane.io/runtime": "Development",
                "render.crossplane.io/runtime-development-target": "localhost:9443",
            },
        }
    }
    assert corpus._without_development(fn)["metadata"]["annotations"] == {
        "render.crossplane.io/runtime-development-target": "localhost:9443"
    }
    process = {"metadata": {"name": "f", "annotations": {"render.crossplane.io/runtime": "Docker"}}}
    assert corpus._without_development(process) == process, "another runtime stays"
