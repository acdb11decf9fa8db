"""The games the server hosts, each declared once as a :class:`GamePlugin`.

Every other list of games derives from :data:`PLUGINS`: the engines by name
(``games.GAMES``), the match hooks (``match.hooks_for``), the codecs by name and by proto
value, the runner's and the command line's game choices and operator options. Importing
this module (every import of ``botarena.server.service`` does) checks the records and
registers each game's engine and hooks with their layers; a record with a missing or
contradicting piece stops the import with :class:`PluginError` (docs/adding-a-game.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TypeAlias

import structlog

from botarena.server.games import register_rules
from botarena.server.games.queendomino import QUEENDOMINO, BuildingTable, load_buildings
from botarena.server.games.qwirkle import QWIRKLE
from botarena.server.games.qwixx import QWIXX
from botarena.server.match import InvalidRequestError, register_hooks
from botarena.server.match._queendomino import QueendominoHooks
from botarena.server.match._qwirkle import QwirkleHooks
from botarena.server.match._qwixx import QwixxHooks
from botarena.server.service._plugin import GamePlugin, OperatorOption, check_plugins
from botarena.server.service.codecs import GameCodec
from botarena.server.service.codecs.queendomino import QueendominoCodec
from botarena.server.service.codecs.qwirkle import QwirkleCodec
from botarena.server.service.codecs.qwixx import QwixxCodec
from botarena.server.service.viewers import (
    GameViewer,
    terminal_queendomino,
    terminal_qwirkle,
    terminal_qwixx,
)
from botarena.server.service.wire.qwirkle import QwirkleWire
from botarena.v1 import match_pb2

__all__ = [
    "PLUGINS",
    "ConfigOverrides",
    "codec_for_game",
    "codec_for_proto",
    "config_overrides",
    "operator_options",
    "plugin_for",
    "plugin_for_proto",
]

_logger = structlog.get_logger("botarena.service")


def _announce_buildings(table: object) -> None:
    """Log one warning naming the building fields that were unknown (README: Queendomino)."""
    if not isinstance(table, BuildingTable):
        raise TypeError(f"{table!r} is not a BuildingTable")
    warning = table.warning()
    if warning is None:
        return
    _logger.warning(
        "queendomino buildings use stand-in values",
        source=table.source,
        defaulted=[f"{d.name} (id {d.building_id}) {d.field}" for d in table.defaulted],
        detail=warning,
        override="--queendomino-buildings PATH",
    )


def _summarise_buildings(table: object) -> str | None:
    if not isinstance(table, BuildingTable):
        raise TypeError(f"{table!r} is not a BuildingTable")
    summary = table.summary()
    return f"queendomino {summary}" if summary else None


_QUEENDOMINO_BUILDINGS = OperatorOption(
    flag="--queendomino-buildings",
    metavar="PATH",
    help="a building table in the shape of the shipped buildings.json, replacing it for "
    "every Queendomino match (README: Queendomino)",
    config_field="buildings",
    load=load_buildings,
    announce=_announce_buildings,
    summary=_summarise_buildings,
)

PLUGINS: tuple[GamePlugin, ...] = (
    GamePlugin(
        QWIRKLE.info,
        QWIRKLE,
        QwirkleCodec(),
        QwirkleHooks,
        GameViewer(terminal_qwirkle.render, "qwirkle.js", terminal_qwirkle.move_text),
        wire=QwirkleWire,
    ),
    GamePlugin(
        QWIXX.info,
        QWIXX,
        QwixxCodec(),
        QwixxHooks,
        GameViewer(terminal_qwixx.render, "qwixx.js", terminal_qwixx.move_text),
    ),
    GamePlugin(
        QUEENDOMINO.info,
        QUEENDOMINO,
        QueendominoCodec(),
        QueendominoHooks,
        GameViewer(terminal_queendomino.render, "queendomino.js", terminal_queendomino.move_text),
        options=(_QUEENDOMINO_BUILDINGS,),
    ),
)
"""Every game the server hosts, the first being the default of the command line."""

check_plugins(PLUGINS)
for _plugin in PLUGINS:
    register_rules(_plugin.rules)
    register_hooks(_plugin.name, _plugin.hooks)

_BY_NAME: Mapping[str, GamePlugin] = MappingProxyType({p.name: p for p in PLUGINS})
_BY_PROTO: Mapping[int, GamePlugin] = MappingProxyType({int(p.proto_game): p for p in PLUGINS})


def plugin_for(game: str) -> GamePlugin:
    """Return the record of the game registered as ``game``.

    Raises:
        KeyError: No such game; the message lists the games that exist.
    """
    try:
        return _BY_NAME[game]
    except KeyError:
        raise KeyError(f"unknown game {game!r}; known games: {', '.join(_BY_NAME)}") from None


def plugin_for_proto(game: int) -> GamePlugin:
    """Return the record of the game whose ``botarena.v1.Game`` value is ``game``.

    Raises:
        InvalidRequestError: ``MALFORMED_REQUEST`` for ``GAME_UNSPECIFIED``,
            ``UNKNOWN_GAME`` for a game the server does not host.
    """
    if game == match_pb2.GAME_UNSPECIFIED:
        raise InvalidRequestError("config.game", "required")
    plugin = _BY_PROTO.get(game)
    if plugin is None:
        raise InvalidRequestError(
            "config.game", f"the server does not host game {game}", reason="UNKNOWN_GAME"
        )
    return plugin


def codec_for_game(game: str) -> GameCodec:
    """Return the codec of the game registered as ``game`` (see :func:`plugin_for`)."""
    return plugin_for(game).codec


def codec_for_proto(game: int) -> GameCodec:
    """Return the codec of a ``botarena.v1.Game`` value (see :func:`plugin_for_proto`)."""
    return plugin_for_proto(game).codec


def operator_options() -> tuple[tuple[GamePlugin, OperatorOption], ...]:
    """Return every game's operator options, with their game, in registry order."""
    return tuple((plugin, option) for plugin in PLUGINS for option in plugin.options)


ConfigOverrides: TypeAlias = Mapping[str, Mapping[str, object]]
"""Per game registry name, fields of the engine's default config that a server replaces
for every match it creates or recovers (``{"queendomino": {"buildings": table}}``)."""


def config_overrides(values: Mapping[str, object] | None = None) -> ConfigOverrides:
    """Return a server's config overrides from its operator options' loaded values.

    Args:
        values: By :attr:`OperatorOption.dest` (``"queendomino_buildings"``); an absent
            or ``None`` value keeps the shipped default.

    Returns:
        Per game name, the engine config fields to replace.

    Raises:
        KeyError: A key is no game's operator option.
    """
    values = values or {}
    known = {option.dest for _, option in operator_options()}
    unknown = sorted(set(values) - known)
    if unknown:
        raise KeyError(f"unknown operator options {unknown}; known: {sorted(known)}")
    overrides: dict[str, dict[str, object]] = {}
    for plugin, option in operator_options():
        value = values.get(option.dest)
        if value is not None:
            overrides.setdefault(plugin.name, {})[option.config_field] = value
    return overrides
