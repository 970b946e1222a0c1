"""The TLS identity simulated clusters serve with: a certificate authority made for this
process and one serving certificate it signs for 127.0.0.1 and localhost.

Clients send a bearer token only over HTTPS (kubectl never sends one on `http://`), and they
verify the server against the CA the kubeconfig carries, so every cluster serves HTTPS and its
kubeconfig names this CA. All clusters of a process listen on 127.0.0.1 and share the identity:
it is made once, on first use (an EC P-256 key pair is quick to make), and its private keys
never outlive the process (the serving key touches the disk only in a private temporary folder,
for as long as `ssl` needs to read it).
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import ipaddress
import ssl
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported when the first identity is made: it takes a while
    from cryptography import x509
    from cryptography.hazmat.primitives.asymmetric import ec

VALID_FOR = datetime.timedelta(days=365)
CLOCK_SKEW = datetime.timedelta(hours=1)
"""Certificates are valid from a little before they are made, for clients whose clock is late."""
CA_NAME = "gitfleet-sim-ca"
HOSTS = ("localhost",)
ADDRESSES = ("127.0.0.1",)


@dataclasses.dataclass(frozen=True, slots=True)
class Identity:
    """What a cluster serves with (`context`) and what its clients trust (`ca_pem`)."""

    ca_pem: bytes
    context: ssl.SSLContext

    def client_context(self) -> ssl.SSLContext:
        """A client context that trusts this CA only, for requests made without a kubeconfig."""
        return ssl.create_default_context(cadata=self.ca_pem.decode())


@functools.cache
def identity() -> Identity:
    """The process's CA and serving context, made on the first call."""
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID

    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_key_id = x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key())
    ca = _signed(
        CA_NAME,
        ca_key.public_key(),
        ca_key,
        [
            (x509.BasicConstraints(ca=True, path_length=0), True),
            (_usage(signs_certificates=True), True),
            (ca_key_id, False),
        ],
    )
    serving = _signed(
        "gitfleet-sim",
        key.public_key(),
        ca_key,
        [
            (x509.BasicConstraints(ca=False, path_length=None), True),
            (_usage(signs_certificates=False), True),
            (x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), False),
            (
                x509.SubjectAlternativeName(
                    [x509.DNSName(host) for host in HOSTS]
                    + [x509.IPAddress(ipaddress.ip_address(address)) for address in ADDRESSES]
                ),
                False,
            ),
            (x509.SubjectKeyIdentifier.from_public_key(key.public_key()), False),
            (x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(ca_key_id), False),
        ],
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.set_alpn_protocols(["http/1.1"])
    with tempfile.TemporaryDirectory(prefix="gitfleet-sim-tls-") as private:
        chain = Path(private) / "serving.pem"
        chain.write_bytes(key_pem + serving.public_bytes(serialization.Encoding.PEM))
        context.load_cert_chain(chain)
    return Identity(ca_pem=ca.public_bytes(serialization.Encoding.PEM), context=context)


def _signed(
    subject: str,
    public_key: ec.EllipticCurvePublicKey,
    ca_key: ec.EllipticCurvePrivateKey,
    extensions: list[tuple[x509.ExtensionType, bool]],
) -> x509.Certificate:
    """A certificate for `subject` signed by the CA (the CA's own when `public_key` is its)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
        .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, CA_NAME)]))
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - CLOCK_SKEW)
        .not_valid_after(now + VALID_FOR)
    )
    for extension, critical in extensions:
        builder = builder.add_extension(extension, critical=critical)
    return builder.sign(ca_key, hashes.SHA256())


def _usage(*, signs_certificates: bool) -> x509.KeyUsage:
    from cryptography import x509

    return x509.KeyUsage(
        digital_signature=not signs_certificates,
        content_commitment=False,
        key_encipherment=False,
        data_encipherment=False,
        key_agreement=False,
        key_cert_sign=signs_certificates,
        crl_sign=signs_certificates,
        encipher_only=False,
        decipher_only=False,
    )
