"""Conversion between engine values and protobuf messages, one module per game.

A :class:`GameCodec` decodes and validates a game's config and moves before anything
reaches the engine, and encodes moves (redacted per viewer) and views. The codecs are the
only place that knows both an engine's types and the generated messages; the rules stay
free of protobuf (DESIGN.md: Layers).
"""

from __future__ import annotations

from botarena.server.service.codecs._base import (
    ByteCache,
    GameCodec,
    LegalMoveCache,
    add_legal_moves,
    codec_for_game,
    codec_for_proto,
    duration_seconds,
    encode_varint,
    field_tag,
    register_codec,
    set_duration,
    set_timestamp,
)

__all__ = [
    "ByteCache",
    "GameCodec",
    "LegalMoveCache",
    "add_legal_moves",
    "codec_for_game",
    "codec_for_proto",
    "duration_seconds",
    "encode_varint",
    "field_tag",
    "register_codec",
    "set_duration",
    "set_timestamp",
]
