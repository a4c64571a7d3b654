"""The certificates of Crossplane's core: one CA, and the server and client certificates it signs.

Crossplane's core calls every packaged function over mutual TLS
(upstream controllers-5.5, controllers-5.7): one self-signed CA in the
Secret ``crossplane-root-ca`` signs each function's server certificate
(Secret ``<function>-tls-server``, mounted into its Deployment at
``/tls/server``) and the core's own client certificate (Secret
``crossplane-tls-client``). The function accepts only clients with a
certificate from that CA; the core checks the function's certificate
against the CA and the name it dialled (``<service>.<namespace>``). The same
CA signs the certificate the controller's admission webhook serves with
(Secret ``crossplane-tls-server``), and is the webhook configuration's
``caBundle``, as Crossplane's ``core init`` makes them.

This module writes those Secrets with Crossplane's layout, so a function
package built for Crossplane runs unchanged, and a cluster where Crossplane's
``core init`` already made the CA keeps it:

* the CA is loaded when its Secret has both ``tls.crt`` and ``tls.key``,
  otherwise generated (RSA 2048, serial 2022, CN and O ``Crossplane``, DNS SAN
  ``crossplane-root-ca``, ten years) and written;
* a server or client certificate is generated only when all three keys
  (``tls.crt``, ``tls.key``, ``ca.crt``) of its Secret are empty: one non-empty
  key means it was done, and certificates are never rotated;
* keys are PKCS#1 (``RSA PRIVATE KEY``) PEM, as Go's ``x509.MarshalPKCS1PrivateKey``.

Writes are updates with the read ``resourceVersion``, so two reconciles racing
to fill one Secret cannot leave a certificate whose key was replaced: the loser
gets a Conflict and retries with the winner's certificate.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime
import ipaddress
from collections.abc import Callable, Mapping
from typing import Any, Literal

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from crossfn import errors
from crossfn.controller.kube import _api
from crossfn.engine import _clock

__all__ = [
    "CA_SECRET",
    "CLIENT_SECRET",
    "KEYS",
    "KeyPair",
    "ensure_ca",
    "ensure_certificate",
    "names_all",
    "new_ca",
    "new_certificate",
    "secret_data",
]

CA_SECRET = "crossplane-root-ca"
"""The CA's Secret in the controller's namespace (Crossplane chart's ``TLS_CA_SECRET_NAME``)."""

CLIENT_SECRET = "crossplane-tls-client"
"""The controller's client certificate (Crossplane's ``--tls-client-secret-name``)."""

KEYS = ("tls.crt", "tls.key", "ca.crt")
"""The keys of a server or client certificate Secret, also the file names in its mount."""

_VALIDITY = datetime.timedelta(days=3650)
_CA_SERIAL = 2022


@dataclasses.dataclass(frozen=True)
class KeyPair:
    """A PEM certificate and its PEM private key."""

    cert: bytes
    key: bytes


def _key_pem(key: rsa.RSAPrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    )


def _usage(*, sign: bool = False, serve: bool = False) -> x509.KeyUsage:
    return x509.KeyUsage(
        digital_signature=serve,
        content_commitment=False,
        key_encipherment=serve,
        data_encipherment=serve,
        key_agreement=False,
        key_cert_sign=sign,
        crl_sign=sign,
        encipher_only=False,
        decipher_only=False,
    )


def new_ca(now: datetime.datetime | None = None) -> KeyPair:
    """A CA as Crossplane's initializer makes it (upstream controllers-5.5)."""
    now = now or _clock.utcnow()
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = _subject("Crossplane")
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(_CA_SERIAL)
        .not_valid_before(now)
        .not_valid_after(now + _VALIDITY)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(_usage(sign=True), critical=True)
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(CA_SECRET)]), critical=False)
        .sign(key, hashes.SHA256())
    )
    return KeyPair(cert.public_bytes(serialization.Encoding.PEM), _key_pem(key))


def _subject(common_name: str) -> x509.Name:
    """Crossplane's subject: CN, O ``Crossplane``, province and locality ``Earth``.

    Crossplane also writes country ``Earth``; X.509 wants a two-letter code there,
    which Python's ``cryptography`` enforces, so the country is left out.
    """
    return x509.Name(
        [
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Crossplane"),
            x509.NameAttribute(NameOID.STATE_OR_PROVINCE_NAME, "Earth"),
            x509.NameAttribute(NameOID.LOCALITY_NAME, "Earth"),
        ]
    )


