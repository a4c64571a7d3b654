"""Sprig's crypto functions: Sprig's crypto_test.go cases (hashes, derivePassword's vectors, keys,
certificates, AES), and the panics of malformed AES input."""

from __future__ import annotations

import base64
import subprocess
import sys
from pathlib import Path
from typing import Any

import bcrypt
import pytest
from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import rsa
from sprigcases import NOW, G, call, func_map

from crossfn import errors
from crossfn.gocompat import gofunc
from crossfn.gocompat.sprig import Certificate

HASHES = [
    pytest.param("sha1sum", "a9993e364706816aba3e25717850c26c9cd0d89d", id="Sha1"),
    pytest.param(
        "sha256sum", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", id="Sha256"
    ),
    pytest.param(
        "sha512sum",
        "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
        id="Sha512",
    ),
    pytest.param("adler32sum", "38600999", id="Adler32"),
]


@pytest.mark.parametrize(("name", "want"), HASHES)
def test_hashes(name: str, want: str) -> None:
    """TestSha512Sum, TestSha256Sum, TestSha1Sum, TestAdler32Sum of "abc"."""
    assert call(name, "abc") == want


def test_sha512sum_is_new_in_v330() -> None:
    """Sprig v3.3.0 added sha512sum; v3.2.3's map has no such function."""
    assert "sha512sum" not in func_map("v3.2.3")


DERIVE = [
    pytest.param(1, "long", "ZedaFaxcZaso9*", id="Long"),
    pytest.param(2, "long", "Fovi2@JifpTupx", id="LongCounter"),
    pytest.param(1, "maximum", "pf4zS1LjCg&LjhsZ7T2~", id="Maximum"),
    pytest.param(1, "medium", "ZedJuz8$", id="Medium"),
    pytest.param(1, "basic", "pIS54PLs", id="Basic"),
    pytest.param(1, "short", "Zed5", id="Short"),
    pytest.param(1, "pin", "6685", id="Pin"),
    pytest.param(1, "nope", "cannot find password template nope", id="Unknown"),
]


@pytest.mark.parametrize(("counter", "kind", "want"), DERIVE)
def test_derive_password(counter: int, kind: str, want: str) -> None:
    """TestDerivePassword's vectors for password "password", user "user", site "example.com"."""
    assert call("derivePassword", counter, kind, "password", "user", "example.com") == want


def test_bcrypt_and_htpasswd() -> None:
    """TestBcrypt and TestHtpasswd: Go's $2a$ hashes of cost 10 that verify; ':' in a user is refused."""
    hashed = call("bcrypt", "abc")
    assert hashed.startswith("$2a$10$")
    assert bcrypt.checkpw(b"abc", hashed.encode())
    for user, password in (
        ("myUser", "myPassword"),
        ("special'o79Cv_*qFe,)<user", "special<j7+3p#6-.Jx2U:m8G;kGypassword"),
    ):
        name, _, hashed = call("htpasswd", user, password).partition(":")
        assert name == user
        assert bcrypt.checkpw(password.encode(), hashed.encode())
    assert call("htpasswd", "wrongus:er", "x") == "invalid username: wrongus:er"
    assert (
        call("bcrypt", "x" * 73)
        == "failed to encrypt string with bcrypt: bcrypt: password length exceeds 72 bytes"
    )


@pytest.mark.parametrize(
    ("kind", "block"),
    [
        pytest.param("ecdsa", "EC PRIVATE KEY", id="ECDSA"),
        pytest.param("ed25519", "PRIVATE KEY", id="Ed25519"),
        pytest.param("dsa", "DSA PRIVATE KEY", id="DSA", marks=pytest.mark.slow),
        pytest.param("", "RSA PRIVATE KEY", id="DefaultRSA", marks=pytest.mark.slow),
    ],
)
def test_gen_private_key(kind: str, block: str) -> None:
    """TestGenPrivateKey: each type's PEM block, in Go's encodings."""
    pem = call("genPrivateKey", kind)
    assert pem.startswith(f"-----BEGIN {block}-----\n")
    assert pem.endswith(f"-----END {block}-----\n")


@pytest.mark.slow
def test_gen_private_key_rsa_size_and_bad_type() -> None:
    """genPrivateKey "rsa" is 4096 bits; an unknown type is a message, not an error."""
    from cryptography.hazmat.primitives import serialization

    key = serialization.load_pem_private_key(call("genPrivateKey", "rsa").encode(), password=None)
    assert isinstance(key, rsa.RSAPrivateKey) and key.key_size == 4096
    assert call("genPrivateKey", "bad") == "Unknown type bad"


def _cert(pem: str) -> x509.Certificate:
    return x509.load_pem_x509_certificate(pem.encode())


def _basic(cert: x509.Certificate) -> x509.BasicConstraints:
    return cert.extensions.get_extension_for_class(x509.BasicConstraints).value


