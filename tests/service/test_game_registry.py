"""The game registry: every list of games derives from ``PLUGINS``, and a record that
lacks a piece, or whose pieces disagree, stops the server's start-up."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from typing import Any

import pytest

from botarena.bots import BUILTIN_BOTS
from botarena.clients import cli
from botarena.clients.runner import GAMES as RUNNER_GAMES
from botarena.server.games import GAMES, get_rules
from botarena.server.match import hooks_for
from botarena.server.service import (
    PLUGINS,
    GamePlugin,
    OperatorOption,
    PluginError,
    check_plugins,
    codec_for_game,
    codec_for_proto,
    config_overrides,
    operator_options,
    plugin_for,
)
from botarena.v1 import match_pb2

_BY_NAME = [pytest.param(plugin, id=plugin.name) for plugin in PLUGINS]


@pytest.mark.parametrize("plugin", _BY_NAME)
def test_every_layer_serves_the_registered_game(plugin: GamePlugin) -> None:
    assert get_rules(plugin.name) is plugin.rules
    assert type(hooks_for(plugin.name)) is type(plugin.hooks())
    assert codec_for_game(plugin.name) is plugin.codec
    assert codec_for_proto(plugin.proto_game) is plugin.codec
    assert RUNNER_GAMES[plugin.name] == plugin.proto_game
    assert plugin_for(plugin.name) is plugin


def test_the_engines_runner_and_server_list_the_same_games_in_registry_order() -> None:
    names = [plugin.name for plugin in PLUGINS]
    assert list(GAMES) == names
    assert list(RUNNER_GAMES) == names


def test_every_game_of_the_protocol_is_hosted() -> None:
    hosted = {int(plugin.proto_game) for plugin in PLUGINS}
    declared = set(match_pb2.Game.values()) - {match_pb2.GAME_UNSPECIFIED}
    assert hosted == declared


def test_every_built_in_bot_plays_only_registered_games() -> None:
    names = {plugin.name for plugin in PLUGINS}
    for bot in BUILTIN_BOTS.values():
        assert bot.games is None or bot.games <= names, bot.name


def test_an_unregistered_game_has_no_hooks_rather_than_generic_ones() -> None:
    with pytest.raises(LookupError, match="no match hooks registered for game 'chess'"):
        hooks_for("chess")


def test_the_registry_passes_its_own_checks() -> None:
    check_plugins(PLUGINS)


class _OtherCodec:
    """A codec that claims another oneof case than its game has in the protocol."""

    def __init__(self, codec: Any, oneof_case: str) -> None:
        self._codec = codec
        self.oneof_case = oneof_case

    def __getattr__(self, name: str) -> Any:
        return getattr(self._codec, name)


def _broken(name: str) -> tuple[GamePlugin, ...]:
    first, second, *rest = PLUGINS
    cases: dict[str, Any] = {
        "no codec": dataclasses.replace(first, codec=None),  # type: ignore[arg-type]
        "no hooks": dataclasses.replace(first, hooks=None),  # type: ignore[arg-type]
        "no wire": dataclasses.replace(first, wire=None),  # type: ignore[arg-type]
        "a wire that makes nothing": dataclasses.replace(first, wire=42),  # type: ignore[arg-type]
        "no browser renderer": dataclasses.replace(
            first, viewer=dataclasses.replace(first.viewer, script="chess.js")
        ),
        "no title": dataclasses.replace(first, info=dataclasses.replace(first.info, title="")),
        "another seat range": dataclasses.replace(
            first, info=dataclasses.replace(first.info, max_seats=first.max_seats + 1)
        ),
        "another game's rules": dataclasses.replace(first, rules=second.rules),
        "another game's codec": dataclasses.replace(first, codec=second.codec),
        "no oneof case": dataclasses.replace(first, codec=_OtherCodec(first.codec, "chess")),
        "a duplicate": first,
    }
    return (cases[name], second, *rest, *((first,) if name == "a duplicate" else ()))


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("no codec", "lacks its codec"),
        ("no hooks", "lacks its hooks"),
        ("no wire", "lacks its wire"),
        ("a wire that makes nothing", "its wire is not callable"),
        ("no browser renderer", "its browser renderer chess.js is missing"),
        ("no title", "lacks its title"),
        ("another game's rules", "its rules are"),
        ("another seat range", "its rules take"),
        ("another game's codec", "its codec is"),
        ("no oneof case", "has no case 'chess'"),
        ("a duplicate", "two games share the name"),
    ],
    ids=lambda value: str(value).replace(" ", "-"),
)
def test_a_game_lacking_a_piece_fails_the_check(case: str, message: str) -> None:
    with pytest.raises(PluginError, match=message):
        check_plugins(_broken(case))


@pytest.mark.parametrize(
    ("sabotage", "message"),
    [
        (
            "import botarena.server.match._qwirkle as hooks\nhooks.QwirkleHooks = None",
            "game 'qwirkle' lacks its hooks",
        ),
        (
            "import botarena.server.games.qwirkle as game\n"
            "type(game.QWIRKLE).name = property(lambda self: 'chess')",
            "game 'qwirkle': its rules are 'chess''s",
        ),
    ],
    ids=["missing-hooks", "rules-of-another-name"],
)
def test_a_registry_lacking_a_piece_stops_the_server_start_up(sabotage: str, message: str) -> None:
    # Importing the service layer is the server's start-up (create_server, the CLI):
    # break one piece of a game first, in a fresh interpreter.
    code = f"{sabotage}\nimport botarena.server.service\n"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    )
    assert result.returncode != 0
    assert "PluginError" in result.stderr
    assert message in result.stderr


def test_operator_options_become_config_overrides_of_their_game() -> None:
    (plugin, option), *_ = operator_options()
    value = object()
    assert config_overrides({option.dest: value}) == {plugin.name: {option.config_field: value}}
    assert config_overrides({option.dest: None}) == {}
    with pytest.raises(KeyError, match="unknown operator options"):
        config_overrides({"chess_pieces": value})


def test_an_operator_option_is_named_after_its_flag() -> None:
    option = OperatorOption("--chess-pieces", "PATH", "pieces", "pieces", load=lambda path: path)
    assert option.dest == "chess_pieces"


def test_the_command_line_offers_every_game_and_every_operator_option(
    capsys: pytest.CaptureFixture[str],
) -> None:
    parser = cli._parser()
    for plugin in PLUGINS:
        assert parser.parse_args(["match", "--game", plugin.name, "--bot", "random"]).game == (
            plugin.name
        )
    assert parser.parse_args(["match", "--bot", "random"]).game == PLUGINS[0].name
    with pytest.raises(SystemExit):
        parser.parse_args(["serve", "--help"])
    serve_help = capsys.readouterr().out
    with pytest.raises(SystemExit):
        parser.parse_args(["match", "--help"])
    match_help = capsys.readouterr().out
    for _, option in operator_options():
        assert option.flag in serve_help
        assert option.flag in match_help
