"""crossfn's Crossplane CRDs: what they declare, how ``install`` behaves, and that Crossplane YAML applies."""

from __future__ import annotations

import copy
import dataclasses
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from crossfn import errors
from crossfn.controller.crds import _crds
from crossfn.controller.kube import _api

from .fake_api import FakeApi

TESTDATA = Path(__file__).parent / "testdata" / "crossplane"


def _by_kind() -> dict[str, dict[str, Any]]:
    return {crd["spec"]["names"]["kind"]: crd for crd in _crds.manifests()}


@dataclasses.dataclass(frozen=True)
class Names:
    plural: str
    short_names: list[str] | None
    categories: list[str]
    versions: list[tuple[str, bool]]
    status: bool


@pytest.mark.parametrize(
    ("kind", "want"),
    [
        pytest.param(
            "CompositeResourceDefinition",
            Names(
                "compositeresourcedefinitions",
                ["xrd", "xrds"],
                ["crossplane"],
                [("v1", True), ("v2", False)],
                True,
            ),
            id="XRD",
        ),
        pytest.param(
            "Composition",
            Names("compositions", ["comp"], ["crossplane"], [("v1", True)], False),
            id="Composition",
        ),
        pytest.param(
            "CompositionRevision",
            Names("compositionrevisions", ["comprev"], ["crossplane"], [("v1", True)], True),
            id="CompositionRevision",
        ),
        pytest.param(
            "Function",
            Names("functions", None, ["crossplane", "pkg"], [("v1", True), ("v1beta1", False)], True),
            id="Function",
        ),
        pytest.param(
            "FunctionRevision",
            Names(
                "functionrevisions", None, ["crossplane", "pkgrev"], [("v1", True), ("v1beta1", False)], True
            ),
            id="FunctionRevision",
        ),
    ],
)
def test_manifest_names_and_versions(kind: str, want: Names) -> None:
    """Each kind is named, grouped and versioned as Crossplane's, so kubectl short names and categories work."""
    crd = _by_kind()[kind]
    names = crd["spec"]["names"]
    assert crd["metadata"]["name"] == f"{want.plural}.{crd['spec']['group']}"
    assert names["plural"] == want.plural
    assert names.get("shortNames") == want.short_names
    assert names["categories"] == want.categories
    assert crd["spec"]["scope"] == "Cluster"
    assert [(v["name"], v["storage"]) for v in crd["spec"]["versions"]] == want.versions
    assert all(v["served"] for v in crd["spec"]["versions"])
    # Crossplane's Composition has no status; every other kind has a status subresource.
    assert all(("status" in (v.get("subresources") or {})) is want.status for v in crd["spec"]["versions"])


def _version(kind: str, name: str) -> dict[str, Any]:
    return next(v for v in _by_kind()[kind]["spec"]["versions"] if v["name"] == name)


def _spec_props(kind: str, version: str) -> dict[str, Any]:
    props: dict[str, Any] = _version(kind, version)["schema"]["openAPIV3Schema"]["properties"]["spec"][
        "properties"
    ]
    return props


@pytest.mark.parametrize(
    ("version", "enum", "default", "rules"),
    [
        pytest.param(
            "v1",
            ["LegacyCluster", "Namespaced", "Cluster"],
            "LegacyCluster",
            [
                "Only LegacyCluster composite resources can offer claims",
                "Only LegacyCluster composite resources support connection secrets",
            ],
            id="V1DefaultsToLegacyCluster",
        ),
        pytest.param(
            "v2",
            ["Namespaced", "Cluster"],
            "Namespaced",
            [
                "Claims aren't supported in apiextensions.crossplane.io/v2",
                "XR connection secrets aren't supported in apiextensions.crossplane.io/v2",
            ],
            id="V2DefaultsToNamespacedAndRejectsClaims",
        ),
    ],
)
def test_xrd_scope(version: str, enum: list[str], default: str, rules: list[str]) -> None:
    """v1 and v2 XRDs share a structure (no conversion webhook) but differ in scope and claim rules."""
    props = _spec_props("CompositeResourceDefinition", version)
    assert props["scope"]["enum"] == enum
    assert props["scope"]["default"] == default
    spec = _version("CompositeResourceDefinition", version)["schema"]["openAPIV3Schema"]["properties"]["spec"]
    assert [r["message"] for r in spec["x-kubernetes-validations"]] == rules
    assert set(_spec_props("CompositeResourceDefinition", "v1")) == set(props)


