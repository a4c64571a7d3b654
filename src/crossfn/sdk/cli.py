"""A function's command line: the official SDK's standard flags, for a function's ``main.py``.

Named as the official SDK's ``crossplane.function.cli``, with its two helpers:
:func:`standard_options`, a click decorator adding the flags, and :func:`run`,
which configures logging and serves::

    import click
    from crossfn.sdk import cli as sdkcli
    from function import fn

    @click.command()
    @sdkcli.standard_options
    def cli(**kwargs):
        sdkcli.run(fn.FunctionRunner(), **kwargs)

:func:`main` is the same command line without click (argparse), for a
function that does not otherwise depend on it: ``sdkcli.main(fn.FunctionRunner())``.

The flags, their environment variables and defaults are the official SDK's
(and ``crossfn function serve``'s): ``--debug/-d`` (``DEBUG``), ``--address``
(``ADDRESS``, ``0.0.0.0:9443``), ``--tls-server-certs-dir/--tls-certs-dir``
(``TLS_SERVER_CERTS_DIR``), ``--insecure`` (``INSECURE``),
``--max-recv-message-size/--max-grpc-message-size`` (``MAX_RECV_MESSAGE_SIZE``,
``MAX_GRPC_MESSAGE_SIZE``, 4 MB) and ``--max-send-message-size``
(``MAX_SEND_MESSAGE_SIZE``, the receive size).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from crossfn import errors
from crossfn.sdk import settings

__all__ = ["DEFAULT_ADDRESS", "DEFAULT_MAX_RECV_MESSAGE_SIZE", "main", "parser", "run", "standard_options"]

DEFAULT_ADDRESS = settings.DEFAULT_ADDRESS
DEFAULT_MAX_RECV_MESSAGE_SIZE = settings.DEFAULT_MAX_MESSAGE_SIZE_MB
"""In MB, as the official SDK's constant."""

_F = TypeVar("_F", bound=Callable[..., Any])

_TRUE = frozenset({"1", "t", "true", "y", "yes", "on"})
"""What an environment variable says to turn a flag on (click's boolean words)."""


@dataclasses.dataclass(frozen=True)
class _Flag:
    """One standard flag, rendered as a click option or an argparse argument."""

    names: tuple[str, ...]
    dest: str
    envvars: tuple[str, ...]
    help: str
    kind: type[bool] | type[int] | type[str]
    default: Any = None


_FLAGS = (
    _Flag(("--debug", "-d"), "debug", ("DEBUG",), "Emit debug logs.", bool, False),
    _Flag(
        ("--address",),
        "address",
        ("ADDRESS",),
        "Address at which to listen for gRPC connections.",
        str,
        DEFAULT_ADDRESS,
    ),
    _Flag(
        ("--tls-server-certs-dir", "--tls-certs-dir"),
        "tls_certs_dir",
        ("TLS_SERVER_CERTS_DIR",),
        "Serve using mTLS certificates.",
        str,
    ),
    _Flag(
        ("--insecure",),
        "insecure",
        ("INSECURE",),
        "Run without mTLS credentials. If you supply this flag --tls-server-certs-dir will be ignored.",
        bool,
        False,
    ),
    _Flag(
        ("--max-recv-message-size", "--max-grpc-message-size"),
        "max_recv_message_size",
        ("MAX_RECV_MESSAGE_SIZE", "MAX_GRPC_MESSAGE_SIZE"),
        "Maximum size of received gRPC messages in MB.",
        int,
        DEFAULT_MAX_RECV_MESSAGE_SIZE,
    ),
    _Flag(
        ("--max-send-message-size",),
        "max_send_message_size",
        ("MAX_SEND_MESSAGE_SIZE",),
        "Maximum size of sent gRPC messages in MB. Defaults to --max-recv-message-size.",
        int,
    ),
)


def standard_options(func: _F) -> _F:
    """Add the standard flags to a click command, as the official SDK's decorator.

    The command receives them as keyword arguments named as :func:`run`'s.
    Needs click, which a ``main.py`` using ``@click.command()`` depends on anyway.
    """
    import click  # noqa: PLC0415 -- only functions whose main.py uses click need it

    def checked(check: Callable[[str], Any]) -> Callable[[Any, Any, Any], Any]:
        def callback(_ctx: Any, _param: Any, value: Any) -> Any:
            try:
                return value if value is None else check(str(value))
            except argparse.ArgumentTypeError as exc:
                raise click.BadParameter(str(exc)) from exc

        return callback

    for flag in reversed(_FLAGS):
        extra: dict[str, Any] = {"is_flag": True} if flag.kind is bool else {"type": flag.kind}
        if flag.dest in _TYPES:
            extra["callback"] = checked(_TYPES[flag.dest])
        func = click.option(
            *flag.names,
            flag.dest,
            default=flag.default,
            show_default=flag.default not in (None, False),
            envvar=list(flag.envvars),
            help=flag.help,
            **extra,
        )(func)
    return func


