"""What the end-to-end tests share: the Widget kind, XRDs of three flavours, Compositions, waiting.

Composed resources are ``Widget`` objects (a test CRD with a status
subresource), so a test can mark one Ready as a provider would, and auto-ready
sees it. Names are unique per flavour so the tests share one API server.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import pathlib
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar, cast

from crossfn.controller.kube import _api

T = TypeVar("T")

HERE = pathlib.Path(__file__).parent
FUNCTIONS_DIR = HERE / "e2e"
WIDGET_GROUP = "e2e.crossfn.io"
WIDGET_API = f"{WIDGET_GROUP}/v1"
COMPOSED_NAMESPACE = "e2e-composed"
CONTROLLER_NAMESPACE = "crossplane-system"
"""The controller's namespace (default ``--namespace``): the CA, the client certificate, function Deployments."""
PAT_PACKAGE = "xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform:v0.10.8"
AUTO_READY_PACKAGE = "xpkg.crossplane.io/crossplane-contrib/function-auto-ready:v0.7.0"
_FREE = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}

WIDGET_CRD: dict[str, Any] = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": f"widgets.{WIDGET_GROUP}"},
    "spec": {
        "group": WIDGET_GROUP,
        "names": {"kind": "Widget", "plural": "widgets", "singular": "widget", "listKind": "WidgetList"},
        "scope": "Namespaced",
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "subresources": {"status": {}},
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "properties": {
                            "spec": {
                                "type": "object",
                                "properties": {"size": {"type": "string"}},
                                "x-kubernetes-preserve-unknown-fields": True,
                            },
                            "status": _FREE,
                        },
                    }
                },
            }
        ],
    },
}


@dataclasses.dataclass(frozen=True)
class Flavour:
    """One kind of XRD: v2 namespaced, v2 cluster, or legacy v1."""

    id: str
    xrd_api: str
    scope: str | None
    group: str
    xr_namespace: str

    @property
    def legacy(self) -> bool:
        return self.scope is None

    @property
    def xr_api(self) -> str:
        return f"{self.group}/v1"

    @property
    def xrd_name(self) -> str:
        return f"xwidgets.{self.group}"

    def xrd(self) -> dict[str, Any]:
        spec: dict[str, Any] = {
            "group": self.group,
            "names": {"kind": "XWidget", "plural": "xwidgets"},
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "referenceable": True,
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "properties": {
                                "spec": {"type": "object", "properties": {"size": {"type": "string"}}},
                                "status": {"type": "object", "properties": {"seen": {"type": "string"}}},
                            },
                        }
                    },
                }
            ],
        }
        if self.scope is not None:
            spec["scope"] = self.scope
        return {
            "apiVersion": self.xrd_api,
            "kind": "CompositeResourceDefinition",
            "metadata": {"name": self.xrd_name},
            "spec": spec,
        }

    def composed_namespace(self, xr: dict[str, Any]) -> str:
        return str(xr["metadata"].get("namespace") or COMPOSED_NAMESPACE)

    def xr(self, name: str, composition: str, size: str) -> dict[str, Any]:
        meta: dict[str, Any] = {"name": name}
        if self.xr_namespace:
            meta["namespace"] = self.xr_namespace
        ref = {"compositionRef": {"name": composition}}
        spec: dict[str, Any] = {"size": size, **(ref if self.legacy else {"crossplane": ref})}
        return {"apiVersion": self.xr_api, "kind": "XWidget", "metadata": meta, "spec": spec}

    def composition(
        self, name: str, resources: list[str], extra_steps: list[dict[str, Any]] | None = None
    ) -> dict[str, Any]:
        base_meta = {} if self.xr_namespace else {"namespace": COMPOSED_NAMESPACE}
        pat = {
            "apiVersion": "pt.fn.crossplane.io/v1beta1",
            "kind": "Resources",
            "resources": [
                {
                    "name": r,
                    "base": {"apiVersion": WIDGET_API, "kind": "Widget", "metadata": base_meta, "spec": {}},
                    "patches": [
                        {
                            "type": "FromCompositeFieldPath",
                            "fromFieldPath": "spec.size",
                            "toFieldPath": "spec.size",
                        }
                    ],
                }
                for r in resources
            ],
        }
        pipeline = [
            {
                "step": "patch-and-transform",
                "functionRef": {"name": "function-patch-and-transform"},
                "input": pat,
            },
            *(extra_steps or []),
            {"step": "auto-ready", "functionRef": {"name": "function-auto-ready"}},
        ]
        return {
            "apiVersion": "apiextensions.crossplane.io/v1",
            "kind": "Composition",
            "metadata": {"name": name},
            "spec": {
                "compositeTypeRef": {"apiVersion": self.xr_api, "kind": "XWidget"},
                "mode": "Pipeline",
                "pipeline": pipeline,
            },
        }


