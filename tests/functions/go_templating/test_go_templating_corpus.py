"""Every Composition of the shared corpus that uses function-go-templating renders without Docker, both modes.

As shipped: the example's XR and the Functions its pipeline names (``tests/corpus``'s rule: a Functions
file may list more, which a user of that guide leaves out), without the ``render.crossplane.io/runtime:
Development`` annotation (meant for the function's authors), and the extra files its README passes
(``-e`` required resources, ``-o`` observed resources). Where the corpus or upstream's README prints
the output, it is compared; elsewhere the composed resources and fields the templates make are.

``fn-go-templating/example/environment`` pins function-environment-configs v0.7.2, which runs as
the built-in (it behaves as v0.7.1, docs/functions.md); the whole example renders what its README
prints byte for byte in ``tests/corpus/test_corpus_printed.py``. Here its go-templating step alone
is rendered with the environment the first step makes (its two EnvironmentConfigs' data merged)
given as the context.
"""

from __future__ import annotations

import pathlib
from collections.abc import Callable
from typing import Any

import corpus
import pytest
import yaml

from crossfn import cli

CORPUS = corpus.root() if corpus.available() else pathlib.Path("shared/corpus")
GT = CORPUS / "fn-go-templating" / "example"
DOCS = CORPUS / "crossplane-docs" / "content" / "master" / "manifests"
GOLDEN = pathlib.Path(__file__).parent.parent / "environment_configs" / "golden"
MODES = [pytest.param([], id="default"), pytest.param(["--classic"], id="classic")]

Docs = list[dict[str, Any]]


def _docs(text: str) -> Docs:
    return [d for d in yaml.safe_load_all(text) if d]


def _example(directory: pathlib.Path, composition: str) -> corpus.Example:
    path = directory / composition
    found = [e for e in corpus.examples(str(directory.relative_to(CORPUS))) if e.path == path]
    assert len(found) == 1, path
    return found[0]


def _as_shipped(example: corpus.Example, tmp: pathlib.Path, *, leave_out: str = "") -> list[str]:
    """The XR, Composition and Functions files, the Functions without the Development runtime annotation."""
    fns = [dict(f) for f in example.functions if f["metadata"]["name"] != leave_out]
    for f in fns:
        f["metadata"] = {k: v for k, v in (f.get("metadata") or {}).items() if k != "annotations"}
    (tmp / "xr.yaml").write_text(yaml.safe_dump(example.xr))
    (tmp / "functions.yaml").write_text(yaml.safe_dump_all(fns))
    return [str(tmp / "xr.yaml"), str(example.path), str(tmp / "functions.yaml")]


