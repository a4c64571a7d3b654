"""``crossfn controller init|run``: Crossplane's composition controllers on a Kubernetes cluster.

``init`` installs or upgrades crossfn's Crossplane CRDs, makes the usage
webhook's certificate and registers the webhook, and says what it did;
``run`` starts the controllers (it installs the CRDs too, unless
``--skip-crds``). Flag names, defaults and environment variables are Crossplane
core's (``crossplane core start``) where crossfn has the same knob; this module
only maps them onto :class:`crossfn.controller.Settings` and hands off to
:func:`crossfn.controller.run`, so an embedding and the command behave alike.
The Kubernetes client is imported only inside the handlers: ``crossfn --help``
stays fast.

A bad flag (or a bad value in an environment variable behind one) is one line
on stderr and exit status 2, before anything connects.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from crossfn import errors
from crossfn.cli import _args
from crossfn.gocompat import time as gotime

__all__ = ["register", "settings_from", "webhook_settings"]

_BOOLS = {
    **dict.fromkeys(("1", "t", "T", "TRUE", "true", "True"), True),
    **dict.fromkeys(("0", "f", "F", "FALSE", "false", "False"), False),
}
"""The words Go's ``strconv.ParseBool`` takes, and so Crossplane's boolean environment variables."""


class _OneLineParser(argparse.ArgumentParser):
    """A parser whose errors are one line (``crossfn controller run: error: …``), exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")

    def parse_known_args(  # type: ignore[override]  # typeshed's overloads; same behaviour
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        """Refuse unknown arguments here: left to the top-level parser, they would print its usage."""
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        for action in self._actions:
            if isinstance(action, _EnvFlag | _EnvSwitch) and getattr(parsed, action.dest) is None:
                setattr(parsed, action.dest, self._env_bool(action))
        return parsed, extras

    def _env_bool(self, action: _EnvFlag | _EnvSwitch) -> bool:
        """The flag's environment variables, read only when the flag is not given (as kong does)."""
        for env in action.envs:
            value = os.environ.get(env, "")
            if not value:
                continue
            if value not in _BOOLS:
                self.error(f"{env}: want true or false (as Go's strconv.ParseBool), got {value!r}")
            return _BOOLS[value]
        return action.fallback


class _EnvFlag(argparse.Action):
    """A switch that is off, or on when given, or else what its environment variable says."""

    fallback = False

    def __init__(self, option_strings: list[str], dest: str, *, env: str, help: str) -> None:
        super().__init__(option_strings, dest, nargs=0, default=None, help=f"{help} (env {env})")
        self.envs = (env,)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, *_: Any) -> None:
        setattr(namespace, self.dest, True)


class _EnvSwitch(argparse.BooleanOptionalAction):
    """A switch that is on unless ``--no-...`` is given or its environment variable says false."""

    fallback = True

    def __init__(
        self, option_strings: list[str], dest: str, *, envs: tuple[str, ...] = (), help: str
    ) -> None:
        note = f" (env {', '.join(envs)})" if envs else ""
        super().__init__(option_strings, dest, default=None, help=f"{help}{note}; default on")
        self.envs = envs


def _port_address(name: str, default: str) -> str:
    """``:PORT`` from Crossplane's port variable (``METRICS_PORT``), else ``default``."""
    port = os.environ.get(name, "").strip()
    return f":{port}" if port else default


def _duration(text: str) -> float:
    try:
        seconds = gotime.parse_duration(text)
    except errors.GoError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if seconds < 0:
        raise argparse.ArgumentTypeError(f"want a positive duration, got {text!r}")
    return seconds


def _nonzero_duration(text: str) -> float:
    """A duration that must be more than zero: a call with no time at all would always fail."""
    seconds = _duration(text)
    if seconds == 0:
        raise argparse.ArgumentTypeError(f"want more than 0s, got {text!r}")
    return seconds


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"want a number, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"want more than 0, got {value}")
    return value


def _address(text: str) -> str:
    """``HOST:PORT`` or ``:PORT``; ``""`` turns the endpoint off."""
    if text == "":
        return text
    _, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or int(port) > 65535:
        raise argparse.ArgumentTypeError(f"want HOST:PORT or :PORT, got {text!r}")
    return text


