"""``crossfn trace``'s parts without a cluster: printers (upstream's own cases), status rules, Go's tabwriter,
emicklei/dot's order, resolving the kind argument, which objects are children, and loading a tree."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from crossfn import errors, trace
from crossfn.controller.kube import _api
from crossfn.gocompat import tabwriter
from crossfn.trace import _load, _print, _resource

R = trace.Resource


def _c(type_: str, status: str, reason: str = "", message: str = "") -> dict[str, Any]:
    c: dict[str, Any] = {"lastTransitionTime": None, "reason": reason, "status": status, "type": type_}
    if message:
        c["message"] = message
    return c


def _m(
    kind: str, name: str, conds: list[dict[str, Any]], *, ns: str = "", rn: str | None = None
) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if ns:
        meta["namespace"] = ns
    if rn is not None:
        meta["annotations"] = {"crossplane.io/composition-resource-name": rn}
    return {
        "apiVersion": "test.cloud/v1alpha1",
        "kind": kind,
        "metadata": meta,
        "status": {"conditions": conds},
    }


_LONG = (
    "Error with bucket child 1: Sint eu mollit tempor ad minim do commodo irure. Magna labore irure magna. "
    "Non cillum id nulla. Anim culpa do duis consectetur."
)


def _complex() -> trace.Resource:
    """Upstream's printer fixture (crossplane/cli ``printer_test.go`` ``GetComplexResource``)."""
    ok = [_c("Synced", "True"), _c("Ready", "True")]
    return R(_m("ObjectStorage", "test-resource", ok, ns="default"), children=[
        R(_m("XObjectStorage", "test-resource-hash", ok), children=[
            R(_m("Bucket", "test-resource-bucket-hash", ok, rn="one"), children=[
                R(_m("User", "test-resource-child-1-bucket-hash",
                     [_c("Synced", "True"), _c("Ready", "False", "SomethingWrongHappened", _LONG)], rn="two")),
                R(_m("User", "test-resource-child-mid-bucket-hash",
                     [_c("Synced", "False", "CantSync", "Sync error with bucket child mid"),
                      _c("Ready", "True", "AllGood")], rn="three")),
                R(_m("User", "test-resource-child-2-bucket-hash",
                     [_c("Synced", "True"), _c("Ready", "False", "SomethingWrongHappened", "Error with bucket child 2")],
                     rn="four"), children=[
                    R(_m("User", "test-resource-child-2-1-bucket-hash", [_c("Synced", "True")], rn="")),
                ]),
            ]),
            R(_m("User", "test-resource-user-hash", [_c("Ready", "True"), _c("Synced", "Unknown")])),
        ]),
    ])  # fmt: skip


_GOLDEN = Path(__file__).parent / "golden"
"""``upstream-*``: crossplane/cli's expected outputs for :func:`_complex` (default_test.go, dot_test.go)."""


@pytest.mark.parametrize(
    ("output", "want", "reason"),
    [
        pytest.param(
            "default", "upstream-default.txt", "a tree, messages cut to their last 64 bytes", id="Default"
        ),
        pytest.param("wide", "upstream-wide.txt", "the RESOURCE column and whole messages", id="Wide"),
        pytest.param("dot", "upstream.dot", "nodes breadth first, edges by parent", id="Dot"),
    ],
)
def test_printers_match_upstreams_cases(output: str, want: str, reason: str) -> None:
    assert trace.render(output, [_complex()], as_list=False) == (_GOLDEN / want).read_text(), reason


def test_json_and_yaml_hold_the_tree() -> None:
    """Each node is object, then children (omitted when none); YAML sorts the keys, and ends in an empty line."""
    text = trace.render("json", [_complex()], as_list=False)
    assert text.startswith('{\n  "object": {\n    "apiVersion": "test.cloud/v1alpha1",\n')
    doc = json.loads(text)
    leaf = doc["children"][0]["children"][0]["children"][2]["children"][0]
    assert leaf == {
        "object": _m("User", "test-resource-child-2-1-bucket-hash", [_c("Synced", "True")], rn="")
    }
    yaml_text = trace.render("yaml", [_complex()], as_list=False)
    assert yaml_text.startswith("children:\n- children:\n")
    assert yaml_text.endswith("type: Ready\n\n") and not yaml_text.endswith("\n\n\n")
    listed = json.loads(trace.render("json", [_complex(), _complex()], as_list=True))
    assert listed == {"items": [doc, doc]}


