"""crossfn's Crossplane CRDs: what they declare, how ``install`` behaves, and that Crossplane YAML applies."""

from __future__ import annotations

import copy
import importlib.util
import re
import sys
import tarfile
import uuid
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

from crossfn import errors
from crossfn.controller.crds import _crds
from crossfn.controller.kube import _api

from .fake_api import FakeApi

TESTDATA = Path(__file__).parent / "testdata" / "crossplane"


_SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "generate_crds.py"
UPSTREAM = Path(__file__).parent / "testdata" / "crossplane-crds" / "crds.tar.xz"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("generate_crds", _SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return module


def upstream_crds() -> dict[str, dict[str, Any]]:
    """Crossplane's own 21 CRDs (testdata/crossplane-crds/README.md), by file name."""
    out = {}
    with tarfile.open(UPSTREAM) as tar:
        for member in tar.getmembers():
            data = tar.extractfile(member)
            assert data is not None
            out[member.name] = yaml.safe_load(data.read())
    return out


def without_descriptions(value: Any) -> Any:
    """A schema without its ``description`` keywords (a property named ``description`` stays)."""
    if isinstance(value, Mapping):
        return {
            k: (
                {p: without_descriptions(s) for p, s in v.items()}
                if k == "properties"
                else without_descriptions(v)
            )
            for k, v in value.items()
            if not (k == "description" and isinstance(v, str))
        }
    if isinstance(value, list):
        return [without_descriptions(v) for v in value]
    return value


def _by_kind() -> dict[str, dict[str, Any]]:
    return {crd["spec"]["names"]["kind"] + "." + crd["spec"]["group"]: crd for crd in _crds.manifests()}


def test_committed_crds_are_what_the_script_writes() -> None:
    """The CRD files are generated from crossfn's API types; editing one by hand is caught here."""
    generator = _generator()
    have = {p.name: p.read_text(encoding="utf-8") for p in generator.OUT.glob("*.yaml")}
    assert have == generator.rendered(), (
        "src/crossfn/controller/crds is stale: run python scripts/generate_crds.py"
    )


def test_every_crossplane_kind_is_served() -> None:
    """crossfn installs a CRD for each of Crossplane's 21 kinds, named as Crossplane names them."""
    assert sorted(
        f"{c['spec']['group']}_{c['spec']['names']['plural']}.yaml" for c in _crds.manifests()
    ) == sorted(upstream_crds())


@pytest.mark.parametrize("file_name", sorted(upstream_crds()))
def test_schemas_are_crossplanes(file_name: str) -> None:
    """Each CRD serves what Crossplane's serves: names, scope, versions, printer columns, subresources and
    every schema keyword, byte for byte; only the descriptions (Crossplane's prose) are left out."""
    ours = {c["metadata"]["name"]: c for c in _crds.manifests()}
    theirs = upstream_crds()[file_name]
    assert ours[theirs["metadata"]["name"]]["spec"] == without_descriptions(theirs["spec"])


@pytest.mark.parametrize(
    ("kind", "label"),
    [pytest.param(k, True, id=k.split(".")[0]) for k in sorted(_by_kind())],
)
def test_every_crd_is_labelled_as_crossfns(kind: str, label: bool) -> None:
    """The label is how a later install tells crossfn's CRDs from another manager's."""
    assert _crds.is_ours(_by_kind()[kind]) is label


def test_composition_pipeline_rules() -> None:
    """The pipeline is a list-map keyed by step of 1..99 steps; v2.3's requirements are there (upstream core-2.21)."""
    spec = _by_kind()["Composition.apiextensions.crossplane.io"]["spec"]["versions"][0]["schema"][
        "openAPIV3Schema"
    ]
    pipeline = spec["properties"]["spec"]["properties"]["pipeline"]
    assert (pipeline["minItems"], pipeline["maxItems"]) == (1, 99)
    assert pipeline["x-kubernetes-list-map-keys"] == ["step"]
    requirements = pipeline["items"]["properties"]["requirements"]["properties"]
    assert sorted(requirements) == ["requiredResources", "requiredSchemas"]
    resource = requirements["requiredResources"]["items"]
    assert resource["required"] == ["apiVersion", "kind", "requirementName"], (
        "neither name nor labels is required"
    )
    assert [r["message"] for r in resource["x-kubernetes-validations"]] == [
        "name and matchLabels are mutually exclusive"
    ]


# Deciding what to do with what is served ---------------------------------------------------------


def _crd(
    *, labels: dict[str, str] | None = None, versions: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    def version(props: dict[str, Any]) -> dict[str, Any]:
        schema = {"type": "object", "properties": {"spec": {"type": "object", "properties": props}}}
        return {"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": schema}}

    meta: dict[str, Any] = {"name": "things.example.org"}
    if labels is not None:
        meta["labels"] = labels
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": meta,
        "spec": {
            "group": "example.org",
            "names": {"kind": "Thing", "plural": "things"},
            "scope": "Cluster",
            "versions": versions if versions is not None else [version({"a": {"type": "string"}})],
        },
    }


