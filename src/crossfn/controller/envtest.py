"""A real Kubernetes control plane for tests: etcd, kube-apiserver and, on request, the GC.

This is controller-runtime's *envtest* in Python. The binaries are not ours: they
are found in the directory named by ``KUBEBUILDER_ASSETS`` (``etcd``,
``kube-apiserver``, ``kube-controller-manager``), exactly as Go projects find
them, so ``setup-envtest use -p path`` or a cluster's own binaries work too
(``docs/development.md``). :class:`Environment` starts etcd from a config file
(this etcd build reads only ``--config-file``), then the API server with RBAC,
a static admin token in ``system:masters``, generated certificates and
service-account keys, all on loopback and free ports, waits for ``/readyz`` and
writes a kubeconfig that any client (ours, ``kubectl``) can use.

Without ``kube-controller-manager`` nothing cascades (owned objects outlive
their owner, namespaces stay Terminating), so :meth:`Environment.start_controller_manager`
runs its garbage collector and namespace controller for the tests that need it.

Every process runs in its own process group and :meth:`Environment.stop` kills
exactly those groups and removes the temporary directory; an ``atexit`` hook
does the same if a test run dies before it. The module needs ``cryptography``
(the ``dev`` extra); nothing in the controller imports it.
"""

from __future__ import annotations

import atexit
import base64
import contextlib
import datetime
import ipaddress
import json
import os
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from crossfn import errors

__all__ = ["ASSETS_VARIABLE", "Environment", "EnvtestError", "assets_directory"]

ASSETS_VARIABLE = "KUBEBUILDER_ASSETS"
"""The environment variable naming the directory that holds the binaries (controller-runtime's name)."""

_READY_TIMEOUT = 90.0
"""Seconds to wait for ``/readyz``: about 4 s on an idle machine, far more on two busy cores."""

_STOP_GRACE = 10.0
"""Seconds a process group gets after SIGTERM before SIGKILL."""


class EnvtestError(errors.CrossfnError):
    """The control plane could not be started: a binary is missing or a process did not become ready."""


def assets_directory() -> str | None:
    """The directory named by ``KUBEBUILDER_ASSETS``, or ``None`` when the variable is unset or empty."""
    return os.environ.get(ASSETS_VARIABLE) or None


