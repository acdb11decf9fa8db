"""The match layer's store codec on protobuf: settings and moves as wire-format bytes.

A stored match keeps its ``botarena.v1.MatchConfig`` and each move's ``botarena.v1.Move``
serialized: the wire format is stable across releases (field numbers are forever) and
any language can read a database (docs/decisions.md: Persistence).
"""

from __future__ import annotations

from typing import Any

from google.protobuf.message import DecodeError

from botarena.server.games import Rules
from botarena.server.match import MatchSettings
from botarena.server.service._convert import (
    decode_settings,
    default_config,
    encode_settings,
)
from botarena.server.service._registry import ConfigOverrides, codec_for_game
from botarena.v1 import match_pb2

__all__ = ["ProtobufMatchCodec"]


class ProtobufMatchCodec:
    """A :class:`~botarena.server.match.MatchCodec` over the games' protobuf codecs.

    Args:
        config_overrides: Per game registry name, fields of the engine's default config
            that the server replaces for every match (the operator options of
            ``PLUGINS``), as the servicer does when it creates one: a recovered match keeps
            playing with them.
    """

    def __init__(self, config_overrides: ConfigOverrides | None = None) -> None:
        self._config_overrides = config_overrides or {}

    def encode_settings(self, settings: MatchSettings) -> bytes:
        """Return ``settings`` as a serialized ``MatchConfig``."""
        config = match_pb2.MatchConfig()
        encode_settings(settings, codec_for_game(settings.game), config)
        return config.SerializeToString(deterministic=True)

    def decode_settings(self, data: bytes, rules: Rules[Any, Any, Any, Any]) -> MatchSettings:
        """Return the settings of a serialized ``MatchConfig``.

        Raises:
            InvalidRequestError: The config is not valid (any more).
            ValueError: ``data`` is not a ``MatchConfig``.
        """
        try:
            config = match_pb2.MatchConfig.FromString(data)
        except DecodeError as error:
            raise ValueError(f"not a MatchConfig: {error}") from error
        return decode_settings(
            config, rules.min_seats, default_config(rules, self._config_overrides)
        )

    def encode_move(self, game: str, move: object) -> bytes:
        """Return an engine move as a serialized, unredacted ``Move``."""
        message = codec_for_game(game).encode_move(move, redact=False)
        return message.SerializeToString(deterministic=True)

    def decode_move(self, game: str, data: bytes) -> object:
        """Return the engine move of a serialized ``Move``.

        Raises:
            InvalidRequestError: The move is not valid for ``game``.
            ValueError: ``data`` is not a ``Move``.
        """
        try:
            message = match_pb2.Move.FromString(data)
        except DecodeError as error:
            raise ValueError(f"not a Move: {error}") from error
        return codec_for_game(game).decode_move(message)