def test_an_empty_listing() -> None:
    """No object of the kind: the tree printers refuse, json prints no items (as upstream)."""
    with pytest.raises(errors.CrossfnError, match=r"^cannot print resource tree: resource list is empty$"):
        trace.render("default", [], as_list=True)
    with pytest.raises(errors.CrossfnError, match=r"^resource list is empty$"):
        trace.render("dot", [], as_list=True)
    assert trace.render("json", [], as_list=True) == '{\n  "items": []\n}\n'
    assert trace.render("yaml", [], as_list=True) == "items: []\n\n"


_404 = trace.Failure('xs.example.org "x" not found', {})


@pytest.mark.parametrize(
    ("obj", "error", "wide", "want", "reason"),
    [
        pytest.param({"metadata": {"deletionTimestamp": "t"}, "status": {"conditions": [_c("Synced", "False", "X", "m")]}},
                     _404, False, "Deleting", "being deleted wins over everything", id="Deleting"),
        pytest.param({}, _404, False, 'Error: xs.example.org "x" not found', "an object that could not be read",
                     id="Error"),
        pytest.param({"status": {"conditions": [_c("Synced", "True", "S"), _c("Ready", "True", "Available", "m")]}},
                     None, False, "Available", "both True: Ready's reason, no message", id="BothTrue"),
        pytest.param({"status": {"conditions": [_c("Synced", "False", "ReconcileError", "boom"),
                                                _c("Ready", "False", "Creating", "wait")]}},
                     None, False, "ReconcileError: boom", "Synced's problem before Ready's", id="SyncedFirst"),
        pytest.param({"status": {"conditions": [_c("Synced", "Unknown"), _c("Ready", "False", "", "wait")]}},
                     None, False, ": wait", "Ready's, when Synced has neither reason nor message", id="ReadyMessage"),
        pytest.param({"status": {"conditions": [_c("Synced", "True", "ReconcileSuccess")]}},
                     None, False, "", "nothing to say: Ready's empty reason", id="Nothing"),
        pytest.param({"status": {"conditions": [_c("Synced", "False", "E", "é" * 40)]}},
                     None, False, "E: ..." + "é" * 32, "64 bytes, not characters", id="CropBytes"),
        pytest.param({"status": {"conditions": [_c("Synced", "False", "E", "é" * 40 + "x")]}},
                     None, False, "E: ...\ufffd" + "é" * 31 + "x", "a character cut in two", id="CropInside"),
        pytest.param({"status": {"conditions": [_c("Synced", "False", "E", "é" * 40)]}},
                     None, True, "E: " + "é" * 40, "wide keeps it all", id="WideUncut"),
        pytest.param({"status": {"conditions": "not a list"}}, None, False, "", "undecodable conditions are none",
                     id="BadConditions"),
    ],
)  # fmt: skip
def test_status_column(
    obj: dict[str, Any], error: trace.Failure | None, wide: bool, want: str, reason: str
) -> None:
    assert _print.status(R(obj, error), wide=wide) == want, reason


