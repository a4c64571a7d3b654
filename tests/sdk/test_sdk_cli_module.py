"""crossfn.sdk.cli: the official SDK's standard flags (click and argparse) and ``run``.

Each case's flags and environment are parsed by crossfn's click decorator, by
its argparse parser, and (in a process of its own) by the official SDK's
``standard_options``; all three must give the keyword arguments of ``run``.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import click
import pytest
from click.testing import CliRunner

from crossfn.sdk import cli as sdkcli
from crossfn.sdk import logging as fnlogging
from crossfn.sdk import runtime

_ENV = (
    "DEBUG",
    "ADDRESS",
    "TLS_SERVER_CERTS_DIR",
    "INSECURE",
    "MAX_RECV_MESSAGE_SIZE",
    "MAX_GRPC_MESSAGE_SIZE",
    "MAX_SEND_MESSAGE_SIZE",
)

_DEFAULTS: dict[str, Any] = {
    "debug": False,
    "address": "0.0.0.0:9443",
    "tls_certs_dir": None,
    "insecure": False,
    "max_recv_message_size": 4,
    "max_send_message_size": None,
}

CASES = [
    pytest.param("No flags: the official defaults.", [], {}, {}, id="Defaults"),
    pytest.param(
        "Short and alias flags.",
        ["-d", "--address", "127.0.0.1:1", "--tls-certs-dir", "/c", "--insecure",
         "--max-grpc-message-size", "8", "--max-send-message-size", "2"],
        {},
        {"debug": True, "address": "127.0.0.1:1", "tls_certs_dir": "/c", "insecure": True,
         "max_recv_message_size": 8, "max_send_message_size": 2},
        id="Flags",
    ),
    pytest.param(
        "Long names.",
        ["--debug", "--tls-server-certs-dir", "/d", "--max-recv-message-size", "16"],
        {},
        {"debug": True, "tls_certs_dir": "/d", "max_recv_message_size": 16},
        id="LongNames",
    ),
    pytest.param(
        "Every flag from the environment.",
        [],
        {"DEBUG": "true", "ADDRESS": "10.0.0.1:2", "TLS_SERVER_CERTS_DIR": "/e", "INSECURE": "1",
         "MAX_GRPC_MESSAGE_SIZE": "6", "MAX_SEND_MESSAGE_SIZE": "3"},
        {"debug": True, "address": "10.0.0.1:2", "tls_certs_dir": "/e", "insecure": True,
         "max_recv_message_size": 6, "max_send_message_size": 3},
        id="Environment",
    ),
    pytest.param(
        "MAX_RECV_MESSAGE_SIZE wins over its older name; false words turn flags off.",
        [],
        {"MAX_RECV_MESSAGE_SIZE": "7", "MAX_GRPC_MESSAGE_SIZE": "9", "DEBUG": "false", "INSECURE": "0"},
        {"max_recv_message_size": 7},
        id="EnvironmentPrecedence",
    ),
    pytest.param(
        "A flag wins over its environment variable.",
        ["--address", "127.0.0.1:3"],
        {"ADDRESS": "10.0.0.1:2"},
        {"address": "127.0.0.1:3"},
        id="FlagOverEnvironment",
    ),
]  # fmt: skip


def _command(seen: list[dict[str, Any]]) -> click.Command:
    @click.command()
    @sdkcli.standard_options
    def cli(**kwargs: Any) -> None:
        seen.append(kwargs)

    return cli


@pytest.mark.parametrize(("reason", "argv", "env", "want"), CASES)
def test_standard_options(reason: str, argv: list[str], env: dict[str, str], want: dict[str, Any]) -> None:
    seen: list[dict[str, Any]] = []
    result = CliRunner().invoke(_command(seen), argv, env={**dict.fromkeys(_ENV), **env})
    assert result.exit_code == 0, result.output
    assert seen == [{**_DEFAULTS, **want}], reason


@pytest.mark.parametrize(("reason", "argv", "env", "want"), CASES)
def test_parser(
    monkeypatch: pytest.MonkeyPatch, reason: str, argv: list[str], env: dict[str, str], want: dict[str, Any]
) -> None:
    for name in _ENV:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert vars(sdkcli.parser().parse_args(argv)) == {**_DEFAULTS, **want}, reason


_OFFICIAL = """
import json, sys
import click
from click.testing import CliRunner
from crossplane.function import cli as sdkcli

names, cases = json.loads(sys.argv[1])
out = []
for argv, env in cases:
    seen = []

    @click.command()
    @sdkcli.standard_options
    def cli(**kwargs):
        seen.append(kwargs)

    result = CliRunner().invoke(cli, argv, env={**dict.fromkeys(names), **env})
    assert result.exit_code == 0, result.output
    out.append(seen[0])