def register(subparsers: Any) -> None:
    """Add ``controller init`` and ``controller run`` to the command line."""
    parser = subparsers.add_parser(
        "controller", help="run Crossplane's composition controllers on a cluster (docs/controller.md)"
    )
    sub = parser.add_subparsers(
        dest="controller_command", metavar="COMMAND", required=True, parser_class=_OneLineParser
    )
    init = sub.add_parser(
        "init",
        help="install or upgrade crossfn's Crossplane CRDs and register the usage webhook (idempotent)",
    )
    _cluster_flags(init)
    _namespace_flag(init)
    _webhook_flags(init, serve=False)
    init.set_defaults(handler=_init)
    run = sub.add_parser(
        "run",
        help="reconcile XRDs, Compositions, Functions and XRs until SIGTERM",
        description="Run Crossplane's composition controllers against a Kubernetes API server.",
    )
    _cluster_flags(run)
    run.add_argument("--skip-crds", action="store_true", help="do not install or upgrade the CRDs at start")
    _reconcile_flags(run)
    _function_flags(run)
    _package_flags(run)
    _leader_flags(run)
    _observability_flags(run)
    _webhook_flags(run, serve=True)
    run.set_defaults(handler=_run)


def _cluster_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--kubeconfig",
        metavar="FILE",
        default=None,
        help="kubeconfig file (default: $KUBECONFIG, then ~/.kube/config, then the in-cluster service account)",
    )
    p.add_argument(
        "--context", metavar="NAME", default=None, help="kubeconfig context (default: its current one)"
    )


def _reconcile_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--poll-interval",
        metavar="DURATION",
        type=_duration,
        default="1m",
        help="how often a composite resource is reconciled with no change when realtime compositions are "
        "off; 0 never polls, as Crossplane (Go duration; default 1m)",
    )
    p.add_argument(
        "--min-poll-interval",
        metavar="DURATION",
        type=_duration,
        default="1s",
        help="the shortest requeue a function's TTL may ask for (default 1s)",
    )
    p.add_argument(
        "--max-reconcile-rate",
        "--max-concurrent-reconciles",
        dest="max_concurrent_reconciles",
        metavar="N",
        type=_args.positive_int,
        default=100,
        help="reconciles in flight per controller (default 100)",
    )
    p.add_argument(
        "--max-reconciles-per-second",
        metavar="N",
        type=_positive_float,
        default=None,
        help="cap on reconciles started per second per controller (default: no cap)",
    )
    p.add_argument(
        "--enable-realtime-compositions",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="reconcile an XR as soon as a composed or required resource changes (default on)",
    )
    p.add_argument(
        "--circuit-breaker-burst",
        metavar="N",
        type=_positive_float,
        default=100.0,
        help="watch events an XR may get at once before its circuit breaker opens (default 100)",
    )
    p.add_argument(
        "--circuit-breaker-refill-rate",
        metavar="N",
        type=_positive_float,
        default=1.0,
        help="watch events per second an XR may get steadily (default 1)",
    )
    p.add_argument(
        "--circuit-breaker-cooldown",
        metavar="DURATION",
        type=_nonzero_duration,
        default="5m",
        help="how long an open circuit breaker stays open (default 5m)",
    )
    p.add_argument(
        "--adopt-existing-resources",
        action=_EnvFlag,
        env="ADOPT_EXISTING_RESOURCES",
        help="take over an existing object no one controls when a Composition desires it, as Crossplane "
        'does (default: only objects annotated crossfn.io/adoptable: "true")',
    )
    p.add_argument(
        "--enable-operations",
        action="store_true",
        help="run Operations, CronOperations and WatchOperations (alpha, as Crossplane's flag; docs/operations.md)",
    )


