"""Each behaviour change between function-kcl releases, on both sides of it, and how versions are matched."""

from __future__ import annotations

from typing import Any

import pytest
from kcl_support import desired, pool_limits, request, results, run

from crossfn import functions
from crossfn.functions import kcl
from crossfn.functions._releases import kcl as releases
from crossfn.proto.v1 import run_function_pb2 as fnv1

limits = pytest.fixture(scope="module")(pool_limits)

XR = {"apiVersion": "example.org/v1", "kind": "XR", "metadata": {"name": "x"}}
PROCESS = "cannot process xr and state with the pipeline output in *v1.RunFunctionResponse: "
TWO_OF_A_NAME = 'items = [{apiVersion: "v1", kind: "A", metadata.name = "n"}, {apiVersion: "v1", kind: "B", metadata.name = "n"}]'
ONE = 'items = [{apiVersion: "v1", kind: "A", metadata.name = "n"}]'
OLD_DUPLICATE = (
    f"{PROCESS}duplicate resource names n found, when returning multiple resources, you need to set different "
    'metadata.name or matadata.annotations."krm.kcl.dev/composition-resource-name" to distinguish between '
    "different resources in the composition functions."
)


def _meta(kind: str, body: str) -> str:
    return f'items = [{{apiVersion: "meta.krm.kcl.dev/v1alpha1", kind: "{kind}", {body}}}]'


def _invalid_kind(kind: str, wanted: str) -> str:
    return f'{PROCESS}invalid kind "{kind}" for apiVersion "meta.krm.kcl.dev/v1alpha1" - must be {wanted}'


EXTRA = _meta(
    "ExtraResources",
    'requirements = {r = {apiVersion: "v1", kind: "S", matchName: "s", matchNamespace: "ns"}}',
)
REQUIRED = _meta("RequiredResources", 'requirements = {r = {apiVersion: "v1", kind: "S", name: "s"}}')
CONDITION = _meta("Conditions", 'conditions = [{condition = {type: "T", status: "True", reason: "R"}}]')
READY = 'items = [{apiVersion: "v1", kind: "A", metadata = {name = "n", annotations = {"krm.kcl.dev/ready" = "True"}}}]'
PATCH = 'items = [{apiVersion: "v1", kind: "A", metadata.name = "n", spec.list = ["a", "b", "c"]}]'
DESIRED_LIST = {
    "n": {"apiVersion": "v1", "kind": "A", "metadata": {"name": "n"}, "spec": {"list": ["a", "b"]}}
}


def _fatal(text: str) -> dict[str, Any]:
    return {"results": [("SEVERITY_FATAL", text)]}