print(json.dumps(out))
"""


@pytest.mark.peer
def test_official_standard_options_agree() -> None:
    """The cases' expectations are the official SDK's own parse (run in a process of its own)."""
    cases = [(c.values[1], c.values[2]) for c in CASES]
    run = subprocess.run(
        [sys.executable, "-c", _OFFICIAL, json.dumps([_ENV, cases])],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    want = [{**_DEFAULTS, **c.values[3]} for c in CASES]  # type: ignore[dict-item]
    assert json.loads(run.stdout) == want


_REAL_SERVE = runtime.serve


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[tuple[Any, ...], dict[str, Any]]]]:
    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    monkeypatch.setattr(runtime, "serve", lambda *args, **kwargs: calls.append((args, kwargs)))
    monkeypatch.setattr(fnlogging, "_level", None)
    yield calls
    root = logging.getLogger()
    for h in list(root.handlers):
        if getattr(h, "_crossfn", False):
            root.removeHandler(h)
    root.setLevel(logging.WARNING)


def _compose(req: Any, rsp: Any) -> None:
    pass


@pytest.mark.parametrize(
    ("reason", "kwargs", "level", "options"),
    [
        pytest.param("Debug logging; the send size follows the receive size.",
                     {"debug": True, "insecure": True, "max_recv_message_size": 8}, fnlogging.Level.DEBUG,
                     [("grpc.max_receive_message_length", 8 << 20), ("grpc.max_send_message_length", 8 << 20)],
                     id="Debug"),
        pytest.param("INFO; an explicit send size.", {"insecure": True, "max_send_message_size": 1},
                     fnlogging.Level.INFO,
                     [("grpc.max_receive_message_length", 4 << 20), ("grpc.max_send_message_length", 1 << 20)],
                     id="SendSize"),
    ],
)  # fmt: skip
def test_run_configures_logging_and_serves(
    served: list[Any], reason: str, kwargs: dict[str, Any], level: fnlogging.Level, options: list[Any]
) -> None:
    sdkcli.run(_compose, address="127.0.0.1:5", **kwargs)
    assert served == [
        ((_compose, "127.0.0.1:5"), {"creds": None, "insecure": True, "options": options}),
    ], reason
    assert fnlogging.configured_level() is level, reason


def test_main_parses_argv_and_runs(served: list[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _ENV:
        monkeypatch.delenv(name, raising=False)
    sdkcli.main(_compose, ["--insecure", "--address", "127.0.0.1:6"])
    ((args, kwargs),) = served
    assert args == (_compose, "127.0.0.1:6")
    assert kwargs["insecure"] is True and kwargs["creds"] is None


@pytest.mark.parametrize(
    ("argv", "want"),
    [
        pytest.param(["--address", "garbage"], "argument --address: want HOST:PORT with a port from 0 to 65535, "
                     "got 'garbage'", id="AddressWithoutPort"),
        pytest.param(["--address", "[::1"], "argument --address: want HOST:PORT with a port from 0 to 65535, "
                     "got '[::1'", id="UnclosedBracket"),
        pytest.param(["--address", "localhost:-1"], "argument --address: want HOST:PORT with a port from 0 to "
                     "65535, got 'localhost:-1'", id="NegativePort"),
        pytest.param(["--max-recv-message-size", "0"], "argument --max-recv-message-size/--max-grpc-message-size: "
                     "want 1 to 2047 (MB), got 0", id="ZeroReceiveSize"),
        pytest.param(["--max-send-message-size", "99999"], "argument --max-send-message-size: want 1 to 2047 (MB), "
                     "got 99999", id="SendSizeOverflowsGrpc"),
    ],
)  # fmt: skip
def test_main_refuses_bad_flags_in_one_line(
    served: list[Any], capsys: pytest.CaptureFixture[str], argv: list[str], want: str
) -> None:
    """The argparse command line checks what gRPC would fail on later (a traceback) or take silently."""
    with pytest.raises(SystemExit) as exc:
        sdkcli.main(_compose, ["--insecure", *argv])
    assert exc.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1].endswith(f"error: {want}")
    assert served == []


def test_main_reports_a_server_error_in_one_line(
    served: list[Any], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """No credentials and no --insecure: the official SDK's words, as one line, not a traceback."""
    for name in _ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(runtime, "serve", _REAL_SERVE)  # it refuses before it binds anything
    with pytest.raises(SystemExit) as exc:
        sdkcli.main(_compose, ["--address", "127.0.0.1:0"])
    assert exc.value.code == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.endswith(
        "error: no credentials were provided - did you provide credentials or use the insecure flag?\n"
    ), err


@pytest.mark.parametrize(
    ("argv", "want"),
    [
        pytest.param(["--address", "garbage"], "Invalid value for '--address': want HOST:PORT", id="Address"),
        pytest.param(["--max-recv-message-size", "0"], "want 1 to 2047 (MB), got 0", id="ZeroReceiveSize"),
    ],
)
def test_standard_options_refuse_bad_values_as_usage_errors(
    served: list[Any], argv: list[str], want: str
) -> None:
    """A click main.py with a bad --address ended in a traceback from the server ('cannot listen on ...')."""
    import click
    from click.testing import CliRunner

    @click.command()
    @sdkcli.standard_options
    def main(**kwargs: Any) -> None:
        sdkcli.run(_compose, **kwargs)

    result = CliRunner().invoke(main, ["--insecure", *argv])
    assert result.exit_code == 2, result.output
    assert want in result.output
    assert served == []
