"""How each game's views look, in a terminal and in a browser: one :class:`GameViewer`
per game, named by its plugin record (``GamePlugin.viewer``).

Viewers draw ``botarena.v1.PlayerView`` messages (in a browser, their proto3 JSON), the
public protocol, so the same drawing serves a replay (``botarena replay``), a bot author
printing its own view and the server's web pages. They read nothing but the view.
"""

from __future__ import annotations

from botarena.server.service.viewers._base import (
    GameViewer,
    TerminalFrame,
    TerminalRenderer,
    seat_label,
)

__all__ = ["GameViewer", "TerminalFrame", "TerminalRenderer", "seat_label"]
