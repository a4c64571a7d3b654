"""``crossfn trace TYPE[.VERSION][.GROUP] [NAME]``: an XR's or claim's tree on a live cluster, as ``crossplane trace``.

Also spelt ``crossfn beta trace`` (Crossplane v1.14-v2.2) and ``crossfn resource
trace`` (today's crossplane CLI). Flags parse here; the work is
:mod:`crossfn.trace`, reading through the controller's Kubernetes client (the
``controller`` extra). The output is printed once it is complete; every error
is one line, with upstream's words around the cause:

* ``cannot get mapping for resource: the server doesn't have a resource type "x"``;
* ``cannot get requested resource: kind=K name=N namespace=NS (verify context,
  namespace, and that the resource exists): <the API server's message>``;
* ``invalid resource and name: ...`` for ``kind/name`` given with a NAME too.

``--watch`` prints the tree again whenever it changes (read every 2 seconds,
the screen cleared first on a terminal) until the object is deleted or the
user presses Ctrl-C. Package kinds (Functions, Providers, Configurations and
their revisions) are refused: crossfn's cluster has no package lock.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from crossfn import errors, extras
from crossfn.cli import _args, _output

if TYPE_CHECKING:  # both load the Kubernetes client: imported when the command runs
    from crossfn import trace
    from crossfn.controller.kube import _kube

__all__ = ["DESCRIPTION", "add_arguments", "register"]

DESCRIPTION = """\
Trace a Crossplane resource (a claim, a composite resource or a managed
resource) on the cluster of the current kubeconfig context: the resource and,
recursively, everything it composes, with each one's Synced and Ready
conditions. Without NAME, every resource of the kind is traced.

  crossfn trace xbucket my-bucket -n team-a
  crossfn trace xbuckets.example.org/my-bucket -o wide
  crossfn trace xbucket my-bucket -o dot | dot -Tpng -o graph.png
"""

WATCH_INTERVAL = 2.0
"""Seconds between reads in ``--watch`` mode (upstream re-reads every 2 s too)."""

_PACKAGE_KINDS = frozenset(
    ("Provider", "Configuration", "Function", "ProviderRevision", "ConfigurationRevision", "FunctionRevision")
)
_NAME_DOUBLED = (
    "name provided twice, must be provided separately 'TYPE[.VERSION][.GROUP] [NAME]' "
    "or in the 'TYPE[.VERSION][.GROUP][/NAME]' format"
)
_INVALID_RESOURCE = "invalid resource, must be provided in the 'TYPE[.VERSION][.GROUP][/NAME]' format"


def register(subparsers: Any) -> None:
    """Add the ``trace`` command."""
    add_arguments(
        subparsers.add_parser(
            "trace",
            help="Trace an XR or claim and the resources it composes, on a live cluster.",
            description=DESCRIPTION,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
    )


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add trace's arguments and handler to ``p`` (``trace`` and its Crossplane spellings)."""
    p.add_argument(
        "resource",
        metavar="TYPE[.VERSION][.GROUP][/NAME]",
        help="Kind of the resource, with its name after a slash or as the next argument.",
    )
    p.add_argument("name", metavar="NAME", nargs="?", default="", help="Name of the resource.")
    p.add_argument("-c", "--context", default=None, help="Kubernetes context (default: the current one).")
    p.add_argument(
        "--kubeconfig",
        metavar="FILE",
        default=None,
        help="kubeconfig file (default: $KUBECONFIG, then the in-cluster service account, then ~/.kube/config)",
    )
    p.add_argument(
        "-n", "--namespace", default="", help="Namespace of the resource (default: the context's)."
    )
    p.add_argument(
        "-o",
        "--output",
        choices=("default", "wide", "json", "dot", "yaml"),
        default="default",
        help="Output format. One of: default, wide, json, dot, yaml.",
    )
    p.add_argument(
        "-s", "--show-connection-secrets", action="store_true", help="Show connection secrets in the output."
    )
    packages = "Packages only; crossfn traces no packages."
    p.add_argument(
        "--show-package-dependencies", choices=("unique", "all", "none"), default="unique", help=packages
    )
    p.add_argument(
        "--show-package-revisions", choices=("active", "all", "none"), default="active", help=packages
    )
    p.add_argument("--show-package-runtime-configs", action="store_true", help=packages)
    p.add_argument(
        "--concurrency",
        type=_args.positive_int,
        default=5,
        help="Requests in flight while loading (default 5).",
    )
    p.add_argument(
        "-w", "--watch", action="store_true", help="Watch for changes until the resource is deleted."
    )
    p.add_argument("--as", dest="as_user", metavar="USER", help="Username to impersonate for the operation.")
    p.add_argument(
        "--as-group",
        action="append",
        default=[],
        metavar="GROUP",
        help="Group to impersonate for the operation. Repeat to specify multiple groups.",
    )
    p.add_argument("--as-uid", metavar="UID", help="UID to impersonate for the operation.")
    p.set_defaults(handler=_run)


