"""A finished match's replay (``botarena.v1.Replay``, docs/replays.md), built from its log.

Nothing is hidden once a match has ended: each step holds its event as a spectator's
stream carries it after the end (every move in full), the spectator's view and every
seat's own view after it, and the replay holds the game's secrets (what no view shows,
such as a deck's order) and the engine seed.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from google.protobuf import json_format

from botarena.server.match import (
    LogEntry,
    Match,
    MatchError,
    MatchNotFinishedError,
    hooks_for,
)
from botarena.server.service._convert import (
    decode_settings,
    default_config,
    encode_event,
    encode_match,
)
from botarena.server.service._registry import ConfigOverrides, codec_for_game, plugin_for_proto
from botarena.v1 import match_pb2

__all__ = [
    "REPLAY_FORMAT_VERSION",
    "ReplayMismatchError",
    "check_replay",
    "encode_replay",
    "encode_spectator_step",
    "replay_views",
]

REPLAY_FORMAT_VERSION = 2
"""``Replay.format_version`` of the replays this server makes."""


def encode_spectator_step(match: Match, entry: LogEntry, out: match_pb2.ReplayStep) -> None:
    """Write the log entry ``entry`` as a spectator sees it into the empty ``out``: the
    event as a spectator's stream carries it (another seat's hidden move redacted while
    the match runs) and the spectator's view after it, without any seat's view.

    A replay's step once the match has ended; a live page's step while it runs.
    """
    encode_event(match, entry, None, out.event)
    codec = codec_for_game(match.settings.game)
    view = match.rules.view(match.state_at(entry.state_version), None)
    codec.encode_view(view, None, with_history=False, out=out.spectator_view)


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
    seats = range(match.seat_count)
    for entry in match.events:
        step = out.steps.add()
        encode_spectator_step(match, entry, step)
        state = match.state_at(entry.state_version)
        for seat in seats:
            codec.encode_view(
                rules.view(state, seat), seat, with_history=False, out=step.seat_views.add()
            )


class ReplayMismatchError(ValueError):
    """A replay and the engine disagree: the file was changed, or another engine version
    (or another operator table, such as ``--queendomino-buildings``) made it."""


Views = tuple[match_pb2.PlayerView, list[match_pb2.PlayerView]]
"""A step's spectator view and every seat's view."""


def replay_views(
    config: match_pb2.MatchConfig,
    events: Sequence[match_pb2.MatchEvent],
    overrides: ConfigOverrides | None = None,
) -> Iterator[Views]:
    """Play a match's events through the engine again and yield the views after each.

    Args:
        config: The match's config, its seed set.
        events: Every event of the match in order (moves in full).
        overrides: The config overrides of the server that played it, if any.

    Raises:
        ReplayMismatchError: The config is unusable, a logged move does not decode or is
            illegal, or the events skip a version.
    """
    if not config.HasField("seed"):
        raise ReplayMismatchError("the config has no seed (a replay is made after the end)")
    try:
        plugin = plugin_for_proto(int(config.game))
        rules, codec = plugin.rules, plugin.codec
        settings = decode_settings(config, rules.min_seats, default_config(rules, overrides or {}))
    except MatchError as error:
        raise ReplayMismatchError(f"the config does not decode: {error}") from None
    hooks = hooks_for(plugin.name)
    state = rules.new_match(settings.game_config, settings.seat_count, settings.seed)
    seats = range(settings.seat_count)
    for index, event in enumerate(events):
        if event.state_version != index:
            raise ReplayMismatchError(f"step {index} has version {event.state_version}")
        kind = event.WhichOneof("kind")
        try:
            if kind == "move_applied":
                applied = event.move_applied
                state = rules.apply(state, applied.seat, codec.decode_move(applied.move))
            elif kind == "seat_forfeited":
                reduced = hooks.remove_seat(rules, state, event.seat_forfeited.seat)
                state = state if reduced is None else reduced
        except (MatchError, ValueError) as error:
            raise ReplayMismatchError(f"version {index}: the engine refuses it: {error}") from None
        views = []
        for viewer in (None, *seats):
            view = match_pb2.PlayerView()
            codec.encode_view(rules.view(state, viewer), viewer, with_history=False, out=view)
            views.append(view)
        yield views[0], views[1:]


def check_replay(replay: match_pb2.Replay, overrides: ConfigOverrides | None = None) -> None:
    """Return if the engine, playing the replay's moves again, makes exactly its views.

    Raises:
        ReplayMismatchError: Names the first step, viewer and field that differ.
    """
    events = [step.event for step in replay.steps]
    made = replay_views(replay.match.config, events, overrides)
    for step, (spectator, seat_views) in zip(replay.steps, made, strict=True):
        version = step.event.state_version
        if len(step.seat_views) != len(seat_views):
            raise ReplayMismatchError(f"version {version}: {len(step.seat_views)} seat views")
        pairs = [("the spectator", step.spectator_view, spectator)]
        pairs += [
            (f"seat {seat}", logged, engine)
            for seat, (logged, engine) in enumerate(zip(step.seat_views, seat_views, strict=True))
        ]
        for viewer, logged, engine in pairs:
            if logged != engine:
                where = _first_difference(
                    json_format.MessageToDict(logged), json_format.MessageToDict(engine)
                )
                raise ReplayMismatchError(
                    f"version {version}: {viewer}'s view differs from the engine's at {where}"
                )


def _first_difference(logged: object, engine: object, path: str = "view") -> str:
    """The path of the first field where two JSON values differ, with both values."""
    if isinstance(logged, dict) and isinstance(engine, dict):
        for key in sorted(set(logged) | set(engine)):
            if logged.get(key) != engine.get(key):
                return _first_difference(logged.get(key), engine.get(key), f"{path}.{key}")
    if isinstance(logged, list) and isinstance(engine, list) and len(logged) == len(engine):
        for index, (a, b) in enumerate(zip(logged, engine, strict=True)):
            if a != b:
                return _first_difference(a, b, f"{path}[{index}]")
    return f"{path} (file: {_short(logged)}, engine: {_short(engine)})"


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
