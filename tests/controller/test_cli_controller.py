"""``crossfn controller``: flags and environment onto Settings; bad flags are one line, exit 2."""

from __future__ import annotations

import argparse
import pathlib
import random
import subprocess
import sys

import pytest

from crossfn.cli import build_parser
from crossfn.cli import controller as cli
from crossfn.controller import _settings
from crossfn.controller.composite import _polling


def parse(argv: list[str]) -> argparse.Namespace:
    return build_parser().parse_args(["controller", "run", *argv])


def test_defaults_are_crossplanes(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "POD_NAMESPACE",
        "TLS_CLIENT_SECRET_NAME",
        "TLS_CLIENT_CERTS_DIR",
        "METRICS_PORT",
        "HEALTH_PROBE_PORT",
        "PACKAGE_RUNTIME",
        "POD_SERVICE_ACCOUNT",
        "LEADER_ELECTION",
        "MANAGE_RBAC",
        "XFN_CACHE_DIR",
        "XFN_CACHE_MAX_TTL",
        "ADOPT_EXISTING_RESOURCES",
    ):
        monkeypatch.delenv(name, raising=False)
    assert cli.settings_from(parse([])) == _settings.Settings(), (
        "no flag means the documented defaults (poll 1m, min poll 1s, realtime on, 100 reconciles, mTLS)"
    )


FLAGS = [
    pytest.param(
        ["--poll-interval", "30s", "--min-poll-interval", "500ms"],
        lambda s: (s.reconcile.poll_interval, s.reconcile.min_poll_interval) == (30.0, 0.5),
        "Go durations",
        id="Durations",
    ),
    pytest.param(
        ["--no-enable-realtime-compositions"],
        lambda s: s.reconcile.realtime is False,
        "realtime off",
        id="NoRealtime",
    ),
    pytest.param(
        ["--adopt-existing-resources"],
        lambda s: s.reconcile.adopt_existing is True,
        "Crossplane's adoption of existing objects no one controls, crossfn's opt-in",
        id="AdoptExisting",
    ),
    pytest.param(
        ["--max-concurrent-function-calls", "3"],
        lambda s: s.functions.max_concurrent_calls == 3,
        "calls in flight per Function",
        id="FunctionCalls",
    ),
    pytest.param(
        ["--max-reconcile-rate", "7"],
        lambda s: s.reconcile.max_concurrent_reconciles == 7,
        "Crossplane's alias of --max-concurrent-reconciles",
        id="ReconcileRate",
    ),
    pytest.param(
        ["--insecure-functions", "--function-timeout", "5s"],
        lambda s: s.functions.insecure and s.functions.timeout == 5.0,
        "functions without TLS, shorter calls",
        id="Functions",
    ),
    pytest.param(
        ["--kubeconfig", "/k", "--context", "c", "--skip-crds"],
        lambda s: (s.cluster.kubeconfig, s.cluster.context, s.cluster.skip_crds) == ("/k", "c", True),
        "cluster access",
        id="Cluster",
    ),
    pytest.param(
        ["--metrics-address", "", "--health-address", "127.0.0.1:9000", "--log-format", "text", "-d"],
        lambda s: (
            (s.observability.metrics_address, s.observability.health_address, s.observability.log_format)
            == ("", "127.0.0.1:9000", "text")
            and s.observability.debug
        ),
        "an empty address serves nothing",
        id="Observability",
    ),
    pytest.param(
        ["--package-runtime", "External", "--service-account", "sa", "--manage-rbac"],
        lambda s: (
            (s.packages.runtime, s.packages.service_account, s.cluster.manage_rbac)
            == ("External", "sa", True)
        ),
        "packages left to Crossplane's package manager; per-XRD ClusterRoles",
        id="Packages",
    ),
    pytest.param(
        ["--package-runtime", "Provider=External;Function=External"],
        lambda s: s.packages.runtime == "External",
        "Crossplane's per-kind form: the Function entry counts",
        id="PackageRuntimePerKind",
    ),
    pytest.param(
        [
            "-l",
            "--leader-election-lease-duration",
            "4s",
            "--leader-election-renew-deadline",
            "3s",
            "--leader-election-retry-period",
            "500ms",
        ],
        lambda s: s.leader_election == _settings.LeaderElectionSettings(True, 4.0, 3.0, 0.5),
        "leader election with short timings",
        id="LeaderElection",
    ),
    pytest.param(
        [
            "--circuit-breaker-burst",
            "10",
            "--circuit-breaker-refill-rate",
            "0.5",
            "--circuit-breaker-cooldown",
            "1m",
        ],
        lambda s: (
            (s.reconcile.circuit_breaker_burst, s.reconcile.circuit_breaker_refill_rate) == (10.0, 0.5)
            and s.reconcile.circuit_breaker_cooldown == 60.0
        ),
        "Crossplane's circuit breaker flags",
        id="CircuitBreaker",
    ),
    pytest.param(
        ["--enable-function-response-cache", "--xfn-cache-dir", "/tmp/xfn", "--xfn-cache-max-ttl", "1h"],
        lambda s: (
            (s.functions.response_cache, s.functions.cache_dir, s.functions.cache_max_ttl)
            == (True, "/tmp/xfn", 3600.0)
        ),
        "Crossplane's function response cache flags",
        id="ResponseCache",
    ),
]


