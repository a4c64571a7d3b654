"""The requirements loop and required-resource fetching (upstream core-2.6, core-2.7; core-4.3, core-4.5)."""

from collections.abc import Mapping
from typing import Any

import pytest

from crossfn import engine, errors
from crossfn.engine import _fetching, _model, _required, _runner
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import resource


def obj(
    name: str, namespace: str = "", labels: Mapping[str, str] | None = None, kind: str = "Foo"
) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    if labels:
        meta["labels"] = dict(labels)
    return {"apiVersion": "test.crossplane.io/v1", "kind": kind, "metadata": meta}


class FakeResources:
    """A resource source over a list of objects; ``fail`` makes every call raise."""

    def __init__(self, objects: list[dict[str, Any]], fail: str = "") -> None:
        self.objects = objects
        self.fail = fail
        self.calls: list[tuple[Any, ...]] = []

    async def get(self, api_version: str, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        self.calls.append(("get", api_version, kind, namespace, name))
        if self.fail:
            raise RuntimeError(self.fail)
        for o in self.objects:
            m = o["metadata"]
            if (o["apiVersion"], o["kind"], m.get("namespace", ""), m["name"]) == (
                api_version,
                kind,
                namespace,
                name,
            ):
                return o
        return None

    async def list(
        self, api_version: str, kind: str, namespace: str | None, labels: Mapping[str, str] | None
    ) -> list[dict[str, Any]]:
        self.calls.append(("list", api_version, kind, namespace, labels))
        if self.fail:
            raise RuntimeError(self.fail)
        out = []
        for o in self.objects:
            m = o["metadata"]
            if (o["apiVersion"], o["kind"]) != (api_version, kind):
                continue
            if namespace is not None and m.get("namespace", "") != namespace:
                continue
            if labels and any(m.get("labels", {}).get(k) != v for k, v in labels.items()):
                continue
            out.append(o)
        return out


class FakeSchemas:
    def __init__(self, schemas: Mapping[tuple[str, str], dict[str, Any]], fail: str = "") -> None:
        self.schemas = schemas
        self.fail = fail

    async def schema(self, api_version: str, kind: str) -> dict[str, Any] | None:
        if self.fail:
            raise RuntimeError(self.fail)
        return self.schemas.get((api_version, kind))


def sel(**kw: Any) -> fnv1.ResourceSelector:
    return fnv1.ResourceSelector(api_version="test.crossplane.io/v1", kind="Foo", **kw)


def names(rs: fnv1.Resources) -> list[str]:
    return [resource.struct_to_dict(i.resource)["metadata"]["name"] for i in rs.items]


@pytest.mark.parametrize(
    ("objects", "selector", "want", "reason"),
    [
        pytest.param(
            [obj("a"), obj("b")],
            sel(match_name="b"),
            ["b"],
            "A get by name returns one item.",
            id="SuccessMatchName",
        ),
        pytest.param(
            [obj("a"), obj("b", kind="Bar")],
            sel(),
            ["a"],
            "No match lists every item of the apiVersion/kind.",
            id="SuccessMatchAll",
        ),
        pytest.param(
            [obj("a", labels={"x": "1"}), obj("b", labels={"x": "2"})],
            sel(match_labels=fnv1.MatchLabels(labels={"x": "1"})),
            ["a"],
            "A label list returns matching items.",
            id="SuccessMatchLabels",
        ),
        pytest.param(
            [obj("c", "ns2"), obj("b", "ns1"), obj("a", "ns2")],
            sel(match_labels=fnv1.MatchLabels()),
            ["b", "a", "c"],
            "Items sort by namespace/name; empty labels select all.",
            id="SuccessMatchLabelsSortedByName",
        ),
        pytest.param(
            [obj("a")],
            sel(match_name="nope"),
            [],
            "NotFound is an empty Resources, not an error.",
            id="NotFoundMatchName",
        ),
        pytest.param(
            [obj("a", "ns1"), obj("b", "ns2")],
            sel(namespace="ns2"),
            ["b"],
            "A namespace restricts the list.",
            id="NamespacedMatchAll",
        ),
    ],
)
async def test_TestExistingRequiredResourcesFetcherFetch(
    objects: list[dict[str, Any]], selector: fnv1.ResourceSelector, want: list[str], reason: str
) -> None:
    got = await _required.fetch_resources(FakeResources(objects), selector)
    assert names(got) == want, reason


@pytest.mark.parametrize(
    ("selector", "want", "reason"),
    [
        pytest.param(
            sel(match_name="a"),
            "cannot get required resource by name: boom",
            "Get errors are returned.",
            id="ErrorMatchName",
        ),
        pytest.param(
            sel(match_labels=fnv1.MatchLabels(labels={"a": "b"})),
            "cannot list required resources: boom",
            "List errors are returned.",
            id="ErrorMatchLabels",
        ),
        pytest.param(
            sel(),
            "cannot list required resources: boom",
            "Match-all list errors are returned.",
            id="ErrorMatchAll",
        ),
    ],
)
async def test_TestExistingRequiredResourcesFetcherFetch_errors(
    selector: fnv1.ResourceSelector, want: str, reason: str
) -> None:
    with pytest.raises(errors.CrossfnError) as exc:
        await _required.fetch_resources(FakeResources([], fail="boom"), selector)
    assert str(exc.value) == want, reason


async def test_nil_selector_is_an_error() -> None:
    with pytest.raises(errors.CrossfnError, match=r"^you must specify a resource selector$"):
        await _required.fetch_resources(FakeResources([]), None)
    with pytest.raises(errors.CrossfnError, match=r"^you must specify a schema selector$"):
        await _required.fetch_schema(FakeSchemas({}), None)


async def test_classic_fetch_ignores_namespace_and_sorts_by_name() -> None:
    src = FakeResources([obj("c", "ns1"), obj("a", "ns2"), obj("b", "ns1")])
    got = await _required.FilteringFetcher().fetch(src, sel(namespace="ns1"))
    assert names(got) == ["a", "b", "c"], "FilteringFetcher ignores the selector namespace and sorts by name"
    got = await _required.FilteringFetcher().fetch(src, sel(match_name="b", namespace="zzz"))
    assert names(got) == ["b"], "a classic name match finds the object in any namespace"
    assert names(await _required.FilteringFetcher().fetch(src, None)) == [], (
        "a nil selector is empty in render"
    )


@pytest.mark.parametrize(
    ("rr", "want", "reason"),
    [
        pytest.param(
            _model.RequiredResource("r", "v1", "Foo"),
            fnv1.ResourceSelector(api_version="v1", kind="Foo"),
            "Only apiVersion and kind: no match.",
            id="BasicCompositionSelector",
        ),
        pytest.param(
            _model.RequiredResource("r", "v1", "Foo", name="n"),
            fnv1.ResourceSelector(api_version="v1", kind="Foo", match_name="n"),
            "A name becomes match_name.",
            id="CompositionSelectorWithName",
        ),
        pytest.param(
            _model.RequiredResource("r", "v1", "Foo", name=""),
            fnv1.ResourceSelector(api_version="v1", kind="Foo", match_name=""),
            "An empty name is still a name (Crossplane tests the pointer): it selects nothing, not all of the kind.",
            id="EmptyName",
        ),
        pytest.param(
            _model.RequiredResource("r", "v1", "Foo", match_labels={"a": "b"}),
            fnv1.ResourceSelector(
                api_version="v1", kind="Foo", match_labels=fnv1.MatchLabels(labels={"a": "b"})
            ),
            "Labels become match_labels.",
            id="CompositionSelectorWithLabels",
        ),
        pytest.param(
            _model.RequiredResource("r", "v1", "Foo", name="n", namespace="ns"),
            fnv1.ResourceSelector(api_version="v1", kind="Foo", match_name="n", namespace="ns"),
            "The namespace is carried over.",
            id="CompositionNamespacedSelector",
        ),
        pytest.param(
            _model.RequiredResource("r", "v1", "Foo", match_labels={}),
            fnv1.ResourceSelector(api_version="v1", kind="Foo", match_labels=fnv1.MatchLabels()),
            "Empty non-nil labels set match_labels with no labels.",
            id="OperationSelectorWithEmptyLabels",
        ),
        pytest.param(
            _model.RequiredResource("r", "v1", "Foo"),
            fnv1.ResourceSelector(api_version="v1", kind="Foo"),
            "Operations share the converter.",
            id="BasicOperationSelector",
        ),
        pytest.param(
            _model.RequiredResource("r", "v1", "Foo", name="n"),
            fnv1.ResourceSelector(api_version="v1", kind="Foo", match_name="n"),
            "A name becomes match_name.",
            id="OperationSelectorWithName",
        ),
        pytest.param(
            _model.RequiredResource("r", "v1", "Foo", match_labels={"a": "b"}),
            fnv1.ResourceSelector(
                api_version="v1", kind="Foo", match_labels=fnv1.MatchLabels(labels={"a": "b"})
            ),
            "Labels become match_labels.",
            id="OperationSelectorWithLabels",
        ),
        pytest.param(
            _model.RequiredResource("r", "v1", "Foo", name="n", namespace="ns"),
            fnv1.ResourceSelector(api_version="v1", kind="Foo", match_name="n", namespace="ns"),
            "Name and namespace are carried over.",
            id="OperationSelectorWithNameAndNamespace",
        ),
        pytest.param(
            _model.RequiredResource("r", "v1", "Foo", match_labels={"a": "b"}, namespace="ns"),
            fnv1.ResourceSelector(
                api_version="v1", kind="Foo", match_labels=fnv1.MatchLabels(labels={"a": "b"}), namespace="ns"
            ),
            "Labels and namespace are carried over.",
            id="OperationSelectorWithLabelsAndNamespace",
        ),
    ],
)
def test_TestToProtobufResourceSelector(
    rr: _model.RequiredResource, want: fnv1.ResourceSelector, reason: str
) -> None:
    got = rr.selector()
    assert got == want, reason
    assert got.WhichOneof("match") == want.WhichOneof("match"), reason


class Scripted:
    """A runner answering from a list of responses, recording every request."""

    def __init__(self, *responses: fnv1.RunFunctionResponse | Exception) -> None:
        self.responses = list(responses)
        self.requests: list[fnv1.RunFunctionRequest] = []

    async def run_function(self, name: str, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
        copy = fnv1.RunFunctionRequest()
        copy.CopyFrom(req)
        self.requests.append(copy)
        nxt = self.responses.pop(0) if len(self.responses) > 1 else self.responses[0]
        if isinstance(nxt, Exception):
            raise nxt
        return nxt


def rsp_requiring(**resources: fnv1.ResourceSelector) -> fnv1.RunFunctionResponse:
    rsp = fnv1.RunFunctionResponse()
    rsp.requirements.SetInParent()
    for k, v in resources.items():
        rsp.requirements.resources[k].CopyFrom(v)
    return rsp


async def test_TestFetchingFunctionRunner_RunFunctionError() -> None:
    inner = Scripted(errors.FunctionRunError("boom"))
    with pytest.raises(errors.FunctionRunError, match=r"^boom$"):
        await _fetching.FetchingRunner(inner).run_function("fn", fnv1.RunFunctionRequest())


async def test_TestFetchingFunctionRunner_FatalResult() -> None:
    rsp = rsp_requiring(a=sel(match_name="a"))
    rsp.results.add(severity=fnv1.SEVERITY_FATAL, message="oh no")
    inner = Scripted(rsp)
    got = await _fetching.FetchingRunner(inner, resources=FakeResources([obj("a")])).run_function(
        "fn", fnv1.RunFunctionRequest()
    )
    assert got == rsp and len(inner.requests) == 1, "a fatal result returns at once, requirements unresolved"


async def test_TestFetchingFunctionRunner_NoRequirements() -> None:
    rsp = fnv1.RunFunctionResponse(meta=fnv1.ResponseMeta(tag="t"))
    inner = Scripted(rsp)
    got = await _fetching.FetchingRunner(inner).run_function("fn", fnv1.RunFunctionRequest())
    assert got == rsp and len(inner.requests) == 1, "no requirements field: one call"


@pytest.mark.parametrize(
    ("fetcher", "calls", "reason"),
    [
        pytest.param(
            _required.ControllerFetcher(),
            1,
            "HEAD's first-call shortcut: an empty requirements message needs no second call.",
            id="EmptyRequirementsHEAD",
        ),
        pytest.param(
            _required.ControllerFetcher(first_call_shortcut=False),
            2,
            "v2.3 and earlier: present-empty requirements differ from absent, so the function is called twice.",
            id="EmptyRequirementsV23",
        ),
        pytest.param(
            _required.FilteringFetcher(),
            2,
            "Classic render predates the shortcut: the function is called twice.",
            id="EmptyRequirementsClassic",
        ),
    ],
)
async def test_empty_requirements_are_not_absent(
    fetcher: _required.RequirementsFetcher, calls: int, reason: str
) -> None:
    inner = Scripted(rsp_requiring())
    await _fetching.FetchingRunner(inner, fetcher=fetcher).run_function("fn", fnv1.RunFunctionRequest())
    assert len(inner.requests) == calls, reason


@pytest.mark.parametrize(
    ("options", "calls", "reason"),
    [
        pytest.param(
            engine.ComposeOptions.controller(),
            1,
            "the controller's fetcher takes the shortcut",
            id="Controller",
        ),
        pytest.param(
            engine.ComposeOptions.classic_render(), 2, "classic render's fetcher does not", id="ClassicRender"
        ),
        pytest.param(
            engine.ComposeOptions(classic_texts=True),
            1,
            "error texts do not decide the loop: the shortcut is the fetcher's",
            id="ClassicTextsKeepShortcut",
        ),
    ],
)
async def test_build_runner_takes_the_callers_fetcher(
    options: engine.ComposeOptions, calls: int, reason: str
) -> None:
    inner = Scripted(rsp_requiring())
    await engine.build_runner(inner, options=options).run_function("fn", fnv1.RunFunctionRequest())
    assert len(inner.requests) == calls, reason


async def test_TestFetchingFunctionRunner_FetchResourcesError() -> None:
    inner = Scripted(rsp_requiring(need=sel(match_name="a")))
    runner = _fetching.FetchingRunner(inner, resources=FakeResources([], fail="boom"))
    with pytest.raises(errors.CrossfnError) as exc:
        await runner.run_function("fn", fnv1.RunFunctionRequest())
    assert str(exc.value) == "fetching resources for need: cannot get required resource by name: boom"


async def test_TestFetchingFunctionRunner_RequirementsDidntStabilizeError() -> None:
    responses = [rsp_requiring(**{f"r{i}": sel(match_name=f"n{i}")}) for i in range(10)]
    inner = Scripted(*responses)
    with pytest.raises(errors.RequirementsError) as exc:
        await _fetching.FetchingRunner(inner).run_function("fn", fnv1.RunFunctionRequest())
    assert str(exc.value) == "requirements didn't stabilize after the maximum number of iterations (5)"
    assert len(inner.requests) == 6, "the loop makes at most six calls"


async def test_TestFetchingFunctionRunner_Success() -> None:
    first = rsp_requiring(**{"extra-resource-by-name": sel(match_name="extra-resource")})
    first.context.CopyFrom(resource.dict_to_struct({"seen": 1}))
    final = rsp_requiring(**{"extra-resource-by-name": sel(match_name="extra-resource")})
    final.results.add(severity=fnv1.SEVERITY_NORMAL, message="done")
    inner = Scripted(first, final)
    req = fnv1.RunFunctionRequest(meta=fnv1.RequestMeta(tag="tag"))
    req.desired.SetInParent()
    got = await _fetching.FetchingRunner(
        inner, resources=FakeResources([obj("extra-resource")])
    ).run_function("fn", req)
    assert got == final, "the stabilised response is returned"
    assert len(inner.requests) == 2, "the second call stabilises"
    second = inner.requests[1]
    assert names(second.required_resources["extra-resource-by-name"]) == ["extra-resource"], (
        "the second call receives the fetch"
    )
    assert resource.struct_to_dict(second.context) == {"seen": 1}, (
        "the function sees its own context next time"
    )
    assert second.meta.tag == "tag" and second.HasField("desired"), "meta and desired stay the same"
    assert len(req.required_resources) == 0, "the caller's request is not modified"


async def test_extra_resources_are_served() -> None:
    first = fnv1.RunFunctionResponse()
    first.requirements.extra_resources["x"].CopyFrom(sel(match_name="a"))
    inner = Scripted(first)
    await _fetching.FetchingRunner(inner, resources=FakeResources([obj("a")])).run_function(
        "fn", fnv1.RunFunctionRequest()
    )
    assert names(inner.requests[1].extra_resources["x"]) == ["a"], "deprecated extra_resources still work"


async def test_TestFetchingFunctionRunner_SeededRequirementResolvesInOneCall() -> None:
    inner = Scripted(rsp_requiring(need=sel(match_name="a")))
    req = fnv1.RunFunctionRequest()
    req.required_resources["need"].CopyFrom(
        await _required.fetch_resources(FakeResources([obj("a")]), sel(match_name="a"))
    )
    await _fetching.FetchingRunner(inner, resources=FakeResources([obj("a")])).run_function("fn", req)
    assert len(inner.requests) == 1, "a request already holding what is required needs one call (HEAD)"


async def test_TestFetchingFunctionRunner_PreserveBootstrapResourcesWithDynamicRequirements() -> None:
    inner = Scripted(
        rsp_requiring(dyn=sel(match_name="b")),
        rsp_requiring(other=sel(match_name="c")),
        rsp_requiring(other=sel(match_name="c")),
    )
    req = fnv1.RunFunctionRequest()
    req.required_resources["boot"].items.add().resource.CopyFrom(resource.dict_to_struct(obj("boot")))
    runner = _fetching.FetchingRunner(inner, resources=FakeResources([obj("b"), obj("c")]))
    await runner.run_function("fn", req)
    second, third = inner.requests[1], inner.requests[2]
    assert set(second.required_resources) == {"boot", "dyn"}, "bootstrap and dynamic entries both arrive"
    assert set(third.required_resources) == {"boot", "other"}, (
        "stale dynamic keys are dropped, bootstrap kept"
    )


async def test_TestFetchingFunctionRunner_FetchSchemasError() -> None:
    rsp = fnv1.RunFunctionResponse()
    rsp.requirements.schemas["s"].CopyFrom(fnv1.SchemaSelector(api_version="apps/v1", kind="Deployment"))
    runner = _fetching.FetchingRunner(Scripted(rsp), schemas=FakeSchemas({}, fail="boom"))
    with pytest.raises(errors.CrossfnError) as exc:
        await runner.run_function("fn", fnv1.RunFunctionRequest())
    assert str(exc.value) == "fetching schema for s: cannot get OpenAPI schema for apps/v1: boom"


async def test_TestFetchingFunctionRunner_FetchSchemasSuccess() -> None:
    rsp = fnv1.RunFunctionResponse()
    rsp.requirements.schemas["s"].CopyFrom(fnv1.SchemaSelector(api_version="apps/v1", kind="Deployment"))
    rsp.requirements.schemas["missing"].CopyFrom(fnv1.SchemaSelector(api_version="x/v1", kind="Nope"))
    inner = Scripted(rsp)
    schemas = FakeSchemas({("apps/v1", "Deployment"): {"type": "object"}})
    await _fetching.FetchingRunner(inner, schemas=schemas).run_function("fn", fnv1.RunFunctionRequest())
    second = inner.requests[1]
    assert resource.struct_to_dict(second.required_schemas["s"].openapi_v3) == {"type": "object"}, (
        "the schema arrives"
    )
    assert "missing" in second.required_schemas, "an unknown kind still gets its key"
    assert not second.required_schemas["missing"].HasField("openapi_v3"), "an unknown kind is an empty Schema"


async def test_TestFetchingFunctionRunner_PreserveBootstrapSchemasWithDynamicRequirements() -> None:
    rsp = rsp_requiring(dyn=sel(match_name="b"))
    inner = Scripted(rsp)
    req = fnv1.RunFunctionRequest()
    req.required_schemas["boot"].openapi_v3.CopyFrom(resource.dict_to_struct({"type": "object"}))
    await _fetching.FetchingRunner(inner, resources=FakeResources([obj("b")])).run_function("fn", req)
    assert "boot" in inner.requests[1].required_schemas, "bootstrap schemas survive iterations"


async def test_runner_from_adapts_a_coroutine_function() -> None:
    async def fn(name: str, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
        return fnv1.RunFunctionResponse(meta=fnv1.ResponseMeta(tag=name + req.meta.tag))

    runner = _runner.runner_from(fn)
    got = await runner.run_function("fn", fnv1.RunFunctionRequest(meta=fnv1.RequestMeta(tag="-t")))
    assert got.meta.tag == "fn-t", "the adapter passes name and request through"


async def test_in_memory_resources_follow_selector_rules() -> None:
    src = engine.InMemoryResources(
        [obj("a", "ns1", {"x": "1"}), obj("b", "ns2", {"x": "1"}), obj("c"), obj("a", "ns2")]
    )
    assert names(await _required.fetch_resources(src, sel(match_name="c"))) == ["c"], (
        "cluster-scoped get by name"
    )
    assert names(await _required.fetch_resources(src, sel(match_name="a", namespace="ns2"))) == ["a"], (
        "namespaced get"
    )
    got = await _required.fetch_resources(src, sel(match_labels=fnv1.MatchLabels(labels={"x": "1"})))
    assert names(got) == ["a", "b"], "labels across all namespaces, sorted by namespace/name"
    assert names(await _required.fetch_resources(src, sel(namespace="ns2"))) == ["a", "b"], (
        "all of a kind in one namespace"
    )


async def test_unencodable_required_resource_is_an_input_error() -> None:
    bad = obj("a")
    bad["spec"] = {"when": object()}
    with pytest.raises(errors.InputError) as exc:
        await _required.fetch_resources(FakeResources([bad]), sel(match_name="a"))
    assert str(exc.value) == (
        'cannot encode required resource "a" to protocol buffer Struct well-known type: cannot convert object to a protobuf Value'
    )


@pytest.mark.parametrize(
    ("selector", "want", "reason"),
    [
        pytest.param(
            sel(match_name="a", namespace="ns"),
            _model.RequiredResource("r", "test.crossplane.io/v1", "Foo", name="a", namespace="ns"),
            "A name match keeps name and namespace.",
            id="MatchName",
        ),
        pytest.param(
            sel(match_labels=fnv1.MatchLabels(labels={"x": "1"})),
            _model.RequiredResource("r", "test.crossplane.io/v1", "Foo", match_labels={"x": "1"}),
            "Labels are kept.",
            id="MatchLabels",
        ),
        pytest.param(
            sel(),
            _model.RequiredResource("r", "test.crossplane.io/v1", "Foo"),
            "No match means all of the kind.",
            id="MatchAll",
        ),
    ],
)
def test_TestReferenceFromSelector(
    selector: fnv1.ResourceSelector, want: _model.RequiredResource, reason: str
) -> None:
    got = _model.RequiredResource.from_selector("r", selector)
    assert got == want, reason
    assert got.selector() == selector, "TestSelectorFromReference: the round trip gives the selector back"


@pytest.mark.parametrize(
    "classic", [pytest.param(False, id="Controller"), pytest.param(True, id="ClassicRender")]
)
async def test_empty_match_name_matches_nothing(classic: bool) -> None:
    """A bootstrap requirement with ``name: ""`` gets an empty Resources, in the controller and in render."""
    source = FakeResources([obj("a"), obj("b")])
    sel = _model.RequiredResource("r", "test.crossplane.io/v1", "Foo", name="").selector()
    fetcher = _required.FilteringFetcher() if classic else _required.ControllerFetcher()
    got = await fetcher.fetch(source, sel)
    assert list(got.items) == []
