"""Reading credentials from call metadata (``authorization: Bearer <token>``), and who
the caller is (the admin token's holder or the peer's host)."""

from __future__ import annotations

import functools
import hmac
import ipaddress
from typing import Any
from urllib.parse import unquote

from botarena.server.match import (
    Caller,
    MatchError,
    SeatTokenInvalidError,
    SeatTokenRequiredError,
)

__all__ = [
    "address_host",
    "bearer_token",
    "caller_of",
    "holds_admin_token",
    "peer_host",
    "require_admin",
]

ADMIN_CALLER = Caller("admin", admin=True)
"""Every holder of the server's admin token is one caller."""

# An IPv6 host usually holds a whole /64: one caller, as one IPv4 address is.
_IPV6_CALLER_PREFIX = 64

_SCHEME = "bearer "
_MAX_TOKEN_LENGTH = 256


def bearer_token(context: Any) -> str | None:
    """Return the bearer token of the call, or ``None`` when it sends no credentials.

    Raises:
        SeatTokenInvalidError: An ``authorization`` entry that is not a bearer token.
    """
    for key, value in context.invocation_metadata() or ():
        if key.lower() != "authorization":
            continue
        text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
        if not text.lower().startswith(_SCHEME):
            raise SeatTokenInvalidError()
        token = text[len(_SCHEME) :].strip()
        if not token or len(token) > _MAX_TOKEN_LENGTH:
            raise SeatTokenInvalidError()
        return token
    return None


def require_admin(context: Any, admin_token: str | None, action: str) -> None:
    """Check that the call carries the server's admin token, when the server has one.

    Args:
        context: The call's context.
        admin_token: The server's admin token; ``None`` lets every call through.
        action: What the token is needed for, for the error message ("creating matches").

    Raises:
        SeatTokenRequiredError: ``ADMIN_TOKEN_REQUIRED``.
    """
    if admin_token is not None and not holds_admin_token(context, admin_token):
        raise SeatTokenRequiredError(
            "ADMIN_TOKEN_REQUIRED", f"{action} needs the server's admin token"
        )


def holds_admin_token(context: Any, admin_token: str) -> bool:
    """Return whether the call's bearer token is ``admin_token`` (a malformed
    ``authorization`` entry is not)."""
    try:
        token = bearer_token(context)
    except MatchError:
        return False
    return token is not None and hmac.compare_digest(token.encode(), admin_token.encode())


def caller_of(context: Any, admin_token: str | None) -> Caller:
    """Return who makes the call: on a server with an admin token, its holder (check it
    with :func:`require_admin` first), else the peer's host (:func:`peer_host`)."""
    if admin_token is not None:
        return ADMIN_CALLER
    return Caller(peer_host(context.peer() or ""))


# One entry per connection (a peer string holds the client's port): a flood's calls
# parse nothing.
@functools.lru_cache(maxsize=4096)
def peer_host(peer: str) -> str:
    """Return the host part of a grpc peer string, the caller's identity.

    ``"ipv4:127.0.0.1:54321"`` gives ``"127.0.0.1"``; ``"ipv6:[2001:db8::5]:5555"`` gives
    its /64 network ``"2001:db8::/64"``, and an IPv4-mapped IPv6 address its IPv4 address.
    Any other peer (a Unix socket) is returned whole.
    """
    scheme, _, address = peer.partition(":")
    if scheme == "ipv4":
        return address.rpartition(":")[0] or address
    if scheme != "ipv6":
        return peer
    host = unquote(address).rpartition(":")[0].strip("[]")
    try:
        return address_host(host)
    except ValueError:
        return peer


def address_host(address: str) -> str:
    """Return the caller's identity of an IP address (``peer_host`` of a peer string):
    an IPv6 address's /64, an IPv4-mapped one's IPv4 address, any other whole.

    Raises:
        ValueError: Not an IP address.
    """
    ip = ipaddress.ip_address(address.partition("%")[0])
    if isinstance(ip, ipaddress.IPv4Address):
        return str(ip)
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    if ip.is_loopback:
        return str(ip)
    return str(ipaddress.IPv6Network((ip, _IPV6_CALLER_PREFIX), strict=False))