@pytest.mark.parametrize(
    ("minwidth", "padding", "text", "want", "reason"),
    [
        pytest.param(0, 1, "a\tb\tc\naa\tbb\tcc\naaa\t\naaaa\tdddd\teeee\n",
                     "a    b  c\naa   bb cc\naaa  \naaaa dddd eeee\n",
                     "Go's elastic example: the b's and the d's are different columns", id="Elastic"),
        pytest.param(6, 3, "N\tS\nx\ty\n", "N     S\nx     y\n", "the minimum width counts the padding",
                     id="MinWidth"),
        pytest.param(0, 1, "a\tb\nno tabs\nccc\td\n", "a b\nno tabs\nccc d\n",
                     "a line without a tab ends every column", id="Flush"),
        pytest.param(0, 1, "├─ a\tb\nxxxx\tc\n", "├─ a b\nxxxx c\n", "widths count characters, not bytes",
                     id="Runes"),
        pytest.param(0, 1, "a\tb", "a b", "text without a final newline is kept", id="NoNewline"),
    ],
)  # fmt: skip
def test_tabwriter(minwidth: int, padding: int, text: str, want: str, reason: str) -> None:
    w = tabwriter.Writer(minwidth=minwidth, padding=padding)
    w.write(text)
    assert w.flush() == want, reason


def test_dot_orders_nodes_by_their_id_as_text() -> None:
    """With more than ten nodes, node "10" (n11) is written after "1" (n2): emicklei/dot sorts IDs as strings."""
    root = R(_m("X", "root", []), children=[R(_m("Y", f"c{i}", [])) for i in range(11)])
    lines = trace.render("dot", [root], as_list=False).splitlines()
    nodes = [line.split("[")[0].strip() for line in lines if "[label" in line]
    assert nodes == ["n1", "n2", "n11", "n12", *(f"n{i}" for i in range(3, 11))]
    edges = [line.strip() for line in lines if "--" in line]
    assert edges == [f"n1--n{i};" for i in range(2, 13)]


# Resolving the argument -----------------------------------------------------------------------------

_DISCOVERY: dict[str, Any] = {
    "api": {"versions": ["v1"]},
    "apis": {"groups": [
        {"name": "example.org", "versions": [{"version": "v1beta1"}, {"version": "v1"}], "preferredVersion": {"version": "v1"}},
        {"name": "other.io", "versions": [{"version": "v1"}], "preferredVersion": {"version": "v1"}},
        {"name": "broken.io", "versions": [{"version": "v1"}], "preferredVersion": {"version": "v1"}},
    ]},
    "api/v1": {"resources": [
        {"name": "secrets", "singularName": "secret", "kind": "Secret", "namespaced": True},
        {"name": "pods", "singularName": "", "kind": "Pod", "namespaced": True, "shortNames": ["po"]},
    ]},
    "apis/example.org/v1": {"resources": [
        {"name": "xbuckets", "singularName": "xbucket", "kind": "XBucket", "namespaced": False, "shortNames": ["xb"]},
        {"name": "xbuckets/status", "singularName": "", "kind": "XBucket", "namespaced": False},
        {"name": "claims", "singularName": "thing", "kind": "Claim", "namespaced": True},
    ]},
    "apis/example.org/v1beta1": {"resources": [
        {"name": "xbuckets", "singularName": "xbucket", "kind": "XBucket", "namespaced": False},
        {"name": "olds", "singularName": "old", "kind": "Old", "namespaced": False},
    ]},
    "apis/other.io/v1": {"resources": [
        {"name": "xbuckets", "singularName": "xbucket", "kind": "XBucket", "namespaced": True},
    ]},
}  # fmt: skip


async def _get(path: str) -> Any:
    if path == "apis/broken.io/v1":
        raise errors.CrossfnError("the server is currently unable to handle the request")
    return _DISCOVERY[path]


