"""The command ``python -m botarena.bots.search``: one seat played by the search bot of
its game (Qwirkle, Qwixx or Queendomino).

Follows the bot executable convention (docs/bots.md): ``--server HOST:PORT
--token TOKEN [--seed N]``, or the ``BOTARENA_*`` environment variables.
"""

from __future__ import annotations

from collections.abc import Sequence

from botarena.bots._registry import SearchBot
from botarena.clients import bot_main

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Play one seat and return the exit status (0 once the match is over)."""
    return bot_main(
        SearchBot,
        argv,
        prog="python -m botarena.bots.search",
        description="Play one Qwirkle, Qwixx or Queendomino seat with the search bot.",
    )


if __name__ == "__main__":
    raise SystemExit(main())