def resource_and_name(resource: str, name: str) -> tuple[str, str]:
    """``TYPE`` and ``NAME`` from the two arguments (``TYPE/NAME`` or ``TYPE NAME``), with upstream's errors."""
    parts = resource.split("/")
    if len(parts) == 1 and parts[0]:
        return parts[0], name
    if len(parts) == 2:
        if name:
            raise errors.InputError(f"invalid resource and name: {_NAME_DOUBLED}")
        return parts[0], parts[1]
    raise errors.InputError(f"invalid resource and name: {_INVALID_RESOURCE}")


def _headers(args: argparse.Namespace) -> list[tuple[str, str]]:
    """Kubernetes' impersonation headers for ``--as``, ``--as-group`` and ``--as-uid``."""
    headers = [("Impersonate-User", args.as_user)] if args.as_user else []
    headers += [("Impersonate-Group", g) for g in args.as_group]
    if args.as_uid:
        headers.append(("Impersonate-Uid", args.as_uid))
    return headers


def _run(args: argparse.Namespace) -> int:
    extras.require("controller", "crossfn trace")
    return asyncio.run(_trace(args))


async def _trace(args: argparse.Namespace) -> int:
    from crossfn import trace  # noqa: PLC0415 -- the Kubernetes client loads only for this command
    from crossfn.controller.kube import _kube  # noqa: PLC0415

    api = _kube.KubeApi.from_kubeconfig(args.kubeconfig, context=args.context, headers=_headers(args))
    try:
        kind_arg, name = resource_and_name(args.resource, args.name)
        try:
            mapping = await trace.resolve(_discovery(api), kind_arg)
        except errors.CrossfnError as exc:
            raise errors.CrossfnError(f"cannot get mapping for resource: {exc}") from exc
        if mapping.group == "pkg.crossplane.io" and mapping.kind in _PACKAGE_KINDS:
            raise errors.InputError(
                f"cannot trace {mapping.kind}: crossfn traces claims, composite and managed resources, not packages"
            )
        namespace = (args.namespace or api.namespace) if mapping.namespaced else ""
        roots = await _roots(api, mapping, name, namespace)
        for root in roots:
            await trace.load_tree(
                api, root, connection_secrets=args.show_connection_secrets, concurrency=args.concurrency
            )
        if args.watch and name:
            try:
                return await _watch(api, args, roots[0])
            except asyncio.CancelledError:  # Ctrl-C ends a watch, as upstream's q or Ctrl-C does
                return 0
        text = _render(args.output, roots, as_list=not name)
        if args.watch:
            text += "error: you may only watch a single resource at a time\n"
        _output.write(text)
        return 0
    finally:
        await api.close()


def _discovery(api: _kube.KubeApi) -> Callable[[str], Awaitable[Any]]:
    """Discovery documents as JSON, through the client's plain GET."""

    async def get(path: str) -> Any:
        try:
            return json.loads(await api.raw_get(path))
        except ValueError as exc:  # not the API server answering (a proxy's page)
            raise errors.CrossfnError(f"cannot decode discovery document /{path}: {exc}") from exc

    return get


async def _roots(
    api: _kube.KubeApi, mapping: trace.Mapping, name: str, namespace: str
) -> list[trace.Resource]:
    """The named object, or every object of the kind; failing to read them is the command's error."""
    from crossfn import trace  # noqa: PLC0415

    where = f"kind={mapping.kind} name={name or '<all>'} namespace={namespace}"
    try:
        if not name:
            return list(await trace.read_all(api, mapping.api_version, mapping.kind, namespace))
        return [trace.Resource(await api.read(mapping.api_version, mapping.kind, name, namespace))]
    except errors.CrossfnError as exc:
        raise errors.CrossfnError(
            f"cannot get requested resource: {where} (verify context, namespace, and that the resource exists): {exc}"
        ) from exc


def _render(output: str, roots: list[trace.Resource], *, as_list: bool) -> str:
    from crossfn import trace  # noqa: PLC0415

    try:
        return trace.render(output, roots, as_list=as_list)
    except errors.CrossfnError as exc:
        raise errors.CrossfnError(f"cannot print output: {exc}") from exc


async def _watch(api: _kube.KubeApi, args: argparse.Namespace, root: trace.Resource) -> int:
    """Print the tree, then again whenever it changes, until the object is gone."""
    from crossfn import trace  # noqa: PLC0415
    from crossfn.controller.kube import _api  # noqa: PLC0415

    clear = "\x1b[H\x1b[2J" if sys.stdout.isatty() else ""
    last = ""
    while True:
        text = _render(args.output, [root], as_list=False)
        if text != last:
            _output.write(clear + text)
            last = text
        await asyncio.sleep(WATCH_INTERVAL)
        try:
            obj = await api.read(root.api_version, root.kind, root.name, root.namespace)
        except _api.NotFound:
            return 0
        except errors.CrossfnError as exc:
            raise errors.CrossfnError(f"cannot get requested resource: {exc}") from exc
        root = await trace.load_tree(
            api,
            trace.Resource(obj),
            connection_secrets=args.show_connection_secrets,
            concurrency=args.concurrency,
        )
