"""Tests for crossfn.sdk.function: what counts as a function, sync or async."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable
from typing import Any

import pytest

from crossfn import errors
from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.proto.v1 import run_function_pb2_grpc as fnv1grpc
from crossfn.proto.v1beta1 import run_function_pb2 as fnv1beta1
from crossfn.sdk import function, response


def _sync(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse, word: str = "sync") -> None:
    response.normal(rsp, word)


async def _async(req: fnv1.RunFunctionRequest, rsp: fnv1.RunFunctionResponse) -> None:
    response.normal(rsp, "async")


class _SyncServicer:
    def RunFunction(self, req: fnv1.RunFunctionRequest, context: Any) -> fnv1.RunFunctionResponse:
        rsp = response.to(req)
        response.normal(rsp, "servicer")
        return rsp


class _AsyncServicer:
    async def RunFunction(self, req: fnv1.RunFunctionRequest, context: Any) -> fnv1.RunFunctionResponse:
        return response.to(req)


class _BadServicer:
    def RunFunction(self, req: fnv1.RunFunctionRequest, context: Any) -> object:
        return {"not": "a response"}


@pytest.mark.parametrize(
    ("reason", "fn", "want"),
    [
        pytest.param("A plain def is sync.", _sync, False, id="SyncFunction"),
        pytest.param("An async def is async.", _async, True, id="AsyncFunction"),
        pytest.param(
            "A partial of an async def is async.", functools.partial(_async), True, id="AsyncPartial"
        ),
        pytest.param(
            "A servicer with a sync RunFunction is sync.", _SyncServicer(), False, id="SyncServicer"
        ),
        pytest.param(
            "A servicer with an async RunFunction is async.", _AsyncServicer(), True, id="AsyncServicer"
        ),
    ],
)
def test_is_async(reason: str, fn: object, want: bool) -> None:
    assert function.is_async(fn) is want, reason


@pytest.mark.parametrize(
    ("reason", "fn", "want"),
    [
        pytest.param("A compose function edits the started response.", _sync, "sync", id="Compose"),
        pytest.param(
            "A partial passes its bound arguments.",
            functools.partial(_sync, word="bound"),
            "bound",
            id="Partial",
        ),
        pytest.param("A servicer returns its own response.", _SyncServicer(), "servicer", id="Servicer"),
        pytest.param(
            "A servicer returning something else is a Fatal result.",
            _BadServicer(),
            "TypeError: RunFunction returned dict, not a RunFunctionResponse",
            id="BadServicer",
        ),
    ],
)
def test_to_sync_handler(reason: str, fn: object, want: str) -> None:
    rsp = function.to_sync_handler(fn)(fnv1.RunFunctionRequest(meta=fnv1.RequestMeta(tag="t")))
    assert rsp.results[0].message == want, reason
    assert rsp.meta.tag == "t", reason


def test_to_sync_handler_refuses_async() -> None:
    with pytest.raises(TypeError, match="is async"):
        function.to_sync_handler(_async)


class _ServicerClass:
    """A servicer class: crossfn creates it, with no arguments."""

    def __init__(self) -> None:
        self.word = "created"

    def RunFunction(self, req: fnv1.RunFunctionRequest, context: Any) -> fnv1.RunFunctionResponse:
        rsp = response.to(req)
        response.normal(rsp, self.word)
        return rsp


class _NeedsArgs(_ServicerClass):
    def __init__(self, word: str) -> None:
        self.word = word


class _InitRaises(_ServicerClass):
    def __init__(self) -> None:
        raise RuntimeError("no config")


class _OneArgument:
    def RunFunction(self, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
        return response.to(req)


class _Unimplemented(fnv1grpc.FunctionRunnerServiceServicer):
    """Subclasses the generated base but never overrides RunFunction."""


class _RunFunctionNotCallable:
    RunFunction = "nope"


def _compose_one(req: fnv1.RunFunctionRequest) -> None:
    """A compose function missing its response argument."""


# The generated stubs leave out the experimental FunctionRunnerService class that the module has.
class _TemplateRunner(fnv1grpc.FunctionRunnerService):  # type: ignore[name-defined,misc]
    """As the official template's fn.py now writes it: the generated service class as the base."""

    def RunFunction(self, req: fnv1.RunFunctionRequest, context: Any) -> fnv1.RunFunctionResponse:
        rsp = response.to(req)
        response.normal(rsp, "template")
        return rsp


