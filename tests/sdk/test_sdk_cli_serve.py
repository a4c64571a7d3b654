"""Tests for ``crossfn function serve`` flag and environment mapping (no server started)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

import pytest

_PRINT_SETTINGS = """
import dataclasses, json, sys
from crossfn import cli
from crossfn.cli import function
args = cli.build_parser().parse_args(sys.argv[1:])
print(json.dumps(dataclasses.asdict(function.settings_from(args))))
"""

_ENV_NAMES = (
    "ADDRESS",
    "TLS_SERVER_CERTS_DIR",
    "INSECURE",
    "DEBUG",
    "MAX_RECV_MESSAGE_SIZE",
    "MAX_GRPC_MESSAGE_SIZE",
    "MAX_SEND_MESSAGE_SIZE",
    "WORKERS",
    "METRICS_ADDRESS",
    "SHUTDOWN_GRACE_PERIOD",
    "CALL_TIMEOUT",
    "MAX_CALLS",
)


def _settings(argv: list[str], env: dict[str, str]) -> dict[str, dict[str, object]]:
    clean = {k: v for k, v in os.environ.items() if k not in _ENV_NAMES}
    out = subprocess.run(
        [sys.executable, "-c", _PRINT_SETTINGS, "function", "serve", "m:f", *argv],
        env={**clean, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    parsed: dict[str, dict[str, object]] = json.loads(out.stdout)
    return parsed


BOUNDS = {"handshake_timeout_seconds": 10.0, "max_connections": 512}
"""The server's bounds on handshakes and connections (no flags: settings only)."""

_DEFAULTS = {
    "listen": {"address": "0.0.0.0:9443", "tls_certs_dir": None, "insecure": False},
    "grpc": {"max_recv_message_size_mb": 4, "max_send_message_size_mb": None, **BOUNDS, "extra_options": []},
    "process": {"workers": 1, "threads": 4, "grace_period_seconds": 5.0},
    "calls": {"timeout_seconds": 120.0, "max_calls": 64},
    "observability": {"debug": False, "metrics_address": None},
}


@pytest.mark.parametrize(
    ("reason", "argv", "env", "changes"),
    [
        pytest.param("No flags, no environment: the official SDK's defaults.", [], {}, {}, id="Defaults"),
        pytest.param(
            "Every standard flag, by its official spelling.",
            [
                "--address",
                ":1",
                "--tls-certs-dir",
                "/tls",
                "--insecure",
                "-d",
                "--max-recv-message-size",
                "8",
                "--max-send-message-size",
                "16",
                "--workers",
                "3",
                "--threads",
                "8",
                "--metrics-address",
                ":8080",
                "--grace-period",
                "2.5",
                "--call-timeout",
                "30",
                "--max-calls",
                "10",
            ],
            {},
            {
                "listen": {"address": ":1", "tls_certs_dir": "/tls", "insecure": True},
                "grpc": {
                    "max_recv_message_size_mb": 8,
                    "max_send_message_size_mb": 16,
                    **BOUNDS,
                    "extra_options": [],
                },
                "process": {"workers": 3, "threads": 8, "grace_period_seconds": 2.5},
                "calls": {"timeout_seconds": 30.0, "max_calls": 10},
                "observability": {"debug": True, "metrics_address": ":8080"},
            },
            id="Flags",
        ),
        pytest.param(
            "The official SDK's environment variables, and the alternative flag spellings.",
            ["--tls-server-certs-dir", "/flag", "--max-grpc-message-size", "5"],
            {
                "ADDRESS": "127.0.0.1:2",
                "TLS_SERVER_CERTS_DIR": "/env",
                "INSECURE": "true",
                "DEBUG": "1",
                "MAX_SEND_MESSAGE_SIZE": "7",
                "WORKERS": "2",
                "THREADS": "3",
                "METRICS_ADDRESS": ":9",
                "SHUTDOWN_GRACE_PERIOD": "1",
                "CALL_TIMEOUT": "9.5",
                "MAX_CALLS": "4",
            },
            {
                "listen": {"address": "127.0.0.1:2", "tls_certs_dir": "/flag", "insecure": True},
                "grpc": {
                    "max_recv_message_size_mb": 5,
                    "max_send_message_size_mb": 7,
                    **BOUNDS,
                    "extra_options": [],
                },
                "process": {"workers": 2, "threads": 3, "grace_period_seconds": 1.0},
                "calls": {"timeout_seconds": 9.5, "max_calls": 4},
                "observability": {"debug": True, "metrics_address": ":9"},
            },
            id="Environment",
        ),
        pytest.param(
            "MAX_GRPC_MESSAGE_SIZE is the older name of the receive limit; false-ish INSECURE is off.",
            [],
            {"MAX_GRPC_MESSAGE_SIZE": "6", "INSECURE": "false"},
            {
                "grpc": {
                    "max_recv_message_size_mb": 6,
                    "max_send_message_size_mb": None,
                    **BOUNDS,
                    "extra_options": [],
                }
            },
            id="LegacyEnvironment",
        ),
    ],
)
def test_flags_and_environment(
    reason: str, argv: list[str], env: dict[str, str], changes: dict[str, object]
) -> None:
    assert _settings(argv, env) == {**_DEFAULTS, **changes}, reason


