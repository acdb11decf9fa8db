"""A throwaway PostgreSQL server on 127.0.0.1 for tests and demos (never for production).

:func:`local_postgres` runs ``initdb`` into a fresh data directory, starts ``postgres``
listening on 127.0.0.1 only (a free port; its socket inside the data directory), yields
the server's URL and stops it (``pg_ctl stop -m fast``), also when the body raises.
:func:`running_postgres` yields a :class:`LocalPostgres` instead, which can also be
stopped (fast, or ``immediate``: a crash) and started again on the same port and data,
for tests and measurements of a database restart. The
binaries come from the ``pgserver`` wheel (a dev extra; it bundles them) or, without it,
from the first ``initdb`` on ``PATH`` or in Debian's ``/usr/lib/postgresql/*/bin``.
PostgreSQL refuses to run as root: as root the server runs as the system user
``botarena-pg`` (made with ``useradd`` when missing), which owns the data directory.

``BOTARENA_TEST_POSTGRES_URL``, when set, is used by the test fixture instead of a
server of its own (see ``tests/conftest.py``), and by :func:`configured_or_local_postgres`
(the benchmarks'); :func:`local_postgres` does not read it.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit, urlunsplit

__all__ = [
    "ENV_TEST_POSTGRES_URL",
    "LocalPostgres",
    "PostgresNotFoundError",
    "configured_or_local_postgres",
    "find_postgres_bin",
    "local_postgres",
    "running_postgres",
    "scratch_database",
]

ENV_TEST_POSTGRES_URL = "BOTARENA_TEST_POSTGRES_URL"
"""Names an existing PostgreSQL server for the tests and benchmarks to use."""

SYSTEM_USER = "botarena-pg"
DATABASE_USER = "botarena"


class PostgresNotFoundError(RuntimeError):
    """No PostgreSQL server binaries here: install ``pgserver`` (``pip install pgserver``)
    or Debian's ``postgresql``."""


def find_postgres_bin() -> Path:
    """Return the folder holding ``initdb``, ``pg_ctl`` and ``postgres``."""
    # The wheel's binaries, found without importing it (its import has side effects).
    spec = importlib.util.find_spec("pgserver")
    if spec is not None and spec.origin is not None:
        folder = Path(spec.origin).parent / "pginstall" / "bin"
        if (folder / "initdb").exists():
            return folder
    on_path = shutil.which("initdb")
    if on_path:
        return Path(on_path).resolve().parent
    debian = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    if debian:
        return debian[-1].parent
    raise PostgresNotFoundError(PostgresNotFoundError.__doc__)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _run_as() -> str | None:
    """The system user the server runs as (None: the current one)."""
    if os.geteuid() != 0:
        return None
    try:
        pwd.getpwnam(SYSTEM_USER)
    except KeyError:
        subprocess.run(
            [
                "useradd",
                "--system",
                "--no-create-home",
                "--shell",
                "/usr/sbin/nologin",
                SYSTEM_USER,
            ],
            check=True,
            capture_output=True,
        )
    return SYSTEM_USER


def _make_traversable(folder: Path) -> None:
    """Let another user reach ``folder`` (as root, the server's user must)."""
    for parent in [folder, *folder.parents]:
        mode = parent.stat().st_mode
        if mode & 0o011 != 0o011:
            parent.chmod(mode | 0o011)


@dataclass(frozen=True, slots=True)
class LocalPostgres:
    """A throwaway server :func:`running_postgres` started.

    Attributes:
        url: Database ``postgres``, user ``botarena``.
        port: Its port on 127.0.0.1 (kept across :meth:`stop` and :meth:`start`).
    """

    url: str
    port: int
    binaries: Path
    data: Path
    user: str | None

    def stop(self, mode: Literal["smart", "fast", "immediate"] = "fast") -> None:
        """Stop the server: ``fast`` ends the sessions and shuts down cleanly,
        ``immediate`` quits at once like a crash (the next start recovers from WAL).

        Raises:
            RuntimeError: ``pg_ctl stop`` failed (its output says why).
        """
        stopped = _pg_ctl(self.binaries, self.user, "-D", str(self.data), "-m", mode, "-w", "stop")
        if stopped.returncode != 0:
            raise RuntimeError(
                f"pg_ctl stop -m {mode} failed ({stopped.returncode}): "
                f"{stopped.stdout}{stopped.stderr}"
            )

    def outage(self, mode: Literal["fast", "immediate"], seconds: float) -> float:
        """Stop the server (:meth:`stop`), wait ``seconds``, start it again; return the
        wall-clock time it serves again."""
        self.stop(mode)
        try:
            time.sleep(seconds)
        finally:
            self.start()
        return time.time()

    def start(self) -> None:
        """Start the stopped server again, on the same port and data directory.

        Raises:
            RuntimeError: It did not start.
        """
        error = _start_on(self.binaries, self.data, self.user, self.port)
        if error is not None:
            raise RuntimeError(f"PostgreSQL did not start again:\n{error}")


