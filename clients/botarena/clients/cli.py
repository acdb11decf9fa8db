# mypy: disable-error-code="import-untyped"
"""The ``botarena`` command: one entry point, one subcommand per tool.

``botarena serve`` runs the server (``--ladder`` adds the bot ladder); ``botarena match``
runs games between bots (``--queue`` across machines, played by ``botarena worker``);
``botarena ladder`` registers bots, shows the leaderboard, resumes
paused bots and connects built-in bots to a ladder; ``botarena replay`` shows a finished
match (summary, board at any version, HTML viewer). This module is the composition root:
it alone hands the reference bots (``botarena.bots``) to the runner and the ladder client.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import logging
import os
import signal
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["main"]

_ADMIN_TOKEN_ENV = "BOTARENA_ADMIN_TOKEN"
_GRACE_SECONDS = 5.0


def _parser() -> argparse.ArgumentParser:
    from botarena.bots import BUILTIN_BOTS
    from botarena.clients._help import DefaultsHelpFormatter

    parser = argparse.ArgumentParser(
        prog="botarena",
        description="A gRPC game service for board-game bots.",
        formatter_class=DefaultsHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    serve = commands.add_parser(
        "serve",
        formatter_class=DefaultsHelpFormatter,
        help="run the match server",
        description="Run the match server until SIGINT or SIGTERM, then stop gracefully.",
    )
    serve.add_argument(
        "--host",
        type=_host,
        default="127.0.0.1",
        help="address to bind, an IPv6 one with or without brackets (default %(default)s)",
    )
    serve.add_argument("--port", type=int, default=50051, help="port; 0 picks a free one")
    serve.add_argument(
        "--admin-token",
        default=os.environ.get(_ADMIN_TOKEN_ENV) or None,
        help="require this token to create matches and to register and resume ladder bots "
        f"(default: ${_ADMIN_TOKEN_ENV}); a non-loopback --host needs it, or --open",
    )
    serve.add_argument(
        "--open",
        action="store_true",
        help="serve a non-loopback --host without --admin-token, deliberately open: anyone "
        "who reaches it may create matches and register and resume bots",
    )
    serve.add_argument(
        "--db",
        metavar="PATH|URL",
        help="the database that keeps matches and results across restarts: a SQLite file "
        "(default: $XDG_DATA_HOME/botarena/botarena.db or ~/.local/share/botarena/botarena.db; "
        "':memory:' keeps nothing) or a postgresql://user@host:port/database URL, which "
        "several nodes may share (--advertise)",
    )
    serve.add_argument(
        "--advertise",
        metavar="HOST:PORT",
        help="with a postgresql:// --db: where bots reach this node, named in the redirects "
        "other nodes send for the matches it runs (default: --host:--port)",
    )
    serve.add_argument(
        "--lease-seconds",
        type=float,
        default=10.0,
        help="with a postgresql:// --db: a node that stops renewing its matches' leases "
        "for this long loses them to another node (renewed every fifth of it)",
    )
    serve.add_argument(
        "--log-format",
        choices=("auto", "json", "console"),
        default="auto",
        help="JSON lines, console, or auto: JSON unless stdout is a terminal",
    )
    serve.add_argument("--log-level", choices=("debug", "info", "warning", "error"), default="info")
    web = serve.add_argument_group(
        "web UI",
        "A read-only web UI (matches, live match pages, the ladder) from the same process. "
        "It is plain HTTP: a non-loopback --http-host needs --insecure.",
    )
    web.add_argument(
        "--http-port",
        type=int,
        metavar="PORT",
        help="serve the web UI on this port; 0 picks a free one (default: no web UI)",
    )
    web.add_argument(
        "--http-host",
        type=_host,
        default="127.0.0.1",
        help="address of the web UI (default %(default)s)",
    )
    web.add_argument(
        "--http-max-streams",
        type=int,
        default=1000,
        metavar="N",
        help="live match pages served at once; more get 503 (default %(default)s)",
    )
    _add_connection_arguments(serve, web)
    _add_tls_arguments(serve)
    _add_operator_options(serve)
    _add_admission_arguments(serve)
    ladder_options = serve.add_argument_group("ladder")
    ladder_options.add_argument(
        "--ladder", action="store_true", help="run the bot ladder (the LadderService)"
    )
    ladder_options.add_argument(
        "--ladder-seats", type=int, default=2, help="seats per ladder match (default %(default)s)"
    )
    ladder_options.add_argument(
        "--ladder-pair-cap-per-hour",
        type=int,
        default=60,
        help="matches a pair of bots may start per hour (default %(default)s)",
    )
    ladder_options.add_argument(
        "--ladder-pause-after",
        type=int,
        default=3,
        help="pause a bot after this many matches in a row with a timeout or crash "
        "(default %(default)s)",
    )
    ladder_options.add_argument(
        "--ladder-move-time",
        type=float,
        default=10.0,
        help="seconds per decision in ladder matches (default %(default)s)",
    )
    from botarena.clients.runner import add_match_arguments

    match = commands.add_parser(
        "match",
        help="play seeded games between bots and report the results",
        description="Play seeded games between bots on an embedded server (or --server), "
        "every seed in every seat rotation, and report win rates with confidence intervals.",
        epilog="example: botarena match --bot greedy --bot random --games 20 --out runs/demo",
        formatter_class=DefaultsHelpFormatter,
    )
    add_match_arguments(match, BUILTIN_BOTS)
    from botarena.clients.runner._worker_cli import (
        WORKER_DESCRIPTION,
        WORKER_EPILOG,
        add_worker_arguments,
    )

    worker = commands.add_parser(
        "worker",
        help="play the game sets of runs queued in PostgreSQL (botarena match --queue)",
        description=WORKER_DESCRIPTION,
        epilog=WORKER_EPILOG,
        formatter_class=DefaultsHelpFormatter,
    )
    add_worker_arguments(worker)
    from botarena.clients._ladder_cli import add_ladder_arguments

    ladder = commands.add_parser(
        "ladder",
        help="register bots, show the leaderboard, resume a paused bot, connect a built-in bot",
        description="Ladder operations through the LadderService of a running server "
        "(botarena serve --ladder).",
        formatter_class=DefaultsHelpFormatter,
    )
    add_ladder_arguments(ladder, BUILTIN_BOTS)
    from botarena.clients._replay_cli import add_replay_parser

    add_replay_parser(commands, _add_operator_options)
    return parser


def _add_connection_arguments(serve: argparse.ArgumentParser, web: Any) -> None:
    """Add the connection limits of both ports (README: Connections)."""
    from botarena.server.service import (
        FD_RESERVE,
        HANDSHAKE_TIMEOUT,
        IDLE_TIMEOUT,
        MAX_CONNECTIONS_PER_PEER,
        WEB_MAX_CONNECTIONS,
        WEB_MAX_CONNECTIONS_PER_PEER,
    )

    group = serve.add_argument_group(
        "connections",
        "The server raises its open-files limit (RLIMIT_NOFILE) to the hard limit and "
        f"keeps {FD_RESERVE} descriptors from connections; the ports' connections share "
        "the rest.",
    )
    group.add_argument(
        "--handshake-timeout",
        type=_positive_seconds,
        default=HANDSHAKE_TIMEOUT,
        metavar="SECONDS",
        help="close a new connection that has not finished its TLS and HTTP/2 handshake "
        "(gRPC) or sent a request's headers (web UI) in this long (default %(default)s)",
    )
    group.add_argument(
        "--idle-timeout",
        type=_positive_seconds,
        default=IDLE_TIMEOUT,
        metavar="SECONDS",
        help="close a connection with no call (gRPC) or no next request (web UI) for this "
        "long; clients reconnect when they next call (default %(default)s)",
    )
    counts = (
        (
            group,
            "--max-connections",
            None,
            1,
            "connections the gRPC port holds at once, past which new ones are closed "
            "(default: the open-files limit less the reserve and the web UI's connections)",
        ),
        (
            group,
            "--max-connections-per-peer",
            MAX_CONNECTIONS_PER_PEER,
            0,
            "connections one host holds to the gRPC port; every second those past it "
            "are closed (Linux); 0: no cap (default %(default)s)",
        ),
        (
            web,
            "--http-max-connections",
            WEB_MAX_CONNECTIONS,
            1,
            "connections the web UI holds at once; past it new ones are closed "
            "(default %(default)s, at most half of what the open-files limit leaves)",
        ),
        (
            web,
            "--http-max-connections-per-peer",
            WEB_MAX_CONNECTIONS_PER_PEER,
            1,
            "connections one host holds to the web UI at once (default %(default)s)",
        ),
    )
    for where, flag, default, minimum, text in counts:
        where.add_argument(flag, type=_at_least(minimum), default=default, metavar="N", help=text)


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive, not {text}")
    return value


def _add_tls_arguments(serve: argparse.ArgumentParser) -> None:
    group = serve.add_argument_group(
        "TLS",
        "Seat tokens, bot secrets and the admin token are bearer credentials: beyond this "
        "machine, serve TLS. Without --tls-cert the server is plaintext and binds only a "
        "loopback --host, unless --insecure.",
    )
    group.add_argument("--tls-cert", metavar="PEM", help="the server's certificate chain")
    group.add_argument("--tls-key", metavar="PEM", help="its private key")
    group.add_argument(
        "--tls-client-ca",
        metavar="PEM",
        help="require client certificates signed by this CA (or these CAs)",
    )
    group.add_argument(
        "--insecure",
        action="store_true",
        help="serve plaintext on a non-loopback --host (behind a TLS-terminating proxy)",
    )


def _server_credentials(args: argparse.Namespace) -> Any:
    """Return the ``grpc.ServerCredentials`` of ``serve``'s TLS flags; ``None`` serves
    plaintext, which only a loopback ``--host`` or ``--insecure`` allows.

    Raises:
        ValueError: Flags that do not go together, a file that cannot be read, or
            plaintext on a non-loopback host; the message says which in one line.
    """
    if args.tls_cert is None and args.tls_key is None:
        if args.tls_client_ca is not None:
            raise ValueError("--tls-client-ca needs --tls-cert and --tls-key")
        _require_loopback(
            args,
            args.host,
            "plaintext",
            "seat tokens and bot secrets would cross the network in clear text; give "
            "--tls-cert and --tls-key, or --insecure (behind a TLS proxy)",
        )
        _check_http_host(args)
        return None
    _check_http_host(args)
    if args.tls_cert is None or args.tls_key is None:
        raise ValueError("--tls-cert and --tls-key go together")
    import grpc

    from botarena.clients._target import read_pem

    key = read_pem(args.tls_key, "--tls-key", "PRIVATE KEY")
    chain = read_pem(args.tls_cert, "--tls-cert", "CERTIFICATE")
    client_ca = (
        read_pem(args.tls_client_ca, "--tls-client-ca", "CERTIFICATE")
        if args.tls_client_ca is not None
        else None
    )
    return grpc.ssl_server_credentials(
        [(key, chain)], root_certificates=client_ca, require_client_auth=client_ca is not None
    )


def _check_http_host(args: argparse.Namespace) -> None:
    """Refuse a web UI beyond loopback without ``--insecure``: it is plain HTTP.

    Raises:
        ValueError: A non-loopback ``--http-host`` without ``--insecure``, or a port out
            of range.
    """
    if args.http_port is None:
        return
    if not 0 <= args.http_port <= 65535:
        raise ValueError(f"--http-port {args.http_port} is not a port (0..65535)")
    if args.http_max_streams < 1:
        raise ValueError("--http-max-streams must be at least 1")
    _require_loopback(
        args,
        args.http_host,
        "the web UI",
        "it is plain HTTP; give --insecure to serve it there anyway (behind a TLS proxy)",
    )


def _web_settings(args: argparse.Namespace) -> Any:
    """The web UI's settings from ``args`` (``None`` without a web UI: aiohttp is then
    never imported)."""
    if args.http_port is None:
        return None
    from botarena.server.service.web import WebSettings

    return WebSettings(
        max_streams=args.http_max_streams,
        handshake_timeout=args.handshake_timeout,
        idle_timeout=args.idle_timeout,
        max_connections=args.http_max_connections,
        max_connections_per_peer=args.http_max_connections_per_peer,
    )


def _require_loopback(args: argparse.Namespace, host: str, what: str, why: str) -> None:
    """Refuse to serve ``what`` in clear text on a non-loopback ``host`` unless
    ``--insecure``.

    Raises:
        ValueError: "refusing to serve WHAT on HOST, which is not a loopback address: WHY".
    """
    if not args.insecure and not _is_loopback(host):
        raise ValueError(
            f"refusing to serve {what} on {host}, which is not a loopback address: {why}"
        )


def _require_admin_token(args: argparse.Namespace) -> None:
    """Refuse a non-loopback ``--host`` without ``--admin-token`` unless ``--open``:
    without the token anyone who reaches the server may create matches and register
    and resume bots (docs/decisions.md: Closed by default off loopback).

    Raises:
        ValueError: One line naming ``--admin-token`` and ``--open``.
    """
    if args.admin_token is None and not args.open and not _is_loopback(args.host):
        raise ValueError(
            f"refusing to serve on {args.host}, which is not a loopback address, without "
            "--admin-token: anyone who reaches it could create matches and register and "
            f"resume bots; give --admin-token TOKEN (or ${_ADMIN_TOKEN_ENV}), or --open "
            "for a deliberately open server"
        )


def _host(text: str) -> str:
    """``serve``'s host as it binds: an IPv6 address loses its brackets (``[::1]`` is
    ``::1``), which the address adds back."""
    return text[1:-1] if text.startswith("[") and text.endswith("]") else text


def _is_loopback(host: str) -> bool:
    """Return whether ``host`` is ``localhost`` or a loopback address (127.0.0.0/8, ::1)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # another name: it may resolve to any address


