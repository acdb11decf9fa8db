"""A finished match's replay (``botarena.v1.Replay``, docs/replays.md), built from its log.

Nothing is hidden once a match has ended: each step holds its event as a spectator's
stream carries it after the end (every move in full), the spectator's view and every
seat's own view after it, and the replay holds the game's secrets (what no view shows,
such as a deck's order) and the engine seed.
"""

from __future__ import annotations

from botarena.server.match import Match, MatchNotFinishedError, StreamItem
from botarena.server.service._convert import EventEncoder, encode_match
from botarena.server.service._registry import codec_for_game
from botarena.v1 import match_pb2, match_service_pb2

__all__ = ["REPLAY_FORMAT_VERSION", "encode_replay"]

REPLAY_FORMAT_VERSION = 2
"""``Replay.format_version`` of the replays this server makes."""


def encode_replay(match: Match, out: match_pb2.Replay) -> None:
    """Write the replay of ``match`` into the empty ``out``.

    Raises:
        MatchNotFinishedError: The match is still running.
    """
    if not match.finished:
        raise MatchNotFinishedError(match.match_id)
    codec = codec_for_game(match.settings.game)
    rules = match.rules
    out.format_version = REPLAY_FORMAT_VERSION
    encode_match(match, out.match)
    codec.encode_secrets(match.state_at(0), out)
    events = EventEncoder(match, None)
    response = match_service_pb2.StreamMatchEventsResponse()
    seats = range(match.seat_count)
    for entry in match.events:
        step = out.steps.add()
        response.ParseFromString(events.event_bytes(StreamItem(entry.state_version, entry)))
        step.event.CopyFrom(response.event)
        if step.event.WhichOneof("kind") == "move_applied":
            step.event.move_applied.ClearField("view")
        state = match.state_at(entry.state_version)
        codec.encode_view(
            rules.view(state, None), None, with_history=False, out=step.spectator_view
        )
        for seat in seats:
            codec.encode_view(
                rules.view(state, seat), seat, with_history=False, out=step.seat_views.add()
            )