@contextmanager
def configured_or_local_postgres() -> Iterator[str]:
    """Yield ``$BOTARENA_TEST_POSTGRES_URL`` if set, else the URL of a
    :func:`local_postgres` started for the block."""
    configured = os.environ.get(ENV_TEST_POSTGRES_URL)
    if configured:
        yield configured
        return
    with local_postgres() as url:
        yield url


@contextmanager
def local_postgres(data_dir: Path | None = None, *, attempts: int = 3) -> Iterator[str]:
    """Start a PostgreSQL server on 127.0.0.1; yield its URL; stop it on exit.

    ``data_dir`` (a new folder made inside it) defaults to a temporary folder, deleted
    afterwards. The URL names database ``postgres`` and user ``botarena`` (trust
    authentication, reachable only from this machine).
    """
    with running_postgres(data_dir, attempts=attempts) as server:
        yield server.url


@contextmanager
def running_postgres(data_dir: Path | None = None, *, attempts: int = 3) -> Iterator[LocalPostgres]:
    """:func:`local_postgres`, yielding the :class:`LocalPostgres` (to stop and start)."""
    binaries = find_postgres_bin()
    user = _run_as()
    with tempfile.TemporaryDirectory(prefix="botarena-pg-", dir=data_dir) as scratch:
        root = Path(scratch)
        if user is not None:
            _make_traversable(root)
            _make_traversable(binaries)
            shutil.chown(root, user)
        data = root / "data"
        subprocess.run(
            [
                str(binaries / "initdb"),
                "-D",
                str(data),
                "-U",
                DATABASE_USER,
                "--auth=trust",
                "--encoding=UTF8",
                "--no-sync",
            ],
            check=True,
            capture_output=True,
            user=user,
        )
        port = _start(binaries, data, user, attempts)
        server = LocalPostgres(
            f"postgresql://{DATABASE_USER}@127.0.0.1:{port}/postgres", port, binaries, data, user
        )
        try:
            yield server
        finally:
            with contextlib.suppress(RuntimeError):  # not running (a test stopped it)
                server.stop()


def _start(binaries: Path, data: Path, user: str | None, attempts: int) -> int:
    """Start the server on a free port (another one if a race took it); return it."""
    error = ""
    for _ in range(attempts):
        port = _free_port()
        failure = _start_on(binaries, data, user, port)
        if failure is None:
            return port
        error = failure
    raise RuntimeError(f"PostgreSQL did not start in {attempts} attempts:\n{error}")


def _start_on(binaries: Path, data: Path, user: str | None, port: int) -> str | None:
    """Start the server on ``port``; return ``None``, or why it did not start."""
    options = f"-h 127.0.0.1 -p {port} -k {data} -c fsync=off -c max_connections=200"
    log = data / "server.log"
    started = _pg_ctl(
        binaries, user, "-D", str(data), "-o", options, "-l", str(log), "-w", "-t", "30", "start"
    )
    if started.returncode == 0:
        return None
    return started.stderr + (log.read_text() if log.exists() else "")


def _pg_ctl(binaries: Path, user: str | None, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``pg_ctl ARGS`` as ``user``: through ``runuser`` when there is one, so that
    Python can spawn it without forking a process whose other threads (grpc's) hold
    locks the child would need before it runs the program."""
    command = [str(binaries / "pg_ctl"), *args]
    runuser = shutil.which("runuser") if user is not None else None
    if user is not None and runuser is not None:
        command, user = [runuser, "-u", user, "--", *command], None
    return subprocess.run(command, check=False, capture_output=True, text=True, user=user)


@contextmanager
def scratch_database(server_url: str, prefix: str = "scratch") -> Iterator[str]:
    """Create a new, empty database on the server of ``server_url``; yield its URL; drop it
    on exit (``WITH (FORCE)``: connections left open are closed). Needs psycopg."""
    import psycopg
    from psycopg import sql

    name = f"{prefix}_{secrets.token_hex(6)}"
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield urlunsplit(urlsplit(server_url)._replace(path=f"/{name}"))
    finally:
        with psycopg.connect(server_url, autocommit=True) as admin:
            admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )
