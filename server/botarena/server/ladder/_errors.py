"""The ladder's typed errors; like the match layer's, each names its reason and category.

The reasons are ``ErrorReason`` values 400+ of ``match_service.proto``; the service maps
them to statuses in the same place as every match error.
"""

from __future__ import annotations

from botarena.server.match import ErrorCategory, MatchError

__all__ = [
    "BotNameTakenError",
    "BotNotFoundError",
    "BotSecretInvalidError",
    "BotSecretRequiredError",
]


class BotNotFoundError(MatchError):
    """No registered bot has the requested id."""

    category = ErrorCategory.NOT_FOUND

    def __init__(self, bot_id: str) -> None:
        super().__init__("BOT_NOT_FOUND", f"no bot {bot_id!r}", {"bot": bot_id})


class BotNameTakenError(MatchError):
    """Another bot of the same game has the name (ALREADY_EXISTS)."""

    category = ErrorCategory.ALREADY_EXISTS

    def __init__(self, name: str, game: str) -> None:
        super().__init__(
            "BOT_NAME_TAKEN", f"a {game} bot named {name!r} exists", {"name": name, "game": game}
        )


class BotSecretRequiredError(MatchError):
    """Connect was called without a bearer token."""

    category = ErrorCategory.UNAUTHENTICATED

    def __init__(self) -> None:
        super().__init__("BOT_SECRET_REQUIRED", "connecting needs the bot's secret")


class BotSecretInvalidError(MatchError):
    """The bearer token is not the secret of a registered bot."""

    category = ErrorCategory.UNAUTHENTICATED

    def __init__(self) -> None:
        super().__init__("BOT_SECRET_INVALID", "the token is not a registered bot's secret")
