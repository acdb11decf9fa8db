"""The read-only web UI (``botarena serve --http-port``): matches, live match pages, the
ladder, served by aiohttp from the gRPC server's own event loop.

It shows only what the gRPC API shows anyone: summaries as ListMatches and GetMatch
encode them, a running match as a spectator's stream carries it (no rack, no seed), a
finished one's replay as GetReplay builds it, and the ladder as GetLeaderboard and
ListBotMatches answer. It changes nothing. docs/decisions.md ("The web UI") says why
aiohttp, server-sent events and how a slow page is kept from the match loop.
"""

from __future__ import annotations

from botarena.server.service.web._app import (
    DEFAULT_MAX_STREAMS,
    WebSettings,
    WebUI,
    start_web_ui,
)

__all__ = ["DEFAULT_MAX_STREAMS", "WebSettings", "WebUI", "start_web_ui"]
