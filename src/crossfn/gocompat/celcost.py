"""cel-go's runtime cost limit, as Kubernetes applies it to CEL expressions.

Kubernetes evaluates each ``x-kubernetes-validations`` rule with cel-go's cost
tracking on and a per-call limit (:data:`PER_CALL_LIMIT`, "roughly 0.1 second"
in cel-go). Past it, evaluation stops with :data:`LIMIT_EXCEEDED`. crossfn's
CEL interpreter (cel-python, :mod:`.cel`) does not track cost, and it is far
slower than cel-go: a quadratic rule over 1,000 items took 108 s. So the cost is *estimated before* evaluating,
from the expression and the actual data, and an expression over the limit is
not evaluated at all.

The estimate follows cel-go's model where it matters: each variable, field
selection, index, function call and operator costs 1, literals cost
nothing, and a comprehension (``all``, ``exists``, ``exists_one``, ``map``,
``filter``) costs its range plus, for each element, its body and one step.
The ranges' sizes come from the data, so a rule is charged for the lists it
really walks. Both branches of ``&&``, ``||`` and ``?:`` are counted (cel-go
may skip one), so the estimate errs high, never low, on those. Size-dependent
costs of string and list functions are not modelled: only comprehensions grow
an expression's cost beyond its length, and they are what runs away.

An expression with no comprehension is not parsed at all (most rules: it
spares validate loading the parser). A body whose ranges do not depend on the loop variable costs the same for
every element and is estimated once; otherwise elements are walked until the
limit is passed, so estimating costs at most as many steps as the limit.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

from crossfn.gocompat import cel

__all__ = ["LIMIT_EXCEEDED", "PER_CALL_LIMIT", "exceeds"]

PER_CALL_LIMIT = 1_000_000
"""k8s.io/apiserver/pkg/apis/cel ``PerCallLimit``: the most one expression evaluation may cost."""

LIMIT_EXCEEDED = "operation cancelled: actual cost limit exceeded"
"""cel-go's error when an evaluation passes its cost limit."""

_COMPREHENSION = re.compile(r"\.\s*(?:all|exists|exists_one|map|filter)\s*\(")
_MACROS = frozenset({"all", "exists", "exists_one", "map", "filter"})
_CHAINS = frozenset(
    {"expr", "conditionalor", "conditionaland", "relation", "addition", "multiplication", "unary",
     "member", "primary", "paren_expr"}
)  # fmt: skip
_FREE = frozenset({"literal", "exprlist", "fieldinits", "mapinits"})
_UNKNOWN = object()


class _Exceeded(Exception):  # noqa: N818 -- control flow, never seen outside this module
    pass


def exceeds(expression: str, variables: Mapping[str, Any], limit: int = PER_CALL_LIMIT) -> bool:
    """Whether evaluating ``expression`` with ``variables`` would cost more than ``limit``.

    An expression this parser cannot read is not judged (False): the
    evaluator reports it.
    """
    if not _COMPREHENSION.search(expression):
        return False  # without a comprehension the cost is about the expression's length
    tree = _parse(expression)
    if tree is None:
        return False
    try:
        _Estimate(variables, limit).cost(tree, dict(variables))
    except _Exceeded:
        return True
    except RecursionError:
        return False
    return False


@functools.lru_cache(maxsize=1024)
def _parse(expression: str) -> Any:
    env = cel.environment()
    try:
        return env.compile(expression)
    except Exception:  # any parse failure: the evaluator reports it
        return None


def _name(node: Any) -> str:
    return str(getattr(node, "data", ""))


def _trees(node: Any) -> list[Any]:
    return [c for c in getattr(node, "children", ()) if hasattr(c, "data")]


def _unwrap(node: Any) -> Any:
    """Skip the grammar's one-child chains (``expr`` > ``conditionalor`` > ... > ``primary``)."""
    while _name(node) in _CHAINS and len(node.children) == 1 and hasattr(node.children[0], "data"):
        node = node.children[0]
    return node


def _comprehension(node: Any) -> tuple[Any, str, list[Any]] | None:
    """``(range, variable, [body...])`` when ``node`` is a comprehension macro call."""
    if _name(node) != "member_dot_arg" or len(node.children) < 3 or str(node.children[1]) not in _MACROS:
        return None
    args = _trees(node.children[2])
    if len(args) < 2:
        return None
    var = _unwrap(args[0])
    if _name(var) != "ident":
        return None
    return node.children[0], str(var.children[0]), args[1:]


