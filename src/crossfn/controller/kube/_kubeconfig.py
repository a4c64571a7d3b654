"""Reading a kubeconfig (or the in-cluster service account) into what a client connects with.

lightkube's own loader reports a malformed file with whatever Python raised on
the way (``'str' object has no attribute 'get'``, a YAML error spread over
several lines), and some mistakes (a token file that cannot be read) only when
the first request goes out. A user needs one line naming the file and the
field, at start-up. So the file is read, parsed and checked here, field by
field, and every problem is an :class:`~crossfn.errors.InputError`
``cannot load kubeconfig <file>: <field>: <problem>``. lightkube still provides
the models (msgspec structs, which also check each field's type) and the
authentication flows: tokens, token files re-read when the kubelet rotates
them, exec credential plugins, basic auth.

Which file: the path given, else the first file of ``$KUBECONFIG``, else the
in-cluster service account, else ``~/.kube/config`` (kubectl's order, with the
service account where kubectl would fall back to ``localhost:8080``).
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import os
import re
import ssl
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

import httpx2
import msgspec
from lightkube.config import client_adapter, models

from crossfn import errors
from crossfn.gocompat import values, yaml_loader

__all__ = ["Connection", "load"]

SERVICE_ACCOUNT = Path("/var/run/secrets/kubernetes.io/serviceaccount")
DEFAULT_KUBECONFIG = Path("~/.kube/config")
_EXEC_VERSIONS = ("client.authentication.k8s.io/v1beta1", "client.authentication.k8s.io/v1alpha1")
"""The exec credential versions lightkube's plugin runner speaks."""

_Struct = TypeVar("_Struct", bound=msgspec.Struct)


@dataclasses.dataclass(frozen=True)
class Connection:
    """Where the API server is and how to talk to it; ``source`` names the file it came from."""

    server: str
    verify: ssl.SSLContext
    auth: httpx2.Auth | None
    source: str
    namespace: str = "default"
    """The context's namespace (the service account's, in a cluster): where a command looks by default."""


class _ProblemError(errors.InputError):
    """One problem in one field; :func:`load` prefixes the file."""


def load(path: str | None = None, *, context: str | None = None) -> Connection:
    """The connection ``path`` (or the environment, see the module docstring) describes."""
    if path:
        return _from_file(Path(path), context)
    candidates = [p for p in os.environ.get("KUBECONFIG", "").split(os.pathsep) if p]
    if candidates:
        return _from_file(Path(candidates[0]), context)
    if os.environ.get("KUBERNETES_SERVICE_HOST"):
        return _in_cluster(SERVICE_ACCOUNT)
    return _from_file(DEFAULT_KUBECONFIG.expanduser(), context)


def _from_file(path: Path, context: str | None) -> Connection:
    try:
        document = _read(path)
        return _connection(document, path, context)
    except _ProblemError as exc:
        raise errors.InputError(f"cannot load kubeconfig {path}: {exc}") from exc


