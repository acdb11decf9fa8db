"""Conversion between engine values and protobuf messages, one module per game.

A :class:`GameCodec` decodes and validates a game's config and moves before anything
reaches the engine, and encodes moves (redacted per viewer) and views. The codecs are the
only place that knows both an engine's types and the generated messages; the rules stay
free of protobuf (DESIGN.md: Layers).
"""

from __future__ import annotations

from botarena.server.service.codecs._base import (
    GameCodec,
    duration_seconds,
    encode_varint,
    field_tag,
    set_duration,
    set_timestamp,
)

__all__ = [
    "GameCodec",
    "duration_seconds",
    "encode_varint",
    "field_tag",
    "set_duration",
    "set_timestamp",
]