def _free_port() -> int:
    """A port that was free a moment ago (bind port 0 and let go)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class _Pki:
    """The certificates and keys of one environment, written to ``directory``.

    One CA signs the serving certificate (SAN ``127.0.0.1`` and ``localhost``) and
    is also the client CA. EC P-256 keys: generated in microseconds, accepted
    everywhere in Kubernetes.
    """

    def __init__(self, directory: Path) -> None:
        now = datetime.datetime.now(datetime.UTC)
        ca_key = ec.generate_private_key(ec.SECP256R1())
        ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "crossfn-envtest-ca")])
        ca = (
            x509.CertificateBuilder()
            .subject_name(ca_name)
            .issuer_name(ca_name)
            .public_key(ca_key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=7))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(
                x509.KeyUsage(
                    digital_signature=True,
                    content_commitment=False,
                    key_encipherment=False,
                    data_encipherment=False,
                    key_agreement=False,
                    key_cert_sign=True,
                    crl_sign=True,
                    encipher_only=False,
                    decipher_only=False,
                ),
                critical=True,
            )
            .sign(ca_key, hashes.SHA256())
        )
        serving_key = ec.generate_private_key(ec.SECP256R1())
        serving = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kube-apiserver")]))
            .issuer_name(ca_name)
            .public_key(serving_key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=7))
            .add_extension(
                x509.SubjectAlternativeName(
                    [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]
                ),
                critical=False,
            )
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .sign(ca_key, hashes.SHA256())
        )
        sa_key = ec.generate_private_key(ec.SECP256R1())
        self.ca_pem = ca.public_bytes(serialization.Encoding.PEM)
        self.ca_file = directory / "ca.crt"
        self.cert_file = directory / "apiserver.crt"
        self.key_file = directory / "apiserver.key"
        self.sa_public_file = directory / "sa.pub"
        self.sa_private_file = directory / "sa.key"
        self.ca_file.write_bytes(self.ca_pem)
        self.cert_file.write_bytes(serving.public_bytes(serialization.Encoding.PEM))
        self.key_file.write_bytes(_private_pem(serving_key))
        self.sa_private_file.write_bytes(_private_pem(sa_key))
        self.sa_public_file.write_bytes(
            sa_key.public_key().public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            )
        )


def _private_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


class _Process:
    """One child in its own process group, its output in a log file."""

    def __init__(self, name: str, argv: list[str], log: Path) -> None:
        self.name = name
        self.log = log
        with log.open("ab") as out:
            self.popen = subprocess.Popen(
                argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True
            )

    def alive(self) -> bool:
        return self.popen.poll() is None

    def tail(self, lines: int = 15) -> str:
        """The end of the log, for an error message that says why the process failed."""
        try:
            text = self.log.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def stop(self, grace: float = _STOP_GRACE) -> None:
        """SIGTERM the process group, SIGKILL it after ``grace`` seconds (at once when 0); reap the child."""
        if self.popen.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.popen.pid, signal.SIGTERM if grace > 0 else signal.SIGKILL)
        try:
            self.popen.wait(grace if grace > 0 else None)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.popen.pid, signal.SIGKILL)
            self.popen.wait()


class Environment:
    """etcd + kube-apiserver (+ kube-controller-manager) started from ``KUBEBUILDER_ASSETS``.

    ``start()`` blocks until the API server is ready (a few seconds); the
    attributes ``url``, ``token``, ``kubeconfig`` (a file path) and ``ca_pem``
    describe how to reach it. It is synchronous on purpose: session fixtures
    and scripts start it once; async tests call :meth:`restart_apiserver`
    through ``asyncio.to_thread``.
    """

    def __init__(self, assets: str | None = None) -> None:
        directory = assets or assets_directory()
        if directory is None:
            raise EnvtestError(f"cannot start the test control plane: {ASSETS_VARIABLE} is not set")
        self.assets = Path(directory)
        self.token = secrets.token_hex(16)
        self.port = 0
        self.url = ""
        self.kubeconfig = ""
        self.ca_pem = b""
        self._dir: Path | None = None
        self._etcd: _Process | None = None
        self._apiserver: _Process | None = None
        self._controller_manager: _Process | None = None
        self._etcd_url = ""

    def _binary(self, name: str) -> str:
        path = self.assets / name
        if not os.access(path, os.X_OK):
            raise EnvtestError(f"cannot start {name}: no executable {path} ({ASSETS_VARIABLE}={self.assets})")
        return str(path)

    @property
    def directory(self) -> Path:
        """The temporary directory holding data, certificates, logs and the kubeconfig."""
        if self._dir is None:
            raise EnvtestError("cannot use the test control plane: it is not started")
        return self._dir

    def start(self) -> None:
        """Start etcd and the API server, wait for ``/readyz``, write the kubeconfig."""
        self._dir = Path(tempfile.mkdtemp(prefix="crossfn-envtest-"))
        atexit.register(self.stop)
        try:
            pki = _Pki(self._dir)
            self.ca_pem = pki.ca_pem
            (self._dir / "tokens.csv").write_text(f'{self.token},admin,admin-uid,"system:masters"\n')
            self._start_etcd()
            self.port = _free_port()
            self.url = f"https://127.0.0.1:{self.port}"
            self.start_apiserver()
            self.kubeconfig = str(self._dir / "kubeconfig")
            Path(self.kubeconfig).write_text(self.kubeconfig_text())
        except BaseException:
            self.stop()
            raise

    def _start_etcd(self) -> None:
        client, peer = _free_port(), _free_port()
        self._etcd_url = f"http://127.0.0.1:{client}"
        config = self.directory / "etcd.yaml"
        # The keys the envtest README found to work; JSON is YAML, so no yaml import here.
        config.write_text(
            "\n".join(
                [
                    "name: envtest",
                    f"data-dir: {self.directory / 'etcd'}",
                    f"listen-client-urls: {self._etcd_url}",
                    f"advertise-client-urls: {self._etcd_url}",
                    f"listen-peer-urls: http://127.0.0.1:{peer}",
                    f"initial-advertise-peer-urls: http://127.0.0.1:{peer}",
                    f"initial-cluster: envtest=http://127.0.0.1:{peer}",
                    "initial-cluster-state: new",
                    "logger: zap",
                    "log-level: error",
                    "unsafe-no-fsync: true",
                    "",
                ]
            )
        )
        self._etcd = _Process(
            "etcd", [self._binary("etcd"), "--config-file", str(config)], self.directory / "etcd.log"
        )
        self._wait("etcd", self._etcd, lambda: _http_ok(f"{self._etcd_url}/health"))

    def start_apiserver(self) -> None:
        """Start the API server on ``self.port`` against the running etcd and wait until it is ready."""
        pki_dir = self.directory
        argv = [
            self._binary("kube-apiserver"),
            f"--etcd-servers={self._etcd_url}",
            "--bind-address=127.0.0.1",
            "--advertise-address=127.0.0.1",
            f"--secure-port={self.port}",
            f"--cert-dir={pki_dir / 'apiserver-certs'}",
            f"--tls-cert-file={pki_dir / 'apiserver.crt'}",
            f"--tls-private-key-file={pki_dir / 'apiserver.key'}",
            f"--client-ca-file={pki_dir / 'ca.crt'}",
            f"--token-auth-file={pki_dir / 'tokens.csv'}",
            "--authorization-mode=RBAC",
            "--service-account-issuer=https://kubernetes.default.svc",
            f"--service-account-key-file={pki_dir / 'sa.pub'}",
            f"--service-account-signing-key-file={pki_dir / 'sa.key'}",
            "--service-cluster-ip-range=10.0.0.0/24",
            "--disable-admission-plugins=ServiceAccount",
            "--allow-privileged=true",
            "--endpoint-reconciler-type=none",
            "--profiling=false",
        ]
        self._apiserver = _Process("kube-apiserver", argv, self.directory / "kube-apiserver.log")
        self._wait("kube-apiserver", self._apiserver, lambda: self._get_ok("/readyz"))

    def stop_apiserver(self, *, grace: float = 0.0) -> None:
        """Stop the API server only (etcd and its data stay): watches break, requests fail.

        By default it is killed, as in a crash: a graceful stop waits for every
        open watch to end, which takes a client's whole watch timeout.
        """
        if self._apiserver is not None:
            self._apiserver.stop(grace)
            self._apiserver = None

    def restart_apiserver(self) -> None:
        """Stop and start the API server on the same port and etcd, for fault tests."""
        self.stop_apiserver()
        self.start_apiserver()

    def start_controller_manager(self) -> None:
        """Run kube-controller-manager's garbage collector, namespace controller and ClusterRole aggregation
        (idempotent)."""
        if self._controller_manager is not None and self._controller_manager.alive():
            return
        port = _free_port()
        argv = [
            self._binary("kube-controller-manager"),
            f"--kubeconfig={self.kubeconfig}",
            f"--authentication-kubeconfig={self.kubeconfig}",
            f"--authorization-kubeconfig={self.kubeconfig}",
            "--controllers=garbage-collector-controller,namespace-controller,clusterrole-aggregation-controller",
            "--bind-address=127.0.0.1",
            f"--secure-port={port}",
            f"--cert-dir={self.directory / 'controller-manager-certs'}",
            "--leader-elect=false",
            "--authentication-skip-lookup=true",
            "--use-service-account-credentials=false",
        ]
        process = _Process("kube-controller-manager", argv, self.directory / "kube-controller-manager.log")
        self._controller_manager = process
        self._wait(
            "kube-controller-manager",
            process,
            lambda: _http_ok(f"https://127.0.0.1:{port}/healthz", insecure=True),
        )

    def kubeconfig_text(self) -> str:
        """A kubeconfig (JSON, which is YAML) with the CA and the admin token."""
        return json.dumps(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [
                    {
                        "name": "envtest",
                        "cluster": {
                            "server": self.url,
                            "certificate-authority-data": base64.b64encode(self.ca_pem).decode(),
                        },
                    }
                ],
                "users": [{"name": "admin", "user": {"token": self.token}}],
                "contexts": [{"name": "envtest", "context": {"cluster": "envtest", "user": "admin"}}],
                "current-context": "envtest",
            },
            indent=2,
        )

    def stop(self) -> None:
        """Kill exactly this environment's process groups and remove its temporary directory."""
        for process in (self._controller_manager, self._apiserver, self._etcd):
            if process is not None:
                process.stop()
        self._controller_manager = self._apiserver = self._etcd = None
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None
        atexit.unregister(self.stop)

    def _get_ok(self, path: str) -> bool:
        return _http_ok(f"{self.url}{path}", ca=self.ca_pem, token=self.token)

    def _wait(self, name: str, process: _Process, ready: Callable[[], bool]) -> None:
        deadline = time.monotonic() + _READY_TIMEOUT
        while time.monotonic() < deadline:
            if not process.alive():
                raise EnvtestError(
                    f"cannot start {name}: it exited with {process.popen.returncode}:\n{process.tail()}"
                )
            if ready():
                return
            time.sleep(0.2)
        raise EnvtestError(f"cannot start {name}: not ready after {_READY_TIMEOUT:.0f}s:\n{process.tail()}")


def _http_ok(url: str, *, ca: bytes = b"", token: str = "", insecure: bool = False) -> bool:
    """Whether a GET of ``url`` answers 200 (any failure is "not yet")."""
    context: ssl.SSLContext | None = None
    if url.startswith("https://"):
        context = ssl.create_default_context(cadata=ca.decode() if ca else None)
        if insecure:
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
    request = urllib.request.Request(url)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=2, context=context) as response:
            status: int = response.status
            return status == 200
    except (OSError, urllib.error.URLError):
        return False
