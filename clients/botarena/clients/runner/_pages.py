"""The runner's HTML pages under ``--out``: each game's viewer and the run's index.

``games/NNNNN/viewer.html`` plays the game's replay back in a browser, and ``index.html``
lists every game with its result and a link to its viewer (docs/replays.md, "Browser
renderers"). Both are self-contained files that work from ``file://``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from botarena.clients._files import write_atomically
from botarena.clients.runner._plan import BotSpec
from botarena.clients.runner._results import GameRecord
from botarena.server.service.viewers.html import IndexEntry, IndexSeat, build_html, build_index
from botarena.v1 import match_pb2

__all__ = ["INDEX_FILE_NAME", "VIEWER_FILE_NAME", "write_game_viewer", "write_index"]

VIEWER_FILE_NAME = "viewer.html"
"""The name of each game's viewer, beside its replay file."""

INDEX_FILE_NAME = "index.html"
"""The name of the run's index, in the ``--out`` folder."""


def write_game_viewer(replay: match_pb2.Replay, replay_path: Path) -> Path:
    """Write the viewer of ``replay`` beside its file ``replay_path`` (``--out``'s
    ``games/NNNNN/``) and return its path.

    The page embeds the file's bytes as they are (gzip'd binary protobuf, which the
    page decodes itself) and links back to the run's index.
    """
    path = replay_path.with_name(VIEWER_FILE_NAME)
    index = f"../../{INDEX_FILE_NAME}"
    page = build_html(replay, encoded=replay_path.read_bytes(), index=index)
    write_atomically(path, page.encode())
    return path


def write_index(
    out: Path, lineup: Sequence[BotSpec], records: Sequence[GameRecord], *, title: str
) -> Path:
    """Write ``out/index.html`` listing ``records`` and return its path.

    A game links to its viewer when one was written beside its replay.
    """
    entries = []
    for record in records:
        viewer = Path(record.replay).with_name(VIEWER_FILE_NAME) if record.replay else None
        seats = tuple(
            IndexSeat(lineup[index].name, seat.score, seat.rank, seat.forfeit_reason)
            for index, seat in zip(record.plan.lineup_at_seat, record.seats, strict=True)
        )
        entries.append(
            IndexEntry(
                number=record.plan.number,
                seats=seats,
                reason=record.reason,
                viewer=Path(os.path.relpath(viewer, out)).as_posix()
                if viewer is not None and viewer.exists()
                else None,
                abandoned=record.abandoned,
                seed=record.plan.label,
            )
        )
    path = out / INDEX_FILE_NAME
    write_atomically(path, build_index(entries, title=title).encode())
    return path