def run(
    function_runner: object,
    *,
    debug: bool = False,
    address: str = DEFAULT_ADDRESS,
    tls_certs_dir: str | None = None,
    insecure: bool = False,
    max_recv_message_size: int = DEFAULT_MAX_RECV_MESSAGE_SIZE,
    max_send_message_size: int | None = None,
) -> None:
    """Configure logging and serve ``function_runner`` until SIGTERM, as the official SDK's ``run``.

    ``function_runner`` is anything :func:`crossfn.sdk.runtime.serve` serves: a
    servicer instance or a ``compose(req, rsp)`` function. Message sizes are in MB.
    """
    from crossfn.sdk import logging, runtime  # noqa: PLC0415 -- grpc loads only to serve, not for --help

    logging.configure(level=logging.Level.DEBUG if debug else logging.Level.INFO)
    send = max_recv_message_size if max_send_message_size is None else max_send_message_size
    runtime.serve(
        function_runner,
        address,
        creds=runtime.load_credentials(tls_certs_dir),
        insecure=insecure,
        options=[
            ("grpc.max_receive_message_length", max_recv_message_size * 1024 * 1024),
            ("grpc.max_send_message_length", send * 1024 * 1024),
        ],
    )


def _from_env(flag: _Flag) -> Any:
    for name in flag.envvars:
        value = os.environ.get(name)
        if value:
            return value.strip().lower() in _TRUE if flag.kind is bool else value
    return flag.default


_MAX_PORT = 65535


def _address(text: str) -> str:
    """``host:port`` gRPC can listen on: a port from 0 to 65535, an IPv6 host in brackets, no spaces."""
    host, sep, port = text.rpartition(":")
    bracketed = host.startswith("[") and host.endswith("]")
    if (
        not sep
        or not (port.isascii() and port.isdigit() and int(port) <= _MAX_PORT)
        or (not bracketed and any(c in host for c in "[]:"))
        or any(c.isspace() for c in host)
    ):
        raise argparse.ArgumentTypeError(f"want HOST:PORT with a port from 0 to {_MAX_PORT}, got {text!r}")
    return text


def _megabytes(text: str) -> int:
    """A gRPC message limit in MB: gRPC takes bytes as a C int, so 1 to 2047."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"want a whole number of MB, got {text!r}") from None
    if not 1 <= value <= settings.MAX_MESSAGE_SIZE_MB:
        raise argparse.ArgumentTypeError(f"want 1 to {settings.MAX_MESSAGE_SIZE_MB} (MB), got {value}")
    return value


_TYPES: dict[str, Callable[[str], Any]] = {
    "address": _address,
    "max_recv_message_size": _megabytes,
    "max_send_message_size": _megabytes,
}
"""The argparse flags checked beyond their type (click's keep the official SDK's plain types)."""


def parser(description: str = "A Crossplane composition function.") -> argparse.ArgumentParser:
    """An argparse parser of the standard flags; its namespace's names are :func:`run`'s keywords."""
    p = argparse.ArgumentParser(description=description)
    for flag in _FLAGS:
        default = _from_env(flag)
        if flag.kind is bool:
            p.add_argument(*flag.names, dest=flag.dest, action="store_true", default=default, help=flag.help)
        else:
            env = ", ".join(flag.envvars)
            p.add_argument(
                *flag.names,
                dest=flag.dest,
                type=_TYPES.get(flag.dest, flag.kind),
                default=default,
                help=f"{flag.help} (env {env})",
            )
    return p


def main(function_runner: object, argv: Sequence[str] | None = None) -> None:
    """Parse the standard flags from ``argv`` (the command line) and :func:`run` the function."""
    p = parser()
    args = p.parse_args(argv)
    try:
        run(function_runner, **vars(args))
    except (errors.CrossfnError, ValueError) as exc:  # a flag's value the server cannot use: one line
        p.exit(1, f"{p.prog}: error: {exc}\n")
