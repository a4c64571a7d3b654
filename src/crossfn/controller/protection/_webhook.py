"""The admission webhook that denies deleting a used resource: its handler, its HTTPS server, its registration.

Crossplane's core serves ``/validate-no-usages`` (``internal/webhook/protection/usage``)
and registers it in the ValidatingWebhookConfiguration ``crossplane-no-usages``
(webhook ``nousages.protection.crossplane.io``), which sends the API server's
DELETE requests of objects labelled ``crossplane.io/in-use: "true"`` here:

* :func:`review` answers one ``AdmissionReview``: a DELETE of an object some
  Usage protects (``_usages.Finder``) is denied with HTTP 409 and Crossplane's
  message, which the API server reports as ``admission webhook
  "nousages.protection.crossplane.io" denied the request: This resource is in-use
  by 1 usage(s), including the *v1beta1.Usage ...``; before denying, the object
  is annotated with the deletion's propagation policy, which a Usage with
  ``replayDeletion`` replays once it is gone (``_reconciler``). Any other
  operation is a 400, as Crossplane answers.
* :class:`WebhookServer` serves it over TLS (HTTP/1.1, TLS 1.3 at least, as
  Crossplane's webhook server), on ``--webhook-address``.
* :func:`configuration` and :func:`register` write the configuration, reaching
  the controller through a Service (``crossplane-webhooks`` in its namespace,
  port 9443, as Crossplane's chart) or a URL (a controller outside the cluster),
  with the CA that signed the serving certificate as its ``caBundle``.
* :func:`ensure_certificate` is ``core init``'s part: the serving certificate,
  signed by the CA in ``crossplane-root-ca``, in the Secret
  ``crossplane-tls-server``, made when missing.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import os
import ssl
import tempfile
import urllib.parse
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from crossfn import errors
from crossfn.controller import _settings
from crossfn.controller.crds import _kind
from crossfn.controller.kube import _api
from crossfn.controller.protection import _reconciler, _usages
from crossfn.controller.runtime import _tls

__all__ = [
    "CONFIGURATION_NAME",
    "PATH",
    "WEBHOOK_NAME",
    "ServingCertificate",
    "WebhookServer",
    "configuration",
    "ensure_certificate",
    "load_certificate",
    "register",
    "register_webhook",
    "review",
    "serving_certificate",
]

_log = logging.getLogger("crossfn.controller.webhook")

PATH = "/validate-no-usages"
CONFIGURATION_NAME = "crossplane-no-usages"
WEBHOOK_NAME = "nousages.protection.crossplane.io"
WEBHOOK_API_VERSION = "admissionregistration.k8s.io/v1"
MAX_BODY = 3 * 1024 * 1024
"""The largest AdmissionReview accepted: an object (etcd's 1.5 MiB limit) twice, and the envelope."""


# The handler ---------------------------------------------------------------------------------


async def review(api: _api.Api, finder: _usages.Finder, body: Mapping[str, Any]) -> dict[str, Any]:
    """The ``AdmissionReview`` answering ``body`` (see the module docstring)."""
    request = body.get("request") if isinstance(body.get("request"), Mapping) else {}
    assert isinstance(request, Mapping)
    response = await _respond(api, finder, request)
    return {
        "apiVersion": str(body.get("apiVersion") or "admission.k8s.io/v1"),
        "kind": "AdmissionReview",
        "response": {"uid": request.get("uid", ""), **response},
    }


def _errored(code: int, message: str) -> dict[str, Any]:
    """controller-runtime's ``admission.Errored``: not allowed, the code and the error as the message."""
    return {"allowed": False, "status": {"code": code, "message": message}}


async def _respond(api: _api.Api, finder: _usages.Finder, request: Mapping[str, Any]) -> dict[str, Any]:
    operation = str(request.get("operation") or "")
    if operation != "DELETE":
        return _errored(400, f'unexpected operation {errors.quote(operation)}, expected "DELETE"')
    obj = request.get("oldObject")
    if not isinstance(obj, dict):
        return _errored(400, "the request has no oldObject to delete")
    options = request.get("options") if isinstance(request.get("options"), Mapping) else {}
    assert isinstance(options, Mapping)
    usages = finder.find(obj)
    if not usages:
        return {"allowed": True, "status": {"code": 200}}
    message = _usages.in_use_message(usages)
    policy = str(options.get("propagationPolicy") or "Background")
    meta = obj.get("metadata") or {}
    if (meta.get("annotations") or {}).get(_reconciler.ANNOTATION_DELETION_ATTEMPT) != policy:
        patch = {"metadata": {"annotations": {_reconciler.ANNOTATION_DELETION_ATTEMPT: policy}}}
        try:
            await api.patch(
                str(obj.get("apiVersion")), str(obj.get("kind")), str(meta.get("name")),
                str(meta.get("namespace") or ""), patch,
            )  # fmt: skip
        except _api.ApiError as exc:
            return _errored(500, str(exc))
    return {"allowed": False, "status": {"code": 409, "reason": message}}


# The server ----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ServingCertificate:
    """The webhook's certificate and key (PEM), and the CA that signed it (the configuration's ``caBundle``)."""

    cert: bytes
    key: bytes
    ca: bytes


def _context(serving: ServingCertificate) -> ssl.SSLContext:
    """A server context with the certificate (loaded through a private temporary file: ``ssl`` reads files)."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_3
    context.set_alpn_protocols(["http/1.1"])
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "tls.pem"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(serving.key + b"\n" + serving.cert)
        context.load_cert_chain(path)
    return context


class WebhookServer:
    """Serves the webhook's path over TLS on one address; one request per connection."""

    def __init__(
        self,
        address: str,
        serving: ServingCertificate,
        handle: Callable[[Mapping[str, Any]], Any],
        *,
        split_address: Callable[[str], tuple[str | None, int]],
    ) -> None:
        """``handle(review)`` returns the response review (a coroutine); ``split_address`` reads ``address``."""
        self._address = address
        self._context = _context(serving)
        self._handle = handle
        self._split = split_address
        self._server: asyncio.Server | None = None

    @property
    def port(self) -> int:
        assert self._server is not None and self._server.sockets
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    @property
    def serving(self) -> bool:
        return self._server is not None and self._server.is_serving()

    async def start(self) -> None:
        host, port = self._split(self._address)
        try:
            self._server = await asyncio.start_server(self._serve, host, port, ssl=self._context)
        except OSError as exc:
            raise errors.InputError(
                f"cannot serve the usage webhook on --webhook-address {self._address}: {exc.strerror or exc}"
            ) from exc
        _log.info("serving the usage webhook", extra={"path": PATH, "port": self.port})

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            status, body = await self._answer(reader)
            head = (
                f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
            )
            writer.write(head.encode() + body)
            await writer.drain()
        except (TimeoutError, ConnectionError, ssl.SSLError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError, ssl.SSLError):
                await writer.wait_closed()

    async def _answer(self, reader: asyncio.StreamReader) -> tuple[str, bytes]:
        line = (await asyncio.wait_for(reader.readline(), 10)).decode("latin-1").split(" ")
        length = 0
        while (header := await asyncio.wait_for(reader.readline(), 10)) not in (b"\r\n", b"\n", b""):
            name, _, value = header.decode("latin-1").partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip() or 0)
        path = urllib.parse.urlsplit(line[1]).path if len(line) > 1 else ""
        if len(line) < 2 or line[0] != "POST" or path != PATH:
            return "404 Not Found", b'{"message":"not found"}'
        if not 0 < length <= MAX_BODY:
            return "400 Bad Request", b'{"message":"want an AdmissionReview body"}'
        data = await asyncio.wait_for(reader.readexactly(length), 10)
        try:
            body = json.loads(data)
        except ValueError:
            return "400 Bad Request", b'{"message":"the body is not JSON"}'
        if not isinstance(body, dict):
            return "400 Bad Request", b'{"message":"want an AdmissionReview object"}'
        try:
            answer = await self._handle(body)
        except Exception:  # a bug must not drop the connection: the API server then fails the delete
            _log.exception("cannot review a deletion")
            answer = {
                "response": {
                    "uid": (body.get("request") or {}).get("uid", ""),
                    **_errored(500, "internal error"),
                }
            }
        return "200 OK", json.dumps(answer).encode()


