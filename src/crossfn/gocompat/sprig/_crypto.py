"""Sprig's hashes, passwords, keys, certificates, AES and random bytes (``crypto.go``).

Hashes, ``derivePassword`` (scrypt and HMAC, as the Master Password algorithm), ``randBytes`` and
``uuidv4`` need only the standard library. Keys, certificates and AES need the ``cryptography``
library and ``bcrypt``/``htpasswd`` the ``bcrypt`` one: the ``crypto`` extra. Without it those
functions fail with one line naming the extra rather than printing something else.

Keys and certificates are random, so no output can equal the function's byte for byte; their
shape does: the PEM block types (``RSA PRIVATE KEY``, ``EC PRIVATE KEY``, ``DSA PRIVATE KEY``,
``PRIVATE KEY`` for ed25519), key sizes (4096-bit RSA for ``genPrivateKey``, 2048 for
certificates), a 128-bit serial, the validity from now for ``daysValid`` days, key usages, basic
constraints, subject and authority key identifiers and alternative names as Go's ``x509`` writes
them. Where Go's ``x509`` rejects a key (DSA cannot sign a certificate), so does this. The texts of
errors from parsing a malformed certificate or key come from the ``cryptography`` library and
differ from Go's after Sprig's prefix (docs/compatibility.md).
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import hmac
import struct
import uuid
import zlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from crossfn import errors, extras
from crossfn.gocompat import base64, gofunc, values
from crossfn.gocompat.sprig import _profile, _reflect
from crossfn.gocompat.sprig._sources import Sources

if TYPE_CHECKING:
    pass

__all__ = ["Certificate", "functions"]

F = gofunc.Func
ANY = gofunc.ANY
CERT = "sprig.certificate"


@dataclasses.dataclass(frozen=True)
class Certificate(values.GoNamed):
    """Sprig's ``certificate`` struct: ``.Cert`` and ``.Key``, PEM text."""

    cert: str = ""
    key: str = ""

    go_type: ClassVar[str] = "sprig.certificate"
    go_kind: ClassVar[str] = "struct"

    def go_fields(self) -> Mapping[str, Any]:
        """``Cert`` then ``Key``, as declared."""
        return {"Cert": self.cert, "Key": self.key}


def _b(s: str) -> bytes:
    return values.to_bytes(s)


def _s(b: bytes) -> str:
    return values.from_bytes(b)


def _require(name: str) -> None:
    """Fail the call with one line naming the extra when its libraries are missing."""
    try:
        extras.require("crypto", name)
    except errors.MissingExtraError as exc:
        raise errors.GoError(str(exc)) from exc


# Hashes and passwords.


def _adler32(s: str) -> str:
    return str(zlib.adler32(_b(s)))


_MASTER_PASSWORD_SEED = b"com.lyndir.masterpassword"
_PASSWORD_TEMPLATES = {
    "maximum": ["anoxxxxxxxxxxxxxxxxx", "axxxxxxxxxxxxxxxxxno"],
    "long": [
        "CvcvnoCvcvCvcv", "CvcvCvcvnoCvcv", "CvcvCvcvCvcvno", "CvccnoCvcvCvcv", "CvccCvcvnoCvcv",
        "CvccCvcvCvcvno", "CvcvnoCvccCvcv", "CvcvCvccnoCvcv", "CvcvCvccCvcvno", "CvcvnoCvcvCvcc",
        "CvcvCvcvnoCvcc", "CvcvCvcvCvccno", "CvccnoCvccCvcv", "CvccCvccnoCvcv", "CvccCvccCvcvno",
        "CvcvnoCvccCvcc", "CvcvCvccnoCvcc", "CvcvCvccCvccno", "CvccnoCvcvCvcc", "CvccCvcvnoCvcc",
        "CvccCvcvCvccno",
    ],
    "medium": ["CvcnoCvc", "CvcCvcno"],
    "short": ["Cvcn"],
    "basic": ["aaanaaan", "aannaaan", "aaannaaa"],
    "pin": ["nnnn"],
}  # fmt: skip
_TEMPLATE_CHARACTERS = {
    "V": "AEIOU",
    "C": "BCDFGHJKLMNPQRSTVWXYZ",
    "v": "aeiou",
    "c": "bcdfghjklmnpqrstvwxyz",
    "A": "AEIOUBCDFGHJKLMNPQRSTVWXYZ",
    "a": "AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz",
    "n": "0123456789",
    "o": "@&%?,=[]_:-+*$#!'^~;()/.",
    "x": "AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz0123456789!@#$%^&*()",
}