def _with(
    props: dict[str, Any], *, labels: dict[str, str] | None = None, served: bool = True
) -> dict[str, Any]:
    crd = _crd(labels=labels)
    version = crd["spec"]["versions"][0]
    version["served"] = served
    version["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"] = props
    return crd


OURS_LABEL = {"app.kubernetes.io/managed-by": "crossfn"}
_STR = {"type": "string"}
_OURS = _with({"a": _STR}, labels=OURS_LABEL)


@pytest.mark.parametrize(
    ("reason", "served", "action", "gaps"),
    [
        pytest.param("nothing served: crossfn creates it", None, "create", (), id="Absent"),
        pytest.param("the same CRD: nothing to do", copy.deepcopy(_OURS), "unchanged", (), id="Same"),
        pytest.param(
            "Crossplane's has descriptions crossfn's lacks: the same schema all the same",
            _with({"a": {**_STR, "description": "A field."}}),
            "unchanged",
            (),
            id="SameButDescriptions",
        ),
        pytest.param(
            "an older crossfn's CRD lacks a field: upgraded",
            _with({}, labels=OURS_LABEL),
            "upgrade",
            (),
            id="OursOlder",
        ),
        pytest.param(
            "a newer crossfn's CRD serves more: kept, never downgraded",
            _with({"a": _STR, "b": _STR}, labels=OURS_LABEL),
            "keep",
            (),
            id="OursNewer",
        ),
        pytest.param(
            "Crossplane's serves more: kept, never narrowed",
            _with({"a": _STR, "b": _STR}),
            "keep",
            (),
            id="TheirsNewer",
        ),
        pytest.param(
            "another manager's CRD that preserves unknown fields where crossfn's declares some serves them",
            _with({"a": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}),
            "keep",
            (),
            id="TheirsPreservesUnknown",
        ),
        pytest.param(
            "another manager's CRD lacks a field: refused, not replaced",
            _with({}),
            "refuse",
            ("v1 spec.a",),
            id="TheirsOlder",
        ),
        pytest.param(
            "another manager's CRD does not serve the version: refused",
            _with({"a": _STR}, served=False),
            "refuse",
            ("version v1",),
            id="TheirsVersionNotServed",
        ),
    ],
)
def test_decide(reason: str, served: dict[str, Any] | None, action: str, gaps: tuple[str, ...]) -> None:
    decision = _crds.decide(_OURS, served)
    assert (decision.action, decision.gaps) == (action, gaps), reason