def _render(capsys: pytest.CaptureFixture[str], args: list[str]) -> tuple[Docs, str]:
    code = cli.main(["render", *args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return _docs(out), err


def _composed(docs: Docs) -> dict[str, dict[str, Any]]:
    key = "crossplane.io/composition-resource-name"
    return {
        d["metadata"]["annotations"][key]: d
        for d in docs
        if key in (d.get("metadata") or {}).get("annotations", {})
    }


def _xr(docs: Docs) -> dict[str, Any]:
    return docs[0]


def _condition(docs: Docs, ctype: str) -> dict[str, Any]:
    return next(c for c in _xr(docs)["status"]["conditions"] if c["type"] == ctype)


def _check_conditions(docs: Docs) -> None:
    """ClaimConditions set on the XR, as the example's template lists them."""
    assert _condition(docs, "TestCondition")["status"] == "False"
    assert _condition(docs, "ConditionTrue")["message"] == "we are true"
    assert _condition(docs, "DatabaseReady")["reason"] == "Ready"


def _check_extra_resources_example(docs: Docs) -> None:
    composed = _composed(docs)
    assert composed, "the template makes resources from the required resources"


def _check_get_composed_resource(docs: Docs) -> None:
    """The configuration reads the observed server's ``status.id`` with Sprig's ``get``; the observed
    resource has it under ``status.atProvider``, so ``get`` gives "" and the field is null, as upstream."""
    composed = _composed(docs)
    assert {d["kind"] for d in composed.values()} == {"FlexibleServer", "FlexibleServerConfiguration"}
    assert composed["flexServerConfig"]["spec"]["forProvider"] == {"serverId": None}
    assert composed["flexServer"]["spec"]["forProvider"]["storageMb"] == 32768


def _check_inline(docs: Docs) -> None:
    composed = _composed(docs)
    assert sorted(composed) == [
        "connection-secret",
        "sample-access-key-0",
        "sample-access-key-1",
        "test-user-0",
        "test-user-1",
    ]
    assert composed["test-user-1"]["metadata"]["labels"]["dummy"] in {"foo", "bar", "baz"}
    assert (
        composed["sample-access-key-0"]["spec"]["writeConnectionSecretToRef"]["name"]
        == "sample-access-key-secret-0"
    )
    assert _xr(docs)["status"]["dummy"] == "cool-status"


def _check_multistep(docs: Docs) -> None:
    """function-go-templating v0.4.1 between two patch-and-transform v0.5.0 steps: the ACL reads the region the
    first step patched into the desired bucket, and the second patches its ACL."""
    composed = _composed(docs)
    assert composed["bucketACL"]["spec"]["forProvider"] == {
        "acl": "private",
        "bucketSelector": {"matchControllerRef": True},
        "region": composed["bucket"]["spec"]["forProvider"]["region"],
    }


def _check_bucket(docs: Docs) -> None:
    """A build of 2023-11-01 (before v0.2.0): the region the bare XR lacks prints as ``<no value>``."""
    (bucket,) = _composed(docs).values()
    assert bucket["kind"] == "Bucket"
    assert bucket["spec"]["forProvider"]["region"] == "<no value>"


def _check_k8s(docs: Docs) -> None:
    assert _composed(docs)


def _check_cel_healthcheck(docs: Docs) -> None:
    """The README: the CEL rule from the environment finds the observed Configuration ready, so the XR is."""
    assert _condition(docs, "Ready")["status"] == "True"


def _check_docs_templated(docs: Docs) -> None:
    """Nothing observed yet: no readiness, and the XR's status from Sprig's ``default`` of missing values."""
    composed = _composed(docs)
    assert {d["kind"] for d in composed.values()} == {"Deployment", "Service"}
    assert composed["deployment"]["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx"
    assert composed["service"]["spec"]["ports"] == [{"port": 8080, "protocol": "TCP", "targetPort": 80}]
    assert {k: v for k, v in _xr(docs)["status"].items() if k != "conditions"} == {
        "address": "",
        "replicas": 0,
    }


def _check_docs_connection_details(docs: Docs) -> None:
    """A user, two access keys and the connection Secret, empty until the keys are observed."""
    composed = _composed(docs)
    assert sorted(composed) == ["accesskey-0", "accesskey-1", "connection-secret", "user"]
    assert composed["connection-secret"]["data"] == {}
    assert composed["accesskey-1"]["spec"]["writeConnectionSecretToRef"] == {
        "name": "my-keys-accesskey-secret-1"
    }


def _check_extra_resources_fn(docs: Docs) -> None:
    """One VaultRole per XCluster the extra-resources step put into the context."""
    assert sorted(_composed(docs)) == ["net-staging-blue", "net-staging-green"]
    assert {d["kind"] for d in _composed(docs).values()} == {"VaultRole"}


# (directory, composition file, extra arguments, what the output must show)
CASES: list[tuple[pathlib.Path, str, list[str], Callable[[Docs], None]]] = [
    (GT / "conditions", "composition.yaml", [], _check_conditions),
    (GT / "extra-resources", "composition.yaml", ["-e", "extraResources.yaml"],
     _check_extra_resources_example),
    (GT / "functions" / "getComposedResource", "composition.yaml",
     ["-o", "observed.yaml"], _check_get_composed_resource),
    (GT / "inline", "composition.yaml", [], _check_inline),
    (CORPUS / "fn-patch-and-transform" / "example" / "multistep", "composition.yaml", [],
     _check_multistep),
    (CORPUS / "fn-auto-ready" / "example" / "basic", "composition.yaml", [], _check_bucket),
    (CORPUS / "fn-auto-ready" / "example" / "basic", "composition-k8s.yaml",
     ["-o", "observed-k8s.yaml"], _check_k8s),
    (CORPUS / "fn-auto-ready" / "example" / "cel-healthcheck", "composition.yaml",
     ["-e", "extra-resources.yaml", "-o", "observed.yaml"], _check_cel_healthcheck),
    (DOCS / "get-started" / "composition", "composition-templated-yaml.yaml", [],
     _check_docs_templated),
    (DOCS / "guides" / "connection-details-composition", "composition-go-templating.yaml", [], _check_docs_connection_details),
    (CORPUS / "fn-extra-resources" / "example", "composition.yaml",
     ["-e", "extraResources.yaml"], _check_extra_resources_fn),
]  # fmt: skip


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("directory", "composition", "extra", "check"),
    CASES,
    ids=[f"{c[0].relative_to(CORPUS)}/{c[1]}" for c in CASES],
)
def test_example(
    *,
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
    mode: list[str],
    directory: pathlib.Path,
    composition: str,
    extra: list[str],
    check: Callable[[Docs], None],
) -> None:
    corpus.root()
    files = _as_shipped(_example(directory, composition), tmp_path)
    extra = [a if a.startswith("-") else str(directory / a) for a in extra]
    docs, err = _render(capsys, [*files, *extra, *mode])
    assert "as the built-in go-templating" in err
    check(docs)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("example", ["reference_name", "match_label_single"])
def test_environment_configs_examples(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], example: str, mode: list[str]
) -> None:
    """function-environment-configs' examples, whole: go-templating reads the environment it set. With
    ``--classic`` the output is byte for byte what the examples' READMEs print (kept in
    ``tests/functions/environment_configs/golden/``)."""
    corpus.root()
    d = CORPUS / "fn-environment-configs" / "examples" / example
    files = _as_shipped(_example(d, "composition.yaml"), tmp_path)
    args = [*files, "-e", str(d / "environmentConfigs.yaml"), "-c"]
    code = cli.main(["render", *args, *mode])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "running function-go-templating v0.10.0 as the built-in go-templating" in err
    printed = (GOLDEN / f"{example}.readme.yaml").read_text()
    if mode:
        assert out == printed
    else:
        assert _docs(out)[0]["status"] | {"conditions": []} == _docs(printed)[0]["status"] | {
            "conditions": []
        }


README_ENVIRONMENT = {
    "apiextensions.crossplane.io/environment": {
        "apiVersion": "internal.crossplane.io/v1alpha1",
        "array": ["1", "2"],
        "complex": {"a": "b", "c": {"d": "e", "f": "1"}},
        "kind": "Environment",
        "nestedEnvUpdate": {"hello": "world"},
        "update": "environment",
    },
    "newkey": {"hello": "world"},
    "other-context-key": {"complex": {"a": "b", "c": {"d": "e", "f": "1"}}},
}
"""What upstream's ``example/environment/README.md`` prints of the context (its ``template`` key aside)."""


@pytest.mark.parametrize("mode", MODES)
def test_environment_source_example(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], mode: list[str]
) -> None:
    """The template comes from the environment and writes the context, as the example's README prints.

    The environment-configs step is replaced by the environment it makes: its two EnvironmentConfigs'
    data merged, with the Environment's apiVersion and kind (the go-templating step on its own).
    """
    corpus.root()
    example = _example(GT / "environment", "composition.yaml")
    comp = dict(example.composition)
    step, *rest = comp["spec"]["pipeline"]
    comp["spec"] = {**comp["spec"], "pipeline": rest}
    (tmp_path / "composition.yaml").write_text(yaml.safe_dump(comp))
    files = _as_shipped(example, tmp_path, leave_out=step["functionRef"]["name"])
    files[1] = str(tmp_path / "composition.yaml")
    environment: dict[str, Any] = {"apiVersion": "internal.crossplane.io/v1alpha1", "kind": "Environment"}
    for config in _docs((GT / "environment" / "environmentConfigs.yaml").read_text()):
        environment.update(config["data"])
    context = f"apiextensions.crossplane.io/environment={yaml.safe_dump(environment)}"
    docs, err = _render(capsys, [*files, "--context-values", context, "-c", *mode])
    assert "running function-go-templating v0.12.2 as the built-in go-templating" in err
    assert _xr(docs)["status"]["fromEnv"] == "e"
    fields = docs[-1]["fields"]
    template = fields["apiextensions.crossplane.io/environment"].pop("template")
    assert template.startswith(
        "---\napiVersion: meta.gotemplating.fn.crossplane.io/v1alpha1\nkind: Context\n"
    )
    assert fields == README_ENVIRONMENT