def derive_password(counter: int, password_type: str, password: str, user: str, site: str) -> str:
    """Sprig's ``derivePassword``: the Master Password algorithm (scrypt, then HMAC-SHA256)."""
    templates = _PASSWORD_TEMPLATES.get(password_type)
    if templates is None:
        return f"cannot find password template {password_type}"
    user_b, site_b = _b(user), _b(site)
    salt = _MASTER_PASSWORD_SEED + struct.pack(">I", len(user_b)) + user_b
    key = hashlib.scrypt(_b(password), salt=salt, n=32768, r=8, p=2, maxmem=64 * 1024 * 1024, dklen=64)
    message = (
        _MASTER_PASSWORD_SEED
        + struct.pack(">I", len(site_b))
        + site_b
        + struct.pack(">I", counter & 0xFFFFFFFF)
    )
    seed = hmac.new(key, message, hashlib.sha256).digest()
    template = templates[seed[0] % len(templates)]
    return "".join(
        _TEMPLATE_CHARACTERS[c][seed[i + 1] % len(_TEMPLATE_CHARACTERS[c])] for i, c in enumerate(template)
    )


def _bcrypt() -> Callable[[str], str]:
    def bcrypt_hash(text: str) -> str:
        _require("bcrypt")
        import bcrypt  # noqa: PLC0415 -- the crypto extra, loaded on first use

        data = _b(text)
        if len(data) > 72:
            return "failed to encrypt string with bcrypt: bcrypt: password length exceeds 72 bytes"
        salt = bcrypt.gensalt(rounds=10, prefix=b"2a")  # the salt comes from the OS, as Go's does
        return bcrypt.hashpw(data, salt).decode("ascii")

    return bcrypt_hash


# Random values.


def _rand_bytes(sources: Sources) -> Callable[[int], str]:
    def rand_bytes(count: int) -> str:
        if count < 0:
            raise gofunc.Panic("runtime error: makeslice: len out of range")
        return base64.std_encode(sources.rand.randbytes(count))

    return rand_bytes


def _uuidv4(sources: Sources) -> Callable[[], str]:
    return lambda: str(uuid.UUID(int=sources.rand.getrandbits(128), version=4))


# AES.


def _aes_key(password: str) -> bytes:
    return (_b(password) + bytes(32))[:32]


def _encrypt_aes(sources: Sources) -> Callable[[str, str], str]:
    def encrypt(password: str, plaintext: str) -> str:
        if plaintext == "":
            return ""
        _require("encryptAES")
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes  # noqa: PLC0415 -- the crypto extra

        content = _b(plaintext)
        padding = 16 - len(content) % 16
        content += bytes([padding]) * padding
        iv = sources.rand.randbytes(16)
        encryptor = Cipher(algorithms.AES(_aes_key(password)), modes.CBC(iv)).encryptor()
        return base64.std_encode(iv + encryptor.update(content) + encryptor.finalize())

    return encrypt


def decrypt_aes(password: str, crypt64: str) -> str:
    """Sprig's ``decryptAES``; short or misaligned input panics as Go's slicing and ``CryptBlocks`` do."""
    if crypt64 == "":
        return ""
    _require("decryptAES")
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes  # noqa: PLC0415 -- the crypto extra

    crypt = base64.std_decode(crypt64)
    if len(crypt) < 16:
        capacity = len(_b(crypt64)) // 4 * 3
        raise gofunc.Panic(f"runtime error: slice bounds out of range [:16] with capacity {capacity}")
    iv, body = crypt[:16], crypt[16:]
    if len(body) % 16:
        raise gofunc.Panic("crypto/cipher: input not full blocks")
    decryptor = Cipher(algorithms.AES(_aes_key(password)), modes.CBC(iv)).decryptor()
    decrypted = decryptor.update(body) + decryptor.finalize()
    if not decrypted:
        raise gofunc.Panic("runtime error: index out of range [-1]")
    end = len(decrypted) - decrypted[-1]
    if end < 0:
        raise gofunc.Panic(f"runtime error: slice bounds out of range [:{end}]")
    return _s(decrypted[:end])


# Keys.


def _pem_for_key(key: Any) -> str:
    """Sprig's ``pemBlockForKey``: PKCS#1 for RSA, SEC 1 for EC, OpenSSL's DSA form, else PKCS#8."""
    from cryptography.hazmat.primitives import serialization  # noqa: PLC0415 -- the crypto extra
    from cryptography.hazmat.primitives.asymmetric import dsa, ec, rsa  # noqa: PLC0415

    traditional = isinstance(key, rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey | dsa.DSAPrivateKey)
    form = (
        serialization.PrivateFormat.TraditionalOpenSSL if traditional else serialization.PrivateFormat.PKCS8
    )
    pem: bytes = key.private_bytes(serialization.Encoding.PEM, form, serialization.NoEncryption())
    return pem.decode("ascii")


