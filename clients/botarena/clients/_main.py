"""``bot_main``: the bot executable convention (docs/bots.md) for Python bots.

A bot is a command. It learns where to play from ``--server SERVER`` and
``--token TOKEN``, or from the environment variables ``BOTARENA_SERVER`` and
``BOTARENA_TOKEN`` (arguments win), plays its seat and exits 0 once the match is over.
``SERVER`` is ``HOST:PORT`` (plaintext) or ``botarena+tls://HOST:PORT[?ca=PATH]`` (TLS);
``--tls`` and ``--tls-ca PEM`` turn a ``HOST:PORT`` into TLS (``ServerTarget``).
A seat token names its match; ``--match`` / ``BOTARENA_MATCH`` may name it too. Logs go
to stderr, which the match runner keeps per game.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable, Sequence

from botarena.clients._bot import Bot, run_bot
from botarena.clients._errors import BotarenaError
from botarena.clients._target import TLS_SCHEME, add_server_arguments, server_target
from botarena.server.text import PrintableFormatter

__all__ = [
    "ENV_MATCH",
    "ENV_SEED",
    "ENV_SERVER",
    "ENV_TOKEN",
    "EXIT_CONNECTION_FAILED",
    "EXIT_MATCH_OVER",
    "bot_main",
]

ENV_SERVER = "BOTARENA_SERVER"
"""Environment variable holding the server: ``host:port`` or
``botarena+tls://host:port[?ca=PATH]`` (``ServerTarget``)."""
ENV_MATCH = "BOTARENA_MATCH"
"""Environment variable holding the match's name, ``matches/{id}`` (optional: the seat
token names its match)."""
ENV_TOKEN = "BOTARENA_TOKEN"
"""Environment variable holding the seat token."""
ENV_SEED = "BOTARENA_SEED"
"""Environment variable holding the bot's seed (optional)."""

EXIT_MATCH_OVER = 0
"""Exit status once the match is over, whatever the seat's result."""
EXIT_CONNECTION_FAILED = 1
"""Exit status when the seat could not be played (server, token or match refused)."""
_EXIT_INTERRUPTED = 130


def _parser(prog: str | None, description: str | None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description=description or "Play one seat of a botarena match.",
        epilog=f"Each option defaults to its environment variable (${ENV_SERVER}, "
        f"${ENV_MATCH}, ${ENV_TOKEN}, ${ENV_SEED}).",
    )
    add_server_arguments(
        parser,
        default=os.environ.get(ENV_SERVER),
        help_text=f"HOST:PORT (plaintext) or {TLS_SCHEME}://HOST:PORT[?ca=PATH] (TLS)",
    )
    parser.add_argument(
        "--match",
        default=os.environ.get(ENV_MATCH, ""),
        help="matches/ID (optional: the seat token names its match)",
    )
    parser.add_argument("--token", default=os.environ.get(ENV_TOKEN), help="the seat token")
    parser.add_argument(
        "--seed",
        type=int,
        default=_int_env(ENV_SEED),
        help="seed of the bot's random choices (default: from the OS)",
    )
    parser.add_argument(
        "--log-level", choices=("debug", "info", "warning", "error"), default="info"
    )
    return parser


def _int_env(name: str) -> int | None:
    text = os.environ.get(name)
    return int(text) if text else None


def bot_main(
    bot_factory: Callable[[], Bot],
    argv: Sequence[str] | None = None,
    *,
    prog: str | None = None,
    description: str | None = None,
) -> int:
    """Run a bot as a command following the bot executable convention.

    Use it as the whole of a bot's ``__main__``::

        if __name__ == "__main__":
            raise SystemExit(bot_main(MyBot))

    Args:
        bot_factory: Returns the bot (a class works).
        argv: The arguments after the program name; ``None`` reads ``sys.argv``.
        prog: The program name shown in ``--help``.
        description: The description shown in ``--help``.

    Returns:
        The exit status: 0 once the match is over, 1 when the seat could not be played,
        130 on Ctrl-C. Bad arguments exit with status 2 (argparse); an exception raised
        by the bot propagates (Python exits 1 with its traceback on stderr).
    """
    parser = _parser(prog, description)
    args = parser.parse_args(argv)
    for option, env in (("server", ENV_SERVER), ("token", ENV_TOKEN)):
        if not getattr(args, option):
            parser.error(f"--{option} or ${env} is required")
    try:
        server = server_target(args)
    except ValueError as error:
        parser.error(str(error))
    assert server is not None
    handler = logging.StreamHandler(sys.stderr)
    # The server's messages may quote names: their escapes are shown, not obeyed.
    handler.setFormatter(PrintableFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(handlers=[handler], level=args.log_level.upper())
    logger = logging.getLogger("botarena.clients.bot")
    try:
        outcome = run_bot(
            bot_factory(), server=server, token=args.token, match=args.match, seed=args.seed
        )
    except BotarenaError as exc:
        logger.error("cannot play %s on %s: %s", args.match or "the seat", server, exc)
        return EXIT_CONNECTION_FAILED
    except KeyboardInterrupt:
        return _EXIT_INTERRUPTED
    results = ", ".join(
        f"seat {r.seat}: rank {r.rank}, score {r.score}{' (forfeited)' if r.forfeited else ''}"
        for r in outcome.results
    )
    logger.info("match over (%s): %s", outcome.reason, results)
    return EXIT_MATCH_OVER