def _function_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--insecure-functions",
        action=_EnvFlag,
        env="INSECURE_FUNCTIONS",
        help="call functions without TLS",
    )
    _namespace_flag(p)
    p.add_argument(
        "--tls-client-secret-name",
        metavar="NAME",
        default=_args.env("TLS_CLIENT_SECRET_NAME", default="crossplane-tls-client"),
        help="Secret with tls.crt, tls.key and ca.crt to call functions with mTLS "
        "(env TLS_CLIENT_SECRET_NAME; default %(default)s)",
    )
    p.add_argument(
        "--tls-client-certs-dir",
        metavar="DIR",
        default=_args.env("TLS_CLIENT_CERTS_DIR"),
        help="read the three files from this directory instead of the Secret (env TLS_CLIENT_CERTS_DIR)",
    )
    p.add_argument(
        "--function-timeout",
        metavar="DURATION",
        type=_nonzero_duration,
        default="1m",
        help="how long one function call may take (default 1m)",
    )
    p.add_argument(
        "--function-filesystem-root",
        metavar="DIR",
        type=_directory,
        default=_args.env("FUNCTION_FILESYSTEM_ROOT"),
        help="the one directory built-in functions may read (go-templating's fileSystem.dirPath, KCL sources "
        "and file.read), where you mount their templates; default: none, they read no files "
        "(env FUNCTION_FILESYSTEM_ROOT)",
    )
    p.add_argument(
        "--max-concurrent-function-calls",
        metavar="N",
        type=_args.positive_int,
        default=25,
        help="calls in flight to one function outside this process; more wait a second, then their XR is "
        "retried (default 25)",
    )
    p.add_argument(
        "--enable-function-response-cache",
        action="store_true",
        help="cache function responses by request for their TTL (alpha, as in Crossplane)",
    )
    p.add_argument(
        "--xfn-cache-dir",
        metavar="DIR",
        default=_args.env("XFN_CACHE_DIR", default="/cache/xfn"),
        help="where cached function responses are written (env XFN_CACHE_DIR; default %(default)s)",
    )
    p.add_argument(
        "--xfn-cache-max-ttl",
        metavar="DURATION",
        type=_duration,
        default=_args.env("XFN_CACHE_MAX_TTL", default="24h"),
        help="the longest a cached response is trusted; 0 is no limit (env XFN_CACHE_MAX_TTL; default 24h)",
    )


def _namespace_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "-n",
        "--namespace",
        metavar="NAMESPACE",
        default=_args.env("POD_NAMESPACE", default="crossplane-system"),
        help="the controller's namespace: client certificate, CA, webhook certificate, function Deployments, "
        "Lease (env POD_NAMESPACE; default %(default)s)",
    )


def _url(text: str) -> str:
    """``https://HOST[:PORT]``: where the API server calls the webhook."""
    if not text.startswith("https://") or not text[len("https://") :].strip("/"):
        raise argparse.ArgumentTypeError(f"want https://HOST:PORT, got {text!r}")
    return text


def _webhook_flags(p: argparse.ArgumentParser, *, serve: bool) -> None:
    """The usage webhook: whether it runs, where the API server reaches it, and its certificate."""
    p.add_argument(
        "--enable-webhooks",
        "--webhook-enabled",
        dest="enable_webhooks",
        action=_EnvSwitch,
        envs=("ENABLE_WEBHOOKS", "WEBHOOK_ENABLED"),
        help="serve and register the admission webhook that keeps resources Usages protect",
    )
    p.add_argument(
        "--webhook-service-name",
        metavar="NAME",
        default=_args.env("WEBHOOK_SERVICE_NAME", default="crossplane-webhooks"),
        help="the Service the API server calls the webhook through, in --namespace "
        "(env WEBHOOK_SERVICE_NAME; default %(default)s)",
    )
    p.add_argument(
        "--webhook-service-port",
        metavar="PORT",
        type=_args.positive_int,
        default=_args.env("WEBHOOK_SERVICE_PORT", default="9443"),
        help="that Service's port (env WEBHOOK_SERVICE_PORT; default 9443)",
    )
    p.add_argument(
        "--webhook-url",
        metavar="URL",
        type=_url,
        default=None,
        help="call the webhook at https://HOST:PORT instead of the Service (a controller outside the cluster)",
    )
    p.add_argument(
        "--tls-server-secret-name",
        metavar="NAME",
        default=_args.env("TLS_SERVER_SECRET_NAME", default="crossplane-tls-server"),
        help="Secret with the webhook's certificate, made when missing (env TLS_SERVER_SECRET_NAME; "
        "default %(default)s)",
    )
    p.add_argument(
        "--tls-server-certs-dir",
        metavar="DIR",
        default=_args.env("TLS_SERVER_CERTS_DIR"),
        help="read tls.crt, tls.key and ca.crt from this directory instead (env TLS_SERVER_CERTS_DIR)",
    )
    if not serve:
        return
    p.add_argument(
        "--enable-usages",
        action=_EnvSwitch,
        help="reconcile Usages and ClusterUsages and deny deleting what they protect",
    )
    p.add_argument(
        "--webhook-address",
        metavar="HOST:PORT",
        type=_address,
        default=_port_address("WEBHOOK_PORT", ":9443"),
        help="serve the webhook (HTTPS) here (env WEBHOOK_PORT; default %(default)s)",
    )