# The serving certificate ---------------------------------------------------------------------


def dns_names(service: str, namespace: str) -> list[str]:
    """The serving certificate's names for a Service (Crossplane's ``DNSNamesForService``)."""
    return [service, f"{service}.{namespace}", f"{service}.{namespace}.svc"]


def _url_host(url: str | None) -> tuple[list[str], list[str]]:
    """The DNS names and IP addresses a URL's host adds to the certificate."""
    if not url:
        return [], []
    host = urllib.parse.urlsplit(url).hostname or ""
    try:
        import ipaddress  # noqa: PLC0415 -- only for a URL, rarely

        ipaddress.ip_address(host)
    except ValueError:
        return ([host] if host else []), []
    return [], [host]


async def ensure_certificate(
    api: _api.Api, namespace: str, secret_name: str, *, service: str, url: str | None = None
) -> ServingCertificate:
    """The serving certificate from ``namespace/secret_name``, made first when its Secret is missing or empty.

    The CA is ``crossplane-root-ca``'s (made too when missing), as the function
    packages' certificates; the names are the Service's, and the URL's host when
    the API server calls a URL. A certificate that lacks one of those names is
    made again (Crossplane never replaces one: it is only ever called at its Service).
    """
    names, ips = _url_host(url)
    ca = await _tls.ensure_ca(api, namespace)
    await _tls.ensure_certificate(
        api, namespace, secret_name, ca, common_name=service, dns_names=[*dns_names(service, namespace), *names],
        usage="server", create=True, ip_addresses=ips, renew_for_names=True,
    )  # fmt: skip
    secret = await api.read("v1", "Secret", secret_name, namespace)
    data = _tls.secret_data(secret)
    return ServingCertificate(cert=data["tls.crt"], key=data["tls.key"], ca=data.get("ca.crt") or ca.cert)


