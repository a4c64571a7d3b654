"""The CEL cost estimate: comprehensions are charged by the data they walk, against Kubernetes' per-call limit."""

from __future__ import annotations

from typing import Any

import pytest

from crossfn.gocompat import celcost

ITEMS = list(range(1000))

CASES = [
    pytest.param("self.all(x, self.all(y, x != y))", {"self": ITEMS}, True, "quadratic over 1,000: ~4M", id="Quadratic"),
    pytest.param("self.all(x, x > -1)", {"self": ITEMS}, False, "linear over 1,000", id="Linear"),
    pytest.param("self.all(x, self.exists(y, y == x))", {"self": ITEMS[:300]}, False,
                 "quadratic over 300 stays under a million", id="SmallQuadratic"),
    pytest.param("self.items.all(i, i.tags.all(t, t != ''))", {"self": {"items": [{"tags": ["a"] * 3}] * 1000}},
                 False, "a nested range is charged by each element's own size", id="NestedPerElement"),
    pytest.param("self.items.all(i, i.tags.all(t, t != ''))",
                 {"self": {"items": [{"tags": ["a"] * 3}] * 999 + [{"tags": ["a"] * 300_000}]}},
                 True, "one huge element is enough", id="OneHugeElement"),
    pytest.param("self.map(x, self.map(y, y)).all(z, z.all(w, true))", {"self": ITEMS}, True,
                 "a range built by map is as large as what it maps", id="ThroughMap"),
    pytest.param("v.all(x, true)", {"v": 1}, False, "a range that is not a list costs nothing more", id="NotAList"),
    pytest.param("self.all(x, ", {"self": ITEMS}, False, "an expression that does not parse is left to the evaluator",
                 id="Unparsable"),
    pytest.param("(a + b).all(x, b.all(y, true))", {"a": ITEMS, "b": ITEMS}, True,
                 "an unknown range reaches as far as the largest list in the data", id="Largest"),
]  # fmt: skip


@pytest.mark.parametrize(("expression", "variables", "want", "reason"), CASES)
def test_exceeds(expression: str, variables: dict[str, Any], want: bool, reason: str) -> None:
    assert celcost.exceeds(expression, variables) is want, reason


def test_limit_is_kubernetes_per_call_limit() -> None:
    assert celcost.exceeds("self.all(x, true)", {"self": ITEMS}, limit=1000) is True
    assert celcost.PER_CALL_LIMIT == 1_000_000