def webhook_settings(args: argparse.Namespace) -> Any:
    """The webhook flags as :class:`crossfn.controller.WebhookSettings` (``init`` has no serving ones)."""
    from crossfn.controller import _settings  # noqa: PLC0415 -- keep `crossfn --help` fast

    return _settings.WebhookSettings(
        enabled=args.enable_webhooks,
        usages=getattr(args, "enable_usages", True),
        address=getattr(args, "webhook_address", ":9443"),
        service_name=args.webhook_service_name,
        service_port=args.webhook_service_port,
        url=args.webhook_url,
        tls_server_secret_name=args.tls_server_secret_name,
        tls_server_certs_dir=args.tls_server_certs_dir,
    )


def _directory(text: str) -> str:
    """An existing directory other than ``/``, resolved."""
    real = os.path.realpath(text) if text else ""
    if not real or not os.path.isdir(real):
        raise argparse.ArgumentTypeError(f"want a directory, got {text!r}")
    if real == os.sep:
        raise argparse.ArgumentTypeError(
            "want a directory other than /, which would let built-ins read every file"
        )
    return real


_RUNTIMES = ("Deployment", "External")


def _package_runtime(text: str) -> str:
    """``Deployment``, ``External``, or Crossplane's per-kind ``Kind=Runtime;...`` (Function's entry counts)."""
    if "=" not in text:
        if text not in _RUNTIMES:
            raise argparse.ArgumentTypeError(f"want Deployment or External, got {text!r}")
        return text
    runtime = "Deployment"
    for part in filter(None, (p.strip() for p in text.split(";"))):
        kind, _, value = part.partition("=")
        if kind.strip() not in ("Provider", "Function", "Configuration") or value.strip() not in _RUNTIMES:
            raise argparse.ArgumentTypeError(
                f"want Kind=Deployment|External with kind Provider, Function or Configuration, got {part!r}"
            )
        if kind.strip() == "Function":
            runtime = value.strip()
    return runtime


def _package_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--package-runtime",
        metavar="RUNTIME",
        type=_package_runtime,
        default=_args.env("PACKAGE_RUNTIME", default="Deployment"),  # argparse applies ``type`` to it
        help="run function packages as Deployments (Deployment) or leave them to Crossplane's package "
        "manager (External) (env PACKAGE_RUNTIME; default Deployment)",
    )
    p.add_argument(
        "--service-account",
        metavar="NAME",
        default=_args.env("POD_SERVICE_ACCOUNT", default="crossplane"),
        help="the controller's ServiceAccount, whose image pull secrets function Deployments get "
        "(env POD_SERVICE_ACCOUNT; default %(default)s)",
    )
    p.add_argument(
        "--manage-rbac",
        action=_EnvFlag,
        env="MANAGE_RBAC",
        help="keep the four ClusterRoles per XRD, as Crossplane's RBAC manager (needs "
        "deploy/optional/rbac-manager.yaml)",
    )


def _leader_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "-l",
        "--leader-election",
        action=_EnvFlag,
        env="LEADER_ELECTION",
        help="reconcile only while holding the Lease crossplane-leader-election-core",
    )
    for flag, default, what in (
        ("--leader-election-lease-duration", "60s", "how long a standby waits for a silent leader"),
        ("--leader-election-renew-deadline", "50s", "how long the leader tries to renew before it stops"),
        ("--leader-election-retry-period", "2s", "how often candidates try to acquire or renew"),
    ):
        p.add_argument(
            flag, metavar="DURATION", type=_duration, default=default, help=f"{what} (default {default})"
        )


def _observability_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--metrics-address",
        metavar="HOST:PORT",
        type=_address,
        default=_port_address("METRICS_PORT", ":8080"),
        help="serve Prometheus /metrics here; '' for none (env METRICS_PORT; default %(default)s)",
    )
    p.add_argument(
        "--health-address",
        metavar="HOST:PORT",
        type=_address,
        default=_port_address("HEALTH_PROBE_PORT", ":8081"),
        help="serve /healthz and /readyz here; '' for none (env HEALTH_PROBE_PORT; default %(default)s)",
    )
    p.add_argument(
        "--log-format",
        choices=("json", "text"),
        default="json",
        help="log lines as JSON or text (default json)",
    )
    p.add_argument("-d", "--debug", action="store_true", help="log at debug level")


