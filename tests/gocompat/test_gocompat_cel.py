"""crossfn's one CEL interpreter (cel-python) leaves the process as it found it."""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest

from crossfn import validate
from crossfn.functions.auto_ready import _cel as auto_ready_cel
from crossfn.gocompat import cel, celcost


def _validate_rule() -> None:
    schema = {"type": "object", "x-kubernetes-validations": [{"rule": "self.spec.n >= 40"}]}
    validate.validate_object({"apiVersion": "x.io/v1", "kind": "X", "spec": {"n": 41}}, schema)


@pytest.mark.parametrize(
    "use",
    [
        pytest.param(
            lambda: auto_ready_cel.evaluate("object.spec.n == 41", {"spec": {"n": 41}}), id="AutoReady"
        ),
        pytest.param(_validate_rule, id="ValidateRule"),
        pytest.param(
            lambda: celcost.exceeds("self.items.all(x, x > 42)", {"self": {"items": [1]}}), id="CostEstimate"
        ),
    ],
)
def test_cel_keeps_the_recursion_limit(use: Callable[[], object]) -> None:
    # celpy's Environment() sets the limit to 2,500; the CLI raises it to 42,000 for deep objects.
    before = sys.getrecursionlimit()
    cel.module.cache_clear()
    cel.environment.cache_clear()
    auto_ready_cel._program.cache_clear()
    try:
        sys.setrecursionlimit(10_000)
        use()
        assert sys.getrecursionlimit() == 10_000
    finally:
        sys.setrecursionlimit(before)


def test_one_environment_for_every_user() -> None:
    assert cel.environment() is cel.environment()
    assert cel.module().__name__ == "celpy"
