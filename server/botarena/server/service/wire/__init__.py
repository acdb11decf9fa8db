"""The service's fast path: wire encoders of the two hottest payloads, a decision's legal
moves and a stream event's view.

Codecs (:mod:`..codecs`) speak messages only. A :class:`WireEncoder` writes the same
payloads as bytes to splice into a serialized response, and may keep bounded caches; the
servicer makes one per game per server (``WireEncoders`` in ``_convert``), so two servers
in one process share nothing. A game declares its encoder in its plugin record
(``GamePlugin.wire``); without one it gets :class:`MessageWire`, built on its codec.
"""

from __future__ import annotations

from botarena.server.service.wire._base import (
    MessageWire,
    WireEncoder,
    WireFactory,
    add_legal_moves,
    remember,
)

__all__ = ["MessageWire", "WireEncoder", "WireFactory", "add_legal_moves", "remember"]