def generate_private_key(typ: str) -> str:
    """Sprig's ``genPrivateKey``: ``rsa`` (the default, 4096 bits), ``dsa``, ``ecdsa`` (P-256), ``ed25519``."""
    if typ not in ("", "rsa", "dsa", "ecdsa", "ed25519"):
        return "Unknown type " + typ
    _require("genPrivateKey")
    from cryptography.hazmat.primitives.asymmetric import dsa, ec, ed25519, rsa  # noqa: PLC0415 -- the crypto extra

    key: Any
    if typ in ("", "rsa"):
        key = rsa.generate_private_key(65537, 4096)
    elif typ == "dsa":
        key = dsa.generate_private_key(2048)
    elif typ == "ecdsa":
        key = ec.generate_private_key(ec.SECP256R1())
    else:
        key = ed25519.Ed25519PrivateKey.generate()
    return _pem_for_key(key)


def _pem_decode(text: str) -> tuple[str, bytes] | None:
    """Go's ``pem.Decode``: the first well-formed block's type and bytes, or None."""
    data = _b(text)
    start = 0
    while True:
        begin = data.find(b"-----BEGIN ", start)
        if begin < 0:
            return None
        line_end = data.find(b"\n", begin)
        header = data[begin + 11 : line_end if line_end >= 0 else len(data)].rstrip(b"\r")
        if line_end >= 0 and header.endswith(b"-----"):
            kind = header[:-5]
            end_marker = b"-----END " + kind + b"-----"
            stop = data.find(end_marker, line_end)
            if stop >= 0:
                body = data[line_end + 1 : stop]
                lines = [line.strip() for line in body.splitlines()]
                if not any(b":" in line for line in lines):
                    try:
                        return _s(kind), base64.std_decode(_s(b"".join(lines)))
                    except errors.GoError:
                        pass
        start = begin + 11


def parse_private_key_pem(text: str) -> Any:
    """Sprig's ``parsePrivateKeyPEM``; GoError with Sprig's texts (the inner parse errors are the library's)."""
    from cryptography.hazmat.primitives import serialization  # noqa: PLC0415 -- the crypto extra
    from cryptography.hazmat.primitives.asymmetric import dsa  # noqa: PLC0415

    block = _pem_decode(text)
    if block is None:
        raise errors.GoError("no PEM data in input")
    kind, der = block
    if kind == "PRIVATE KEY":
        try:
            return serialization.load_der_private_key(der, password=None)
        except (ValueError, TypeError) as exc:
            raise errors.GoError(f"decoding PEM as PKCS#8: {exc}") from None
    if not kind.endswith(" PRIVATE KEY"):
        raise errors.GoError(f"no private key data in PEM block of type {kind}")
    algorithm = kind[: -len(" PRIVATE KEY")]
    if algorithm not in ("RSA", "EC", "DSA"):
        raise errors.GoError(f"invalid private key type {kind}")
    prefix = {"RSA": "parsing RSA private key from PEM", "EC": "parsing EC private key from PEM"}
    try:
        key = serialization.load_der_private_key(der, password=None)
    except (ValueError, TypeError) as exc:
        raise errors.GoError(f"{prefix.get(algorithm, 'parsing DSA private key from PEM')}: {exc}") from None
    if algorithm == "DSA" and not isinstance(key, dsa.DSAPrivateKey):
        raise errors.GoError("parsing DSA private key from PEM: asn1: structure error")
    return key


# Certificates.


@dataclasses.dataclass(frozen=True)
class _Request:
    cn: str
    ips: Any
    alternate_dns: Any
    days_valid: int
    is_ca: bool = False


def _net_ips(ips: Any) -> list[Any]:
    import ipaddress  # noqa: PLC0415 -- only certificates need it

    out = []
    for ip in list(ips or []):
        if not isinstance(ip, str):
            raise errors.GoError(f"error parsing ip: {_reflect.strval(ip)} is not a string")
        try:
            out.append(ipaddress.ip_address(ip))
        except ValueError:
            raise errors.GoError(f"error parsing ip: {ip}") from None
    return out


def _dns_names(names: Any) -> list[str]:
    out = []
    for name in list(names or []):
        if not isinstance(name, str):
            raise errors.GoError(
                f"error processing alternate dns name: {_reflect.strval(name)} is not a string"
            )
        out.append(name)
    return out