def _add_operator_options(serve: argparse.ArgumentParser) -> None:
    """Add every game's operator options (``PLUGINS``), such as a table of its components."""
    from botarena.server.service import operator_options

    for _, option in operator_options():
        serve.add_argument(option.flag, metavar=option.metavar, help=option.help)


def _load_operator_options(args: argparse.Namespace) -> dict[str, object]:
    """Return every game's operator option loaded (the shipped default when not given).

    Raises:
        ValueError: An option's file is unreadable or invalid; the message names the flag.
    """
    from botarena.server.service import operator_options

    values: dict[str, object] = {}
    for _, option in operator_options():
        try:
            values[option.dest] = option.load(getattr(args, option.dest))
        except ValueError as error:
            raise ValueError(f"{option.flag}: {error}") from None
    return values


def _add_admission_arguments(serve: argparse.ArgumentParser) -> None:
    """Add the admission limits (README: Run the server), each also read from $BOTARENA_*."""
    from botarena.server.match import (
        DEFAULT_CALL_BUDGET,
        DEFAULT_MAX_ACTIVE_MATCHES,
        DEFAULT_MAX_CREATES_PER_MINUTE,
        DEFAULT_MAX_MATCHES_PER_CALLER,
        DEFAULT_MAX_REGISTRATIONS_PER_HOUR,
        DEFAULT_PLAY_BUDGET,
    )

    group = serve.add_argument_group(
        "admission",
        "New matches are refused (RESOURCE_EXHAUSTED) beyond these limits; a caller is the "
        "peer's host, and the admin token's holder is bound by --max-active-matches only.",
    )
    limits = (
        ("--max-active-matches", DEFAULT_MAX_ACTIVE_MATCHES, 1, "unfinished matches in all"),
        (
            "--max-matches-per-caller",
            DEFAULT_MAX_MATCHES_PER_CALLER,
            0,
            "unfinished matches per caller; 0: no limit",
        ),
        (
            "--max-creates-per-minute",
            DEFAULT_MAX_CREATES_PER_MINUTE,
            0,
            "matches a caller may create per minute; 0: no limit",
        ),
        (
            "--reserved-matches",
            "",
            0,
            "of --max-active-matches, those kept for the ladder and the admin token; "
            "default: a tenth",
        ),
    )
    _add_limits(group, limits)
    budgets = serve.add_argument_group(
        "call budgets",
        "Every call costs its caller (the peer's host) units of a budget, a GetMatch 1, "
        "a SubmitMove 1, a ListMatches 1 + page_size/8, a CreateMatch 5, a RegisterBot "
        "20; calls over it are refused (RESOURCE_EXHAUSTED, RATE_LIMITED) with a RetryInfo.",
    )
    _add_limits(
        budgets,
        (
            (
                "--call-budget",
                DEFAULT_CALL_BUDGET,
                0,
                "cost units a caller may spend per second on calls other than plays, two "
                "seconds' worth at once; 0: no budget",
            ),
            (
                "--play-budget",
                DEFAULT_PLAY_BUDGET,
                0,
                "the same for plays: SubmitMove, GetPlayerView, StreamMatchEvents, "
                "ResignMatch and Connect with a seat's or a bot's token; 0: no budget",
            ),
            (
                "--max-registrations-per-hour",
                DEFAULT_MAX_REGISTRATIONS_PER_HOUR,
                0,
                "bots a caller may register per hour, a quarter of it at once; 0: no limit",
            ),
        ),
    )