def test_composition_pipeline_rules() -> None:
    """The pipeline is a list-map keyed by step of 1..99 steps, as Crossplane's (upstream core-2.21)."""
    pipeline = _spec_props("Composition", "v1")["pipeline"]
    assert (pipeline["minItems"], pipeline["maxItems"]) == (1, 99)
    assert pipeline["x-kubernetes-list-type"] == "map"
    assert pipeline["x-kubernetes-list-map-keys"] == ["step"]
    step = pipeline["items"]["properties"]
    assert step["credentials"]["items"]["x-kubernetes-validations"][0]["rule"] == (
        "self.source == 'Secret' && has(self.secretRef)"
    )
    assert _spec_props("Composition", "v1")["mode"] == {
        "description": "The mode of the Composition; Pipeline is the only one.",
        "type": "string",
        "enum": ["Pipeline"],
        "default": "Pipeline",
    }
    revision = _spec_props("CompositionRevision", "v1")
    assert revision["pipeline"] == pipeline, "a revision's spec is the Composition's spec"
    assert revision["revision"] == {
        "description": "The revision's number; newer revisions have larger numbers.",
        "type": "integer",
        "format": "int64",
    }


class _Server(FakeApi):
    """The fake API server, marking applied CRDs with the conditions a test wants."""

    def __init__(self, conditions: list[dict[str, str]]) -> None:
        super().__init__(scopes={("apiextensions.k8s.io/v1", "CustomResourceDefinition"): False})
        self.crd_conditions = conditions

    async def apply(
        self, obj: Mapping[str, Any], *, field_manager: str, force: bool = True, status: bool = False
    ) -> dict[str, Any]:
        assert field_manager == "crossfn"
        out = await super().apply(obj, field_manager=field_manager, force=force, status=status)
        key = self._obj_key(obj)
        self.objects[key]["status"] = {"conditions": copy.deepcopy(self.crd_conditions)}
        return out


class _Sleeps:
    def __init__(self) -> None:
        self.count = 0

    async def __call__(self, seconds: float) -> None:
        self.count += 1


ESTABLISHED = [{"type": "NamesAccepted", "status": "True"}, {"type": "Established", "status": "True"}]
NAMES_REFUSED = [
    {
        "type": "NamesAccepted",
        "status": "False",
        "reason": "KindConflict",
        "message": '"comp" is already in use',
    },
    {
        "type": "Established",
        "status": "False",
        "reason": "NotAccepted",
        "message": "not all names are accepted",
    },
]
INSTALLING = [{"type": "NamesAccepted", "status": "True"}, {"type": "Established", "status": "False"}]


@pytest.mark.parametrize(
    ("conditions", "want_error", "want_sleeps"),
    [
        pytest.param(ESTABLISHED, "", 0, id="Established"),
        pytest.param(
            NAMES_REFUSED,
            "cannot install CustomResourceDefinition compositeresourcedefinitions.apiextensions.crossplane.io: "
            'NamesAccepted=False (KindConflict): "comp" is already in use; '
            "Established=False (NotAccepted): not all names are accepted",
            0,
            id="NamesRefused",
        ),
        pytest.param(
            INSTALLING,
            "cannot install CustomResourceDefinition compositeresourcedefinitions.apiextensions.crossplane.io: "
            "not established after 1s",
            10,
            id="NeverEstablished",
        ),
    ],
)
async def test_install_waits_for_established(
    conditions: list[dict[str, str]], want_error: str, want_sleeps: int
) -> None:
    """install applies every CRD, then waits (by polling) until each is Established, failing with its name."""
    api = _Server(conditions)
    sleeps = _Sleeps()
    if want_error:
        with pytest.raises(errors.CrossfnError) as info:
            await _crds.install(api, timeout=1.0, poll=0.1, sleep=sleeps)
        assert str(info.value) == want_error
    else:
        names = await _crds.install(api, timeout=1.0, poll=0.1, sleep=sleeps)
        assert names == [crd["metadata"]["name"] for crd in _crds.manifests()]
    assert sleeps.count == want_sleeps
    assert [c for c in api.calls if c[0] == "apply"] == [
        ("apply", "CustomResourceDefinition", crd["metadata"]["name"]) for crd in _crds.manifests()
    ], "every CRD is applied before any wait"