def _certificate(
    request: _Request,
    signee: Any,
    parent: Any,
    signer: Any,
    sources: Sources,
) -> Certificate:
    """Sprig's ``getBaseCertTemplate`` and ``getCertAndKey``: sign ``signee``'s public key with ``signer``.

    ``parent`` is the issuing certificate, None for a self-signed one.
    """
    from cryptography import x509  # noqa: PLC0415 -- the crypto extra
    from cryptography.hazmat.primitives import hashes, serialization  # noqa: PLC0415
    from cryptography.hazmat.primitives.asymmetric import dsa, ed25519  # noqa: PLC0415
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID  # noqa: PLC0415

    ips, dns = _net_ips(request.ips), _dns_names(request.alternate_dns)
    serial = sources.rand.getrandbits(128) or 1
    now = sources.now()
    start = datetime.datetime.fromtimestamp(now.sec, datetime.UTC)
    try:
        end = start + datetime.timedelta(hours=24 * request.days_valid)
    except OverflowError:
        raise errors.GoError("error creating certificate: x509: validity out of range") from None
    if isinstance(signer, dsa.DSAPrivateKey):
        raise errors.GoError(
            "error creating certificate: x509: certificate private key does not implement crypto.Signer"
        )
    public = signee.public_key()
    if isinstance(public, dsa.DSAPublicKey):
        raise errors.GoError("error creating certificate: x509: unsupported public key type: *dsa.PublicKey")
    subject = (
        x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, request.cn)]) if request.cn else x509.Name([])
    )
    issuer = parent.subject if parent is not None else subject
    extensions: list[Any] = []
    usage = dict.fromkeys(
        (
            "content_commitment",
            "data_encipherment",
            "key_agreement",
            "crl_sign",
            "encipher_only",
            "decipher_only",
        ),
        False,
    )
    extensions.append(
        (
            x509.KeyUsage(
                digital_signature=True, key_encipherment=True, key_cert_sign=request.is_ca, **usage
            ),
            True,
        )
    )
    extensions.append(
        (x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]), False)
    )
    extensions.append((x509.BasicConstraints(ca=request.is_ca, path_length=None), True))
    if request.is_ca:
        extensions.append((x509.SubjectKeyIdentifier.from_public_key(public), False))
    if parent is not None and parent.subject != subject:
        try:
            ski = parent.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value
            extensions.append((x509.AuthorityKeyIdentifier(ski.digest, None, None), False))
        except x509.ExtensionNotFound:
            pass
    names: list[Any] = [x509.DNSName(n) for n in dns] + [x509.IPAddress(ip) for ip in ips]
    if names:
        extensions.append((x509.SubjectAlternativeName(names), False))
    builder = x509.CertificateBuilder(
        issuer_name=issuer,
        subject_name=subject,
        public_key=public,
        serial_number=serial,
        not_valid_before=start,
        not_valid_after=end,
    )
    for extension, critical in extensions:
        builder = builder.add_extension(extension, critical=critical)
    algorithm = None if isinstance(signer, ed25519.Ed25519PrivateKey) else hashes.SHA256()
    try:
        cert = builder.sign(signer, algorithm)
    except (ValueError, TypeError) as exc:
        raise errors.GoError(f"error creating certificate: {exc}") from None
    return Certificate(_s(cert.public_bytes(serialization.Encoding.PEM)), _pem_for_key(signee))


def _rsa_2048() -> Any:
    from cryptography.hazmat.primitives.asymmetric import rsa  # noqa: PLC0415 -- the crypto extra

    return rsa.generate_private_key(65537, 2048)


def _load_ca(ca: Certificate) -> tuple[Any, Any]:
    from cryptography import x509  # noqa: PLC0415 -- the crypto extra

    block = _pem_decode(ca.cert)
    if block is None:
        raise errors.GoError("unable to decode certificate")
    try:
        cert = x509.load_der_x509_certificate(block[1])
    except ValueError as exc:
        raise errors.GoError(f"error parsing certificate: decodedSignerCert.Bytes: {exc}") from None
    try:
        key = parse_private_key_pem(ca.key)
    except errors.GoError as exc:
        raise errors.GoError(f"error parsing private key: {exc}") from None
    return cert, key


def _with_key(pem: str) -> Any:
    try:
        return parse_private_key_pem(pem)
    except errors.GoError as exc:
        raise errors.GoError(f"parsing private key: {exc}") from None