def load_certificate(directory: str) -> ServingCertificate:
    """The serving certificate from ``tls.crt``, ``tls.key`` and ``ca.crt`` in a directory (``--tls-server-certs-dir``)."""
    root = Path(directory)
    try:
        return ServingCertificate(
            cert=(root / "tls.crt").read_bytes(),
            key=(root / "tls.key").read_bytes(),
            ca=(root / "ca.crt").read_bytes(),
        )
    except OSError as exc:
        raise errors.InputError(f"cannot load the webhook's TLS certificate from {directory}: {exc}") from exc


# The configuration ---------------------------------------------------------------------------


def configuration(
    ca_bundle: bytes,
    *,
    namespace: str,
    service: str = "crossplane-webhooks",
    port: int = 9443,
    url: str | None = None,
) -> dict[str, Any]:
    """Crossplane's ``crossplane-no-usages`` ValidatingWebhookConfiguration, calling a Service or ``url``.

    Only objects labelled in use are sent, only their deletion; the API server
    fails a deletion it cannot get an answer for (``failurePolicy: Fail``), as
    Crossplane's does. It carries crossfn's label, so it is only ever replaced
    by crossfn (:func:`register`).
    """
    import base64  # noqa: PLC0415 -- only registration encodes the bundle

    client: dict[str, Any] = {"caBundle": base64.b64encode(ca_bundle).decode()}
    if url:
        client["url"] = url.rstrip("/") + PATH
    else:
        client["service"] = {"name": service, "namespace": namespace, "path": PATH, "port": port}
    key, value = _kind.MANAGED_BY
    return {
        "apiVersion": WEBHOOK_API_VERSION,
        "kind": "ValidatingWebhookConfiguration",
        "metadata": {"name": CONFIGURATION_NAME, "labels": {key: value}},
        "webhooks": [
            {
                "name": WEBHOOK_NAME,
                "admissionReviewVersions": ["v1"],
                "clientConfig": client,
                "failurePolicy": "Fail",
                "objectSelector": {"matchLabels": {_reconciler.LABEL_IN_USE: "true"}},
                "rules": [
                    {"apiGroups": ["*"], "apiVersions": ["*"], "operations": ["DELETE"], "resources": ["*"]}
                ],
                "sideEffects": "None",
            }
        ],
    }


async def register(api: _api.Api, config: Mapping[str, Any]) -> str:
    """Create or update the configuration; never replace one that is not crossfn's. Says what it did.

    Crossplane's ``core init`` owns a configuration of the same name where
    Crossplane runs: then it is kept, and its webhook (Crossplane's) answers.
    """
    name = CONFIGURATION_NAME
    found = await api.get(WEBHOOK_API_VERSION, "ValidatingWebhookConfiguration", name)
    key, value = _kind.MANAGED_BY
    if found is not None and ((found.get("metadata") or {}).get("labels") or {}).get(key) != value:
        return f"validatingwebhookconfiguration.admissionregistration.k8s.io/{name} kept (not crossfn's)"
    try:
        applied = await api.apply(config, field_manager=_api.FIELD_MANAGER, force=True)
    except _api.ApiError as exc:
        raise errors.wrap(
            exc, f"cannot register the usage webhook in ValidatingWebhookConfiguration {name}"
        ) from exc
    version = (applied.get("metadata") or {}).get("resourceVersion")
    did = (
        "created"
        if found is None
        else "unchanged"
        if version == (found.get("metadata") or {}).get("resourceVersion")
        else "configured"
    )
    return f"validatingwebhookconfiguration.admissionregistration.k8s.io/{name} {did}"


# What the manager and ``controller init`` call -----------------------------------------------


async def serving_certificate(
    api: _api.Api, settings: _settings.WebhookSettings, namespace: str
) -> ServingCertificate:
    """The webhook's certificate: from ``--tls-server-certs-dir``, else its Secret in ``namespace``
    (made when missing); a namespace that is not there is the user's to fix, in one line."""
    if settings.tls_server_certs_dir:
        return load_certificate(settings.tls_server_certs_dir)
    try:
        return await ensure_certificate(
            api, namespace, settings.tls_server_secret_name, service=settings.service_name, url=settings.url
        )
    except _api.ApiError as exc:
        raise errors.InputError(
            f"cannot make the usage webhook's certificate in namespace {errors.quote(namespace)}: {exc} "
            "(create the namespace, pass --namespace, or --enable-webhooks=false)"
        ) from exc


async def register_webhook(
    api: _api.Api, settings: _settings.WebhookSettings, namespace: str, serving: ServingCertificate
) -> str:
    """Register the configuration for ``settings`` (the Service, or ``--webhook-url``); says what it did."""
    config = configuration(
        serving.ca,
        namespace=namespace,
        service=settings.service_name,
        port=settings.service_port,
        url=settings.url,
    )
    return await register(api, config)
