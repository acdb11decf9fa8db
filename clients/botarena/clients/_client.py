# mypy: disable-error-code="import-untyped"
"""``MatchClient``: the blocking client of ``botarena.v1.MatchService``."""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import replace
from types import TracebackType
from typing import Any, Self

import grpc

from botarena.clients._channel import ChannelClient
from botarena.clients._common import new_request_id
from botarena.clients._errors import (
    BotarenaError,
    MatchOnOtherNodeError,
    TransientError,
    from_grpc_error,
)
from botarena.clients._target import explain_tls_failure, speaks_tls, worth_probing
from botarena.v1 import match_pb2, match_service_pb2, match_service_pb2_grpc

__all__ = ["MatchClient"]

# Redirects one call follows at most (nodes name each other while a lease changes hands).
_MAX_REDIRECTS = 4


class MatchClient(ChannelClient[match_service_pb2_grpc.MatchServiceStub]):
    """A blocking client of the MatchService over one gRPC channel.

    Every method is named after its RPC, returns the generated response message and
    raises a :class:`~botarena.clients.BotarenaError` subclass when the call fails.

    Use it as a context manager, or call :meth:`close`::

        with MatchClient(target="127.0.0.1:50051", token=seat_token) as client:
            view = client.get_player_view("matches/0123abcd")

    Several nodes on one database: a call for a match another node runs is answered
    ``MATCH_ON_OTHER_NODE`` naming that node; the client then sends the same call (the
    same token and request) there, and the later calls of that match too, on a channel
    of its own with the target's TLS settings. When that node cannot be reached, the
    call fails as usual (a :class:`~botarena.clients.TransientError`) and the next one
    asks the target again, which by then runs the match or names its new owner.

    Args:
        target: The server: ``host:port`` (plaintext), ``botarena+tls://host:port[?ca=PATH]``
            (TLS; docs/bots.md) or a :class:`~botarena.clients.ServerTarget`.
        token: The seat token (or the server's admin token for :meth:`create_match`) sent
            as ``authorization: Bearer <token>``; ``None`` calls as a spectator.
        timeout: Seconds each unary call may take; ``None`` waits forever. Streams have
            no timeout.
        credentials: TLS credentials that replace the target's (``None``: the target's).
        channel_options: Extra gRPC channel arguments.

    Raises:
        ValueError: The target is malformed or its TLS files cannot be read.
    """

    @staticmethod
    def _new_stub(channel: grpc.Channel) -> match_service_pb2_grpc.MatchServiceStub:
        return match_service_pb2_grpc.MatchServiceStub(channel)

    def with_token(self, token: str | None) -> MatchClient:
        """Return a client that shares this client's channel but sends ``token``.

        Closing the returned client leaves the channel open; closing this one closes it.
        """
        return self._sharing_channel(token)

    def _setup(self, *args: Any, **kwargs: Any) -> None:
        super()._setup(*args, **kwargs)
        # The clients of other nodes by HOST:PORT, and the node each match was sent to.
        self._nodes: dict[str, MatchClient] = {}
        self._routes: dict[str, MatchClient] = {}

    def close(self) -> None:
        """Close the channel (if this client opened it); calls in flight are cancelled."""
        for node in self._nodes.values():
            node.close()
        self._nodes.clear()
        self._routes.clear()
        if self._owns_channel:
            self._channel.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _unary(self, method: Callable[[Any], Any], request: Any, match: str | None = None) -> Any:
        """Call ``method`` (of a stub: ``lambda stub: stub.GetMatch``) with ``request``;
        for the match ``match``, on the node that runs it (the class docstring)."""
        client = self if match is None else self._routes.get(match, self)
        for _ in range(_MAX_REDIRECTS):
            try:
                return client._call(method, request)
            except MatchOnOtherNodeError as error:
                if match is None or error.node in ("", client.server.address):
                    raise
                client = self._routes[match] = self._node(error.node)
            except TransientError:
                if match is not None:
                    self._routes.pop(match, None)  # the next call asks the target again
                raise
        return client._call(method, request)

    def _call(self, method: Callable[[Any], Any], request: Any) -> Any:
        try:
            return method(self._stub)(request, metadata=self._metadata, timeout=self.timeout)
        except grpc.RpcError as exc:
            raise self._failure(exc) from exc

    def _node(self, address: str) -> MatchClient:
        """The client of the node at ``address``: this token, this target's TLS."""
        node = self._nodes.get(address)
        if node is None:
            server = replace(self.server, address=address)
            node = self._nodes[address] = MatchClient(
                target=server, token=self.token, timeout=self.timeout
            )
        return node

    def _failure(self, exc: grpc.RpcError) -> BotarenaError:
        """Return the typed error of a failed call; a failed TLS agreement names its cause."""
        error = from_grpc_error(exc)
        probed = worth_probing(error, self.server) and speaks_tls(self.server.address)
        return explain_tls_failure(error, self.server, probed)

    def create_match(
        self, config: match_pb2.MatchConfig, *, request_id: str = ""
    ) -> match_service_pb2.CreateMatchResponse:
        """Create a match (CreateMatch); the response holds the match and its seat tokens.

        Args:
            config: The match's configuration; ``game`` is required.
            request_id: Optional idempotency key: a repeat returns the first answer.
        """
        request = match_service_pb2.CreateMatchRequest(config=config, request_id=request_id)
        response: match_service_pb2.CreateMatchResponse = self._unary(
            lambda stub: stub.CreateMatch, request
        )
        return response

    def get_match(self, name: str) -> match_service_pb2.GetMatchResponse:
        """Return a match's public state (GetMatch); ``name`` is ``matches/{id}``."""
        request = match_service_pb2.GetMatchRequest(name=name)
        response: match_service_pb2.GetMatchResponse = self._unary(
            lambda stub: stub.GetMatch, request, name
        )
        return response

    def get_replay(self, name: str) -> match_pb2.Replay:
        """Return a finished match's replay (GetReplay); ``name`` is ``matches/{id}``.

        Raises:
            MatchNotFinishedError: The match is still running (FAILED_PRECONDITION).
        """
        request = match_service_pb2.GetReplayRequest(name=name)
        response: match_service_pb2.GetReplayResponse = self._unary(
            lambda stub: stub.GetReplay, request, name
        )
        return response.replay

    def list_matches(
        self,
        *,
        page_size: int = 0,
        page_token: str = "",
        game: match_pb2.Game.ValueType = match_pb2.GAME_UNSPECIFIED,
        state: match_pb2.Match.State.ValueType = match_pb2.Match.STATE_UNSPECIFIED,
    ) -> match_service_pb2.ListMatchesResponse:
        """Return one page of matches, newest first (ListMatches)."""
        request = match_service_pb2.ListMatchesRequest(
            page_size=page_size, page_token=page_token, game=game, state=state
        )
        response: match_service_pb2.ListMatchesResponse = self._unary(
            lambda stub: stub.ListMatches, request
        )
        return response

    def get_player_view(self, match: str) -> match_service_pb2.GetPlayerViewResponse:
        """Return the caller's view (GetPlayerView), with its decision and legal moves."""
        request = match_service_pb2.GetPlayerViewRequest(match=match)
        response: match_service_pb2.GetPlayerViewResponse = self._unary(
            lambda stub: stub.GetPlayerView, request, match
        )
        return response

    def submit_move(
        self,
        match: str,
        move: match_pb2.Move,
        *,
        expected_state_version: int,
        request_id: str | None = None,
    ) -> match_service_pb2.SubmitMoveResponse:
        """Submit the caller's move (SubmitMove).

        Args:
            match: The match's name.
            move: The move, usually one of the decision's legal moves.
            expected_state_version: The version the move was chosen at (the decision's
                ``state_version``); a mismatch fails with :class:`StaleStateError`.
            request_id: Idempotency key; pass the same one to retry safely. ``None``
                generates a fresh key, so the call is still safe for gRPC's own retries
                but not for yours.
        """
        request = match_service_pb2.SubmitMoveRequest(
            match=match,
            move=move,
            expected_state_version=expected_state_version,
            request_id=new_request_id() if request_id is None else request_id,
        )
        response: match_service_pb2.SubmitMoveResponse = self._unary(
            lambda stub: stub.SubmitMove, request, match
        )
        return response

    def resign_match(
        self,
        match: str,
        *,
        request_id: str | None = None,
        reason: match_service_pb2.ResignReason.ValueType = (
            match_service_pb2.RESIGN_REASON_UNSPECIFIED
        ),
    ) -> match_service_pb2.ResignMatchResponse:
        """Resign the caller's seat (ResignMatch): it forfeits and ranks last.

        Args:
            match: The match's name.
            request_id: As in :meth:`submit_move`.
            reason: Why; unset means ``RESIGN_REASON_RESIGNED`` (forfeit reason
                "resigned"). Whoever started the seat's bot passes
                ``RESIGN_REASON_BOT_EXITED`` when its process ended before the match.

        Raises:
            MatchFinishedError, SeatForfeitedError: Nothing is left to resign.
        """
        request = match_service_pb2.ResignMatchRequest(
            match=match,
            request_id=new_request_id() if request_id is None else request_id,
            reason=reason,
        )
        response: match_service_pb2.ResignMatchResponse = self._unary(
            lambda stub: stub.ResignMatch, request, match
        )
        return response

    def stream_match_events(
        self, match: str, *, after_state_version: int = 0
    ) -> Generator[match_pb2.MatchEvent, None, None]:
        """Yield the match's events (StreamMatchEvents) until ``MatchFinished``.

        The call starts at the first ``next()``. Closing the generator (or leaving a
        ``for`` loop over it and dropping it) cancels the call.

        Args:
            match: The match's name.
            after_state_version: Resume after this version; 0 starts with ``MatchStarted``.

        Raises:
            BotarenaError: When the call fails, at the point of iteration where it fails.
        """
        client = self._routes.get(match, self)
        redirects = 0
        while True:
            request = match_service_pb2.StreamMatchEventsRequest(
                match=match, after_state_version=after_state_version
            )
            call = client._stub.StreamMatchEvents(request, metadata=client._metadata)
            try:
                for response in call:
                    after_state_version = max(after_state_version, response.event.state_version)
                    yield response.event
                return
            except grpc.RpcError as exc:
                error = client._failure(exc)
            finally:
                call.cancel()
            redirected = isinstance(error, MatchOnOtherNodeError) and error.node not in (
                "",
                client.server.address,
            )
            if not redirected or redirects == _MAX_REDIRECTS:
                if isinstance(error, TransientError):
                    self._routes.pop(match, None)
                raise error
            # The same stream on the node named, from the last version seen.
            assert isinstance(error, MatchOnOtherNodeError)
            redirects += 1
            client = self._routes[match] = self._node(error.node)
