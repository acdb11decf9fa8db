"""The command ``python -m botarena.bots.greedy``: one Qwirkle seat played by the greedy bot.

Follows the bot executable convention (docs/bots.md): ``--server HOST:PORT
--token TOKEN [--seed N]``, or the ``BOTARENA_*`` environment variables.
"""

from __future__ import annotations

from collections.abc import Sequence

from botarena.bots._greedy import GreedyQwirkleBot
from botarena.clients import bot_main

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Play one seat and return the exit status (0 once the match is over)."""
    return bot_main(
        GreedyQwirkleBot,
        argv,
        prog="python -m botarena.bots.greedy",
        description="Play one Qwirkle seat with the greedy bot.",
    )


if __name__ == "__main__":
    raise SystemExit(main())