def settings_from(args: argparse.Namespace) -> Any:
    """Map parsed ``run`` flags onto :class:`crossfn.controller.Settings`."""
    from crossfn.controller import _settings  # noqa: PLC0415 -- keep `crossfn --help` fast

    return _settings.Settings(
        cluster=_settings.ClusterSettings(
            kubeconfig=args.kubeconfig,
            context=args.context,
            skip_crds=args.skip_crds,
            manage_rbac=args.manage_rbac,
        ),
        reconcile=_settings.ReconcileSettings(
            poll_interval=args.poll_interval,
            min_poll_interval=args.min_poll_interval,
            realtime=args.enable_realtime_compositions,
            adopt_existing=args.adopt_existing_resources,
            max_concurrent_reconciles=args.max_concurrent_reconciles,
            max_reconciles_per_second=args.max_reconciles_per_second,
            circuit_breaker_burst=args.circuit_breaker_burst,
            circuit_breaker_refill_rate=args.circuit_breaker_refill_rate,
            circuit_breaker_cooldown=args.circuit_breaker_cooldown,
        ),
        functions=_settings.FunctionSettings(
            insecure=args.insecure_functions,
            namespace=args.namespace,
            tls_client_secret_name=args.tls_client_secret_name,
            tls_client_certs_dir=args.tls_client_certs_dir,
            timeout=args.function_timeout,
            filesystem_root=args.function_filesystem_root,
            response_cache=args.enable_function_response_cache,
            cache_dir=args.xfn_cache_dir,
            cache_max_ttl=args.xfn_cache_max_ttl,
            max_concurrent_calls=args.max_concurrent_function_calls,
        ),
        packages=_settings.PackageSettings(
            runtime=args.package_runtime, service_account=args.service_account
        ),
        leader_election=_settings.LeaderElectionSettings(
            enabled=args.leader_election,
            lease_duration=args.leader_election_lease_duration,
            renew_deadline=args.leader_election_renew_deadline,
            retry_period=args.leader_election_retry_period,
        ),
        observability=_settings.ObservabilitySettings(
            metrics_address=args.metrics_address,
            health_address=args.health_address,
            log_format=args.log_format,
            debug=args.debug,
        ),
        webhooks=webhook_settings(args),
        features=_settings.FeatureSettings(operations=args.enable_operations),
    )


def _init(args: argparse.Namespace) -> int:
    import asyncio  # noqa: PLC0415 -- keep `crossfn --help` fast

    from crossfn.controller import _settings  # noqa: PLC0415 -- keep `crossfn --help` fast
    from crossfn.controller.manager import _manager as manager  # noqa: PLC0415 -- loads the Kubernetes client

    settings = _settings.Settings(
        cluster=_settings.ClusterSettings(kubeconfig=args.kubeconfig, context=args.context),
        functions=_settings.FunctionSettings(namespace=args.namespace),
        webhooks=webhook_settings(args),
    )
    for line in asyncio.run(manager.initialize(settings)):
        print(line)
    return 0


def _run(args: argparse.Namespace) -> int:
    import asyncio  # noqa: PLC0415 -- keep `crossfn --help` fast

    from crossfn.controller.manager import _manager as manager  # noqa: PLC0415 -- loads the Kubernetes client

    settings = settings_from(args)
    le = settings.leader_election
    if not le.lease_duration > le.renew_deadline > 1.2 * le.retry_period > 0:
        print(
            "crossfn controller run: error: want --leader-election-lease-duration > "
            "--leader-election-renew-deadline > 1.2 x --leader-election-retry-period > 0",
            file=sys.stderr,
        )
        return 2
    try:
        asyncio.run(manager.run(settings))
    except KeyboardInterrupt:  # a second Ctrl-C while draining
        print("crossfn: interrupted", file=sys.stderr)
        return 130
    except errors.CrossfnError as exc:
        missing = _missing_kind(exc) if settings.cluster.skip_crds else None
        if missing is None:
            raise
        raise errors.InputError(
            f"--skip-crds, but crossfn's Crossplane CRDs are not installed ({missing}): "
            "run crossfn controller init first, or start without --skip-crds"
        ) from exc
    return 0


def _missing_kind(exc: BaseException) -> str | None:
    """The API server's "no matches for kind" that ``exc`` is or wraps, else ``None``."""
    from crossfn.controller.kube import _api  # noqa: PLC0415 -- loads the Kubernetes client

    cause: BaseException | None = exc
    seen: set[int] = set()
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, _api.NoKindMatch):
            return str(cause)
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return None