def _add_limits(
    group: argparse._ArgumentGroup, limits: tuple[tuple[str, int | str, int, str], ...]
) -> None:
    """Add whole-number limit flags, each also read from ``$BOTARENA_<FLAG>``; an empty
    default leaves the flag ``None`` unless given."""
    for flag, default, minimum, text in limits:
        env = "BOTARENA_" + flag[2:].replace("-", "_").upper()
        group.add_argument(
            flag,
            metavar="N",
            # argparse converts a string default with `type`: a bad $BOTARENA_* value is
            # reported like a bad flag.
            default=os.environ.get(env) or (str(default) if default != "" else None),
            type=_at_least(minimum),
            help=f"{text} ({'default %(default)s, ' if default != '' else ''}or ${env})",
        )


def _at_least(minimum: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, not {value}")
        return value

    return parse


def _admission_limits(args: argparse.Namespace) -> dict[str, Any]:
    """Return the ``MatchManager`` options of ``serve``'s admission flags."""
    return {
        "max_active_matches": args.max_active_matches,
        "max_matches_per_caller": args.max_matches_per_caller,
        "max_creates_per_minute": args.max_creates_per_minute,
        "reserved_matches": args.reserved_matches,
    }


def _call_budget(args: argparse.Namespace) -> Any:
    """Return the ``CallBudgetLimits`` of ``serve``'s call-budget flags."""
    from botarena.server.match import CallBudgetLimits

    return CallBudgetLimits(args.call_budget, args.play_budget, args.max_registrations_per_hour)


def _lease(args: argparse.Namespace, target: str, address: str) -> Any:
    """The node's lease when ``--db`` is shared (PostgreSQL), None for SQLite, or a
    message saying why the options do not make a node."""
    import secrets

    from botarena.server.store import Lease, is_postgres_url

    if not is_postgres_url(target):
        return None
    if not args.lease_seconds > 0:
        return "--lease-seconds must be positive"
    advertise = args.advertise or (address if args.port != 0 else None)
    if advertise is None:
        return "--port 0 with a postgresql:// --db needs --advertise HOST:PORT"
    return Lease(f"{advertise}/{secrets.token_hex(4)}", advertise, args.lease_seconds)


def _ladder(
    args: argparse.Namespace,
    store: Any,
    options: Mapping[str, object],
    cluster: Mapping[str, Any],
) -> Any:
    """Return the ladder ``serve --ladder`` asks for, on the server's database, or None."""
    if not args.ladder:
        return None
    from botarena.server.ladder import Ladder, LadderSettings
    from botarena.server.service import config_overrides, durable_manager

    settings = LadderSettings(
        seats=args.ladder_seats,
        pair_cap_per_hour=args.ladder_pair_cap_per_hour,
        pause_after=args.ladder_pause_after,
        move_time_limit=args.ladder_move_time,
    )
    manager = durable_manager(
        store, config_overrides(options), **_admission_limits(args), **cluster
    )
    return Ladder(manager, store.ladder_store(), settings)


async def _serve(args: argparse.Namespace, options: Mapping[str, object], credentials: Any) -> int:
    import structlog

    from botarena.server.service import create_server, raise_open_files_limit
    from botarena.server.store import StoreError, default_database_path, open_store, redacted_url

    logger = structlog.get_logger("botarena.serve")
    # Before anything opens: the connections' caps are cut from what it allows.
    open_files = raise_open_files_limit()
    host, port, admin_token = args.host, args.port, args.admin_token
    # Without --db the server still keeps its matches: a default file, never nothing.
    target = args.db or str(default_database_path())
    path = redacted_url(target)
    try:
        store = open_store(target)
    except StoreError as error:
        logger.error("cannot open the database", database=path, error=str(error))
        return 1
    logger.info("database", database=path, schema_version=store.schema_version)
    address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    lease = _lease(args, target, address)
    if isinstance(lease, str):
        logger.error(lease)
        store.close()
        return 2
    cluster: dict[str, Any] = {} if lease is None else {"lease": lease}
    try:
        ladder = _ladder(args, store, options, cluster)
        server, bound = await create_server(
            address,
            admin_token=admin_token,
            store=None if ladder is not None else store,
            operator_options=options,
            ladder=ladder,
            credentials=credentials,
            http_address=None if args.http_port is None else (args.http_host, args.http_port),
            http_settings=_web_settings(args),
            handshake_timeout=args.handshake_timeout,
            idle_timeout=args.idle_timeout,
            max_connections=args.max_connections,
            max_connections_per_peer=args.max_connections_per_peer,
            call_budget=_call_budget(args),
            **({} if ladder is not None else {**_admission_limits(args), **cluster}),
        )
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        if credentials is None and not _is_loopback(host):
            logger.warning("serving plaintext beyond loopback (--insecure)", host=host)
        if admin_token is None and not _is_loopback(host):
            logger.warning("serving open to everyone beyond loopback (--open)", host=host)
        web_ui = server.web
        if web_ui is not None and not _is_loopback(args.http_host):
            logger.warning("serving the web UI beyond loopback (--insecure)", host=args.http_host)
        logger.info(
            "serving",
            host=host,
            port=bound,
            database=path,
            admin_token_required=admin_token is not None,
            ladder=ladder is not None,
            node=None if lease is None else lease.address,
            tls=credentials is not None,
            client_certificates_required=args.tls_client_ca is not None,
            web_ui=None if web_ui is None else web_ui.url,
            open_files=open_files,
            max_connections=server.max_connections,
            max_connections_per_peer=args.max_connections_per_peer,
            call_budget=args.call_budget,
            play_budget=args.play_budget,
            max_registrations_per_hour=args.max_registrations_per_hour,
            **_admission_limits(args),
        )
        await stop.wait()
        logger.info("stopping", grace_seconds=_GRACE_SECONDS)
        await server.stop(_GRACE_SECONDS)
    finally:
        store.close()
    logger.info("stopped")
    return 0


def _escape_last_resort_logs() -> None:
    """Show the SDK's and the runner's warnings (logging's last-resort handler: the
    message alone, on stderr) with control characters escaped: they may quote a name or
    the server's words."""
    from botarena.server.text import PrintableFormatter

    handler = logging.StreamHandler(sys.stderr)
    handler.setLevel(logging.WARNING)
    handler.setFormatter(PrintableFormatter())
    logging.lastResort = handler


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``botarena`` command line.

    Args:
        argv: The arguments after the program name; ``None`` reads ``sys.argv``.

    Returns:
        The process exit status.
    """
    # grpc's C core logs connection chatter (GOAWAY on shutdown) at INFO otherwise.
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    _escape_last_resort_logs()
    args = _parser().parse_args(argv)
    if args.command == "match":
        from botarena.bots import BUILTIN_BOTS
        from botarena.clients.runner import run_match

        return run_match(args, BUILTIN_BOTS)
    if args.command == "worker":
        from botarena.bots import BUILTIN_BOTS
        from botarena.clients.runner._worker_cli import run_worker

        return run_worker(args, BUILTIN_BOTS)
    if args.command == "serve":
        from botarena.server.service import configure_logging

        reserved = args.reserved_matches
        if reserved is not None and reserved >= args.max_active_matches:
            print(
                f"botarena serve: --reserved-matches {reserved} must be below "
                f"--max-active-matches {args.max_active_matches}",
                file=sys.stderr,
            )
            return 2
        try:
            # Before logging is set up: a refusal leaves the process's logging alone.
            credentials = _server_credentials(args)
            _require_admin_token(args)
        except ValueError as error:
            print(f"botarena serve: {error}", file=sys.stderr)
            return 2
        json = {"auto": None, "json": True, "console": False}[args.log_format]
        configure_logging(level=getattr(logging, args.log_level.upper()), json=json)
        try:
            options = _load_operator_options(args)
        except ValueError as error:
            print(f"botarena serve: {error}", file=sys.stderr)
            return 2
        return asyncio.run(_serve(args, options, credentials))
    if args.command == "replay":
        from botarena.clients._replay_cli import run_replay_command

        try:
            options = _load_operator_options(args)
        except ValueError as error:
            print(f"botarena replay: {error}", file=sys.stderr)
            return 2
        return run_replay_command(args, options)
    if args.command == "ladder":
        from botarena.bots import BUILTIN_BOTS
        from botarena.clients._ladder_cli import run_ladder_command

        return run_ladder_command(args, BUILTIN_BOTS)
    raise AssertionError(f"unhandled command {args.command}")


if __name__ == "__main__":
    raise SystemExit(main())
