"""The reference bots' public names and the registry the match runner uses."""

from __future__ import annotations

import importlib

import pytest

from botarena import bots
from botarena.bots import (
    BUILTIN_BOTS,
    GreedyBot,
    HeuristicQwixxBot,
    RandomBot,
    SearchBot,
    get_bot,
)
from botarena.clients import Bot


def test_public_names_are_pinned() -> None:
    assert sorted(bots.__all__) == sorted(
        [
            "BUILTIN_BOTS",
            "DEFAULT_EXCHANGE_THRESHOLD",
            "BuiltinBot",
            "GreedyBot",
            "GreedyQueendominoBot",
            "GreedyQwirkleBot",
            "HeuristicQwixxBot",
            "RandomBot",
            "SearchBot",
            "SearchQueendominoBot",
            "SearchQwirkleBot",
            "SearchQwixxBot",
            "UnsupportedGameError",
            "get_bot",
        ]
    )


def test_the_registry_names_random_greedy_heuristic_and_search() -> None:
    assert sorted(BUILTIN_BOTS) == ["greedy", "heuristic", "random", "search"]
    assert isinstance(get_bot("random"), RandomBot)
    assert isinstance(get_bot("greedy"), GreedyBot)
    assert isinstance(get_bot("heuristic"), HeuristicQwixxBot)
    assert isinstance(get_bot("search"), SearchBot)
    assert get_bot("random") is not get_bot("random")


@pytest.mark.parametrize("name", sorted(BUILTIN_BOTS))
def test_every_builtin_bot_is_a_bot_with_a_command_module(name: str) -> None:
    entry = BUILTIN_BOTS[name]
    assert entry.name == name
    assert isinstance(entry.factory(), Bot)
    command = importlib.import_module(entry.module)
    assert callable(command.main)


def test_random_plays_every_game_greedy_qwirkle_and_queendomino() -> None:
    assert BUILTIN_BOTS["random"].plays("qwixx")
    assert BUILTIN_BOTS["greedy"].plays("qwirkle")
    assert BUILTIN_BOTS["greedy"].plays("queendomino")
    assert not BUILTIN_BOTS["greedy"].plays("qwixx")
    assert BUILTIN_BOTS["heuristic"].plays("qwixx")
    assert not BUILTIN_BOTS["heuristic"].plays("qwirkle")
    assert all(BUILTIN_BOTS["search"].plays(game) for game in ("qwirkle", "qwixx", "queendomino"))


def test_an_unknown_name_lists_the_builtin_bots() -> None:
    with pytest.raises(KeyError, match="greedy, heuristic, random, search"):
        get_bot("alphazero")
