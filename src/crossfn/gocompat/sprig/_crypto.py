"""Sprig's hashes, passwords, keys, certificates, AES and random bytes (``crypto.go``): their Go signatures.

The table is built with every function map, but what the functions do lives in
:mod:`._crypto_ops`, imported on the first call of any of them: most templates
call none, and a render should not pay for loading ``hashlib``, ``hmac``,
``uuid`` and the module itself (``cryptography`` and ``bcrypt``, the ``crypto``
extra, load later still, on the first call that needs them).
:class:`Certificate`, what ``genCA`` and its kin return, is declared here: it
is a type of the value model that other modules name.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from crossfn.gocompat import gofunc, values
from crossfn.gocompat.sprig import _profile
from crossfn.gocompat.sprig._sources import Sources

__all__ = ["Certificate", "functions"]

F = gofunc.Func
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


def _later(name: str, *bound: Any) -> Callable[..., Any]:
    """The function ``name`` of :mod:`._crypto_ops`, its first arguments ``bound``, imported when called."""

    def call(*args: Any) -> Any:
        from crossfn.gocompat.sprig import _crypto_ops  # noqa: PLC0415 -- loaded on first use (module docstring)

        return getattr(_crypto_ops, name)(*bound, *args)

    call.__name__ = name
    return call


def functions(profile: _profile.Profile, sources: Sources) -> dict[str, gofunc.Func]:
    """Sprig's crypto functions (``sha512sum`` from Sprig v3.3.0)."""
    s1 = ("string",)
    s2 = ("string", "string")
    lst = "[]interface {}"
    cert = ("string", lst, lst, "int")
    table = {
        "sha1sum": F(_later("sha1sum"), s1, "string"),
        "sha256sum": F(_later("sha256sum"), s1, "string"),
        "adler32sum": F(_later("adler32sum"), s1, "string"),
        "bcrypt": F(_later("bcrypt_hash"), s1, "string"),
        "htpasswd": F(_later("htpasswd"), s2, "string"),
        "genPrivateKey": F(_later("generate_private_key"), s1, "string"),
        "derivePassword": F(
            _later("derive_password"), ("uint32", "string", "string", "string", "string"), "string"
        ),
        "encryptAES": F(_later("encrypt_aes", sources), s2, "string", returns_error=True),
        "decryptAES": F(_later("decrypt_aes"), s2, "string", returns_error=True),
        "randBytes": F(_later("rand_bytes", sources), ("int",), "string", returns_error=True),
        "uuidv4": F(_later("uuidv4", sources), (), "string"),
        "buildCustomCert": F(_later("build_custom_cert"), s2, CERT, returns_error=True),
        "genCA": F(_later("gen_ca", sources), ("string", "int"), CERT, returns_error=True),
        "genCAWithKey": F(
            _later("gen_ca_with_key", sources), ("string", "int", "string"), CERT, returns_error=True
        ),
        "genSelfSignedCert": F(_later("gen_self_signed_cert", sources), cert, CERT, returns_error=True),
        "genSelfSignedCertWithKey": F(
            _later("gen_self_signed_cert_with_key", sources), (*cert, "string"), CERT, returns_error=True
        ),
        "genSignedCert": F(_later("gen_signed_cert", sources), (*cert, CERT), CERT, returns_error=True),
        "genSignedCertWithKey": F(
            _later("gen_signed_cert_with_key", sources), (*cert, CERT, "string"), CERT, returns_error=True
        ),
    }
    if profile.sha512sum:
        table["sha512sum"] = F(_later("sha512sum"), s1, "string")
    return table