@pytest.mark.parametrize(
    ("reason", "argv", "message"),
    [
        pytest.param("Zero workers makes no sense.", ["--workers", "0"], "want at least 1", id="ZeroWorkers"),
        pytest.param(
            "Zero threads would serve nothing.", ["--threads", "0"], "want at least 1", id="ZeroThreads"
        ),
        pytest.param(
            "Sizes are whole MB.", ["--max-recv-message-size", "x"], "want a whole number", id="BadSize"
        ),
        pytest.param(
            "A negative grace period.",
            ["--grace-period", "-1"],
            "want a finite number of seconds, zero or more, got '-1'",
            id="NegativeGrace",
        ),
        pytest.param(
            "An infinite grace period was taken, and SIGTERM then never ended the server.",
            ["--grace-period", "inf"],
            "argument --grace-period: want a finite number of seconds, zero or more, got 'inf'",
            id="InfiniteGrace",
        ),
        pytest.param(
            "NaN compares false with everything, so it passed the negative check.",
            ["--grace-period", "nan"],
            "argument --grace-period: want a finite number of seconds, zero or more, got 'nan'",
            id="NaNGrace",
        ),
        pytest.param(
            "3000 MB overflows gRPC's C int of bytes: the server started, then crashed.",
            ["--max-recv-message-size", "3000"],
            "argument --max-recv-message-size/--max-grpc-message-size: want at most 2047 (MB), got 3000",
            id="HugeReceiveSize",
        ),
        pytest.param(
            "The send limit has the same bound.",
            ["--max-send-message-size", "4096"],
            "argument --max-send-message-size: want at most 2047 (MB), got 4096",
            id="HugeSendSize",
        ),
        pytest.param(
            "Port 99999 was silently served on another port.",
            ["--address", "127.0.0.1:99999"],
            "argument --address: want HOST:PORT with a port from 0 to 65535, got '127.0.0.1:99999'",
            id="PortTooLarge",
        ),
        pytest.param(
            "An address without a port.",
            ["--address", "localhost"],
            "argument --address: want HOST:PORT with a port from 0 to 65535, got 'localhost'",
            id="NoPort",
        ),
        pytest.param(
            "An unclosed IPv6 bracket passed the check, then gRPC logged its own error line before crossfn's.",
            ["--address", "[::1"],
            "argument --address: want HOST:PORT with a port from 0 to 65535, got '[::1'",
            id="UnclosedBracket",
        ),
        pytest.param(
            "An IPv6 host without brackets: gRPC cannot tell the host from the port.",
            ["--address", "::1:9443"],
            "argument --address: want HOST:PORT with a port from 0 to 65535, got '::1:9443'",
            id="UnbracketedIPv6",
        ),
        pytest.param(
            "A call timeout must leave a call some time.",
            ["--call-timeout", "0"],
            "argument --call-timeout: want more than zero seconds, got '0'",
            id="ZeroCallTimeout",
        ),
        pytest.param(
            "An infinite call timeout is no bound.",
            ["--call-timeout", "inf"],
            "argument --call-timeout: want a finite number of seconds, zero or more, got 'inf'",
            id="InfiniteCallTimeout",
        ),
        pytest.param(
            "At least one call must be let in.", ["--max-calls", "0"], "want at least 1", id="ZeroMaxCalls"
        ),
    ],
)
def test_bad_flags(reason: str, argv: list[str], message: str) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "crossfn", "function", "serve", "m:f", *argv],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,  # a flag let through would start a server
    )
    assert out.returncode == 2, reason
    # As every command's usage errors: argparse's usage, then one error line naming the flag.
    *usage, last = out.stderr.splitlines()
    assert usage[0].startswith("usage: crossfn function serve "), out.stderr
    assert last.startswith(f"crossfn function serve: error: argument {argv[0]}"), out.stderr
    assert message in last and out.stdout == "", reason


def test_bad_function_spec_is_one_line() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "crossfn", "function", "serve", "no_such_module_abc:f", "--insecure"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 1
    assert out.stderr.strip().splitlines() == [
        'crossfn: error: cannot load function "no_such_module_abc:f": cannot import no_such_module_abc: '
        "No module named 'no_such_module_abc'"
    ]


def test_bad_metrics_address_is_one_line() -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "crossfn",
            "function",
            "serve",
            "crossfn.sdk.resource:child_name",
            "--insecure",
            "--address",
            "127.0.0.1:0",
            "--metrics-address",
            "nonsense",
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert out.returncode == 1
    assert (
        out.stderr.strip().splitlines()[-1]
        == "crossfn: error: cannot serve metrics on nonsense: want host:port, got 'nonsense'"
    )


@pytest.mark.parametrize(
    ("workers", "reason"),
    [
        pytest.param("1", "one server: the OS's reason, not gRPC's 'set GRPC_VERBOSITY'", id="one-worker"),
        pytest.param(
            "2", "several workers: one line from the supervisor, no worker tracebacks", id="workers"
        ),
    ],
)
def test_a_busy_port_is_one_line_naming_the_cause(workers: str, reason: str) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        address = f"127.0.0.1:{busy.getsockname()[1]}"
        out = subprocess.run(
            [sys.executable, "-m", "crossfn", "function", "serve", "patch-and-transform", "--insecure",
             "--address", address, "--workers", workers],
            capture_output=True, text=True, check=False, timeout=60,
        )  # fmt: skip
    assert (out.returncode, out.stderr, out.stdout) == (
        1,
        f"crossfn: error: cannot listen on {address}: address already in use\n",
        "",
    ), reason