@pytest.mark.parametrize(
    ("reason", "ours", "theirs", "want"),
    [
        pytest.param(
            "a field nested in a list",
            {"l": {"type": "array", "items": {"type": "object", "properties": {"x": _STR}}}},
            {"l": {"type": "array", "items": {"type": "object"}}},
            ["v1 spec.l[].x"],
            id="InList",
        ),
        pytest.param(
            "a field under a map's values",
            {"m": {"type": "object", "additionalProperties": {"type": "object", "properties": {"x": _STR}}}},
            {"m": {"type": "object"}},
            ["v1 spec.m.*"],
            id="MapValues",
        ),
        pytest.param(
            "a node preserving unknown fields serves everything under it",
            {"o": {"type": "object", "properties": {"x": _STR}}},
            {"o": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
            [],
            id="PreservesUnknown",
        ),
        pytest.param(
            "every gap, in order", {"a": _STR, "b": _STR}, {}, ["v1 spec.a", "v1 spec.b"], id="Several"
        ),
    ],
)
def test_missing(reason: str, ours: dict[str, Any], theirs: dict[str, Any], want: list[str]) -> None:
    assert _crds.missing(_with(ours), _with(theirs)) == want, reason


def test_missing_status_subresource() -> None:
    ours = _with({})
    ours["spec"]["versions"][0]["subresources"] = {"status": {}}
    assert _crds.missing(ours, _with({})) == ["v1 the status subresource"]


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
        decisions = await _crds.install(api, timeout=1.0, poll=0.1, sleep=sleeps)
        assert [(d.name, d.action) for d in decisions] == [
            (crd["metadata"]["name"], "create") for crd in _crds.manifests()
        ]
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


async def test_install_refuses_a_narrower_crd_that_is_not_ours() -> None:
    """Another manager's CRD that lacks a field of crossfn's stops the install before anything is applied,
    with one line naming the CRD and the field."""
    api = _Server(ESTABLISHED)
    composition = next(c for c in _crds.manifests() if c["metadata"]["name"].startswith("compositions."))
    older = copy.deepcopy(composition)
    del older["metadata"]["labels"]
    step = older["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"][
        "pipeline"
    ]
    del step["items"]["properties"]["requirements"]["properties"]["requiredSchemas"]
    await api.create(older)
    api.calls.clear()
    with pytest.raises(_crds.Refused) as info:
        await _crds.install(api)
    assert str(info.value) == (
        "cannot install CustomResourceDefinition compositions.apiextensions.crossplane.io: the one served is not "
        "crossfn's and lacks v1 spec.pipeline[].requirements.requiredSchemas; crossfn does not replace it: upgrade "
        "it where it came from (Crossplane), or run with --skip-crds to use it as it is"
    )
    assert [c for c in api.calls if c[0] != "get"] == [], "nothing is applied"


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
    assert [(d.name, d.action) for d in again] == [(n, "unchanged") for n in crossplane_crds]
    for name in crossplane_crds:
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


@pytest.mark.cluster
async def test_install_upgrades_its_own_and_refuses_anothers(kube: Any, crossplane_crds: list[str]) -> None:
    """An older crossfn's CRD is upgraded; the same CRD without crossfn's label is another manager's, refused
    and left as it is (``locks.pkg.crossplane.io``: no other test uses it)."""
    name = "locks.pkg.crossplane.io"
    crd_kind = ("apiextensions.k8s.io/v1", "CustomResourceDefinition")
    served = await kube.get(*crd_kind, name)
    narrower = copy.deepcopy(served)
    packages = narrower["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["packages"]
    del packages["items"]["properties"]["dependencies"]["items"]["properties"]["constraints"]
    packages["items"]["properties"]["dependencies"]["items"]["required"].remove("constraints")
    narrower = await kube.update(narrower)
    try:
        decisions = {d.name: d.action for d in await _crds.install(kube)}
        assert decisions[name] == "upgrade", "crossfn's own, older: upgraded"
        upgraded = await kube.get(*crd_kind, name)
        ours = next(c for c in _crds.manifests() if c["metadata"]["name"] == name)
        assert _crds.missing(ours, upgraded) == [], "nothing of crossfn's is missing any more"
        foreign = copy.deepcopy(upgraded)
        packages = foreign["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["packages"]
        del packages["items"]["properties"]["dependencies"]["items"]["properties"]["constraints"]
        packages["items"]["properties"]["dependencies"]["items"]["required"].remove("constraints")
        foreign["metadata"]["labels"] = {"app.kubernetes.io/managed-by": "someone-else"}
        foreign = await kube.update(foreign)
        lacks = "locks.pkg.crossplane.io: the one served is not crossfn's and lacks v1beta1 packages[].dependencies[]"
        with pytest.raises(_crds.Refused, match=re.escape(f"{lacks}.constraints")):
            await _crds.install(kube)
        after = await kube.get(*crd_kind, name)
        assert after["metadata"]["resourceVersion"] == foreign["metadata"]["resourceVersion"], "left as it is"
    finally:
        current = await kube.get(*crd_kind, name)
        current["metadata"]["labels"] = {"app.kubernetes.io/managed-by": "crossfn"}
        await kube.update(current)
        await _crds.install(kube)


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
