"""``KEEPALIVE_OPTIONS``: the server's side of connection liveness (docs/decisions.md:
Liveness).

The SDK's channels ping a quiet connection every 2 s and close it when a ping goes
unanswered for 3 s (``botarena.clients._channel.KEEPALIVE_CHANNEL_OPTIONS``), so that a
bot leaves a frozen node within seconds. grpc's default server policy takes a ping more
often than every 5 minutes on a connection without data for abuse, and answers the
second such ping with a GOAWAY (``too_many_pings``): these options let clients ping
every second, calls or not. The server pings its clients too: a frozen or vanished bot's
connection, and the streams on it, are closed within 15 s rather than when TCP gives up.

Pings are no activity for ``grpc.max_connection_idle_ms`` (idle means no calls): an idle
connection is closed with a GOAWAY as usual and the client's channel connects again on
its next call.
"""

from __future__ import annotations

__all__ = ["KEEPALIVE_OPTIONS"]

KEEPALIVE_OPTIONS: tuple[tuple[str, int], ...] = (
    # What the server accepts: pings as often as every second, with or without calls,
    # however many come without data (faster pings still count as strikes: two of them
    # close the connection with too_many_pings).
    ("grpc.http2.min_ping_interval_without_data_ms", 1_000),
    ("grpc.keepalive_permit_without_calls", 1),
    # What the server sends: a ping after 10 s without a read from the client, the
    # connection closed when none comes back within 5 s (grpc 1.85 times a ping out after
    # grpc.http2.ping_timeout_ms, 60 s by default, so both are set).
    ("grpc.keepalive_time_ms", 10_000),
    ("grpc.keepalive_timeout_ms", 5_000),
    ("grpc.http2.ping_timeout_ms", 5_000),
    ("grpc.http2.max_pings_without_data", 0),
)
"""The keepalive options ``create_server`` appends to the server's options."""
