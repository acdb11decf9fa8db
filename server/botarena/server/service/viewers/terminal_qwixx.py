"""Qwixx in a terminal: each seat's sheet (its four rows with marks, locks and
penalties), the dice of the turn and who chose what."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from botarena.server.service.viewers._base import TerminalFrame, seat_label
from botarena.v1 import match_pb2, qwixx_pb2

__all__ = ["choice_text", "move_text", "render"]

_ROWS = (
    (qwixx_pb2.QWIXX_COLOUR_RED, "red", "red1", range(2, 13)),
    (qwixx_pb2.QWIXX_COLOUR_YELLOW, "yellow", "yellow1", range(2, 13)),
    (qwixx_pb2.QWIXX_COLOUR_GREEN, "green", "green3", range(12, 1, -1)),
    (qwixx_pb2.QWIXX_COLOUR_BLUE, "blue", "dodger_blue1", range(12, 1, -1)),
)
_NAMES = {colour: name for colour, name, _, _ in _ROWS}


def move_text(move: match_pb2.Move) -> str:
    """A move's line of text (see :func:`choice_text`)."""
    return choice_text(move.qwixx)


def choice_text(move: qwixx_pb2.QwixxMove) -> str:
    """``"red 7 (white sum)"``, ``"white 1 + blue"``, ``"declines"``."""
    action = move.WhichOneof("action")
    if action == "mark_white_sum":
        white = move.mark_white_sum
        return f"{_NAMES.get(white.colour, '?')} {white.number} (white sum)"
    if action == "mark_colour_sum":
        coloured = move.mark_colour_sum
        return f"white {coloured.white + 1} + {_NAMES.get(coloured.colour, '?')}"
    return "declines"


def _sheet(sheet: qwixx_pb2.QwixxSheet, locked: set[int]) -> Table:
    table = Table(box=None, show_header=False, pad_edge=False, padding=(0, 0))
    table.add_column()
    table.add_column(justify="right")
    rows = {row.colour: row for row in sheet.rows}
    for colour, _, style, numbers in _ROWS:
        row = rows.get(colour)
        marked = set(row.numbers) if row is not None else set()
        line = Text()
        for number in numbers:
            label = f"{number:>3}"
            line.append(label, style=f"bold black on {style}" if number in marked else style)
        lock = "🔒" if colour in locked else "  "
        if row is not None and row.lock:
            lock = "🔒✓"
        line.append(f" {lock}")
        table.add_row(line, str(row.score if row is not None else 0))
    penalties = "✗" * sheet.penalties + "·" * (4 - sheet.penalties)
    table.add_row(Text(f"penalties {penalties}", style="red"), Text(str(sheet.score), "bold"))
    return table


def render(frame: TerminalFrame) -> RenderableType:
    """Draw a Qwixx frame: the dice, each sheet, the turn's state."""
    view = frame.view.qwixx
    dice = view.dice
    dice_line = Text("dice  ")
    for white in dice.white:
        dice_line.append(f" {white} ", style="bold black on white")
        dice_line.append(" ")
    coloured = (
        (dice.HasField("red"), dice.red, "red1"),
        (dice.HasField("yellow"), dice.yellow, "yellow1"),
        (dice.HasField("green"), dice.green, "green3"),
        (dice.HasField("blue"), dice.blue, "dodger_blue1"),
    )
    for rolled, value, style in coloured:
        if rolled:  # a locked row's die is out of the game
            dice_line.append(f" {value} ", style=f"bold black on {style}")
            dice_line.append(" ")
    action = "white sum" if view.action == qwixx_pb2.QWIXX_ACTION_WHITE_SUM else "colour sum"
    turn = Text(f"active: {seat_label(frame, view.active_seat)} · {action}", style="dim")
    locked = {int(colour) for colour in view.locked_rows}
    parts: list[RenderableType] = [dice_line, turn, Text()]
    for sheet in view.sheets:
        parts.append(Text(seat_label(frame, sheet.seat), style="bold"))
        parts.append(_sheet(sheet, locked))
    if view.last_white_sums:
        chosen = "; ".join(
            f"{seat_label(frame, seat)}: {choice_text(move)}"
            for seat, move in enumerate(view.last_white_sums)
        )
        parts.append(Text(f"last white sums: {chosen}", style="dim"))
    if view.HasField("last_colour_sum"):
        last = view.last_colour_sum
        parts.append(
            Text(
                f"last colour sum: {seat_label(frame, last.seat)}: {choice_text(last.choice)}",
                style="dim",
            )
        )
    return Group(*parts)