class _Beta:
    """A duck-typed servicer answering with another protocol version's message."""

    def RunFunction(self, req: fnv1.RunFunctionRequest, context: Any) -> fnv1beta1.RunFunctionResponse:
        rsp = fnv1beta1.RunFunctionResponse()
        rsp.meta.tag = req.meta.tag
        rsp.results.add(severity=fnv1beta1.SEVERITY_NORMAL, message="beta")
        return rsp


async def _awaited(rsp: Awaitable[fnv1.RunFunctionResponse]) -> fnv1.RunFunctionResponse:
    return await rsp


@pytest.mark.parametrize(
    ("reason", "fn", "want"),
    [
        pytest.param(
            "A servicer class is created, then served.", _ServicerClass, "created", id="ServicerClass"
        ),
        pytest.param(
            "The official template's base, FunctionRunnerService.",
            _TemplateRunner,
            "template",
            id="TemplateBase",
        ),
        pytest.param(
            "Another version's RunFunctionResponse is parsed into crossfn's.",
            _Beta(),
            "beta",
            id="OtherMessageType",
        ),
    ],
)
def test_handlers_adapt(reason: str, fn: object, want: str) -> None:
    req = fnv1.RunFunctionRequest(meta=fnv1.RequestMeta(tag="t"))
    for rsp in (function.to_sync_handler(fn)(req), asyncio.run(_awaited(function.to_handler(fn)(req)))):
        assert type(rsp) is fnv1.RunFunctionResponse, reason
        assert (rsp.meta.tag, rsp.results[0].message) == ("t", want), reason


_HERE = __name__


@pytest.mark.parametrize(
    ("reason", "fn", "want"),
    [
        pytest.param(
            "A class that needs arguments cannot be created.",
            _NeedsArgs,
            f"cannot serve {_HERE}._NeedsArgs: the class cannot be created without arguments: "
            "missing a required argument: 'word'",
            id="ClassNeedsArguments",
        ),
        pytest.param(
            "A class whose creation fails is refused with the error.",
            _InitRaises,
            f"cannot serve {_HERE}._InitRaises: creating it raised RuntimeError: no config",
            id="ClassInitRaises",
        ),
        pytest.param(
            "RunFunction must take the request and the context.",
            _OneArgument(),
            f"cannot serve {_HERE}._OneArgument object: RunFunction must take (request, context); it takes (req)",
            id="RunFunctionOneArgument",
        ),
        pytest.param(
            "A generated servicer base without an own RunFunction only answers UNIMPLEMENTED.",
            _Unimplemented,
            f"cannot serve {_HERE}._Unimplemented: it does not implement RunFunction",
            id="RunFunctionNotImplemented",
        ),
        pytest.param(
            "RunFunction must be callable.",
            _RunFunctionNotCallable(),
            f"cannot serve {_HERE}._RunFunctionNotCallable object: its RunFunction is not callable",
            id="RunFunctionNotCallable",
        ),
        pytest.param(
            "A compose function must take the request and the response.",
            _compose_one,
            f"cannot serve {_HERE}._compose_one: a compose function must take (req, rsp); it takes (req)",
            id="ComposeOneArgument",
        ),
        pytest.param(
            "Something not callable is neither kind of function.",
            42,
            "cannot serve builtins.int object: it is neither a compose(req, rsp) function nor a servicer with "
            "RunFunction",
            id="NotCallable",
        ),
    ],
)
def test_refused_when_loaded(reason: str, fn: object, want: str) -> None:
    for adapt in (function.servable, function.to_handler, function.to_sync_handler):
        with pytest.raises(function.NotServableError) as info:
            adapt(fn)
        assert str(info.value) == want, reason
        assert isinstance(info.value, errors.InputError), "the CLI prints it as one line"