def test_gen_ca() -> None:
    """TestGenCA and TestGenCAWithKey: a CA with the name, a key id, valid from now for the days asked."""
    for ca in (
        call("genCA", "foo-ca", G(365)),
        call("genCAWithKey", "foo-ca", G(365), call("genPrivateKey", "ecdsa")),
    ):
        assert isinstance(ca, Certificate)
        cert = _cert(ca.cert)
        assert cert.subject.rfc4514_string() == "CN=foo-ca"
        assert _basic(cert).ca is True
        assert cert.extensions.get_extension_for_class(x509.KeyUsage).value.key_cert_sign
        assert cert.extensions.get_extension_for_class(x509.SubjectKeyIdentifier)
        assert int(cert.not_valid_before_utc.timestamp()) == NOW.sec
        assert (cert.not_valid_after_utc - cert.not_valid_before_utc).days == 365
        assert ca.go_fields() == {"Cert": ca.cert, "Key": ca.key}


def test_gen_self_signed_cert() -> None:
    """TestGenSelfSignedCert(WithKey): names, addresses, serial, not a CA."""
    for cert_pair in (
        call("genSelfSignedCert", "foo.com", ["10.0.0.1", "10.0.0.2"], ["bar.com", "bat.com"], G(365)),
        call(
            "genSelfSignedCertWithKey",
            "foo.com",
            ["10.0.0.1", "10.0.0.2"],
            ["bar.com", "bat.com"],
            G(365),
            call("genPrivateKey", "ed25519"),
        ),
    ):
        cert = _cert(cert_pair.cert)
        san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        assert [str(ip) for ip in san.get_values_for_type(x509.IPAddress)] == ["10.0.0.1", "10.0.0.2"]
        assert san.get_values_for_type(x509.DNSName) == ["bar.com", "bat.com"]
        assert cert.serial_number > 0
        assert _basic(cert).ca is False
        assert cert.issuer == cert.subject


def test_gen_signed_cert() -> None:
    """TestGenSignedCert(WithKey): issued by the CA, whose key id it names."""
    for key_kind in ("ecdsa", "ed25519"):
        ca = call("genCAWithKey", "foo", G(365), call("genPrivateKey", key_kind))
        for signed in (
            call("genSignedCert", "foo.com", ["10.0.0.1"], ["bar.com"], G(365), ca),
            call("genSignedCertWithKey", "foo.com", None, None, G(365), ca, call("genPrivateKey", "ecdsa")),
        ):
            cert = _cert(signed.cert)
            assert cert.issuer.rfc4514_string() == "CN=foo"
            assert _basic(cert).ca is False
            aki = cert.extensions.get_extension_for_class(x509.AuthorityKeyIdentifier).value
            ski = _cert(ca.cert).extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value
            assert aki.key_identifier == ski.digest
            cert.verify_directly_issued_by(_cert(ca.cert))


def test_build_custom_cert() -> None:
    """TestBuildCustomCert: a certificate and key given base64-encoded come back; a bad one is an error."""
    ca = call("genCA", "example.com", G(365))
    built = call(
        "buildCustomCert",
        base64.b64encode(ca.cert.encode()).decode(),
        base64.b64encode(ca.key.encode()).decode(),
    )
    assert built == ca
    with pytest.raises(errors.GoError) as raised:
        call(
            "buildCustomCert", base64.b64encode(b"fail").decode(), base64.b64encode(ca.key.encode()).decode()
        )
    assert str(raised.value) == "unable to decode certificate"
    with pytest.raises(errors.GoError) as undecodable:
        call("buildCustomCert", "!", "")
    assert str(undecodable.value) == "unable to decode base64 certificate"


CERT_ERRORS = [
    pytest.param(
        "genSelfSignedCert", ("x", [G(1)], None, G(1)), "error parsing ip: 1 is not a string", id="IPType"
    ),
    pytest.param("genSelfSignedCert", ("x", ["nope"], None, G(1)), "error parsing ip: nope", id="IPSyntax"),
    pytest.param(
        "genSelfSignedCert",
        ("x", None, [G(2)], G(1)),
        "error processing alternate dns name: 2 is not a string",
        id="DNSType",
    ),
    pytest.param(
        "genCAWithKey", ("x", G(1), "garbage"), "parsing private key: no PEM data in input", id="NoPEM"
    ),
    pytest.param(
        "genCAWithKey",
        ("x", G(1), "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"),
        "parsing private key: no private key data in PEM block of type CERTIFICATE",
        id="NotAKey",
    ),
    pytest.param(
        "genCAWithKey",
        ("x", G(1), "-----BEGIN FOO PRIVATE KEY-----\nAAAA\n-----END FOO PRIVATE KEY-----\n"),
        "parsing private key: invalid private key type FOO PRIVATE KEY",
        id="UnknownKeyType",
    ),
    pytest.param(
        "genSignedCert",
        ("x", None, None, G(1), Certificate("nope", "")),
        "unable to decode certificate",
        id="BadCA",
    ),
]


