"""What Sprig's crypto functions do (``crypto.go``), loaded on the first call of any of them.

:mod:`._crypto` declares the functions (names, Go signatures) and calls into this module, so a
template that hashes nothing pays neither for this module nor for ``hashlib``, ``hmac`` and
``uuid``. Hashes, ``derivePassword`` (scrypt and HMAC, as the Master Password algorithm),
``randBytes`` and ``uuidv4`` need only the standard library. Keys, certificates and AES need the
``cryptography`` library and ``bcrypt``/``htpasswd`` the ``bcrypt`` one: the ``crypto`` extra.
Without it those functions fail with one line naming the extra rather than printing something
else.

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
from typing import Any

from crossfn import errors, extras
from crossfn.gocompat import base64, gofunc, values
from crossfn.gocompat.sprig import _reflect
from crossfn.gocompat.sprig._crypto import Certificate
from crossfn.gocompat.sprig._sources import Sources


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


def sha1sum(s: str) -> str:
    return hashlib.sha1(_b(s)).hexdigest()


def sha256sum(s: str) -> str:
    return hashlib.sha256(_b(s)).hexdigest()


def sha512sum(s: str) -> str:
    return hashlib.sha512(_b(s)).hexdigest()


def adler32sum(s: str) -> str:
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


def bcrypt_hash(text: str) -> str:
    """Sprig's ``bcrypt`` (cost 10, the ``$2a$`` prefix)."""
    _require("bcrypt")
    import bcrypt  # noqa: PLC0415 -- the crypto extra, loaded on first use

    data = _b(text)
    if len(data) > 72:
        return "failed to encrypt string with bcrypt: bcrypt: password length exceeds 72 bytes"
    salt = bcrypt.gensalt(rounds=10, prefix=b"2a")  # the salt comes from the OS, as Go's does
    return bcrypt.hashpw(data, salt).decode("ascii")


def htpasswd(user: str, password: str) -> str:
    return f"invalid username: {user}" if ":" in user else f"{user}:{bcrypt_hash(password)}"


# Random values.


def rand_bytes(sources: Sources, count: int) -> str:
    if count < 0:
        raise gofunc.Panic("runtime error: makeslice: len out of range")
    return base64.std_encode(sources.rand.randbytes(count))


def uuidv4(sources: Sources) -> str:
    return str(uuid.UUID(int=sources.rand.getrandbits(128), version=4))


# AES.


def _aes_key(password: str) -> bytes:
    return (_b(password) + bytes(32))[:32]


def encrypt_aes(sources: Sources, password: str, plaintext: str) -> str:
    """Sprig's ``encryptAES``: AES-CBC with PKCS#7 padding, the IV from ``sources`` first."""
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


def build_custom_cert(b64cert: str, b64key: str) -> Certificate:
    _require("buildCustomCert")
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


def gen_ca(sources: Sources, cn: str, days: int) -> Certificate:
    _require("genCA")
    return _ca(sources, cn, days, _rsa_2048())


def gen_ca_with_key(sources: Sources, cn: str, days: int, pem: str) -> Certificate:
    _require("genCAWithKey")
    return _ca(sources, cn, days, _with_key(pem))


def gen_self_signed_cert(sources: Sources, cn: str, ips: Any, names: Any, days: int) -> Certificate:
    _require("genSelfSignedCert")
    key = _rsa_2048()
    return _certificate(_Request(cn, ips, names, days), key, None, key, sources)


def gen_self_signed_cert_with_key(  # noqa: PLR0917 -- Sprig's signature, as templates call it
    sources: Sources, cn: str, ips: Any, names: Any, days: int, pem: str
) -> Certificate:
    _require("genSelfSignedCertWithKey")
    key = _with_key(pem)
    return _certificate(_Request(cn, ips, names, days), key, None, key, sources)


def gen_signed_cert(  # noqa: PLR0917 -- Sprig's signature, as templates call it
    sources: Sources, cn: str, ips: Any, names: Any, days: int, authority: Certificate
) -> Certificate:
    _require("genSignedCert")
    parent, signer = _load_ca(authority)  # before the key is generated, as Sprig does
    return _certificate(_Request(cn, ips, names, days), _rsa_2048(), parent, signer, sources)


def gen_signed_cert_with_key(  # noqa: PLR0917 -- Sprig's signature, as templates call it
    sources: Sources, cn: str, ips: Any, names: Any, days: int, authority: Certificate, pem: str
) -> Certificate:
    _require("genSignedCertWithKey")
    key = _with_key(pem)  # the key is read before the authority, as Sprig's arguments are
    parent, signer = _load_ca(authority)
    return _certificate(_Request(cn, ips, names, days), key, parent, signer, sources)


def _ca(sources: Sources, cn: str, days: int, key: Any) -> Certificate:
    return _certificate(_Request(cn, None, None, days, is_ca=True), key, None, key, sources)
