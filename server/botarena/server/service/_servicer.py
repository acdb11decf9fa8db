# mypy: disable-error-code="import-untyped"
"""The MatchService servicer: decode, call the match layer, encode. Nothing else.

Validation order follows AIP-193: the request's form, then credentials, then the match's
existence, then its state, turn and version (those in the match layer), then legality.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import AsyncIterator
from typing import Any, TypeAlias

import grpc
import structlog
from structlog.contextvars import bind_contextvars

from botarena.server.match import (
    ForfeitReason,
    InvalidRequestError,
    Match,
    MatchError,
    MatchManager,
    MatchNotFinishedError,
    MatchNotFoundError,
    SeatTokenRequiredError,
)
from botarena.server.service._auth import bearer_token, caller_of, require_admin
from botarena.server.service._budget import RefusalHold
from botarena.server.service._convert import (
    EventEncoder,
    WireEncoders,
    check_request_id,
    decode_settings,
    default_config,
    encode_decision,
    encode_match,
    encode_summary,
    encode_view,
    match_id_of,
)
from botarena.server.service._errors import handle_errors, handle_stream_errors
from botarena.server.service._paging import match_nodes, match_page
from botarena.server.service._registry import ConfigOverrides, codec_for_game, codec_for_proto
from botarena.server.service._replays import encode_replay
from botarena.server.service.codecs import GameCodec
from botarena.server.service.wire import add_legal_moves
from botarena.v1 import match_pb2, match_service_pb2

__all__ = ["MatchServicer"]

_logger = structlog.get_logger("botarena.service")

_RESIGN_REASONS = {
    match_service_pb2.RESIGN_REASON_UNSPECIFIED: ForfeitReason.RESIGNED,
    match_service_pb2.RESIGN_REASON_RESIGNED: ForfeitReason.RESIGNED,
    match_service_pb2.RESIGN_REASON_BOT_EXITED: ForfeitReason.BOT_EXITED,
}
# A CreateMatch request_id's repeat returns seat tokens: it must be hard to guess.
_MIN_CREATE_REQUEST_ID_LENGTH = 16

_DEFAULT_PAGE_SIZE = 50
_MAX_PAGE_SIZE = 500

# grpc.aio.ServicerContext; grpc ships no type stubs in our toolchain, so it is Any.
Context: TypeAlias = Any


class MatchServicer:
    """Implements ``botarena.v1.MatchService`` over a :class:`MatchManager`.

    Args:
        manager: The matches.
        admin_token: When set, CreateMatch requires it as the bearer token.
        config_overrides: Per game registry name, fields of the engine's default config
            that this server replaces (``config_overrides``: the operator options of
            ``PLUGINS``); every match of that game starts from them.
        hold: Holds the refusals of callers that retry too soon (shared with the call
            budget's); by default one over the manager's admission.
    """

    def __init__(
        self,
        manager: MatchManager,
        *,
        admin_token: str | None = None,
        config_overrides: ConfigOverrides | None = None,
        hold: RefusalHold | None = None,
    ) -> None:
        self.manager = manager
        self._admin_token = admin_token or None
        self._config_overrides = config_overrides or {}
        self._hold = hold or RefusalHold(manager.admission.refusals)
        self._wires = WireEncoders()

    # ------------------------------------------------------------------ helpers

    def _seat_of(self, match: Match, context: Context) -> int | None:
        token = bearer_token(context)
        return None if token is None else match.authenticate(token)

    def _check_admin(self, context: Context) -> None:
        require_admin(context, self._admin_token, "creating matches")

    # ------------------------------------------------------------------ RPCs

    @handle_errors
    async def CreateMatch(
        self, request: match_service_pb2.CreateMatchRequest, context: Context
    ) -> match_service_pb2.CreateMatchResponse:
        """Create a match and return its seat tokens."""
        request_id = check_request_id(
            "request_id", request.request_id, min_length=_MIN_CREATE_REQUEST_ID_LENGTH
        )
        codec = _codec_checked(request.config)
        self._check_admin(context)
        caller = caller_of(context, self._admin_token)
        try:
            # Before any decoding: a flood is refused at the least cost.
            self.manager.check_admission(caller, request_id)
        except MatchError:
            await self._hold(caller.key)  # a caller that ignores RetryInfo waits for it
            raise
        rules = self.manager.rules(codec.game)
        default = default_config(rules, self._config_overrides)
        settings = decode_settings(request.config, rules.min_seats, default)
        fingerprint = ""
        if request_id:
            config_bytes = request.config.SerializeToString(deterministic=True)
            fingerprint = hashlib.sha256(config_bytes).hexdigest()
        match, _ = self.manager.create(
            settings,
            request_id=request_id,
            caller=caller,
            fingerprint=fingerprint,
        )
        response = match_service_pb2.CreateMatchResponse()
        encode_match(match, response.match, for_creator=True)
        for seat, token in enumerate(match.tokens):
            response.seat_tokens.add(seat=seat, token=token)
        return response

    @handle_errors
    async def GetMatch(
        self, request: match_service_pb2.GetMatchRequest, context: Context
    ) -> match_service_pb2.GetMatchResponse:
        """Return a match's public state."""
        match_id = match_id_of("name", request.name)
        response = match_service_pb2.GetMatchResponse()
        match = self.manager.find(match_id)
        if not encode_summary(match, response.match):
            raise MatchNotFoundError(match_id)
        response.match.node = match_nodes(self.manager, [match]).get(match_id, "")
        return response

    @handle_errors
    async def GetReplay(
        self, request: match_service_pb2.GetReplayRequest, context: Context
    ) -> match_service_pb2.GetReplayResponse:
        """Return a finished match's replay (anyone may: nothing is hidden after the end)."""
        match_id = match_id_of("name", request.name)
        match = await self.manager.load(match_id)
        if not match.finished:
            raise MatchNotFinishedError(match_id)
        response = match_service_pb2.GetReplayResponse()
        context.set_compression(grpc.Compression.Gzip)  # views repeat: ~1/10 the size
        # Hundreds of views to encode (~10-100 ms): off the loop, which keeps serving
        # moves meanwhile. A finished match no longer changes.
        await asyncio.to_thread(encode_replay, match, response.replay)
        return response

    @handle_errors
    async def ListMatches(
        self, request: match_service_pb2.ListMatchesRequest, context: Context
    ) -> match_service_pb2.ListMatchesResponse:
        """List matches newest first, filtered, one page at a time."""
        if not 0 <= request.page_size <= _MAX_PAGE_SIZE:
            raise InvalidRequestError("page_size", f"must be within 0..{_MAX_PAGE_SIZE}")
        size = request.page_size or _DEFAULT_PAGE_SIZE
        game = ""
        if request.game != match_pb2.GAME_UNSPECIFIED:
            game = _codec_checked(match_pb2.MatchConfig(game=request.game), "game").game
        state = int(request.state)
        if state not in match_pb2.Match.State.values():
            raise InvalidRequestError("state", f"{state} is not a match state")
        matches, next_token = match_page(
            self.manager, game=game, state=state, page_token=request.page_token, size=size
        )
        response = match_service_pb2.ListMatchesResponse(next_page_token=next_token)
        response.matches.extend(matches)
        return response

    @handle_errors
    async def GetPlayerView(
        self, request: match_service_pb2.GetPlayerViewRequest, context: Context
    ) -> match_service_pb2.GetPlayerViewResponse:
        """Return the caller's view, with its decision and legal moves when it must act."""
        match_id = _match_id(request.match, context)
        match = await self.manager.load(match_id)
        seat = self._seat_of(match, context)
        match = self.manager.settle(match_id, seat)
        bind_contextvars(match=match_id, seat=seat, state_version=match.state_version)
        response = match_service_pb2.GetPlayerViewResponse(state_version=match.state_version)
        response.seats_to_act.extend(match.seats_to_act())
        encode_view(match, match.state, seat, with_history=True, out=response.view)
        if seat is not None and (decision := match.pending_decision(seat)) is not None:
            encode_decision(decision, response.decision)
            wire = self._wires.for_game(match.settings.game)
            add_legal_moves(wire, match.legal_moves(seat), response, "legal_moves")
        encode_match(match, response.match)
        return response

    @handle_errors
    async def SubmitMove(
        self, request: match_service_pb2.SubmitMoveRequest, context: Context
    ) -> match_service_pb2.SubmitMoveResponse:
        """Submit the caller's move."""
        match_id = _match_id(request.match, context)
        request_id = check_request_id("request_id", request.request_id)
        token = bearer_token(context)
        if token is None:
            raise SeatTokenRequiredError()
        match = await self.manager.load(match_id)
        seat = match.authenticate(token)
        codec = codec_for_game(match.settings.game)
        case = request.move.WhichOneof("game_move")
        if case is None:
            raise InvalidRequestError("move", "sets no game", reason="MOVE_EMPTY")
        if case != codec.oneof_case:
            raise InvalidRequestError(
                "move", f"a {case} move for a {codec.game} match", reason="MOVE_GAME_MISMATCH"
            )
        bind_contextvars(match=match_id, seat=seat, state_version=match.state_version)
        move = codec.decode_move(request.move)
        result = self.manager.submit(
            match_id,
            token,
            move,
            expected_state_version=request.expected_state_version,
            request_id=request_id,
        )
        _logger.debug("move accepted", new_state_version=result.state_version)
        response = match_service_pb2.SubmitMoveResponse(state_version=result.state_version)
        response.applied_move.CopyFrom(codec.encode_move(result.applied_move, redact=False))
        return response

    @handle_errors
    async def ResignMatch(
        self, request: match_service_pb2.ResignMatchRequest, context: Context
    ) -> match_service_pb2.ResignMatchResponse:
        """Resign the caller's seat."""
        match_id = _match_id(request.match, context)
        request_id = check_request_id("request_id", request.request_id)
        reason = _RESIGN_REASONS.get(request.reason)
        if reason is None:
            raise InvalidRequestError("reason", f"{request.reason} is not a resign reason")
        bind_contextvars(match=match_id)
        token = bearer_token(context)
        if token:  # a finished match no longer held is rebuilt off the loop
            await self.manager.load(match_id)
        result = self.manager.resign(match_id, token, request_id=request_id, reason=reason)
        return match_service_pb2.ResignMatchResponse(state_version=result.state_version)

    @handle_stream_errors
    async def StreamMatchEvents(
        self, request: match_service_pb2.StreamMatchEventsRequest, context: Context
    ) -> AsyncIterator[bytes]:
        """Stream the match's events as the caller may see them.

        Every event goes out as serialized bytes (``EventEncoder.stream``, which also
        encodes a coming decision's legal moves while grpc sends the event before it).
        """
        match_id = _match_id(request.match, context)
        if request.after_state_version < 0:
            raise InvalidRequestError("after_state_version", "must not be negative")
        match = await self.manager.load(match_id)
        seat = self._seat_of(match, context)
        bind_contextvars(match=match_id, seat=seat, state_version=request.after_state_version)
        encoder = EventEncoder(match, seat, self._wires)
        items = self.manager.stream(match_id, seat, request.after_state_version)
        async for data in encoder.stream(items):
            yield data


def _match_id(name: str, context: Context) -> str:
    """Return the match id of a request's ``match`` field, or of the caller's seat token
    when the field is empty (a seat token names its match: "{match_id}.{secret}").

    Raises:
        InvalidRequestError: The name is malformed, or empty without a seat token.
    """
    if name:
        return match_id_of("match", name)
    token = bearer_token(context) or ""
    match_id, separator, _ = token.partition(".")
    if not separator or not match_id:
        raise InvalidRequestError("match", "is empty; give the match's name or a seat token")
    return match_id


def _codec_checked(config: match_pb2.MatchConfig, field: str = "config.game") -> GameCodec:
    try:
        return codec_for_proto(int(config.game))
    except InvalidRequestError as error:
        raise InvalidRequestError(field, error.message.split(": ", 1)[-1], error.reason) from None