@pytest.mark.parametrize(
    ("arg", "want", "reason"),
    [
        pytest.param("xbucket", ("example.org/v1", "XBucket", False), "singular; the first group, its preferred version", id="Singular"),
        pytest.param("XBuckets", ("example.org/v1", "XBucket", False), "compared in lower case", id="PluralAnyCase"),
        pytest.param("xb", ("example.org/v1", "XBucket", False), "a short name", id="ShortName"),
        pytest.param("xb.exam", ("example.org/v1", "XBucket", False), "a short name, a prefix of its group", id="ShortPrefix"),
        pytest.param("xbuckets.other.io", ("other.io/v1", "XBucket", True), "resource.group", id="Group"),
        pytest.param("xbuckets.v1beta1.example.org", ("example.org/v1beta1", "XBucket", False), "resource.version.group", id="Version"),
        pytest.param("old", ("example.org/v1beta1", "Old", False), "only in a version that is not preferred", id="OtherVersion"),
        pytest.param("Claim", ("example.org/v1", "Claim", True), "the kind, where the singular differs", id="Kind"),
        pytest.param("claim.v1.example.org", ("example.org/v1", "Claim", True), "the kind in lower case", id="KindLower"),
        pytest.param("pod", ("v1", "Pod", True), "no singular: the lower-case kind", id="CoreNoSingular"),
        pytest.param("po", ("v1", "Pod", True), "a core short name", id="CoreShort"),
        pytest.param("xbuckets.other.io", ("other.io/v1", "XBucket", True),
                     "a group-version whose discovery fails is skipped, as client-go skips it", id="BrokenGroup"),
    ],
)  # fmt: skip
async def test_resolve(arg: str, want: tuple[str, str, bool], reason: str) -> None:
    got = await trace.resolve(_get, arg)
    assert (got.api_version, got.kind, got.namespaced) == want, reason


@pytest.mark.parametrize(
    ("arg", "want"),
    [
        pytest.param("nope", '"nope"', id="Unknown"),
        pytest.param("xbuckets.nowhere.io", '"xbuckets"', id="UnknownGroup"),
        pytest.param("xbuckets/status", '"xbuckets/status"', id="Subresource"),
    ],
)
async def test_resolve_unknown(arg: str, want: str) -> None:
    with pytest.raises(errors.InputError) as got:
        await trace.resolve(_get, arg)
    assert str(got.value) == f"the server doesn't have a resource type {want}"


# Children -------------------------------------------------------------------------------------------


def _ref(kind: str, name: str, **extra: str) -> dict[str, str]:
    return {"apiVersion": "example.org/v1", "kind": kind, "name": name, **extra}


@pytest.mark.parametrize(
    ("obj", "secrets", "want", "reason"),
    [
        pytest.param({"kind": "Claim", "metadata": {"namespace": "ns"},
                      "spec": {"resourceRef": _ref("XB", "xb-1"), "resourceRefs": [_ref("B", "b")],
                               "writeConnectionSecretToRef": {"name": "s"}}},
                     False, [trace.Ref("example.org/v1", "XB", "xb-1")],
                     "a claim's only child is its XR (cluster scoped: no namespace)", id="Claim"),
        pytest.param({"kind": "Claim", "metadata": {"namespace": "ns"},
                      "spec": {"resourceRef": _ref("XB", "xb-1"), "writeConnectionSecretToRef": {"name": "s"}}},
                     True, [trace.Ref("example.org/v1", "XB", "xb-1"), trace.Ref("v1", "Secret", "s", "ns")],
                     "and its Secret, in its namespace", id="ClaimSecret"),
        pytest.param({"kind": "XB", "spec": {"resourceRefs": [_ref("B", "b")],
                                             "writeConnectionSecretToRef": {"name": "s", "namespace": "x"}}},
                     True, [trace.Ref("example.org/v1", "B", "b"), trace.Ref("v1", "Secret", "s", "x")],
                     "a legacy XR's references and Secret", id="LegacyXR"),
        pytest.param({"kind": "XB", "metadata": {"namespace": "ns"},
                      "spec": {"crossplane": {"resourceRefs": [_ref("B", "b"), _ref("C", "c", namespace="other")]}}},
                     False, [trace.Ref("example.org/v1", "B", "b", "ns"), trace.Ref("example.org/v1", "C", "c", "other")],
                     "a namespaced v2 XR's references default to its namespace", id="ModernXR"),
        pytest.param({"apiVersion": "v1", "kind": "Secret", "spec": {"resourceRefs": [_ref("B", "b")]}},
                     False, [], "a Secret references nothing", id="Secret"),
        pytest.param({"apiVersion": "apiextensions.crossplane.io/v1beta1", "kind": "Usage",
                      "spec": {"resourceRefs": [_ref("B", "b")]}},
                     False, [], "nor does a Usage", id="Usage"),
        pytest.param({"kind": "XB", "spec": {"resourceRefs": [_ref("B", "b"), "junk"]}},
                     False, [], "a list that does not decode gives nothing", id="Undecodable"),
        pytest.param({"kind": "XB", "spec": {"resourceRefs": [{**_ref("B", "b"), "uid": 3}]}},
                     False, [], "a field of the wrong type fails the decode", id="WrongType"),
    ],
)  # fmt: skip
def test_child_refs(obj: dict[str, Any], secrets: bool, want: list[trace.Ref], reason: str) -> None:
    assert _resource.child_refs(R(obj), connection_secrets=secrets) == want, reason


