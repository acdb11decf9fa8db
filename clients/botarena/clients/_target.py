# mypy: disable-error-code="import-untyped"
"""``ServerTarget``: where a client connects, and whether it speaks TLS there.

One string names a server for every client entry point (``MatchClient(target=...)``,
``run_bot``, ``run_ladder_bot``, ``bot_main --server``, ``botarena match --server``,
``botarena ladder --server``), so the match runner hands a bot command exactly the string
it was given:

* ``HOST:PORT`` (or any other gRPC target): plaintext gRPC;
* ``botarena+tls://HOST:PORT``: TLS, the server's certificate checked against the
  machine's trusted CAs;
* ``botarena+tls://HOST:PORT?ca=PATH``: TLS with the CA certificate(s) in the PEM file
  ``PATH`` (a ladder's own CA); ``&cert=PATH&key=PATH`` adds a client certificate, for a
  server that requires one (``botarena serve --tls-client-ca``).

:func:`add_server_arguments` and :func:`server_target` give a command line the same
form plus the flags ``--tls``, ``--tls-ca``, ``--tls-cert`` and ``--tls-key``.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import socket
import ssl
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar
from urllib.parse import parse_qs, quote, urlencode, urlsplit

import grpc

from botarena.clients._errors import BotarenaError, TlsError

__all__ = [
    "TLS_SCHEME",
    "ServerTarget",
    "add_server_arguments",
    "explain_tls_failure",
    "read_pem",
    "server_target",
    "server_targets",
    "speaks_tls",
    "worth_probing",
]

TLS_SCHEME = "botarena+tls"
"""The scheme of a TLS target: ``botarena+tls://HOST:PORT``."""

# gRPC's own target schemes (name resolvers): such a target is plaintext and passed on.
_GRPC_SCHEMES = frozenset({"dns", "unix", "unix-abstract", "ipv4", "ipv6", "vsock"})
_PROBE_TIMEOUT = 2.0