def _build_custom_cert(b64cert: str, b64key: str) -> Certificate:
    from cryptography import x509  # noqa: PLC0415 -- the crypto extra

    try:
        cert = base64.std_decode(b64cert)
    except errors.GoError:
        raise errors.GoError("unable to decode base64 certificate") from None
    try:
        key = base64.std_decode(b64key)
    except errors.GoError:
        raise errors.GoError("unable to decode base64 private key") from None
    block = _pem_decode(_s(cert))
    if block is None:
        raise errors.GoError("unable to decode certificate")
    try:
        x509.load_der_x509_certificate(block[1])
    except ValueError as exc:
        raise errors.GoError(f"error parsing certificate: decodedCert.Bytes: {exc}") from None
    try:
        parse_private_key_pem(_s(key))
    except errors.GoError as exc:
        raise errors.GoError(f"error parsing private key: {exc}") from None
    return Certificate(_s(cert), _s(key))


def _cert_functions(sources: Sources) -> dict[str, gofunc.Func]:
    lst = "[]interface {}"

    def needs(name: str, fn: Callable[..., Certificate]) -> Callable[..., Certificate]:
        def call(*args: Any) -> Certificate:
            _require(name)
            return fn(*args)

        return call

    def ca(cn: str, days: int, key: Any) -> Certificate:
        return _certificate(_Request(cn, None, None, days, is_ca=True), key, None, key, sources)

    def self_signed(request: _Request, key: Any) -> Certificate:
        return _certificate(request, key, None, key, sources)

    def signed(request: _Request, authority: Certificate, key: Any) -> Certificate:
        parent, signer = _load_ca(authority)
        return _certificate(request, key() if callable(key) else key, parent, signer, sources)

    base = ("string", lst, lst, "int")
    return {
        "buildCustomCert": F(
            needs("buildCustomCert", _build_custom_cert), ("string", "string"), CERT, returns_error=True
        ),
        "genCA": F(
            needs("genCA", lambda cn, d: ca(cn, d, _rsa_2048())), ("string", "int"), CERT, returns_error=True
        ),
        "genCAWithKey": F(
            needs("genCAWithKey", lambda cn, d, pem: ca(cn, d, _with_key(pem))),
            ("string", "int", "string"),
            CERT,
            returns_error=True,
        ),
        "genSelfSignedCert": F(
            needs("genSelfSignedCert", lambda cn, i, n, d: self_signed(_Request(cn, i, n, d), _rsa_2048())),
            base,
            CERT,
            returns_error=True,
        ),
        "genSelfSignedCertWithKey": F(
            needs(
                "genSelfSignedCertWithKey",
                lambda cn, i, n, d, pem: self_signed(_Request(cn, i, n, d), _with_key(pem)),
            ),
            (*base, "string"),
            CERT,
            returns_error=True,
        ),
        "genSignedCert": F(
            needs("genSignedCert", lambda cn, i, n, d, a: signed(_Request(cn, i, n, d), a, _rsa_2048)),
            (*base, CERT),
            CERT,
            returns_error=True,
        ),
        "genSignedCertWithKey": F(
            needs(
                "genSignedCertWithKey",
                lambda cn, i, n, d, a, pem: signed(_Request(cn, i, n, d), a, _with_key(pem)),
            ),
            (*base, CERT, "string"),
            CERT,
            returns_error=True,
        ),
    }


def functions(profile: _profile.Profile, sources: Sources) -> dict[str, gofunc.Func]:
    """Sprig's crypto functions (``sha512sum`` from Sprig v3.3.0)."""
    s1 = ("string",)
    bcrypt_hash = _bcrypt()
    table = {
        "sha1sum": F(lambda s: hashlib.sha1(_b(s)).hexdigest(), s1, "string"),
        "sha256sum": F(lambda s: hashlib.sha256(_b(s)).hexdigest(), s1, "string"),
        "adler32sum": F(_adler32, s1, "string"),
        "bcrypt": F(bcrypt_hash, s1, "string"),
        "htpasswd": F(
            lambda user, pw: f"invalid username: {user}" if ":" in user else f"{user}:{bcrypt_hash(pw)}",
            ("string", "string"),
            "string",
        ),
        "genPrivateKey": F(generate_private_key, s1, "string"),
        "derivePassword": F(derive_password, ("uint32", "string", "string", "string", "string"), "string"),
        "encryptAES": F(_encrypt_aes(sources), ("string", "string"), "string", returns_error=True),
        "decryptAES": F(decrypt_aes, ("string", "string"), "string", returns_error=True),
        "randBytes": F(_rand_bytes(sources), ("int",), "string", returns_error=True),
        "uuidv4": F(_uuidv4(sources), (), "string"),
        **_cert_functions(sources),
    }
    if profile.sha512sum:
        table["sha512sum"] = F(lambda s: hashlib.sha512(_b(s)).hexdigest(), s1, "string")
    return table
