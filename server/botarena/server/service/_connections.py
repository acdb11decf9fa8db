"""What a connection may hold of the server: the open-files limit, the reserve kept
from connections, and the timeouts of both ports (docs/decisions.md: Connections)."""

from __future__ import annotations

import resource

__all__ = [
    "FD_RESERVE",
    "HANDSHAKE_TIMEOUT",
    "IDLE_TIMEOUT",
    "MAX_CONNECTIONS_PER_PEER",
    "MIN_CONNECTIONS",
    "WEB_MAX_CONNECTIONS",
    "WEB_MAX_CONNECTIONS_PER_PEER",
    "connection_budget",
    "raise_open_files_limit",
]

HANDSHAKE_TIMEOUT = 10.0
"""Seconds a new connection has to show it is a client: on the gRPC port its TLS and
HTTP/2 handshake (the preface and SETTINGS), on the web port a request's headers."""

IDLE_TIMEOUT = 60.0
"""Seconds a connection may hold no call (gRPC) or wait for its next request (web)
before the server closes it; a client reconnects when it next calls."""

FD_RESERVE = 512
"""Open files kept from connections: the database, the listening sockets, grpc's and
asyncio's own descriptors, and a replay built on demand."""

MIN_CONNECTIONS = 16
"""The fewest connections a port is given, however low the open-files limit."""

MAX_CONNECTIONS_PER_PEER = 256
"""Connections one peer host holds on the gRPC port (a bot holds one per channel; a
machine running many bots, or a runner, a few hundred)."""

WEB_MAX_CONNECTIONS = 2048
"""Connections the web port holds at once (open pages' streams and browsers' others)."""

WEB_MAX_CONNECTIONS_PER_PEER = 64
"""Connections one peer host holds on the web port at once (a browser opens at most six
to a server: room for ten or so behind one address)."""


def raise_open_files_limit() -> int:
    """Raise the soft ``RLIMIT_NOFILE`` to the hard limit (an unprivileged process may)
    and return the soft limit then in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft == hard:
        return soft
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    except (ValueError, OSError):  # a hard limit the kernel refuses (above nr_open)
        return soft
    return hard


def connection_budget() -> int:
    """Connections both ports may hold together: the soft open-files limit less
    :data:`FD_RESERVE` (at least twice :data:`MIN_CONNECTIONS`)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        soft = 1 << 20
    return max(2 * MIN_CONNECTIONS, soft - FD_RESERVE)
