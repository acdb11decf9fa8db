"""The record that declares one game to the server: :class:`GamePlugin`, and its checks.

A game spans every server layer: its engine (``games``), its match policies (``match``),
its codec and proto messages (``service``) and its operator options (the command line).
The record names all of them, so it lives in the service layer, the only one allowed to
import them all (pyproject.toml: import-linter). The registry of records is
:mod:`botarena.server.service._registry`; every other list of games derives from it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from botarena.server.games import GameInfo, Rules
from botarena.server.match import GameHooks
from botarena.server.service.codecs._base import GameCodec
from botarena.server.service.viewers import GameViewer
from botarena.server.service.wire import MessageWire, WireFactory
from botarena.v1 import match_pb2

__all__ = ["GamePlugin", "OperatorOption", "PluginError", "check_plugins"]

_ONEOFS = (
    (match_pb2.MatchConfig, "game_config"),
    (match_pb2.Move, "game_move"),
    (match_pb2.PlayerView, "game_view"),
)
"""The envelopes' oneofs every game has a case in, named after the game."""


class PluginError(RuntimeError):
    """A game's record is incomplete or contradicts its pieces; raised at start-up."""


@dataclass(frozen=True, slots=True)
class OperatorOption:
    """A server operator's option of one game: a file that replaces one field of the
    engine's default config in every match of that game, created or recovered.

    Attributes:
        flag: The command-line flag of ``botarena serve`` and ``botarena match``.
        metavar: The flag's value in the help.
        help: One line for the help, naming the game.
        config_field: The engine config field the loaded value replaces.
        load: Returns the value of a path (``None``: the shipped default), validated.
            Raises ``ValueError`` for a bad file.
        announce: Called once when a server starts with the value (to log, for example,
            which parts of it are stand-ins); ``None`` says nothing.
        summary: Returns one short line on the value for a tool's user, or ``None``
            (the match runner says it on stderr instead of its embedded server's log).
    """

    flag: str
    metavar: str
    help: str
    config_field: str
    load: Callable[[Path | str | None], object]
    announce: Callable[[object], None] | None = None
    summary: Callable[[object], str | None] | None = None

    @property
    def dest(self) -> str:
        """The option's name in parsed arguments and ``operator_options`` mappings."""
        return self.flag.removeprefix("--").replace("-", "_")


@dataclass(frozen=True, slots=True)
class GamePlugin:
    """Everything the server, the runner and the command line know of one game.

    Attributes:
        info: The game's static facts (name, title, seat range), from its package.
        rules: The engine (stateless, shared), named ``info.name``.
        codec: Converts the engine's values to and from the game's proto messages; it
            names the game's ``botarena.v1.Game`` value and oneof case.
        hooks: Returns the game's match policies (``GenericHooks`` when it needs none).
        viewer: How the game's views look in a terminal and in a browser (replays, the
            web pages).
        options: The operator options of the game, if any.
        wire: Makes the game's wire encoder for one server (``service.wire``): the
            generic :class:`MessageWire` unless the game has a faster one.
    """

    info: GameInfo
    rules: Rules[Any, Any, Any, Any]
    codec: GameCodec
    hooks: Callable[[], GameHooks]
    viewer: GameViewer
    options: tuple[OperatorOption, ...] = field(default=())
    wire: WireFactory = MessageWire

    @property
    def name(self) -> str:
        """The registry name, lowercase (``rules.name`` and ``codec.game``)."""
        return self.info.name

    @property
    def title(self) -> str:
        """The name people read, capitalised."""
        return self.info.title

    @property
    def proto_game(self) -> match_pb2.Game.ValueType:
        """The game's ``botarena.v1.Game`` value."""
        return self.codec.proto_game

    @property
    def oneof_case(self) -> str:
        """The game's case in the oneofs of ``MatchConfig``, ``Move`` and ``PlayerView``."""
        return self.codec.oneof_case

    @property
    def min_seats(self) -> int:
        """The smallest number of seats the game accepts."""
        return self.info.min_seats

    @property
    def max_seats(self) -> int:
        """The largest number of seats the game accepts."""
        return self.info.max_seats


def check_plugins(plugins: Sequence[GamePlugin]) -> None:
    """Return if every record is complete and agrees with its pieces and the protocol.

    Raises:
        PluginError: A piece is missing or names another game, the game has no case in
            an envelope's oneof, or two records share a name, proto value or flag.
    """
    for plugin in plugins:
        _check_plugin(plugin)
    for kind, seen in (
        ("name", [plugin.name for plugin in plugins]),
        ("proto game", [str(int(plugin.proto_game)) for plugin in plugins]),
        ("option", [option.flag for plugin in plugins for option in plugin.options]),
    ):
        duplicates = sorted({value for value in seen if seen.count(value) > 1})
        if duplicates:
            raise PluginError(f"two games share the {kind} {', '.join(duplicates)}")


def _check_plugin(plugin: GamePlugin) -> None:
    if not isinstance(plugin.info, GameInfo) or not plugin.info.name:
        raise PluginError(f"a game lacks its info: {plugin!r}")
    missing = [
        piece
        for piece in ("title", "rules", "codec", "hooks", "viewer", "wire")
        if getattr(plugin, piece) in (None, "")
    ]
    if missing:
        raise PluginError(f"game {plugin.name!r} lacks its {', '.join(missing)}")
    for piece in ("hooks", "wire"):
        if not callable(getattr(plugin, piece)):
            raise PluginError(f"game {plugin.name!r}: its {piece} is not callable")
    if not callable(plugin.viewer.terminal) or not callable(plugin.viewer.move_text):
        raise PluginError(f"game {plugin.name!r}: its viewer cannot draw")
    if not plugin.viewer.has_script():
        raise PluginError(
            f"game {plugin.name!r}: its browser renderer {plugin.viewer.script} is missing"
        )
    if plugin.rules.name != plugin.name:
        raise PluginError(f"game {plugin.name!r}: its rules are {plugin.rules.name!r}'s")
    if plugin.codec.game != plugin.name:
        raise PluginError(f"game {plugin.name!r}: its codec is {plugin.codec.game!r}'s")
    if plugin.proto_game == match_pb2.GAME_UNSPECIFIED:
        raise PluginError(f"game {plugin.name!r}: its proto game is GAME_UNSPECIFIED")
    for message, oneof in _ONEOFS:
        cases = {case.name for case in message.DESCRIPTOR.oneofs_by_name[oneof].fields}
        if plugin.oneof_case not in cases:
            raise PluginError(
                f"game {plugin.name!r}: {message.DESCRIPTOR.name}.{oneof} has no case "
                f"{plugin.oneof_case!r}"
            )
    if not 1 <= plugin.min_seats <= plugin.max_seats:
        raise PluginError(f"game {plugin.name!r}: no seat count is valid")
    seats = (plugin.rules.min_seats, plugin.rules.max_seats)
    if seats != (plugin.min_seats, plugin.max_seats):
        raise PluginError(f"game {plugin.name!r}: its rules take {seats[0]}-{seats[1]} seats")
