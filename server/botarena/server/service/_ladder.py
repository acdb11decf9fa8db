# mypy: disable-error-code="import-untyped"
"""The LadderService servicer: decode, call the :class:`Ladder`, encode. Nothing else."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, TypeAlias

from structlog.contextvars import bind_contextvars

from botarena.server.ladder import (
    Assignment,
    BotSecretInvalidError,
    Ladder,
    LeaderboardRow,
    Rating,
)
from botarena.server.match import InvalidRequestError, MatchError
from botarena.server.service._auth import bearer_token, require_admin
from botarena.server.service._errors import handle_errors, handle_stream_errors
from botarena.server.service._paging import decode_page_token, encode_page_token
from botarena.server.service._registry import codec_for_game, codec_for_proto
from botarena.server.service.codecs import set_timestamp
from botarena.server.store.ladder import BotRecord, LadderMatchRecord
from botarena.v1 import ladder_pb2

__all__ = [
    "DEFAULT_PAGE_SIZE",
    "MAX_PAGE_SIZE",
    "LadderServicer",
    "bot_entry",
    "bot_match_entries",
    "leaderboard_page",
]

Context: TypeAlias = Any

_BOT_PREFIX = "bots/"
_DEFAULT_LIMIT = 20
_MAX_LIMIT = 500

DEFAULT_PAGE_SIZE = 50
"""Bots on a page of GetLeaderboard when the request names no page_size."""

MAX_PAGE_SIZE = 500
"""The most bots one page of GetLeaderboard holds (ladder.proto)."""


class LadderServicer:
    """Implements ``botarena.v1.LadderService`` over a :class:`Ladder`.

    Args:
        ladder: The ladder.
        admin_token: When set, RegisterBot and ResumeBot require it as the bearer token.
    """

    def __init__(self, ladder: Ladder, *, admin_token: str | None = None) -> None:
        self.ladder = ladder
        self._admin_token = admin_token or None

    @handle_errors
    async def RegisterBot(
        self, request: ladder_pb2.RegisterBotRequest, context: Context
    ) -> ladder_pb2.RegisterBotResponse:
        """Register a bot and return its secret."""
        game = _game_of(request.game)
        require_admin(context, self._admin_token, "registering bots")
        bot, secret = self.ladder.register(request.display_name, request.owner, game)
        response = ladder_pb2.RegisterBotResponse(secret=secret)
        _encode_bot(bot, response.bot)
        return response

    @handle_stream_errors
    async def Connect(
        self, request: ladder_pb2.ConnectRequest, context: Context
    ) -> AsyncIterator[ladder_pb2.ConnectResponse]:
        """Stream a connected bot's assignments and keep-alives."""
        try:
            secret = bearer_token(context)
        except MatchError:  # a malformed header is no secret either
            raise BotSecretInvalidError() from None
        bot = self.ladder.authenticate(secret)
        bind_contextvars(bot=bot.bot_id)
        connection = self.ladder.connect(bot, request.capacity, resume_seats=request.resume_seats)
        try:
            first = ladder_pb2.ConnectResponse()
            _encode_bot(bot, first.connected.bot)
            first.connected.paused = bot.paused
            yield first
            async for item in connection:
                response = ladder_pb2.ConnectResponse()
                if isinstance(item, Assignment):
                    _encode_assignment(item, response.assignment)
                else:
                    response.keep_alive.SetInParent()
                yield response
        finally:
            connection.close()

    @handle_errors
    async def GetLeaderboard(
        self, request: ladder_pb2.GetLeaderboardRequest, context: Context
    ) -> ladder_pb2.GetLeaderboardResponse:
        """Return a page of a game's leaderboard."""
        game = _game_of(request.game)
        if not 0 <= request.page_size <= MAX_PAGE_SIZE:
            raise InvalidRequestError("page_size", f"must be within 0..{MAX_PAGE_SIZE}")
        entries, next_token = leaderboard_page(
            self.ladder, game, request.page_token, request.page_size or DEFAULT_PAGE_SIZE
        )
        return ladder_pb2.GetLeaderboardResponse(entries=entries, next_page_token=next_token)

    @handle_errors
    async def ListBotMatches(
        self, request: ladder_pb2.ListBotMatchesRequest, context: Context
    ) -> ladder_pb2.ListBotMatchesResponse:
        """List a bot's matches, newest first."""
        bot_id = _bot_id_of(request.bot)
        if not 0 <= request.limit <= _MAX_LIMIT:
            raise InvalidRequestError("limit", f"must be within 0..{_MAX_LIMIT}")
        response = ladder_pb2.ListBotMatchesResponse()
        response.matches.extend(
            bot_match_entries(self.ladder, bot_id, request.limit or _DEFAULT_LIMIT)
        )
        return response

    @handle_errors
    async def ResumeBot(
        self, request: ladder_pb2.ResumeBotRequest, context: Context
    ) -> ladder_pb2.ResumeBotResponse:
        """Un-pause a bot and return it."""
        require_admin(context, self._admin_token, "resuming bots")
        bot = self.ladder.resume(_bot_id_of(request.bot))
        response = ladder_pb2.ResumeBotResponse()
        _encode_bot(bot, response.bot)
        return response