def new_certificate(
    ca: KeyPair,
    *,
    common_name: str,
    dns_names: list[str],
    usage: Literal["server", "client"],
    now: datetime.datetime | None = None,
    ip_addresses: list[str] | None = None,
) -> KeyPair:
    """A leaf certificate signed by ``ca``: ``server`` for a function or the webhook, ``client`` for the
    controller; ``ip_addresses`` are IP SANs (a webhook the API server calls at ``https://127.0.0.1:…``).

    Both get digital signature, key and data encipherment as key usages (a TLS
    peer refuses a certificate without digital signature); only the extended
    key usage differs.
    """
    now = now or _clock.utcnow()
    try:
        ca_cert = x509.load_pem_x509_certificate(ca.cert)
        ca_key = serialization.load_pem_private_key(ca.key, password=None)
    except ValueError as exc:
        raise errors.InputError(f"cannot load the CA from Secret {errors.quote(CA_SECRET)}: {exc}") from exc
    if not isinstance(ca_key, rsa.RSAPrivateKey):
        raise errors.InputError(
            f"cannot load the CA from Secret {errors.quote(CA_SECRET)}: its key is not RSA"
        )
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    purpose = ExtendedKeyUsageOID.SERVER_AUTH if usage == "server" else ExtendedKeyUsageOID.CLIENT_AUTH
    cert = (
        x509.CertificateBuilder()
        .subject_name(_subject(common_name))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(now + _VALIDITY)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(_usage(serve=True), critical=True)
        .add_extension(x509.ExtendedKeyUsage([purpose]), critical=False)
        .add_extension(
            x509.SubjectAlternativeName(
                [
                    *(x509.DNSName(n) for n in dns_names),
                    *(x509.IPAddress(ipaddress.ip_address(a)) for a in ip_addresses or ()),
                ]
            ),
            critical=False,
        )
        .sign(ca_key, hashes.SHA256())
    )
    return KeyPair(cert.public_bytes(serialization.Encoding.PEM), _key_pem(key))


def names_all(cert: bytes, dns_names: list[str], ip_addresses: list[str]) -> bool:
    """Whether the PEM certificate names every one of ``dns_names`` and ``ip_addresses``."""
    try:
        sans = x509.load_pem_x509_certificate(cert).extensions.get_extension_for_class(
            x509.SubjectAlternativeName
        )
    except (ValueError, x509.ExtensionNotFound):
        return False
    have_dns = set(sans.value.get_values_for_type(x509.DNSName))
    have_ips = {str(a) for a in sans.value.get_values_for_type(x509.IPAddress)}
    return set(dns_names) <= have_dns and {str(ipaddress.ip_address(a)) for a in ip_addresses} <= have_ips


def secret_data(secret: Mapping[str, Any] | None) -> dict[str, bytes]:
    """A Secret's ``data``, decoded."""
    raw = (secret or {}).get("data") or {}
    return {k: base64.b64decode(str(v or "")) for k, v in raw.items()}


def _encoded(values: Mapping[str, bytes]) -> dict[str, str]:
    return {k: base64.b64encode(v).decode() for k, v in values.items()}


async def ensure_ca(
    api: _api.Api, namespace: str, *, now: Callable[[], datetime.datetime] = _clock.utcnow
) -> KeyPair:
    """The CA from ``namespace/crossplane-root-ca``, generated and written when either key is empty."""
    where = f"Secret {errors.quote(f'{namespace}/{CA_SECRET}')}"
    secret = await api.get("v1", "Secret", CA_SECRET, namespace)
    data = secret_data(secret)
    if data.get("tls.crt") and data.get("tls.key"):
        return KeyPair(data["tls.crt"], data["tls.key"])
    ca = new_ca(now())
    values = _encoded({"tls.crt": ca.cert, "tls.key": ca.key})
    try:
        await _write_data(api, secret, namespace, CA_SECRET, values)
    except _api.ApiError as exc:
        raise errors.wrap(exc, f"cannot write the CA to {where}") from exc
    return ca


async def ensure_certificate(
    api: _api.Api,
    namespace: str,
    secret_name: str,
    ca: KeyPair,
    *,
    common_name: str,
    dns_names: list[str],
    usage: Literal["server", "client"],
    create: bool = False,
    now: Callable[[], datetime.datetime] = _clock.utcnow,
    ip_addresses: list[str] | None = None,
    renew_for_names: bool = False,
) -> bool:
    """Fill ``namespace/secret_name`` with a certificate when all its keys are empty; ``True`` if it did.

    The Secret must exist (the runtime applies it first, with its owner),
    unless ``create``: then a missing one is created (the controller's own
    client certificate, which nothing else creates outside Helm). With
    ``renew_for_names``, a certificate that does not name all of ``dns_names``
    and ``ip_addresses`` is replaced (the webhook's, when it is called at
    another address than the one it was made for); otherwise one is never replaced.
    """
    secret = await api.get("v1", "Secret", secret_name, namespace)
    if secret is None and not create:
        raise _api.NotFound(f'secrets "{secret_name}" not found', status=404)
    data = secret_data(secret)
    if any(data.get(k) for k in KEYS) and not (
        renew_for_names and not names_all(data.get("tls.crt") or b"", dns_names, ip_addresses or [])
    ):
        return False
    pair = new_certificate(
        ca, common_name=common_name, dns_names=dns_names, usage=usage, now=now(), ip_addresses=ip_addresses
    )
    values = _encoded({"tls.crt": pair.cert, "tls.key": pair.key, "ca.crt": ca.cert})
    await _write_data(api, secret, namespace, secret_name, values)
    return True


async def _write_data(
    api: _api.Api, secret: Mapping[str, Any] | None, namespace: str, name: str, values: dict[str, str]
) -> None:
    """Create the Opaque Secret with ``values``, or merge them into the ``secret`` that exists."""
    if secret is None:
        await api.create(
            {
                "apiVersion": "v1",
                "kind": "Secret",
                "metadata": {"name": name, "namespace": namespace},
                "type": "Opaque",
                "data": values,
            }
        )
    else:
        await api.update({**secret, "data": {**(secret.get("data") or {}), **values}})
