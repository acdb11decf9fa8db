"""Fixtures of the HTML viewer's tests: real games, their replays, and a real browser.

The browser is the system's Chromium (Debian's ``chromium``), driven by Playwright; no
browser is ever downloaded. Without it the browser tests are skipped with the reason,
except under CI (``CI`` set), where a missing browser fails them: ``make test`` and
``.ci/run`` install it (scripts/ensure_chromium.sh).
"""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from botarena.bots import BUILTIN_BOTS, HeuristicQwixxBot, RandomBot
from botarena.clients import Bot
from botarena.server.games import get_rules
from botarena.server.match import IllegalMoveRejectedError, Match, MatchManager, MatchSettings
from botarena.server.service import PLUGINS, codec_for_game
from botarena.server.service._replays import encode_replay
from botarena.server.service.viewers.html import build_html
from botarena.v1 import match_pb2

# The browser and its tabs are tests/conftest.py's (tests/web uses them too); this
# folder's modules import them from here. A parent import: tests/ is no package.
from ..conftest import ARTIFACTS, Page, chromium_path  # noqa: TID252

__all__ = [
    "ARTIFACTS",
    "GAMES",
    "Page",
    "PlayedGame",
    "chromium_path",
    "make_forfeit_game",
    "make_game",
]


@dataclass
class PlayedGame:
    """A finished in-process match, its replay and its viewer page on disk."""

    match: Match
    replay: match_pb2.Replay
    page: Path
    names: tuple[str, ...]
    stand_ins: int = 0
    illegal: int = 0
    resigned: list[int] = field(default_factory=list)

    def engine_view(self, version: int | None = None, seat: int | None = None) -> Any:
        """The engine's view at ``version`` (default: the end)."""
        state = self.match.state_at(self.match.state_version if version is None else version)
        return self.match.rules.view(state, seat)


def play(
    game: str,
    bots: Sequence[Bot],
    names: Sequence[str],
    *,
    seed: int = 7,
    stand_in_every: int = 0,
    illegal_at: int = 0,
    resign: tuple[int, int] | None = None,
) -> tuple[Match, int, int]:
    """Play ``game`` to its end with ``bots``, in-process, on a fake clock.

    Args:
        stand_in_every: Every this many decisions the seat lets its clock run out, so the
            server plays a stand-in move (0: never).
        illegal_at: At this decision the seat first submits its own first move again
            (Qwirkle: its cells are taken), which the server rejects (0: never).
        resign: ``(version, seat)``: the seat resigns once the match reaches the version.

    Returns:
        The match, how many stand-ins and rejected moves it had.
    """
    now = [0.0]

    async def scenario() -> tuple[Match, int, int]:
        manager = MatchManager(clock=lambda: now[0])
        rules = get_rules(game)
        codec = codec_for_game(game)
        settings = MatchSettings(
            game=game,
            seat_count=len(bots),
            seed=seed,
            game_config=rules.default_config(),
            seat_names=tuple(names),
        )
        match, _ = manager.create(settings)
        for seat in range(len(bots)):
            manager.settle(match.match_id, seat)
        rng = random.Random(seed)
        first_moves: dict[int, object] = {}
        decisions = stand_ins = illegal = 0
        resigned = False
        while not match.finished:
            if resign is not None and not resigned and match.state_version >= resign[0]:
                manager.resign(match.match_id, match.tokens[resign[1]])
                resigned = True
                continue
            seat = match.seats_to_act()[0]
            decisions += 1
            if stand_in_every and decisions % stand_in_every == 0:
                now[0] += 11.0  # past the default 10 s move time limit
                manager.settle(match.match_id)
                stand_ins += 1
                continue
            if illegal_at and decisions == illegal_at and seat in first_moves:
                with pytest.raises(IllegalMoveRejectedError):
                    manager.submit(
                        match.match_id,
                        match.tokens[seat],
                        first_moves[seat],
                        expected_state_version=match.state_version,
                    )
                illegal += 1
            view = match_pb2.PlayerView()
            codec.encode_view(
                match.rules.view(match.state, seat), seat, with_history=True, out=view
            )
            legal = codec.encode_moves(match.legal_moves(seat))
            move = codec.decode_move(bots[seat].choose_move(view, legal, rng))
            first_moves.setdefault(seat, move)
            now[0] += rng.uniform(0.002, 0.4)
            manager.submit(
                match.match_id, match.tokens[seat], move, expected_state_version=match.state_version
            )
        manager.close()
        return match, stand_ins, illegal

    # In a thread of its own: Playwright's sync API keeps an event loop running here.
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(lambda: asyncio.run(scenario())).result()


def _bots(game: str) -> list[Bot]:
    """The game's strongest built-in bot (greedy, else heuristic), and random."""
    best = next(
        BUILTIN_BOTS[name]
        for name in ("greedy", "heuristic", "random")
        if BUILTIN_BOTS[name].plays(game)
    )
    return [best.factory(), RandomBot()]


def make_game(
    directory: Path,
    game: str,
    names: Sequence[str] = ("greedy", "random"),
    *,
    bots: Sequence[Bot] | None = None,
    **options: Any,
) -> PlayedGame:
    """Play a game (by default 2 seats: the game's best built-in bot against random) and
    write its viewer page into ``directory``."""
    bots = bots or _bots(game)
    match, stand_ins, illegal = play(game, bots, names, **options)
    replay = match_pb2.Replay()
    encode_replay(match, replay)
    page = directory / (re.sub(r"\W+", "-", "-".join((game, *names))) + ".html")
    page.write_text(build_html(replay), encoding="utf-8")
    return PlayedGame(match, replay, page, tuple(names), stand_ins, illegal)


def make_forfeit_game(directory: Path) -> PlayedGame:
    """A 3-seat Qwixx game whose third seat ("quitter") resigns at version 12."""
    return make_game(
        directory,
        "qwixx",
        ("heuristic", "random", "quitter"),
        bots=[HeuristicQwixxBot(), RandomBot(), RandomBot()],
        resign=(12, 2),
    )


GAMES = tuple(plugin.name for plugin in PLUGINS)
"""Every game the server hosts: each has a browser renderer."""


@pytest.fixture(scope="session")
def games(tmp_path_factory: pytest.TempPathFactory) -> dict[str, PlayedGame]:
    """One finished 2-seat game of each game, with its viewer page."""
    directory = tmp_path_factory.mktemp("viewers")
    return {game: make_game(directory, game) for game in GAMES}
