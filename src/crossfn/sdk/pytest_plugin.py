"""The ``crossfn`` pytest plugin: a ``crossfn_function`` fixture for function tests.

Installed with crossfn and registered through the ``pytest11`` entry point, so
any project that depends on crossfn gets the fixture without a conftest. It is
a thin face over :mod:`crossfn.sdk.testing`::

    def test_compose(crossfn_function):
        rsp = crossfn_function.run(compose, crossfn_function.request(input={"x": 1}))
        crossfn_function.assert_response(rsp, "results: [...]", ignore=["meta"])
"""

from __future__ import annotations

from typing import Any

import pytest

from crossfn.proto.v1 import run_function_pb2 as fnv1
from crossfn.sdk import testing

__all__ = ["FunctionTester", "crossfn_function"]


class FunctionTester:
    """What the ``crossfn_function`` fixture gives a test."""

    def request(self, **fields: Any) -> fnv1.RunFunctionRequest:
        """Build a request from dicts (see :func:`crossfn.sdk.testing.build_request`)."""
        return testing.build_request(**fields)

    def request_from_yaml(self, source: Any) -> fnv1.RunFunctionRequest:
        """Build a request from YAML text or a file path."""
        return testing.request_from_yaml(source)

    def run(self, fn: object, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
        """Run ``fn`` in-process on ``req``."""
        return testing.run(fn, req)

    async def arun(self, fn: object, req: fnv1.RunFunctionRequest) -> fnv1.RunFunctionResponse:
        """Run ``fn`` in-process on ``req`` from an async test."""
        return await testing.arun(fn, req)

    def assert_response(self, got: Any, want: Any, *, ignore: Any = ()) -> None:
        """Fail with a ``-want +got`` diff unless the two are equal."""
        testing.assert_response(got, want, ignore=ignore)


@pytest.fixture
def crossfn_function() -> FunctionTester:
    """Build requests, run a function in-process and compare its response."""
    return FunctionTester()