def test_filesystem_root(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Built-ins read no files by default; the flag (or FUNCTION_FILESYSTEM_ROOT) names one directory, resolved."""
    assert cli.settings_from(parse([])).functions.filesystem_root is None
    (tmp_path / "templates").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "templates")
    got = cli.settings_from(parse(["--function-filesystem-root", str(tmp_path / "link")]))
    assert got.functions.filesystem_root == str(tmp_path / "templates")
    monkeypatch.setenv("FUNCTION_FILESYSTEM_ROOT", str(tmp_path / "templates"))
    assert cli.settings_from(parse([])).functions.filesystem_root == str(tmp_path / "templates")


@pytest.mark.parametrize(("argv", "check", "reason"), FLAGS)
def test_flags(argv: list[str], check: object, reason: str) -> None:
    assert callable(check)
    assert check(cli.settings_from(parse(argv))), reason


def test_environment_as_crossplanes_chart(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POD_NAMESPACE", "xp")
    monkeypatch.setenv("TLS_CLIENT_SECRET_NAME", "client")
    monkeypatch.setenv("TLS_CLIENT_CERTS_DIR", "/tls/client")
    monkeypatch.setenv("METRICS_PORT", "9090")
    monkeypatch.setenv("HEALTH_PROBE_PORT", "9091")
    monkeypatch.setenv("PACKAGE_RUNTIME", "External")
    monkeypatch.setenv("POD_SERVICE_ACCOUNT", "crossfn")
    monkeypatch.setenv("LEADER_ELECTION", "true")
    s = cli.settings_from(parse([]))
    assert (s.packages.runtime, s.packages.service_account, s.leader_election.enabled) == (
        "External",
        "crossfn",
        True,
    )
    assert (s.functions.namespace, s.functions.tls_client_secret_name, s.functions.tls_client_certs_dir) == (
        "xp",
        "client",
        "/tls/client",
    ), "the variables Crossplane's Helm chart sets"
    assert (s.observability.metrics_address, s.observability.health_address) == (":9090", ":9091")


BAD = [
    pytest.param(
        ["--poll-interval", "1d"],
        'time: unknown unit "d" in duration "1d"',
        "not a Go unit",
        id="BadDuration",
    ),
    pytest.param(["--poll-interval=-1s"], "want a positive duration", "negative", id="NegativeDuration"),
    pytest.param(
        ["--function-timeout", "0s"],
        "want more than 0s",
        "a call with no time always fails",
        id="ZeroTimeout",
    ),
    pytest.param(["--max-reconcile-rate", "0"], "want at least 1", "no workers", id="ZeroWorkers"),
    pytest.param(
        ["--function-filesystem-root", "/nonexistent/templates"],
        "argument --function-filesystem-root: want a directory, got '/nonexistent/templates'",
        "a root that is not there is a mistake, found at start",
        id="FilesystemRootMissing",
    ),
    pytest.param(
        ["--function-filesystem-root", "/"],
        "want a directory other than /, which would let built-ins read every file",
        "the whole file system is no confinement",
        id="FilesystemRootSlash",
    ),
    pytest.param(
        ["--circuit-breaker-burst", "0"], "want more than 0", "a bucket that never fills", id="ZeroBurst"
    ),
    pytest.param(["--health-address", "localhost"], "want HOST:PORT or :PORT", "no port", id="BadAddress"),
    pytest.param(["--log-format", "xml"], "invalid choice: 'xml'", "unknown format", id="BadLogFormat"),
    pytest.param(["--nope"], "unrecognized arguments: --nope", "unknown flag", id="UnknownFlag"),
    pytest.param(
        ["--package-runtime", "Helm"], "want Deployment or External", "unknown runtime", id="BadRuntime"
    ),
    pytest.param(
        ["--package-runtime", "Function=Pod"],
        "want Kind=Deployment|External",
        "unknown per-kind runtime",
        id="BadPerKindRuntime",
    ),
    pytest.param(
        ["-l", "--leader-election-lease-duration", "1s"],
        "want --leader-election-lease-duration >",
        "a lease shorter than the renew deadline",
        id="BadLeaseTimings",
    ),
]


@pytest.mark.parametrize(("argv", "message", "reason"), BAD)
def test_bad_flags_are_one_line_and_exit_2(argv: list[str], message: str, reason: str) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "crossfn", "controller", "run", *argv],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2, reason
    assert out.stdout == ""
    lines = out.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("crossfn controller run: error: "), out.stderr
    assert message in lines[0], reason


def test_building_the_command_line_does_not_load_the_kubernetes_client() -> None:
    code = "import sys; from crossfn.cli import build_parser; build_parser(); print(sorted({'lightkube', 'httpx2'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "[]", (
        "the client is imported inside the handlers only: `crossfn --help` stays fast"
    )


ENV_BOOLS = [
    pytest.param("true", [], True, "Go's strconv.ParseBool words", id="True"),
    pytest.param("T", [], True, "a single letter, any case ParseBool takes", id="T"),
    pytest.param("1", [], True, "a digit", id="One"),
    pytest.param("False", [], False, "title case", id="False"),
    pytest.param("0", [], False, "zero", id="Zero"),
    pytest.param("", [], False, "empty is unset: the default", id="Empty"),
    pytest.param("false", ["--insecure-functions"], True, "the flag wins over the variable", id="FlagWins"),
    pytest.param(
        "maybe", ["--insecure-functions"], True, "a given flag never reads the variable", id="NotRead"
    ),
]


@pytest.mark.parametrize(("value", "argv", "want", "reason"), ENV_BOOLS)
def test_boolean_environment_variables(
    monkeypatch: pytest.MonkeyPatch, value: str, argv: list[str], want: bool, reason: str
) -> None:
    monkeypatch.setenv("INSECURE_FUNCTIONS", value)
    assert cli.settings_from(parse(argv)).functions.insecure is want, reason


BAD_ENV_BOOLS = [
    pytest.param("INSECURE_FUNCTIONS", "maybe", "not a boolean at all", id="Maybe"),
    pytest.param("LEADER_ELECTION", "yes", "Python's words are not Go's", id="Yes"),
    pytest.param("MANAGE_RBAC", "on", "nor are systemd's", id="On"),
]


@pytest.mark.parametrize(("name", "value", "reason"), BAD_ENV_BOOLS)
def test_a_bad_boolean_environment_variable_is_one_line_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], name: str, value: str, reason: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(SystemExit) as exited:
        parse([])
    assert exited.value.code == 2, reason
    assert capsys.readouterr().err == (
        f"crossfn controller run: error: {name}: want true or false (as Go's strconv.ParseBool), got {value!r}\n"
    ), reason


def test_a_zero_poll_interval_never_polls() -> None:
    s = cli.settings_from(parse(["--poll-interval", "0s", "--no-enable-realtime-compositions"]))
    assert s.reconcile.poll_interval == 0.0, "Crossplane's kong duration takes 0"
    settings = _polling.CompositeSettings(poll_interval=s.reconcile.poll_interval, realtime=False)
    requeue = _polling.requeue_after(settings, {}, ttl=0.0, waiting=False, rng=random.Random(1))
    assert requeue == _polling.Requeue(), "RequeueAfter 0 is no requeue: a settled XR is not polled"