# What grpc's C core says when a handshake fails (its BoringSSL reasons), by cause.
_UNTRUSTED = re.compile(r"CERTIFICATE_VERIFY_FAILED|certificate verify failed", re.IGNORECASE)
_WRONG_NAME = re.compile(r"Hostname Verification|is not in peer certificate", re.IGNORECASE)
_NOT_TLS = re.compile(r"WRONG_VERSION_NUMBER|wrong version number", re.IGNORECASE)
# How a connection to a TLS server that a plaintext client opened ends.
_CLOSED = re.compile(r"Socket closed|Connection reset", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class ServerTarget:
    """A server's address and how to connect to it.

    ``str(target)`` is the target's one-string form, which :meth:`parse` reads back.

    Attributes:
        address: The gRPC address, ``HOST:PORT``.
        tls: Connect over TLS.
        ca_file: A PEM file of the CA certificate(s) that sign the server's certificate;
            ``None`` trusts the machine's CAs. TLS only.
        cert_file: A PEM file of the client's certificate chain, for a server that
            requires client certificates. TLS only, with ``key_file``.
        key_file: A PEM file of the client certificate's private key.
    """

    address: str
    tls: bool = False
    ca_file: str | None = None
    cert_file: str | None = None
    key_file: str | None = None

    _QUERY: ClassVar[dict[str, str]] = {"ca": "ca_file", "cert": "cert_file", "key": "key_file"}

    def __post_init__(self) -> None:
        if not self.address:
            raise ValueError("the server address is empty")
        if not self.tls and (self.ca_file or self.cert_file or self.key_file):
            raise ValueError("a CA or client certificate needs TLS")
        if (self.cert_file is None) != (self.key_file is None):
            raise ValueError("a client certificate needs both cert and key")

    @classmethod
    def parse(cls, text: str | ServerTarget) -> ServerTarget:
        """Return the target ``text`` names: ``HOST:PORT`` or ``botarena+tls://HOST:PORT``
        with optional ``?ca=PATH&cert=PATH&key=PATH`` (a target is returned as is).

        Raises:
            ValueError: Not such a form (an unknown scheme or option, a missing address).
        """
        if isinstance(text, ServerTarget):
            return text
        scheme, found, _ = text.partition("://")
        if not found or scheme in _GRPC_SCHEMES:
            return cls(text.strip())
        if scheme != TLS_SCHEME:
            raise ValueError(
                f"unknown server form {text!r}: use HOST:PORT (plaintext) or "
                f"{TLS_SCHEME}://HOST:PORT[?ca=PATH] (TLS)"
            )
        parts = urlsplit(text)
        if parts.path not in ("", "/") or parts.fragment:
            raise ValueError(f"{text!r}: a server target has no path; options go after '?'")
        files: dict[str, str] = {}
        for name, values in parse_qs(parts.query, keep_blank_values=True).items():
            if name not in cls._QUERY:
                raise ValueError(f"{text!r}: unknown option {name!r} (known: ca, cert, key)")
            if len(values) != 1 or not values[0]:
                raise ValueError(f"{text!r}: give {name}=PATH once")
            files[cls._QUERY[name]] = values[0]
        return cls(parts.netloc, tls=True, **files)

    def __str__(self) -> str:
        if not self.tls:
            return self.address
        query = [
            (name, value)
            for name, attribute in self._QUERY.items()
            if (value := getattr(self, attribute)) is not None
        ]
        options = f"?{urlencode(query, safe='/', quote_via=quote)}" if query else ""
        return f"{TLS_SCHEME}://{self.address}{options}"

    def with_tls(
        self,
        *,
        ca_file: str | None = None,
        cert_file: str | None = None,
        key_file: str | None = None,
    ) -> ServerTarget:
        """Return this target over TLS; each file given replaces this target's."""
        return dataclasses.replace(
            self,
            tls=True,
            ca_file=ca_file or self.ca_file,
            cert_file=cert_file or self.cert_file,
            key_file=key_file or self.key_file,
        )

    def credentials(self) -> grpc.ChannelCredentials | None:
        """Return the channel's TLS credentials, read from the files; ``None`` for plaintext.

        Raises:
            ValueError: A file cannot be read or is not PEM; the message names it.
        """
        if not self.tls:
            return None
        files = (
            (self.ca_file, "the CA file", "CERTIFICATE"),
            (self.key_file, "the client key file", "PRIVATE KEY"),
            (self.cert_file, "the client certificate file", "CERTIFICATE"),
        )
        ca, key, chain = (
            read_pem(path, what, label) if path else None for path, what, label in files
        )
        return grpc.ssl_channel_credentials(
            root_certificates=ca, private_key=key, certificate_chain=chain
        )


def read_pem(path: str, what: str, label: str) -> bytes:
    """Return the PEM file ``path``, checked to hold a ``label`` block (``CERTIFICATE``,
    ``PRIVATE KEY``), so that a wrong file fails here and not in a handshake.

    Raises:
        ValueError: The file cannot be read or holds no such block; the message starts
            with ``what`` ("the CA file") and names the path.
    """
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise ValueError(f"cannot read {what} {path}: {error.strerror}") from None
    if f"{label}-----".encode() not in data:
        raise ValueError(f"{what} {path} holds no PEM {label}")
    return data


def speaks_tls(address: str) -> bool:
    """Return whether the server at ``address`` (``HOST:PORT``) answers a TLS handshake.

    The certificate is not checked: this only tells a TLS server from a plaintext one.
    Blocks for at most a few seconds; False when the address is not ``HOST:PORT`` or the
    server cannot be reached.
    """
    try:
        parts = urlsplit(f"//{address}")
        host, port = parts.hostname, parts.port
    except ValueError:
        return False
    if host is None or port is None:
        return False
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.set_alpn_protocols(["h2"])
    try:
        with (
            socket.create_connection((host, port), timeout=_PROBE_TIMEOUT) as connection,
            context.wrap_socket(connection, server_hostname=host),
        ):
            return True
    except (OSError, ssl.SSLError):
        return False


def worth_probing(error: BotarenaError, target: ServerTarget) -> bool:
    """Return whether ``error`` may be a TLS server closing a plaintext connection, which
    only :func:`speaks_tls` can tell from a server that went away."""
    return (
        not target.tls
        and error.code == grpc.StatusCode.UNAVAILABLE
        and _CLOSED.search(error.message) is not None
    )


def explain_tls_failure(
    error: BotarenaError, target: ServerTarget, server_speaks_tls: bool = False
) -> BotarenaError:
    """Return a :class:`TlsError` naming the likely cause when ``error`` is a failed TLS
    agreement with ``target``'s server, else ``error`` itself.

    Args:
        error: A failed call's error.
        target: The server it was sent to.
        server_speaks_tls: :func:`speaks_tls` of a plaintext target when
            :func:`worth_probing` said so.
    """
    if error.code != grpc.StatusCode.UNAVAILABLE or isinstance(error, TlsError):
        return error
    address = target.address
    if not target.tls:
        if not server_speaks_tls:
            return error
        cause = (
            f"cannot connect to {address} in plaintext: the server speaks TLS (connect to "
            f"{TLS_SCHEME}://{address}, with ?ca=PATH if its CA is not one this machine trusts)"
        )
    elif _UNTRUSTED.search(error.message):
        trusted = f"the CA in {target.ca_file}" if target.ca_file else "a CA this machine trusts"
        cause = (
            f"cannot connect to {address} over TLS: the server's certificate is not signed by "
            f"{trusted} (a wrong CA? give the one that signed it: --tls-ca PEM or ?ca=PATH)"
        )
    elif _WRONG_NAME.search(error.message):
        cause = (
            f"cannot connect to {address} over TLS: the server's certificate does not name "
            "this host (connect by a name or address the certificate lists)"
        )
    elif _NOT_TLS.search(error.message):
        cause = (
            f"cannot connect to {address} over TLS: the server speaks plaintext gRPC (connect "
            "to HOST:PORT without TLS, or start the server with --tls-cert and --tls-key)"
        )
    elif target.cert_file is None and _CLOSED.search(error.message):
        # A server that requires client certificates closes the handshake of a client
        # without one, and gRPC reports only that. A server going away looks the same,
        # so this stays retryable: the message only says what else it may be.
        hint = (
            f"{error.message} (if the server at {address} requires client certificates, "
            "give yours: --tls-cert PEM --tls-key PEM, or ?cert=PATH&key=PATH)"
        )
        return type(error)(error.code, error.reason, hint, error.metadata)
    else:
        return error
    return TlsError(error.code, None, cause)


class _AppendServer(argparse.Action):
    """``--server`` given once or more: a list, the default replaced by the first one."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        given = getattr(namespace, self.dest)
        servers = [] if given is self.default else list(given)
        setattr(namespace, self.dest, [*servers, values])


def add_server_arguments(
    parser: argparse.ArgumentParser,
    *,
    default: str | None,
    help_text: str,
    several: bool = False,
) -> None:
    """Add ``--server`` and the TLS flags that :func:`server_target` reads; with
    ``several``, ``--server`` may be repeated (:func:`server_targets` reads them all)."""
    if several:
        parser.add_argument(
            "--server",
            action=_AppendServer,
            default=[default] if default else [],
            metavar="SERVER",
            help=help_text,
        )
    else:
        parser.add_argument("--server", default=default, metavar="SERVER", help=help_text)
    group = parser.add_argument_group(
        "TLS",
        f"Connect over TLS: --tls, any flag below, or a {TLS_SCHEME}://HOST:PORT[?ca=PATH] "
        "server (docs/bots.md).",
    )
    group.add_argument("--tls", action="store_true", help="connect over TLS")
    group.add_argument(
        "--tls-ca", metavar="PEM", help="trust the server certificates this CA signs"
    )
    group.add_argument("--tls-cert", metavar="PEM", help="client certificate (with --tls-key)")
    group.add_argument("--tls-key", metavar="PEM", help="the client certificate's private key")


def server_target(args: argparse.Namespace) -> ServerTarget | None:
    """Return the target of :func:`add_server_arguments`' flags (``None`` without a
    ``--server``; the first of several), its TLS files checked.

    Raises:
        ValueError: A bad ``--server`` form, a TLS flag without a server, or a TLS file
            that cannot be read; the message says which.
    """
    targets = server_targets(args)
    return targets[0] if targets else None


def server_targets(args: argparse.Namespace) -> list[ServerTarget]:
    """Return the targets of :func:`add_server_arguments`' flags, each ``--server`` given
    (empty without one); the TLS flags apply to every one.

    Raises:
        ValueError: As :func:`server_target`.
    """
    tls_flags = args.tls or args.tls_ca or args.tls_cert or args.tls_key
    servers = args.server if isinstance(args.server, list) else [args.server]
    servers = [server for server in servers if server]
    if not servers:
        if tls_flags:
            raise ValueError("the TLS flags need --server")
        return []
    targets = []
    for server in servers:
        target = ServerTarget.parse(server)
        if tls_flags:
            target = target.with_tls(
                ca_file=args.tls_ca, cert_file=args.tls_cert, key_file=args.tls_key
            )
        target.credentials()
        targets.append(target)
    return targets
