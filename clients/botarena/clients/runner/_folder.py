"""The run folder (``--out DIR``): the plan, each game's result as soon as it ends, the summary.

Layout::

    DIR/plan.json                   the options that define the run, its seed key included
    DIR/games/00001/result.json     the game's full record, written once it ended
    DIR/games/00001/replay.binpb.gz its replay (docs/replays.md)
    DIR/games/00001/seatN-NAME.stderr  each bot's output
    DIR/results.json                the summary of the run, written at its end

Every file is written atomically (a temporary file beside it, then a rename), so a run
killed at any moment leaves whole files: a game has a ``result.json`` or it did not
finish. A folder *holds a run* once a game finished in it (or it has a
``results.json``); such a folder is never written over by accident (``--resume``
continues it, ``--force`` starts over).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from botarena.clients._files import write_atomically
from botarena.clients.runner._plan import GamePlan
from botarena.clients.runner._records import GameRecord, record_document, record_from_document

__all__ = [
    "PLAN_FILE",
    "RESULTS_FILE",
    "FolderError",
    "finished_games",
    "game_folder",
    "holds_run",
    "prepare_folder",
    "read_plan",
    "start_over",
    "write_game",
    "write_json",
]

PLAN_FILE = "plan.json"
RESULTS_FILE = "results.json"
_RESULT_FILE = "result.json"
_GAMES = "games"


class FolderError(Exception):
    """The folder cannot hold this run; the message is one line for the user."""


def game_folder(out: Path, number: int) -> Path:
    """Return the folder of game ``number`` of the run in ``out``."""
    return out / _GAMES / f"{number:05d}"


def write_json(path: Path, document: Mapping[str, Any] | list[Any]) -> None:
    """Write ``document`` to ``path`` atomically (``write_atomically``: not fsynced; a
    power cut may lose the last results, which ``--resume`` plays again)."""
    write_atomically(path, (json.dumps(document, indent=2) + "\n").encode())


def prepare_folder(out: Path) -> None:
    """Make ``out`` a folder (with its parents) if it is not one yet.

    Raises:
        FolderError: ``out`` is a file, or cannot be made.
    """
    if out.exists() and not out.is_dir():
        raise FolderError(f"--out {out} is a file, not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise FolderError(f"--out {out}: {error.strerror or error}") from None


def _results(out: Path) -> Iterable[Path]:
    games = out / _GAMES
    return games.glob(f"*/{_RESULT_FILE}") if games.is_dir() else ()


def holds_run(out: Path) -> bool:
    """Return whether ``out`` holds a run: a finished game, or a ``results.json``."""
    return (out / RESULTS_FILE).exists() or any(True for _ in _results(out))


def read_plan(out: Path) -> dict[str, Any]:
    """Return the plan of the run in ``out``.

    Raises:
        FolderError: There is none (a run of an older botarena), or it is unreadable.
    """
    path = out / PLAN_FILE
    try:
        plan = json.loads(path.read_text())
    except FileNotFoundError:
        raise FolderError(
            f"{out} holds a run without {PLAN_FILE} (made by an older botarena); "
            "it cannot be resumed: use --force to start over, or another --out"
        ) from None
    except (OSError, ValueError) as error:
        raise FolderError(f"{path} is unreadable: {error}") from None
    if not isinstance(plan, dict):
        raise FolderError(f"{path} is not a plan")
    return plan


def start_over(out: Path) -> None:
    """Remove the run in ``out`` (its plan, games and results; nothing else)."""
    for name in (PLAN_FILE, RESULTS_FILE):
        (out / name).unlink(missing_ok=True)
    shutil.rmtree(out / _GAMES, ignore_errors=True)


def write_game(out: Path, record: GameRecord) -> None:
    """Keep ``record`` as its game's ``result.json``."""
    write_json(game_folder(out, record.plan.number) / _RESULT_FILE, record_document(record))


def finished_games(out: Path, plans: Iterable[GamePlan]) -> list[GameRecord]:
    """Return the records of the planned games that finished in ``out``, and clear the
    folders of the others (a replay or stderr of a game cut short is stale).

    A result whose game differs from its plan (another label, seed or seating) is not
    this plan's: that game is played again.
    """
    finished = []
    for plan in plans:
        folder = game_folder(out, plan.number)
        try:
            record = record_from_document(json.loads((folder / _RESULT_FILE).read_text()))
        except (OSError, ValueError):
            record = None
        if record is not None and record.plan == plan:
            finished.append(record)
        elif folder.exists():
            shutil.rmtree(folder)
    return finished
