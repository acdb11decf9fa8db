"""Queendomino in a terminal: each kingdom in terrain colours with crowns, buildings and
knights; coins, knights and towers; the domino lines; the builders' board; the queen and
the dragon."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from botarena.server.service.viewers._base import TerminalFrame, seat_label
from botarena.v1 import match_pb2, queendomino_pb2

__all__ = ["TERRAINS", "move_text", "render"]

TERRAINS = {
    queendomino_pb2.QUEENDOMINO_TERRAIN_WHEAT: ("wheat", "black on yellow3"),
    queendomino_pb2.QUEENDOMINO_TERRAIN_FOREST: ("forest", "white on dark_green"),
    queendomino_pb2.QUEENDOMINO_TERRAIN_LAKE: ("lake", "white on blue3"),
    queendomino_pb2.QUEENDOMINO_TERRAIN_GRASSLAND: ("grassland", "black on green3"),
    queendomino_pb2.QUEENDOMINO_TERRAIN_SWAMP: ("swamp", "white on grey37"),
    queendomino_pb2.QUEENDOMINO_TERRAIN_MINE: ("mine", "white on grey11"),
    queendomino_pb2.QUEENDOMINO_TERRAIN_TOWN: ("town", "black on plum2"),
}
"""Each terrain's name and its colours in a terminal."""

_STEPS = {
    queendomino_pb2.QUEENDOMINO_STEP_PLACE: "place",
    queendomino_pb2.QUEENDOMINO_STEP_TAX: "tax",
    queendomino_pb2.QUEENDOMINO_STEP_BUILD: "build",
    queendomino_pb2.QUEENDOMINO_STEP_DRAGON: "dragon",
    queendomino_pb2.QUEENDOMINO_STEP_CHOOSE: "choose",
}


def _square(square: queendomino_pb2.QueendominoSquare) -> Text:
    name, style = TERRAINS.get(square.terrain, ("?", ""))
    crowns = str(square.crowns) if square.crowns else " "
    return Text(f"{name[0].upper()}{crowns}", style=style)


def _kingdom(player: queendomino_pb2.QueendominoPlayer) -> Group:
    squares = {(s.cell.x, s.cell.y): s for s in player.kingdom.squares}
    knights = {(c.x, c.y) for c in player.knight_cells}
    xs = [x for x, _ in squares] + [0]
    ys = [y for _, y in squares] + [0]
    lines = []
    for y in range(min(ys), max(ys) + 1):
        line = Text()
        for x in range(min(xs), max(xs) + 1):
            line.append(" ")
            placed = squares.get((x, y))
            if (x, y) == (0, 0):
                line.append("♜ ", style="bold white on grey50")
            elif placed is None:
                line.append("··", style="grey23")
            elif placed.HasField("building"):
                crowns = placed.building.crowns
                line.append(f"B{crowns or ' '}", style="bold black on plum2 underline")
            else:
                line.append_text(_square(placed.square))
            if (x, y) in knights:
                line.append("♞", style="bold")
            else:
                line.append(" ")
        lines.append(line)
    return Group(*lines)


def _line(slots: list[queendomino_pb2.QueendominoLineSlot], frame: TerminalFrame) -> Text:
    text = Text()
    for slot in slots:
        text.append(f"{slot.domino.number:>2}:")
        for half in slot.domino.halves:
            text.append_text(_square(half))
        if slot.HasField("king"):
            text.append(f" ♔{seat_label(frame, slot.king).split(' ')[0]}", style="bold")
        if slot.done:
            text.append(" ✓", style="dim")
        text.append("   ")
    return text


def render(frame: TerminalFrame) -> RenderableType:
    """Draw a Queendomino frame."""
    view = frame.view.queendomino
    head = f"round {view.round}" + (" (final)" if view.final_round else "")
    if view.HasField("turn"):
        turn = view.turn
        head += f" · {seat_label(frame, turn.seat)} to {_STEPS.get(turn.step, '?')}"
    queen = seat_label(frame, view.queen) if view.HasField("queen") else "nobody"
    dragon = f"space {view.dragon_space}" if view.HasField("dragon_space") else "in reserve"
    parts: list[RenderableType] = [
        Text(head, style="bold"),
        Text(
            f"queen: {queen} · dragon: {dragon} · deck {view.deck_left} · "
            f"buildings {view.pile_left}",
            style="dim",
        ),
        Text("line  ") + _line(list(view.current_line), frame),
        Text("next  ") + _line(list(view.next_line), frame),
    ]
    board = Text("board ")
    for space in view.board:
        label = space.building.name if space.HasField("building") else "—"
        board.append(f"[{space.price}] {label}  ")
    parts.append(board)
    table = Table(box=None, pad_edge=False)
    for column in ("seat", "score", "coins", "knights", "towers", "kingdom"):
        table.add_column(column, justify="right" if column != "kingdom" else "left")
    for player in view.players:
        table.add_row(
            Text(seat_label(frame, player.seat)),  # a name is text, not markup
            str(player.score),
            str(player.coins),
            str(player.knights),
            str(player.towers),
            _kingdom(player),
        )
    parts.append(table)
    legend = Text("legend ")
    for name, style in TERRAINS.values():
        legend.append(f" {name} ", style=style)
    legend.append("  ♜ castle  B building  ♞ knight  digits: crowns", style="dim")
    parts.append(legend)
    return Group(*parts)


_ROTATIONS = {1: "east", 2: "south", 3: "west", 4: "north"}


def move_text(move: match_pb2.Move) -> str:
    """``"place at (1, 0) east"``, ``"build on space 2 at (0, 1)"``, ``"choose 17"``..."""
    q = move.queendomino
    action = q.WhichOneof("action")
    if action == "place":
        cell, rotation = q.place.cell, _ROTATIONS.get(q.place.rotation, "?")
        return f"place at ({cell.x}, {cell.y}) {rotation}"
    if action == "tax":
        return "tax " + " ".join(f"({c.x}, {c.y})" for c in q.tax.cells)
    if action == "build":
        cell = q.build.cell
        return f"build space {q.build.space} at ({cell.x}, {cell.y})"
    if action == "bribe":
        return f"bribe the dragon to space {q.bribe.space}"
    if action == "choose":
        return f"choose domino {q.choose.domino}"
    return action or "?"
