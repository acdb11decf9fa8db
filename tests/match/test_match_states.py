"""A match keeps only some engine states (checkpoints and the last few) and makes the
others again from its log: every version's state must come back exactly."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from botarena.server.games import get_rules
from botarena.server.match import Match, MatchManager, MatchSettings
from botarena.server.match import _history as history_module
from botarena.server.service import PLUGINS


def _play(
    game: str, seats: int, monkeypatch: pytest.MonkeyPatch, *, resign_at: int | None = None
) -> tuple[Match, dict[int, Any]]:
    """Play a match to its end (seat 1 resigns at ``resign_at``) and note every version's
    state."""
    noted: dict[int, Any] = {}
    append = Match._append

    def spy(self: Match, kind: Any, **fields: Any) -> None:
        append(self, kind, **fields)
        noted[len(self.events) - 1] = self.state

    monkeypatch.setattr(Match, "_append", spy)

    async def scenario() -> Match:
        manager = MatchManager()
        rules = get_rules(game)
        settings = MatchSettings(
            game=game, seat_count=seats, seed=5, game_config=rules.default_config()
        )
        match, _ = manager.create(settings)
        chooser = random.Random(5)
        while not match.finished:
            if match.state_version == resign_at and not match.is_forfeited(1):
                manager.resign(match.match_id, match.tokens[1])  # stand-in moves follow
                continue
            seat = match.seats_to_act()[0]
            moves = match.legal_moves(seat)
            manager.submit(
                match.match_id,
                match.tokens[seat],
                chooser.choice(moves),
                expected_state_version=match.state_version,
            )
        manager.close()
        return match

    return asyncio.run(scenario()), noted


@pytest.mark.parametrize("game", [plugin.name for plugin in PLUGINS])
def test_every_version_state_comes_back_in_any_order(
    game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Three seats, one resigning: the server's stand-in moves are in the log too.
    match, noted = _play(game, 3, monkeypatch, resign_at=30)
    assert match.is_forfeited(1)
    assert any(entry.by_timeout for entry in match.events[30:])
    versions = list(range(match.state_version + 1))
    assert sorted(noted) == versions
    for version in versions:  # in order, as a replayed stream reads them
        assert match.state_at(version) == noted[version]
    random.Random(1).shuffle(versions)
    for version in versions:
        assert match.state_at(version) == noted[version]
    with pytest.raises(IndexError):
        match.state_at(match.state_version + 1)


def test_a_finished_match_keeps_its_checkpoints_and_its_last_state_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    match, _ = _play("qwirkle", 2, monkeypatch)
    last = match.state_version
    assert last > 3 * history_module._CHECKPOINT_EVERY
    every = history_module._CHECKPOINT_EVERY
    assert match._history.kept_versions() == [*range(0, last, every), last]
