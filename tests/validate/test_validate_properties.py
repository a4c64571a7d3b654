"""Properties: validation never crashes on any decoded JSON, and defaulting is idempotent."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from crossfn import validate
from crossfn.schemas import defaults, store

DATA = Path(__file__).parents[1] / "data" / "schemas"

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**40), 2**40)
    | st.floats(allow_nan=False)
    | st.text(max_size=8)
)
_JSON = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
_KEYS = st.sampled_from(
    ["region", "cidrBlock", "subnets", "tags", "minSubnets", "crossplane", "zone", "size", "x"]
)
_SPEC = st.dictionaries(
    _KEYS, _JSON | st.lists(st.dictionaries(_KEYS, _JSON, max_size=3), max_size=3), max_size=6
)


def _network_schema() -> dict[str, Any]:
    s = store.SchemaStore(builtins=False)
    s.add(yaml.safe_load((DATA / "xrd" / "v2-xnetwork.yaml").read_text()))
    schema = s.validation_schema("platform.example.org/v1", "Network")
    assert schema is not None
    return dict(schema)


_SCHEMA = _network_schema()


@settings(max_examples=200, deadline=None)
@given(spec=_SPEC)
def test_validate_never_raises(spec: dict[str, Any]) -> None:
    obj = {
        "apiVersion": "platform.example.org/v1",
        "kind": "Network",
        "metadata": {"name": "n"},
        "spec": spec,
    }
    before = copy.deepcopy(obj)
    problems = validate.validate_object(obj, _SCHEMA)
    assert all(isinstance(p.message, str) and p.message for p in problems)
    assert obj == before, "validation does not change its input"


@settings(max_examples=200, deadline=None)
@given(spec=_SPEC)
def test_defaulting_is_idempotent(spec: dict[str, Any]) -> None:
    once = {"spec": copy.deepcopy(spec)}
    defaults.apply_defaults(once, _SCHEMA)
    twice = copy.deepcopy(once)
    defaults.apply_defaults(twice, _SCHEMA)
    assert twice == once