@pytest.mark.parametrize(
    ("reason", "conditions", "want"),
    [
        pytest.param("an established CRD is not refused", ESTABLISHED, "", id="Established"),
        pytest.param("a CRD being installed may still be established", INSTALLING, "", id="Installing"),
        pytest.param("a new CRD has no conditions yet", [], "", id="NoConditions"),
        pytest.param(
            "refused names give both conditions' reasons and messages",
            NAMES_REFUSED,
            'NamesAccepted=False (KindConflict): "comp" is already in use; '
            "Established=False (NotAccepted): not all names are accepted",
            id="NamesRefused",
        ),
        pytest.param(
            "a condition without reason or message is still named",
            [{"type": "NamesAccepted", "status": "False"}],
            "NamesAccepted=False",
            id="Bare",
        ),
    ],
)
def test_refusal(reason: str, conditions: list[dict[str, str]], want: str) -> None:
    assert _crds.refusal({"status": {"conditions": conditions}}) == want, reason


async def test_install_names_the_refused_crd() -> None:
    """An API server refusing a CRD gives an error of the same type naming that CRD."""
    api = _Server(ESTABLISHED)
    api.fail(
        "apply",
        "CustomResourceDefinition",
        _api.Invalid("spec.versions: Invalid value", status=422),
        name="compositions.apiextensions.crossplane.io",
    )
    with pytest.raises(_api.Invalid) as info:
        await _crds.install(api)
    assert str(info.value) == (
        "cannot install CustomResourceDefinition compositions.apiextensions.crossplane.io: spec.versions: Invalid value"
    )
    assert info.value.status == 422


# Cluster tests -------------------------------------------------------------------------------------


def _examples() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for path in sorted(TESTDATA.glob("*.yaml")):
        for i, doc in enumerate(yaml.safe_load_all(path.read_text())):
            out.append((f"{path.stem}[{i}]", doc))
    return out


def _missing(want: Any, got: Any, path: str = "") -> list[str]:
    """Paths of ``want`` that ``got`` lacks or holds differently (``got`` may add defaults)."""
    if isinstance(want, Mapping):
        if not isinstance(got, Mapping):
            return [path or "."]
        return [p for k, v in want.items() for p in _missing(v, got.get(k), f"{path}.{k}")]
    if isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            return [path]
        return [
            p for i, (w, g) in enumerate(zip(want, got, strict=True)) for p in _missing(w, g, f"{path}[{i}]")
        ]
    return [] if want == got else [path]


@pytest.mark.cluster
async def test_install_is_idempotent(kube: Any, crossplane_crds: list[str]) -> None:
    """Installing again (as every ``controller run`` does) changes no CRD: same names, same resourceVersions."""
    before = {
        n: (await kube.get("apiextensions.k8s.io/v1", "CustomResourceDefinition", n)) for n in crossplane_crds
    }
    again = await _crds.install(kube)
    assert again == crossplane_crds
    for name in again:
        crd = await kube.get("apiextensions.k8s.io/v1", "CustomResourceDefinition", name)
        assert _crds.is_established(crd), name
        assert crd["metadata"]["resourceVersion"] == before[name]["metadata"]["resourceVersion"], name


