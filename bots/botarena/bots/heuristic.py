"""The command ``python -m botarena.bots.heuristic``: one Qwixx seat played by the heuristic bot.

Follows the bot executable convention (docs/bots.md): ``--server HOST:PORT
--token TOKEN [--seed N]``, or the ``BOTARENA_*`` environment variables.
"""

from __future__ import annotations

from collections.abc import Sequence

from botarena.bots._heuristic import HeuristicQwixxBot
from botarena.clients import bot_main

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Play one seat and return the exit status (0 once the match is over)."""
    return bot_main(
        HeuristicQwixxBot,
        argv,
        prog="python -m botarena.bots.heuristic",
        description="Play one Qwixx seat with the heuristic bot.",
    )


if __name__ == "__main__":
    raise SystemExit(main())