class FakeReader:
    """Objects by (kind, name); a missing one is the API server's NotFound with its Status."""

    def __init__(self, *objs: dict[str, Any]) -> None:
        self.objs = {(o["kind"], o["metadata"]["name"]): o for o in objs}

    async def read(self, api_version: str, kind: str, name: str, namespace: str = "") -> dict[str, Any]:
        if kind == "Gone":
            raise _api.NoKindMatch(f'no matches for kind "Gone" in version "{api_version}"', status=404)
        try:
            return self.objs[(kind, name)]
        except KeyError:
            message = f'{kind.lower()}s "{name}" not found'
            status: dict[str, Any] = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                      "message": message, "reason": "NotFound",
                      "details": {"name": name, "kind": f"{kind.lower()}s"}, "code": 404}  # fmt: skip
            raise _api.NotFound(message, status=404, body=status) from None

    async def list(
        self, api_version: str, kind: str, namespace: str | None = None
    ) -> tuple[list[dict[str, Any]], str]:
        return [o for (k, _), o in self.objs.items() if k == kind], "1"


def _xr(name: str, *refs: dict[str, str]) -> dict[str, Any]:
    return {
        "apiVersion": "example.org/v1",
        "kind": "XB",
        "metadata": {"name": name},
        "spec": {"resourceRefs": list(refs)},
    }


def _names(r: trace.Resource) -> Any:
    return [r.name, [_names(c) for c in r.children]] if r.children else r.name


async def test_load_tree_sorts_and_keeps_failures() -> None:
    reader = FakeReader(_xr("a", _ref("XB", "c"), _ref("XB", "b"), _ref("Gone", "g"), _ref("XB", "missing")),
                        _xr("b", _ref("XB", "d")), _xr("c"), _xr("d"))  # fmt: skip
    root = await trace.load_tree(reader, R(reader.objs[("XB", "a")]))
    assert _names(root) == ["a", ["g", ["b", ["d"]], "c", "missing"]]
    gone, missing = root.children[0], root.children[3]
    assert gone.error == trace.Failure(
        'no matches for kind "Gone" in version "example.org/v1"',
        {"GroupKind": {"Group": "example.org", "Kind": "Gone"}, "SearchedVersions": ["v1"]},
    )
    assert gone.obj == {"apiVersion": "example.org/v1", "kind": "Gone", "metadata": {"name": "g"}}
    assert missing.error is not None and list(missing.error.json["ErrStatus"]) == [
        "kind", "apiVersion", "metadata", "status", "message", "reason", "details", "code"
    ]  # fmt: skip


async def test_load_tree_stops_at_a_cycle() -> None:
    """An XR that (through another) references itself is shown once more, not followed for ever."""
    reader = FakeReader(_xr("a", _ref("XB", "b")), _xr("b", _ref("XB", "a")))
    root = await trace.load_tree(reader, R(reader.objs[("XB", "a")]))
    assert _names(root) == ["a", [["b", ["a"]]]]


def test_failure_of_an_unreachable_server() -> None:
    """An error without a Status (the server cannot be reached) prints as Go prints an error without fields."""
    got = _load.failure(
        _api.ApiError("cannot reach the API server at https://x: refused"), trace.Ref("v1", "Secret", "s")
    )
    assert got == trace.Failure("cannot reach the API server at https://x: refused", {})