# (behaviour key, request, what the response holds, reason)
CASES: list[Any] = [
    pytest.param("kcl@v0.10.0", request(TWO_OF_A_NAME, xr=XR), {"resources": {"n": {"apiVersion": "v1", "kind": "B", "metadata": {"name": "n"}}}},
                 "v0.9.4 to v0.11.2 had the duplicate check disabled: the last item of a name wins", id="DuplicatesUnchecked"),
    pytest.param("kcl@v0.9.2", request(ONE, xr=XR, desired={"n": {"apiVersion": "v1", "kind": "Old"}}), _fatal(OLD_DUPLICATE),
                 "v0.9.2 failed on a name a previous step already desired", id="DuplicateOfDesiredV0_9_2"),
    pytest.param("kcl@v0.9.3", request(ONE, xr=XR, desired={"n": {"apiVersion": "v1", "kind": "Old"}}),
                 {"resources": {"n": {"apiVersion": "v1", "kind": "A", "metadata": {"name": "n"}}}},
                 "v0.9.3 checks only the output's names, so replacing a desired resource is fine", id="ReplaceDesiredV0_9_3"),
    pytest.param("kcl@v0.9.3", request(TWO_OF_A_NAME, xr=XR), _fatal(OLD_DUPLICATE),
                 "v0.9.3 fails on a name repeated in the output, with its misspelt text", id="DuplicateInOutputV0_9_3"),
    pytest.param("kcl@v0.11.5", request(TWO_OF_A_NAME, xr=XR), _fatal(
        f'{PROCESS}multiple composed resources with name "n" returned: A/n and B/n. Set different metadata.name or '
        'metadata.annotations."krm.kcl.dev/composition-resource-name" to distinguish them.'),
                 "v0.11.3 names both resources", id="DuplicateCheckerV0_11_3"),
    pytest.param("kcl@v0.10.0", request(EXTRA, target="Default", xr=XR),
                 _fatal(_invalid_kind("ExtraResources", "CompositeConnectionDetails")),
                 "before v0.10.1 there were no extra resources", id="NoExtraResourcesV0_10_0"),
    pytest.param("kcl@v0.10.8", request(EXTRA, target="Default", xr=XR),
                 {"extra": {"r": {"apiVersion": "v1", "kind": "S", "matchName": "s"}}},
                 "v0.10.1 asks for extra resources; before v0.11.6 matchNamespace is ignored", id="ExtraResourcesV0_10_1"),
    pytest.param("kcl@v0.12.1", request(EXTRA, target="Default", xr=XR),
                 {"extra": {"r": {"apiVersion": "v1", "kind": "S", "matchName": "s", "namespace": "ns"}}},
                 "v0.11.6 selects a namespace with matchNamespace", id="ExtraNamespaceV0_11_6"),
    pytest.param("kcl@v0.10.8", request(PATCH, target="PatchDesired", xr=XR, desired=DESIRED_LIST),
                 _fatal(f"{PROCESS}cannot set data existing desired composed object: getting spec.list[2]:c in xr failed: "
                        "spec.list[2]: no such element"),
                 "before v0.10.9 a list element past the end failed the step", id="PatchPastEndV0_10_8"),
    pytest.param("kcl@v0.10.9", request(PATCH, target="PatchDesired", xr=XR, desired=DESIRED_LIST),
                 {"resources": {"n": {"apiVersion": "v1", "kind": "A", "metadata": {"name": "n"}, "spec": {"list": ["a", "b", "c"]}}}},
                 "v0.10.9 appends it", id="PatchPastEndV0_10_9"),
    pytest.param("kcl@v0.11.0", request(CONDITION, target="Default", xr=XR),
                 _fatal(_invalid_kind("Conditions", "CompositeConnectionDetails or ExtraResources")),
                 "before v0.11.1 there were no conditions", id="NoConditionsV0_11_0"),
    pytest.param("kcl@v0.11.2", request(CONDITION, target="Default", xr=XR), {"conditions": ["T"]},
                 "v0.11.1 sets conditions", id="ConditionsV0_11_1"),
    pytest.param("kcl@v0.11.5", request(READY, target="Resources", xr=XR), {"resources": {"n": {
        "apiVersion": "v1", "kind": "A", "metadata": {"name": "n", "annotations": {"krm.kcl.dev/ready": "True"}}}}},
                 "before v0.11.6 the Resources target left the ready annotation alone", id="ReadyIgnoredV0_11_5"),
    pytest.param("kcl@v0.12.1", request(READY, target="Resources", xr=XR), {"resources": {"n": {
        "ready": "READY_TRUE", "apiVersion": "v1", "kind": "A", "metadata": {"name": "n", "annotations": {}}}}},
                 "v0.11.6 reads it for every target", id="ReadyV0_11_6"),
    pytest.param("kcl@v0.12.1", request(REQUIRED, target="Default", xr=XR),
                 _fatal(_invalid_kind("RequiredResources", "CompositeConnectionDetails or ExtraResources")),
                 "before v0.12.2 there were no required resources", id="NoRequiredV0_12_1"),
    pytest.param("kcl", request(REQUIRED, target="Default", xr=XR),
                 {"required": {"r": {"apiVersion": "v1", "kind": "S", "matchName": "s"}}},
                 "v0.12.2 asks for required resources", id="RequiredV0_12_2"),
    pytest.param("kcl@v0.12.1", request(spec={"source": 'items = [{apiVersion: "v1", kind: "A", metadata.name = option("who") or "none"}]',
                                              "config": {"arguments": ['who="arg"']}}, xr=XR),
                 {"resources": {"arg": {"apiVersion": "v1", "kind": "A", "metadata": {"name": "arg"}}}},
                 "before v0.12.2 config.arguments reached an inline program", id="ArgumentsV0_12_1"),
    pytest.param("kcl", request(spec={"source": 'items = [{apiVersion: "v1", kind: "A", metadata.name = option("who") or "none"}]',
                                      "config": {"arguments": ['who="arg"']}}, xr=XR),
                 {"resources": {"none": {"apiVersion": "v1", "kind": "A", "metadata": {"name": "none"}}}},
                 "v0.12.2's inline path drops them", id="ArgumentsV0_12_2"),
]  # fmt: skip


