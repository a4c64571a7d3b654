"""``crossfn function serve`` and ``crossfn function install``.

``install`` installs a function package's PyPI release for render and the
controller to run without Docker (:mod:`crossfn.functions.installs`); it prints
each install's directory on stdout and what it did on stderr.

``serve`` serves a composition function to Crossplane.

Flags and environment variables are the official Python SDK's standard ones
(``crossplane.function.cli``), so a function's Deployment works unchanged;
``--workers``, ``--metrics-address`` and ``--grace-period`` are crossfn's
additions. This module only maps them onto
:class:`crossfn.sdk.settings.ServerSettings` and hands off to
:func:`crossfn.sdk.runtime.serve`.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from typing import Any

from crossfn.cli import _args

__all__ = ["register", "settings_from"]

_TRUE = frozenset({"1", "t", "true", "y", "yes", "on"})
_MAX_PORT = 65535
_MAX_MESSAGE_SIZE_MB = 2047  # crossfn.sdk.settings.MAX_MESSAGE_SIZE_MB, without importing the SDK for --help


def _env_flag(*names: str) -> bool:
    return any(os.environ.get(n, "").strip().lower() in _TRUE for n in names)


def _message_size(text: str) -> int:
    """Megabytes of a gRPC message limit: gRPC takes bytes as a C int, so at most 2047."""
    value = _args.positive_int(text)
    if value > _MAX_MESSAGE_SIZE_MB:
        raise argparse.ArgumentTypeError(f"want at most {_MAX_MESSAGE_SIZE_MB} (MB), got {value}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"want a number of seconds, got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"want a finite number of seconds, zero or more, got {text!r}")
    return value


def _positive_seconds(text: str) -> float:
    value = _seconds(text)
    if value == 0:
        raise argparse.ArgumentTypeError(f"want more than zero seconds, got {text!r}")
    return value


def _address(text: str) -> str:
    """``host:port`` with a port gRPC can bind (0 picks a free one); gRPC itself would pick another."""
    host, sep, port = text.rpartition(":")
    bracketed = host.startswith("[") and host.endswith(
        "]"
    )  # an IPv6 host: gRPC cannot parse "[::1" or "::1:80"
    if (
        not sep
        or not port.isdigit()
        or not port.isascii()
        or not 0 <= int(port) <= _MAX_PORT
        or (not bracketed and any(c in host for c in "[]:"))
        or any(c.isspace() for c in host)
    ):
        raise argparse.ArgumentTypeError(f"want HOST:PORT with a port from 0 to {_MAX_PORT}, got {text!r}")
    return text


def register(subparsers: Any) -> None:
    """Add ``function serve`` and ``function install`` to the command line."""
    parser = subparsers.add_parser("function", help="work with a composition function")
    sub = parser.add_subparsers(dest="function_command", metavar="COMMAND", required=True)
    serve = sub.add_parser(
        "serve",
        help="serve a function over gRPC",
        description="Serve MODULE:OBJECT (a compose(req, rsp) function or a servicer), or a built-in "
        "function's short name, to Crossplane.",
    )
    serve.add_argument(
        "function", metavar="MODULE:OBJECT", help="the function, e.g. myfn.fn:compose or auto-ready"
    )
    serve.add_argument(
        "-d", "--debug", action="store_true", default=_env_flag("DEBUG"), help="emit debug logs (env DEBUG)"
    )
    serve.add_argument(
        "--address",
        metavar="HOST:PORT",
        type=_address,
        default=_args.env("ADDRESS", default="0.0.0.0:9443"),
        help="address to listen on (env ADDRESS; default %(default)s)",
    )
    serve.add_argument(
        "--tls-server-certs-dir",
        "--tls-certs-dir",
        dest="tls_certs_dir",
        metavar="DIR",
        default=_args.env("TLS_SERVER_CERTS_DIR"),
        help="serve mTLS with tls.crt, tls.key and ca.crt from this directory (env TLS_SERVER_CERTS_DIR)",
    )
    serve.add_argument(
        "--insecure",
        action="store_true",
        default=_env_flag("INSECURE"),
        help="serve plaintext only; the certificates directory is ignored (env INSECURE)",
    )
    serve.add_argument(
        "--max-recv-message-size",
        "--max-grpc-message-size",
        metavar="MB",
        type=_message_size,
        default=_args.env("MAX_RECV_MESSAGE_SIZE", "MAX_GRPC_MESSAGE_SIZE", default="4"),
        help="largest request in MB, 1 to 2047 (env MAX_RECV_MESSAGE_SIZE; default 4)",
    )
    serve.add_argument(
        "--max-send-message-size",
        metavar="MB",
        type=_message_size,
        default=_args.env("MAX_SEND_MESSAGE_SIZE"),
        help="largest response in MB (env MAX_SEND_MESSAGE_SIZE; default: the receive size)",
    )
    serve.add_argument(
        "--workers",
        metavar="N",
        type=_args.positive_int,
        default=_args.env("WORKERS", default="1"),
        help="processes serving on the one port (env WORKERS; default 1)",
    )
    serve.add_argument(
        "--threads",
        metavar="N",
        type=_args.positive_int,
        default=_args.env("THREADS", default="4"),
        help="threads calling a sync function in each process; raise it for functions that wait on I/O "
        "(env THREADS; default 4)",
    )
    serve.add_argument(
        "--metrics-address",
        metavar="HOST:PORT",
        default=_args.env("METRICS_ADDRESS"),
        help="serve Prometheus metrics at host:port (env METRICS_ADDRESS; default: none)",
    )
    serve.add_argument(
        "--grace-period",
        metavar="SECONDS",
        type=_seconds,
        default=_args.env("SHUTDOWN_GRACE_PERIOD", default="5"),
        help="seconds in-flight calls may take to finish on SIGTERM (env SHUTDOWN_GRACE_PERIOD; default 5)",
    )
    serve.add_argument(
        "--call-timeout",
        metavar="SECONDS",
        type=_positive_seconds,
        default=_args.env("CALL_TIMEOUT", default="120"),
        help="longest a call may run; a client's shorter deadline wins (env CALL_TIMEOUT; default 120)",
    )
    serve.add_argument(
        "--max-calls",
        metavar="N",
        type=_args.positive_int,
        default=_args.env("MAX_CALLS", default="64"),
        help="calls in flight (running or waiting) per process; more get RESOURCE_EXHAUSTED "
        "(env MAX_CALLS; default 64)",
    )
    serve.set_defaults(handler=_serve)
    install = sub.add_parser(
        "install",
        help="install a function package's PyPI release, for render and the controller to run without Docker",
        description="Install the PyPI release of each PACKAGE (a Function's spec.package, e.g. "
        "xpkg.crossplane.io/crossplane-contrib/function-pythonic:v0.3.0) into a virtual environment of its "
        "own. crossfn render and crossfn controller then run it for a Function with that package and no "
        "runtime annotation. This is the only step that reaches the network.",
    )
    install.add_argument("packages", metavar="PACKAGE", nargs="+", help="a function package, with its tag")
    install.add_argument(
        "--python",
        metavar="PATH",
        help="the interpreter for the environment (default: this one, else the newest python3.N on PATH "
        "that the release supports)",
    )
    install.add_argument(
        "--constraint", "-c", metavar="FILE", help="a pip constraints file for the release's dependencies"
    )
    install.add_argument(
        "--dir",
        metavar="DIR",
        help="where installs live (default: $CROSSFN_FUNCTIONS_DIR, else ~/.cache/crossfn/functions)",
    )
    install.set_defaults(handler=_install)


def _function_spec(name: str) -> str:
    from crossfn import functions  # noqa: PLC0415 -- keep `crossfn --help` fast

    return functions.BUILTINS.get(name, name)


def _install(args: argparse.Namespace) -> int:
    from pathlib import Path  # noqa: PLC0415 -- keep `crossfn --help` fast

    from crossfn.functions import installs  # noqa: PLC0415 -- see above

    def say(line: str) -> None:
        print(f"crossfn: {line}", file=sys.stderr)

    for package in args.packages:
        done = installs.install(
            package,
            root=Path(args.dir) if args.dir else None,
            python=args.python,
            constraint=Path(args.constraint) if args.constraint else None,
            log=say,
        )
        print(done.path)
    return 0


def settings_from(args: argparse.Namespace) -> Any:
    """Map parsed flags (and the environment defaults behind them) onto ``ServerSettings``."""
    from crossfn.sdk import settings  # noqa: PLC0415 -- keep `crossfn --help` fast

    return settings.ServerSettings(
        listen=settings.ListenSettings(
            address=args.address, tls_certs_dir=args.tls_certs_dir, insecure=args.insecure
        ),
        grpc=settings.GrpcSettings(
            max_recv_message_size_mb=args.max_recv_message_size,
            max_send_message_size_mb=args.max_send_message_size,
        ),
        process=settings.ProcessSettings(
            workers=args.workers, threads=args.threads, grace_period_seconds=args.grace_period
        ),
        calls=settings.CallSettings(timeout_seconds=args.call_timeout, max_calls=args.max_calls),
        observability=settings.ObservabilitySettings(debug=args.debug, metrics_address=args.metrics_address),
    )


def _serve(args: argparse.Namespace) -> int:
    from crossfn.sdk import function, runtime  # noqa: PLC0415 -- grpc is heavy; load it only to serve

    config = settings_from(args)
    spec = _function_spec(args.function)
    # As `python -m` and uvicorn do: the function's module may sit in the working directory.
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    # Load and check here so a bad spec or object fails before any server starts. One process serves
    # what was loaded (a servicer class is created once); workers re-import the spec.
    target = function.servable(runtime.load_function(spec))
    runtime.serve(target if config.process.workers <= 1 else spec, config)
    return 0
