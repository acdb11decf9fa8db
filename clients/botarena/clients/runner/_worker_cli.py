"""The command line of ``botarena worker`` (the worker itself is ``_queue_worker``).

Kept apart so that ``botarena --help`` needs no PostgreSQL driver: psycopg is the
``postgres`` extra, imported only once a queue is used.
"""

from __future__ import annotations

import argparse
import asyncio
import os
from collections.abc import Mapping

from botarena.clients.runner._play import ENV_QUEUE
from botarena.clients.runner._queued import require_psycopg
from botarena.clients.runner._run import BuiltinBot

__all__ = ["ENV_QUEUE", "WORKER_DESCRIPTION", "WORKER_EPILOG", "add_worker_arguments", "run_worker"]


WORKER_DESCRIPTION = """\
Play the game sets of runs queued with `botarena match --queue URL`, on this machine,
until stopped (or --idle-exit). Each set (one seed in every seat rotation) is claimed
under a lease renewed every third of --lease, played on this worker's own embedded
servers with its built-in bots, and each game is reported once. A worker killed outright
keeps its sets only until their leases expire; another worker then plays the games it
had not reported. Ctrl-C gives the sets in flight back to the queue.
"""

WORKER_EPILOG = """\
Bots: a built-in bot is this machine's; a command bot is started here, in the current
folder, so its program (and script) must be here too: a worker that does not find the
program says so to the run's coordinator and leaves the run to other workers. Bots inherit neither
$BOTARENA_QUEUE nor $PGPASSWORD. Example: botarena worker --queue
postgresql://arena@db.example/arena --concurrency 4
"""


def add_worker_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``botarena worker`` to ``parser``."""
    parser.add_argument(
        "--queue",
        default=os.environ.get(ENV_QUEUE) or None,
        metavar="URL",
        help=f"the queue's PostgreSQL database, postgresql://USER@HOST/DB (default: ${ENV_QUEUE}; "
        "a password is better kept in ~/.pgpass or $PGPASSWORD than on the command line)",
    )
    parser.add_argument(
        "--concurrency",
        type=int,
        default=len(os.sched_getaffinity(0)),
        help="game sets played at once (one game of each at a time); default: one per core",
    )
    parser.add_argument("--run", metavar="ID", help="play only the sets of this run")
    parser.add_argument(
        "--lease",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="how long a claimed set stays this worker's without a heartbeat (renewed "
        "every third of it); a killed worker's sets go to others after it",
    )
    stop = parser.add_mutually_exclusive_group()
    stop.add_argument(
        "--idle-exit",
        type=float,
        metavar="SECONDS",
        help="exit once there has been nothing to claim for this long (default: wait for work)",
    )
    stop.add_argument(
        "--once", action="store_true", help="play what the queue holds now, then exit"
    )
    parser.add_argument(
        "--poll",
        type=float,
        default=1.0,
        metavar="SECONDS",
        help="how often an idle worker looks for work",
    )
    parser.add_argument("--quiet", action="store_true", help="log only problems")


def run_worker(args: argparse.Namespace, builtin: Mapping[str, BuiltinBot]) -> int:
    """Run ``botarena worker`` with parsed ``args``; return the exit status.

    Args:
        args: Parsed by a parser set up with :func:`add_worker_arguments`.
        builtin: The built-in bots by name (a run's built-in bots are found here).
    """
    if not args.queue:
        raise SystemExit(f"botarena worker: give --queue URL (or ${ENV_QUEUE})")
    if args.concurrency <= 0 or args.lease <= 0 or args.poll <= 0:
        raise SystemExit("botarena worker: --concurrency, --lease and --poll must be positive")
    require_psycopg("botarena worker")
    from botarena.clients.runner._queue_worker import work

    return asyncio.run(work(args, builtin))
