"""The controller benchmark's ``crossfn controller run`` binds only ports it chose, so two runs on one
machine never clash: the metrics and health probes on free ports, and no usage webhook on :9443."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import pytest

from crossfn.cli import build_parser
from crossfn.cli import controller as cli


@pytest.mark.parametrize(
    ("reason", "leader_election"),
    [
        pytest.param("the plain run", False, id="Plain"),
        pytest.param("the run behind leader election (--leader-election)", True, id="LeaderElection"),
    ],
)
def test_benchmark_controller_binds_only_its_own_ports(
    reason: str, leader_election: bool, load_benchmark: Callable[[str], ModuleType]
) -> None:
    support = load_benchmark("_controller_support")
    argv = support.controller_argv(
        "/kubeconfig", workers=7, metrics=40001, health=40002, leader_election=leader_election
    )
    args = build_parser().parse_args(argv)
    settings = cli.settings_from(args)
    observability = settings.observability
    assert (observability.metrics_address, observability.health_address) == (
        "127.0.0.1:40001",
        "127.0.0.1:40002",
    )
    assert not settings.webhooks.enabled, reason
    assert settings.leader_election.enabled is leader_election, reason