def leaderboard_page(
    ladder: Ladder, game: str, page_token: str, size: int
) -> tuple[list[ladder_pb2.LeaderboardEntry], str]:
    """One page of the leaderboard of ``game`` (a registry name), as GetLeaderboard
    serves it (and the web UI shows it).

    The page token is ListMatches' form (``_paging``) with the rank the page goes on
    after as its position, for the query ``["leaderboard", game]``.

    Returns:
        The page's entries, best first, and the next page's token (empty on the last
        page).

    Raises:
        InvalidRequestError: Unknown game, or ``INVALID_PAGE_TOKEN``: a token of another
            query.
    """
    filters = ["leaderboard", game]
    after = decode_page_token(page_token, filters) or 0
    rows = ladder.leaderboard(game, offset=after, limit=size + 1)
    entries = []
    for row in rows[:size]:
        entry = ladder_pb2.LeaderboardEntry()
        _encode_row(row, entry)
        entries.append(entry)
    next_token = encode_page_token(after + size, filters) if len(rows) > size else ""
    return entries, next_token


def bot_match_entries(ladder: Ladder, bot_id: str, limit: int) -> list[ladder_pb2.LadderMatch]:
    """Return up to ``limit`` of the bot's matches, newest first, as ListBotMatches serves
    them.

    Raises:
        BotNotFoundError: No such bot.
    """
    bots: dict[str, BotRecord] = {}
    entries = []
    for record in ladder.bot_matches(bot_id, limit):
        for seat in record.seats:
            if seat.bot_id not in bots:
                bots[seat.bot_id] = ladder.bot(seat.bot_id)
        entry = ladder_pb2.LadderMatch()
        _encode_match(record, bots, entry)
        entries.append(entry)
    return entries


def bot_entry(ladder: Ladder, bot_id: str) -> ladder_pb2.LeaderboardEntry:
    """Return the bot's line of its game's leaderboard (as GetLeaderboard serves it).

    Raises:
        BotNotFoundError: No such bot.
    """
    entry = ladder_pb2.LeaderboardEntry()
    _encode_row(ladder.leaderboard_row(bot_id), entry)
    return entry


def _bot_id_of(name: str) -> str:
    if not name.startswith(_BOT_PREFIX) or len(name) == len(_BOT_PREFIX):
        raise InvalidRequestError("bot", "must be bots/{bot_id}")
    return name.removeprefix(_BOT_PREFIX)


def _game_of(game: int) -> str:
    try:
        return codec_for_proto(game).game
    except InvalidRequestError as error:
        raise InvalidRequestError("game", error.message.split(": ", 1)[-1], error.reason) from None


def _encode_bot(bot: BotRecord, out: ladder_pb2.LadderBot) -> None:
    out.name = f"{_BOT_PREFIX}{bot.bot_id}"
    out.display_name = bot.name
    out.owner = bot.owner
    out.game = codec_for_game(bot.game).proto_game


def _encode_assignment(assignment: Assignment, out: ladder_pb2.Assignment) -> None:
    out.match = f"matches/{assignment.match_id}"
    out.seat_token = assignment.seat_token
    out.game = codec_for_game(assignment.game).proto_game
    out.seat = assignment.seat
    out.node = assignment.node


def _encode_row(row: LeaderboardRow, out: ladder_pb2.LeaderboardEntry) -> None:
    bot = row.bot
    _encode_bot(bot, out.bot)
    out.rank = row.rank
    out.mu = bot.mu
    out.sigma = bot.sigma
    out.conservative_rating = row.rating.conservative
    out.games = bot.games
    out.wins = bot.wins
    out.mean_score = row.mean_score
    out.timeouts = bot.timeouts
    out.crashes = bot.crashes
    out.paused = bot.paused
    out.connected = row.connected


def _encode_match(
    record: LadderMatchRecord, bots: dict[str, BotRecord], out: ladder_pb2.LadderMatch
) -> None:
    out.match = f"matches/{record.match_id}"
    out.game = codec_for_game(record.game).proto_game
    set_timestamp(out.create_time, record.started)
    if record.finished is not None:
        set_timestamp(out.end_time, record.finished)
    out.abandoned = record.abandoned
    for seat in record.seats:
        entry = out.seats.add(seat=seat.seat, forfeited=seat.forfeited, timeouts=seat.timeouts)
        _encode_bot(bots[seat.bot_id], entry.bot)
        entry.crashed = seat.crashed
        entry.rating_before = Rating(seat.mu_before, seat.sigma_before).conservative
        if seat.score is not None:
            entry.score = seat.score
        if seat.rank is not None:
            entry.rank = seat.rank
        if seat.mu_after is not None and seat.sigma_after is not None:
            entry.rating_after = Rating(seat.mu_after, seat.sigma_after).conservative
            entry.mu_after = seat.mu_after
            entry.sigma_after = seat.sigma_after