def _read(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise _ProblemError("no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise _ProblemError(f"cannot read it: {_reason(exc)}") from exc
    try:
        docs = yaml_loader.load_all(text, as_json=True)
    except errors.InputError as exc:
        raise _ProblemError(f"not valid YAML: {exc}") from exc
    document = docs[0] if docs else None
    if document is None:
        raise _ProblemError("the file is empty")
    if not isinstance(document, dict):
        raise _ProblemError(
            f"not a kubeconfig: the document is {values.a_json_type(document)}, not a mapping"
        )
    return document


def _connection(document: Mapping[str, Any], path: Path, context: str | None) -> Connection:
    """Resolve the context to its cluster and user, field by field."""
    name = context or document.get("current-context")
    if not name:
        raise _ProblemError("current-context: not set, and no context was given")
    ctx_field = f"contexts[{name}].context"
    ctx = _convert(_entry(document, "contexts", str(name), "context"), models.Context, ctx_field)
    if not ctx.cluster:
        raise _ProblemError(f"{ctx_field}.cluster: not set")
    cluster_field = f"clusters[{ctx.cluster}].cluster"
    raw_cluster = _entry(document, "clusters", ctx.cluster, "cluster")
    cluster = _convert(raw_cluster, models.Cluster, cluster_field)
    if not raw_cluster.get("server"):  # lightkube's model would default to localhost:8080
        raise _ProblemError(f"{cluster_field}.server: not set")
    user, user_field = models.User(), "users[-]"  # no user: an unauthenticated endpoint (kubectl proxy)
    if ctx.user:
        user_field = f"users[{ctx.user}].user"
        user = _convert(_entry(document, "users", ctx.user, "user"), models.User, user_field)
    base = path.parent
    verify = _verify(cluster, cluster_field, base)
    _client_certificate(verify, user, user_field, base)
    return Connection(
        cluster.server, verify, _auth(user, user_field, base), str(path), ctx.namespace or "default"
    )


def _entry(document: Mapping[str, Any], section: str, name: str, key: str) -> Any:
    """``document[section][name=name][key]``: a kubeconfig's named lists (contexts, clusters, users)."""
    entries = document.get(section)
    if entries is None:
        entries = []
    if not isinstance(entries, list):
        raise _ProblemError(f"{section}: not a list but {values.a_json_type(entries)}")
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise _ProblemError(f"{section}[{index}]: not a mapping with a name")
        if entry["name"] == name:
            return entry.get(key) or {}
    raise _ProblemError(f'{section}: no {section[:-1]} named "{name}"')


def _convert(value: Any, model: type[_Struct], field: str) -> _Struct:
    """``value`` as lightkube's model; a wrong type or a missing field names the field."""
    try:
        return msgspec.convert(value, model)
    except msgspec.ValidationError as exc:
        message, _, where = str(exc).partition(" - at `$")
        where = where.rstrip("`")
        missing = re.fullmatch(r"Object missing required field `(.+)`", message)
        if missing:
            raise _ProblemError(f"{field}{where}.{missing[1]}: not set") from exc
        raise _ProblemError(f"{field}{where}: {message[:1].lower()}{message[1:]}") from exc


def _verify(cluster: models.Cluster, field: str, base: Path) -> ssl.SSLContext:
    """The TLS context that checks the API server's certificate (or, when told so, does not)."""
    if cluster.certificate_auth:
        ca = _resolve(cluster.certificate_auth, base)
        try:
            return ssl.create_default_context(cafile=str(ca))
        except (OSError, ssl.SSLError) as exc:
            raise _ProblemError(f"{field}.certificate-authority: cannot load {ca}: {_reason(exc)}") from exc
    if cluster.certificate_auth_data:
        data_field = f"{field}.certificate-authority-data"
        pem = _base64(cluster.certificate_auth_data, data_field)
        try:
            return ssl.create_default_context(cadata=pem.decode("latin-1"))
        except (ssl.SSLError, ValueError) as exc:
            raise _ProblemError(f"{data_field}: not a PEM certificate: {_reason(exc)}") from exc
    return httpx2.create_ssl_context(verify=not cluster.insecure)


def _client_certificate(verify: ssl.SSLContext, user: models.User, field: str, base: Path) -> None:
    """Add the user's client certificate and key (files or inline data) to ``verify``."""
    cert = ("client-certificate", user.client_cert, user.client_cert_data)
    key = ("client-key", user.client_key, user.client_key_data)
    if not (cert[1] or cert[2] or key[1] or key[2]):
        return
    with tempfile.TemporaryDirectory(prefix="crossfn-kubeconfig-") as scratch:
        files = []
        for (name, file, data), other in ((cert, key[0]), (key, cert[0])):
            if data:
                inline = Path(scratch, name)
                inline.write_bytes(_base64(data, f"{field}.{name}-data"))
                files.append(inline)
            elif file:
                files.append(_resolve(file, base))
            else:
                raise _ProblemError(f"{field}.{name}: not set ({other} needs it)")
        try:
            verify.load_cert_chain(files[0], files[1])
        except (OSError, ssl.SSLError) as exc:
            raise _ProblemError(
                f"{field}: cannot load the client certificate and key: {_reason(exc)}"
            ) from exc


def _auth(user: models.User, field: str, base: Path) -> httpx2.Auth | None:
    """The request authentication; files and plugins are checked now, not at the first request."""
    if user.auth_provider:
        raise _ProblemError(f"{field}.auth-provider: not supported, use an exec credential plugin")
    if user.exec and user.exec.apiVersion not in _EXEC_VERSIONS:
        raise _ProblemError(
            f'{field}.exec.apiVersion: "{user.exec.apiVersion}" is not supported, only {", ".join(_EXEC_VERSIONS)}'
        )
    if user.username and not user.password:
        raise _ProblemError(f"{field}.password: not set (username needs it)")
    if user.token_file:
        token_file = _resolve(user.token_file, base)
        try:
            token_file.read_bytes()
        except OSError as exc:
            raise _ProblemError(f"{field}.tokenFile: cannot read {token_file}: {_reason(exc)}") from exc
        user = msgspec.structs.replace(user, token_file=str(token_file))
    return client_adapter.user_auth(user)


def _in_cluster(account: Path) -> Connection:
    """The pod's service account: its token file (re-read on rotation) and the cluster CA."""
    host, port = os.environ.get("KUBERNETES_SERVICE_HOST", ""), os.environ.get("KUBERNETES_SERVICE_PORT", "")
    where = f"cannot load the in-cluster configuration from {account}"
    if not port:
        raise errors.InputError(f"{where}: KUBERNETES_SERVICE_PORT is not set")
    host = f"[{host}]" if ":" in host else host
    server = f"https://{host}:{port}"
    ca, token = account / "ca.crt", account / "token"
    try:
        token.read_bytes()
        verify = ssl.create_default_context(cafile=str(ca))
    except (OSError, ssl.SSLError) as exc:
        failed = token if not isinstance(exc, ssl.SSLError) and exc.filename == str(token) else ca
        raise errors.InputError(f"{where}: cannot load {failed}: {_reason(exc)}") from exc
    try:
        namespace = (account / "namespace").read_text().strip()
    except OSError:
        namespace = ""
    return Connection(
        server,
        verify,
        client_adapter.user_auth(models.User(token_file=str(token))),
        str(account),
        namespace or "default",
    )


def _resolve(file: str, base: Path) -> Path:
    """A path in a kubeconfig is relative to the kubeconfig's directory (kubectl's rule)."""
    path = Path(file).expanduser()
    return path if path.is_absolute() else base / path


def _base64(data: str, field: str) -> bytes:
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise _ProblemError(f"{field}: not base64: {_reason(exc)}") from exc


def _reason(exc: BaseException) -> str:
    """An exception as one short line: ``strerror`` for OS errors, the first line otherwise."""
    if isinstance(exc, OSError) and not isinstance(exc, ssl.SSLError) and exc.strerror:
        return exc.strerror
    text = " ".join(str(exc).split()) or type(exc).__name__
    return re.sub(r" \(_ssl\.c:\d+\)$", "", text)
