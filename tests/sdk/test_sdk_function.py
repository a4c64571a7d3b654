"""Tests for crossfn.sdk.function: what counts as a function, sync or async."""

from __future__ import annotations

import functools
from typing import Any

import pytest

from crossfn.proto.v1 import run_function_pb2 as fnv1
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