@pytest.mark.parametrize(("name", "args", "message"), CERT_ERRORS)
def test_certificate_errors(name: str, args: tuple[Any, ...], message: str) -> None:
    """Sprig's own error texts for bad addresses, names, keys and CAs."""
    with pytest.raises(errors.GoError) as raised:
        call(name, *args)
    assert str(raised.value) == message


def test_dsa_keys_cannot_sign() -> None:
    """Go's x509 signs with RSA, ECDSA and Ed25519 only."""
    with pytest.raises(errors.GoError) as raised:
        call("genCAWithKey", "x", G(1), call("genPrivateKey", "dsa"))
    assert str(raised.value) == (
        "error creating certificate: x509: certificate private key does not implement crypto.Signer"
    )


def test_aes_round_trip() -> None:
    """TestEncryptDecryptAES; an IV from the injected randomness; "" stays ""."""
    encrypted = call("encryptAES", "secretkey", "plaintext")
    assert call("decryptAES", "secretkey", encrypted) == "plaintext"
    assert len(base64.b64decode(encrypted)) == 32
    assert func_map(seed=9)["encryptAES"]("k", "p") == func_map(seed=9)["encryptAES"]("k", "p")
    assert call("encryptAES", "k", "") == ""
    assert call("decryptAES", "k", "") == ""


AES_FAILURES = [
    pytest.param("AAAA", "runtime error: slice bounds out of range [:16] with capacity 3", True, id="Short"),
    pytest.param(
        base64.b64encode(bytes(20)).decode(), "crypto/cipher: input not full blocks", True, id="NotBlocks"
    ),
    pytest.param(
        base64.b64encode(bytes(16)).decode(),
        "runtime error: index out of range [-1]",
        True,
        id="NothingAfterIV",
    ),
    pytest.param("!!!!", "illegal base64 data at input byte 0", False, id="Base64"),
]


@pytest.mark.parametrize(("crypt", "message", "panics"), AES_FAILURES)
def test_decrypt_aes_failures(crypt: str, message: str, panics: bool) -> None:
    """decryptAES slices and unpads without checks, so short input panics as Go's runtime does."""
    with pytest.raises(errors.GoError) as raised:
        call("decryptAES", "k", crypt)
    assert str(raised.value) == message
    assert isinstance(raised.value, gofunc.Panic) is panics


def test_random_bytes_and_uuids() -> None:
    """TestRandBytes and TestUUIDGeneration: the size asked for, version 4, repeatable with a seed."""
    raw = base64.b64decode(call("randBytes", G(12)))
    assert len(raw) == 12
    uuid = func_map(seed=5)["uuidv4"]()
    assert len(uuid) == 36 and uuid[14] == "4" and uuid[19] in "89ab"
    assert func_map(seed=5)["uuidv4"]() == uuid
    assert func_map(seed=6)["uuidv4"]() != uuid
    with pytest.raises(gofunc.Panic):
        call("randBytes", G(-1))


_WITHOUT_CRYPTO = """
import sys
sys.modules["cryptography"] = sys.modules["bcrypt"] = None  # as if not installed
from crossfn.gocompat import sprig, values
m = sprig.txt_func_map()
print(m["sha256sum"]("abc")[:8])
for name, args in (("genCA", ("x", values.GoInt(1))), ("htpasswd", ("u", "p")), ("decryptAES", ("k", "AAAA"))):
    try:
        print(m[name](*args))
    except Exception as exc:
        print(type(exc).__name__, exc)
"""


def test_without_the_crypto_extra() -> None:
    """Without cryptography and bcrypt the map still loads; those functions fail naming the extra."""
    out = subprocess.run(
        [sys.executable, "-c", _WITHOUT_CRYPTO],
        capture_output=True,
        text=True,
        check=False,
        cwd=Path(__file__).parent,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "ba7816bf",
        "GoError genCA: needs the crypto extra: pip install 'crossfn[crypto]'",
        "GoError bcrypt: needs the crypto extra: pip install 'crossfn[crypto]'",
        "GoError decryptAES: needs the crypto extra: pip install 'crossfn[crypto]'",
    ]


_LAZY = """
import sys
from crossfn.gocompat import sprig
funcs = sprig.txt_func_map()
funcs["upper"]("a")
print("crossfn.gocompat.sprig._crypto_ops" in sys.modules)
print(funcs["sha256sum"]("abc")[:8])
print("crossfn.gocompat.sprig._crypto_ops" in sys.modules)
"""


def test_crypto_loads_on_first_use() -> None:
    """A template that calls no crypto function does not load what they do (import cost, docs/performance.md)."""
    out = subprocess.run([sys.executable, "-c", _LAZY], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["False", "ba7816bf", "True"]
