"""The bot ladder: registered bots, their connections, scheduling and OpenSkill ratings.

Sits above the match layer and the store and below the gRPC service; it never imports
grpc (DESIGN.md: Layers). :mod:`~botarena.server.ladder.ratings` and
:mod:`~botarena.server.ladder.scheduler` are pure; :class:`Ladder` is the asyncio
component that ties them to a :class:`~botarena.server.match.MatchManager` and a
:class:`~botarena.server.store.ladder.LadderStore`.
"""

from __future__ import annotations

from botarena.server.ladder._errors import (
    BotNameTakenError,
    BotNotFoundError,
    BotSecretInvalidError,
    BotSecretRequiredError,
)
from botarena.server.ladder._ladder import (
    Assignment,
    Connection,
    KeepAlive,
    Ladder,
    LadderSettings,
    LeaderboardRow,
)
from botarena.server.ladder.ratings import DEFAULT_RATING, Rating, rate
from botarena.server.ladder.scheduler import Candidate, schedule

__all__ = [
    "DEFAULT_RATING",
    "Assignment",
    "BotNameTakenError",
    "BotNotFoundError",
    "BotSecretInvalidError",
    "BotSecretRequiredError",
    "Candidate",
    "Connection",
    "KeepAlive",
    "Ladder",
    "LadderSettings",
    "LeaderboardRow",
    "Rating",
    "rate",
    "schedule",
]