@pytest.mark.cluster
@pytest.mark.parametrize(("name", "doc"), _examples(), ids=[n for n, _ in _examples()])
async def test_crossplane_yaml_applies_unchanged(
    kube: Any, crossplane_crds: list[str], name: str, doc: dict[str, Any]
) -> None:
    """Crossplane YAML of every kind is accepted, and nothing of it is pruned (it round-trips)."""
    obj = copy.deepcopy(doc)
    obj["metadata"]["name"] = f"{obj['metadata']['name']}-{uuid.uuid4().hex[:6]}"
    if obj["kind"] == "CompositeResourceDefinition":
        # An XRD's name must be <plural>.<group>; keep it unique through the group instead.
        suffix = uuid.uuid4().hex[:6]
        obj["spec"]["group"] = f"{suffix}.{obj['spec']['group']}"
        obj["metadata"]["name"] = f"{obj['spec']['names']['plural']}.{obj['spec']['group']}"
    created = await kube.create(obj)
    try:
        assert _missing({k: v for k, v in obj.items() if k != "apiVersion"}, created) == []
        assert created["apiVersion"] == obj["apiVersion"]
    finally:
        await kube.delete(obj["apiVersion"], obj["kind"], obj["metadata"]["name"])


def _xrd_v2(**spec: Any) -> dict[str, Any]:
    group = f"{uuid.uuid4().hex[:6]}.example.org"
    return {
        "apiVersion": "apiextensions.crossplane.io/v2",
        "kind": "CompositeResourceDefinition",
        "metadata": {"name": f"xthings.{group}"},
        "spec": {
            "group": group,
            "names": {"kind": "XThing", "plural": "xthings"},
            "versions": [{"name": "v1", "served": True, "referenceable": True}],
            **spec,
        },
    }


def _composition(pipeline: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "apiVersion": "apiextensions.crossplane.io/v1",
        "kind": "Composition",
        "metadata": {"name": f"bad-{uuid.uuid4().hex[:6]}"},
        "spec": {
            "compositeTypeRef": {"apiVersion": "example.org/v1", "kind": "XThing"},
            "pipeline": pipeline,
        },
    }


_FN = {"name": "function-auto-ready"}


@pytest.mark.cluster
@pytest.mark.parametrize(
    ("obj", "want"),
    [
        pytest.param(
            _xrd_v2(claimNames={"kind": "Thing", "plural": "things"}),
            "Claims aren't supported in apiextensions.crossplane.io/v2",
            id="V2XrdWithClaims",
        ),
        pytest.param(
            _xrd_v2(scope="LegacyCluster"), 'Unsupported value: "LegacyCluster"', id="V2LegacyCluster"
        ),
        pytest.param(
            _xrd_v2(names={"kind": "XThing", "plural": "XThings"}),
            "Plural name must be lowercase",
            id="UpperPlural",
        ),
        pytest.param(_composition([]), "spec.pipeline: Invalid value", id="EmptyPipeline"),
        pytest.param(
            _composition([{"step": "a", "functionRef": _FN}, {"step": "a", "functionRef": _FN}]),
            'spec.pipeline[1]: Duplicate value: {"step":"a"}',
            id="DuplicateStep",
        ),
        pytest.param(
            _composition(
                [{"step": "a", "functionRef": _FN, "credentials": [{"name": "c", "source": "Secret"}]}]
            ),
            "the Secret source requires a secretRef",
            id="SecretWithoutRef",
        ),
        pytest.param(
            _composition([{"step": "a", "functionRef": _FN, "input": {"value": 1}}]),
            "spec.pipeline[0].input.apiVersion: Required value",
            id="InputWithoutKind",
        ),
    ],
)
async def test_crossplane_validation(
    kube: Any, crossplane_crds: list[str], obj: dict[str, Any], want: str
) -> None:
    """What Crossplane's CRDs reject, ours reject, with the same message."""
    with pytest.raises(_api.Invalid) as info:
        await kube.create(obj)
    assert want in str(info.value)


def test_manifests_are_read_as_kubernetes_reads_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The packaged CRDs go through the one go-yaml loader: a plain ``y`` is true, as the API server sees it."""
    (tmp_path / "crds").mkdir()
    (tmp_path / "crds" / "a.yaml").write_text("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
                                              "spec: {preserveUnknownFields: y}\n")  # fmt: skip

    class _Files:
        @staticmethod
        def files(_: str) -> Path:
            return tmp_path

    monkeypatch.setattr(_crds, "resources", _Files)
    assert [m["spec"] for m in _crds.manifests()] == [{"preserveUnknownFields": True}]
