"""Qwirkle in a terminal: the board of coloured shapes, the last move marked, every rack
shown, the scores and the bag."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from botarena.server.service.viewers._base import TerminalFrame, seat_label
from botarena.v1 import match_pb2, qwirkle_pb2

__all__ = ["move_text", "render", "tile_text"]

_COLOURS = {
    qwirkle_pb2.QWIRKLE_COLOUR_RED: "bold red1",
    qwirkle_pb2.QWIRKLE_COLOUR_ORANGE: "bold dark_orange",
    qwirkle_pb2.QWIRKLE_COLOUR_YELLOW: "bold yellow1",
    qwirkle_pb2.QWIRKLE_COLOUR_GREEN: "bold green3",
    qwirkle_pb2.QWIRKLE_COLOUR_BLUE: "bold dodger_blue1",
    qwirkle_pb2.QWIRKLE_COLOUR_PURPLE: "bold medium_purple1",
}
_SHAPES = {
    qwirkle_pb2.QWIRKLE_SHAPE_CIRCLE: "●",
    qwirkle_pb2.QWIRKLE_SHAPE_SQUARE: "■",
    qwirkle_pb2.QWIRKLE_SHAPE_DIAMOND: "◆",
    qwirkle_pb2.QWIRKLE_SHAPE_CLOVER: "♣",
    qwirkle_pb2.QWIRKLE_SHAPE_FOUR_POINT_STAR: "✦",
    qwirkle_pb2.QWIRKLE_SHAPE_EIGHT_POINT_STAR: "✸",
}
_LAST = " on grey30"


def tile_text(tile: qwirkle_pb2.QwirkleTile, *, marked: bool = False) -> Text:
    """A tile as its coloured shape (a grey background when ``marked``)."""
    style = _COLOURS.get(tile.colour, "") + (_LAST if marked else "")
    return Text(_SHAPES.get(tile.shape, "?"), style=style)


def _board(view: qwirkle_pb2.QwirkleView, last: set[tuple[int, int]]) -> RenderableType:
    if not view.board:
        return Text("(empty board)", style="dim")
    cells = {(p.x, p.y): p.tile for p in view.board}
    xs = [x for x, _ in cells]
    ys = [y for _, y in cells]
    lines = []
    for y in range(min(ys), max(ys) + 1):
        line = Text()
        for x in range(min(xs), max(xs) + 1):
            tile = cells.get((x, y))
            # The gap before a cell is shaded too when both neighbours are the last move's.
            joined = (x, y) in last and (x - 1, y) in last
            line.append(" ", style="on grey30" if joined else "")
            if tile is None:
                line.append("·", style="grey23")
            else:
                line.append_text(tile_text(tile, marked=(x, y) in last))
        lines.append(line)
    return Group(*lines)


def render(frame: TerminalFrame) -> RenderableType:
    """Draw a Qwirkle frame: board, last move marked, racks, scores and bag."""
    view = frame.view.qwirkle
    last: set[tuple[int, int]] = set()
    move = frame.last_move
    if move is not None and move.move.qwirkle.WhichOneof("action") == "place":
        last = {(p.x, p.y) for p in move.move.qwirkle.place.placements}
    racks = {hand.seat: hand.qwirkle.rack for hand in frame.hands if hand.HasField("seat")}
    if frame.view.HasField("seat"):
        racks.setdefault(frame.view.seat, view.rack)
    table = Table(box=None, show_header=True, pad_edge=False)
    table.add_column("seat")
    table.add_column("score", justify="right")
    table.add_column("rack")
    for seat in view.seats:
        rack = Text()
        for tile in racks.get(seat.seat, ()):
            rack.append_text(tile_text(tile))
            rack.append(" ")
        if seat.seat not in racks:
            rack.append(f"{seat.rack_size} tiles", style="dim")
        marker = "▶ " if view.HasField("current_seat") and view.current_seat == seat.seat else "  "
        # A name is text, not markup.
        table.add_row(Text(marker + seat_label(frame, seat.seat)), str(seat.score), rack)
    footer = Text(f"bag: {view.bag_size} tiles", style="dim")
    return Group(_board(view, last), Text(), table, footer)


def move_text(move: match_pb2.Move) -> str:
    """``"place ●■ at (0, 1) (1, 1), +8"``, ``"exchange 3 tiles"``, ``"pass"``."""
    qwirkle = move.qwirkle
    action = qwirkle.WhichOneof("action")
    if action == "place":
        place = qwirkle.place
        tiles = "".join(_SHAPES.get(p.tile.shape, "?") for p in place.placements)
        cells = " ".join(f"({p.x}, {p.y})" for p in place.placements)
        return f"place {tiles} at {cells}, +{place.score}"
    if action == "exchange":
        count = qwirkle.exchange.tile_count or len(qwirkle.exchange.tiles)
        return f"exchange {count} tile{'s' if count != 1 else ''}"
    return "pass"
