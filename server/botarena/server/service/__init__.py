"""The gRPC layer: servicers, seat authentication, error mapping, health and reflection.

The only server package that imports grpc (DESIGN.md: Layers). ``create_server`` starts
a ``grpc.aio`` server for a :class:`~botarena.server.match.MatchManager`; ``PLUGINS`` is
the one registry of the games it hosts (docs/adding-a-game.md).
"""

from __future__ import annotations

from botarena.server.service._connections import (
    FD_RESERVE,
    HANDSHAKE_TIMEOUT,
    IDLE_TIMEOUT,
    MAX_CONNECTIONS_PER_PEER,
    WEB_MAX_CONNECTIONS,
    WEB_MAX_CONNECTIONS_PER_PEER,
    connection_budget,
    raise_open_files_limit,
)
from botarena.server.service._errors import DOMAIN, status_of
from botarena.server.service._keepalive import KEEPALIVE_OPTIONS
from botarena.server.service._logging import LOG_BURST, configure_logging
from botarena.server.service._plugin import GamePlugin, OperatorOption, PluginError, check_plugins
from botarena.server.service._registry import (
    PLUGINS,
    ConfigOverrides,
    codec_for_game,
    codec_for_proto,
    config_overrides,
    operator_options,
    plugin_for,
    plugin_for_proto,
)
from botarena.server.service._replays import (
    ReplayMismatchError,
    check_replay,
    encode_replay,
    replay_views,
)
from botarena.server.service._server import (
    MAX_PENDING_CALLS,
    MAX_RECEIVE_MESSAGE_BYTES,
    MAX_SEND_MESSAGE_BYTES,
    create_server,
    durable_manager,
)
from botarena.server.service._servicer import MatchServicer

__all__ = [
    "DOMAIN",
    "FD_RESERVE",
    "HANDSHAKE_TIMEOUT",
    "IDLE_TIMEOUT",
    "KEEPALIVE_OPTIONS",
    "LOG_BURST",
    "MAX_CONNECTIONS_PER_PEER",
    "MAX_PENDING_CALLS",
    "MAX_RECEIVE_MESSAGE_BYTES",
    "MAX_SEND_MESSAGE_BYTES",
    "PLUGINS",
    "WEB_MAX_CONNECTIONS",
    "WEB_MAX_CONNECTIONS_PER_PEER",
    "ConfigOverrides",
    "GamePlugin",
    "MatchServicer",
    "OperatorOption",
    "PluginError",
    "ReplayMismatchError",
    "check_plugins",
    "check_replay",
    "codec_for_game",
    "codec_for_proto",
    "config_overrides",
    "configure_logging",
    "connection_budget",
    "create_server",
    "durable_manager",
    "encode_replay",
    "operator_options",
    "plugin_for",
    "plugin_for_proto",
    "raise_open_files_limit",
    "replay_views",
    "status_of",
]