def _selectors(selectors: Any) -> dict[str, Any]:
    from google.protobuf import json_format

    return {name: json_format.MessageToDict(s) for name, s in selectors.items()}


@pytest.mark.parametrize(("key", "req", "want", "reason"), CASES)
def test_behaviour(
    limits: kcl.Limits, key: str, req: fnv1.RunFunctionRequest, want: dict[str, Any], reason: str
) -> None:
    rsp = run(kcl.Kcl(releases.BEHAVIOURS[key], limits=limits), req)
    assert results(rsp) == want.get("results", []), reason
    if "resources" in want:
        assert desired(rsp) == want["resources"], reason
    if "extra" in want:
        assert _selectors(rsp.requirements.extra_resources) == want["extra"], reason
    if "required" in want:
        assert _selectors(rsp.requirements.resources) == want["required"], reason
    if "conditions" in want:
        assert [c.type for c in rsp.conditions] == want["conditions"], reason


@pytest.mark.parametrize(
    ("key", "env", "want"),
    [
        pytest.param("kcl@v0.10.9", True, "invalid function input: spec.source: Required value: kcl source cannot be empty",
                     id="EnvIgnoredV0_10_9"),
        pytest.param("kcl@v0.11.0", True, "", id="EnvV0_10_10"),
        pytest.param("kcl", False, "invalid function input: spec.source: Required value: kcl source cannot be empty",
                     id="NoEnv"),
    ],
)  # fmt: skip
def test_default_source_from_environment(
    limits: kcl.Limits, monkeypatch: pytest.MonkeyPatch, key: str, env: bool, want: str
) -> None:
    """From v0.10.10 an input without a source runs FUNCTION_KCL_DEFAULT_SOURCE."""
    if env:
        monkeypatch.setenv(
            kcl.DEFAULT_SOURCE_ENV, 'items = [{apiVersion: "v1", kind: "A", metadata.name = "d"}]'
        )
    else:
        monkeypatch.delenv(kcl.DEFAULT_SOURCE_ENV, raising=False)
    rsp = run(kcl.Kcl(releases.BEHAVIOURS[key], limits=limits), request(xr=XR))
    assert results(rsp) == ([("SEVERITY_FATAL", want)] if want else [])
    if not want:
        assert list(desired(rsp)) == ["d"]


PKG = "xpkg.upbound.io/crossplane-contrib/function-kcl"


@pytest.mark.parametrize(
    ("version", "want", "words"),
    [
        pytest.param("v0.12.2", "kcl", "behaves as v0.12.2", id="Newest"),
        pytest.param("latest", "kcl", "latest: the newest release crossfn knows, v0.12.2 of 2026-07-19", id="Latest"),
        pytest.param("v0.11.6", "kcl@v0.12.1", "v0.11.6 to v0.12.1", id="V0_11_6"),
        pytest.param("v0.11.2", "kcl@v0.11.2", "v0.11.1 to v0.11.2", id="CorpusPin"),
        pytest.param("v0.9.0", "kcl@v0.10.0", "no duplicate-name check", id="FirstReproduced"),
        pytest.param("v0.9.4", "kcl@v0.10.0", "no duplicate-name check", id="CheckDisabledAgain"),
        pytest.param("v0.0.0-20250301120000-0123456789ab", "kcl@v0.11.2", "a build of 2025-03-01, after v0.11.2 of 2025-02-19",
                     id="PseudoVersionByDate"),
        pytest.param("v0.8.0", None, "before v0.9.0 ran KCL 0.7 and 0.8", id="KCL08RunsThePackage"),
        pytest.param("v0.12.3", None, "releases after v0.12.2 are unknown", id="UnknownRelease"),
        pytest.param("v0.11.0-alpha.1", None, "without a release tag", id="PreRelease"),
    ],
)  # fmt: skip
def test_resolve(version: str, want: str | None, words: str) -> None:
    d = functions.resolve(f"{PKG}:{version}")
    assert d is not None
    assert (d.builtin, words in d.line) == (want, True), d.line


def test_every_behaviour_has_its_object() -> None:
    """Each key of the behaviour table is an object of crossfn.functions.kcl behaving as that key says."""
    assert set(releases.UPSTREAM.objects) == set(releases.BEHAVIOURS)
    for key, ref in releases.UPSTREAM.objects.items():
        obj = functions.load(key)
        assert isinstance(obj, kcl.Kcl), ref
        assert obj.behaviour == releases.BEHAVIOURS[key], ref