FLAVOURS = [
    Flavour("V2Namespaced", "apiextensions.crossplane.io/v2", "Namespaced", "ns.e2e.crossfn.io", "e2e-xrs"),
    Flavour("V2Cluster", "apiextensions.crossplane.io/v2", "Cluster", "cl.e2e.crossfn.io", ""),
    Flavour("LegacyV1", "apiextensions.crossplane.io/v1", None, "legacy.e2e.crossfn.io", ""),
]


def function(name: str, package: str, endpoint: str = "") -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if endpoint:
        meta["annotations"] = {"crossfn.io/endpoint": endpoint}
    return {
        "apiVersion": "pkg.crossplane.io/v1",
        "kind": "Function",
        "metadata": meta,
        "spec": {"package": package},
    }


def namespace(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


async def wait_for(check: Callable[[], Awaitable[T | None]], *, timeout: float, what: str) -> T:
    """Poll ``check`` until it returns something truthy; fail naming ``what`` and the last value."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while True:
        try:
            last = await check()
        except _api.ApiError as exc:  # the API server restarting, a kind not served yet
            last = exc
        else:
            if last:
                return cast(T, last)
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g}s waiting for {what}; last: {last!r}")
        await asyncio.sleep(0.05)


def condition(obj: dict[str, Any] | None, type_: str) -> dict[str, Any]:
    for c in ((obj or {}).get("status") or {}).get("conditions") or []:
        if c.get("type") == type_:
            return dict(c)
    return {}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Process:
    """A subprocess whose stderr lines are collected by a thread, stopped with SIGTERM."""

    def __init__(
        self, args: list[str], *, cwd: pathlib.Path = FUNCTIONS_DIR, env: dict[str, str] | None = None
    ) -> None:
        self.proc = subprocess.Popen(
            args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            env={**os.environ, **(env or {})}, start_new_session=True,
        )  # fmt: skip
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line)

    def wait_serving(self, address: str, timeout: float = 60) -> None:
        """Wait until ``address`` accepts TCP connections (any gRPC server)."""
        host, _, port = address.rpartition(":")
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise AssertionError(f"{self.proc.args!r} exited: {''.join(self.lines)}")
            with contextlib.suppress(OSError), socket.create_connection((host, int(port)), timeout=0.5):
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.proc.args!r} not serving at {address}: {''.join(self.lines)}")
            time.sleep(0.05)

    def wait(self, timeout: float) -> int:
        """Its exit status once it exits by itself, with every line it wrote read (the reader lags the exit)."""
        status = self.proc.wait(timeout=timeout)
        self._reader.join(5)
        return status

    def stop(self, timeout: float = 20) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            status = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            status = self.proc.wait()
        self._reader.join(5)
        assert self.proc.stderr is not None
        self.proc.stderr.close()
        return status


@contextlib.contextmanager
def crossfn_serve(function_ref: str, *flags: str) -> Iterator[str]:
    """``crossfn function serve`` of a test function on 127.0.0.1, in its own process; yields its address."""
    address = f"127.0.0.1:{free_port()}"
    p = Process(
        [
            sys.executable,
            "-m",
            "crossfn",
            "function",
            "serve",
            function_ref,
            "--insecure",
            "--address",
            address,
            *flags,
        ],
        env={"TLS_SERVER_CERTS_DIR": "", "INSECURE": "", "WORKERS": "", "E2E_WIDGET_API": WIDGET_API},
    )
    try:
        p.wait_serving(address)
        yield address
    finally:
        p.stop()


@contextlib.contextmanager
def official_serve() -> Iterator[str]:
    """The official Python SDK's runtime serving ``official_function.py``, in its own process."""
    address = f"127.0.0.1:{free_port()}"
    p = Process(
        [sys.executable, str(FUNCTIONS_DIR / "official_function.py"), address],
        env={"E2E_WIDGET_API": WIDGET_API},
    )
    try:
        p.wait_serving(address)
        yield address
    finally:
        p.stop()