def _range_mentions(node: Any, var: str) -> bool:
    """Whether ``var`` occurs in the range of a comprehension inside ``node``."""
    found = _comprehension(node)
    if found is not None and _mentions(found[0], var):
        return True
    return any(_range_mentions(c, var) for c in _trees(node))


def _mentions(node: Any, var: str) -> bool:
    if _name(node) == "ident" and str(node.children[0]) == var:
        return True
    return any(_mentions(c, var) for c in _trees(node))


class _Estimate:
    def __init__(self, variables: Mapping[str, Any], limit: int) -> None:
        self._limit = limit
        self._variables = variables
        self._largest: int | None = None
        self._dependent: dict[tuple[int, str], bool] = {}

    def cost(self, node: Any, env: dict[str, Any]) -> int:
        node = _unwrap(node)
        found = _comprehension(node)
        if found is not None:
            return self._comprehension(found, env)
        name, children = _name(node), _trees(node)
        own = 0 if name in _FREE or (name in _CHAINS and len(children) < 2) else 1
        total = own + sum(self.cost(c, env) for c in children)
        if total > self._limit:
            raise _Exceeded
        return total

    def _comprehension(self, found: tuple[Any, str, list[Any]], env: dict[str, Any]) -> int:
        target, var, body = found
        total = 1 + self.cost(target, env)
        elements = self._elements(self._value(target, env))
        if not elements:
            return total
        key = (id(target), var)
        if key not in self._dependent:
            self._dependent[key] = any(_range_mentions(b, var) for b in body)
        if not self._dependent[key]:
            step = 1 + sum(self.cost(b, {**env, var: elements[0]}) for b in body)
            total += step * len(elements)
        else:
            for element in elements:
                total += 1 + sum(self.cost(b, {**env, var: element}) for b in body)
                if total > self._limit:
                    raise _Exceeded
        if total > self._limit:
            raise _Exceeded
        return total

    def _elements(self, value: Any) -> list[Any]:
        if isinstance(value, list):
            return value
        if isinstance(value, Mapping):
            return list(value)
        if value is _UNKNOWN:
            return [_UNKNOWN] * self._largest_collection()
        return []

    def _value(self, node: Any, env: dict[str, Any]) -> Any:
        """The value ``node`` stands for when it is a path into the data or a list literal, else unknown."""
        node = _unwrap(node)
        name = _name(node)
        if name == "ident":
            return env.get(str(node.children[0]), _UNKNOWN)
        if name == "member_dot":
            base = self._value(node.children[0], env)
            return base.get(str(node.children[1]), _UNKNOWN) if isinstance(base, Mapping) else _UNKNOWN
        if name == "member_index":
            return self._index(node, env)
        if name == "list_lit":
            return [_UNKNOWN] * sum(len(_trees(c)) for c in _trees(node))
        found = _comprehension(node)
        if found is not None and str(node.children[1]) in ("map", "filter"):
            # map and filter give at most one element per element of their range.
            return [_UNKNOWN] * len(self._elements(self._value(found[0], env)))
        return _UNKNOWN

    def _index(self, node: Any, env: dict[str, Any]) -> Any:
        base = self._value(node.children[0], env)
        key = _unwrap(node.children[1])
        if _name(key) != "literal":
            return _UNKNOWN
        text = str(key.children[0])
        if isinstance(base, list) and text.isdigit() and int(text) < len(base):
            return base[int(text)]
        if isinstance(base, Mapping) and len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
            return base.get(text[1:-1], _UNKNOWN)
        return _UNKNOWN

    def _largest_collection(self) -> int:
        """The size of the largest list or map in the data: how far an unknown range can reach."""
        if self._largest is None:
            largest, stack = 0, list(self._variables.values())
            while stack:
                v = stack.pop()
                if isinstance(v, Mapping):
                    largest = max(largest, len(v))
                    stack.extend(v.values())
                elif isinstance(v, list):
                    largest = max(largest, len(v))
                    stack.extend(v)
            self._largest = largest
        return self._largest
