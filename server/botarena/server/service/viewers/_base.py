"""The viewer record of one game."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import resources

from rich.console import RenderableType

from botarena.server.text import printable
from botarena.v1 import match_pb2

__all__ = ["GameViewer", "TerminalFrame", "TerminalRenderer", "seat_label"]


@dataclass(frozen=True, slots=True)
class TerminalFrame:
    """What a terminal renderer draws: one view, and the hands to show with it.

    Attributes:
        view: The view to draw (a spectator's, or a seat's own).
        hands: Seats' own views whose hidden holdings (a Qwirkle rack) to show too, by
            seat; a replay passes every seat's.
        names: The seats' names, by seat (``seat 0``, ... where missing).
        last_move: The move that led to ``view``, to highlight, if any.
    """

    view: match_pb2.PlayerView
    hands: Sequence[match_pb2.PlayerView] = field(default=())
    names: Sequence[str] = field(default=())
    last_move: match_pb2.MoveApplied | None = None


TerminalRenderer = Callable[[TerminalFrame], RenderableType]
"""Draws a frame for a terminal (``rich``)."""


def seat_label(frame: TerminalFrame, seat: int) -> str:
    """``"2 alice"``: the seat's number and name (its number alone without a name), as
    plain text with control characters escaped (``printable``): never rich markup."""
    names = frame.names
    if seat < len(names) and names[seat]:
        return f"{seat} {printable(names[seat])}"
    return f"seat {seat}"


@dataclass(frozen=True, slots=True)
class GameViewer:
    """How one game's views look.

    Attributes:
        terminal: Draws a frame in a terminal (``rich``): the board, every hand the
            frame shows, the scores.
        script: The file name, in this package, of the game's browser renderer (a
            JavaScript file the HTML viewer inlines; docs/replays.md says what it
            registers).
        move_text: One line of plain text for a move (``"place 3 tiles, +8"``), for move
            lists.
    """

    terminal: TerminalRenderer
    script: str
    move_text: Callable[[match_pb2.Move], str]

    def has_script(self) -> bool:
        """Whether this package holds the browser renderer's file."""
        return resources.files(__package__).joinpath(self.script).is_file()

    def script_source(self) -> str:
        """Return the browser renderer's JavaScript source.

        Raises:
            FileNotFoundError: The package has no such file.
        """
        return resources.files(__package__).joinpath(self.script).read_text(encoding="utf-8")
