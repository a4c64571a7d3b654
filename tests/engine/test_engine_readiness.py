"""XR readiness: StableNAndSomeMore and the Ready matrix (upstream core-2.15, core-3.6)."""

import datetime

import pytest

from crossfn.engine import _readiness
from crossfn.proto.v1 import run_function_pb2 as fnv1

NOW = datetime.datetime(2024, 1, 1, tzinfo=datetime.UTC)


@pytest.mark.parametrize(
    ("names", "want", "reason"),
    [
        pytest.param([], "", "No names give an empty list.", id="None"),
        pytest.param(["a"], "a", "One name is printed alone.", id="One"),
        pytest.param(["b", "a"], "a, b", "Two names are sorted and comma separated.", id="Two"),
        pytest.param(["c", "a", "b"], "a, b, and c", "Exactly three use an Oxford and.", id="Three"),
        pytest.param(["d", "c", "b", "a"], "a, b, c, and 1 more", "More than three are counted.", id="Four"),
        pytest.param(list("gfedcba"), "a, b, c, and 4 more", "The count covers the rest.", id="Seven"),
    ],
)
def test_stable_n_and_some_more(names: list[str], want: str, reason: str) -> None:
    assert _readiness.stable_n_and_some_more(3, names) == want, reason


@pytest.mark.parametrize(
    ("override", "unready", "want", "reason"),
    [
        pytest.param(
            fnv1.READY_FALSE,
            ["a"],
            ("False", "Creating", ""),
            "READY_FALSE wins, with no message.",
            id="CompositeReadyFalseWithUnreadyResources",
        ),
        pytest.param(
            fnv1.READY_TRUE,
            ["a"],
            ("True", "Available", ""),
            "READY_TRUE wins over unready resources.",
            id="CompositeReadyTrueWithUnreadyResources",
        ),
        pytest.param(
            fnv1.READY_FALSE,
            [],
            ("False", "Creating", ""),
            "READY_FALSE with everything ready.",
            id="CompositeReadyFalse",
        ),
        pytest.param(
            fnv1.READY_UNSPECIFIED,
            ["b", "a"],
            ("False", "Creating", "Unready resources: a, b"),
            "Unspecified derives Creating and lists unready resources.",
            id="CompositeReadyUnspecifiedWithUnreadyResources",
        ),
        pytest.param(
            fnv1.READY_UNSPECIFIED,
            [],
            ("True", "Available", ""),
            "Unspecified and all ready is Available.",
            id="CompositeReadyUnspecifiedNoUnreadyResources",
        ),
    ],
)
def test_ready_matrix(
    override: fnv1.Ready.ValueType, unready: list[str], want: tuple[str, str, str], reason: str
) -> None:
    c = _readiness.ready_condition(override, unready, NOW)
    assert (c.status, c.reason, c.message) == want, reason
    assert c.to_dict()["lastTransitionTime"] == "2024-01-01T00:00:00Z", (
        "the injected clock stamps the condition"
    )
